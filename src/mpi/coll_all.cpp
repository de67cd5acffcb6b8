// All-to-all collectives with derived datatypes: MPI_Allgather(v),
// MPI_Alltoall(v,w) and their nonblocking forms (see coll_call.hpp for the
// steps every collective takes).
#include "coll_call.hpp"
#include "large_count.hpp"
#include "l2l_segment.hpp"
#include "progress.hpp"

using namespace loom_mpi;
using namespace loom_mpi::coll;

namespace {

// Allgather(v) between Loom processes (l2l_coll.hpp): each rank's block
// announced to every receiver by its own RDV, over a system Alltoall(v) of
// bytes (every rank sees every block's size, so all decide alike);
// kFallback when it does not apply.  MPI_IN_PLACE: the contribution is
// read from this rank's own receive block, which stays as it is.
int allgather_l2l(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  bool v, const int *rcounts, const int *displs, MPI_Datatype rtype,
                  MPI_Comm comm, MPI_Request *req) {
  Intra in;
  if (!in.open(comm) || (v && (!rcounts || !displs))) return kFallback;
  if (!v && !l2l::coll_block_may_fit(rcount, rtype)) return kFallback;
  const bool in_place = sbuf == MPI_IN_PLACE;
  std::vector<l2l::CollBlock> sb, rb;
  const Variant var = v ? Variant::v : Variant::uniform;
  if (!l2l_blocks(make_side(rbuf, in.size, var, rcount, rcounts, displs, nullptr, rtype,
                            nullptr), &rb))
    return kFallback;
  const size_t me = (size_t)in.rank;
  l2l::CollBlock mine = in_place ? rb[me] : l2l::CollBlock{0, (uintptr_t)sbuf, scount, stype};
  for (int i = 0; i < in.size; ++i) {
    sb.push_back(mine);
    sb.back().peer = in_place && (size_t)i == me ? MPI_PROC_NULL : i;
  }
  if (in_place) rb[me].peer = MPI_PROC_NULL;
  const l2l::CollShape shape = v ? l2l::CollShape::v : l2l::CollShape::uniform;
  return l2l::exchange(
      comm, in.size, in.rank, shape, sb, rb,
      [&](const l2l::WireArgs &a) { return l2l::alltoall_wire(shape, comm, a); }, true, req);
}

// Allgather and Allgatherv: one send block, one receive block per rank.
// MPI_IN_PLACE: this rank's contribution is its own receive block.
int allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
              bool v, const int *rcounts, const int *displs, MPI_Datatype rtype,
              MPI_Comm comm, MPI_Request *req) {
  auto sys = [&](const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                 const int *rcs, const int *ds, MPI_Datatype rt) {
    if (v)
      return req ? PMPI_Iallgatherv(sb, sc, st, rb, rcs, ds, rt, comm, req)
                 : PMPI_Allgatherv(sb, sc, st, rb, rcs, ds, rt, comm);
    return req ? PMPI_Iallgather(sb, sc, st, rb, rc, rt, comm, req)
               : PMPI_Allgather(sb, sc, st, rb, rc, rt, comm);
  };
  auto unchanged = [&] {
    return sys(sbuf, scount, stype, rbuf, rcount, rcounts, displs, rtype);
  };
  const bool in_place = sbuf == MPI_IN_PLACE;
  // Loom-to-Loom first, contiguous types too: every rank must take the
  // same path, whatever its own types are.
  if (l2l::coll_possible(comm)) {
    int rc = allgather_l2l(sbuf, scount, stype, rbuf, rcount, v, rcounts, displs, rtype, comm,
                           req);
    if (rc != kFallback) return rc;
  }
  if ((in_place || known_pass(stype)) && known_pass(rtype)) return unchanged();
  Intra in;
  if (!in.open(comm) || (v && (!rcounts || !displs))) return unchanged();
  SideSpec none;
  const Variant var = v ? Variant::v : Variant::uniform;
  Call call(comm, req);
  int rc = call.plan(in_place ? none
                              : make_side(sbuf, 1, Variant::uniform, scount, nullptr,
                                          nullptr, nullptr, stype, nullptr),
                     make_side(rbuf, in.size, var, rcount, rcounts, displs, nullptr, rtype,
                               nullptr));
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  if (!call.staged() || !call.start()) return unchanged();
  const Staged &S = call.send();
  Staged &R = call.recv();
  if (in_place && R.on) {
    if (!call.prepack_recv(in.rank)) return unchanged();
    R.blocks[(size_t)in.rank].skip = true;  // already in place
  }
  if (R.on && v) R.make_wire(false, false);
  return call.finish(sys(S.buf(sbuf), scount, S.type(stype), R.buf(rbuf),
                         rcount, R.counts(rcounts), R.displs(displs),
                         R.type(rtype)));
}

