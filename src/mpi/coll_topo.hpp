// Neighbours of a process in a topology communicator, in the order the
// neighborhood collectives number their blocks.
#pragma once
#include <mpi.h>

#include <vector>

namespace loom_mpi {
namespace coll {

struct Topology {
  int indeg = 0, outdeg = 0;  // the block counts of the receive and send sides
  // Sources (receive blocks) and destinations (send blocks).  Cartesian
  // neighbours are, per dimension, the one at -1 then the one at +1, and
  // may be MPI_PROC_NULL at a non-periodic edge: those blocks are not
  // moved.  Never a null data(), even at degree 0 (arrays handed to the
  // system).
  std::vector<int> sources, dests;
};

// comm's topology; nullptr when it has none (the system then raises the
// error).  Valid until this thread's next call.  A topology never changes,
// so each thread keeps the last one it asked about (a halo exchange asks
// about the same communicator every step: the queries cost a tenth of a
// small exchange), for communicators Loom saw created, while no
// communicator is created or freed (comm_epoch).
const Topology *topology(MPI_Comm comm);

}  // namespace coll
}  // namespace loom_mpi
