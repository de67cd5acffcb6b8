// MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4: MPICH 4 has them, Open
// MPI 4.1 does not).  The receive is MPI_Irecv's (p2p_recv.cpp: staged or
// in place, checked for a Loom-to-Loom RDV where one may match it), and its
// request is the program's; the send leaves from a copy (packed, or the
// run) as a standard-mode send that Loom completes itself (as one the
// program freed with MPI_Request_free).  The send buffer is free once the
// call returns, so the program's request may complete with the receive:
// MPI lets a standard-mode send complete before it is matched.  The
// system's own MPI_Isendrecv only for a type Loom cannot copy: MPICH
// 4.0.2's reports a zeroed status (so a staged receive would not know how
// many bytes arrived, nor an RDV be told from data, and the program gets
// no source, tag or count) and asserts on any derived datatype
// (pmodels/mpich#7098).
#include "l2l.hpp"
#include "p2p.hpp"

#if LOOM_MPI_HAVE_LARGE_COUNT
namespace loom_mpi {
namespace {

// Sends side s (a Loom type, or a contiguous run) from a copy, completed by
// Loom; an RDV-sized one announced first (protocol.md, Invariant R).
int send_copy(const Side &s, int dest, int tag, MPI_Comm comm) {
  PendingOp *op = op_new(PendingOp::kSend, comm);
  if (op_stage(op, s.bytes) != MPI_SUCCESS) {
    op_discard(op);
    return raise(comm, MPI_ERR_NO_MEM);
  }
  if (pack_side(s, op->staging.data) != MPI_SUCCESS) {
    op_discard(op);
    return raise(comm, MPI_ERR_INTERN);
  }
  l2l::announce_plain(comm, dest, tag, s.bytes);
  const Wire w = wire_for(s.bytes);
  MPI_Request r;
  int rc = PMPI_Isend(op->staging.data, w.count, w.type, dest, tag, comm, &r);
  if (rc != MPI_SUCCESS) {
    op_discard(op);
    return rc;
  }
  op_register(op, r, true);
  if (PendingOp *mine = claim_one(r))
    if (release_request(mine)) PMPI_Request_free(&r);
  return MPI_SUCCESS;
}

// What Loom copies of an outgoing (buf, count, dt): a Loom type, or the
// run of a contiguous one; false for what Loom cannot copy (the system's
// own call then).
bool copyable(const void *buf, int count, MPI_Datatype dt, Side *s, int *rc) {
  *rc = classify(buf, count, dt, s, Use::staged);
  return *rc == MPI_SUCCESS && (s->type || contiguous_run(buf, count, dt, s));
}

}  // namespace

int isendrecv_call(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Request *req) {
  Side ss;
  int rc = MPI_SUCCESS;
  const bool to_peer = dest != MPI_PROC_NULL;
  if (req && (!to_peer || copyable(sendbuf, sendcount, sendtype, &ss, &rc))) {
    if (to_peer && (rc = send_copy(ss, dest, sendtag, comm)) != MPI_SUCCESS) return rc;
    return irecv_any(PMPI_Irecv, false, recvbuf, recvcount, recvtype, source, recvtag, comm,
                     req);
  }
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  // A type Loom cannot copy (or no request): the system's own call.
  announce(Side{}, sendcount, sendtype, dest, sendtag, comm);
  return PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                        recvtype, source, recvtag, comm, req);
}

int isendrecv_replace_call(void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *req) {
  Side ss;
  int rc = MPI_SUCCESS;
  const bool to_peer = dest != MPI_PROC_NULL;
  if (req && (!to_peer || copyable(buf, count, dt, &ss, &rc))) {
    // The copy is taken before the receive may land on the buffer.
    if (to_peer && (rc = send_copy(ss, dest, sendtag, comm)) != MPI_SUCCESS) return rc;
    return irecv_any(PMPI_Irecv, false, buf, count, dt, source, recvtag, comm, req);
  }
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  announce(Side{}, count, dt, dest, sendtag, comm);
  return PMPI_Isendrecv_replace(buf, count, dt, dest, sendtag, source, recvtag, comm, req);
}

}  // namespace loom_mpi

using namespace loom_mpi;

LOOM_MPI_EXPORT int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  int dest, int sendtag, void *recvbuf, int recvcount,
                                  MPI_Datatype recvtype, int source, int recvtag,
                                  MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return isendrecv_call(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                          recvtype, source, recvtag, comm, req);
  });
}

LOOM_MPI_EXPORT int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest,
                                          int sendtag, int source, int recvtag, MPI_Comm comm,
                                          MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return isendrecv_replace_call(buf, count, dt, dest, sendtag, source, recvtag, comm, req);
  });
}
#endif
