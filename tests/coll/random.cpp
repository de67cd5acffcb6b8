// Every intercepted collective with seeded random derived types, compared
// byte for byte (gaps and margins included) with the same collective done
// by the system alone (PMPI_*, same datatypes, identical buffers).
//
// Each trial draws one type (identically on every rank) and a mode, then
// runs every collective:
//   mode 0: every rank through the drop-in, blocking
//   mode 1: every rank through the drop-in, nonblocking, completed by one of
//           the completion calls (Wait ... Request_get_status)
//   mode 2/3: as 0/1, but one rank calls the system's PMPI_* directly (a
//           process without Loom: its peers must still match it); only
//           with LOOM_L2L=0, the declared switch for Loom processes that
//           bypass Loom (docs/protocol.md): with the protocol on, that
//           rank's peers would announce blocks to it by rendezvous
// Per call, at random: MPI_IN_PLACE where the call allows it, a random
// root, per-peer counts with zero counts, v displacements in random order
// with gaps, w blocks moved as the type on one side and as MPI_BYTE on the
// other, non-roots passing null buffers and MPI_DATATYPE_NULL for what they
// must ignore, and neighborhood collectives on periodic and non-periodic
// cartesian, graph and distributed-graph communicators.
//
// Usage: loom_coll_random [trials] [first-seed]; LOOM_TEST_TRACE=1 prints
// each type and call, LOOM_COLL_MODE=m runs every trial in mode m.
#include <cinttypes>
#include <cstdlib>
#include <cstring>

#include "coll_test.hpp"

using namespace colltest;
using namespace loomtest;

namespace {

using Body = std::function<int(const Path &, unsigned char *, unsigned char *)>;
using u8 = unsigned char;

struct Trial {
  MPI_Comm comm;
  int rank, size;
  const TType *t;
  uint64_t seed;
  Path path;
  std::mt19937_64 rng;  // the same stream on every rank: equal draws only
  int op = 0;

