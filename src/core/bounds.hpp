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

/// Fills size/lb/ub/true bounds/align/nelems/markers/homogeneous of `out`.
/// `is_struct` applies the struct rules (alignment padding, marker mixing
/// per out->rule).  Returns false when a value overflows 64 bits.
bool compute_bounds(loom_type_s *out, const std::vector<Piece> &pieces,
                    bool is_struct);

}  // namespace loom
