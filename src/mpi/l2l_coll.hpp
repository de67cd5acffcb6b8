// Loom-to-Loom collectives: the exchange every blocking all-to-all and
// neighbourhood all-to-all with datatypes runs when all ranks of the
// communicator are Loom processes on this node (docs/protocol.md).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace loom_mpi {
namespace l2l {

// One block of a collective side: count instances of type at addr (the
// user's buffer plus the block's displacement), to or from comm rank peer
// (MPI_PROC_NULL: not moved).
struct CollBlock {
  int peer;
  uintptr_t addr;
  int count;
  MPI_Datatype type;
};

// The system's exchange of the wire buffers: per block a byte count and a
// byte displacement, every block MPI_BYTE (an Alltoallw or a
// Neighbor_alltoallw).  Returns its MPI outcome.
using CollWire = std::function<int(char *sbuf, const int *scounts, const MPI_Aint *sdispls,
                                   char *rbuf, const int *rcounts, const MPI_Aint *rdispls)>;

// Cheap: whether exchange() could apply on comm at all (this process
// takes part and the communicator has a key).
bool coll_possible(MPI_Comm comm);

// Runs the collective: a block between this rank and another of at least
// LOOM_L2L_MIN bytes is announced by an RDV and pulled by its receiver;
// other blocks travel packed.  Every rank decides alike from the byte
// count (both ends of a block see the same) and from whether every rank
// of comm is a Loom peer.  kFallback (nothing happened) when not, or when
// the system must judge an argument; else the MPI outcome.
int exchange(MPI_Comm comm, int size, int me, const std::vector<CollBlock> &send,
             const std::vector<CollBlock> &recv, const CollWire &wire);

}  // namespace l2l
}  // namespace loom_mpi
