// The collective-test harness (see coll_test.hpp).
#include "coll_test.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

using namespace loomtest;

namespace colltest {

#define COLL_FNS(P)                                                                   \
  {P##Bcast, P##Ibcast, P##Gather, P##Igather, P##Gatherv, P##Igatherv, P##Scatter,    \
   P##Iscatter, P##Scatterv, P##Iscatterv, P##Allgather, P##Iallgather, P##Allgatherv, \
   P##Iallgatherv, P##Alltoall, P##Ialltoall, P##Alltoallv, P##Ialltoallv,             \
   P##Alltoallw, P##Ialltoallw, P##Neighbor_allgather, P##Ineighbor_allgather,        \
   P##Neighbor_allgatherv, P##Ineighbor_allgatherv, P##Neighbor_alltoall,             \
   P##Ineighbor_alltoall, P##Neighbor_alltoallv, P##Ineighbor_alltoallv,              \
   P##Neighbor_alltoallw, P##Ineighbor_alltoallw}
const Fns kLoom = COLL_FNS(MPI_);
#undef COLL_FNS

namespace {

#if defined(MPICH)
// MPICH 4.0.2's (I)Neighbor_alltoallw loses the counts where a process's
// in- and out-degree differ (pmodels/mpich#6233; the drop-in routes around
// it the same way): the reference uses the large-count form, which is right.
void degrees(MPI_Comm c, int *in, int *out) {
  int kind, n, w;
  PMPI_Topo_test(c, &kind);
  if (kind == MPI_DIST_GRAPH) {
    PMPI_Dist_graph_neighbors_count(c, in, out, &w);
  } else if (kind == MPI_CART) {
    PMPI_Cartdim_get(c, &n);
    *in = *out = 2 * n;
  } else {
    int r;
    PMPI_Comm_rank(c, &r);
    PMPI_Graph_neighbors_count(c, r, &n);
    *in = *out = n;
  }
}

std::vector<MPI_Count> wide(const int *v, int n) {
  std::vector<MPI_Count> w((size_t)n + 1);
  for (int i = 0; i < n; ++i) w[(size_t)i] = v[i];
  return w;
}

int sys_nalltoallw(const void *sb, const int *sc, const MPI_Aint *sd, const MPI_Datatype *st,
                   void *rb, const int *rc, const MPI_Aint *rd, const MPI_Datatype *rt,
                   MPI_Comm c) {
  int in, out;
  degrees(c, &in, &out);
  return PMPI_Neighbor_alltoallw_c(sb, wide(sc, out).data(), sd, st, rb, wide(rc, in).data(),
                                   rd, rt, c);
}

int sys_inalltoallw(const void *sb, const int *sc, const MPI_Aint *sd,
                    const MPI_Datatype *st, void *rb, const int *rc, const MPI_Aint *rd,
                    const MPI_Datatype *rt, MPI_Comm c, MPI_Request *q) {
  int in, out;
  degrees(c, &in, &out);
  return PMPI_Ineighbor_alltoallw_c(sb, wide(sc, out).data(), sd, st, rb,
                                    wide(rc, in).data(), rd, rt, c, q);
}
#endif

Fns system_fns() {
  Fns f = {PMPI_Bcast, PMPI_Ibcast, PMPI_Gather, PMPI_Igather, PMPI_Gatherv,
           PMPI_Igatherv, PMPI_Scatter, PMPI_Iscatter, PMPI_Scatterv, PMPI_Iscatterv,
           PMPI_Allgather, PMPI_Iallgather, PMPI_Allgatherv, PMPI_Iallgatherv,
           PMPI_Alltoall, PMPI_Ialltoall, PMPI_Alltoallv, PMPI_Ialltoallv,
           PMPI_Alltoallw, PMPI_Ialltoallw, PMPI_Neighbor_allgather,
           PMPI_Ineighbor_allgather, PMPI_Neighbor_allgatherv, PMPI_Ineighbor_allgatherv,
           PMPI_Neighbor_alltoall, PMPI_Ineighbor_alltoall, PMPI_Neighbor_alltoallv,
           PMPI_Ineighbor_alltoallv, PMPI_Neighbor_alltoallw, PMPI_Ineighbor_alltoallw};
#if defined(MPICH)
  f.nalltoallw = sys_nalltoallw;
  f.inalltoallw = sys_inalltoallw;
#endif
  return f;
}

}  // namespace

const Fns kSystem = system_fns();

std::string Path::name() const {
  static const char *comp[] = {"Wait",    "Test",    "Waitall", "Waitany",
                               "Waitsome", "Testall", "Testany", "Testsome",
                               "Request_get_status"};
  std::string s = loom ? "loom" : "system";
  if (nonblocking) s += std::string(" nonblocking/") + comp[completion % 9];
  return s;
}

namespace {

// Completes req through the drop-in's completion call number `how`.
int complete(MPI_Request *req, int how) {
  int flag = 0, idx = -1, n = 0, rc = MPI_SUCCESS;
  // Status memory as a program may hand it over: never initialized.  The
  // system need not write the status of a collective request (MPICH 4.0.2's
  // Request_get_status does not), so nothing may be read from it but what
  // the call itself sets.
  MPI_Status st;
  std::memset(&st, 0xff, sizeof st);
  switch (how % 9) {
    case 0: return MPI_Wait(req, MPI_STATUS_IGNORE);
    case 1:
      while (!flag && rc == MPI_SUCCESS) rc = MPI_Test(req, &flag, &st);
      return rc;
    case 2: return MPI_Waitall(1, req, MPI_STATUSES_IGNORE);
    case 3: return MPI_Waitany(1, req, &idx, &st);
    case 4: return MPI_Waitsome(1, req, &n, &idx, MPI_STATUSES_IGNORE);
    case 5:
      while (!flag && rc == MPI_SUCCESS) rc = MPI_Testall(1, req, &flag, MPI_STATUSES_IGNORE);
      return rc;
    case 6:
      while (!flag && rc == MPI_SUCCESS) rc = MPI_Testany(1, req, &idx, &flag, &st);
      return rc;
    case 7:
      while (n == 0 && rc == MPI_SUCCESS) rc = MPI_Testsome(1, req, &n, &idx, MPI_STATUSES_IGNORE);
      return rc;
    default:
      // Get_status observes completion first (the data must be there
      // already), then Wait releases the request.
      while (!flag && rc == MPI_SUCCESS) rc = MPI_Request_get_status(*req, &flag, &st);
      if (rc == MPI_SUCCESS) rc = MPI_Wait(req, MPI_STATUS_IGNORE);
      return rc;
  }
}

}  // namespace

int run(const Path &p, const std::function<int(const Fns &)> &blocking,
        const std::function<int(const Fns &, MPI_Request *)> &nonblocking) {
  const Fns &f = p.loom ? kLoom : kSystem;
  if (!p.nonblocking) return blocking(f);
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = nonblocking(f, &req);
  if (rc != MPI_SUCCESS) return rc;
  if (!p.loom) return PMPI_Wait(&req, MPI_STATUS_IGNORE);
  rc = complete(&req, p.completion);
  if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) return MPI_ERR_REQUEST;
  return rc;
}

// ---------------------------------------------------------------------------

void TType::span(int64_t count, int64_t *lo, int64_t *hi) const {
  reference_span(L, count, lo, hi);
  if (count <= 0) return;
  MPI_Aint lb, e, tlb, text;
  MPI_Type_get_extent(T, &lb, &e);
  MPI_Type_get_true_extent(T, &tlb, &text);
  for (int64_t i = 0; i < count; ++i) {
    *lo = std::min<int64_t>(*lo, i * e + tlb);
    *hi = std::max<int64_t>(*hi, i * e + tlb + text);
  }
}

bool TType::overlaps(int64_t count) const { return reference_overlaps(L, count); }

TType::~TType() { release(mt); }

namespace {

bool has_prim(const TypeSpec &t, bool (*pred)(loom_prim)) {
  if (t.kind == Kind::Prim) return pred(t.prim);
  if (t.child && has_prim(*t.child, pred)) return true;
  for (const auto &c : t.types)
    if (has_prim(*c, pred)) return true;
  return false;
}

// MPICH 4.0.2 moves long double with 10-byte x87 moves in non-contiguous
// types, leaving the 6 pad bytes unwritten (see tests/mpi/differential.cpp):
// its results would differ from Loom's in those bytes.
bool long_double(loom_prim p) {
  return p == LOOM_LONG_DOUBLE || p == LOOM_C_LONG_DOUBLE_COMPLEX ||
         p == LOOM_LONG_DOUBLE_INT;
}

// Collects the lengths of the primitive pieces a type moves.
void piece_sizes(const TypeSpec &t, std::vector<int64_t> *out) {
  if (t.kind == Kind::Prim) {
    for (const auto &p : prim_info(t.prim).pieces) out->push_back(p.second);
    return;
  }
  if (t.child) piece_sizes(*t.child, out);
  for (const auto &c : t.types) piece_sizes(*c, out);
}

// MPICH 4.0.2 cannot receive a byte stream into a derived type when the
// stream arrives in chunks (messages beyond its shared-memory eager cell,
// about 8 KiB) that split a primitive element: MPI_ERR_TRUNCATE, a hang,
// or wrong bytes.  A stream from MPI_Send of the same type is chunked at
// element boundaries, so only mixed-type transfers meet it, and its own
// collective algorithms make such transfers internally (packed temporary
// buffers).  Elements of one size start at multiples of that size in the
// stream, so only types mixing primitive sizes are at risk: those stay
// small enough on MPICH that no message is chunked (3 instances per block,
// at most 4 ranks: 6000 bytes).  Found here, e.g. hvector(4,2,-792,
// struct([3,11],[-39,59],[short,contig(6,float)])): 4 instances sent as
// MPI_BYTE cannot be received as the type.
bool mpich_chunk_risk(const TypeSpec &t, int64_t size) {
  std::vector<int64_t> v;
  piece_sizes(t, &v);
  for (int64_t x : v)
    if (x != v.front()) return size * 3 * 4 > 6000;
  return false;
}

}  // namespace

std::unique_ptr<TType> draw_type(uint64_t seed) {
  std::mt19937_64 rng(seed);
  GenOptions go;
  go.zero_subsizes = std::strcmp(mpi_flavor(), "mpich") == 0;
  TypeSpecPtr spec = random_spec(rng, 1 + (int)(seed % 4), go);
  if (go.zero_subsizes && has_prim(*spec, long_double)) return nullptr;
  ToMpiOptions to;
  to.rng = &rng;
  auto t = std::make_unique<TType>();
  t->mt = to_mpi(spec, to);
  // Where the system is wrong it cannot be the reference.
  if (t->mt.type == MPI_DATATYPE_NULL || t->mt.ompi_negbyte || t->mt.empty_member ||
      t->mt.other_differs)
    return nullptr;
  t->L = reference_layout(*t->mt.reconciled);
  if (t->L.size <= 0 || t->L.extent() <= 0) return nullptr;
  if (go.zero_subsizes && mpich_chunk_risk(*spec, t->L.size)) return nullptr;
  MPI_Type_commit(&t->mt.type);
  t->T = t->mt.type;
  t->ext = t->L.extent();
  t->size = t->L.size;
  MPI_Count sz;
  MPI_Aint lb, e;
  MPI_Type_size_x(t->T, &sz);
  MPI_Type_get_extent(t->T, &lb, &e);
  if (sz != t->size || e != t->ext) return nullptr;
  t->desc = describe(*spec);
  return t;
}

void Region::add(int64_t lo2, int64_t hi2) {
  if (lo2 >= hi2) return;
  if (lo == hi) {
    lo = lo2;
    hi = hi2;
    return;
  }
  lo = std::min(lo, lo2);
  hi = std::max(hi, hi2);
}

namespace {
int64_t ceil_div(int64_t a, int64_t b) {  // b > 0
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}
}  // namespace

std::vector<std::pair<int64_t, int64_t>> block_spans(const TType &t,
                                                      const std::vector<int> &counts,
                                                      const std::vector<bool> &bytes) {
  std::vector<std::pair<int64_t, int64_t>> v(counts.size());
  for (size_t k = 0; k < counts.size(); ++k) {
    if (k < bytes.size() && bytes[k])
      v[k] = {0, counts[k] * t.size};
    else
      t.span(counts[k], &v[k].first, &v[k].second);
  }
  return v;
}

std::vector<int64_t> layout_blocks(const std::vector<std::pair<int64_t, int64_t>> &spans,
                                   int64_t unit, std::mt19937_64 &rng, Region *reg) {
  const size_t n = spans.size();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<int64_t> d(n, 0);
  int64_t cur = 0;
  for (size_t k : order) {
    const int64_t lo = spans[k].first, hi = spans[k].second;
    if (lo == hi) {  // nothing there: any displacement will do
      d[k] = (int64_t)(rng() % 5);
      continue;
    }
    int64_t gap = (int64_t)(rng() % 3) * (unit == 1 ? 3 : 1);
    d[k] = ceil_div(cur - lo, unit) + gap;
    cur = d[k] * unit + hi;
    reg->add(d[k] * unit + lo, d[k] * unit + hi);
  }
  return d;
}

int pair_count(uint64_t seed, int from, int to) {
  uint64_t h = seed * 0x9E3779B97F4A7C15ull + (uint64_t)from * 0xBF58476D1CE4E5B9ull +
               (uint64_t)to * 0x94D049BB133111EBull;
  h ^= h >> 31;
  h *= 0xD6E8FEB86677C1CBull;
  h ^= h >> 29;
  return h % 8 == 0 ? 0 : (int)(1 + h % 3);
}

// ---------------------------------------------------------------------------

namespace {
constexpr int64_t kMargin = 24;  // compared bytes around the blocks
}

long &system_disagreements() {
  static long n = 0;
  return n;
}

void Compare::operator()(
    const Path &test,
    const std::function<int(const Path &, unsigned char *, unsigned char *)> &body) {
  const size_t ns = (size_t)(send.hi - send.lo + 2 * kMargin);
  const size_t nr = (size_t)(recv.hi - recv.lo + 2 * kMargin);
  Guarded s_ref(ns, fill_seed % 64), r_ref(nr, (fill_seed >> 6) % 64);
  Guarded s_test(ns, fill_seed % 64), r_test(nr, (fill_seed >> 6) % 64);
  s_ref.fill(fill_seed);
  s_test.fill(fill_seed);
  r_ref.fill(fill_seed ^ 0x5555);
  r_test.fill(fill_seed ^ 0x5555);
  const std::vector<unsigned char> s_init = s_ref.contents();
  auto sorg = [&](Guarded &g) { return g.data() + kMargin - send.lo; };
  auto rorg = [&](Guarded &g) { return g.data() + kMargin - recv.lo; };

  // The reference makes the same kind of call (blocking or not): the system
  // may match repeated edges of a topology differently in its blocking and
  // nonblocking algorithms (Open MPI 4.1.4 does, for a periodic dimension
  // of size 2 or 1).
  Path sys = test;
  sys.loom = false;
  static const bool trace = std::getenv("LOOM_TEST_TRACE") != nullptr;
  if (trace) std::fprintf(stderr, "%s [%s]\n", what.c_str(), test.name().c_str());
  int rc_ref = body(sys, sorg(s_ref), rorg(r_ref));
  int rc_test = body(test, sorg(s_test), rorg(r_test));
  int rank;
  MPI_Comm_rank(comm, &rank);
  const char *w = what.c_str();
  const std::string pn = test.name();
  EXPECT_MSG(rc_ref == MPI_SUCCESS, "rank %d %s: reference rc %d", rank, w, rc_ref);
  EXPECT_MSG(rc_test == MPI_SUCCESS, "rank %d %s [%s]: rc %d", rank, w, pn.c_str(), rc_test);
  bool same = r_ref.contents() == r_test.contents();
  if (second_opinion) {
    // Every rank takes part in the second reference if any rank needs it.
    int differ = !same, any = 0;
    PMPI_Allreduce(&differ, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) {
      Guarded s2(ns, fill_seed % 64), r2(nr, (fill_seed >> 6) % 64);
      s2.fill(fill_seed);
      r2.fill(fill_seed ^ 0x5555);
      Path other = sys;
      other.nonblocking = !sys.nonblocking;
      body(other, sorg(s2), rorg(r2));
      if (!same && r2.contents() == r_test.contents()) {
        same = true;
        ++system_disagreements();
      }
    }
  }
  if (!same) {
    auto a = r_ref.contents(), b = r_test.contents();
    size_t i = 0, diff = 0;
    while (a[i] == b[i]) ++i;
    for (size_t j = i; j < a.size(); ++j) diff += a[j] != b[j];
    EXPECT_MSG(false, "rank %d %s [%s]: receive buffer differs from the system's at byte %ld "
               "(%zu bytes differ of %zu)",
               rank, w, pn.c_str(), (long)((int64_t)i - kMargin + recv.lo), diff, a.size());
  }
  EXPECT_MSG(s_test.contents() == s_init, "rank %d %s [%s]: send buffer modified", rank, w,
             pn.c_str());
  EXPECT_MSG(s_test.guard_error().empty() && r_test.guard_error().empty(),
             "rank %d %s [%s]: write outside the buffers", rank, w, pn.c_str());
}

}  // namespace colltest