// The all-to-alls between Loom processes (l2l_coll.hpp), over the same
// system collective in bytes; kFallback when they do not apply.
int alltoall_l2l(Variant var, const void *sbuf, int scount, const int *scounts,
                 const int *sdispls, MPI_Datatype stype, const MPI_Datatype *stypes,
                 void *rbuf, int rcount, const int *rcounts, const int *rdispls,
                 MPI_Datatype rtype, const MPI_Datatype *rtypes, MPI_Comm comm,
                 MPI_Request *req) {
  Intra in;
  if (!in.open(comm)) return kFallback;
  if (var != Variant::uniform && (!scounts || !sdispls || !rcounts || !rdispls))
    return kFallback;
  if (var == Variant::w && (!stypes || !rtypes)) return kFallback;
  const SideSpec ss = make_side(sbuf, in.size, var, scount, scounts, sdispls, nullptr, stype,
                                stypes),
                 rs = make_side(rbuf, in.size, var, rcount, rcounts, rdispls, nullptr, rtype,
                                rtypes);
  // Uniform: one block size for all, so the receive side's says it.
  if (var == Variant::uniform ? !l2l_may_fit(rs) : !l2l_may_fit(ss) && !l2l_may_fit(rs))
    return kFallback;
  std::vector<l2l::CollBlock> sb, rb;
  if (!l2l_blocks(ss, &sb) || !l2l_blocks(rs, &rb)) return kFallback;
  const l2l::CollShape shape = var == Variant::uniform ? l2l::CollShape::uniform
                               : var == Variant::v     ? l2l::CollShape::v
                                                       : l2l::CollShape::w;
  return l2l::exchange(
      comm, in.size, in.rank, shape, sb, rb,
      [&](const l2l::WireArgs &a) { return l2l::alltoall_wire(shape, comm, a); }, false, req);
}

// Alltoall, Alltoallv and Alltoallw: one send and one receive block per
// rank.  MPI_IN_PLACE: the receive blocks are sent and then replaced.
int alltoall(Variant var, const void *sbuf, int scount, const int *scounts,
             const int *sdispls, MPI_Datatype stype, const MPI_Datatype *stypes,
             void *rbuf, int rcount, const int *rcounts, const int *rdispls,
             MPI_Datatype rtype, const MPI_Datatype *rtypes, MPI_Comm comm,
             MPI_Request *req) {
  auto sys = [&](const void *sb, int sc, const int *scs, const int *sds, MPI_Datatype st,
                 const MPI_Datatype *sts, void *rb, int rc, const int *rcs, const int *rds,
                 MPI_Datatype rt, const MPI_Datatype *rts) {
    switch (var) {
      case Variant::uniform:
        return req ? PMPI_Ialltoall(sb, sc, st, rb, rc, rt, comm, req)
                   : PMPI_Alltoall(sb, sc, st, rb, rc, rt, comm);
      case Variant::v:
        return req ? PMPI_Ialltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm, req)
                   : PMPI_Alltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm);
      default:
        return req ? PMPI_Ialltoallw(sb, scs, sds, sts, rb, rcs, rds, rts, comm, req)
                   : PMPI_Alltoallw(sb, scs, sds, sts, rb, rcs, rds, rts, comm);
    }
  };
  auto unchanged = [&] {
    return sys(sbuf, scount, scounts, sdispls, stype, stypes, rbuf, rcount, rcounts,
               rdispls, rtype, rtypes);
  };
  const bool in_place = sbuf == MPI_IN_PLACE;
  // Loom-to-Loom first, contiguous types too: every rank must take the
  // same path, whatever its own types are.
  if (!in_place && l2l::coll_possible(comm)) {
    int rc = alltoall_l2l(var, sbuf, scount, scounts, sdispls, stype, stypes, rbuf, rcount,
                          rcounts, rdispls, rtype, rtypes, comm, req);
    if (rc != kFallback) return rc;
  }
  // The w form's type arrays are as long as the group: the fast path needs
  // its size first.
  if (var != Variant::w && (in_place || known_pass(stype)) && known_pass(rtype))
    return unchanged();
  Intra in;
  if (!in.open(comm)) return unchanged();
  if (var != Variant::uniform &&
      (!rcounts || !rdispls || (!in_place && (!scounts || !sdispls))))
    return unchanged();
  if (var == Variant::w) {
    if (!rtypes || (!in_place && !stypes)) return unchanged();
    if ((in_place || all_known_pass(stypes, scounts, in.size)) &&
        all_known_pass(rtypes, rcounts, in.size))
      return unchanged();
  }
  // What the system is to send.  Where its nonblocking in-place all-to-all
  // is wrong (Open MPI 4.1.4 over a derived wire type), the receive blocks
  // are a send side of their own, packed when the call is made (what
  // MPI_IN_PLACE sends), and arrive in staging apart from it.
  const bool sent_apart = in_place && req && kSystemNonblockingInPlaceAlltoallWrong;
  struct SendArgs {
    const void *buf;
    int count;
    const int *counts, *displs;
    MPI_Datatype type;
    const MPI_Datatype *types;
  };
  const SendArgs snd = sent_apart ? SendArgs{rbuf, rcount, rcounts, rdispls, rtype, rtypes}
                                  : SendArgs{sbuf, scount, scounts, sdispls, stype, stypes};
  const bool sys_in_place = in_place && !sent_apart;
  SideSpec none;
  Call call(comm, req);
  int rc = call.plan(
      sys_in_place ? none
                   : make_side(snd.buf, in.size, var, snd.count, snd.counts, snd.displs, nullptr,
                               snd.type, snd.types),
      make_side(rbuf, in.size, var, rcount, rcounts, rdispls, nullptr, rtype, rtypes));
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  if (!call.staged() || !call.start()) return unchanged();
  Staged &S = call.send(), &R = call.recv();
  if (sent_apart && !(S.on && R.on)) return unchanged();  // the two must not share memory
  if (sys_in_place && R.on && !call.prepack_recv()) return unchanged();
  if (var != Variant::uniform) {
    if (S.on) S.make_wire(var == Variant::w, false);
    if (R.on) R.make_wire(var == Variant::w, false);
  }
  return call.finish(sys(S.buf(snd.buf), snd.count, S.counts(snd.counts), S.displs(snd.displs),
                         S.type(snd.type), S.types(snd.types), R.buf(rbuf), rcount,
                         R.counts(rcounts), R.displs(rdispls), R.type(rtype),
                         R.types(rtypes)));
}

}  // namespace

