// The cache of wire datatypes (see wire.hpp).
#include "wire.hpp"

#include <climits>
#include <mutex>
#include <unordered_map>

namespace loom_mpi {
namespace {

std::mutex g_mu;
// Never destroyed: collectives may run from atexit-time code.
auto *g_types = new std::unordered_map<int64_t, MPI_Datatype>;
int g_keyval = MPI_KEYVAL_INVALID;

int free_types(MPI_Comm, int, void *, void *) {
  // Runs at the start of MPI_Finalize (attribute deletion on MPI_COMM_SELF),
  // so the system reports no leaked datatypes.
  std::lock_guard<std::mutex> g(g_mu);
  for (auto &kv : *g_types) PMPI_Type_free(&kv.second);
  g_types->clear();
  return MPI_SUCCESS;
}

constexpr int64_t kGiB = int64_t(1) << 30;

// A new committed type of exactly `size` bytes, or MPI_DATATYPE_NULL.
MPI_Datatype make_bytes(int64_t size) {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  if (size <= INT_MAX) {
    if (PMPI_Type_contiguous((int)size, MPI_BYTE, &t) != MPI_SUCCESS) return MPI_DATATYPE_NULL;
  } else {
    // q whole GiB, then the rest: {contiguous(q, GiB) @0, r bytes @q GiB}.
    const int64_t q = size / kGiB, r = size % kGiB;
    MPI_Datatype gib, body;
    if (q > INT_MAX || PMPI_Type_contiguous((int)kGiB, MPI_BYTE, &gib) != MPI_SUCCESS)
      return MPI_DATATYPE_NULL;
    int rc = PMPI_Type_contiguous((int)q, gib, &body);
    PMPI_Type_free(&gib);
    if (rc != MPI_SUCCESS) return MPI_DATATYPE_NULL;
    if (r == 0) {
      t = body;
    } else {
      int bl[2] = {1, (int)r};
      MPI_Aint d[2] = {0, (MPI_Aint)(q * kGiB)};
      MPI_Datatype ty[2] = {body, MPI_BYTE};
      rc = PMPI_Type_create_struct(2, bl, d, ty, &t);
      PMPI_Type_free(&body);
      if (rc != MPI_SUCCESS) return MPI_DATATYPE_NULL;
    }
  }
  if (PMPI_Type_commit(&t) != MPI_SUCCESS) {
    PMPI_Type_free(&t);
    return MPI_DATATYPE_NULL;
  }
  return t;
}

}  // namespace

MPI_Datatype unit_type(int64_t size) {
  if (size == 1) return MPI_BYTE;
  if (size <= 0) return MPI_DATATYPE_NULL;
  std::lock_guard<std::mutex> g(g_mu);
  auto it = g_types->find(size);
  if (it != g_types->end()) return it->second;
  if (g_keyval == MPI_KEYVAL_INVALID &&
      PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_types, &g_keyval, nullptr) ==
          MPI_SUCCESS)
    PMPI_Comm_set_attr(MPI_COMM_SELF, g_keyval, nullptr);
  MPI_Datatype t = make_bytes(size);
  if (t != MPI_DATATYPE_NULL) g_types->emplace(size, t);
  return t;
}

}  // namespace loom_mpi
