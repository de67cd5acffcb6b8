// Loom-to-Loom collectives: the exchange the all-to-alls, Allgather(v),
// Gather(v), Scatter(v), Bcast and the neighbourhood all-to-alls with
// datatypes run (blocking and nonblocking) when all ranks of the
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

// The shape of the call: every rank of the communicator must call the same
// system collective, so the exchange uses the program's own function over
// bytes (uniform: Alltoall/Neighbor_alltoall of one RDV per block; v, w:
// the v or w form with byte counts and displacements).
enum class CollShape { uniform, v, w };

// What the system's collective over the wire buffers gets: per block a
// byte count and a byte displacement (as int and as MPI_Aint), MPI_BYTE per
// block for the w forms, and where a nonblocking call puts its request
// (null: blocking).  Every array lives until the collective completes.
struct WireArgs {
  char *sbuf;
  const int *scounts, *sdispls;
  const MPI_Aint *sadispls;
  char *rbuf;
  const int *rcounts, *rdispls;
  const MPI_Aint *radispls;
  const MPI_Datatype *bytes;
  MPI_Request *req;
};
// The system's exchange of the wire buffers (uniform: kCollRdvBytes per block,
// back to back); returns its MPI outcome.
using CollWire = std::function<int(const WireArgs &)>;

// Cheap: whether exchange() could apply on comm at all (this process
// takes part and the communicator has a key).
bool coll_possible(MPI_Comm comm);
// Cheap, for the uniform shape: false when a block of count instances of
// t is certainly too small for exchange() (every rank sees the same block
// size, so every rank skips it alike); true when it may not be.
bool coll_block_may_fit(int count, MPI_Datatype t);

// Runs the collective Loom-to-Loom when every rank of comm is a Loom peer
// (a fact all ranks see alike) and, for the uniform shape, the blocks hold
// at least LOOM_L2L_COLL_MIN bytes (all ranks see the same block size), for the
// v and w shapes when one of this rank's blocks does (its peers then see
// the same block, and a rank with none calls the same v/w function over
// the staged or its own arguments, which matches byte for byte).  A block
// between two ranks of at least LOOM_L2L_COLL_MIN bytes is announced by an RDV
// and pulled by its receiver; smaller ones travel packed; a block to
// itself is copied.  `one_source`: every send block is the same data
// (Bcast, Allgather): a layout that would be pipelined to several
// receivers is packed once and read packed by each.  kFallback (nothing
// happened) when it does not apply; else the MPI outcome.
//
// The wire may be another system collective than the program's (Bcast
// over Scatter, Allgather over Alltoall: one RDV per receiver) only where
// every rank decides alike whether to fall back: uniform shapes, and v
// shapes whose every rank sees every block's size (Allgatherv).
//
// With `req`, the nonblocking form: the wire is started (a nonblocking
// system collective whose request goes to *req) and the rest happens in
// the completion call that sees it complete (a PendingOp): the pulls of
// the blocks announced to this rank, and for its own announced blocks a
// wait of at most LOOM_L2L_GRACE (none in a Test) before they are packed
// for their receivers, as a point-to-point send does.
// The all-to-all wire of a shape: Alltoall of RDVs (uniform), Alltoallv
// or Alltoallw of bytes; nonblocking when a.req is set.
int alltoall_wire(CollShape shape, MPI_Comm comm, const WireArgs &a);

int exchange(MPI_Comm comm, int size, int me, CollShape shape,
             const std::vector<CollBlock> &send, const std::vector<CollBlock> &recv,
             const CollWire &wire, bool one_source = false, MPI_Request *req = nullptr);

}  // namespace l2l
}  // namespace loom_mpi
