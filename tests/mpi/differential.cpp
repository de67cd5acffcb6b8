// (a) Differential test of the drop-in against the system MPI and the
// reference interpreter.
//
// For each seeded random type tree: build it with the system constructors
// (children freed or committed at random), commit it through the drop-in,
// then pack and unpack with the drop-in's MPI_Pack/MPI_Unpack and compare
// bytes, positions and canaries: whole messages, running positions (two
// calls), short buffers (MPI_ERR_TRUNCATE, nothing written), MPI_Pack_size,
// and MPI_BOTTOM (absolute addresses).
//
// Two oracles:
//  * the reference interpreter over the tree with the system's struct
//    bounds adopted (to_mpi.hpp): always;
//  * the system, PMPI_Pack/PMPI_Unpack: byte-identical wherever the system
//    is right.  Documented system bugs, each counted in the summary:
//    - Open MPI 4.1.4: a vector/hvector with a stride of -1 byte (e.g.
//      hvector(12,1,-1,MPI_CHAR), hvector(14,1,-1,MPI_FLOAT)) reports lb 0
//      and packs ascending addresses (+0..+11 instead of -11..0).  Loom
//      packs the standard bytes.
//    - a struct with an empty member: MPICH 4.0.2 may divide by zero
//      (SIGFPE) in MPI_Pack; Open MPI 4.1.4 counts the member in the extent
//      but packs count > 1 at another stride (see to_mpi.hpp).
//    - MPICH 4.0.2: MPI_Pack/MPI_Unpack reject MPI_BOTTOM with MPI_ERR_ARG,
//      so the drop-in's MPI_BOTTOM result is compared with its (checked)
//      result through an ordinary buffer.
//    - MPICH 4.0.2 moves MPI_LONG_DOUBLE (also inside C_LONG_DOUBLE_COMPLEX
//      and LONG_DOUBLE_INT) in non-contiguous types with 10-byte x87 moves:
//      the 6 pad bytes of each element are left unwritten in the packed
//      stream (and in memory on unpack).  Loom moves all 16 bytes.  Bytes
//      the system leaves unwritten (found by running it again over the
//      complemented prefill) are not compared with the system.
//  * types without data may get implementation-specific bounds (counted,
//    harmless: see to_mpi.hpp).
// Usage: loom_mpi_differential [trees] [first-seed]; LOOM_TEST_TRACE=1
// prints each tree before it runs.
#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <random>
#include <vector>

#include "guarded.hpp"
#include "mpi_test.hpp"
#include "to_mpi.hpp"

using namespace loomtest;

namespace {

struct Stats {
  long trees = 0, refused = 0, sys_oracle = 0, ref_only_negbyte = 0, ref_only_empty_member = 0,
       struct_reconciled = 0, bottom = 0, unpack_checked = 0, other_differs = 0,
       empty_differs = 0, sys_unwritten = 0, bounds_adopted = 0;
};

MPI_Comm g_comm;
bool g_trace = false;

// The memory one type instance set touches, as the system sees it, joined
// with the reference's: buffers cover both (plus a margin) so neither side
// can read or write outside them.
struct Span {
  int64_t lo, hi;
};

Span span_of(MPI_Datatype t, const Layout &l, int64_t count) {
  int64_t lo, hi;
  reference_span(l, count, &lo, &hi);
  MPI_Aint lb, ext, tlb, text;
  MPI_Count size;
  MPI_Type_get_extent(t, &lb, &ext);
  MPI_Type_get_true_extent(t, &tlb, &text);
  MPI_Type_size_x(t, &size);
  // True bounds of a type without data are meaningless (Open MPI reports
  // LLONG_MAX for some).
  for (int64_t i = 0; i < count && size > 0; ++i) {
    lo = std::min<int64_t>(lo, i * ext + tlb);
    hi = std::max<int64_t>(hi, i * ext + tlb + text);
  }
  return {lo - 64, hi + 64};
}

struct Buf {
  Guarded g;
  int64_t lo;
  Buf(Span s, size_t phase) : g((size_t)(s.hi - s.lo), phase), lo(s.lo) {}
  unsigned char *origin() { return g.data() - lo; }
};

std::vector<bool> differing(const std::vector<unsigned char> &a,
                            const std::vector<unsigned char> &b) {
  std::vector<bool> m(a.size());
  for (size_t i = 0; i < a.size(); ++i) m[i] = a[i] != b[i];
  return m;
}

bool same_except(const std::vector<unsigned char> &a, const std::vector<unsigned char> &b,
                 const std::vector<bool> &mask) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i] && !(i < mask.size() && mask[i])) return false;
  return true;
}

