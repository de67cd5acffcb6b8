// Size, lb, extent, true lb/extent, element count, contiguity and combiner
// of Loom types against the reference, for random trees and for hand-worked
// cases whose expected values are computed by hand from the MPI standard
// (and, where implementations agree, checked against MPICH/Open MPI).
#include <gtest/gtest.h>

#include <random>

#include "loom_handle.hpp"
#include "test_env.hpp"

namespace loomtest {
namespace {

struct Bounds {
  int64_t size, lb, extent, true_lb, true_extent;
};

std::ostream &operator<<(std::ostream &o, const Bounds &b) {
  return o << "size " << b.size << " lb " << b.lb << " extent " << b.extent << " true_lb "
           << b.true_lb << " true_extent " << b.true_extent;
}
bool operator==(const Bounds &a, const Bounds &b) {
  return a.size == b.size && a.lb == b.lb && a.extent == b.extent && a.true_lb == b.true_lb &&
         a.true_extent == b.true_extent;
}

Bounds loom_bounds(loom_type t) {
  Bounds b{};
  b.size = loom_type_size(t);
  loom_type_extent(t, &b.lb, &b.extent);
  loom_type_true_extent(t, &b.true_lb, &b.true_extent);
  return b;
}

Bounds ref_bounds(const Layout &l) {
  return {l.size, l.lb, l.extent(), l.true_lb, l.true_extent()};
}

// Checks a spec against hand-computed bounds and against the reference (so
// a wrong reference also shows up here).
void expect_bounds(const TypeSpecPtr &s, Bounds want) {
  SCOPED_TRACE(describe(s));
  EXPECT_EQ(ref_bounds(reference_layout(*s)), want) << "reference disagrees with hand value";
  loom_status st;
  Type t = committed(s, &st);
  ASSERT_TRUE(t) << loom_status_string(st);
  EXPECT_EQ(loom_bounds(t.get()), want);
}

loom_combiner combiner_of(Kind k) {
  switch (k) {
    case Kind::Prim: return LOOM_COMBINER_NAMED;
    case Kind::Dup: return LOOM_COMBINER_DUP;
    case Kind::Contig: return LOOM_COMBINER_CONTIGUOUS;
    case Kind::Vector: return LOOM_COMBINER_VECTOR;
    case Kind::Hvector: return LOOM_COMBINER_HVECTOR;
    case Kind::Indexed: return LOOM_COMBINER_INDEXED;
    case Kind::Hindexed: return LOOM_COMBINER_HINDEXED;
    case Kind::IndexedBlock: return LOOM_COMBINER_INDEXED_BLOCK;
    case Kind::HindexedBlock: return LOOM_COMBINER_HINDEXED_BLOCK;
    case Kind::Struct: return LOOM_COMBINER_STRUCT;
    case Kind::Subarray: return LOOM_COMBINER_SUBARRAY;
    case Kind::Darray: return LOOM_COMBINER_DARRAY;
    case Kind::Resized: return LOOM_COMBINER_RESIZED;
  }
  return LOOM_COMBINER_NAMED;
}

TEST(Bounds, RandomTreesMatchReference) {
  const uint64_t base = base_seed(0x200000);
  const int n = static_cast<int>(5000 * test_scale());
  std::printf("seeds %llu..%llu\n", static_cast<unsigned long long>(base),
              static_cast<unsigned long long>(base + n - 1));
  int failures = 0;
  for (int i = 0; i < n && failures < 10; ++i) {
    std::mt19937_64 rng(base + static_cast<uint64_t>(i));
    TypeSpecPtr s = random_spec(rng, 4);
    Layout l = reference_layout(*s);
    loom_status st;
    Type t = committed(s, &st);
    std::string where = "seed " + std::to_string(base + i) + " type " + describe(s);
    if (!t) {
      ADD_FAILURE() << where << ": build/commit failed: " << loom_status_string(st);
      ++failures;
      continue;
    }
    Bounds got = loom_bounds(t.get()), want = ref_bounds(l);
    bool ok = got == want;
    EXPECT_EQ(got, want) << where;
    EXPECT_EQ(loom_type_num_elements(t.get()), l.nelems) << where;
    EXPECT_EQ(loom_type_combiner(t.get()), combiner_of(s->kind)) << where;
    if (l.size > 0) {
      // One memcpy moves `count` instances iff one instance is a single run
      // as long as the extent (consecutive instances then abut; the run may
      // start past lb, as in resized(int,-4,4)).
      std::vector<Piece> m = reference_pieces(l, 1, true);
      bool contiguous = m.size() == 1 && m[0].len == l.extent();
      EXPECT_EQ(loom_type_is_contiguous(t.get()) != 0, contiguous) << where;
      ok = ok && (loom_type_is_contiguous(t.get()) != 0) == contiguous;
    }
    ok = ok && loom_type_num_elements(t.get()) == l.nelems;
    if (!ok) ++failures;
  }
}

TEST(Bounds, NegativeStrideHvector) {
  // The case Open MPI 4.1.4 gets wrong (reports lb 0).
  expect_bounds(hvector(12, 1, -1, prim(LOOM_CHAR)), {12, -11, 12, -11, 12});
  // vector(3,2,-4,int): blocks at 0, -16, -32 (bytes), each 8 long.
  expect_bounds(vector(3, 2, -4, prim(LOOM_INT)), {24, -32, 40, -32, 40});
}

TEST(Bounds, Primitives) {
  expect_bounds(prim(LOOM_LONG_DOUBLE), {16, 0, 16, 0, 16});
  expect_bounds(prim(LOOM_C_DOUBLE_COMPLEX), {16, 0, 16, 0, 16});
  expect_bounds(prim(LOOM_WCHAR), {4, 0, 4, 0, 4});
  expect_bounds(prim(LOOM_F_DOUBLE_COMPLEX), {16, 0, 16, 0, 16});
  expect_bounds(prim(LOOM_F_LOGICAL), {4, 0, 4, 0, 4});
  // Pair types: members with a gap, extent as the C struct.
  expect_bounds(prim(LOOM_FLOAT_INT), {8, 0, 8, 0, 8});
  expect_bounds(prim(LOOM_DOUBLE_INT), {12, 0, 16, 0, 12});
  expect_bounds(prim(LOOM_LONG_INT), {12, 0, 16, 0, 12});
  expect_bounds(prim(LOOM_SHORT_INT), {6, 0, 8, 0, 8});
  expect_bounds(prim(LOOM_2INT), {8, 0, 8, 0, 8});
  expect_bounds(prim(LOOM_LONG_DOUBLE_INT), {20, 0, 32, 0, 20});
}

TEST(Bounds, StructPadding) {
  // {double@0, char@8}: padded to 16 (the MPI standard's own example).
  expect_bounds(structure({1, 1}, {0, 8}, {prim(LOOM_DOUBLE), prim(LOOM_CHAR)}),
                {9, 0, 16, 0, 9});
  // {char@0, short@2, char@4}: ub 5 rounds to 6 (alignment 2).
  expect_bounds(structure({1, 1, 1}, {0, 2, 4},
                          {prim(LOOM_CHAR), prim(LOOM_SHORT), prim(LOOM_CHAR)}),
                {4, 0, 6, 0, 5});
  // long double aligns to 16: {char@0, long double@16} -> 32.
  expect_bounds(structure({1, 1}, {0, 16}, {prim(LOOM_CHAR), prim(LOOM_LONG_DOUBLE)}),
                {17, 0, 32, 0, 32});
  // Negative displacements: {int@-6 .. char@0}: lb -6, ub 1, extent 7 -> 8.
  expect_bounds(structure({1, 1}, {-6, 0}, {prim(LOOM_INT), prim(LOOM_CHAR)}),
                {5, -6, 8, -6, 7});
  // Padding of an inner struct carries outward: contig(2, {double,char}).
  expect_bounds(contig(2, structure({1, 1}, {0, 8}, {prim(LOOM_DOUBLE), prim(LOOM_CHAR)})),
                {18, 0, 32, 0, 25});
  // Zero-length member adds neither bounds nor alignment (MPICH, Open MPI).
  expect_bounds(structure({1, 0}, {0, 100}, {prim(LOOM_CHAR), prim(LOOM_DOUBLE)}),
                {1, 0, 1, 0, 1});
  // A zero-size member still contributes its bounds (MPICH, Open MPI: 100)
  // but no alignment and no true extent.
  expect_bounds(structure({1, 1}, {0, 100}, {prim(LOOM_INT), contig(0, prim(LOOM_INT))}),
                {4, 0, 100, 0, 4});
  expect_bounds(structure({1, 1}, {0, 1}, {prim(LOOM_CHAR), contig(0, prim(LOOM_DOUBLE))}),
                {1, 0, 1, 0, 1});
  // Pair type member: FLOAT_INT aligns to 4: {char@0, float_int@4} -> 12.
  expect_bounds(structure({1, 1}, {0, 4}, {prim(LOOM_CHAR), prim(LOOM_FLOAT_INT)}),
                {9, 0, 12, 0, 12});
}

TEST(Bounds, ResizedMarkersAreSticky) {
  TypeSpecPtr r = resized(prim(LOOM_INT), -4, 16);
  expect_bounds(r, {4, -4, 16, 0, 4});
  // lb and ub markers of the resized member decide the struct bounds; the
  // double at 100 lies outside them (Open MPI agrees; MPICH 4 does not).
  expect_bounds(structure({1, 1}, {0, 100}, {r, prim(LOOM_DOUBLE)}), {12, -4, 16, 0, 108});
  expect_bounds(structure({1, 1}, {0, 100}, {prim(LOOM_DOUBLE), r}), {12, 96, 16, 0, 104});
  // Explicit ub marker: no alignment padding.
  expect_bounds(structure({1, 1}, {0, 4}, {resized(prim(LOOM_DOUBLE), 0, 4), prim(LOOM_CHAR)}),
                {9, 0, 4, 0, 8});
  expect_bounds(structure({1, 1}, {0, 3}, {r, prim(LOOM_CHAR)}), {5, -4, 16, 0, 4});
  // Markers survive further constructors: contig(2, resized(double, 0, 4)).
  expect_bounds(contig(2, resized(prim(LOOM_DOUBLE), 0, 4)), {16, 0, 8, 0, 12});
  // Negative lb through a vector: copies at 0 and 32 of [-4, 12).
  expect_bounds(vector(2, 1, 2, r), {8, -4, 48, 0, 36});
  // Resizing a resized type replaces both markers.
  expect_bounds(resized(r, 2, 3), {4, 2, 3, 0, 4});
  // A zero-size resized type keeps its extent, and copies of it count.
  expect_bounds(hvector(3, 1, 10, resized(contig(0, prim(LOOM_INT)), 0, 8)),
                {0, 0, 28, 0, 0});
}

// LOOM_BOUNDS_MPICH: struct markers are not sticky and the struct is always
// padded.  Expected values are what MPICH 4.0.2's MPI_Type_get_extent
// reports for the same constructions (checked with mpicc.mpich).
Bounds mpich_struct(std::vector<int64_t> bl, std::vector<int64_t> d,
                    std::vector<TypeSpecPtr> members) {
  std::vector<loom_type> ts;
  for (auto &m : members) ts.push_back(to_loom(*m));
  loom_type out = nullptr;
  loom_status st = loom_type_struct(static_cast<int64_t>(bl.size()), bl.data(), d.data(), ts.data(),
                                    LOOM_BOUNDS_MPICH, &out);
  for (loom_type t : ts) loom_type_free(t);
  EXPECT_EQ(st, LOOM_OK);
  if (st != LOOM_OK) return {};
  EXPECT_EQ(loom_type_commit(out), LOOM_OK);
  Bounds b = loom_bounds(out);
  loom_type_free(out);
  return b;
}

TEST(Bounds, MpichRuleIsNotSticky) {
  TypeSpecPtr r = resized(prim(LOOM_INT), -4, 16);
  EXPECT_EQ(mpich_struct({1, 1}, {0, 100}, {r, prim(LOOM_DOUBLE)}), (Bounds{12, -4, 112, 0, 108}));
  EXPECT_EQ(mpich_struct({1, 1}, {0, 100}, {prim(LOOM_DOUBLE), r}), (Bounds{12, 0, 112, 0, 104}));
  EXPECT_EQ(mpich_struct({1, 1}, {0, 3}, {r, prim(LOOM_CHAR)}), (Bounds{5, -4, 16, 0, 4}));
  EXPECT_EQ(mpich_struct({1, 1}, {0, 4}, {resized(prim(LOOM_DOUBLE), 0, 4), prim(LOOM_CHAR)}),
            (Bounds{9, 0, 8, 0, 8}));
}

TEST(Bounds, EmptyTypes) {
  expect_bounds(contig(0, prim(LOOM_INT)), {0, 0, 0, 0, 0});
  expect_bounds(vector(0, 2, 3, prim(LOOM_SHORT)), {0, 0, 0, 0, 0});
  expect_bounds(hvector(3, 0, 18, prim(LOOM_DOUBLE)), {0, 0, 0, 0, 0});
  expect_bounds(indexed({0, 0}, {100, 0}, prim(LOOM_INT)), {0, 0, 0, 0, 0});
  // A zero-length block adds nothing to the bounds.
  expect_bounds(indexed({0, 1}, {100, 0}, prim(LOOM_INT)), {4, 0, 4, 0, 4});
}

TEST(Bounds, Subarray) {
  // 4x5 ints, 2x3 block at (1,1).  C: rows are contiguous.
  expect_bounds(subarray({4, 5}, {2, 3}, {1, 1}, LOOM_ORDER_C, prim(LOOM_INT)),
                {24, 0, 80, 24, 32});
  // Fortran: columns are contiguous; first (1,1) -> 5, last (2,3) -> 14.
  expect_bounds(subarray({4, 5}, {2, 3}, {1, 1}, LOOM_ORDER_FORTRAN, prim(LOOM_INT)),
                {24, 0, 80, 20, 40});
  // Subarray markers are explicit: they survive resizing of the old type.
  expect_bounds(subarray({3}, {1}, {2}, LOOM_ORDER_C, resized(prim(LOOM_SHORT), -2, 6)),
                {2, 0, 18, 12, 2});
}

TEST(Bounds, Darray) {
  // 4x6 ints on a 2x2 grid, block/block; rank 1 = coords (0,1): rows 0-1,
  // columns 3-5.
  expect_bounds(darray(4, 1, {4, 6}, {LOOM_DISTRIBUTE_BLOCK, LOOM_DISTRIBUTE_BLOCK},
                       {LOOM_DISTRIBUTE_DFLT_DARG, LOOM_DISTRIBUTE_DFLT_DARG}, {2, 2},
                       LOOM_ORDER_C, prim(LOOM_INT)),
                {24, 0, 96, 12, 36});
  // 7 chars, cyclic(2) over 2 processes, rank 1: indices 2, 3, 6.
  expect_bounds(darray(2, 1, {7}, {LOOM_DISTRIBUTE_CYCLIC}, {2}, {2}, LOOM_ORDER_C,
                       prim(LOOM_CHAR)),
                {3, 0, 7, 2, 5});
  // 3x4 shorts, rows not distributed, columns cyclic over 2, rank 1:
  // columns 1 and 3 of every row.
  expect_bounds(darray(2, 1, {3, 4}, {LOOM_DISTRIBUTE_NONE, LOOM_DISTRIBUTE_CYCLIC},
                       {LOOM_DISTRIBUTE_DFLT_DARG, LOOM_DISTRIBUTE_DFLT_DARG}, {1, 2},
                       LOOM_ORDER_C, prim(LOOM_SHORT)),
                {12, 0, 24, 2, 22});
  // Fortran order, 5 doubles block-distributed over 2 with darg 3: rank 1
  // gets indices 3, 4.
  expect_bounds(darray(2, 1, {5}, {LOOM_DISTRIBUTE_BLOCK}, {3}, {2}, LOOM_ORDER_FORTRAN,
                       prim(LOOM_DOUBLE)),
                {16, 0, 40, 24, 16});
  // A rank that owns nothing: 2 elements block over 3 processes, rank 2.
  expect_bounds(darray(3, 2, {2}, {LOOM_DISTRIBUTE_BLOCK}, {LOOM_DISTRIBUTE_DFLT_DARG}, {3},
                       LOOM_ORDER_C, prim(LOOM_INT)),
                {0, 0, 8, 0, 0});
}

}  // namespace
}  // namespace loomtest

