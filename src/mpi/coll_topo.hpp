// Neighbours of a process in a topology communicator, in the order the
// neighborhood collectives number their blocks.
#pragma once
#include <mpi.h>

#include <vector>

namespace loom_mpi {
namespace coll {

// In- and out-degree (the block counts of the receive and send sides).
// False when comm has no topology: the system then raises the error.
bool degrees(MPI_Comm comm, int *indeg, int *outdeg);

// Sources (receive blocks) and destinations (send blocks).  Cartesian
// neighbours are, per dimension, the one at -1 then the one at +1, and may
// be MPI_PROC_NULL at a non-periodic edge: those blocks are not moved.
bool neighbors(MPI_Comm comm, std::vector<int> *sources, std::vector<int> *dests);

}  // namespace coll
}  // namespace loom_mpi
