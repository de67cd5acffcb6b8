// 64-bit positions: streams and displacements beyond 4 GiB.  Only iov is
// used, which computes addresses without touching memory, so no huge
// buffers are needed; expected addresses come from plain arithmetic.
#include <gtest/gtest.h>

#include "loom_handle.hpp"

namespace loomtest {
namespace {

// The single iov entry at stream offset `off` (at most `len` bytes).
loom_iov iov_at(loom_type t, int64_t count, const void *origin, size_t off, size_t len) {
  loom_cursor c = nullptr;
  EXPECT_EQ(loom_cursor_create(t, count, origin, &c), LOOM_OK);
  loom_iov v{nullptr, 0};
  if (!c) return v;
  EXPECT_EQ(loom_cursor_seek(c, off), LOOM_OK);
  size_t n = 0, bytes = 0;
  EXPECT_EQ(loom_cursor_iov(c, &v, 1, len, &n, &bytes), LOOM_OK);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(bytes, v.len);
  EXPECT_EQ(loom_cursor_offset(c), off + bytes);
  loom_cursor_free(c);
  return v;
}

uintptr_t addr(const void *p) { return reinterpret_cast<uintptr_t>(p); }

TEST(LargeOffsets, StridedStreamPastFourGiB) {
  // 2^20 blocks of 4096 bytes every 8192: 4 GiB packed per instance.
  Type t = committed(hvector(1 << 20, 1, 8192, contig(4096, prim(LOOM_BYTE))));
  ASSERT_TRUE(t);
  static char origin[1];
  const int64_t per = int64_t(1) << 32, ext = (int64_t(1) << 20) * 8192 - 4096;
  loom_cursor c = nullptr;
  ASSERT_EQ(loom_cursor_create(t.get(), 3, origin, &c), LOOM_OK);
  EXPECT_EQ(loom_cursor_total(c), static_cast<size_t>(3 * per));
  loom_cursor_free(c);
  int64_t lb, extent;
  loom_type_extent(t.get(), &lb, &extent);
  EXPECT_EQ(extent, ext);
  // Offset 3 GiB + 5 in instance 0: block 786432, byte 5.
  size_t off = (size_t(3) << 30) + 5;
  loom_iov v = iov_at(t.get(), 3, origin, off, 100);
  EXPECT_EQ(addr(v.base), addr(origin) + uintptr_t(786432) * 8192 + 5);
  EXPECT_EQ(v.len, 100u);
  // Instance 2, block 1048575 (the last), byte 4000: 96 bytes remain.
  off = 2 * size_t(per) + size_t(1048575) * 4096 + 4000;
  v = iov_at(t.get(), 3, origin, off, 1000);
  EXPECT_EQ(addr(v.base), addr(origin) + 2 * uintptr_t(ext) + uintptr_t(1048575) * 8192 + 4000);
  EXPECT_EQ(v.len, 96u);
}

TEST(LargeOffsets, HugeDisplacements) {
  // Blocks 2^40 bytes apart, in descending order.
  const int64_t T = int64_t(1) << 40;
  Type t = committed(hindexed({2, 1, 3}, {2 * T, 0, T}, prim(LOOM_INT)));
  ASSERT_TRUE(t);
  static char origin[1];
  EXPECT_EQ(addr(iov_at(t.get(), 1, origin, 0, 64).base), addr(origin) + 2 * uintptr_t(T));
  EXPECT_EQ(addr(iov_at(t.get(), 1, origin, 8, 64).base), addr(origin));
  loom_iov v = iov_at(t.get(), 1, origin, 14, 64);
  EXPECT_EQ(addr(v.base), addr(origin) + uintptr_t(T) + 2);
  EXPECT_EQ(v.len, 10u);
  // Second instance: one extent (2T + 8) further.
  v = iov_at(t.get(), 2, origin, 24 + 12, 64);
  EXPECT_EQ(addr(v.base), addr(origin) + 2 * uintptr_t(T) + 8 + uintptr_t(T));
}

}  // namespace
}  // namespace loomtest