  int uni(int lo, int hi) { return lo + (int)(rng() % (uint64_t)(hi - lo + 1)); }
  bool coin() { return rng() & 1; }
  uint64_t fill() { return seed * 1000003u + (uint64_t)rank * 7919u + (uint64_t)op++; }
  std::string what(const char *call) const {
    return std::string(call) + " seed " + std::to_string(seed) + " type " +
           t->desc.substr(0, 200);
  }
  void compare(const char *call, Region s, Region r, const Body &body) {
    // Open MPI 4.1.4's nonblocking all-to-alls in place move wrong bytes
    // for derived types (src/mpi/compat.hpp); its blocking ones are right.
    const bool mpich = std::strcmp(mpi_flavor(), "mpich") == 0;
    const bool in_place_alltoall =
        std::strncmp(call, "Alltoall", 8) == 0 && std::strstr(call, "in place") != nullptr;
    Compare c{comm, what(call), fill(), s, r,
              mpich ? std::strncmp(call, "Neighbor", 8) != 0 : in_place_alltoall};
    c(path, body);
  }
};

Region span_region(const TType &t, int64_t count) {
  Region r;
  int64_t lo, hi;
  t.span(count, &lo, &hi);
  r.add(lo, hi);
  return r;
}

std::vector<int> to_int(const std::vector<int64_t> &v) {
  return std::vector<int>(v.begin(), v.end());
}

// ---- rooted ----------------------------------------------------------------

void bcast(Trial &tr) {
  const int root = tr.uni(0, tr.size - 1), c = tr.uni(1, 3);
  if (tr.t->overlaps(c)) return;
  MPI_Datatype T = tr.t->T;
  tr.compare("Bcast", Region(), span_region(*tr.t, c), [&](const Path &p, u8 *, u8 *r) {
    return run(p, [&](const Fns &f) { return f.bcast(r, c, T, root, tr.comm); },
               [&](const Fns &f, MPI_Request *q) { return f.ibcast(r, c, T, root, tr.comm, q); });
  });
}

void gather(Trial &tr, bool v) {
  const int root = tr.uni(0, tr.size - 1), c = tr.uni(0, 3);
  const bool in_place = tr.coin(), sloppy = tr.coin();
  const bool at_root = tr.rank == root;
  const TType &t = *tr.t;
  MPI_Datatype T = t.T;
  std::vector<int> counts(tr.size, c), displs(tr.size);
  if (v)
    for (int i = 0; i < tr.size; ++i) counts[i] = pair_count(tr.seed, i, root);
  for (int x : counts)
    if (t.overlaps(x)) return;
  Region rr;
  if (v) {
    displs = to_int(layout_blocks(block_spans(t, counts), t.ext, tr.rng, &rr));
  } else {
    if (t.overlaps((int64_t)c * tr.size)) return;
    rr = span_region(t, (int64_t)c * tr.size);
  }
  const int mine = counts[tr.rank];
  Region sr = span_region(t, mine);
  if (in_place && at_root) {
    // The root's contribution already sits in its receive block.
    sr = Region();
  }
  // Non-roots: the receive arguments are ignored; sometimes pass junk.
  const bool junk = sloppy && !at_root;
  MPI_Datatype RT = junk ? MPI_DATATYPE_NULL : T;
  const int *rc = junk ? nullptr : counts.data(), *rd = junk ? nullptr : displs.data();
  std::string name = std::string(v ? "Gatherv" : "Gather") + (in_place ? " in place" : "");
  tr.compare(name.c_str(), sr, rr, [&](const Path &p, u8 *s, u8 *r) {
    const void *sb = in_place && at_root ? MPI_IN_PLACE : s;
    u8 *rb = junk ? nullptr : r;
    if (v)
      return run(p, [&](const Fns &f) { return f.gatherv(sb, mine, T, rb, rc, rd, RT, root, tr.comm); },
                 [&](const Fns &f, MPI_Request *q) {
                   return f.igatherv(sb, mine, T, rb, rc, rd, RT, root, tr.comm, q);
                 });
    return run(p, [&](const Fns &f) { return f.gather(sb, c, T, rb, c, RT, root, tr.comm); },
               [&](const Fns &f, MPI_Request *q) {
                 return f.igather(sb, c, T, rb, c, RT, root, tr.comm, q);
               });
  });
}

void scatter(Trial &tr, bool v) {
  const int root = tr.uni(0, tr.size - 1), c = tr.uni(0, 3);
  const bool in_place = tr.coin(), sloppy = tr.coin();
  const bool at_root = tr.rank == root;
  const TType &t = *tr.t;
  MPI_Datatype T = t.T;
  std::vector<int> counts(tr.size, c), displs(tr.size);
  if (v)
    for (int i = 0; i < tr.size; ++i) counts[i] = pair_count(tr.seed, root, i);
  for (int x : counts)
    if (t.overlaps(x)) return;
  const int mine = counts[tr.rank];
  Region sr;
  if (v)
    displs = to_int(layout_blocks(block_spans(t, counts), t.ext, tr.rng, &sr));
  else
    sr = span_region(t, (int64_t)c * tr.size);
  Region rr = in_place && at_root ? Region() : span_region(t, mine);
  const bool junk = sloppy && !at_root;
  MPI_Datatype ST = junk ? MPI_DATATYPE_NULL : T;
  const int *sc = junk ? nullptr : counts.data(), *sd = junk ? nullptr : displs.data();
  std::string name = std::string(v ? "Scatterv" : "Scatter") + (in_place ? " in place" : "");
  tr.compare(name.c_str(), sr, rr, [&](const Path &p, u8 *s, u8 *r) {
    void *rb = in_place && at_root ? MPI_IN_PLACE : r;
    const u8 *sb = junk ? nullptr : s;
    if (v)
      return run(p, [&](const Fns &f) { return f.scatterv(sb, sc, sd, ST, rb, mine, T, root, tr.comm); },
                 [&](const Fns &f, MPI_Request *q) {
                   return f.iscatterv(sb, sc, sd, ST, rb, mine, T, root, tr.comm, q);
                 });
    return run(p, [&](const Fns &f) { return f.scatter(sb, c, ST, rb, c, T, root, tr.comm); },
               [&](const Fns &f, MPI_Request *q) {
                 return f.iscatter(sb, c, ST, rb, c, T, root, tr.comm, q);
               });
  });
}

// ---- all-to-all ------------------------------------------------------------

void allgather(Trial &tr, bool v) {
  const int c = tr.uni(0, 3);
  const bool in_place = tr.coin();
  const TType &t = *tr.t;
  MPI_Datatype T = t.T;
  std::vector<int> counts(tr.size, c), displs(tr.size);
  if (v)
    for (int i = 0; i < tr.size; ++i) counts[i] = pair_count(tr.seed, i, i);
  for (int x : counts)
    if (t.overlaps(x)) return;
  Region rr;
  if (v) {
    displs = to_int(layout_blocks(block_spans(t, counts), t.ext, tr.rng, &rr));
  } else {
    if (t.overlaps((int64_t)c * tr.size)) return;
    rr = span_region(t, (int64_t)c * tr.size);
  }
  const int mine = counts[tr.rank];
  Region sr = in_place ? Region() : span_region(t, mine);
  std::string name = std::string(v ? "Allgatherv" : "Allgather") + (in_place ? " in place" : "");
  tr.compare(name.c_str(), sr, rr, [&](const Path &p, u8 *s, u8 *r) {
    const void *sb = in_place ? MPI_IN_PLACE : s;
    if (v)
      return run(p, [&](const Fns &f) {
                   return f.allgatherv(sb, mine, T, r, counts.data(), displs.data(), T, tr.comm);
                 },
                 [&](const Fns &f, MPI_Request *q) {
                   return f.iallgatherv(sb, mine, T, r, counts.data(), displs.data(), T,
                                        tr.comm, q);
                 });
    return run(p, [&](const Fns &f) { return f.allgather(sb, c, T, r, c, T, tr.comm); },
               [&](const Fns &f, MPI_Request *q) {
                 return f.iallgather(sb, c, T, r, c, T, tr.comm, q);
               });
  });
}

void alltoall(Trial &tr) {
  const int c = tr.uni(0, 3);
  const bool in_place = tr.coin();
  const TType &t = *tr.t;
  MPI_Datatype T = t.T;
  if (t.overlaps((int64_t)c * tr.size)) return;
  Region sr = in_place ? Region() : span_region(t, (int64_t)c * tr.size);
  Region rr = span_region(t, (int64_t)c * tr.size);
  tr.compare(in_place ? "Alltoall in place" : "Alltoall", sr, rr,
             [&](const Path &p, u8 *s, u8 *r) {
               const void *sb = in_place ? MPI_IN_PLACE : s;
               return run(p, [&](const Fns &f) { return f.alltoall(sb, c, T, r, c, T, tr.comm); },
                          [&](const Fns &f, MPI_Request *q) {
                            return f.ialltoall(sb, c, T, r, c, T, tr.comm, q);
                          });
             });
}

// Per-peer counts for Alltoallv/w; symmetric for MPI_IN_PLACE (a rank then
// sends its receive block j to j, which must expect exactly that).
// The block to self is never empty in place: Open MPI 4.1.4's in-place
// Ialltoallv/w return at once, without taking a tag, on a process whose
// blocks are all empty, and the other processes' later nonblocking
// collectives then never match (a hang, the system's alone).
int a2a_count(const Trial &tr, bool in_place, int from, int to) {
  if (!in_place) return pair_count(tr.seed, from, to);
  const int c = pair_count(tr.seed, std::min(from, to), std::max(from, to));
  return from == to && c == 0 ? 1 : c;
}

void alltoallv(Trial &tr) {
  const bool in_place = tr.coin();
  const TType &t = *tr.t;
  MPI_Datatype T = t.T;
  std::vector<int> sc(tr.size), rc(tr.size);
  for (int j = 0; j < tr.size; ++j) {
    sc[j] = a2a_count(tr, in_place, tr.rank, j);
    rc[j] = a2a_count(tr, in_place, j, tr.rank);
  }
  // The layout draws must stay in step on every rank: draw both always.
  Region sr, rr;
  std::vector<int> sd = to_int(layout_blocks(block_spans(t, sc), t.ext, tr.rng, &sr));
  std::vector<int> rd = to_int(layout_blocks(block_spans(t, rc), t.ext, tr.rng, &rr));
  if (in_place) sr = Region();
  bool bad = false;
  for (int j = 0; j < tr.size; ++j) bad |= t.overlaps(a2a_count(tr, in_place, j, j));
  for (int i = 0; i < tr.size; ++i)
    for (int j = 0; j < tr.size; ++j) bad |= t.overlaps(a2a_count(tr, in_place, i, j));
  if (bad) return;
  tr.compare(in_place ? "Alltoallv in place" : "Alltoallv", sr, rr,
             [&](const Path &p, u8 *s, u8 *r) {
               const void *sb = in_place ? MPI_IN_PLACE : s;
               return run(p, [&](const Fns &f) {
                            return f.alltoallv(sb, sc.data(), sd.data(), T, r, rc.data(),
                                               rd.data(), T, tr.comm);
                          },
                          [&](const Fns &f, MPI_Request *q) {
                            return f.ialltoallv(sb, sc.data(), sd.data(), T, r, rc.data(),
                                                rd.data(), T, tr.comm, q);
                          });
             });
}

// Which side of block (from -> to) moves MPI_BYTE instead of the type:
// 0 neither, 1 the receiver, 2 the sender.  Both ends compute the same.
int byte_side(const Trial &tr, int from, int to) {
  return pair_count(tr.seed ^ 0xABCDEF, from, to) % 3;
}

void alltoallw(Trial &tr) {
  const bool in_place = tr.coin();
  const TType &t = *tr.t;
  const int n = tr.size;
  std::vector<int> sc(n), rc(n);
  std::vector<bool> sbytes(n), rbytes(n);
  for (int j = 0; j < n; ++j) {
    sc[j] = a2a_count(tr, in_place, tr.rank, j);
    rc[j] = a2a_count(tr, in_place, j, tr.rank);
    sbytes[j] = byte_side(tr, tr.rank, j) == 2;
    rbytes[j] = byte_side(tr, j, tr.rank) == 1;
    // MPI_IN_PLACE: the type everywhere.  MPICH 4.0.2's in-place
    // Ialltoallw sizes a peer's temporary block with another peer's type
    // (MPI_ERR_TRUNCATE when they differ in size), so the reference could
    // not do the mix.
    if (in_place) rbytes[j] = false;
  }
  Region sr, rr;
  std::vector<int> sd = to_int(layout_blocks(block_spans(t, sc, sbytes), 1, tr.rng, &sr));
  std::vector<int> rd = to_int(layout_blocks(block_spans(t, rc, rbytes), 1, tr.rng, &rr));
  if (in_place) sr = Region();
  bool bad = false;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) bad |= t.overlaps(a2a_count(tr, in_place, i, j));
  if (bad) return;
  std::vector<MPI_Datatype> st(n), rt(n);
  std::vector<int> scw(n), rcw(n);
  for (int j = 0; j < n; ++j) {
    st[j] = sbytes[j] ? MPI_BYTE : t.T;
    scw[j] = sbytes[j] ? sc[j] * (int)t.size : sc[j];
    rt[j] = rbytes[j] ? MPI_BYTE : t.T;
    rcw[j] = rbytes[j] ? rc[j] * (int)t.size : rc[j];
  }
  tr.compare(in_place ? "Alltoallw in place" : "Alltoallw", sr, rr,
             [&](const Path &p, u8 *s, u8 *r) {
               const void *sb = in_place ? MPI_IN_PLACE : s;
               return run(p, [&](const Fns &f) {
                            return f.alltoallw(sb, scw.data(), sd.data(), st.data(), r,
                                               rcw.data(), rd.data(), rt.data(), tr.comm);
                          },
                          [&](const Fns &f, MPI_Request *q) {
                            return f.ialltoallw(sb, scw.data(), sd.data(), st.data(), r,
                                                rcw.data(), rd.data(), rt.data(), tr.comm, q);
                          });
             });
}

