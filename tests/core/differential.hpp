// One random differential trial: a random type tree and count, every Loom
// data-movement entry point checked against the reference interpreter.
#pragma once

#include <cstdint>
#include <string>

#include "type_spec.hpp"

namespace loomtest {

struct TrialResult {
  std::string error;     // "" on success; else what failed, with context
  std::string type;      // describe() of the tree
  int64_t count = 0;
  int64_t packed = 0;    // bytes in the packed stream
};

// Deterministic in `seed`: the tree, the count, the buffer contents and every
// chunk schedule derive from it.  A given `spec` (and `count` >= 0) replaces
// the random tree (and count).
TrialResult run_trial(uint64_t seed, TypeSpecPtr spec = nullptr, int64_t count = -1);

}  // namespace loomtest
