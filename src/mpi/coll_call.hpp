// One collective call through staging: both planned sides, the pooled
// staging buffer (held by a PendingOp), and completion.  Blocking calls
// unpack right after the system call; nonblocking calls leave the unpacks
// and the staging buffer to the request engine, which runs them in the
// completion call that observes the request done.
//
// Every collective follows the same steps:
//   fast path: all types known contiguous/declined -> the system, unchanged
//   Intra::open -> plan() -> (mark skips) -> start() -> system call with
//   the Staged sides' wire arguments -> finish(rc).
#pragma once
#include "coll_blocks.hpp"

#include <memory>

namespace loom_mpi {
namespace coll {

// Rank and size of an intracommunicator.  False for MPI_COMM_NULL,
// intercommunicators (their rooted semantics are left to the system) and
// whenever Loom's communication layer is switched off: the caller then
// hands the call to the system unchanged.
struct Intra {
  int rank = 0, size = 0;
  bool open(MPI_Comm comm);
};

class Call {
 public:
  // req: null for a blocking call, else where the system's request goes.
  Call(MPI_Comm comm, MPI_Request *req) : comm_(comm), req_(req) {}
  ~Call();
  Call(const Call &) = delete;
  Call &operator=(const Call &) = delete;

  // Plans both sides (n == 0: the side does not exist at this rank).
  // MPI_SUCCESS, or an error class the caller raises (a freed datatype).
  int plan(const SideSpec &send, const SideSpec &recv);
  bool staged() const { return sides_->send.on || sides_->recv.on; }

  // Staging for both sides and the send side packed.  False when no staging
  // could be had or Loom failed: nothing was sent, the caller hands the call
  // to the system unchanged.
  bool start();
  // Packs receive blocks into staging too (MPI_IN_PLACE: the system sends
  // them from the receive buffer): all, or only block `only`.
  bool prepack_recv(int only = -1);

  // After the system call returned rc: unpacks (blocking) or hands the op
  // to the request engine (nonblocking).  Returns what the user gets.
  int finish(int rc);

  Staged &send() { return sides_->send; }
  Staged &recv() { return sides_->recv; }

 private:
  struct Sides {
    Staged send, recv;
  };
  // Sides are recycled through a small per-thread list: their vectors keep
  // their capacity, so a collective in steady state allocates nothing for
  // its blocks and wire arrays (a tenth of Loom's work in a small halo
  // exchange was allocating and freeing them).
  static std::unique_ptr<Sides> take_sides();
  static void give_sides(std::unique_ptr<Sides> s);
  static void free_sides(PendingOp &op, MPI_Status *);

  MPI_Comm comm_;
  MPI_Request *req_;
  std::unique_ptr<Sides> sides_ = take_sides();
  PendingOp *op_ = nullptr;  // owns the staging buffer until finish()
};

}  // namespace coll
}  // namespace loom_mpi
