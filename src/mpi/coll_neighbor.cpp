// Neighborhood collectives with derived datatypes: MPI_Neighbor_allgather(v),
// MPI_Neighbor_alltoall(v,w) and their nonblocking forms, on cartesian,
// graph and distributed-graph communicators (see coll_call.hpp for the
// steps every collective takes).  Blocks of MPI_PROC_NULL neighbours (a
// non-periodic cartesian edge) are neither packed nor unpacked: the
// standard leaves those receive blocks untouched.
#include "coll_call.hpp"
#include "large_count.hpp"
#include "coll_topo.hpp"
#include "l2l_segment.hpp"
#include "progress.hpp"

using namespace loom_mpi;
using namespace loom_mpi::coll;

namespace {

#if defined(MPICH) && LOOM_MPI_HAVE_LARGE_COUNT
// MPICH 4.0.2 widens the int count arrays of (I)Neighbor_alltoallw to
// MPI_Aint with the in- and out-degree swapped (pmodels/mpich#6233, fixed
// after 4.0.2): on a graph where a process's degrees differ, counts are
// lost or read past the arrays and no data (or garbage) moves.  The
// large-count forms take MPI_Count arrays as they are, so the call goes
// there.  MPICH builds the schedule of the nonblocking form during the
// call, so the converted arrays need not outlive it.
int neighbor_alltoallw_c(const void *sb, const int *scs, const MPI_Aint *sds,
                         const MPI_Datatype *sts, void *rb, const int *rcs,
                         const MPI_Aint *rds, const MPI_Datatype *rts, int outdeg,
                         int indeg, MPI_Comm comm, MPI_Request *req) {
  std::vector<MPI_Count> sc((size_t)outdeg + 1), rc((size_t)indeg + 1);
  for (int k = 0; k < outdeg; ++k) sc[(size_t)k] = scs[k];
  for (int k = 0; k < indeg; ++k) rc[(size_t)k] = rcs[k];
  return req ? PMPI_Ineighbor_alltoallw_c(sb, sc.data(), sds, sts, rb, rc.data(), rds, rts,
                                          comm, req)
             : PMPI_Neighbor_alltoallw_c(sb, sc.data(), sds, sts, rb, rc.data(), rds, rts,
                                         comm);
}
#define LOOM_NEIGHBOR_W_DEGREE_FIX 1
#else
#define LOOM_NEIGHBOR_W_DEGREE_FIX 0
#endif

// Neighbor_allgather(v): one send block for every destination, one receive
// block per source.
int neighbor_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                       int rcount, bool v, const int *rcounts, const int *displs,
                       MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req) {
  auto sys = [&](const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                 const int *rcs, const int *ds, MPI_Datatype rt) {
    if (v)
      return req ? PMPI_Ineighbor_allgatherv(sb, sc, st, rb, rcs, ds, rt, comm, req)
                 : PMPI_Neighbor_allgatherv(sb, sc, st, rb, rcs, ds, rt, comm);
    return req ? PMPI_Ineighbor_allgather(sb, sc, st, rb, rc, rt, comm, req)
               : PMPI_Neighbor_allgather(sb, sc, st, rb, rc, rt, comm);
  };
  auto unchanged = [&] {
    return sys(sbuf, scount, stype, rbuf, rcount, rcounts, displs, rtype);
  };
  if (known_pass(stype) && known_pass(rtype)) return unchanged();
  const Topology *topo = comm_enabled() ? topology(comm) : nullptr;
  if (!topo) return unchanged();
  const int indeg = topo->indeg, outdeg = topo->outdeg;
  if (v && indeg > 0 && (!rcounts || !displs)) return unchanged();
  Call call(comm, req);
  int rc = call.plan(make_side(sbuf, outdeg > 0 ? 1 : 0, Variant::uniform, scount, nullptr,
                               nullptr, nullptr, stype, nullptr),
                     make_side(rbuf, indeg, v ? Variant::v : Variant::uniform, rcount,
                               rcounts, displs, nullptr, rtype, nullptr,
                               topo->sources.data()));
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  if (!call.staged() || !call.start()) return unchanged();
  const Staged &S = call.send();
  Staged &R = call.recv();
  if (R.on && v) R.make_wire(false, false);
  return call.finish(sys(S.buf(sbuf), scount, S.type(stype), R.buf(rbuf),
                         rcount, R.counts(rcounts), R.displs(displs),
                         R.type(rtype)));
}

