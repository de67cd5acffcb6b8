// How many instances of P packed bytes bring a stream address to a
// multiple of W bytes (W a power of two): the kernels that store whole
// registers a step (ChunkTable groups, StepTable steps) move that many
// first by the moves, so that no step's store is split across cache
// lines.  With g = gcd(P, W) = 2^shift, the stream gets there where its
// distance to the next multiple is a multiple of g, after (distance / g) *
// inverse instances modulo W / g, inverse the inverse of P / g.  Shifts
// and masks: three divisions cost a quarter of a 2 KiB pack's time.
#pragma once

#include <cstdint>
#include <numeric>

namespace loom {

struct StreamAlign {
  int width = 64;  // W
  int shift = 6;
  uint64_t inverse = 0;

  StreamAlign() = default;
  StreamAlign(int64_t packed, int w) : width(w) {
    shift = __builtin_ctzll((uint64_t)std::gcd(packed, (int64_t)w));
    const uint64_t mod = (uint64_t)w >> shift, odd = (uint64_t)packed >> shift;
    while (inverse * odd % mod != 1 % mod) inverse++;
  }
  /// The instances to move first from stream address s (0 where no count
  /// of them reaches a multiple of W).
  int64_t first(uintptr_t s) const {
    const uint64_t to = (0 - s) & (uint64_t)(width - 1);
    if ((to & ((uint64_t(1) << shift) - 1)) != 0) return 0;
    return (int64_t)(((to >> shift) * inverse) & (((uint64_t)width >> shift) - 1));
  }
};

}  // namespace loom
