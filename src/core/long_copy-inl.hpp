// Copies of contiguous bytes too long for a kernel's fixed moves (a
// contiguous type, a row of a sub-array, the part of a block a cursor's
// range cuts), per instruction set: included by kernels.cpp inside each
// of its targets (Highway's per-target header convention).
//
// Why not always memcpy: glibc (2.36, Debian 12) copies 2 KiB to a few
// hundred KiB with `rep movsb`, which AMD's Zen cores run up to 30x slower
// where the destination lies a few bytes past the source modulo 4 KiB (a
// known fault of the microcode, which newer glibc steers around): 4 KiB
// with the destination 8 bytes past, 1137 ns against 42; 16 bytes past
// 1.85x; 31 past 2.1x; 64 KiB 8 bytes past 16x (AMD EPYC Zen 4 VM; on
// the Zen 5 VM, 1.3-1.5x).  Where a user's buffer and a stream buffer lie
// is the program's (a malloc'ed one sits 16 bytes into a page).  There, a
// loop of vector loads and aligned stores: on Zen 4 32-byte vectors,
// 1.1-30x memcpy's speed; on Zen 5 64-byte ones (its 32-byte loop lost
// to memcpy even there).  Where memcpy is not slow so, a contiguous region
// of up to 128 KiB copied by Zen 4's loop 1.0-1.25x faster too, from L2
// and from L3 (NAS LU x's 40 KB: 1.10x the hand loop's memcpy; 256 KiB
// from L2 0.96x), and by Zen 5's `rep movsb` 1.4-1.9x faster than by either
// loop; so each kernel set measures its ways (measure_copy_ways).  `rep
// movsb` copied rows of 2 KiB from L3 (a cube's face, rows 512 KiB apart)
// 1.06-1.1x faster than the loop (Zen 4): rows of a strided layout take a
// loop only where memcpy would be slow.  From 1 MiB the copy is bound by
// memory (no such loss), and memcpy's non-temporal stores for the longest
// are worth keeping.
#if defined(LOOM_LONG_COPY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LOOM_LONG_COPY_INL_H_
#undef LOOM_LONG_COPY_INL_H_
#else
#define LOOM_LONG_COPY_INL_H_
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <hwy/highway.h>

#include "isa.hpp"

HWY_BEFORE_NAMESPACE();
namespace loom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Copies that may run a loop: from kLongCopyFrom bytes; up to
/// kLongCopyUntil where memcpy may be slow (near), kRegionCopyUntil for the
/// other regions (not rows).
constexpr size_t kLongCopyFrom = 256;
constexpr size_t kRegionCopyUntil = size_t(128) << 10;
constexpr size_t kLongCopyUntil = size_t(1) << 20;
/// The destination's distance past the source, modulo 4 KiB, that `rep
/// movsb` takes badly: 1 to kMovsbNear - 1 (2-30x slower; a few bytes
/// before the source, 1.1-1.25x: there rows of 1.5-12 KiB unpacked 3%
/// faster by memcpy than by the loop, in-process A/B).
constexpr size_t kMovsbNear = 64;
/// The shortest copy glibc gives `rep movsb` here (its threshold with
/// FSRM, 2048 + 64); shorter ones go by its vector loop, which rows of up
/// to 2 KiB a few bytes past took 0.88x as long as by this one.
constexpr size_t kMovsbFrom = 2113;

/// Whether `rep movsb` would copy to `dst` from `src` slowly (the
/// distance, not the length).
inline bool movsb_near(const char *dst, const char *src) {
  const size_t near = (reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src)) & 4095;
  return near != 0 && near < kMovsbNear;
}

/// The loop: n >= 128 bytes, 64 bytes unaligned at each end and the rest
/// in 64-byte aligned lines of the destination, 128 bytes a step, from
/// unaligned loads of W-byte vectors (the tail loaded last: loaded first,
/// rows from L3 copied 5% slower).
template <size_t W>
inline void copy_loop(char *dst, const char *src, size_t n) {
  const hn::CappedTag<uint8_t, W> d;
  constexpr size_t L = hn::MaxLanes(d), K = 64 / L;  // K vectors a line
  auto u8 = [](const char *p) { return reinterpret_cast<const uint8_t *>(p); };
  auto w8 = [](char *p) { return reinterpret_cast<uint8_t *>(p); };
  using V = hn::Vec<decltype(d)>;
  V head[K], tail[K];
  for (size_t k = 0; k < K; k++) head[k] = hn::LoadU(d, u8(src + k * L));
  size_t o = 64 - (reinterpret_cast<uintptr_t>(dst) & 63);
  for (; o + 128 <= n - 64; o += 128) {
    V v[2 * K];
    for (size_t k = 0; k < 2 * K; k++) v[k] = hn::LoadU(d, u8(src + o + k * L));
    for (size_t k = 0; k < 2 * K; k++) hn::Store(v[k], d, w8(dst + o + k * L));
  }
  for (; o < n - 64; o += L) hn::Store(hn::LoadU(d, u8(src + o)), d, w8(dst + o));
  for (size_t k = 0; k < K; k++) tail[k] = hn::LoadU(d, u8(src + n - 64 + k * L));
  for (size_t k = 0; k < K; k++) {
    hn::StoreU(head[k], d, w8(dst + k * L));
    hn::StoreU(tail[k], d, w8(dst + n - 64 + k * L));
  }
}

