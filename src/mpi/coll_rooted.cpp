// Rooted collectives with derived datatypes: MPI_Bcast, MPI_Gather(v),
// MPI_Scatter(v) and their nonblocking forms (see coll_call.hpp for the
// steps every collective takes).  Only the arguments significant at this
// rank are looked at: at a non-root the root's buffer arguments may be
// anything.
#include "coll_call.hpp"
#include "large_count.hpp"
#include "l2l_segment.hpp"
#include "progress.hpp"

using namespace loom_mpi;
using namespace loom_mpi::coll;

namespace {

// The rooted collectives between Loom processes (l2l_coll.hpp): every
// block between two ranks announced by an RDV and pulled by its receiver.
// Bcast goes over a system Scatter of RDVs (one per receiver; every rank
// sees the block size, so all decide alike); Gather(v) and Scatter(v) over
// themselves in bytes.  kFallback when they do not apply.  MPI_IN_PLACE:
// the root's own block is neither sent nor received.

// A single block of count instances of type at buf, to or from peer.
l2l::CollBlock one_block(int peer, const void *buf, int count, MPI_Datatype type) {
  return l2l::CollBlock{peer, (uintptr_t)buf, count, type};
}

// Scatter(v) of the wire: RDVs (uniform) or bytes; nonblocking with a.req.
int scatter_wire(const l2l::WireArgs &a, bool v, int root, MPI_Comm comm) {
  const int rdv = (int)l2l::kCollRdvBytes;
  MPI_Request *q = a.req;
  if (!v)
    return q ? PMPI_Iscatter(a.sbuf, rdv, MPI_BYTE, a.rbuf, rdv, MPI_BYTE, root, comm, q)
             : PMPI_Scatter(a.sbuf, rdv, MPI_BYTE, a.rbuf, rdv, MPI_BYTE, root, comm);
  return q ? PMPI_Iscatterv(a.sbuf, a.scounts, a.sdispls, MPI_BYTE, a.rbuf, a.rcounts[0],
                            MPI_BYTE, root, comm, q)
           : PMPI_Scatterv(a.sbuf, a.scounts, a.sdispls, MPI_BYTE, a.rbuf, a.rcounts[0],
                           MPI_BYTE, root, comm);
}

// Gather(v) of the wire, likewise.
int gather_wire(const l2l::WireArgs &a, bool v, int root, MPI_Comm comm) {
  const int rdv = (int)l2l::kCollRdvBytes;
  MPI_Request *q = a.req;
  if (!v)
    return q ? PMPI_Igather(a.sbuf, rdv, MPI_BYTE, a.rbuf, rdv, MPI_BYTE, root, comm, q)
             : PMPI_Gather(a.sbuf, rdv, MPI_BYTE, a.rbuf, rdv, MPI_BYTE, root, comm);
  return q ? PMPI_Igatherv(a.sbuf, a.scounts[0], MPI_BYTE, a.rbuf, a.rcounts, a.rdispls,
                           MPI_BYTE, root, comm, q)
           : PMPI_Gatherv(a.sbuf, a.scounts[0], MPI_BYTE, a.rbuf, a.rcounts, a.rdispls,
                          MPI_BYTE, root, comm);
}

int bcast_l2l(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
              MPI_Request *req) {
  Intra in;
  if (!in.open(comm) || root < 0 || root >= in.size) return kFallback;
  if (!l2l::coll_block_may_fit(count, type)) return kFallback;
  const bool at_root = in.rank == root;
  std::vector<l2l::CollBlock> sb, rb{one_block(at_root ? MPI_PROC_NULL : root, buf, count, type)};
  if (at_root)
    for (int i = 0; i < in.size; ++i)
      sb.push_back(one_block(i == root ? MPI_PROC_NULL : i, buf, count, type));
  return l2l::exchange(
      comm, in.size, in.rank, l2l::CollShape::uniform, sb, rb,
      [&](const l2l::WireArgs &a) { return scatter_wire(a, false, root, comm); }, true, req);
}

int gather_l2l(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               bool v, const int *rcounts, const int *displs, MPI_Datatype rtype, int root,
               MPI_Comm comm, MPI_Request *req) {
  Intra in;
  if (!in.open(comm) || root < 0 || root >= in.size) return kFallback;
  const bool at_root = in.rank == root;
  const bool in_place = at_root && sbuf == MPI_IN_PLACE;
  if (v && at_root && (!rcounts || !displs)) return kFallback;
  if (!v && !(in_place ? l2l::coll_block_may_fit(rcount, rtype)
                       : l2l::coll_block_may_fit(scount, stype)))
    return kFallback;
  std::vector<l2l::CollBlock> sb{one_block(in_place ? MPI_PROC_NULL : root, sbuf, scount, stype)},
      rb;
  if (at_root) {
    if (!l2l_blocks(make_side(rbuf, in.size, v ? Variant::v : Variant::uniform, rcount,
                              rcounts, displs, nullptr, rtype, nullptr), &rb))
      return kFallback;
    if (in_place) rb[(size_t)root].peer = MPI_PROC_NULL;
  }
  return l2l::exchange(
      comm, in.size, in.rank, v ? l2l::CollShape::v : l2l::CollShape::uniform, sb, rb,
      [&](const l2l::WireArgs &a) { return gather_wire(a, v, root, comm); }, false, req);
}

int scatter_l2l(const void *sbuf, int scount, bool v, const int *scounts, const int *displs,
                MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
                MPI_Comm comm, MPI_Request *req) {
  Intra in;
  if (!in.open(comm) || root < 0 || root >= in.size) return kFallback;
  const bool at_root = in.rank == root;
  const bool in_place = at_root && rbuf == MPI_IN_PLACE;
  if (v && at_root && (!scounts || !displs)) return kFallback;
  if (!v && !(in_place ? l2l::coll_block_may_fit(scount, stype)
                       : l2l::coll_block_may_fit(rcount, rtype)))
    return kFallback;
  std::vector<l2l::CollBlock> sb, rb{one_block(in_place ? MPI_PROC_NULL : root, rbuf, rcount, rtype)};
  if (at_root) {
    if (!l2l_blocks(make_side(sbuf, in.size, v ? Variant::v : Variant::uniform, scount,
                              scounts, displs, nullptr, stype, nullptr), &sb))
      return kFallback;
    if (in_place) sb[(size_t)root].peer = MPI_PROC_NULL;
  }
  return l2l::exchange(
      comm, in.size, in.rank, v ? l2l::CollShape::v : l2l::CollShape::uniform, sb, rb,
      [&](const l2l::WireArgs &a) { return scatter_wire(a, v, root, comm); }, false, req);
}

int bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
          MPI_Request *req) {
  auto sys = [&](void *b, int c, MPI_Datatype t) {
    return req ? PMPI_Ibcast(b, c, t, root, comm, req) : PMPI_Bcast(b, c, t, root, comm);
  };
  // Loom-to-Loom first, contiguous types too: every rank must take the
  // same path, whatever its own types are.
  if (l2l::coll_possible(comm)) {
    int rc = bcast_l2l(buf, count, type, root, comm, req);
    if (rc != kFallback) return rc;
  }
  if (known_pass(type)) return sys(buf, count, type);
  Intra in;
  if (!in.open(comm) || root < 0 || root >= in.size) return sys(buf, count, type);
  SideSpec one, none;
  one.buf = buf;
  one.n = 1;
  one.count = count;
  one.type = type;
  const bool at_root = in.rank == root;
  Call call(comm, req);
  int rc = at_root ? call.plan(one, none) : call.plan(none, one);
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  if (!call.staged() || !call.start()) return sys(buf, count, type);
  const Staged &x = at_root ? call.send() : call.recv();
  return call.finish(sys(x.buf(buf), count, x.type(type)));
}

