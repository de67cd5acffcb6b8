// Persistent requests (MPI_Send_init family, MPI_Recv_init, MPI_Start,
// MPI_Startall) and MPI_Request_free.  A persistent Loom request owns its
// staging buffer for its whole life (the system request was initialised
// with that address); a send is packed again at every MPI_Start.
#include "p2p.hpp"

#include <vector>

using namespace loom_mpi;

LOOM_MPI_EXPORT int MPI_Send_init(const void *buf, int count, MPI_Datatype dt,
                                  int dest, int tag, MPI_Comm comm,
                                  MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return isend_staged(PMPI_Send_init, true, buf, count, dt, dest, tag, comm, req, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Bsend_init(const void *buf, int count, MPI_Datatype dt,
                                   int dest, int tag, MPI_Comm comm,
                                   MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return isend_staged(PMPI_Bsend_init, true, buf, count, dt, dest, tag, comm, req, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Ssend_init(const void *buf, int count, MPI_Datatype dt,
                                   int dest, int tag, MPI_Comm comm,
                                   MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return isend_staged(PMPI_Ssend_init, true, buf, count, dt, dest, tag, comm, req, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Rsend_init(const void *buf, int count, MPI_Datatype dt,
                                   int dest, int tag, MPI_Comm comm,
                                   MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return isend_staged(PMPI_Rsend_init, true, buf, count, dt, dest, tag, comm, req, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Recv_init(void *buf, int count, MPI_Datatype dt,
                                  int source, int tag, MPI_Comm comm,
                                  MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return irecv_any(PMPI_Recv_init, true, buf, count, dt, source, tag, comm, req);
  });
}

LOOM_MPI_EXPORT int MPI_Start(MPI_Request *req) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    if (!ops_live() || !req) return PMPI_Start(req);
    PendingOp *op = claim_one(*req);
    if (!op) return PMPI_Start(req);
    if (op->sys_persistent) {  // a nonblocking send's request: not startable
      MPI_Comm comm = op->comm;
      unclaim(op);
      return raise(comm, MPI_ERR_REQUEST);
    }
    int rc = rearm(op);
    MPI_Comm comm = op->comm;
    if (rc == MPI_SUCCESS) rc = PMPI_Start(req);
    else rc = raise(comm, rc);
    if (rc != MPI_SUCCESS) op->state = PendingOp::State::inactive;
    unclaim(op);
    return rc;
  });
}

LOOM_MPI_EXPORT int MPI_Startall(int n, MPI_Request *reqs) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    if (!ops_live() || n <= 0 || !reqs) return PMPI_Startall(n, reqs);
    std::vector<PendingOp *> ops((size_t)n);
    if (!claim(reqs, n, ops.data())) return PMPI_Startall(n, reqs);
    int rc = MPI_SUCCESS;
    MPI_Comm comm = MPI_COMM_WORLD;
    for (PendingOp *op : ops)
      if (op && op->sys_persistent) {  // a nonblocking send's request
        rc = MPI_ERR_REQUEST;
        comm = op->comm;
      }
    if (rc != MPI_SUCCESS) {
      for (PendingOp *op : ops)
        if (op) unclaim(op);
      return raise(comm, rc);
    }
    for (PendingOp *op : ops)
      if (op && rc == MPI_SUCCESS) {
        rc = rearm(op);
        comm = op->comm;
      }
    if (rc == MPI_SUCCESS) rc = PMPI_Startall(n, reqs);
    else rc = raise(comm, rc);
    for (PendingOp *op : ops)
      if (op) {
        if (rc != MPI_SUCCESS) op->state = PendingOp::State::inactive;
        unclaim(op);
      }
    return rc;
  });
}

LOOM_MPI_EXPORT int MPI_Request_free(MPI_Request *req) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    if (!ops_live() || !req) return PMPI_Request_free(req);
    PendingOp *op = claim_one(*req);
    if (!op) return PMPI_Request_free(req);
    // Inactive (persistent, not started): gone with its system request.
    // Active: the system request stays with Loom, which completes it later
    // (unpacking a receive, releasing staging) at a later MPI call or at
    // MPI_Finalize; the program's handle is freed, as MPI specifies.
    if (release_request(op)) return PMPI_Request_free(req);
    *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  });
}
