// How a point-to-point receive is posted: the plan (through Loom or the
// system's own, staged or in place, checked for an RDV or not) that
// MPI_Recv, MPI_Irecv, MPI_Mrecv and MPI_Isendrecv share.
#pragma once
#include "l2l.hpp"
#include "p2p.hpp"

namespace loom_mpi {

// How a receive is posted.
struct RecvPlan {
  Side dst;           // where the data goes (dst.type null: a run)
  bool loom = false;  // false: the system's own receive, unchanged
  bool rdv = false;   // an RDV may match it
  size_t room = 0;    // staging to post into; 0: in place
  bool in_place = false;  // typed by the user's own datatype, in place
  // Where a plain message of an RDV's size is accounted (deliver()): the
  // receive's communicator; MPI_COMM_NULL for a message a probe matched.
  MPI_Comm plain_comm = MPI_COMM_NULL;
};

// The room of a receive of (count, dt) in bytes, s being its Use::recv
// classification; SIZE_MAX where the type is not known here (the check is
// then kept).
inline size_t room_of(int count, MPI_Datatype dt, const Side &s) {
  if (s.type || s.direct) return s.bytes;
  if (count <= 0) return 0;
  const Mirror *m = find(dt);
  if (!m && resolve(dt, &m) != Resolved::ok) return SIZE_MAX;
  int64_t n;
  return m && !__builtin_mul_overflow((int64_t)count, m->size, &n) ? (size_t)n : SIZE_MAX;
}

// Decides how (buf, count, dt) is received; an error class only for a
// freed datatype.  Only a receive with room for an RDV can be matched by
// one without the system reporting MPI_ERR_TRUNCATE (Invariant R), so
// only such a receive is checked, and it holds the RDV where its data
// goes: in staging, in place in its run, or in place in the system's typed
// path where selection gives it that (the RDV's bytes are then the
// stream's first kRdvBytes).  may_meet(): whether an RDV could come from
// the receive's source, asked only of a receive with room for one.
template <class MayMeet>
int plan_recv(void *buf, int count, MPI_Datatype dt, MayMeet may_meet, RecvPlan *p) {
  int rc = classify(buf, count, dt, &p->dst, Use::recv);
  if (rc != MPI_SUCCESS) return rc;
  // The cheaper question first: the room is known unless the system keeps
  // the receive (then it costs a lookup).
  const bool known = p->dst.type || p->dst.direct;
  p->rdv = known ? room_of(count, dt, p->dst) >= l2l::kRdvBytes && may_meet()
                 : may_meet() && room_of(count, dt, p->dst) >= l2l::kRdvBytes;
  if (p->dst.type) {
    p->loom = true;
    p->room = p->dst.bytes;
  } else if (p->rdv && contiguous_run(buf, count, dt, &p->dst)) {
    p->loom = true;
  } else if (p->rdv && classify(buf, count, dt, &p->dst, Use::staged) == MPI_SUCCESS &&
             p->dst.type) {
    p->loom = p->in_place = true;
  } else {
    p->rdv = false;
  }
  return MPI_SUCCESS;
}

// The system arguments of a Loom receive: staging, or the run in place.
struct Posted {
  void *buf;
  Wire w;
};
inline Posted posted(const RecvPlan &p, void *buf, int count, MPI_Datatype dt, char *staging) {
  if (p.room) return {staging, wire_for(p.room)};
  if (p.in_place) return {buf, Wire{count, dt}};
  // The run as bytes: a contiguous type the system may not see as
  // contiguous (Mirror::native_contig) must never reach it typed.
  return {p.dst.base, wire_for(p.dst.bytes)};
}

}  // namespace loom_mpi
