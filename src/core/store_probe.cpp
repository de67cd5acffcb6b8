// Timing masked stores: AVX2's against plain ones, and AVX-512's into
// lines not in cache with and without prefetches ahead (see isa.hpp).
#include <immintrin.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>

#include "isa.hpp"

namespace loom {
namespace {

// -1: measure (once); 0, 1: forced (tests).
std::atomic<int> g_forced{-1};

using Clock = std::chrono::steady_clock;
constexpr int kStores = 2048;

// kStores stores of 32 bytes at 136-byte steps within 8 KiB (in L1,
// straddling lines as a pattern's windows do), masked to 5 lanes of 8 or
// plain; nanoseconds.
template <bool Masked>
__attribute__((target("avx2"), noinline)) double time_stores(char *buf) {
  const __m256i v = _mm256_set1_epi32(7), m = _mm256_setr_epi32(-1, 0, -1, -1, 0, -1, -1, 0);
  const auto t0 = Clock::now();
  for (int i = 0; i < kStores; i++) {
    char *p = buf + (i * 136 & 8191);
    if (Masked) _mm256_maskstore_epi32(reinterpret_cast<int *>(p), m, v);
    else _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), v);
    __asm__ volatile("" : : "r"(p) : "memory");
  }
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
}

bool measure() {
  alignas(64) char buf[8192 + 64];
  double masked = 1e300, plain = 1e300;
  for (int r = 0; r < 5; r++) {  // the fastest of five, interleaved
    const double a = time_stores<true>(buf), b = time_stores<false>(buf);
    masked = a < masked ? a : masked;
    plain = b < plain ? b : plain;
  }
  return masked > 2.5 * plain;
}

// AVX-512 masked stores (every other dword) into each line of kColdBytes
// flushed from the caches, one a line, with or without a write prefetch
// kColdAhead lines ahead; nanoseconds.
constexpr size_t kColdBytes = 64 << 10;
constexpr size_t kColdAhead = 16;
// The prefetches' gain that calls the stores slow: 1.9-2.2x on the AMD
// EPYC Zen 5 VM (0.2 ms the probe); with both cores busy elsewhere, the
// fastest of five rounds fell to 1.23x once in six processes, of eleven
// 1.48x at the least.
constexpr double kColdSlow = 1.3;
template <bool Prefetch>
__attribute__((target("avx512f,prfchw"), noinline)) double time_cold_stores(char *buf) {
  for (size_t o = 0; o < kColdBytes; o += 64) _mm_clflush(buf + o);
  _mm_mfence();
  const __m512i v = _mm512_set1_epi32(7);
  // The unaligned form, as the kernels store: where the compiler could
  // see the buffer's alignment it stored by the aligned one
  // (vmovdqa32), which on the Zen 5 VM does not wait (0.95-1.06x with
  // prefetches), and the probe found nothing slow.
  __asm__("" : "+r"(buf));
  const auto t0 = Clock::now();
  for (size_t o = 0; o < kColdBytes; o += 64) {
    if (Prefetch) _m_prefetchw(buf + o + kColdAhead * 64);  // past the end: harmless
    _mm512_mask_storeu_epi32(buf + o, 0x5555, v);
    __asm__ volatile("" : : "r"(buf) : "memory");  // the stores are never read
  }
  _mm_sfence();
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
}

bool measure_cold() {
  char *buf = static_cast<char *>(std::aligned_alloc(64, kColdBytes));
  if (!buf) return false;
  double plain = 1e300, ahead = 1e300;
  for (int r = 0; r < 11; r++) {  // the fastest of 11, interleaved
    const double a = time_cold_stores<false>(buf), b = time_cold_stores<true>(buf);
    plain = a < plain ? a : plain;
    ahead = b < ahead ? b : ahead;
  }
  std::free(buf);
  return plain > kColdSlow * ahead;
}

}  // namespace

bool masked_stores_slow() {
  const int forced = g_forced.load(std::memory_order_relaxed);
  if (forced >= 0) return forced != 0;
  static const bool slow = measure();
  return slow;
}

void force_masked_stores_slow(int slow) { g_forced.store(slow, std::memory_order_relaxed); }

bool measure_cold_masked_stores_slow() { return measure_cold(); }

}  // namespace loom
