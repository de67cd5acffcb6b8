// Performance-shape tests that cannot be timing-flaky: commit cost and plan
// size must depend on the size of the type description, never on the
// number of elements.  We assert on the plan's one-line form (documented in
// loom.h as e.g. "vec(1048576,+8,blk8)"): it must stay short, and regular
// index patterns must not survive as an indexed level with one entry per
// block ("idx(N" / "idxv(N" with N in the millions).
#include <gtest/gtest.h>

#include <cstring>
#include <cstdlib>

#include "guarded.hpp"
#include "loom_handle.hpp"
#include "plan.hpp"
#include "type.hpp"

namespace loomtest {
namespace {

std::string plan(loom_type t, int64_t count) {
  size_t need = loom_type_plan_string(t, count, nullptr, 0) + 1;
  std::string s(need, '\0');
  loom_type_plan_string(t, count, &s[0], need);
  s.resize(std::strlen(s.c_str()));
  return s;
}

// Largest entry count of any indexed level ("idx(N" or "idxv(N") in a plan
// string, 0 if none.  (Hand parser: std::regex trips -Werror under ASan.)
int64_t max_indexed(const std::string &p) {
  int64_t m = 0;
  for (size_t at = p.find("idx"); at != std::string::npos; at = p.find("idx", at + 3)) {
    size_t k = at + 3;
    if (k < p.size() && p[k] == 'v') ++k;
    if (k >= p.size() || p[k] != '(') continue;
    m = std::max<int64_t>(m, std::atoll(p.c_str() + k + 1));
  }
  return m;
}

TEST(PlanShape, HugeVectorPlanIndependentOfCount) {
  Type big = committed(vector(100000000, 1, 2, prim(LOOM_FLOAT)));
  Type small = committed(vector(1000, 1, 2, prim(LOOM_FLOAT)));
  ASSERT_TRUE(big && small);
  std::string pb = plan(big.get(), 1), ps = plan(small.get(), 1);
  std::printf("1e8: %s\n1e3: %s\n", pb.c_str(), ps.c_str());
  EXPECT_LT(pb.size(), 80u);
  EXPECT_LE(pb.size(), ps.size() + 5) << "plan grows with the element count";
  EXPECT_EQ(max_indexed(pb), 0);
  // count folding: 1000 instances of the 1e8 vector is still one short plan.
  std::string pc = plan(big.get(), 1000);
  EXPECT_LT(pc.size(), 100u) << pc;
  EXPECT_LE(max_indexed(pc), 16) << pc;
}

TEST(PlanShape, HugeSubarray) {
  // 10^4 x 10^4 doubles (10^8 elements), 5000 x 5000 block: C and Fortran.
  for (int order : {LOOM_ORDER_C, LOOM_ORDER_FORTRAN}) {
    Type t = committed(subarray({10000, 10000}, {5000, 5000}, {100, 2000}, order,
                                prim(LOOM_DOUBLE)));
    ASSERT_TRUE(t);
    EXPECT_EQ(loom_type_size(t.get()), int64_t(5000) * 5000 * 8);
    std::string p = plan(t.get(), 1);
    std::printf("%s\n", p.c_str());
    EXPECT_LT(p.size(), 80u) << p;
    EXPECT_EQ(max_indexed(p), 0) << p;
  }
}

TEST(PlanShape, HugeDarray) {
  // 10^8 ints block-cyclic over a 4x4 grid.
  Type t = committed(darray(16, 5, {10000, 10000},
                            {LOOM_DISTRIBUTE_CYCLIC, LOOM_DISTRIBUTE_BLOCK}, {7, LOOM_DISTRIBUTE_DFLT_DARG},
                            {4, 4}, LOOM_ORDER_C, prim(LOOM_INT)));
  ASSERT_TRUE(t);
  std::string p = plan(t.get(), 1);
  std::printf("%s\n", p.c_str());
  EXPECT_LT(p.size(), 200u) << p;
  EXPECT_LE(max_indexed(p), 16) << p;
}

// 10^6 single-int blocks, displacements repeating with period 4:
// (i/4)*16 + {0,3,5,9}[i%4] elements.  A plan with one entry per block
// would be an indexed level of 10^6 entries.
std::vector<int64_t> pattern_displs(size_t n) {
  static const int64_t pat[4] = {0, 3, 5, 9};
  std::vector<int64_t> d(n);
  for (size_t i = 0; i < n; ++i) d[i] = static_cast<int64_t>(i / 4) * 16 + pat[i % 4];
  return d;
}

TEST(PlanShape, RepeatingIndexedPattern) {
  const size_t n = 1000000;
  TypeSpecPtr s = indexed(std::vector<int64_t>(n, 1), pattern_displs(n), prim(LOOM_INT));
  Type t = committed(s);
  ASSERT_TRUE(t);
  std::string p = plan(t.get(), 1);
  std::printf("%s\n", p.c_str());
  EXPECT_LT(p.size(), 120u) << p;
  EXPECT_LE(max_indexed(p), 16) << p;

  // And the compressed plan still packs the right bytes.
  Layout l = reference_layout(*s);
  Guarded src(static_cast<size_t>(l.true_extent()));
  src.fill(42);
  std::vector<unsigned char> want = reference_pack(l, 1, src.data());
  Guarded out(want.size());
  size_t pos = 0;
  ASSERT_EQ(loom_pack(src.data(), 1, t.get(), out.data(), want.size(), &pos), LOOM_OK);
  EXPECT_TRUE(out.contents() == want);
  EXPECT_TRUE(out.guard_error().empty());
}

TEST(PlanShape, RegularHindexedBecomesStrided) {
  // 10^6 blocks of 8 bytes at a constant 24-byte stride, given as hindexed
  // and as indexed_block: both are a plain vector.
  const size_t n = 1000000;
  std::vector<int64_t> d(n);
  for (size_t i = 0; i < n; ++i) d[i] = static_cast<int64_t>(i) * 24;
  Type h = committed(hindexed(std::vector<int64_t>(n, 2), d, prim(LOOM_INT)));
  Type b = committed(hindexed_block(1, d, prim(LOOM_DOUBLE)));
  ASSERT_TRUE(h && b);
  for (loom_type t : {h.get(), b.get()}) {
    std::string p = plan(t, 1);
    std::printf("%s\n", p.c_str());
    EXPECT_LT(p.size(), 60u) << p;
    EXPECT_EQ(max_indexed(p), 0) << p;
  }
}

// A particle subset: atoms (one or three doubles each) in ascending order,
// neighbours merging into runs of irregular lengths.  Runs of 4 atoms or
// fewer on average move as one atom a move (an index list of elements,
// as the hand loop's); longer ones stay runs (split_short_runs).
TEST(PlanShape, ParticleSubsetsOfShortRunsMoveByElement) {
  for (int64_t b : {1, 3}) {
    for (int keep : {70, 97}) {
      std::vector<int64_t> atoms;
      uint64_t x = 12345;
      for (int64_t k = 0; k < 20000; ++k) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        if ((int)((x >> 33) % 100) < keep) atoms.push_back(k);
      }
      Type t = committed(indexed_block(1, atoms, contig(b, prim(LOOM_DOUBLE))));
      ASSERT_TRUE(t);
      const std::string p = plan(t.get(), 1);
      std::printf("%d%% of atoms of %d doubles: %s\n", keep, (int)b, p.c_str());
      if (keep == 70) {
        EXPECT_EQ(p.find("idxv"), std::string::npos) << p;
        EXPECT_EQ(max_indexed(p), (int64_t)atoms.size()) << p;
      } else {
        EXPECT_NE(p.find("idxv"), std::string::npos) << p;
      }
    }
  }
}

TEST(PlanShape, StructRepeatedManyTimes) {
  // contiguous(10^7, {double@0, int@8, char@12}): the struct is a short
  // fixed pattern; the count folds into a loop.
  Type t = committed(contig(10000000, structure({1, 1, 1}, {0, 8, 12},
                                                 {prim(LOOM_DOUBLE), prim(LOOM_INT), prim(LOOM_CHAR)})));
  ASSERT_TRUE(t);
  std::string p = plan(t.get(), 3);
  std::printf("%s\n", p.c_str());
  EXPECT_LT(p.size(), 120u) << p;
  EXPECT_LE(max_indexed(p), 16) << p;
}

TEST(PlanShape, ContiguousFoldsToOneBlock) {
  Type t = committed(contig(1000, prim(LOOM_DOUBLE)));
  ASSERT_TRUE(t);
  EXPECT_TRUE(loom_type_is_contiguous(t.get()));
  std::string p = plan(t.get(), 1000000);
  EXPECT_LT(p.size(), 24u) << p;
  EXPECT_EQ(p.find("vec"), std::string::npos) << "a contiguous type needs no loop: " << p;
}

TEST(PlanShape, PlanStringBufferContract) {
  Type t = committed(vector(1000, 1, 2, prim(LOOM_FLOAT)));
  ASSERT_TRUE(t);
  size_t need = loom_type_plan_string(t.get(), 1, nullptr, 0);
  ASSERT_GT(need, 1u);
  std::string full = plan(t.get(), 1);
  EXPECT_TRUE(need == full.size() || need == full.size() + 1)
      << "returns the length it needs: " << need << " for \"" << full << "\"";
  char small[4];
  std::memset(small, 'Z', sizeof small);
  size_t again = loom_type_plan_string(t.get(), 1, small, sizeof small);
  EXPECT_EQ(again, need);
  EXPECT_EQ(small[3], '\0') << "truncated output is NUL-terminated";
  EXPECT_EQ(std::string(small), full.substr(0, 3));
}

// A struct whose neighbouring children are the same layout at different
// addresses (a halo's per-atom properties, one atom list) shares their
// plan node, so the kernels walk one displacement list for all of them.
TEST(PlanShape, EqualNeighbouringStructChildrenShareANode) {
  loom_type d = nullptr, three = nullptr, one = nullptr, s = nullptr;
  ASSERT_EQ(loom_type_primitive(LOOM_DOUBLE, &d), LOOM_OK);
  const int64_t atoms[] = {5, 1, 9, 4, 7};
  ASSERT_EQ(loom_type_indexed_block(5, 3, atoms, d, &three), LOOM_OK);
  ASSERT_EQ(loom_type_indexed_block(5, 1, atoms, d, &one), LOOM_OK);
  const int64_t lens[] = {1, 1, 1, 1}, displs[] = {0, 4096, 8192, 12288};
  const loom_type types[] = {three, one, one, one};
  ASSERT_EQ(loom_type_struct(4, lens, displs, types, LOOM_BOUNDS_STANDARD, &s), LOOM_OK);
  ASSERT_EQ(loom_type_commit(s), LOOM_OK);
  const loom::Node *root = loom::plan_for(s, 1).node;
  ASSERT_TRUE(root && root->kind == loom::Kind::Struct && root->kids.size() == 4u)
      << plan(s, 1);
  EXPECT_NE(root->kids[0], root->kids[1]);
  EXPECT_EQ(root->kids[1], root->kids[2]);
  EXPECT_EQ(root->kids[2], root->kids[3]);
  for (loom_type t : {d, three, one, s}) loom_type_free(t);
}

}  // namespace
}  // namespace loomtest
