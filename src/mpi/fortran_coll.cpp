// Open MPI's Fortran collectives with datatypes (those the drop-in
// replaces), blocking and nonblocking, routed through the drop-in
// (fortran.hpp says why).  Which buffer may be MPI_IN_PLACE follows the
// standard (and Open MPI's bindings): the send buffer, except in
// MPI_Scatter(v), where it is the root's receive buffer.
#include "fortran.hpp"

#if defined(OPEN_MPI)
#include "coll_topo.hpp"

using namespace loom_mpi::fortran;

using F = MPI_Fint;

namespace {

// The per-peer type arrays of MPI_(I)Alltoallw: one per process of the
// (remote) group.  The send side's is not read with MPI_IN_PLACE.
struct WTypes {
  std::vector<MPI_Datatype> send, recv;
  WTypes(const void *sb, const F *st, const F *rt, int ns, int nr)
      : send(sb == MPI_IN_PLACE ? std::vector<MPI_Datatype>((size_t)(ns > 0 ? ns : 0),
                                                            MPI_DATATYPE_NULL)
                                : types(st, ns)),
        recv(types(rt, nr)) {}
};

int group_size(MPI_Comm c) {
  int inter = 0, n = 0;
  if (PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS) return 0;
  if (inter ? PMPI_Comm_remote_size(c, &n) : PMPI_Comm_size(c, &n)) return 0;
  return n;
}

WTypes all_types(const void *sb, const F *st, const F *rt, MPI_Comm c) {
  int n = group_size(c);
  return WTypes(sb, st, rt, n, n);
}

// Neighbourhood: out-degree send blocks, in-degree receive blocks.
WTypes neighbor_types(const void *sb, const F *st, const F *rt, MPI_Comm c) {
  const loom_mpi::coll::Topology *t = loom_mpi::coll::topology(c);
  return WTypes(sb, st, rt, t ? t->outdeg : 0, t ? t->indeg : 0);
}

}  // namespace

LOOM_FORTRAN(bcast, (void *b, F *count, F *dt, F *root, F *c, F *ierr)) {
  set_err(ierr, MPI_Bcast(buf(b), *count, type(dt), *root, comm(c)));
}
LOOM_FORTRAN(ibcast, (void *b, F *count, F *dt, F *root, F *c, F *req, F *ierr)) {
  MPI_Request r;
  int rc = MPI_Ibcast(buf(b), *count, type(dt), *root, comm(c), &r);
  made(rc, &r, req, ierr);
}

// Gather and Scatter: (send, count, type, recv, count, type, root, comm).
#define LOOM_FORTRAN_ROOTED(lower, Call, SB, RB)                                        \
  LOOM_FORTRAN(lower, (void *sb, F * sc, F * st, void *rb, F * rc_, F * rt, F * root,   \
                       F * c, F * ierr)) {                                               \
    set_err(ierr, Call(SB(sb), *sc, type(st), RB(rb), *rc_, type(rt), *root, comm(c)));  \
  }                                                                                      \
  LOOM_FORTRAN(i##lower, (void *sb, F * sc, F * st, void *rb, F * rc_, F * rt,          \
                          F * root, F * c, F * req, F * ierr)) {                         \
    MPI_Request r;                                                                       \
    int rc = MPI_I##lower(SB(sb), *sc, type(st), RB(rb), *rc_, type(rt), *root, comm(c), \
                          &r);                                                           \
    made(rc, &r, req, ierr);                                                             \
  }
LOOM_FORTRAN_ROOTED(gather, MPI_Gather, inbuf, buf)
LOOM_FORTRAN_ROOTED(scatter, MPI_Scatter, buf, inbuf)

LOOM_FORTRAN(gatherv, (void *sb, F *sc, F *st, void *rb, F *rcounts, F *displs, F *rt,
                       F *root, F *c, F *ierr)) {
  set_err(ierr, MPI_Gatherv(inbuf(sb), *sc, type(st), buf(rb), rcounts, displs, type(rt),
                            *root, comm(c)));
}
LOOM_FORTRAN(igatherv, (void *sb, F *sc, F *st, void *rb, F *rcounts, F *displs, F *rt,
                        F *root, F *c, F *req, F *ierr)) {
  MPI_Request r;
  int rc = MPI_Igatherv(inbuf(sb), *sc, type(st), buf(rb), rcounts, displs, type(rt), *root,
                        comm(c), &r);
  made(rc, &r, req, ierr);
}
LOOM_FORTRAN(scatterv, (void *sb, F *scounts, F *displs, F *st, void *rb, F *rcount, F *rt,
                        F *root, F *c, F *ierr)) {
  set_err(ierr, MPI_Scatterv(buf(sb), scounts, displs, type(st), inbuf(rb), *rcount,
                             type(rt), *root, comm(c)));
}
LOOM_FORTRAN(iscatterv, (void *sb, F *scounts, F *displs, F *st, void *rb, F *rcount,
                         F *rt, F *root, F *c, F *req, F *ierr)) {
  MPI_Request r;
  int rc = MPI_Iscatterv(buf(sb), scounts, displs, type(st), inbuf(rb), *rcount, type(rt),
                         *root, comm(c), &r);
  made(rc, &r, req, ierr);
}

