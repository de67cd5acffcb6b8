// The cache of wire datatypes (see coll_wire.hpp).
#include "coll_wire.hpp"

#include <climits>
#include <mutex>
#include <unordered_map>

namespace loom_mpi {
namespace coll {
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

}  // namespace

MPI_Datatype unit_type(int64_t size) {
  if (size == 1) return MPI_BYTE;
  if (size <= 0 || size > INT_MAX) return MPI_DATATYPE_NULL;
  std::lock_guard<std::mutex> g(g_mu);
  auto it = g_types->find(size);
  if (it != g_types->end()) return it->second;
  if (g_keyval == MPI_KEYVAL_INVALID &&
      PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_types, &g_keyval, nullptr) ==
          MPI_SUCCESS)
    PMPI_Comm_set_attr(MPI_COMM_SELF, g_keyval, nullptr);
  MPI_Datatype t;
  if (PMPI_Type_contiguous((int)size, MPI_BYTE, &t) != MPI_SUCCESS) return MPI_DATATYPE_NULL;
  if (PMPI_Type_commit(&t) != MPI_SUCCESS) {
    PMPI_Type_free(&t);
    return MPI_DATATYPE_NULL;
  }
  g_types->emplace(size, t);
  return t;
}

}  // namespace coll
}  // namespace loom_mpi
