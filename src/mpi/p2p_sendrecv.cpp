// MPI_Sendrecv and MPI_Sendrecv_replace: either side may be staged; the
// system does the exchange (one message each way, deadlock-free as its own).
#include "p2p.hpp"

using namespace loom_mpi;

namespace {

// Staging for one side, or the user's own arguments when the system moves it.
struct Staged {
  loom::xfer::Buffer b;
  const void *buf;
  int count;
  MPI_Datatype dt;
  ~Staged() { staging_pool().release(b); }
};

// Prepares a side: false when staging is unavailable (then the system
// moves it unchanged).
bool stage(const Side &s, bool pack, Staged *o) {
  if (!s.type) return true;
  o->b = staging_pool().acquire(s.bytes);
  if (!o->b.data || (pack && pack_side(s, o->b.data) != MPI_SUCCESS)) {
    staging_pool().release(o->b);
    return false;
  }
  const Wire w = wire_for(s.bytes);
  o->buf = o->b.data;
  o->count = w.count;
  o->dt = w.type;
  return true;
}

}  // namespace

LOOM_MPI_EXPORT int MPI_Sendrecv(const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, int dest, int sendtag,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                 int source, int recvtag, MPI_Comm comm,
                                 MPI_Status *status) {
  return guarded(comm, [&]() -> int {
    poll_detached();
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
    int u = rs.type ? unpack_arrived(rs, ro.b.data, st, rc) : MPI_SUCCESS;
    return rc == MPI_SUCCESS && u != MPI_SUCCESS ? raise(comm, u) : rc;
  });
}

LOOM_MPI_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt,
                                         int dest, int sendtag, int source,
                                         int recvtag, MPI_Comm comm,
                                         MPI_Status *status) {
  return guarded(comm, [&]() -> int {
    poll_detached();
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
    int u = source != MPI_PROC_NULL ? unpack_arrived(s, ro.b.data, st, rc) : MPI_SUCCESS;
    return rc == MPI_SUCCESS && u != MPI_SUCCESS ? raise(comm, u) : rc;
  });
}
