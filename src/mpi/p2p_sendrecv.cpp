// MPI_Sendrecv and MPI_Sendrecv_replace: either side may be staged; the
// system does the exchange (one message each way, deadlock-free as its own).
#include "l2l.hpp"
#include "p2p.hpp"

using namespace loom_mpi;

namespace {

// Staging for one side, or the user's own arguments when the system moves it.
struct Staged {
  loom::xfer::Buffer b;
  const void *buf;
  int count;
  MPI_Datatype dt;
  ~Staged() { staging_release(b); }
};

// Prepares a side: false when staging is unavailable (then the system
// moves it unchanged).
bool stage(const Side &s, bool pack, Staged *o) {
  if (!s.type) return true;
  o->b = staging_acquire(s.bytes);
  if (!o->b.data || (pack && pack_side(s, o->b.data) != MPI_SUCCESS)) {
    staging_release(o->b);
    return false;
  }
  const Wire w = wire_for(s.bytes);
  o->buf = o->b.data;
  o->count = w.count;
  o->dt = w.type;
  return true;
}

// With Loom-to-Loom peers: the send as an MPI_Isend (which may go
// Loom-to-Loom), the receive as an MPI_Recv (which may meet an RDV), then
// the send's completion: the exchange the system's Sendrecv would do,
// deadlock-free for the same reason (the send never waits for the receive).
int sendrecv_l2l(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  MPI_Request r = MPI_REQUEST_NULL;
  int rc = isend_staged(PMPI_Isend, false, sendbuf, sendcount, sendtype, dest, sendtag,
                        comm, &r, PMPI_Send_init);
  if (rc != MPI_SUCCESS) return rc;
  int rrc = recv_any(recvbuf, recvcount, recvtype, source, recvtag, comm, status);
  int wrc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  return rrc != MPI_SUCCESS ? rrc : wrc;
}

// Sendrecv_replace with a receive that may meet an RDV: the outgoing data is
// copied first (packed, or the run), sent from the copy, then the receive
// lands in the user's buffer.
int sendrecv_replace_l2l(void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  Side s;
  int rc = dest == MPI_PROC_NULL ? MPI_SUCCESS : classify(buf, count, dt, &s, Use::staged);
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  Staged so{{}, buf, count, dt};
  if (dest != MPI_PROC_NULL && (s.type || contiguous_run(buf, count, dt, &s))) {
    so.b = staging_acquire(s.bytes);
    if (!so.b.data) return raise(comm, MPI_ERR_NO_MEM);
    if (pack_side(s, so.b.data) != MPI_SUCCESS) return raise(comm, MPI_ERR_INTERN);
    const Wire w = wire_for(s.bytes);
    so.buf = so.b.data;
    so.count = w.count;
    so.dt = w.type;
  }
  MPI_Request r = MPI_REQUEST_NULL;
  if (dest != MPI_PROC_NULL) l2l::announce_plain(comm, dest, sendtag, s.bytes);
  rc = PMPI_Isend(so.buf, so.count, so.dt, dest, sendtag, comm, &r);
  if (rc != MPI_SUCCESS) return rc;
  int rrc = recv_any(buf, count, dt, source, recvtag, comm, status);
  int wrc = PMPI_Wait(&r, MPI_STATUS_IGNORE);
  return rrc != MPI_SUCCESS ? rrc : wrc;
}

}  // namespace

namespace loom_mpi {

int sendrecv_call(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  if (l2l::may_meet_rdv(comm, source) || l2l::may_send_to(comm, dest))
    return sendrecv_l2l(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                        recvtype, source, recvtag, comm, status);
  Side ss, rs;
  int rc;
  if (dest != MPI_PROC_NULL && (rc = classify(sendbuf, sendcount, sendtype, &ss, Use::send)))
    return raise(comm, rc);
  if (source != MPI_PROC_NULL && (rc = classify(recvbuf, recvcount, recvtype, &rs, Use::recv)))
    return raise(comm, rc);
  SysArgs ra = sys_args(rs, recvbuf, recvcount, recvtype);
  if (!ss.type && !rs.type)
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, ra.buf, ra.count,
                         ra.dt, source, recvtag, comm, status);
  Staged so{{}, sendbuf, sendcount, sendtype};
  Staged ro{{}, ra.buf, ra.count, ra.dt};
  if (!stage(ss, true, &so)) ss.type = nullptr;
  if (!stage(rs, false, &ro)) rs.type = nullptr;
  MPI_Status tmp;
  MPI_Status *st = rs.type ? status_or(status, &tmp) : status;
  rc = PMPI_Sendrecv(so.buf, so.count, so.dt, dest, sendtag,
                     const_cast<void *>(ro.buf), ro.count, ro.dt, source,
                     recvtag, comm, st);
  int u = rs.type ? deliver(rs, ro.b.data, st, rc, false) : MPI_SUCCESS;
  return rc == MPI_SUCCESS && u != MPI_SUCCESS ? raise(comm, u) : rc;
}

int sendrecv_replace_call(void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  // A send to a Loom peer too: one of an RDV's size must be announced.
  if (l2l::may_meet_rdv(comm, source) || l2l::may_send_to(comm, dest))
    return sendrecv_replace_l2l(buf, count, dt, dest, sendtag, source, recvtag, comm,
                                status);
  Side s;
  if (dest != MPI_PROC_NULL || source != MPI_PROC_NULL) {
    int rc = classify(buf, count, dt, &s, Use::recv);
    if (rc != MPI_SUCCESS) return raise(comm, rc);
  }
  if (!s.type) {
    SysArgs a = sys_args(s, buf, count, dt);
    return PMPI_Sendrecv_replace(a.buf, a.count, a.dt, dest, sendtag, source, recvtag, comm,
                                 status);
  }
  // Two staging buffers: the outgoing packed copy, the incoming one; the
  // user buffer is written only after the exchange, by the unpack.
  Staged so{{}, buf, count, dt}, ro{{}, buf, count, dt};
  if (!stage(s, true, &so) || !stage(s, false, &ro))
    return PMPI_Sendrecv_replace(buf, count, dt, dest, sendtag, source,
                                 recvtag, comm, status);
  MPI_Status tmp;
  MPI_Status *st = status_or(status, &tmp);
  int rc = PMPI_Sendrecv(so.buf, so.count, so.dt, dest, sendtag, const_cast<void *>(ro.buf),
                         ro.count, ro.dt, source, recvtag, comm, st);
  int u = source != MPI_PROC_NULL ? deliver(s, ro.b.data, st, rc, false) : MPI_SUCCESS;
  return rc == MPI_SUCCESS && u != MPI_SUCCESS ? raise(comm, u) : rc;
}

}  // namespace loom_mpi

LOOM_MPI_EXPORT int MPI_Sendrecv(const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, int dest, int sendtag,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                 int source, int recvtag, MPI_Comm comm,
                                 MPI_Status *status) {
  return entry(comm, [&]() -> int {
    return sendrecv_call(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                         recvtype, source, recvtag, comm, status);
  });
}

LOOM_MPI_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt,
                                         int dest, int sendtag, int source,
                                         int recvtag, MPI_Comm comm,
                                         MPI_Status *status) {
  return entry(comm, [&]() -> int {
    return sendrecv_replace_call(buf, count, dt, dest, sendtag, source, recvtag, comm, status);
  });
}
