// MPI_Recv, MPI_Irecv, MPI_Mrecv, MPI_Imrecv.  A contiguous receive goes to
// the system as it is, or as bytes (Side::direct).  A non-contiguous receive is
// posted as MPI_PACKED into staging of count * type-size bytes: the system
// matches, checks truncation (MPI_ERR_TRUNCATE; where it may write a
// truncated message past the buffer, Open MPI, the staging ends at a guard
// page: StagingPool::Limits::guard_pages) and fills the status (its byte
// count is what MPI_Get_count/MPI_Get_elements on the user's type divide).
// Then the bytes that arrived are unpacked into the user's layout.
//
// A receive that a Loom-to-Loom RDV may match (l2l::may_meet_rdv: from a
// Loom peer, with room for kRdvBytes) takes it where its data would go, in
// place or in staging; deliver() then serves an RDV or takes the bytes as
// data.  A receive with less room needs no check.
#include "p2p_recv_plan.hpp"

namespace loom_mpi {
namespace {

// Blocking receive; `post` performs the system receive into (buf, wire).
// A failure of Loom's own delivery is raised on comm (the system raised
// its own errors already).
template <class Post>
int recv_loom(const RecvPlan &p, void *buf, int count, MPI_Datatype dt, MPI_Comm comm,
              MPI_Status *status, Post post) {
  MPI_Status tmp;
  MPI_Status *st = status_or(status, &tmp);
  CallStaging b(p.room);
  if (p.room && !b.data()) return kFallback;
  Posted a = posted(p, buf, count, dt, b.data());
  int rc = post(a.buf, a.w, st);
  int u = deliver(p.dst, p.room ? b.data() : nullptr, st, rc, p.rdv, p.plain_comm);
  if (u == MPI_ERR_TRUNCATE && rc == MPI_SUCCESS) st->MPI_ERROR = u;
  return rc == MPI_SUCCESS && u != MPI_SUCCESS ? raise(comm, u) : rc;
}

// Nonblocking receive; `post` starts the system receive.
template <class Post>
int irecv_loom(const RecvPlan &p, void *buf, int count, MPI_Datatype dt, MPI_Comm comm,
               bool persistent, MPI_Request *req, Post post) {
  PendingOp *op = op_new(PendingOp::kRecv, comm);
  op->persistent = persistent;
  op->rdv_check = p.rdv;
  op->plain_comm = p.plain_comm;
  if (p.room && op_stage(op, p.room) != MPI_SUCCESS) {
    op_discard(op);
    return kFallback;
  }
  if (p.dst.type) op_add_unpack(op, 0, p.dst);
  else op->unpacks.push_back(UnpackStep{0, p.dst});  // a run: no type to hold
  Posted a = posted(p, buf, count, dt, op->staging.data);
  int rc = post(a.buf, a.w, req);
  if (rc != MPI_SUCCESS) {
    op_discard(op);
    return rc;
  }
  op_register(op, *req, !persistent);
  return MPI_SUCCESS;
}

// Receives matched message *msg through Loom when p says so; the system's
// own path otherwise (or if no staging can be had).
int mrecv_any(const RecvPlan &p, void *buf, int count, MPI_Datatype dt,
              MPI_Message *msg, MPI_Status *status) {
  if (p.loom) {
    // No communicator: errors of message-based calls go to MPI_COMM_WORLD.
    int rc = recv_loom(p, buf, count, dt, MPI_COMM_WORLD, status,
                       [&](void *d, Wire w, MPI_Status *st) {
                         return PMPI_Mrecv(d, w.count, w.type, msg, st);
                       });
    if (rc != kFallback) return rc;
  }
  SysArgs a = sys_args(p.dst, buf, count, dt);
  return PMPI_Mrecv(a.buf, a.count, a.dt, msg, status);
}

bool real_message(const MPI_Message *m) {
  return m && *m != MPI_MESSAGE_NO_PROC && *m != MPI_MESSAGE_NULL;
}

}  // namespace

int irecv_any(IrecvFn sys, bool persistent, void *buf, int count, MPI_Datatype dt,
              int source, int tag, MPI_Comm comm, MPI_Request *req) {
  RecvPlan p;
  if (source != MPI_PROC_NULL && req) {
    int rc = plan_recv(buf, count, dt, [&] { return l2l::may_meet_rdv(comm, source); }, &p);
    if (rc != MPI_SUCCESS) return raise(comm, rc);
    p.plain_comm = comm;
  }
  if (p.loom) {
    int rc = irecv_loom(p, buf, count, dt, comm, persistent, req,
                        [&](void *d, Wire w, MPI_Request *r) {
                          return sys(d, w.count, w.type, source, tag, comm, r);
                        });
    if (rc != kFallback) return rc;
  }
  SysArgs a = sys_args(p.dst, buf, count, dt);
  return sys(a.buf, a.count, a.dt, source, tag, comm, req);
}

int recv_any(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status *status) {
  RecvPlan p;
  if (source != MPI_PROC_NULL) {
    int rc = plan_recv(buf, count, dt, [&] { return l2l::may_meet_rdv(comm, source); }, &p);
    if (rc != MPI_SUCCESS) return raise(comm, rc);
    p.plain_comm = comm;  // the system's own Mprobe below is no probe of ours
  }
  if (p.loom && p.dst.system_elem) {
    // Match first; whole elements go the system's way, the rest staged.
    MPI_Message msg;
    MPI_Status pst;
    int rc = PMPI_Mprobe(source, tag, comm, &msg, &pst);
    if (rc != MPI_SUCCESS) return rc;
    int n = -1;
    PMPI_Get_count(&pst, MPI_BYTE, &n);
    if (n >= 0 && (size_t)n <= p.dst.bytes && n % p.dst.system_elem == 0 &&
        !(p.rdv && (size_t)n == l2l::kRdvBytes))
      return PMPI_Mrecv(buf, count, dt, &msg, status);
    return mrecv_any(p, buf, count, dt, &msg, status);
  }
  if (p.loom) {
    int rc = recv_loom(p, buf, count, dt, comm, status,
                       [&](void *d, Wire w, MPI_Status *st) {
                         return PMPI_Recv(d, w.count, w.type, source, tag, comm, st);
                       });
    if (rc != kFallback) return rc;
  }
  SysArgs a = sys_args(p.dst, buf, count, dt);
  return PMPI_Recv(a.buf, a.count, a.dt, source, tag, comm, status);
}

int mrecv_call(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
               MPI_Status *status) {
  RecvPlan p;
  if (real_message(message)) {
    // No communicator here: a freed type is reported on MPI_COMM_WORLD,
    // where the system reports errors of message-based calls.
    int rc = plan_recv(buf, count, dt, l2l::any_peer, &p);
    if (rc != MPI_SUCCESS) return raise_nocomm(rc);
  }
  return mrecv_any(p, buf, count, dt, message, status);
}

int imrecv_call(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
                MPI_Request *req) {
  RecvPlan p;
  if (real_message(message) && req) {
    int rc = plan_recv(buf, count, dt, l2l::any_peer, &p);
    if (rc != MPI_SUCCESS) return raise_nocomm(rc);
  }
  if (p.loom) {
    int rc = irecv_loom(p, buf, count, dt, MPI_COMM_WORLD, false, req,
                        [&](void *d, Wire w, MPI_Request *r) {
                          return PMPI_Imrecv(d, w.count, w.type, message, r);
                        });
    if (rc != kFallback) return rc;
  }
  SysArgs a = sys_args(p.dst, buf, count, dt);
  return PMPI_Imrecv(a.buf, a.count, a.dt, message, req);
}

}  // namespace loom_mpi

using namespace loom_mpi;

LOOM_MPI_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source,
                             int tag, MPI_Comm comm, MPI_Status *status) {
  return entry(comm, [&]() -> int {
    return recv_any(buf, count, dt, source, tag, comm, status);
  });
}

LOOM_MPI_EXPORT int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source,
                              int tag, MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return irecv_any(PMPI_Irecv, false, buf, count, dt, source, tag, comm, req);
  });
}

LOOM_MPI_EXPORT int MPI_Mrecv(void *buf, int count, MPI_Datatype dt,
                              MPI_Message *message, MPI_Status *status) {
  return entry(MPI_COMM_WORLD, [&]() -> int { return mrecv_call(buf, count, dt, message, status); });
}

LOOM_MPI_EXPORT int MPI_Imrecv(void *buf, int count, MPI_Datatype dt,
                               MPI_Message *message, MPI_Request *req) {
  return entry(MPI_COMM_WORLD, [&]() -> int { return imrecv_call(buf, count, dt, message, req); });
}