// ---- neighborhood ----------------------------------------------------------

struct Topo {
  const char *name;
  MPI_Comm comm;
  std::vector<int> srcs, dsts;
};

std::vector<Topo> make_topologies(int rank, int size) {
  std::vector<Topo> v;
  MPI_Comm c;
  int dims1[1] = {size}, per1[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims1, per1, 0, &c);
  v.push_back({"cart 1-d periodic", c, {}, {}});
  int dims2[2] = {0, 0}, per2[2] = {0, 1};
  MPI_Dims_create(size, 2, dims2);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, per2, 0, &c);
  v.push_back({"cart 2-d, one dimension not periodic", c, {}, {}});
  // A ring as an MPI-1 graph.
  std::vector<int> index, edges;
  for (int i = 0; i < size; ++i) {
    edges.push_back((i + 1) % size);
    if (size > 2) edges.push_back((i + size - 1) % size);
    index.push_back((int)edges.size());
  }
  MPI_Graph_create(MPI_COMM_WORLD, size, index.data(), edges.data(), 0, &c);
  v.push_back({"graph ring", c, {}, {}});
  // A directed random graph with self loops and uneven degrees.
  std::vector<int> srcs, dsts;
  for (int i = 0; i < size; ++i) {
    if (pair_count(77, i, rank) % 2) srcs.push_back(i);
    if (pair_count(77, rank, i) % 2) dsts.push_back(i);
  }
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, (int)srcs.size(), srcs.data(),
                                 MPI_UNWEIGHTED, (int)dsts.size(), dsts.data(),
                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
  v.push_back({"dist graph", c, {}, {}});
  for (Topo &t : v) {
    int kind;
    MPI_Topo_test(t.comm, &kind);
    if (kind == MPI_CART) {
      int nd;
      MPI_Cartdim_get(t.comm, &nd);
      for (int d = 0; d < nd; ++d) {
        int a, b;
        MPI_Cart_shift(t.comm, d, 1, &a, &b);
        t.srcs.push_back(a);
        t.srcs.push_back(b);
      }
      t.dsts = t.srcs;
    } else if (kind == MPI_GRAPH) {
      int n;
      MPI_Graph_neighbors_count(t.comm, rank, &n);
      t.srcs.resize(n);
      MPI_Graph_neighbors(t.comm, rank, n, t.srcs.data());
      t.dsts = t.srcs;
    } else {
      t.srcs = srcs;
      t.dsts = dsts;
    }
  }
  return v;
}