// Gather and Gatherv: one send block, and at the root one receive block per
// rank (uniform, or per-rank counts and displacements when rcounts is set).
int gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
           bool v, const int *rcounts, const int *displs, MPI_Datatype rtype, int root,
           MPI_Comm comm, MPI_Request *req) {
  auto sys = [&](const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                 const int *rcs, const int *ds, MPI_Datatype rt) {
    if (v)
      return req ? PMPI_Igatherv(sb, sc, st, rb, rcs, ds, rt, root, comm, req)
                 : PMPI_Gatherv(sb, sc, st, rb, rcs, ds, rt, root, comm);
    return req ? PMPI_Igather(sb, sc, st, rb, rc, rt, root, comm, req)
               : PMPI_Gather(sb, sc, st, rb, rc, rt, root, comm);
  };
  auto unchanged = [&] {
    return sys(sbuf, scount, stype, rbuf, rcount, rcounts, displs, rtype);
  };
  if (l2l::coll_possible(comm)) {
    int rc = gather_l2l(sbuf, scount, stype, rbuf, rcount, v, rcounts, displs, rtype, root,
                        comm, req);
    if (rc != kFallback) return rc;
  }
  if ((sbuf == MPI_IN_PLACE || known_pass(stype)) && known_pass(rtype)) return unchanged();
  Intra in;
  if (!in.open(comm) || root < 0 || root >= in.size) return unchanged();
  const bool at_root = in.rank == root;
  const bool in_place = at_root && sbuf == MPI_IN_PLACE;
  if (v && at_root && (!rcounts || !displs)) return unchanged();
  SideSpec s, r;
  if (!in_place) {
    s.buf = sbuf;
    s.n = 1;
    s.count = scount;
    s.type = stype;
  }
  if (at_root) {
    r.buf = rbuf;
    r.n = in.size;
    r.count = rcount;
    r.counts = rcounts;
    r.displs = displs;
    r.type = rtype;
  }
  Call call(comm, req);
  int rc = call.plan(s, r);
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  // MPI_IN_PLACE: the root's block is already where it belongs.
  if (in_place && call.recv().on) call.recv().blocks[(size_t)root].skip = true;
  if (!call.staged() || !call.start()) return unchanged();
  const Staged &S = call.send();
  Staged &R = call.recv();
  if (R.on && v) R.make_wire(false, false);
  return call.finish(sys(S.buf(sbuf), scount, S.type(stype), R.buf(rbuf),
                         rcount, R.counts(rcounts), R.displs(displs),
                         R.type(rtype)));
}

