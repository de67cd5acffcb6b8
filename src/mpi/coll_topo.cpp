// Topology queries for the neighborhood collectives (all through PMPI).
#include "coll_topo.hpp"

#include <cstddef>

namespace loom_mpi {
namespace coll {

bool degrees(MPI_Comm comm, int *indeg, int *outdeg) {
  int kind = MPI_UNDEFINED, n = 0, rank = 0, weighted = 0;
  if (comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &kind) != MPI_SUCCESS) return false;
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

bool neighbors(MPI_Comm comm, std::vector<int> *sources, std::vector<int> *dests) {
  int kind = MPI_UNDEFINED, in = 0, out = 0;
  if (!degrees(comm, &in, &out) || PMPI_Topo_test(comm, &kind) != MPI_SUCCESS) return false;
  // One spare element: no array handed to the system is ever empty (null).
  sources->assign((std::size_t)in + 1, MPI_PROC_NULL);
  dests->assign((std::size_t)out + 1, MPI_PROC_NULL);
  bool ok = true;
  if (kind == MPI_CART) {
    for (int d = 0; ok && d < in / 2; ++d)
      ok = PMPI_Cart_shift(comm, d, 1, &(*sources)[2 * (std::size_t)d],
                           &(*sources)[2 * (std::size_t)d + 1]) == MPI_SUCCESS;
    *dests = *sources;
  } else if (kind == MPI_GRAPH) {
    int rank = 0;
    ok = PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS &&
         PMPI_Graph_neighbors(comm, rank, in, sources->data()) == MPI_SUCCESS;
    *dests = *sources;
  } else {
    // Weight arrays always: both systems fill them only for weighted graphs.
    std::vector<int> sw((std::size_t)in + 1), dw((std::size_t)out + 1);
    ok = PMPI_Dist_graph_neighbors(comm, in, sources->data(), sw.data(), out,
                                   dests->data(), dw.data()) == MPI_SUCCESS;
  }
  sources->resize((std::size_t)in);
  dests->resize((std::size_t)out);
  return ok;
}

}  // namespace coll
}  // namespace loom_mpi
