// MPI_Send, MPI_Bsend, MPI_Ssend, MPI_Rsend and their nonblocking forms.
// A non-contiguous message is packed into pooled staging and sent as one
// MPI_PACKED message of the packed byte count (the bytes a system MPI would
// have put on the wire for the typed send), so any receiver matches it;
// past INT_MAX bytes, one instance of a byte type of that size (wire.hpp).
#include "l2l.hpp"
#include "p2p.hpp"

namespace loom_mpi {

size_t plain_bytes(const Side &s, int count, MPI_Datatype dt) {
  if (s.type) return s.bytes;
  MPI_Count n = 0;
  if (count <= 0 || PMPI_Type_size_x(dt, &n) != MPI_SUCCESS || n <= 0) return 0;
  return (size_t)n * (size_t)count;
}

// Costs a flag test unless some Loom peer has been seen.
void announce(const Side &s, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  if (!l2l::any_peer() || dest < 0) return;
  l2l::announce_plain(comm, dest, tag, plain_bytes(s, count, dt));
}

// (buf, count, dt) classified once, for Use::staged: the Loom-to-Loom
// protocol takes that; otherwise system_if_faster() makes it Use::send's.
int send_staged(SendFn sys, l2l::IsendFn rdv, const void *buf, int count,
                MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  Side s;
  if (dest != MPI_PROC_NULL) {
    int rc = classify(buf, count, dt, &s, Use::staged);
    if (rc != MPI_SUCCESS) return raise(comm, rc);
    if (rdv && l2l::may_go(s, count, dt)) {
      rc = l2l::send(rdv, s, buf, count, dt, dest, tag, comm);
      if (rc != kFallback) return rc;
    }
    system_if_faster(&s);
  }
  announce(s, count, dt, dest, tag, comm);
  if (!s.type) return sys(buf, count, dt, dest, tag, comm);
  CallStaging b(s.bytes);
  if (!b.data() ||
      timed_pack(dt, s.bytes, [&] { return pack_side(s, b.data()); }) != MPI_SUCCESS) {
    // Out of memory (or a plan Loom cannot run): the system's own path.
    note("send of %zu bytes: no staging, system datatype path", s.bytes);
    return sys(buf, count, dt, dest, tag, comm);
  }
  const Wire w = wire_for(s.bytes);
  return sys(b.data(), w.count, w.type, dest, tag, comm);
}

int isend_staged(IsendFn sys, bool persistent, const void *buf, int count,
                 MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                 MPI_Request *req, IsendFn l2l_init) {
  Side s;
  if (dest != MPI_PROC_NULL && req) {
    int rc = classify(buf, count, dt, &s, Use::staged);
    if (rc != MPI_SUCCESS) return raise(comm, rc);
    if (l2l_init && !persistent && l2l::may_go(s, count, dt)) {
      rc = l2l::isend(l2l_init, s, buf, count, dt, dest, tag, comm, req);
      if (rc != kFallback) return rc;
    }
    system_if_faster(&s);
  }
  if (!persistent) announce(s, count, dt, dest, tag, comm);
  if (!s.type) {
    // A persistent plain send announces at every MPI_Start: an op for it.
    if (!persistent || !req || !l2l::any_peer() ||
        plain_bytes(s, count, dt) != l2l::kRdvBytes || !l2l::may_send_to(comm, dest))
      return sys(buf, count, dt, dest, tag, comm, req);
    PendingOp *op = op_new(PendingOp::kSend, comm);
    op->persistent = true;
    op->plain_dest = dest;
    op->plain_tag = tag;
    int rc = sys(buf, count, dt, dest, tag, comm, req);
    if (rc != MPI_SUCCESS) {
      op_discard(op);
      return rc;
    }
    op_register(op, *req, false);
    return MPI_SUCCESS;
  }
  PendingOp *op = op_new(PendingOp::kSend, comm);
  op->persistent = persistent;
  if (persistent && s.bytes == l2l::kRdvBytes) {
    op->plain_dest = dest;
    op->plain_tag = tag;
  }
  if (op_stage(op, s.bytes) != MPI_SUCCESS) {
    op_discard(op);
    return sys(buf, count, dt, dest, tag, comm, req);
  }
  if (persistent) {
    op_add_pack(op, 0, s);  // at every MPI_Start
  } else if (timed_pack(dt, s.bytes, [&] { return pack_side(s, op->staging.data); }) !=
             MPI_SUCCESS) {
    op_discard(op);
    return sys(buf, count, dt, dest, tag, comm, req);
  }
  const Wire w = wire_for(s.bytes);
  int rc = sys(op->staging.data, w.count, w.type, dest, tag, comm, req);
  if (rc != MPI_SUCCESS) {
    op_discard(op);
    return rc;
  }
  op_register(op, *req, !persistent);
  return MPI_SUCCESS;
}

}  // namespace loom_mpi

using namespace loom_mpi;

LOOM_MPI_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype dt,
                             int dest, int tag, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return send_staged(PMPI_Send, PMPI_Isend, buf, count, dt, dest, tag, comm);
  });
}

LOOM_MPI_EXPORT int MPI_Bsend(const void *buf, int count, MPI_Datatype dt,
                              int dest, int tag, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    // The attached buffer was sized with MPI_Pack_size, which is at least the
    // packed bytes sent here.
    return send_staged(PMPI_Bsend, nullptr, buf, count, dt, dest, tag, comm);
  });
}

LOOM_MPI_EXPORT int MPI_Ssend(const void *buf, int count, MPI_Datatype dt,
                              int dest, int tag, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return send_staged(PMPI_Ssend, PMPI_Issend, buf, count, dt, dest, tag, comm);
  });
}

LOOM_MPI_EXPORT int MPI_Rsend(const void *buf, int count, MPI_Datatype dt,
                              int dest, int tag, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return send_staged(PMPI_Rsend, PMPI_Irsend, buf, count, dt, dest, tag, comm);
  });
}

LOOM_MPI_EXPORT int MPI_Isend(const void *buf, int count, MPI_Datatype dt,
                              int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return isend_staged(PMPI_Isend, false, buf, count, dt, dest, tag, comm, req, PMPI_Send_init);
  });
}

LOOM_MPI_EXPORT int MPI_Ibsend(const void *buf, int count, MPI_Datatype dt,
                               int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return isend_staged(PMPI_Ibsend, false, buf, count, dt, dest, tag, comm, req, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Issend(const void *buf, int count, MPI_Datatype dt,
                               int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return isend_staged(PMPI_Issend, false, buf, count, dt, dest, tag, comm, req, PMPI_Ssend_init);
  });
}

LOOM_MPI_EXPORT int MPI_Irsend(const void *buf, int count, MPI_Datatype dt,
                               int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return isend_staged(PMPI_Irsend, false, buf, count, dt, dest, tag, comm, req, PMPI_Rsend_init);
  });
}