// Scatter and Scatterv: at the root one send block per rank, and one
// receive block.
int scatter(const void *sbuf, int scount, bool v, const int *scounts, const int *displs,
            MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
            MPI_Comm comm, MPI_Request *req) {
  auto sys = [&](const void *sb, int sc, const int *scs, const int *ds, MPI_Datatype st,
                 void *rb, int rc, MPI_Datatype rt) {
    if (v)
      return req ? PMPI_Iscatterv(sb, scs, ds, st, rb, rc, rt, root, comm, req)
                 : PMPI_Scatterv(sb, scs, ds, st, rb, rc, rt, root, comm);
    return req ? PMPI_Iscatter(sb, sc, st, rb, rc, rt, root, comm, req)
               : PMPI_Scatter(sb, sc, st, rb, rc, rt, root, comm);
  };
  auto unchanged = [&] {
    return sys(sbuf, scount, scounts, displs, stype, rbuf, rcount, rtype);
  };
  if (l2l::coll_possible(comm)) {
    int rc = scatter_l2l(sbuf, scount, v, scounts, displs, stype, rbuf, rcount, rtype, root,
                         comm, req);
    if (rc != kFallback) return rc;
  }
  if (known_pass(stype) && (rbuf == MPI_IN_PLACE || known_pass(rtype))) return unchanged();
  Intra in;
  if (!in.open(comm) || root < 0 || root >= in.size) return unchanged();
  const bool at_root = in.rank == root;
  const bool in_place = at_root && rbuf == MPI_IN_PLACE;
  if (v && at_root && (!scounts || !displs)) return unchanged();
  SideSpec s, r;
  if (at_root) {
    s.buf = sbuf;
    s.n = in.size;
    s.count = scount;
    s.counts = scounts;
    s.displs = displs;
    s.type = stype;
  }
  if (!in_place) {
    r.buf = rbuf;
    r.n = 1;
    r.count = rcount;
    r.type = rtype;
  }
  Call call(comm, req);
  int rc = call.plan(s, r);
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  // MPI_IN_PLACE: the root's own block stays where it is; never packed.
  if (in_place && call.send().on) call.send().blocks[(size_t)root].skip = true;
  if (!call.staged() || !call.start()) return unchanged();
  Staged &S = call.send();
  const Staged &R = call.recv();
  if (S.on && v) S.make_wire(false, false);
  return call.finish(sys(S.buf(sbuf), scount, S.counts(scounts), S.displs(displs),
                         S.type(stype), R.buf(rbuf), rcount, R.type(rtype)));
}

}  // namespace

