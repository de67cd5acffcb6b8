// Open MPI's Fortran point-to-point, probe, request and start-up calls,
// routed through the drop-in (fortran.hpp says why).
#include "fortran.hpp"

#if defined(OPEN_MPI)
using namespace loom_mpi::fortran;

using F = MPI_Fint;

LOOM_FORTRAN(init, (F * ierr)) { set_err(ierr, MPI_Init(nullptr, nullptr)); }
LOOM_FORTRAN(init_thread, (F * required, F *provided, F *ierr)) {
  int p = 0;
  int rc = MPI_Init_thread(nullptr, nullptr, *required, &p);
  if (rc == MPI_SUCCESS) *provided = p;
  set_err(ierr, rc);
}

// Blocking sends, one per mode.
#define LOOM_FORTRAN_SEND(lower, Call)                                            \
  LOOM_FORTRAN(lower, (void *b, F * count, F * dt, F * dest, F * tag, F * c,      \
                       F * ierr)) {                                                \
    set_err(ierr, Call(buf(b), *count, type(dt), *dest, *tag, comm(c)));           \
  }
LOOM_FORTRAN_SEND(send, MPI_Send)
LOOM_FORTRAN_SEND(bsend, MPI_Bsend)
LOOM_FORTRAN_SEND(ssend, MPI_Ssend)
LOOM_FORTRAN_SEND(rsend, MPI_Rsend)

// Nonblocking and persistent sends (and MPI_Irecv, MPI_Recv_init: the same
// shape).
#define LOOM_FORTRAN_ISEND(lower, Call)                                           \
  LOOM_FORTRAN(lower, (void *b, F * count, F * dt, F * peer, F * tag, F * c,      \
                       F * req, F * ierr)) {                                       \
    MPI_Request r;                                                                 \
    made(Call(buf(b), *count, type(dt), *peer, *tag, comm(c), &r), &r, req, ierr); \
  }
LOOM_FORTRAN_ISEND(isend, MPI_Isend)
LOOM_FORTRAN_ISEND(ibsend, MPI_Ibsend)
LOOM_FORTRAN_ISEND(issend, MPI_Issend)
LOOM_FORTRAN_ISEND(irsend, MPI_Irsend)
LOOM_FORTRAN_ISEND(send_init, MPI_Send_init)
LOOM_FORTRAN_ISEND(bsend_init, MPI_Bsend_init)
LOOM_FORTRAN_ISEND(ssend_init, MPI_Ssend_init)
LOOM_FORTRAN_ISEND(rsend_init, MPI_Rsend_init)
LOOM_FORTRAN_ISEND(irecv, MPI_Irecv)
LOOM_FORTRAN_ISEND(recv_init, MPI_Recv_init)

LOOM_FORTRAN(recv, (void *b, F *count, F *dt, F *src, F *tag, F *c, F *status, F *ierr)) {
  Status st(status);
  int rc = MPI_Recv(buf(b), *count, type(dt), *src, *tag, comm(c), st.c());
  st.out(rc);
  set_err(ierr, rc);
}

LOOM_FORTRAN(mrecv, (void *b, F *count, F *dt, F *message, F *status, F *ierr)) {
  Status st(status);
  MPI_Message m = PMPI_Message_f2c(*message);
  int rc = MPI_Mrecv(buf(b), *count, type(dt), &m, st.c());
  if (rc == MPI_SUCCESS) *message = PMPI_Message_c2f(m);
  st.out(rc);
  set_err(ierr, rc);
}

LOOM_FORTRAN(imrecv, (void *b, F *count, F *dt, F *message, F *req, F *ierr)) {
  MPI_Message m = PMPI_Message_f2c(*message);
  MPI_Request r;
  int rc = MPI_Imrecv(buf(b), *count, type(dt), &m, &r);
  if (rc == MPI_SUCCESS) {
    *message = PMPI_Message_c2f(m);
    *req = PMPI_Request_c2f(r);
  }
  set_err(ierr, rc);
}

