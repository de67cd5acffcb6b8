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

// A new committed type of exactly `size` bytes, or MPI_DATATYPE_NULL.
MPI_Datatype make_bytes(int64_t size) {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  if (repeat_type(size, MPI_BYTE, &t) != MPI_SUCCESS) return MPI_DATATYPE_NULL;
  if (PMPI_Type_commit(&t) != MPI_SUCCESS) {
    PMPI_Type_free(&t);
    return MPI_DATATYPE_NULL;
  }
  return t;
}

}  // namespace

int repeat_type(int64_t count, MPI_Datatype t, MPI_Datatype *out) {
  if (count <= INT_MAX) return PMPI_Type_contiguous((int)count, t, out);
  // {contiguous(q, contiguous(2^30, t)) @0, r x t @ q * 2^30 * extent}.
  constexpr int64_t kBlock = int64_t(1) << 30;
  const int64_t q = count / kBlock, r = count % kBlock;
  MPI_Aint lb, extent, tail;
  if (q > INT_MAX) return MPI_ERR_COUNT;
  int rc = PMPI_Type_get_extent(t, &lb, &extent);
  if (rc != MPI_SUCCESS) return rc;
  if (__builtin_mul_overflow((MPI_Aint)(q * kBlock), extent, &tail)) return MPI_ERR_COUNT;
  MPI_Datatype block, body;
  if ((rc = PMPI_Type_contiguous((int)kBlock, t, &block)) != MPI_SUCCESS) return rc;
  rc = PMPI_Type_contiguous((int)q, block, &body);
  PMPI_Type_free(&block);
  if (rc != MPI_SUCCESS) return rc;
  if (r == 0) {
    *out = body;
    return MPI_SUCCESS;
  }
  int lengths[2] = {1, (int)r};
  MPI_Aint disps[2] = {0, tail};
  MPI_Datatype types[2] = {body, t};
  rc = PMPI_Type_create_struct(2, lengths, disps, types, out);
  PMPI_Type_free(&body);
  return rc;
}

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