LOOM_MPI_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root,
                              MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return bcast(buf, count, type, root, comm, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root,
                               MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req) return PMPI_Ibcast(buf, count, type, root, comm, req);
    return bcast(buf, count, type, root, comm, req);
  });
}

LOOM_MPI_EXPORT int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                               int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return gather(sbuf, scount, stype, rbuf, rcount, false, nullptr, nullptr, rtype, root, comm,
                  nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Igather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                                MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req) return PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
    return gather(sbuf, scount, stype, rbuf, rcount, false, nullptr, nullptr, rtype, root, comm, req);
  });
}

LOOM_MPI_EXPORT int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                const int *rcounts, const int *displs, MPI_Datatype rtype,
                                int root, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return gather(sbuf, scount, stype, rbuf, 0, true, rcounts, displs, rtype,
                  root, comm, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype,
                                 void *rbuf, const int *rcounts, const int *displs,
                                 MPI_Datatype rtype, int root, MPI_Comm comm,
                                 MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req)
      return PMPI_Igatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req);
    return gather(sbuf, scount, stype, rbuf, 0, true, rcounts, displs, rtype,
                  root, comm, req);
  });
}

LOOM_MPI_EXPORT int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return scatter(sbuf, scount, false, nullptr, nullptr, stype, rbuf, rcount, rtype, root, comm,
                   nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype stype,
                                 void *rbuf, int rcount, MPI_Datatype rtype, int root,
                                 MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req) return PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
    return scatter(sbuf, scount, false, nullptr, nullptr, stype, rbuf, rcount, rtype, root, comm,
                   req);
  });
}

LOOM_MPI_EXPORT int MPI_Scatterv(const void *sbuf, const int *scounts, const int *displs,
                                 MPI_Datatype stype, void *rbuf, int rcount,
                                 MPI_Datatype rtype, int root, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return scatter(sbuf, 0, true, scounts, displs, stype, rbuf, rcount, rtype,
                   root, comm, nullptr);
  });
}

LOOM_MPI_EXPORT int MPI_Iscatterv(const void *sbuf, const int *scounts, const int *displs,
                                  MPI_Datatype stype, void *rbuf, int rcount,
                                  MPI_Datatype rtype, int root, MPI_Comm comm,
                                  MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req)
      return PMPI_Iscatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm,
                            req);
    return scatter(sbuf, 0, true, scounts, displs, stype, rbuf, rcount, rtype,
                   root, comm, req);
  });
}

