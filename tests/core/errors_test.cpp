// Error contract of loom.h: the documented status for each misuse, and on
// failure no write to any caller buffer.
#include <gtest/gtest.h>

#include <climits>
#include <cstring>

#include "guarded.hpp"
#include "loom_handle.hpp"

namespace loomtest {
namespace {

// vector(4,1,2,int): 16 packed bytes over a 28-byte span.
Type sample() { return committed(vector(4, 1, 2, prim(LOOM_INT))); }

Type uncommitted() {
  Type t(to_loom(*vector(4, 1, 2, prim(LOOM_INT))));
  EXPECT_TRUE(t);
  return t;
}

TEST(Errors, PackRejectsNullAndUncommittedTypes) {
  Type u = uncommitted();
  EXPECT_FALSE(loom_type_is_committed(u.get()));
  int in[8] = {};
  Guarded out(64);
  auto before = out.contents();
  size_t pos = 0;
  EXPECT_EQ(loom_pack(in, 1, nullptr, out.data(), 64, &pos), LOOM_ERR_TYPE);
  EXPECT_EQ(loom_pack(in, 1, u.get(), out.data(), 64, &pos), LOOM_ERR_TYPE);
  EXPECT_EQ(loom_unpack(out.data(), 64, &pos, in, 1, u.get()), LOOM_ERR_TYPE);
  EXPECT_EQ(loom_unpack(out.data(), 64, &pos, in, 1, nullptr), LOOM_ERR_TYPE);
  EXPECT_EQ(pos, 0u);
  EXPECT_EQ(out.contents(), before);
  loom_cursor c = nullptr;
  EXPECT_EQ(loom_cursor_create(u.get(), 1, in, &c), LOOM_ERR_TYPE);
  EXPECT_EQ(loom_cursor_create(nullptr, 1, in, &c), LOOM_ERR_TYPE);
  EXPECT_EQ(loom_pack_range(in, 1, u.get(), 0, 4, out.data()), LOOM_ERR_TYPE);
  EXPECT_EQ(loom_unpack_range(out.data(), 0, 4, in, 1, u.get()), LOOM_ERR_TYPE);
  loom_checkpoints cp = nullptr;
  EXPECT_EQ(loom_checkpoints_create(u.get(), 1, in, 4, &cp), LOOM_ERR_TYPE);
  EXPECT_EQ(loom_pack_external32(in, 1, u.get(), out.data(), 64, &pos), LOOM_ERR_TYPE);
  EXPECT_EQ(loom_type_commit(nullptr), LOOM_ERR_TYPE);
  EXPECT_EQ(out.contents(), before);
  EXPECT_TRUE(out.guard_error().empty());
}

TEST(Errors, NegativeCounts) {
  Type t = sample();
  ASSERT_TRUE(t);
  int in[8] = {};
  unsigned char out[64];
  size_t pos = 0;
  EXPECT_EQ(loom_pack(in, -1, t.get(), out, 64, &pos), LOOM_ERR_COUNT);
  EXPECT_EQ(loom_unpack(out, 64, &pos, in, -1, t.get()), LOOM_ERR_COUNT);
  EXPECT_EQ(pos, 0u);
  loom_cursor c = nullptr;
  EXPECT_EQ(loom_cursor_create(t.get(), -3, in, &c), LOOM_ERR_COUNT);
  EXPECT_EQ(loom_pack_range(in, -1, t.get(), 0, 0, out), LOOM_ERR_COUNT);
  size_t sz;
  EXPECT_EQ(loom_external32_size(-1, t.get(), &sz), LOOM_ERR_COUNT);

  // Constructors: negative counts and block lengths.
  loom_type i = nullptr, o = nullptr;
  ASSERT_EQ(loom_type_primitive(LOOM_INT, &i), LOOM_OK);
  EXPECT_EQ(loom_type_contiguous(-1, i, &o), LOOM_ERR_COUNT);
  EXPECT_EQ(loom_type_vector(-1, 1, 1, i, &o), LOOM_ERR_COUNT);
  EXPECT_EQ(loom_type_vector(2, -1, 1, i, &o), LOOM_ERR_COUNT);
  EXPECT_EQ(loom_type_hvector(2, -2, 8, i, &o), LOOM_ERR_COUNT);
  int64_t bl[2] = {1, -1}, d[2] = {0, 4};
  EXPECT_EQ(loom_type_indexed(2, bl, d, i, &o), LOOM_ERR_COUNT);
  EXPECT_EQ(loom_type_hindexed(2, bl, d, i, &o), LOOM_ERR_COUNT);
  EXPECT_EQ(loom_type_indexed_block(2, -1, d, i, &o), LOOM_ERR_COUNT);
  EXPECT_EQ(loom_type_hindexed_block(-2, 1, d, i, &o), LOOM_ERR_COUNT);
  loom_type ts[2] = {i, i};
  EXPECT_EQ(loom_type_struct(2, bl, d, ts, LOOM_BOUNDS_STANDARD, &o), LOOM_ERR_COUNT);
  loom_type_free(i);
}

TEST(Errors, ShortOutputTruncatesWithoutWriting) {
  Type t = sample();
  ASSERT_TRUE(t);
  int in[7] = {1, 2, 3, 4, 5, 6, 7};
  for (size_t room : {0u, 1u, 15u}) {
    Guarded out(room + 3);
    out.fill(room);
    auto before = out.contents();
    size_t pos = 3;  // 3 bytes already used: room bytes left
    EXPECT_EQ(loom_pack(in, 1, t.get(), out.data(), room + 3, &pos), LOOM_ERR_TRUNCATE)
        << room;
    EXPECT_EQ(pos, 3u);
    EXPECT_EQ(out.contents(), before) << room;
    EXPECT_TRUE(out.guard_error().empty()) << out.guard_error();
  }
  // Two instances need 32 bytes; 31 is not enough.
  Guarded out(31);
  size_t pos = 0;
  int in2[16] = {};
  EXPECT_EQ(loom_pack(in2, 2, t.get(), out.data(), 31, &pos), LOOM_ERR_TRUNCATE);
  EXPECT_TRUE(out.guard_error().empty());
}

// One instance of a committed type, or the count first folded, takes
// loom_pack's first test (capi.cpp whole_message): a position past the
// buffer, a null position, too little room answer as they do for any
// count (null buffers: errors_limits_test.cpp), and nothing is written; a
// call that fits, at a position, moves the bytes and advances it.  A
// count folded before the commit (loom_type_plan_string) still finds the
// type uncommitted.
TEST(Errors, RepeatedMessagesCheckAsAnyCall) {
  int in[7] = {1, 2, 3, 4, 5, 6, 7};
  Type t = sample();
  ASSERT_TRUE(t);
  Guarded out(24);
  out.fill(0);
  const std::vector<unsigned char> before = out.contents();
  size_t pos = 25;
  EXPECT_EQ(loom_pack(in, 1, t.get(), out.data(), 24, &pos), LOOM_ERR_ARG);
  EXPECT_EQ(pos, 25u);
  EXPECT_EQ(loom_unpack(out.data(), 24, nullptr, in, 1, t.get()), LOOM_ERR_ARG);
  pos = 9;  // 15 bytes left of 24: one short
  EXPECT_EQ(loom_pack(in, 1, t.get(), out.data(), 24, &pos), LOOM_ERR_TRUNCATE);
  EXPECT_EQ(loom_unpack(out.data(), 24, &pos, in, 1, t.get()), LOOM_ERR_TRUNCATE);
  EXPECT_EQ(pos, 9u);
  EXPECT_EQ(out.contents(), before);
  pos = 8;  // exactly 16 left
  ASSERT_EQ(loom_pack(in, 1, t.get(), out.data(), 24, &pos), LOOM_OK);
  EXPECT_EQ(pos, 24u);
  const int want[4] = {1, 3, 5, 7};
  EXPECT_EQ(std::memcmp(out.data() + 8, want, 16), 0);
  int back[7] = {};
  pos = 8;
  ASSERT_EQ(loom_unpack(out.data(), 24, &pos, back, 1, t.get()), LOOM_OK);
  EXPECT_EQ(pos, 24u);
  const int expect[7] = {1, 0, 3, 0, 5, 0, 7};
  EXPECT_EQ(std::memcmp(back, expect, sizeof back), 0);
  EXPECT_TRUE(out.guard_error().empty()) << out.guard_error();

  // Three instances (7 ints apart): 48 bytes, folded by the first call.
  int in3[24];
  for (int i = 0; i < 24; i++) in3[i] = i;
  Guarded three(56);
  for (int round = 0; round < 2; round++) {
    pos = 8;
    ASSERT_EQ(loom_pack(in3, 3, t.get(), three.data(), 56, &pos), LOOM_OK) << round;
    EXPECT_EQ(pos, 56u);
    const int want3[12] = {0, 2, 4, 6, 7, 9, 11, 13, 14, 16, 18, 20};
    EXPECT_EQ(std::memcmp(three.data() + 8, want3, 48), 0) << round;
    pos = 9;
    EXPECT_EQ(loom_pack(in3, 3, t.get(), three.data(), 56, &pos), LOOM_ERR_TRUNCATE) << round;
    EXPECT_EQ(loom_unpack(three.data(), 56, &pos, in3, 3, t.get()), LOOM_ERR_TRUNCATE);
    pos = 57;
    EXPECT_EQ(loom_pack(in3, 3, t.get(), three.data(), 56, &pos), LOOM_ERR_ARG) << round;
    EXPECT_EQ(pos, 57u);
  }
  EXPECT_TRUE(three.guard_error().empty()) << three.guard_error();
  Type u = uncommitted();
  char plan[256];
  EXPECT_GT(loom_type_plan_string(u.get(), 3, plan, sizeof plan), 0u);
  pos = 0;
  EXPECT_EQ(loom_pack(in3, 3, u.get(), three.data(), 56, &pos), LOOM_ERR_TYPE);
  EXPECT_EQ(loom_unpack(three.data(), 56, &pos, in3, 3, u.get()), LOOM_ERR_TYPE);
  EXPECT_EQ(pos, 0u);
}

TEST(Errors, ShortInputTruncatesWithoutWriting) {
  Type t = sample();
  ASSERT_TRUE(t);
  unsigned char packed[15] = {};
  Guarded user(28);
  user.fill(7);
  auto before = user.contents();
  size_t pos = 0;
  EXPECT_EQ(loom_unpack(packed, 15, &pos, user.data(), 1, t.get()), LOOM_ERR_TRUNCATE);
  EXPECT_EQ(pos, 0u);
  EXPECT_EQ(user.contents(), before);
  EXPECT_TRUE(user.guard_error().empty());
}

TEST(Errors, SeekAndRangesOutsideStream) {
  Type t = sample();
  ASSERT_TRUE(t);
  int in[7] = {};
  loom_cursor c = nullptr;
  ASSERT_EQ(loom_cursor_create(t.get(), 2, in, &c), LOOM_OK);
  EXPECT_EQ(loom_cursor_total(c), 32u);
  EXPECT_EQ(loom_cursor_seek(c, 32), LOOM_OK);  // the end itself is a position
  EXPECT_EQ(loom_cursor_seek(c, 33), LOOM_ERR_RANGE);
  EXPECT_EQ(loom_cursor_seek(c, SIZE_MAX), LOOM_ERR_RANGE);
  EXPECT_EQ(loom_cursor_offset(c), 32u);  // a failed seek does not move
  loom_cursor_free(c);

  Guarded out(64);
  auto before = out.contents();
  EXPECT_EQ(loom_pack_range(in, 1, t.get(), 17, 0, out.data()), LOOM_ERR_RANGE);
  EXPECT_EQ(loom_pack_range(in, 1, t.get(), 8, 9, out.data()), LOOM_ERR_RANGE);
  EXPECT_EQ(loom_pack_range(in, 1, t.get(), 1, SIZE_MAX, out.data()), LOOM_ERR_RANGE);
  EXPECT_EQ(out.contents(), before);
  Guarded user(28);
  auto ubefore = user.contents();
  EXPECT_EQ(loom_unpack_range(out.data(), 10, 7, user.data(), 1, t.get()), LOOM_ERR_RANGE);
  EXPECT_EQ(user.contents(), ubefore);
  // In range (end-anchored, empty) is fine.
  EXPECT_EQ(loom_pack_range(in, 1, t.get(), 16, 0, out.data()), LOOM_OK);
  EXPECT_EQ(loom_pack_range(in, 1, t.get(), 0, 16, out.data()), LOOM_OK);
}

TEST(Errors, BadArguments) {
  loom_type o = nullptr, i = nullptr;
  EXPECT_EQ(loom_type_primitive(LOOM_PRIM_COUNT, &o), LOOM_ERR_ARG);
  EXPECT_EQ(loom_type_primitive(static_cast<loom_prim>(-1), &o), LOOM_ERR_ARG);
  EXPECT_EQ(loom_type_primitive(LOOM_INT, nullptr), LOOM_ERR_ARG);
  ASSERT_EQ(loom_type_primitive(LOOM_INT, &i), LOOM_OK);
  EXPECT_NE(loom_type_contiguous(2, nullptr, &o), LOOM_OK);
  EXPECT_EQ(loom_type_contiguous(2, i, nullptr), LOOM_ERR_ARG);
  int64_t sizes[2] = {4, 5}, sub[2] = {2, 6}, starts[2] = {0, 0};
  EXPECT_EQ(loom_type_subarray(2, sizes, sub, starts, LOOM_ORDER_C, i, &o), LOOM_ERR_ARG);
  int64_t sub2[2] = {2, 3}, starts2[2] = {3, 0};  // 3 + 2 > 4
  EXPECT_EQ(loom_type_subarray(2, sizes, sub2, starts2, LOOM_ORDER_C, i, &o), LOOM_ERR_ARG);
  EXPECT_EQ(loom_type_subarray(2, sizes, sub2, starts, 7, i, &o), LOOM_ERR_ARG);
  EXPECT_EQ(loom_type_subarray(0, sizes, sub2, starts, LOOM_ORDER_C, i, &o), LOOM_ERR_ARG);
  int64_t g[1] = {8};
  int dist[1] = {LOOM_DISTRIBUTE_BLOCK}, darg[1] = {LOOM_DISTRIBUTE_DFLT_DARG}, p[1] = {2};
  EXPECT_EQ(loom_type_darray(3, 0, 1, g, dist, darg, p, LOOM_ORDER_C, i, &o), LOOM_ERR_ARG)
      << "psizes product != size";
  EXPECT_EQ(loom_type_darray(2, 2, 1, g, dist, darg, p, LOOM_ORDER_C, i, &o), LOOM_ERR_ARG)
      << "rank >= size";
  int small[1] = {3};  // 3 * 2 < 8: block too small to cover the array
  EXPECT_EQ(loom_type_darray(2, 0, 1, g, dist, small, p, LOOM_ORDER_C, i, &o), LOOM_ERR_ARG);
  int bad[1] = {9};
  EXPECT_EQ(loom_type_darray(2, 0, 1, g, bad, darg, p, LOOM_ORDER_C, i, &o), LOOM_ERR_ARG);
  int64_t bl[1] = {1}, d[1] = {0};
  EXPECT_EQ(loom_type_struct(1, bl, d, nullptr, LOOM_BOUNDS_STANDARD, &o), LOOM_ERR_ARG);
  loom_type ts[1] = {i};
  EXPECT_EQ(loom_type_struct(1, bl, d, ts, static_cast<loom_bounds_rule>(5), &o), LOOM_ERR_ARG);

  Type t = sample();
  int in[7] = {};
  unsigned char out[32];
  EXPECT_EQ(loom_pack(in, 1, t.get(), out, 32, nullptr), LOOM_ERR_ARG);
  EXPECT_EQ(loom_cursor_create(t.get(), 1, in, nullptr), LOOM_ERR_ARG);
  loom_checkpoints cp = nullptr;
  EXPECT_EQ(loom_checkpoints_create(t.get(), 1, in, 0, &cp), LOOM_ERR_ARG) << "interval 0";
  loom_cursor c = nullptr;
  ASSERT_EQ(loom_cursor_create(t.get(), 1, in, &c), LOOM_OK);
  size_t done;
  EXPECT_EQ(loom_cursor_pack(c, out, 4, nullptr), LOOM_ERR_ARG);
  EXPECT_EQ(loom_cursor_pack(c, nullptr, 4, &done), LOOM_ERR_ARG);
  loom_cursor_free(c);
  loom_type_free(i);
}

TEST(Errors, Overflow) {
  loom_type d = nullptr, big = nullptr, o = nullptr;
  ASSERT_EQ(loom_type_primitive(LOOM_DOUBLE, &d), LOOM_OK);
  // 2^62 doubles are 2^65 bytes: the size does not fit in 64 bits.
  EXPECT_EQ(loom_type_contiguous(int64_t(1) << 62, d, &o), LOOM_ERR_OVERFLOW);
  // 2^59 doubles fit (2^62 bytes) but count 4 of them overflows at use.
  ASSERT_EQ(loom_type_contiguous(int64_t(1) << 59, d, &big), LOOM_OK);
  ASSERT_EQ(loom_type_commit(big), LOOM_OK);
  size_t pos = 0;
  unsigned char out[8];
  EXPECT_EQ(loom_pack(out, 4, big, out, 8, &pos), LOOM_ERR_OVERFLOW);
  loom_cursor c = nullptr;
  EXPECT_EQ(loom_cursor_create(big, 4, out, &c), LOOM_ERR_OVERFLOW);
  // A huge stride overflows the extent.
  EXPECT_EQ(loom_type_hvector(4, 1, INT64_MAX / 2, d, &o), LOOM_ERR_OVERFLOW);
  loom_type_free(big);
  loom_type_free(d);
}

TEST(Errors, StatusStrings) {
  for (int s = LOOM_OK; s <= LOOM_ERR_OVERFLOW; ++s) {
    const char *m = loom_status_string(static_cast<loom_status>(s));
    ASSERT_NE(m, nullptr);
    EXPECT_GT(std::strlen(m), 3u);
    for (int r = LOOM_OK; r < s; ++r)
      EXPECT_STRNE(m, loom_status_string(static_cast<loom_status>(r)));
  }
}

TEST(Errors, CommitIsIdempotentAndRefcountsHold) {
  loom_type i = nullptr, v = nullptr;
  ASSERT_EQ(loom_type_primitive(LOOM_INT, &i), LOOM_OK);
  ASSERT_EQ(loom_type_vector(3, 1, 2, i, &v), LOOM_OK);
  loom_type_free(i);  // the vector keeps its old type alive
  ASSERT_EQ(loom_type_commit(v), LOOM_OK);
  ASSERT_EQ(loom_type_commit(v), LOOM_OK);
  loom_type extra = loom_type_ref(v);
  EXPECT_EQ(extra, v);
  loom_type_free(v);
  int in[5] = {1, 2, 3, 4, 5};
  int out[3] = {};
  size_t pos = 0;
  ASSERT_EQ(loom_pack(in, 1, extra, out, sizeof out, &pos), LOOM_OK);
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[1], 3);
  EXPECT_EQ(out[2], 5);
  loom_type_free(extra);
}

}  // namespace
}  // namespace loomtest
