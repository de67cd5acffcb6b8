// Topology queries for the neighborhood collectives (all through PMPI).
#include "coll_topo.hpp"

#include "comm_keys.hpp"

#include <cstddef>
#include <cstdint>

namespace loom_mpi {
namespace coll {
namespace {

bool degrees(MPI_Comm comm, int kind, int *indeg, int *outdeg) {
  int n = 0, rank = 0, weighted = 0;
  switch (kind) {
    case MPI_CART:
      if (PMPI_Cartdim_get(comm, &n) != MPI_SUCCESS) return false;
      *indeg = *outdeg = 2 * n;
      return true;
    case MPI_GRAPH:
      if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS ||
          PMPI_Graph_neighbors_count(comm, rank, &n) != MPI_SUCCESS)
        return false;
      *indeg = *outdeg = n;
      return true;
    case MPI_DIST_GRAPH:
      return PMPI_Dist_graph_neighbors_count(comm, indeg, outdeg, &weighted) == MPI_SUCCESS;
    default:
      return false;
  }
}

bool query(MPI_Comm comm, Topology *t) {
  int kind = MPI_UNDEFINED;
  if (comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &kind) != MPI_SUCCESS ||
      !degrees(comm, kind, &t->indeg, &t->outdeg))
    return false;
  const int in = t->indeg, out = t->outdeg;
  std::vector<int> &sources = t->sources, &dests = t->dests;
  // One spare element: no array handed to the system is ever empty (null).
  sources.assign((std::size_t)in + 1, MPI_PROC_NULL);
  dests.assign((std::size_t)out + 1, MPI_PROC_NULL);
  bool ok = true;
  if (kind == MPI_CART) {
    for (int d = 0; ok && d < in / 2; ++d)
      ok = PMPI_Cart_shift(comm, d, 1, &sources[2 * (std::size_t)d],
                           &sources[2 * (std::size_t)d + 1]) == MPI_SUCCESS;
    dests = sources;
  } else if (kind == MPI_GRAPH) {
    int rank = 0;
    ok = PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS &&
         PMPI_Graph_neighbors(comm, rank, in, sources.data()) == MPI_SUCCESS;
    dests = sources;
  } else {
    // Weight arrays always: both systems fill them only for weighted graphs.
    std::vector<int> sw((std::size_t)in + 1), dw((std::size_t)out + 1);
    ok = PMPI_Dist_graph_neighbors(comm, in, sources.data(), sw.data(), out, dests.data(),
                                   dw.data()) == MPI_SUCCESS;
  }
  sources.resize((std::size_t)in);
  dests.resize((std::size_t)out);
  return ok;
}

struct Kept {
  MPI_Comm comm = MPI_COMM_NULL;
  uint64_t epoch = 0;  // 0: nothing kept
  bool ok = false;
  Topology topo;
};
thread_local Kept t_kept;

}  // namespace

const Topology *topology(MPI_Comm comm) {
  // The epoch is read before the queries: a change after it makes what is
  // kept stale at once.
  const uint64_t epoch = comm_epoch();
  Kept &k = t_kept;
  if (k.epoch == epoch && k.comm == comm) return k.ok ? &k.topo : nullptr;
  k.ok = query(comm, &k.topo);
  k.comm = comm;
  // Kept only for communicators whose creation and freeing Loom sees.
  k.epoch = comm_key(comm) != 0 ? epoch : 0;
  return k.ok ? &k.topo : nullptr;
}

}  // namespace coll
}  // namespace loom_mpi