// The neighbourhood all-to-alls between Loom processes (l2l_coll.hpp),
// over the same system collective in bytes; kFallback when they do not
// apply.
int neighbor_l2l(const Topology &topo, Variant var, const void *sbuf, int scount, const int *scounts,
                 const int *sdispls, const MPI_Aint *sadispls, MPI_Datatype stype,
                 const MPI_Datatype *stypes, void *rbuf, int rcount, const int *rcounts,
                 const int *rdispls, const MPI_Aint *radispls, MPI_Datatype rtype,
                 const MPI_Datatype *rtypes, MPI_Comm comm, MPI_Request *req) {
  Intra in;
  if (!in.open(comm)) return kFallback;
  const int indeg = topo.indeg, outdeg = topo.outdeg;
  const bool v = var != Variant::uniform, w = var == Variant::w;
  if (v && ((outdeg > 0 && (!scounts || (w ? !sadispls : !sdispls))) ||
            (indeg > 0 && (!rcounts || (w ? !radispls : !rdispls)))))
    return kFallback;
  if (w && ((outdeg > 0 && !stypes) || (indeg > 0 && !rtypes))) return kFallback;
  const SideSpec ss = make_side(sbuf, outdeg, var, scount, scounts, sdispls, sadispls,
                                stype, stypes, topo.dests.data()),
                 rs = make_side(rbuf, indeg, var, rcount, rcounts, rdispls, radispls, rtype,
                                rtypes, topo.sources.data());
  if (!l2l_may_fit(ss) && !l2l_may_fit(rs)) return kFallback;
  std::vector<l2l::CollBlock> sb, rb;
  if (!l2l_blocks(ss, &sb) || !l2l_blocks(rs, &rb)) return kFallback;
  const l2l::CollShape shape = !v ? l2l::CollShape::uniform
                               : !w ? l2l::CollShape::v
                                    : l2l::CollShape::w;
  auto wire = [&](const l2l::WireArgs &a) {
    const int rdv = (int)l2l::kCollRdvBytes;
    MPI_Request *q = a.req;
    if (shape == l2l::CollShape::uniform)
      return q ? PMPI_Ineighbor_alltoall(a.sbuf, rdv, MPI_BYTE, a.rbuf, rdv, MPI_BYTE, comm, q)
               : PMPI_Neighbor_alltoall(a.sbuf, rdv, MPI_BYTE, a.rbuf, rdv, MPI_BYTE, comm);
    if (shape == l2l::CollShape::v)
      return q ? PMPI_Ineighbor_alltoallv(a.sbuf, a.scounts, a.sdispls, MPI_BYTE, a.rbuf,
                                          a.rcounts, a.rdispls, MPI_BYTE, comm, q)
               : PMPI_Neighbor_alltoallv(a.sbuf, a.scounts, a.sdispls, MPI_BYTE, a.rbuf,
                                         a.rcounts, a.rdispls, MPI_BYTE, comm);
#if LOOM_NEIGHBOR_W_DEGREE_FIX
    if (indeg != outdeg)
      return neighbor_alltoallw_c(a.sbuf, a.scounts, a.sadispls, a.bytes, a.rbuf, a.rcounts,
                                  a.radispls, a.bytes, outdeg, indeg, comm, q);
#endif
    return q ? PMPI_Ineighbor_alltoallw(a.sbuf, a.scounts, a.sadispls, a.bytes, a.rbuf,
                                        a.rcounts, a.radispls, a.bytes, comm, q)
             : PMPI_Neighbor_alltoallw(a.sbuf, a.scounts, a.sadispls, a.bytes, a.rbuf,
                                       a.rcounts, a.radispls, a.bytes, comm);
  };
  return l2l::exchange(comm, in.size, in.rank, shape, sb, rb, wire, false, req);
}

