// Shared bodies of the point-to-point entry points (p2p_*.cpp): one template
// per call shape, instantiated with the system's PMPI_ function, so that
// Send/Bsend/Ssend/Rsend (and their I- and _init forms) share one path.
#pragma once
#include "progress.hpp"
#include "requests.hpp"

namespace loom_mpi {

using SendFn = int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
using IsendFn = int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm,
                        MPI_Request *);

// Blocking send in any mode: Loom-to-Loom when it applies (`rdv`: the
// mode's nonblocking system send for the RDV; null for buffered mode),
// else pack into staging and send MPI_PACKED.
int send_staged(SendFn sys, IsendFn rdv, const void *buf, int count,
                MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
// Nonblocking send in any mode (Isend family) or, with persistent set, the
// persistent form (Send_init family: packed at each MPI_Start).  l2l_init:
// the mode's MPI_*_init when it may go Loom-to-Loom (not buffered, not
// persistent; l2l::isend), else null.
int isend_staged(IsendFn sys, bool persistent, const void *buf, int count,
                 MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                 MPI_Request *req, IsendFn l2l_init);

// Blocking receive of any message (Loom-to-Loom RDVs included).
int recv_any(void *buf, int count, MPI_Datatype dt, int source, int tag,
             MPI_Comm comm, MPI_Status *status);

using IrecvFn = int (*)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

// MPI_Irecv or, with persistent set, MPI_Recv_init (sys: the system's
// call) through staging, unpacked at each completion.
int irecv_any(IrecvFn sys, bool persistent, void *buf, int count, MPI_Datatype dt,
              int source, int tag, MPI_Comm comm, MPI_Request *req);

// The bytes a send of (count, dt) puts on the wire as data (s: its
// Use::send/staged classification); 0 when unknown.
size_t plain_bytes(const Side &s, int count, MPI_Datatype dt);
// A send about to leave as plain data: announced to a Loom peer when it has
// an RDV's size (l2l::announce_plain; protocol.md, Invariant R).
void announce(const Side &s, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);

// MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4 headers only;
// p2p_isendrecv.cpp).
int isendrecv_call(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Request *req);
int isendrecv_replace_call(void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *req);

// The bodies of MPI_Mrecv, MPI_Imrecv, MPI_Sendrecv and
// MPI_Sendrecv_replace (their large-count forms share them).
int mrecv_call(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
               MPI_Status *status);
int imrecv_call(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
                MPI_Request *req);
int sendrecv_call(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int sendrecv_replace_call(void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status);

// A status to hand the system when the user passed MPI_STATUS_IGNORE but
// Loom needs the byte count.
inline MPI_Status *status_or(MPI_Status *user, MPI_Status *tmp) {
  return user == MPI_STATUS_IGNORE ? tmp : user;
}

}  // namespace loom_mpi