// Fills g with the complement of what fill(seed) gives.
void fill_complement(Guarded &g, uint64_t seed) {
  g.fill(seed);
  for (size_t i = 0; i < g.size(); ++i) g.data()[i] = (unsigned char)~g.data()[i];
}

// Packs again with the system over the complemented prefill: exactly the
// bytes it never writes come out different.
std::vector<bool> unwritten_by_pack(const void *origin, int64_t count, MPI_Datatype T, int total,
                                    int prefix, const Guarded &first, uint64_t fill_seed,
                                    Stats &st) {
  Guarded again((size_t)total);
  fill_complement(again, fill_seed);
  int p = prefix;
  PMPI_Pack(origin, (int)count, T, again.data(), total, &p, g_comm);
  std::vector<bool> m = differing(first.contents(), again.contents());
  for (int i = 0; i < prefix; ++i) m[(size_t)i] = false;  // before the stream: must match
  if (std::find(m.begin(), m.end(), true) != m.end()) ++st.sys_unwritten;
  return m;
}

void trial(uint64_t seed, Stats &st) {
  std::mt19937_64 rng(seed);
  auto uni = [&](int64_t a, int64_t b) {
    return std::uniform_int_distribution<int64_t>(a, b)(rng);
  };
  GenOptions go;
  go.zero_subsizes = std::strcmp(mpi_flavor(), "mpich") == 0;  // Open MPI rejects 0
  TypeSpecPtr spec = random_spec(rng, (int)uni(1, 4), go);
  if (g_trace) std::fprintf(stderr, "seed %" PRIu64 ": %s\n", seed, describe(*spec).c_str());
  ToMpiOptions to;
  to.rng = &rng;
  MpiType mt = to_mpi(spec, to);
  ++st.trees;
  if (mt.type == MPI_DATATYPE_NULL) {
    ++st.refused;
    return;
  }
  const std::string desc = describe(*spec);
  MPI_Type_commit(&mt.type);
  MPI_Datatype T = mt.type;
  if (mt.other_differs) {
    // Not a skip: the system stays an oracle, so a real disagreement fails
    // below; the note says where the system departs from the standard.
    if (++st.other_differs <= 5)
      std::printf("note: seed %" PRIu64 ": system bounds differ from the reference at %s\n",
                seed, mt.where.c_str());
  }
  st.struct_reconciled += mt.struct_differs;
  st.empty_differs += mt.empty_differs;
  st.bounds_adopted += mt.bounds_adopted;
  const bool sys = !mt.ompi_negbyte && !mt.empty_member;
  if (sys)
    ++st.sys_oracle;
  else
    ++(mt.ompi_negbyte ? st.ref_only_negbyte : st.ref_only_empty_member);

  const Layout L = reference_layout(*mt.reconciled);
  const int64_t count = uni(0, 19) == 0 ? 0 : uni(0, 1) ? 1 : uni(2, 3);
  const int64_t ext = L.extent();
  const int need = (int)(count * L.size);
  Span sp = span_of(T, L, count);
  Buf src(sp, (size_t)uni(0, 63));
  src.g.fill(seed);
  const int prefix = (int)uni(0, 7);
  const int total = prefix + need;
  auto ctx = [&](const char *what) {
    static char b[400];
    std::snprintf(b, sizeof b, "seed %" PRIu64 " count %" PRId64 " %s: %.300s", seed, count,
                  what, desc.c_str());
    return b;
  };

  // Whole message: the reference, then the system.
  Guarded o1((size_t)total);
  o1.fill(seed ^ 1);
  int p1 = prefix;
  int rc1 = MPI_Pack(src.origin(), (int)count, T, o1.data(), total, &p1, g_comm);
  EXPECT_MSG(rc1 == MPI_SUCCESS && p1 == total, "%s", ctx("pack"));
  EXPECT_MSG(o1.guard_error().empty(), "%s %s", ctx("pack"), o1.guard_error().c_str());
  auto ref = reference_pack(L, count, src.origin());
  EXPECT_MSG(std::equal(ref.begin(), ref.end(), o1.data() + prefix), "%s",
             ctx("packed bytes differ from the reference"));
  if (sys) {
    Guarded o2((size_t)total);
    o2.fill(seed ^ 1);
    int p2 = prefix;
    int rc2 = PMPI_Pack(src.origin(), (int)count, T, o2.data(), total, &p2, g_comm);
    EXPECT_MSG(rc2 == MPI_SUCCESS && p2 == total, "%s", ctx("PMPI_Pack"));
    std::vector<bool> mask = unwritten_by_pack(src.origin(), count, T, total, prefix, o2,
                                               seed ^ 1, st);
    EXPECT_MSG(same_except(o1.contents(), o2.contents(), mask), "%s",
               ctx("packed bytes differ from PMPI_Pack"));
    int s1 = -1, s2 = -2;
    MPI_Pack_size((int)count, T, g_comm, &s1);
    PMPI_Pack_size((int)count, T, g_comm, &s2);
    EXPECT_MSG(s1 == s2 && s1 >= need, "%s: %d vs %d", ctx("pack_size"), s1, s2);
  }

  // Running positions: two calls continue one stream.
  if (count >= 2) {
    int64_t c1 = uni(1, count - 1);
    Guarded o3((size_t)total);
    o3.fill(seed ^ 1);
    int p = prefix;
    int ra = MPI_Pack(src.origin(), (int)c1, T, o3.data(), total, &p, g_comm);
    int rb = MPI_Pack(src.origin() + c1 * ext, (int)(count - c1), T, o3.data(), total, &p, g_comm);
    EXPECT_MSG(ra == MPI_SUCCESS && rb == MPI_SUCCESS && p == total, "%s", ctx("split pack"));
    EXPECT_MSG(o3.contents() == o1.contents(), "%s", ctx("split pack bytes"));
  }

  // A buffer one byte short: MPI_ERR_TRUNCATE and nothing written.
  if (need > 0) {
    Guarded o4((size_t)total - 1);
    o4.fill(seed ^ 2);
    auto before = o4.contents();
    int p = prefix;
    int rc = MPI_Pack(src.origin(), (int)count, T, o4.data(), total - 1, &p, g_comm);
    EXPECT_MSG(err_class(rc) == MPI_ERR_TRUNCATE && p == prefix && o4.contents() == before &&
                   o4.guard_error().empty(),
               "%s", ctx("short pack buffer"));
  }

  // Unpack: only into layouts where each byte has one home.
  const bool injective = !reference_overlaps(L, count);
  Buf d1(sp, (size_t)uni(0, 63));
  if (injective && need > 0) {
    ++st.unpack_checked;
    d1.g.fill(seed ^ 3);
    int q1 = prefix;
    int r1 = MPI_Unpack(o1.data(), total, &q1, d1.origin(), (int)count, T, g_comm);
    EXPECT_MSG(r1 == MPI_SUCCESS && q1 == total, "%s", ctx("unpack"));
    EXPECT_MSG(d1.g.guard_error().empty(), "%s", ctx("unpack canary"));
    Buf dr(sp, 0);
    dr.g.fill(seed ^ 3);
    reference_unpack(L, count, o1.data() + prefix, dr.origin());
    EXPECT_MSG(d1.g.contents() == dr.g.contents(), "%s",
               ctx("unpacked bytes differ from the reference"));
    if (sys) {
      Buf d2(sp, 0), d2b(sp, 0);
      d2.g.fill(seed ^ 3);
      fill_complement(d2b.g, seed ^ 3);
      int q2 = prefix, qb = prefix;
      int r2 = PMPI_Unpack(o1.data(), total, &q2, d2.origin(), (int)count, T, g_comm);
      PMPI_Unpack(o1.data(), total, &qb, d2b.origin(), (int)count, T, g_comm);
      EXPECT_MSG(r2 == MPI_SUCCESS && q2 == total, "%s", ctx("PMPI_Unpack"));
      EXPECT_MSG(same_except(d1.g.contents(), d2.g.contents(),
                             differing(d2.g.contents(), d2b.g.contents())),
                 "%s", ctx("unpacked bytes differ from PMPI_Unpack"));
    }
    if (count >= 2) {
      int64_t c1 = uni(1, count - 1);
      Buf d3(sp, 7);
      d3.g.fill(seed ^ 3);
      int q = prefix;
      int ra = MPI_Unpack(o1.data(), total, &q, d3.origin(), (int)c1, T, g_comm);
      int rb = MPI_Unpack(o1.data(), total, &q, d3.origin() + c1 * ext, (int)(count - c1), T, g_comm);
      EXPECT_MSG(ra == MPI_SUCCESS && rb == MPI_SUCCESS && q == total, "%s", ctx("split unpack"));
      EXPECT_MSG(d3.g.contents() == d1.g.contents(), "%s", ctx("split unpack bytes"));
    }
    // Input one byte short: MPI_ERR_TRUNCATE, destination untouched.
    Buf d4(sp, 0);
    d4.g.fill(seed ^ 4);
    auto before = d4.g.contents();
    int q = prefix;
    int rc = MPI_Unpack(o1.data(), total - 1, &q, d4.origin(), (int)count, T, g_comm);
    EXPECT_MSG(err_class(rc) == MPI_ERR_TRUNCATE && q == prefix && d4.g.contents() == before,
               "%s", ctx("short unpack input"));
  }

  // MPI_BOTTOM: the same data through absolute displacements.
  if (need > 0 && seed % 4 == 0) {
    ++st.bottom;
    MPI_Aint addr;
    MPI_Get_address(src.origin(), &addr);
    MPI_Datatype W;
    MPI_Type_create_hindexed_block(1, 1, &addr, T, &W);
    MPI_Type_commit(&W);
    Guarded o5((size_t)total);
    o5.fill(seed ^ 1);
    int p = prefix;
    int rc = MPI_Pack(MPI_BOTTOM, (int)count, W, o5.data(), total, &p, g_comm);
    EXPECT_MSG(rc == MPI_SUCCESS && p == total && o5.contents() == o1.contents(), "%s",
               ctx("MPI_BOTTOM pack"));
    if (injective) {
      Buf d5(sp, 0);
      d5.g.fill(seed ^ 3);
      MPI_Get_address(d5.origin(), &addr);
      MPI_Datatype W2;
      MPI_Type_create_hindexed_block(1, 1, &addr, T, &W2);
      MPI_Type_commit(&W2);
      int q = prefix;
      rc = MPI_Unpack(o1.data(), total, &q, MPI_BOTTOM, (int)count, W2, g_comm);
      EXPECT_MSG(rc == MPI_SUCCESS && q == total && d5.g.contents() == d1.g.contents(), "%s",
                 ctx("MPI_BOTTOM unpack"));
      MPI_Type_free(&W2);
    }
    MPI_Type_free(&W);
  }
  release(mt);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long trees = argc > 1 ? std::atol(argv[1]) : 3000;
  uint64_t first = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 1;
  if (!dropin_active()) {
    failf("MPI_Pack resolves to %s, not the drop-in", provider("MPI_Pack").c_str());
    return finish("differential");
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
  MPI_Comm_set_errhandler(g_comm, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  Stats st;
  g_trace = std::getenv("LOOM_TEST_TRACE") != nullptr;  // to find a seed that crashes
  for (long i = 0; i < trees; ++i) trial(first + (uint64_t)i, st);
  std::printf(
      "differential[%s]: %ld trees (seeds %" PRIu64 "..%" PRIu64 "), all checked against the "
      "reference; %ld also byte-identical to the system MPI, %ld reference only (Open MPI "
      "negative-stride byte vector), %ld reference only (struct with an empty member); "
      "%ld refused by the system; %ld with system struct bounds adopted, %ld with other "
      "system bounds adopted (same data, other padding), %ld with "
      "system-specific bounds of empty types, %ld with system-unwritten pad bytes; %ld "
      "unpack-checked, %ld MPI_BOTTOM; %ld trees where the system reports other true bounds "
      "(notes above; bytes still compared)\n",
      mpi_flavor(), st.trees, first, first + (uint64_t)trees - 1, st.sys_oracle,
      st.ref_only_negbyte, st.ref_only_empty_member, st.refused, st.struct_reconciled, st.bounds_adopted,
      st.empty_differs, st.sys_unwritten, st.unpack_checked, st.bottom, st.other_differs);
  MPI_Comm_free(&g_comm);
  return finish("differential");
}
