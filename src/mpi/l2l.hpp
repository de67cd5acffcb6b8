// The Loom-to-Loom protocol as the point-to-point layer uses it
// (docs/protocol.md).  Senders try send()/isend() first; every receive
// that may meet a rendezvous (may_meet_rdv) gives its arrived bytes to
// on_arrival() before treating them as data; probes pass their status
// through fix_probe().
#pragma once
#include "l2l_segment.hpp"
#include "requests.hpp"

namespace loom_mpi {
namespace l2l {

// The system send an RDV travels with (the user's mode).
using IsendFn = int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm,
                        MPI_Request *);

// Sends (buf, count, dt) to dest Loom-to-Loom when the protocol applies
// (a Loom peer on this node, a keyed communicator, a message the selection
// gives to it, a free slot); kFallback when it does not (nothing was sent).
// `staged`: (buf, count, dt) as classify() gave it for Use::staged.
// Blocking: returns once the send is complete (pulled, or packed).
int send(IsendFn sys, const Side &staged, const void *buf, int count, MPI_Datatype dt,
         int dest, int tag, MPI_Comm comm);
// Nonblocking: *req is the RDV's system request, a persistent one made by
// `init` (the mode's MPI_*_init) and started here, so that its handle is
// this op's alone (PendingOp::sys_persistent); registered with an op whose
// completion finishes the slot.
int isend(IsendFn init, const Side &staged, const void *buf, int count, MPI_Datatype dt,
          int dest, int tag, MPI_Comm comm, MPI_Request *req);

// Whether a send that classify() left without a type (contiguous data)
// may still go Loom-to-Loom: judged on the type's size alone, as send()
// and isend() would, so that the many contiguous sends that stay with the
// system skip their setup (only messages of an RDV's size or read in
// place by contiguous_read_in_place() go on).
bool contiguous_may_go(int count, MPI_Datatype dt);

// Whether send()/isend() could take (buf, count, dt) as classify() left
// it in s, judged on its size alone, inline: no message shorter than an
// RDV travels as one (docs/protocol.md, Invariant R), so the many small
// non-contiguous sends skip the protocol's setup entirely.
inline bool may_go(const Side &s, int count, MPI_Datatype dt) {
  return s.type ? s.bytes >= kRdvBytes : contiguous_may_go(count, dt);
}

// Whether a send to dest on comm could go Loom-to-Loom (a cheap check: the
// peer and the communicator; the message decides later).
bool may_send_to(MPI_Comm comm, int dest);

// Whether a receive from `source` on comm (MPI_ANY_SOURCE included) can
// be matched by an RDV, so must be checked if it has room for kRdvBytes
// (with less room, the system reports an RDV as MPI_ERR_TRUNCATE).
bool may_meet_rdv(MPI_Comm comm, int source);

// What a completed receive found.
enum class Arrival { data, rdv };
// Looks at the bytes a receive got (`got`, as many as *st says; none on an
// error other than truncation).  An RDV: the message is moved into dst
// (at most dst.bytes of it: a longer message is MPI_ERR_TRUNCATE), *st
// gets the message's byte count, *rc the outcome.  dst.type null means
// one contiguous run of dst.bytes at dst.base.  Data of an RDV's size is
// a plain message: its announcement (announce_plain) is retired, on
// plain_comm (MPI_COMM_NULL: a matching probe retired it).
Arrival on_arrival(const char *got, MPI_Status *st, const Side &dst, MPI_Comm plain_comm,
                   int *rc);

// Before Loom hands the system a message of exactly kRdvBytes as data
// (buffered and persistent modes, Sendrecv_replace, a refused rendezvous)
// to a Loom peer: a PLAIN slot announces it, so that a probe seeing
// kRdvBytes tells it from an RDV (docs/protocol.md, Invariant R).  Nothing
// unless bytes == kRdvBytes and dest is a Loom peer on a keyed comm.
void announce_plain(MPI_Comm comm, int dest, int tag, size_t bytes);

// A probe's status: when it describes an RDV, the byte count becomes the
// message's.  `matched`: an Mprobe/Improbe took the message (later probes
// skip its slot).
void fix_probe(MPI_Comm comm, MPI_Status *st, bool matched);

// Sender side of progress(): releases packed copies of pulled messages and
// serves pushes.  Cheap when nothing is parked.
void poll();
// Completed sends whose receivers have not pulled yet.
int parked();
// MPI_Finalize, once this process will pull no more: says so to its
// senders (Header::closed).
void close_receiving();
// MPI_Finalize, while waiting for parked(): releases the parked messages
// whose receivers have closed or exited (a receive with room for less
// than an RDV truncated the message without pulling it).
void release_abandoned();

// Wait-family calls let a send wait a little for its receiver's pull
// before packing (LOOM_L2L_GRACE); Test-family calls do not wait.
struct WaitScope {
  WaitScope();
  ~WaitScope();
};

}  // namespace l2l
}  // namespace loom_mpi
