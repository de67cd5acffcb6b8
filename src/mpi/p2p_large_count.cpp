// The large-count ("_c") point-to-point calls of MPI-4 (MPICH 4; Open MPI
// 4.1 has none): the int-count paths with the count converted by IntCount
// (large_count.hpp).  A program's MPI_Recv_c must be Loom's as much as its
// MPI_Recv: a Loom peer's message may be an RDV.
#include "large_count.hpp"
#include "p2p.hpp"

#if LOOM_MPI_HAVE_LARGE_COUNT
using namespace loom_mpi;

namespace {

// A send of any mode: sys and rdv as send_staged's.
int send_c(SendFn sys, IsendFn rdv, const void *buf, MPI_Count count, MPI_Datatype dt,
           int dest, int tag, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return with_int_count(comm, count, dt, [&](int n, MPI_Datatype t) {
      return send_staged(sys, rdv, buf, n, t, dest, tag, comm);
    });
  });
}

// A nonblocking or persistent send: as isend_staged's.
int isend_c(IsendFn sys, bool persistent, const void *buf, MPI_Count count, MPI_Datatype dt,
            int dest, int tag, MPI_Comm comm, MPI_Request *req, IsendFn l2l_init) {
  return entry(comm, [&]() -> int {
    return with_int_count(comm, count, dt, [&](int n, MPI_Datatype t) {
      return isend_staged(sys, persistent, buf, n, t, dest, tag, comm, req, l2l_init);
    });
  });
}

}  // namespace

LOOM_MPI_EXPORT int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                               int tag, MPI_Comm comm) {
  return send_c(PMPI_Send, PMPI_Isend, buf, count, dt, dest, tag, comm);
}

LOOM_MPI_EXPORT int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                                int tag, MPI_Comm comm) {
  return send_c(PMPI_Bsend, nullptr, buf, count, dt, dest, tag, comm);
}

LOOM_MPI_EXPORT int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                                int tag, MPI_Comm comm) {
  return send_c(PMPI_Ssend, PMPI_Issend, buf, count, dt, dest, tag, comm);
}

LOOM_MPI_EXPORT int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                                int tag, MPI_Comm comm) {
  return send_c(PMPI_Rsend, PMPI_Irsend, buf, count, dt, dest, tag, comm);
}

LOOM_MPI_EXPORT int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                                int tag, MPI_Comm comm, MPI_Request *req) {
  return isend_c(PMPI_Isend, false, buf, count, dt, dest, tag, comm, req, PMPI_Send_init);
}

LOOM_MPI_EXPORT int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                                 int tag, MPI_Comm comm, MPI_Request *req) {
  return isend_c(PMPI_Ibsend, false, buf, count, dt, dest, tag, comm, req, nullptr);
}

LOOM_MPI_EXPORT int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                                 int tag, MPI_Comm comm, MPI_Request *req) {
  return isend_c(PMPI_Issend, false, buf, count, dt, dest, tag, comm, req, PMPI_Ssend_init);
}

LOOM_MPI_EXPORT int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                                 int tag, MPI_Comm comm, MPI_Request *req) {
  return isend_c(PMPI_Irsend, false, buf, count, dt, dest, tag, comm, req, PMPI_Rsend_init);
}

LOOM_MPI_EXPORT int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype dt,
                                    int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  return isend_c(PMPI_Send_init, true, buf, count, dt, dest, tag, comm, req, nullptr);
}

LOOM_MPI_EXPORT int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt,
                                     int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  return isend_c(PMPI_Bsend_init, true, buf, count, dt, dest, tag, comm, req, nullptr);
}

LOOM_MPI_EXPORT int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt,
                                     int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  return isend_c(PMPI_Ssend_init, true, buf, count, dt, dest, tag, comm, req, nullptr);
}

LOOM_MPI_EXPORT int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt,
                                     int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  return isend_c(PMPI_Rsend_init, true, buf, count, dt, dest, tag, comm, req, nullptr);
}

LOOM_MPI_EXPORT int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int source,
                               int tag, MPI_Comm comm, MPI_Status *status) {
  return entry(comm, [&]() -> int {
    return with_int_count(comm, count, dt, [&](int n, MPI_Datatype t) {
      return recv_any(buf, n, t, source, tag, comm, status);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype dt, int source,
                                int tag, MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return with_int_count(comm, count, dt, [&](int n, MPI_Datatype t) {
      return irecv_any(PMPI_Irecv, false, buf, n, t, source, tag, comm, req);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype dt, int source,
                                    int tag, MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return with_int_count(comm, count, dt, [&](int n, MPI_Datatype t) {
      return irecv_any(PMPI_Recv_init, true, buf, n, t, source, tag, comm, req);
    });
  });
}

// Message-based calls report on MPI_COMM_WORLD, as the system does.
LOOM_MPI_EXPORT int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype dt,
                                MPI_Message *message, MPI_Status *status) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    return with_int_count(MPI_COMM_WORLD, count, dt, [&](int n, MPI_Datatype t) {
      return mrecv_call(buf, n, t, message, status);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype dt,
                                 MPI_Message *message, MPI_Request *req) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    return with_int_count(MPI_COMM_WORLD, count, dt, [&](int n, MPI_Datatype t) {
      return imrecv_call(buf, n, t, message, req);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount,
                                   MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                                   MPI_Count recvcount, MPI_Datatype recvtype, int source,
                                   int recvtag, MPI_Comm comm, MPI_Status *status) {
  return entry(comm, [&]() -> int {
    return with_int_counts(comm, sendcount, sendtype, recvcount, recvtype,
                           [&](int sn, MPI_Datatype st, int rn, MPI_Datatype rt) {
      return sendrecv_call(sendbuf, sn, st, dest, sendtag, recvbuf, rn, rt, source, recvtag,
                           comm, status);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt,
                                           int dest, int sendtag, int source, int recvtag,
                                           MPI_Comm comm, MPI_Status *status) {
  return entry(comm, [&]() -> int {
    return with_int_count(comm, count, dt, [&](int n, MPI_Datatype t) {
      return sendrecv_replace_call(buf, n, t, dest, sendtag, source, recvtag, comm, status);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, int dest, int sendtag,
                                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                    int source, int recvtag, MPI_Comm comm,
                                    MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return with_int_counts(comm, sendcount, sendtype, recvcount, recvtype,
                           [&](int sn, MPI_Datatype st, int rn, MPI_Datatype rt) {
      return isendrecv_call(sendbuf, sn, st, dest, sendtag, recvbuf, rn, rt, source,
                            recvtag, comm, req);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt,
                                            int dest, int sendtag, int source, int recvtag,
                                            MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    return with_int_count(comm, count, dt, [&](int n, MPI_Datatype t) {
      return isendrecv_replace_call(buf, n, t, dest, sendtag, source, recvtag, comm, req);
    });
  });
}
#endif