#if LOOM_MPI_HAVE_LARGE_COUNT
// The large-count forms with one count a side (large_count.hpp).
LOOM_MPI_EXPORT int MPI_Bcast_c(void *buf, MPI_Count count, MPI_Datatype type, int root,
                                MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return with_int_count(comm, count, type, [&](int n, MPI_Datatype t) {
      return bcast(buf, n, t, root, comm, nullptr);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Ibcast_c(void *buf, MPI_Count count, MPI_Datatype type, int root,
                                 MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req) return PMPI_Ibcast_c(buf, count, type, root, comm, req);
    return with_int_count(comm, count, type, [&](int n, MPI_Datatype t) {
      return bcast(buf, n, t, root, comm, req);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Gather_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                                 void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
                                 MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return with_int_counts(comm, scount, stype, rcount, rtype,
                           [&](int sn, MPI_Datatype st, int rn, MPI_Datatype rt) {
      return gather(sbuf, sn, st, rbuf, rn, false, nullptr, nullptr, rt, root, comm, nullptr);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Igather_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                                  void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
                                  MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req) return PMPI_Igather_c(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
    return with_int_counts(comm, scount, stype, rcount, rtype,
                           [&](int sn, MPI_Datatype st, int rn, MPI_Datatype rt) {
      return gather(sbuf, sn, st, rbuf, rn, false, nullptr, nullptr, rt, root, comm, req);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Scatter_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                                  void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
                                  MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    return with_int_counts(comm, scount, stype, rcount, rtype,
                           [&](int sn, MPI_Datatype st, int rn, MPI_Datatype rt) {
      return scatter(sbuf, sn, false, nullptr, nullptr, st, rbuf, rn, rt, root, comm, nullptr);
    });
  });
}

LOOM_MPI_EXPORT int MPI_Iscatter_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                                   void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
                                   MPI_Comm comm, MPI_Request *req) {
  return entry(comm, [&]() -> int {
    if (!req) return PMPI_Iscatter_c(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
    return with_int_counts(comm, scount, stype, rcount, rtype,
                           [&](int sn, MPI_Datatype st, int rn, MPI_Datatype rt) {
      return scatter(sbuf, sn, false, nullptr, nullptr, st, rbuf, rn, rt, root, comm, req);
    });
  });
}

// The v forms, blocking: their arrays as ints where every entry fits (only
// the root's are read), else the system's own _c call.  The nonblocking v
// forms stay the system's: a converted copy would have to outlive the call.
LOOM_MPI_EXPORT int MPI_Gatherv_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                                  void *rbuf, const MPI_Count *rcounts, const MPI_Aint *displs,
                                  MPI_Datatype rtype, int root, MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    const int n = group_blocks(comm);
    int me = -1;
    if (n > 0) PMPI_Comm_rank(comm, &me);
    IntArray rc, ds;
    if (n > 0 && scount <= INT_MAX &&
        (me != root || (rc.from(rcounts, n) && ds.from(displs, n))))
      return gather(sbuf, (int)scount, stype, rbuf, 0, true, rc.data(), ds.data(), rtype, root,
                    comm, nullptr);
    return PMPI_Gatherv_c(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
  });
}

LOOM_MPI_EXPORT int MPI_Scatterv_c(const void *sbuf, const MPI_Count *scounts,
                                   const MPI_Aint *displs, MPI_Datatype stype, void *rbuf,
                                   MPI_Count rcount, MPI_Datatype rtype, int root,
                                   MPI_Comm comm) {
  return entry(comm, [&]() -> int {
    const int n = group_blocks(comm);
    int me = -1;
    if (n > 0) PMPI_Comm_rank(comm, &me);
    IntArray sc, ds;
    if (n > 0 && rcount <= INT_MAX &&
        (me != root || (sc.from(scounts, n) && ds.from(displs, n))))
      return scatter(sbuf, 0, true, sc.data(), ds.data(), stype, rbuf, (int)rcount, rtype, root,
                     comm, nullptr);
    return PMPI_Scatterv_c(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
  });
}
#endif
