// The oracle itself, against typemaps worked out by hand from the MPI
// standard's constructor definitions (several are the standard's own
// examples).  If the reference were wrong in the same way as Loom, the
// differential tests could not see it; these catch that.
#include <gtest/gtest.h>

#include "type_spec.hpp"

namespace loomtest {
namespace {

using P = std::vector<Piece>;

P pieces(const TypeSpecPtr &s, int64_t count = 1) {
  return reference_pieces(reference_layout(*s), count, false);
}

TypeSpecPtr dc() {  // {(double,0),(char,8)}, extent 16
  return structure({1, 1}, {0, 8}, {prim(LOOM_DOUBLE), prim(LOOM_CHAR)});
}

TEST(Reference, StandardExamples) {
  // MPI-3.1 4.1.2: contiguous(3, {(double,0),(char,8)}).
  EXPECT_EQ(pieces(contig(3, dc())), (P{{0, 8}, {8, 1}, {16, 8}, {24, 1}, {32, 8}, {40, 1}}));
  // vector(2, 3, 4, oldtype): blocks of 3 at 0 and 4 extents (64 bytes).
  EXPECT_EQ(pieces(vector(2, 3, 4, dc())),
            (P{{0, 8}, {8, 1}, {16, 8}, {24, 1}, {32, 8}, {40, 1},
               {64, 8}, {72, 1}, {80, 8}, {88, 1}, {96, 8}, {104, 1}}));
  // vector(3, 1, -2, oldtype).
  EXPECT_EQ(pieces(vector(3, 1, -2, dc())), (P{{0, 8}, {8, 1}, {-32, 8}, {-24, 1}, {-64, 8}, {-56, 1}}));
  // hvector(2, 3, 4, oldtype): byte stride 4.
  EXPECT_EQ(pieces(hvector(2, 3, 4, dc())),
            (P{{0, 8}, {8, 1}, {16, 8}, {24, 1}, {32, 8}, {40, 1},
               {4, 8}, {12, 1}, {20, 8}, {28, 1}, {36, 8}, {44, 1}}));
  // indexed(B={3,1}, D={4,0}, oldtype).
  EXPECT_EQ(pieces(indexed({3, 1}, {4, 0}, dc())),
            (P{{64, 8}, {72, 1}, {80, 8}, {88, 1}, {96, 8}, {104, 1}, {0, 8}, {8, 1}}));
  // struct(B={2,1,3}, D={0,16,26}, T={float, oldtype, char}).
  EXPECT_EQ(pieces(structure({2, 1, 3}, {0, 16, 26}, {prim(LOOM_FLOAT), dc(), prim(LOOM_CHAR)})),
            (P{{0, 4}, {4, 4}, {16, 8}, {24, 1}, {26, 1}, {27, 1}, {28, 1}}));
}

TEST(Reference, NegativeStrideAndCount) {
  TypeSpecPtr h = hvector(12, 1, -1, prim(LOOM_CHAR));
  P want;
  for (int64_t i = 0; i < 12; ++i) want.push_back({-i, 1});
  EXPECT_EQ(pieces(h), want);
  Layout l = reference_layout(*h);
  EXPECT_EQ(l.lb, -11);
  EXPECT_EQ(l.extent(), 12);
  // count 2 places the second instance one extent (12) later.
  EXPECT_EQ(pieces(h, 2)[12], (Piece{12, 1}));
}

TEST(Reference, PairTypesHaveGaps) {
  EXPECT_EQ(pieces(prim(LOOM_SHORT_INT)), (P{{0, 2}, {4, 4}}));
  EXPECT_EQ(pieces(prim(LOOM_LONG_DOUBLE_INT)), (P{{0, 16}, {16, 4}}));
  EXPECT_EQ(pieces(prim(LOOM_DOUBLE_INT), 2), (P{{0, 8}, {8, 4}, {16, 8}, {24, 4}}));
  // Merging joins only adjacent pieces: FLOAT_INT has no gap, SHORT_INT does.
  EXPECT_EQ(reference_pieces(reference_layout(*prim(LOOM_FLOAT_INT)), 2, true), (P{{0, 16}}));
  EXPECT_EQ(reference_pieces(reference_layout(*prim(LOOM_SHORT_INT)), 2, true),
            (P{{0, 2}, {4, 6}, {12, 4}}));
}

TEST(Reference, SubarrayOrder) {
  // 4x5 ints, 2x3 block at (1,1).
  EXPECT_EQ(pieces(subarray({4, 5}, {2, 3}, {1, 1}, LOOM_ORDER_C, prim(LOOM_INT))),
            (P{{24, 4}, {28, 4}, {32, 4}, {44, 4}, {48, 4}, {52, 4}}));
  // Fortran: first index fastest; element (i,j) at (i + 4j) * 4.
  EXPECT_EQ(pieces(subarray({4, 5}, {2, 3}, {1, 1}, LOOM_ORDER_FORTRAN, prim(LOOM_INT))),
            (P{{20, 4}, {24, 4}, {36, 4}, {40, 4}, {52, 4}, {56, 4}}));
}

TEST(Reference, DarrayOwnership) {
  // 7 chars cyclic(2) over 2 processes, rank 1: indices 2, 3, 6.
  EXPECT_EQ(pieces(darray(2, 1, {7}, {LOOM_DISTRIBUTE_CYCLIC}, {2}, {2}, LOOM_ORDER_C,
                          prim(LOOM_CHAR))),
            (P{{2, 1}, {3, 1}, {6, 1}}));
  // 3x4 grid of chars on 2x2 processes, block/cyclic, rank 2 = coords (1,0):
  // rows 2 (block of 2), columns 0 and 2 (cyclic).  C order: row-major.
  EXPECT_EQ(pieces(darray(4, 2, {3, 4}, {LOOM_DISTRIBUTE_BLOCK, LOOM_DISTRIBUTE_CYCLIC},
                          {LOOM_DISTRIBUTE_DFLT_DARG, LOOM_DISTRIBUTE_DFLT_DARG}, {2, 2},
                          LOOM_ORDER_C, prim(LOOM_CHAR))),
            (P{{8, 1}, {10, 1}}));
  // Same in Fortran order: element (i,j) at i + 3j; process grid is still
  // row-major, so rank 2 is again coords (1,0): rows 2, columns 0 and 2.
  EXPECT_EQ(pieces(darray(4, 2, {3, 4}, {LOOM_DISTRIBUTE_BLOCK, LOOM_DISTRIBUTE_CYCLIC},
                          {LOOM_DISTRIBUTE_DFLT_DARG, LOOM_DISTRIBUTE_DFLT_DARG}, {2, 2},
                          LOOM_ORDER_FORTRAN, prim(LOOM_CHAR))),
            (P{{2, 1}, {8, 1}}));
}

TEST(Reference, StreamSlices) {
  Layout l = reference_layout(*vector(3, 2, 4, prim(LOOM_SHORT)));  // 3 runs of 4 bytes
  EXPECT_EQ(reference_stream_pieces(l, 1, 2, 10), (P{{2, 2}, {8, 4}, {16, 2}}));
  // instance 1 starts one extent (20) later, right after (18,2): merged.
  EXPECT_EQ(reference_stream_pieces(l, 2, 10, 14), (P{{18, 4}}));
  EXPECT_EQ(reference_stream_pieces(l, 1, 5, 5), P{});
}

TEST(Reference, GeneratorIsDeterministicAndBounded) {
  for (uint64_t seed = 1; seed < 200; ++seed) {
    std::mt19937_64 a(seed), b(seed);
    TypeSpecPtr x = random_spec(a, 4), y = random_spec(b, 4);
    ASSERT_EQ(describe(x), describe(y));
    Layout l = reference_layout(*x);
    int64_t lo, hi;
    reference_span(l, 4, &lo, &hi);
    EXPECT_LE(hi - lo, 1 << 20) << describe(x);
  }
}

}  // namespace
}  // namespace loomtest
