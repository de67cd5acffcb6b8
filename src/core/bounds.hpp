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
/// addresses).  Inline for one instance, the most common call: its span,
/// the true extent, fits (compute_bounds).
loom_status message_bytes_many(const loom_type_s *t, int64_t count, int64_t *bytes);
inline loom_status message_bytes(const loom_type_s *t, int64_t count, int64_t *bytes) {
  if (count != 1) return message_bytes_many(t, count, bytes);
  *bytes = t->size;
  return LOOM_OK;
}

}  // namespace loom