LOOM_MPI_EXPORT int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype,
                                  void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return allgather(sbuf, scount, stype, rbuf, rcount, false, nullptr, nullptr, rtype, comm,
                     nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype,
                                   void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm,
                                   MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req) return PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    return allgather(sbuf, scount, stype, rbuf, rcount, false, nullptr, nullptr, rtype, comm,
                     req);
  });
}

LOOM_MPI_EXPORT int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype,
                                   void *rbuf, const int *rcounts, const int *displs,
                                   MPI_Datatype rtype, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return allgather(sbuf, scount, stype, rbuf, 0, true, rcounts, displs, rtype, comm, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype,
                                    void *rbuf, const int *rcounts, const int *displs,
                                    MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req)
      return PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req);
    return allgather(sbuf, scount, stype, rbuf, 0, true, rcounts, displs, rtype, comm, req);
  });
}

LOOM_MPI_EXPORT int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype,
                                 void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return alltoall(Variant::uniform, sbuf, scount, nullptr, nullptr, stype, nullptr, rbuf,
                    rcount, nullptr, nullptr, rtype, nullptr, comm, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype,
                                  void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm,
                                  MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req) return PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    return alltoall(Variant::uniform, sbuf, scount, nullptr, nullptr, stype, nullptr, rbuf,
                    rcount, nullptr, nullptr, rtype, nullptr, comm, req);
  });
}

LOOM_MPI_EXPORT int MPI_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                                  MPI_Datatype stype, void *rbuf, const int *rcounts,
                                  const int *rdispls, MPI_Datatype rtype, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return alltoall(Variant::v, sbuf, 0, scounts, sdispls, stype, nullptr, rbuf, 0, rcounts,
                    rdispls, rtype, nullptr, comm, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Ialltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                                   MPI_Datatype stype, void *rbuf, const int *rcounts,
                                   const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                                   MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req)
      return PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype,
                             comm, req);
    return alltoall(Variant::v, sbuf, 0, scounts, sdispls, stype, nullptr, rbuf, 0, rcounts,
                    rdispls, rtype, nullptr, comm, req);
  });
}

LOOM_MPI_EXPORT int MPI_Alltoallw(const void *sbuf, const int *scounts, const int *sdispls,
                                  const MPI_Datatype *stypes, void *rbuf, const int *rcounts,
                                  const int *rdispls, const MPI_Datatype *rtypes,
                                  MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return alltoall(Variant::w, sbuf, 0, scounts, sdispls, MPI_DATATYPE_NULL, stypes, rbuf, 0,
                    rcounts, rdispls, MPI_DATATYPE_NULL, rtypes, comm, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Ialltoallw(const void *sbuf, const int *scounts, const int *sdispls,
                                   const MPI_Datatype *stypes, void *rbuf,
                                   const int *rcounts, const int *rdispls,
                                   const MPI_Datatype *rtypes, MPI_Comm comm,
                                   MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req)
      return PMPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                             comm, req);
    return alltoall(Variant::w, sbuf, 0, scounts, sdispls, MPI_DATATYPE_NULL, stypes, rbuf, 0,
                    rcounts, rdispls, MPI_DATATYPE_NULL, rtypes, comm, req);
  });
}