LOOM_FORTRAN(sendrecv, (void *sb, F *scount, F *sdt, F *dest, F *stag, void *rb, F *rcount,
                        F *rdt, F *src, F *rtag, F *c, F *status, F *ierr)) {
  Status st(status);
  int rc = MPI_Sendrecv(buf(sb), *scount, type(sdt), *dest, *stag, buf(rb), *rcount,
                        type(rdt), *src, *rtag, comm(c), st.c());
  st.out(rc);
  set_err(ierr, rc);
}

LOOM_FORTRAN(sendrecv_replace, (void *b, F *count, F *dt, F *dest, F *stag, F *src,
                                F *rtag, F *c, F *status, F *ierr)) {
  Status st(status);
  int rc = MPI_Sendrecv_replace(buf(b), *count, type(dt), *dest, *stag, *src, *rtag,
                                comm(c), st.c());
  st.out(rc);
  set_err(ierr, rc);
}

LOOM_FORTRAN(probe, (F * src, F *tag, F *c, F *status, F *ierr)) {
  Status st(status);
  int rc = MPI_Probe(*src, *tag, comm(c), st.c());
  st.out(rc);
  set_err(ierr, rc);
}

LOOM_FORTRAN_PMPI(iprobe, (F * src, F *tag, F *c, F *flag, F *status, F *ierr)) {
  Status st(status);
  int f = 0;
  int rc = MPI_Iprobe(*src, *tag, comm(c), &f, st.c());
  if (rc == MPI_SUCCESS) set_logical(flag, f);
  if (f) st.out(rc);
  set_err(ierr, rc);
}

LOOM_FORTRAN(mprobe, (F * src, F *tag, F *c, F *message, F *status, F *ierr)) {
  Status st(status);
  MPI_Message m;
  int rc = MPI_Mprobe(*src, *tag, comm(c), &m, st.c());
  if (rc == MPI_SUCCESS) *message = PMPI_Message_c2f(m);
  st.out(rc);
  set_err(ierr, rc);
}

LOOM_FORTRAN_PMPI(improbe, (F * src, F *tag, F *c, F *flag, F *message, F *status, F *ierr)) {
  Status st(status);
  MPI_Message m;
  int f = 0;
  int rc = MPI_Improbe(*src, *tag, comm(c), &f, &m, st.c());
  if (rc == MPI_SUCCESS) {
    set_logical(flag, f);
    if (f) *message = PMPI_Message_c2f(m);
  }
  if (f) st.out(rc);
  set_err(ierr, rc);
}

// Completion.  A completed request's handle comes back as MPI_REQUEST_NULL
// (or stays, for a persistent one): every handle is written back.
LOOM_FORTRAN(wait, (F * req, F *status, F *ierr)) {
  Status st(status);
  MPI_Request r = PMPI_Request_f2c(*req);
  int rc = MPI_Wait(&r, st.c());
  *req = PMPI_Request_c2f(r);
  st.out(rc);
  set_err(ierr, rc);
}

LOOM_FORTRAN_PMPI(test, (F * req, F *flag, F *status, F *ierr)) {
  Status st(status);
  MPI_Request r = PMPI_Request_f2c(*req);
  int f = 0;
  int rc = MPI_Test(&r, &f, st.c());
  *req = PMPI_Request_c2f(r);
  if (rc == MPI_SUCCESS) set_logical(flag, f);
  if (f) st.out(rc);
  set_err(ierr, rc);
}

LOOM_FORTRAN_PMPI(request_get_status, (F * req, F *flag, F *status, F *ierr)) {
  Status st(status);
  int f = 0;
  int rc = MPI_Request_get_status(PMPI_Request_f2c(*req), &f, st.c());
  if (rc == MPI_SUCCESS) set_logical(flag, f);
  if (f) st.out(rc);
  set_err(ierr, rc);
}

LOOM_FORTRAN(waitall, (F * count, F *reqs, F *statuses, F *ierr)) {
  Requests r(reqs, *count);
  Statuses st(statuses, *count);
  int rc = MPI_Waitall(*count, r.c(), st.c());
  r.out();
  st.out(rc, *count);
  set_err(ierr, rc);
}