// The rank of peer p of a topology (MPI_PROC_NULL: none) for pair counts.
int peer(int p) { return p == MPI_PROC_NULL ? -1 : p; }

void neighbor_allgather(Trial &tr, const Topo &tp, bool v) {
  const TType &t = *tr.t;
  MPI_Datatype T = t.T;
  const int c = tr.uni(0, 3);
  // Degrees differ between ranks: layouts draw from a stream of their own.
  std::mt19937_64 lr(tr.seed * 31 + (uint64_t)tr.rank);
  const int indeg = (int)tp.srcs.size();
  // v: every rank contributes pair_count(i, i) instances.
  std::vector<int> counts(indeg + 1, c), displs(indeg + 1);
  if (v)
    for (int k = 0; k < indeg; ++k)
      counts[k] = tp.srcs[k] == MPI_PROC_NULL ? 1 : pair_count(tr.seed, tp.srcs[k], tp.srcs[k]);
  const int mine = v ? pair_count(tr.seed, tr.rank, tr.rank) : c;
  bool bad = false;
  for (int i = 0; i < tr.size; ++i) bad |= t.overlaps(v ? pair_count(tr.seed, i, i) : c);
  if (!v) bad |= t.overlaps((int64_t)c * 8);
  if (bad) return;
  Region sr = span_region(t, mine), rr;
  if (v) {
    counts.pop_back();
    displs = to_int(layout_blocks(block_spans(t, counts), t.ext, lr, &rr));
    counts.push_back(0);
    displs.push_back(0);
  } else {
    rr = span_region(t, (int64_t)c * indeg);
  }
  std::string name = std::string(v ? "Neighbor_allgatherv " : "Neighbor_allgather ") + tp.name;
  tr.compare(name.c_str(), sr, rr, [&](const Path &p, u8 *s, u8 *r) {
    if (v)
      return run(p, [&](const Fns &f) {
                   return f.nallgatherv(s, mine, T, r, counts.data(), displs.data(), T, tp.comm);
                 },
                 [&](const Fns &f, MPI_Request *q) {
                   return f.inallgatherv(s, mine, T, r, counts.data(), displs.data(), T,
                                         tp.comm, q);
                 });
    return run(p, [&](const Fns &f) { return f.nallgather(s, c, T, r, c, T, tp.comm); },
               [&](const Fns &f, MPI_Request *q) {
                 return f.inallgather(s, c, T, r, c, T, tp.comm, q);
               });
  });
}

