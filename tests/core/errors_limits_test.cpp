// Error contract of loom.h at its limits: null buffers, sizes and spans that
// overflow 64 bits, invalid alignments.  Every case fails cleanly with the
// documented status and writes nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "guarded.hpp"
#include "loom_handle.hpp"

namespace loomtest {
namespace {

constexpr int64_t kBig = int64_t(1) << 62;

// vector(4,1,2,int): 16 packed bytes over a 28-byte span.
Type sample() { return committed(vector(4, 1, 2, prim(LOOM_INT))); }

TEST(Errors, NullBuffersAreArgumentErrors) {
  Type t = sample();
  ASSERT_TRUE(t);
  int in[7] = {1, 2, 3, 4, 5, 6, 7};
  Guarded out(64);
  out.fill(1);
  auto before = out.contents();
  size_t pos = 0;
  EXPECT_EQ(loom_pack(nullptr, 1, t.get(), out.data(), 64, &pos), LOOM_ERR_ARG);
  EXPECT_EQ(loom_pack(in, 1, t.get(), nullptr, 64, &pos), LOOM_ERR_ARG);
  EXPECT_EQ(loom_unpack(out.data(), 64, &pos, nullptr, 1, t.get()), LOOM_ERR_ARG);
  EXPECT_EQ(loom_unpack(nullptr, 64, &pos, in, 1, t.get()), LOOM_ERR_ARG);
  EXPECT_EQ(loom_pack_external32(nullptr, 1, t.get(), out.data(), 64, &pos), LOOM_ERR_ARG);
  EXPECT_EQ(loom_pack_external32(in, 1, t.get(), nullptr, 64, &pos), LOOM_ERR_ARG);
  EXPECT_EQ(loom_unpack_external32(out.data(), 64, &pos, nullptr, 1, t.get()), LOOM_ERR_ARG);
  EXPECT_EQ(loom_unpack_external32(nullptr, 64, &pos, in, 1, t.get()), LOOM_ERR_ARG);
  EXPECT_EQ(pos, 0u);
  EXPECT_EQ(loom_pack_range(nullptr, 1, t.get(), 0, 8, out.data()), LOOM_ERR_ARG);
  EXPECT_EQ(loom_pack_range(in, 1, t.get(), 0, 8, nullptr), LOOM_ERR_ARG);
  EXPECT_EQ(loom_unpack_range(out.data(), 0, 8, nullptr, 1, t.get()), LOOM_ERR_ARG);
  EXPECT_EQ(out.contents(), before);
  EXPECT_TRUE(out.guard_error().empty());
  loom_cursor c = nullptr;
  EXPECT_EQ(loom_cursor_create(t.get(), 1, nullptr, &c), LOOM_ERR_ARG);
  EXPECT_EQ(c, nullptr);
  loom_checkpoints cp = nullptr;
  EXPECT_EQ(loom_checkpoints_create(t.get(), 1, nullptr, 4, &cp), LOOM_ERR_ARG);
  EXPECT_EQ(cp, nullptr);

  // Nothing to move: null buffers are fine.
  EXPECT_EQ(loom_pack(nullptr, 0, t.get(), nullptr, 0, &pos), LOOM_OK);
  EXPECT_EQ(loom_unpack(nullptr, 0, &pos, nullptr, 0, t.get()), LOOM_OK);
  EXPECT_EQ(loom_pack_external32(nullptr, 0, t.get(), nullptr, 0, &pos), LOOM_OK);
  EXPECT_EQ(loom_pack_range(nullptr, 1, t.get(), 4, 0, nullptr), LOOM_OK);
  EXPECT_EQ(loom_cursor_create(t.get(), 0, nullptr, &c), LOOM_OK);
  EXPECT_EQ(loom_cursor_total(c), 0u);
  loom_cursor_free(c);
  EXPECT_EQ(pos, 0u);
}

TEST(Errors, BytesAlignmentMustBeAPowerOfTwo) {
  loom_type o = nullptr;
  for (int64_t a : {0, -4, 3, 6, 12, 24, 1000})
    EXPECT_EQ(loom_type_bytes(8, a, &o), LOOM_ERR_ARG) << "align " << a;
  for (int64_t a : {1, 2, 4, 8, 16, 4096}) {
    ASSERT_EQ(loom_type_bytes(8, a, &o), LOOM_OK) << "align " << a;
    loom_type_free(o);
  }
}

TEST(Errors, External32SizeOverflows) {
  loom_type dbl = nullptr, big = nullptr;
  ASSERT_EQ(loom_type_primitive(LOOM_DOUBLE, &dbl), LOOM_OK);
  ASSERT_EQ(loom_type_contiguous(int64_t(1) << 59, dbl, &big), LOOM_OK);  // 2^62 bytes
  Type owner(big);
  size_t sz = 12345;
  EXPECT_EQ(loom_external32_size(1, big, &sz), LOOM_OK);
  EXPECT_EQ(sz, size_t(1) << 62);
  sz = 12345;
  EXPECT_EQ(loom_external32_size(4, big, &sz), LOOM_ERR_OVERFLOW);
  EXPECT_EQ(sz, 12345u) << "no size written on error";
  EXPECT_EQ(loom_external32_size(INT64_MAX, dbl, &sz), LOOM_ERR_OVERFLOW);

  // A mixed type (no single element kind) with a huge count: the size is
  // found from the type description, not by walking 2^40 instances.
  loom_type i = nullptr, s = nullptr;
  ASSERT_EQ(loom_type_primitive(LOOM_INT, &i), LOOM_OK);
  int64_t bl[2] = {1, 1}, ds[2] = {0, 8};
  loom_type ts[2] = {i, dbl};
  ASSERT_EQ(loom_type_struct(2, bl, ds, ts, LOOM_BOUNDS_STANDARD, &s), LOOM_OK);
  Type sown(s);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(loom_external32_size(int64_t(1) << 40, s, &sz), LOOM_OK);
  EXPECT_EQ(sz, size_t(12) << 40);
  EXPECT_EQ(loom_external32_size(kBig, s, &sz), LOOM_ERR_OVERFLOW);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  loom_type_free(i);
  loom_type_free(dbl);
}

TEST(Errors, ExtentsThatOverflowAreRejected) {
  loom_type dbl = nullptr, o = nullptr;
  ASSERT_EQ(loom_type_primitive(LOOM_DOUBLE, &dbl), LOOM_OK);
  // ub - lb = 2^63 + 8 does not fit.
  int64_t bl[2] = {1, 1}, far[2] = {-kBig, kBig};
  EXPECT_EQ(loom_type_hindexed(2, bl, far, dbl, &o), LOOM_ERR_OVERFLOW);
  loom_type ts[2] = {dbl, dbl};
  EXPECT_EQ(loom_type_struct(2, bl, far, ts, LOOM_BOUNDS_STANDARD, &o), LOOM_ERR_OVERFLOW);
  // The true upper bound (data end) overflows while lb/ub, moved by a
  // resized child, do not.
  loom_type shifted = nullptr;
  ASSERT_EQ(loom_type_resized(dbl, -kBig, kBig, &shifted), LOOM_OK);
  int64_t top = INT64_MAX - 4;
  EXPECT_EQ(loom_type_hindexed_block(1, 1, &top, shifted, &o), LOOM_ERR_OVERFLOW);
  loom_type_free(shifted);
  loom_type_free(dbl);
}

TEST(Errors, SpansThatOverflowAreRejected) {
  // Two doubles 2^62 bytes apart: 16 packed bytes, but four instances span
  // more than 2^63 bytes of memory, which no buffer can be.
  loom_type dbl = nullptr, wide = nullptr;
  ASSERT_EQ(loom_type_primitive(LOOM_DOUBLE, &dbl), LOOM_OK);
  int64_t bl[2] = {1, 1}, ds[2] = {0, kBig};
  ASSERT_EQ(loom_type_hindexed(2, bl, ds, dbl, &wide), LOOM_OK);
  Type t(wide);
  loom_type_free(dbl);
  ASSERT_EQ(loom_type_commit(wide), LOOM_OK);
  Guarded out(64);
  auto before = out.contents();
  char in[8];
  size_t pos = 0;
  EXPECT_EQ(loom_pack(in, 4, wide, out.data(), 64, &pos), LOOM_ERR_OVERFLOW);
  EXPECT_EQ(loom_unpack(out.data(), 64, &pos, in, 4, wide), LOOM_ERR_OVERFLOW);
  EXPECT_EQ(loom_pack_range(in, 4, wide, 0, 8, out.data()), LOOM_ERR_OVERFLOW);
  EXPECT_EQ(loom_unpack_range(out.data(), 0, 8, in, 4, wide), LOOM_ERR_OVERFLOW);
  EXPECT_EQ(loom_pack_external32(in, 4, wide, out.data(), 64, &pos), LOOM_ERR_OVERFLOW);
  EXPECT_EQ(pos, 0u);
  EXPECT_EQ(out.contents(), before);
  loom_cursor c = nullptr;
  EXPECT_EQ(loom_cursor_create(wide, 4, in, &c), LOOM_ERR_OVERFLOW);
  loom_checkpoints cp = nullptr;
  EXPECT_EQ(loom_checkpoints_create(wide, 4, in, 8, &cp), LOOM_ERR_OVERFLOW);
  EXPECT_EQ(loom_type_plan_string(wide, 4, nullptr, 0), 0u);
  // One instance spans 2^62 + 8 bytes: representable, so accepted (the
  // cursor only computes addresses; nothing is touched).
  ASSERT_EQ(loom_cursor_create(wide, 1, in, &c), LOOM_OK);
  EXPECT_EQ(loom_cursor_total(c), 16u);
  loom_cursor_free(c);
}

TEST(Errors, CheckpointIntervalsOfAnySize) {
  Type t = sample();
  ASSERT_TRUE(t);
  int in[7] = {1, 2, 3, 4, 5, 6, 7};
  for (size_t interval : {size_t(16), size_t(17), size_t(1) << 63, SIZE_MAX}) {
    loom_checkpoints cp = nullptr;
    ASSERT_EQ(loom_checkpoints_create(t.get(), 1, in, interval, &cp), LOOM_OK) << interval;
    EXPECT_EQ(loom_checkpoints_count(cp), 1u) << interval;
    loom_cursor c = nullptr;
    ASSERT_EQ(loom_cursor_create(t.get(), 1, in, &c), LOOM_OK);
    ASSERT_EQ(loom_checkpoints_restore(cp, 8, c), LOOM_OK);
    int out[2] = {};
    size_t done = 0;
    ASSERT_EQ(loom_cursor_pack(c, out, sizeof out, &done), LOOM_OK);
    EXPECT_EQ(done, sizeof out);
    EXPECT_EQ(out[0], 5);
    EXPECT_EQ(out[1], 7);
    loom_cursor_free(c);
    loom_checkpoints_free(cp);
  }
}

TEST(Errors, RestoreKeepsTheCheckpointPlansAlive) {
  // A cursor restored from checkpoints of another type must keep that
  // type's plans alive after the checkpoints and the type are freed.
  Type a = committed(vector(64, 1, 3, prim(LOOM_INT)));
  Type b = sample();
  ASSERT_TRUE(a && b);
  std::vector<int> in(3 * 64 * 3);
  for (size_t k = 0; k < in.size(); ++k) in[k] = int(k);
  loom_checkpoints cp = nullptr;
  ASSERT_EQ(loom_checkpoints_create(a.get(), 3, in.data(), 100, &cp), LOOM_OK);
  int small[7];
  loom_cursor c = nullptr;
  ASSERT_EQ(loom_cursor_create(b.get(), 1, small, &c), LOOM_OK);
  ASSERT_EQ(loom_checkpoints_restore(cp, 404, c), LOOM_OK);
  loom_checkpoints_free(cp);
  a.reset();
  int got[4];
  size_t done = 0;
  ASSERT_EQ(loom_cursor_pack(c, got, sizeof got, &done), LOOM_OK);
  ASSERT_EQ(done, sizeof got);
  for (int k = 0; k < 4; ++k) {
    const int e = 101 + k;  // stream element: instance e / 64, block e % 64
    EXPECT_EQ(got[k], in[e / 64 * 190 + e % 64 * 3]) << k;
  }
  loom_cursor_free(c);
}

}  // namespace
}  // namespace loomtest