LOOM_FORTRAN_PMPI(testall, (F * count, F *reqs, F *flag, F *statuses, F *ierr)) {
  Requests r(reqs, *count);
  Statuses st(statuses, *count);
  int f = 0;
  int rc = MPI_Testall(*count, r.c(), &f, st.c());
  r.out();
  if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) set_logical(flag, f);
  if (f || rc == MPI_ERR_IN_STATUS) st.out(rc, *count);
  set_err(ierr, rc);
}

LOOM_FORTRAN(waitany, (F * count, F *reqs, F *index, F *status, F *ierr)) {
  Requests r(reqs, *count);
  Status st(status);
  int i = MPI_UNDEFINED;
  int rc = MPI_Waitany(*count, r.c(), &i, st.c());
  r.out();
  if (rc == MPI_SUCCESS) index_out(index, i);
  st.out(rc);
  set_err(ierr, rc);
}

LOOM_FORTRAN_PMPI(testany, (F * count, F *reqs, F *index, F *flag, F *status, F *ierr)) {
  Requests r(reqs, *count);
  Status st(status);
  int i = MPI_UNDEFINED, f = 0;
  int rc = MPI_Testany(*count, r.c(), &i, &f, st.c());
  r.out();
  if (rc == MPI_SUCCESS) {
    index_out(index, i);
    set_logical(flag, f);
  }
  if (f) st.out(rc);
  set_err(ierr, rc);
}

// MPI_Waitsome/Testsome: outcount indices and statuses.
template <class Call>
void some(F *incount, F *reqs, F *outcount, F *indices, F *statuses, F *ierr, Call call) {
  Requests r(reqs, *incount);
  Statuses st(statuses, *incount);
  int n = MPI_UNDEFINED;
  int rc = call(*incount, r.c(), &n, indices, st.c());
  r.out();
  if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {
    *outcount = n;
    indices_out(indices, n);
    if (n != MPI_UNDEFINED) st.out(rc, n);
  }
  set_err(ierr, rc);
}

LOOM_FORTRAN(waitsome, (F * incount, F *reqs, F *outcount, F *indices, F *statuses, F *ierr)) {
  some(incount, reqs, outcount, indices, statuses, ierr, MPI_Waitsome);
}
LOOM_FORTRAN_PMPI(testsome, (F * incount, F *reqs, F *outcount, F *indices, F *statuses, F *ierr)) {
  some(incount, reqs, outcount, indices, statuses, ierr, MPI_Testsome);
}

LOOM_FORTRAN(start, (F * req, F *ierr)) {
  MPI_Request r = PMPI_Request_f2c(*req);
  int rc = MPI_Start(&r);
  *req = PMPI_Request_c2f(r);
  set_err(ierr, rc);
}

LOOM_FORTRAN(startall, (F * count, F *reqs, F *ierr)) {
  Requests r(reqs, *count);
  int rc = MPI_Startall(*count, r.c());
  r.out();
  set_err(ierr, rc);
}

LOOM_FORTRAN(request_free, (F * req, F *ierr)) {
  MPI_Request r = PMPI_Request_f2c(*req);
  made(MPI_Request_free(&r), &r, req, ierr);
}

LOOM_FORTRAN(get_elements, (F * status, F *dt, F *count, F *ierr)) {
  MPI_Status c;
  PMPI_Status_f2c(status, &c);
  int n = 0;
  int rc = MPI_Get_elements(&c, type(dt), &n);
  if (rc == MPI_SUCCESS) *count = n;
  set_err(ierr, rc);
}

LOOM_FORTRAN(get_elements_x, (F * status, F *dt, MPI_Count *count, F *ierr)) {
  MPI_Status c;
  PMPI_Status_f2c(status, &c);
  MPI_Count n = 0;
  int rc = MPI_Get_elements_x(&c, type(dt), &n);
  if (rc == MPI_SUCCESS) *count = n;
  set_err(ierr, rc);
}

#endif  // OPEN_MPI