namespace loomtest {
namespace {

// loom_type_is_contiguous as loom.h states it: committed, one run per
// instance, instances abutting; the run starts at the true lb, not lb.
TEST(Bounds, ContiguousContract) {
  // resized(double, -8, 8): data at 0..8, instances 8 apart: one run from
  // the true lb (0) although lb is -8.
  Type r = committed(resized(prim(LOOM_DOUBLE), -8, 8));
  ASSERT_TRUE(r);
  EXPECT_TRUE(loom_type_is_contiguous(r.get()));
  // resized(double_int, 0, 12): 12-byte records that abut.
  Type p = committed(resized(prim(LOOM_DOUBLE_INT), 0, 12));
  ASSERT_TRUE(p);
  EXPECT_TRUE(loom_type_is_contiguous(p.get()));
  // double_int itself has a 4-byte gap at its end.
  Type di = committed(prim(LOOM_DOUBLE_INT));
  ASSERT_TRUE(di);
  EXPECT_FALSE(loom_type_is_contiguous(di.get()));
  // Uncommitted: 0, and no plan is built for it.
  Type u(to_loom(*contig(4, prim(LOOM_INT)), nullptr));
  ASSERT_TRUE(u);
  EXPECT_FALSE(loom_type_is_contiguous(u.get()));
  EXPECT_FALSE(loom_type_is_contiguous(nullptr));
}

// external32 sizes are derived at construction: O(1) to ask for any count,
// and an overflow is reported, never wrapped.
TEST(Bounds, External32SizeIsConstantTimeAndChecked) {
  Type v = committed(
      vector(100000000, 1, 2, structure({1, 1}, {0, 8}, {prim(LOOM_INT), prim(LOOM_LONG)})));
  ASSERT_TRUE(v);
  size_t n = 0;
  ASSERT_EQ(loom_external32_size(3, v.get(), &n), LOOM_OK);
  EXPECT_EQ(n, size_t(3) * 100000000 * (4 + 4));  // long is 4 bytes in external32
  EXPECT_EQ(loom_external32_size(INT64_MAX / 2, v.get(), &n), LOOM_ERR_OVERFLOW);
}

}  // namespace
}  // namespace loomtest