// Neighbor_alltoall(v,w): one send block per destination, one receive block
// per source; the w form's displacements are MPI_Aint bytes.
int neighbor_alltoall(Variant var, const void *sbuf, int scount, const int *scounts,
                      const int *sdispls, const MPI_Aint *sadispls, MPI_Datatype stype,
                      const MPI_Datatype *stypes, void *rbuf, int rcount,
                      const int *rcounts, const int *rdispls, const MPI_Aint *radispls,
                      MPI_Datatype rtype, const MPI_Datatype *rtypes, MPI_Comm comm,
                      MPI_Request *req) {
  int indeg = -1, outdeg = -1;  // known once asked (the w form asks first)
  auto sys = [&](const void *sb, int sc, const int *scs, const int *sds,
                 const MPI_Aint *sas, MPI_Datatype st, const MPI_Datatype *sts, void *rb,
                 int rc, const int *rcs, const int *rds, const MPI_Aint *ras,
                 MPI_Datatype rt, const MPI_Datatype *rts) {
    switch (var) {
      case Variant::uniform:
        return req ? PMPI_Ineighbor_alltoall(sb, sc, st, rb, rc, rt, comm, req)
                   : PMPI_Neighbor_alltoall(sb, sc, st, rb, rc, rt, comm);
      case Variant::v:
        return req ? PMPI_Ineighbor_alltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm, req)
                   : PMPI_Neighbor_alltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm);
      default:
#if LOOM_NEIGHBOR_W_DEGREE_FIX
        if (indeg >= 0 && indeg != outdeg && (outdeg == 0 || scs) && (indeg == 0 || rcs))
          return neighbor_alltoallw_c(sb, scs, sas, sts, rb, rcs, ras, rts, outdeg, indeg,
                                      comm, req);
#endif
        return req ? PMPI_Ineighbor_alltoallw(sb, scs, sas, sts, rb, rcs, ras, rts, comm, req)
                   : PMPI_Neighbor_alltoallw(sb, scs, sas, sts, rb, rcs, ras, rts, comm);
    }
  };
  auto unchanged = [&] {
    return sys(sbuf, scount, scounts, sdispls, sadispls, stype, stypes, rbuf, rcount,
               rcounts, rdispls, radispls, rtype, rtypes);
  };
  // Loom-to-Loom first, contiguous types too: every rank must take the
  // same path, whatever its own types are.
  const Topology *topo = l2l::coll_possible(comm) ? topology(comm) : nullptr;
  if (topo) {
    int rc = neighbor_l2l(*topo, var, sbuf, scount, scounts, sdispls, sadispls, stype, stypes, rbuf,
                          rcount, rcounts, rdispls, radispls, rtype, rtypes, comm, req);
    if (rc != kFallback) return rc;
  }
  if (var != Variant::w && known_pass(stype) && known_pass(rtype)) return unchanged();
  if (!comm_enabled()) return unchanged();
  if (!topo) topo = topology(comm);
  if (!topo) return unchanged();
  indeg = topo->indeg;
  outdeg = topo->outdeg;
  const bool v = var != Variant::uniform, w = var == Variant::w;
  if (v && ((outdeg > 0 && (!scounts || (w ? !sadispls : !sdispls))) ||
            (indeg > 0 && (!rcounts || (w ? !radispls : !rdispls)))))
    return unchanged();
  if (w && ((outdeg > 0 && !stypes) || (indeg > 0 && !rtypes))) return unchanged();
  if (w && all_known_pass(stypes, scounts, outdeg) && all_known_pass(rtypes, rcounts, indeg))
    return unchanged();
  Call call(comm, req);
  int rc = call.plan(
      make_side(sbuf, outdeg, var, scount, scounts, sdispls, sadispls, stype, stypes,
                topo->dests.data()),
      make_side(rbuf, indeg, var, rcount, rcounts, rdispls, radispls, rtype, rtypes,
                topo->sources.data()));
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  if (!call.staged() || !call.start()) return unchanged();
  Staged &S = call.send(), &R = call.recv();
  if (v) {
    if (S.on) S.make_wire(w, w);
    if (R.on) R.make_wire(w, w);
  }
  return call.finish(sys(S.buf(sbuf), scount, S.counts(scounts), S.displs(sdispls),
                         S.displs(sadispls), S.type(stype), S.types(stypes), R.buf(rbuf),
                         rcount, R.counts(rcounts), R.displs(rdispls),
                         R.displs(radispls), R.type(rtype), R.types(rtypes)));
}

}  // namespace

LOOM_MPI_EXPORT int MPI_Neighbor_allgather(const void *sbuf, int scount, MPI_Datatype stype,
                                           void *rbuf, int rcount, MPI_Datatype rtype,
                                           MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return neighbor_allgather(sbuf, scount, stype, rbuf, rcount, false, nullptr, nullptr,
                              rtype, comm, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Ineighbor_allgather(const void *sbuf, int scount,
                                            MPI_Datatype stype, void *rbuf, int rcount,
                                            MPI_Datatype rtype, MPI_Comm comm,
                                            MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req)
      return PMPI_Ineighbor_allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    return neighbor_allgather(sbuf, scount, stype, rbuf, rcount, false, nullptr, nullptr,
                              rtype, comm, req);
  });
}

