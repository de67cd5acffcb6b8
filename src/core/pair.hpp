// The MINLOC/MAXLOC pair types: two members with a gap between them.
#pragma once
#include "type.hpp"

namespace loom {
struct PairLayout {
  loom_prim first, second;
  int64_t second_off, extent;
};
/// The member layout of a pair type, or nullptr for any other primitive.
const PairLayout *pair_layout(loom_prim p);
}  // namespace loom