#if LOOM_MPI_HAVE_LARGE_COUNT
// The large-count forms with one count a side (large_count.hpp).
LOOM_MPI_EXPORT int MPI_Allgather_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                                    void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
                                    MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return with_int_counts(comm, scount, stype, rcount, rtype,
                           [&](int sn, MPI_Datatype st, int rn, MPI_Datatype rt) {
      return allgather(sbuf, sn, st, rbuf, rn, false, nullptr, nullptr, rt, comm, nullptr);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Iallgather_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                                     void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
                                     MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req) return PMPI_Iallgather_c(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    return with_int_counts(comm, scount, stype, rcount, rtype,
                           [&](int sn, MPI_Datatype st, int rn, MPI_Datatype rt) {
      return allgather(sbuf, sn, st, rbuf, rn, false, nullptr, nullptr, rt, comm, req);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Alltoall_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                                   void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
                                   MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return with_int_counts(comm, scount, stype, rcount, rtype,
                           [&](int sn, MPI_Datatype st, int rn, MPI_Datatype rt) {
      return alltoall(Variant::uniform, sbuf, sn, nullptr, nullptr, st, nullptr, rbuf, rn,
                      nullptr, nullptr, rt, nullptr, comm, nullptr);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Ialltoall_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                                    void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
                                    MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req) return PMPI_Ialltoall_c(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    return with_int_counts(comm, scount, stype, rcount, rtype,
                           [&](int sn, MPI_Datatype st, int rn, MPI_Datatype rt) {
      return alltoall(Variant::uniform, sbuf, sn, nullptr, nullptr, st, nullptr, rbuf, rn,
                      nullptr, nullptr, rt, nullptr, comm, req);
    });
  });
}

// The v and w forms, blocking: their arrays as ints where every entry fits,
// else the system's own _c call.  The nonblocking ones stay the system's: a
// converted copy would have to outlive the call.
LOOM_MPI_EXPORT int MPI_Allgatherv_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                                     void *rbuf, const MPI_Count *rcounts,
                                     const MPI_Aint *displs, MPI_Datatype rtype,
                                     MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    const int n = group_blocks(comm);
    IntArray rc, ds;
    if (n > 0 && (sbuf == MPI_IN_PLACE || scount <= INT_MAX) && rc.from(rcounts, n) &&
        ds.from(displs, n))
      return allgather(sbuf, sbuf == MPI_IN_PLACE ? 0 : (int)scount, stype, rbuf, 0, true,
                       rc.data(), ds.data(), rtype, comm, nullptr);
    return PMPI_Allgatherv_c(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
  });
}

LOOM_MPI_EXPORT int MPI_Alltoallv_c(const void *sbuf, const MPI_Count *scounts,
                                    const MPI_Aint *sdispls, MPI_Datatype stype, void *rbuf,
                                    const MPI_Count *rcounts, const MPI_Aint *rdispls,
                                    MPI_Datatype rtype, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    const int n = group_blocks(comm);
    const bool in_place = sbuf == MPI_IN_PLACE;
    IntArray sc, sd, rc, rd;
    if (n > 0 && (in_place || (sc.from(scounts, n) && sd.from(sdispls, n))) &&
        rc.from(rcounts, n) && rd.from(rdispls, n))
      return alltoall(Variant::v, sbuf, 0, sc.data(), sd.data(), stype, nullptr, rbuf, 0,
                      rc.data(), rd.data(), rtype, nullptr, comm, nullptr);
    return PMPI_Alltoallv_c(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
  });
}

LOOM_MPI_EXPORT int MPI_Alltoallw_c(const void *sbuf, const MPI_Count *scounts,
                                    const MPI_Aint *sdispls, const MPI_Datatype *stypes,
                                    void *rbuf, const MPI_Count *rcounts,
                                    const MPI_Aint *rdispls, const MPI_Datatype *rtypes,
                                    MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    const int n = group_blocks(comm);
    const bool in_place = sbuf == MPI_IN_PLACE;
    IntArray sc, sd, rc, rd;
    if (n > 0 && (in_place || (sc.from(scounts, n) && sd.from(sdispls, n))) &&
        rc.from(rcounts, n) && rd.from(rdispls, n))
      return alltoall(Variant::w, sbuf, 0, sc.data(), sd.data(), MPI_DATATYPE_NULL, stypes,
                      rbuf, 0, rc.data(), rd.data(), MPI_DATATYPE_NULL, rtypes, comm, nullptr);
    return PMPI_Alltoallw_c(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                            comm);
  });
}
#endif