// Allgather, Alltoall and their neighbourhood forms: (send, count, type,
// recv, count, type, comm).
#define LOOM_FORTRAN_ALL(lower, Call, ICall)                                            \
  LOOM_FORTRAN(lower, (void *sb, F * sc, F * st, void *rb, F * rc_, F * rt, F * c,      \
                       F * ierr)) {                                                      \
    set_err(ierr, Call(inbuf(sb), *sc, type(st), buf(rb), *rc_, type(rt), comm(c)));     \
  }                                                                                      \
  LOOM_FORTRAN(i##lower, (void *sb, F * sc, F * st, void *rb, F * rc_, F * rt, F * c,   \
                          F * req, F * ierr)) {                                          \
    MPI_Request r;                                                                       \
    int rc = ICall(inbuf(sb), *sc, type(st), buf(rb), *rc_, type(rt), comm(c), &r);      \
    made(rc, &r, req, ierr);                                                             \
  }
LOOM_FORTRAN_ALL(allgather, MPI_Allgather, MPI_Iallgather)
LOOM_FORTRAN_ALL(alltoall, MPI_Alltoall, MPI_Ialltoall)
LOOM_FORTRAN_ALL(neighbor_allgather, MPI_Neighbor_allgather, MPI_Ineighbor_allgather)
LOOM_FORTRAN_ALL(neighbor_alltoall, MPI_Neighbor_alltoall, MPI_Ineighbor_alltoall)

// Allgatherv: (send, count, type, recv, counts, displs, type, comm).
#define LOOM_FORTRAN_ALLV(lower, Call, ICall)                                           \
  LOOM_FORTRAN(lower, (void *sb, F * sc, F * st, void *rb, F * rcounts, F * displs,     \
                       F * rt, F * c, F * ierr)) {                                       \
    set_err(ierr, Call(inbuf(sb), *sc, type(st), buf(rb), rcounts, displs, type(rt),     \
                       comm(c)));                                                        \
  }                                                                                      \
  LOOM_FORTRAN(i##lower, (void *sb, F * sc, F * st, void *rb, F * rcounts, F * displs,  \
                          F * rt, F * c, F * req, F * ierr)) {                           \
    MPI_Request r;                                                                       \
    int rc = ICall(inbuf(sb), *sc, type(st), buf(rb), rcounts, displs, type(rt), comm(c), \
                   &r);                                                                  \
    made(rc, &r, req, ierr);                                                             \
  }
LOOM_FORTRAN_ALLV(allgatherv, MPI_Allgatherv, MPI_Iallgatherv)
LOOM_FORTRAN_ALLV(neighbor_allgatherv, MPI_Neighbor_allgatherv, MPI_Ineighbor_allgatherv)

// Alltoallv: (send, counts, displs, type, recv, counts, displs, type, comm).
#define LOOM_FORTRAN_ALLTOALLV(lower, Call, ICall)                                      \
  LOOM_FORTRAN(lower, (void *sb, F * scounts, F * sdispls, F * st, void *rb,            \
                       F * rcounts, F * rdispls, F * rt, F * c, F * ierr)) {             \
    set_err(ierr, Call(inbuf(sb), scounts, sdispls, type(st), buf(rb), rcounts, rdispls, \
                       type(rt), comm(c)));                                              \
  }                                                                                      \
  LOOM_FORTRAN(i##lower, (void *sb, F * scounts, F * sdispls, F * st, void *rb,         \
                          F * rcounts, F * rdispls, F * rt, F * c, F * req, F * ierr)) { \
    MPI_Request r;                                                                       \
    int rc = ICall(inbuf(sb), scounts, sdispls, type(st), buf(rb), rcounts, rdispls,     \
                   type(rt), comm(c), &r);                                               \
    made(rc, &r, req, ierr);                                                             \
  }
LOOM_FORTRAN_ALLTOALLV(alltoallv, MPI_Alltoallv, MPI_Ialltoallv)
LOOM_FORTRAN_ALLTOALLV(neighbor_alltoallv, MPI_Neighbor_alltoallv, MPI_Ineighbor_alltoallv)

// Alltoallw: per-peer types; the neighbourhood form's displacements are
// MPI_Aint (INTEGER(KIND=MPI_ADDRESS_KIND)).
#define LOOM_FORTRAN_ALLTOALLW(lower, Call, ICall, Disp, types_for)                     \
  LOOM_FORTRAN(lower, (void *sb, F * scounts, Disp * sdispls, F * st, void *rb,         \
                       F * rcounts, Disp * rdispls, F * rt, F * c, F * ierr)) {          \
    const void *s = inbuf(sb);                                                           \
    MPI_Comm cc = comm(c);                                                               \
    WTypes t = types_for(s, st, rt, cc);                                                 \
    set_err(ierr, Call(s, scounts, sdispls, t.send.data(), buf(rb), rcounts, rdispls,    \
                       t.recv.data(), cc));                                              \
  }                                                                                      \
  LOOM_FORTRAN(i##lower, (void *sb, F * scounts, Disp * sdispls, F * st, void *rb,      \
                          F * rcounts, Disp * rdispls, F * rt, F * c, F * req,           \
                          F * ierr)) {                                                   \
    const void *s = inbuf(sb);                                                           \
    MPI_Comm cc = comm(c);                                                               \
    WTypes t = types_for(s, st, rt, cc);                                                 \
    MPI_Request r;                                                                       \
    int rc = ICall(s, scounts, sdispls, t.send.data(), buf(rb), rcounts, rdispls,        \
                   t.recv.data(), cc, &r);                                               \
    made(rc, &r, req, ierr);                                                             \
  }
LOOM_FORTRAN_ALLTOALLW(alltoallw, MPI_Alltoallw, MPI_Ialltoallw, F, all_types)
LOOM_FORTRAN_ALLTOALLW(neighbor_alltoallw, MPI_Neighbor_alltoallw, MPI_Ineighbor_alltoallw,
                       MPI_Aint, neighbor_types)

#endif  // OPEN_MPI
