// Timing AVX2's masked stores against plain ones: see isa.hpp.
#include <immintrin.h>

#include <atomic>
#include <chrono>
#include <cstdint>

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

}  // namespace

bool masked_stores_slow() {
  const int forced = g_forced.load(std::memory_order_relaxed);
  if (forced >= 0) return forced != 0;
  static const bool slow = measure();
  return slow;
}

void force_masked_stores_slow(int slow) { g_forced.store(slow, std::memory_order_relaxed); }

}  // namespace loom
