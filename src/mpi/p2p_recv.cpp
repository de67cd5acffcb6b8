// MPI_Recv, MPI_Irecv, MPI_Mrecv, MPI_Imrecv.  A contiguous receive goes to
// the system as it is, or as bytes (Side::direct).  A non-contiguous receive is
// posted as MPI_PACKED into staging of count * type-size bytes: the system
// matches, checks truncation (MPI_ERR_TRUNCATE, nothing written past the
// staging it was given) and fills the status (its byte count is what
// MPI_Get_count/MPI_Get_elements on the user's type divide).  Then the bytes
// that arrived are unpacked into the user's layout.
#include "p2p.hpp"

namespace loom_mpi {
namespace {

// Blocking receive through staging; `post` performs the system receive
// into (data, wire).  A failure of Loom's own unpack is raised on comm
// (the system raised its own errors already).
template <class Post>
int recv_staged(const Side &s, MPI_Comm comm, MPI_Status *status, Post post) {
  MPI_Status tmp;
  MPI_Status *st = status_or(status, &tmp);
  loom::xfer::Buffer b = staging_pool().acquire(s.bytes);
  if (!b.data) return kFallback;
  int rc = post(b.data, wire_for(s.bytes), st);
  int u = unpack_arrived(s, b.data, st, rc);
  staging_pool().release(b);
  return rc == MPI_SUCCESS && u != MPI_SUCCESS ? raise(comm, u) : rc;
}

// Nonblocking receive through staging; `post` starts the system receive.
template <class Post>
int irecv_staged(const Side &s, MPI_Comm comm, bool persistent,
                 MPI_Request *req, Post post) {
  PendingOp *op = op_new(PendingOp::kRecv, comm);
  op->persistent = persistent;
  if (op_stage(op, s.bytes) != MPI_SUCCESS) {
    op_discard(op);
    return kFallback;
  }
  op_add_unpack(op, 0, s);
  int rc = post(op->staging.data, wire_for(s.bytes), req);
  if (rc != MPI_SUCCESS) {
    op_discard(op);
    return rc;
  }
  op_register(op, *req, !persistent);
  return MPI_SUCCESS;
}

// Receives matched message *msg through staging; the system's own path if
// no staging can be had (or s has no Loom type).
int mrecv_staged(const Side &s, void *buf, int count, MPI_Datatype dt,
                 MPI_Message *msg, MPI_Status *status) {
  if (s.type) {
    // No communicator: errors of message-based calls go to MPI_COMM_WORLD.
    int rc = recv_staged(s, MPI_COMM_WORLD, status, [&](char *d, Wire w, MPI_Status *st) {
      return PMPI_Mrecv(d, w.count, w.type, msg, st);
    });
    if (rc != kFallback) return rc;
  }
  SysArgs a = sys_args(s, buf, count, dt);
  return PMPI_Mrecv(a.buf, a.count, a.dt, msg, status);
}

}  // namespace

int irecv_any(IrecvFn sys, bool persistent, void *buf, int count, MPI_Datatype dt,
              int source, int tag, MPI_Comm comm, MPI_Request *req) {
  poll_detached();
  Side s;
  if (source != MPI_PROC_NULL && req) {
    int rc = classify(buf, count, dt, &s, Use::recv);
    if (rc != MPI_SUCCESS) return raise(comm, rc);
  }
  if (s.type) {
    int rc = irecv_staged(s, comm, persistent, req, [&](char *d, Wire w, MPI_Request *r) {
      return sys(d, w.count, w.type, source, tag, comm, r);
    });
    if (rc != kFallback) return rc;
  }
  SysArgs a = sys_args(s, buf, count, dt);
  return sys(a.buf, a.count, a.dt, source, tag, comm, req);
}

}  // namespace loom_mpi

using namespace loom_mpi;

LOOM_MPI_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source,
                             int tag, MPI_Comm comm, MPI_Status *status) {
  return guarded(comm, [&]() -> int {
    poll_detached();
    Side s;
    if (source != MPI_PROC_NULL) {
      int rc = classify(buf, count, dt, &s, Use::recv);
      if (rc != MPI_SUCCESS) return raise(comm, rc);
    }
    if (s.type && s.system_elem) {
      // Match first; whole elements go the system's way, the rest staged.
      MPI_Message msg;
      MPI_Status pst;
      int rc = PMPI_Mprobe(source, tag, comm, &msg, &pst);
      if (rc != MPI_SUCCESS) return rc;
      int n = -1;
      PMPI_Get_count(&pst, MPI_BYTE, &n);
      if (n >= 0 && (size_t)n <= s.bytes && n % s.system_elem == 0)
        return PMPI_Mrecv(buf, count, dt, &msg, status);
      return mrecv_staged(s, buf, count, dt, &msg, status);
    }
    if (s.type) {
      int rc = recv_staged(s, comm, status, [&](char *d, Wire w, MPI_Status *st) {
        return PMPI_Recv(d, w.count, w.type, source, tag, comm, st);
      });
      if (rc != kFallback) return rc;
    }
    SysArgs a = sys_args(s, buf, count, dt);
    return PMPI_Recv(a.buf, a.count, a.dt, source, tag, comm, status);
  });
}

LOOM_MPI_EXPORT int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source,
                              int tag, MPI_Comm comm, MPI_Request *req) {
  return guarded(comm, [&]() -> int {
    return irecv_any(PMPI_Irecv, false, buf, count, dt, source, tag, comm, req);
  });
}

LOOM_MPI_EXPORT int MPI_Mrecv(void *buf, int count, MPI_Datatype dt,
                              MPI_Message *message, MPI_Status *status) {
  return guarded(MPI_COMM_WORLD, [&]() -> int {
    poll_detached();
    Side s;
    if (message && *message != MPI_MESSAGE_NO_PROC && *message != MPI_MESSAGE_NULL) {
      // No communicator here: a freed type is reported on MPI_COMM_WORLD,
      // where the system reports errors of message-based calls.
      int rc = classify(buf, count, dt, &s, Use::recv);
      if (rc != MPI_SUCCESS) return raise_nocomm(rc);
    }
    return mrecv_staged(s, buf, count, dt, message, status);
  });
}

LOOM_MPI_EXPORT int MPI_Imrecv(void *buf, int count, MPI_Datatype dt,
                               MPI_Message *message, MPI_Request *req) {
  return guarded(MPI_COMM_WORLD, [&]() -> int {
    poll_detached();
    Side s;
    if (message && req && *message != MPI_MESSAGE_NO_PROC &&
        *message != MPI_MESSAGE_NULL) {
      int rc = classify(buf, count, dt, &s, Use::recv);
      if (rc != MPI_SUCCESS) return raise_nocomm(rc);
    }
    if (s.type) {
      int rc = irecv_staged(s, MPI_COMM_WORLD, false, req,
                            [&](char *d, Wire w, MPI_Request *r) {
                              return PMPI_Imrecv(d, w.count, w.type, message, r);
                            });
      if (rc != kFallback) return rc;
    }
    SysArgs a = sys_args(s, buf, count, dt);
    return PMPI_Imrecv(a.buf, a.count, a.dt, message, req);
  });
}