LOOM_MPI_EXPORT int MPI_Neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype,
                                            void *rbuf, const int *rcounts,
                                            const int *displs, MPI_Datatype rtype,
                                            MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return neighbor_allgather(sbuf, scount, stype, rbuf, 0, true, rcounts, displs, rtype, comm,
                              nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Ineighbor_allgatherv(const void *sbuf, int scount,
                                             MPI_Datatype stype, void *rbuf,
                                             const int *rcounts, const int *displs,
                                             MPI_Datatype rtype, MPI_Comm comm,
                                             MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req)
      return PMPI_Ineighbor_allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm,
                                       req);
    return neighbor_allgather(sbuf, scount, stype, rbuf, 0, true, rcounts, displs, rtype, comm,
                              req);
  });
}

LOOM_MPI_EXPORT int MPI_Neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype,
                                          void *rbuf, int rcount, MPI_Datatype rtype,
                                          MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return neighbor_alltoall(Variant::uniform, sbuf, scount, nullptr, nullptr, nullptr, stype,
                             nullptr, rbuf, rcount, nullptr, nullptr, nullptr, rtype, nullptr,
                             comm, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Ineighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype,
                                           void *rbuf, int rcount, MPI_Datatype rtype,
                                           MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req)
      return PMPI_Ineighbor_alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    return neighbor_alltoall(Variant::uniform, sbuf, scount, nullptr, nullptr, nullptr, stype,
                             nullptr, rbuf, rcount, nullptr, nullptr, nullptr, rtype, nullptr,
                             comm, req);
  });
}

LOOM_MPI_EXPORT int MPI_Neighbor_alltoallv(const void *sbuf, const int *scounts,
                                           const int *sdispls, MPI_Datatype stype,
                                           void *rbuf, const int *rcounts,
                                           const int *rdispls, MPI_Datatype rtype,
                                           MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return neighbor_alltoall(Variant::v, sbuf, 0, scounts, sdispls, nullptr, stype, nullptr,
                             rbuf, 0, rcounts, rdispls, nullptr, rtype, nullptr, comm, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Ineighbor_alltoallv(const void *sbuf, const int *scounts,
                                            const int *sdispls, MPI_Datatype stype,
                                            void *rbuf, const int *rcounts,
                                            const int *rdispls, MPI_Datatype rtype,
                                            MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req)
      return PMPI_Ineighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls,
                                      rtype, comm, req);
    return neighbor_alltoall(Variant::v, sbuf, 0, scounts, sdispls, nullptr, stype, nullptr,
                             rbuf, 0, rcounts, rdispls, nullptr, rtype, nullptr, comm, req);
  });
}

LOOM_MPI_EXPORT int MPI_Neighbor_alltoallw(const void *sbuf, const int *scounts,
                                           const MPI_Aint *sdispls,
                                           const MPI_Datatype *stypes, void *rbuf,
                                           const int *rcounts, const MPI_Aint *rdispls,
                                           const MPI_Datatype *rtypes, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return neighbor_alltoall(Variant::w, sbuf, 0, scounts, nullptr, sdispls, MPI_DATATYPE_NULL,
                             stypes, rbuf, 0, rcounts, nullptr, rdispls, MPI_DATATYPE_NULL,
                             rtypes, comm, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Ineighbor_alltoallw(const void *sbuf, const int *scounts,
                                            const MPI_Aint *sdispls,
                                            const MPI_Datatype *stypes, void *rbuf,
                                            const int *rcounts, const MPI_Aint *rdispls,
                                            const MPI_Datatype *rtypes, MPI_Comm comm,
                                            MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req)
      return PMPI_Ineighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls,
                                      rtypes, comm, req);
    return neighbor_alltoall(Variant::w, sbuf, 0, scounts, nullptr, sdispls, MPI_DATATYPE_NULL,
                             stypes, rbuf, 0, rcounts, nullptr, rdispls, MPI_DATATYPE_NULL,
                             rtypes, comm, req);
  });
}