/// Whether rows of n bytes may take a loop (where movsb_near).
constexpr bool rows_may_loop(size_t n) { return n >= kMovsbFrom && n <= kLongCopyUntil; }

/// The loop of W-byte vectors, or memcpy, by `way`.
inline void copy_by(CopyWay way, char *dst, const char *src, size_t n) {
  constexpr size_t kWide = hn::MaxLanes(hn::CappedTag<uint8_t, 64>());
  if (way == CopyWay::kLoop) copy_loop<32>(dst, src, n);
  else if (kWide >= 64 && way == CopyWay::kLoopWide) copy_loop<64>(dst, src, n);
  else std::memcpy(dst, src, n);
}

/// How this set copies (isa.hpp CopyWays), measured at first use: 32 KiB
/// (a region from L2, as NAS LU x's 40 KB) copied each way, the fastest
/// of 9 interleaved rounds of 4 copies, the source 40 bytes into a line
/// (a region of the user's lies anywhere: NAS LU x's 40 bytes in) and the
/// destination 40 bytes before it modulo 4 KiB (region) or 16 bytes past
/// it (near).  A region keeps memcpy unless a loop is 5% faster.  Where
/// they differ, it matters: NAS LU x packed 1.10x the hand loop's memcpy
/// by the 32-byte loop on the AMD EPYC Zen 4 VM, and 0.54x by it on the
/// Zen 5 VM, where glibc's `rep movsb` copied it 1.9x as fast as the
/// 32-byte loop and 1.4x as the 64-byte one (the source aligned, memcpy
/// and the 64-byte loop ran alike, and the timing chose either); the
/// baseline's 16-byte loop, 0.56x memcpy (Zen 4).  Near, on the Zen 5 VM,
/// memcpy 80 GB/s, the 32-byte loop 65, the 64-byte loop 84.
inline CopyWays measure_copy_ways() {
  constexpr size_t n = 32 << 10;
  constexpr bool kWide = hn::MaxLanes(hn::CappedTag<uint8_t, 64>()) >= 64;
  constexpr int kWays = kWide ? 3 : 2;
  char *a = static_cast<char *>(std::aligned_alloc(4096, n + 4096));
  char *b = static_cast<char *>(std::aligned_alloc(4096, n + 4096));
  CopyWays w{CopyWay::kMemcpy, CopyWay::kMemcpy};
  if (a && b) {
    std::memset(a, 1, n + 4096), std::memset(b, 2, n + 4096);
    const char *from = a + 40;
    for (int near = 0; near < 2; near++) {
      char *to = b + (near ? 56 : 0);
      double best[3] = {1e300, 1e300, 1e300};
      for (int r = 0; r < 9; r++)
        for (int k = 0; k < kWays; k++) {
          const auto t0 = std::chrono::steady_clock::now();
          for (int c = 0; c < 4; c++) {
            copy_by(CopyWay(k), to, from, n);
            asm volatile("" : : "r"(to) : "memory");
          }
          best[k] = std::min(best[k],
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
      int k = 0;
      for (int j = 1; j < kWays; j++)
        if (best[j] < best[k]) k = j;
      if (!near && best[k] * 1.05 > best[0]) k = 0;
      (near ? w.near : w.region) = CopyWay(k);
    }
  }
  std::free(a), std::free(b);
  return w;
}

/// This set's ways: measured once, unless a test forces them.
inline CopyWays copy_ways() {
  static const CopyWays measured = measure_copy_ways();
  const int forced = g_forced_copy_ways.load(std::memory_order_relaxed);
  return forced < 0 ? measured : CopyWays{CopyWay(forced & 3), CopyWay(forced >> 2)};
}

/// n bytes from `src` to `dst` (not overlapping), a contiguous region of
/// the user's (`region`) or one of many rows: by the way measured for it
/// (copy_ways) where memcpy might be slow (near) and for regions of up to
/// kRegionCopyUntil, else by memcpy.  In a row's loop (kernels.cpp
/// row_any) these checks, so written, cost about one instruction a row
/// where they end in memcpy; written as one test of n against a limit
/// chosen by the distance and `region`, 8 (rows of 1.5-2 KiB 0.95-0.97x
/// as fast; callgrind and in-process A/B, Intel Xeon VM).
inline void long_copy(char *dst, const char *src, size_t n, bool region) {
  if (n >= kLongCopyFrom && ((region && n <= kRegionCopyUntil) || (rows_may_loop(n) && movsb_near(dst, src)))) {
    const CopyWays w = copy_ways();
    copy_by(rows_may_loop(n) && movsb_near(dst, src) ? w.near : w.region, dst, src, n);
  } else {
    std::memcpy(dst, src, n);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace loom
HWY_AFTER_NAMESPACE();

#endif  // LOOM_LONG_COPY_INL_H_