// Neighbor_alltoall, _v and _w (var 0, 1, 2).
void neighbor_alltoall(Trial &tr, const Topo &tp, int var) {
  const TType &t = *tr.t;
  MPI_Datatype T = t.T;
  const int c = tr.uni(0, 3);
  std::mt19937_64 lr(tr.seed * 31 + (uint64_t)tr.rank);
  const int indeg = (int)tp.srcs.size(), outdeg = (int)tp.dsts.size();
  if (t.overlaps((int64_t)c * (indeg + 1))) return;
  for (int i = -1; i < tr.size; ++i)
    for (int j = -1; j < tr.size; ++j)
      if (t.overlaps(pair_count(tr.seed, i, j))) return;
  std::vector<int> sc(outdeg, c), rc(indeg, c);
  std::vector<bool> sbytes(outdeg), rbytes(indeg);
  for (int k = 0; var > 0 && k < outdeg; ++k) {
    sc[k] = pair_count(tr.seed, tr.rank, peer(tp.dsts[k]));
    sbytes[k] = var == 2 && byte_side(tr, tr.rank, peer(tp.dsts[k])) == 2;
  }
  for (int k = 0; var > 0 && k < indeg; ++k) {
    rc[k] = pair_count(tr.seed, peer(tp.srcs[k]), tr.rank);
    rbytes[k] = var == 2 && byte_side(tr, peer(tp.srcs[k]), tr.rank) == 1;
  }
  Region sr, rr;
  std::vector<int64_t> sd, rd;
  if (var == 0) {
    sr = span_region(t, (int64_t)c * outdeg);
    rr = span_region(t, (int64_t)c * indeg);
  } else {
    const int64_t unit = var == 2 ? 1 : t.ext;
    sd = layout_blocks(block_spans(t, sc, sbytes), unit, lr, &sr);
    rd = layout_blocks(block_spans(t, rc, rbytes), unit, lr, &rr);
  }
  // Arrays one longer than the degree: never null, even for degree 0.
  sd.resize(outdeg + 1);
  rd.resize(indeg + 1);
  sc.resize(outdeg + 1);
  rc.resize(indeg + 1);
  std::vector<int> sdi = to_int(sd), rdi = to_int(rd);
  std::vector<MPI_Aint> sda(sd.begin(), sd.end()), rda(rd.begin(), rd.end());
  std::vector<MPI_Datatype> st(outdeg + 1, T), rt(indeg + 1, T);
  std::vector<int> scw = sc, rcw = rc;
  for (int k = 0; k < outdeg; ++k) {
    st[k] = sbytes[k] ? MPI_BYTE : T;
    if (sbytes[k]) scw[k] *= (int)t.size;
  }
  for (int k = 0; k < indeg; ++k) {
    rt[k] = rbytes[k] ? MPI_BYTE : T;
    if (rbytes[k]) rcw[k] *= (int)t.size;
  }
  static const char *names[] = {"Neighbor_alltoall ", "Neighbor_alltoallv ",
                                "Neighbor_alltoallw "};
  std::string name = std::string(names[var]) + tp.name;
  tr.compare(name.c_str(), sr, rr, [&](const Path &p, u8 *s, u8 *r) {
    switch (var) {
      case 0:
        return run(p, [&](const Fns &f) { return f.nalltoall(s, c, T, r, c, T, tp.comm); },
                   [&](const Fns &f, MPI_Request *q) {
                     return f.inalltoall(s, c, T, r, c, T, tp.comm, q);
                   });
      case 1:
        return run(p, [&](const Fns &f) {
                     return f.nalltoallv(s, sc.data(), sdi.data(), T, r, rc.data(), rdi.data(),
                                         T, tp.comm);
                   },
                   [&](const Fns &f, MPI_Request *q) {
                     return f.inalltoallv(s, sc.data(), sdi.data(), T, r, rc.data(),
                                          rdi.data(), T, tp.comm, q);
                   });
      default:
        return run(p, [&](const Fns &f) {
                     return f.nalltoallw(s, scw.data(), sda.data(), st.data(), r, rcw.data(),
                                         rda.data(), rt.data(), tp.comm);
                   },
                   [&](const Fns &f, MPI_Request *q) {
                     return f.inalltoallw(s, scw.data(), sda.data(), st.data(), r,
                                          rcw.data(), rda.data(), rt.data(), tp.comm, q);
                   });
    }
  });
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!dropin_active()) {
    if (rank == 0) std::printf("FAIL: MPI_Bcast is not the drop-in's\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  // A constructor the system refuses (draw_type skips the tree) reports on
  // these communicators' handlers; collectives' errors are checked as codes.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const long trials = argc > 1 ? std::atol(argv[1]) : 100;
  const uint64_t first = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  const bool trace = std::getenv("LOOM_TEST_TRACE") != nullptr;
  // LOOM_COLL_MODE=0..3 replays every trial in one mode (debugging).
  const char *fm = std::getenv("LOOM_COLL_MODE");
  const int force_mode = fm ? std::atoi(fm) : -1;
  const char *l2l_env = std::getenv("LOOM_L2L");
  const bool l2l = !l2l_env || std::strcmp(l2l_env, "0") != 0;
  std::vector<Topo> topos = make_topologies(rank, size);
  long used = 0, modes[4] = {0, 0, 0, 0};
  for (long k = 0; k < trials; ++k) {
    const uint64_t seed = first + (uint64_t)k;
    std::unique_ptr<TType> t = draw_type(seed);
    if (!t) continue;
    ++used;
    if (trace && rank == 0)
      std::fprintf(stderr, "seed %" PRIu64 ": %s\n", seed, t->desc.c_str());
    Trial tr{MPI_COMM_WORLD, rank, size, t.get(), seed, Path(), std::mt19937_64(seed ^ 0xC011), 0};
    int mode = force_mode >= 0 ? force_mode : (int)(seed % 4);
    if (l2l && mode >= 2) mode -= 2;
    ++modes[mode];
    tr.path.nonblocking = mode % 2 == 1;
    tr.path.completion = (int)(seed / 4 % 9);
    tr.path.loom = !(mode >= 2 && rank == (int)(seed / 4 % (uint64_t)size));
    bcast(tr);
    gather(tr, false);
    gather(tr, true);
    scatter(tr, false);
    scatter(tr, true);
    allgather(tr, false);
    allgather(tr, true);
    alltoall(tr);
    alltoallv(tr);
    alltoallw(tr);
    for (const Topo &tp : topos) {
      tr.comm = tp.comm;
      neighbor_allgather(tr, tp, false);
      neighbor_allgather(tr, tp, true);
      for (int var = 0; var < 3; ++var) neighbor_alltoall(tr, tp, var);
    }
    if (failures() > 25) break;
  }
  for (Topo &tp : topos) MPI_Comm_free(&tp.comm);
  long dis = 0, dis_all = 0;
  dis = system_disagreements();
  MPI_Allreduce(&dis, &dis_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%ld trials, %ld types used (modes: %ld blocking, %ld nonblocking, "
                "%ld mixed blocking, %ld mixed nonblocking); %ld rank-results matched "
                "only the system's other kind of call\n",
                trials, used, modes[0], modes[1], modes[2], modes[3], dis_all);
  int f = failures(), all = 0;
  MPI_Allreduce(&f, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  failures() = all;
  return rank == 0 ? finish("loom_coll_random") : (MPI_Finalize(), all ? 1 : 0);
}