#if LOOM_MPI_HAVE_LARGE_COUNT
// The large-count forms with one count a side (large_count.hpp).
LOOM_MPI_EXPORT int MPI_Neighbor_allgather_c(const void *sbuf, MPI_Count scount,
                                             MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                                             MPI_Datatype rtype, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return with_int_counts(comm, scount, stype, rcount, rtype,
                           [&](int sn, MPI_Datatype st, int rn, MPI_Datatype rt) {
      return neighbor_allgather(sbuf, sn, st, rbuf, rn, false, nullptr, nullptr, rt, comm,
                                nullptr);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Ineighbor_allgather_c(const void *sbuf, MPI_Count scount,
                                              MPI_Datatype stype, void *rbuf,
                                              MPI_Count rcount, MPI_Datatype rtype,
                                              MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req)
      return PMPI_Ineighbor_allgather_c(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    return with_int_counts(comm, scount, stype, rcount, rtype,
                           [&](int sn, MPI_Datatype st, int rn, MPI_Datatype rt) {
      return neighbor_allgather(sbuf, sn, st, rbuf, rn, false, nullptr, nullptr, rt, comm,
                                req);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Neighbor_alltoall_c(const void *sbuf, MPI_Count scount,
                                            MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                                            MPI_Datatype rtype, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return with_int_counts(comm, scount, stype, rcount, rtype,
                           [&](int sn, MPI_Datatype st, int rn, MPI_Datatype rt) {
      return neighbor_alltoall(Variant::uniform, sbuf, sn, nullptr, nullptr, nullptr, st,
                               nullptr, rbuf, rn, nullptr, nullptr, nullptr, rt, nullptr,
                               comm, nullptr);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Ineighbor_alltoall_c(const void *sbuf, MPI_Count scount,
                                             MPI_Datatype stype, void *rbuf,
                                             MPI_Count rcount, MPI_Datatype rtype,
                                             MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req)
      return PMPI_Ineighbor_alltoall_c(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    return with_int_counts(comm, scount, stype, rcount, rtype,
                           [&](int sn, MPI_Datatype st, int rn, MPI_Datatype rt) {
      return neighbor_alltoall(Variant::uniform, sbuf, sn, nullptr, nullptr, nullptr, st,
                               nullptr, rbuf, rn, nullptr, nullptr, nullptr, rt, nullptr,
                               comm, req);
    });
  });
}

// The v and w forms, blocking: their arrays as ints where every entry fits,
// else the system's own _c call.  The nonblocking ones stay the system's: a
// converted copy would have to outlive the call.
LOOM_MPI_EXPORT int MPI_Neighbor_allgatherv_c(const void *sbuf, MPI_Count scount,
                                              MPI_Datatype stype, void *rbuf,
                                              const MPI_Count *rcounts, const MPI_Aint *displs,
                                              MPI_Datatype rtype, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    const coll::Topology *t = coll::topology(comm);
    IntArray rc, ds;
    if (t && scount <= INT_MAX && rc.from(rcounts, t->indeg) && ds.from(displs, t->indeg))
      return neighbor_allgather(sbuf, (int)scount, stype, rbuf, 0, true, rc.data(), ds.data(),
                                rtype, comm, nullptr);
    return PMPI_Neighbor_allgatherv_c(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
  });
}

LOOM_MPI_EXPORT int MPI_Neighbor_alltoallv_c(const void *sbuf, const MPI_Count *scounts,
                                             const MPI_Aint *sdispls, MPI_Datatype stype,
                                             void *rbuf, const MPI_Count *rcounts,
                                             const MPI_Aint *rdispls, MPI_Datatype rtype,
                                             MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    const coll::Topology *t = coll::topology(comm);
    IntArray sc, sd, rc, rd;
    if (t && sc.from(scounts, t->outdeg) && sd.from(sdispls, t->outdeg) &&
        rc.from(rcounts, t->indeg) && rd.from(rdispls, t->indeg))
      return neighbor_alltoall(Variant::v, sbuf, 0, sc.data(), sd.data(), nullptr, stype,
                               nullptr, rbuf, 0, rc.data(), rd.data(), nullptr, rtype, nullptr,
                               comm, nullptr);
    return PMPI_Neighbor_alltoallv_c(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls,
                                     rtype, comm);
  });
}

LOOM_MPI_EXPORT int MPI_Neighbor_alltoallw_c(const void *sbuf, const MPI_Count *scounts,
                                             const MPI_Aint *sdispls,
                                             const MPI_Datatype *stypes, void *rbuf,
                                             const MPI_Count *rcounts, const MPI_Aint *rdispls,
                                             const MPI_Datatype *rtypes, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    const coll::Topology *t = coll::topology(comm);
    IntArray sc, rc;
    if (t && sc.from(scounts, t->outdeg) && rc.from(rcounts, t->indeg))
      return neighbor_alltoall(Variant::w, sbuf, 0, sc.data(), nullptr, sdispls,
                               MPI_DATATYPE_NULL, stypes, rbuf, 0, rc.data(), nullptr, rdispls,
                               MPI_DATATYPE_NULL, rtypes, comm, nullptr);
    return PMPI_Neighbor_alltoallw_c(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls,
                                     rtypes, comm);
  });
}
#endif
