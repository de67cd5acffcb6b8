// MPI-exact size, lb/ub, true bounds and alignment of a derived type from
// the pieces it is made of.
#pragma once
#include <vector>

#include "type.hpp"

namespace loom {

/// `n` copies of `t`, one extent apart, starting at byte `disp`.
struct Piece {
  int64_t disp;
  int64_t n;
  const loom_type_s *t;
};

/// Fills size/lb/ub/true bounds/align/nelems/ext32_size/markers/homogeneous
/// of `out`.  `is_struct` applies the struct rules (alignment padding,
/// marker mixing per out->rule).  Returns false when a value, the extent or
/// the true extent overflows 64 bits.
bool compute_bounds(loom_type_s *out, const std::vector<Piece> &pieces,
                    bool is_struct);

/// Packed bytes of `count` (>= 0) instances of `t`: LOOM_ERR_OVERFLOW when
/// they, or the span of memory the instances' data covers, do not fit in
/// 64 bits (no buffer can be that large, and plans would compute wrapped
/// addresses).  Inline, in 64-bit arithmetic with overflow checks: every
/// pack and unpack asks (a call in 128-bit arithmetic was a third of
/// loom_pack's fixed cost).  Where the step between the first and the
/// last instance overflows, so does the span, which covers it.
inline loom_status message_bytes(const loom_type_s *t, int64_t count, int64_t *bytes) {
  if (__builtin_mul_overflow(count, t->size, bytes)) return LOOM_ERR_OVERFLOW;
  if (count == 1 || *bytes == 0) return LOOM_OK;  // one instance: the true extent fits
  // Instance i covers [true_lb, true_ub) + i * extent.
  int64_t step, lo, hi, span;
  if (__builtin_mul_overflow(count - 1, t->extent(), &step) ||
      __builtin_add_overflow(t->true_lb, step < 0 ? step : 0, &lo) ||
      __builtin_add_overflow(t->true_ub, step > 0 ? step : 0, &hi) ||
      __builtin_sub_overflow(hi, lo, &span))
    return LOOM_ERR_OVERFLOW;
  return LOOM_OK;
}

}  // namespace loom
