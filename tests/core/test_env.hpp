// Seeds and scale for the randomized tests.  Defaults are fixed so that runs
// are deterministic; environment variables override them for exploration:
//   LOOM_TEST_SEED=<n>    base seed of every randomized test
//   LOOM_TEST_REPLAY=<n>  run only this one differential seed (Replay test)
//   LOOM_TEST_SCALE=<x>   multiply the number of random trees
//   LOOM_TEST_DEPTH=<n>   max depth of differential trees (default 4)
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace loomtest {

inline uint64_t env_u64(const char *name, uint64_t dflt) {
  const char *v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : dflt;
}

inline uint64_t base_seed(uint64_t dflt) { return env_u64("LOOM_TEST_SEED", dflt); }

// Sanitized builds run the same trees (they must finish within ~10 minutes
// on two cores); LOOM_TEST_SANITIZED lets us scale down if that ever fails.
inline double test_scale() {
  const char *v = std::getenv("LOOM_TEST_SCALE");
  double s = v && *v ? std::atof(v) : 1.0;
#ifdef LOOM_TEST_SANITIZED
  s *= LOOM_TEST_SANITIZED_SCALE;
#endif
  return s;
}

}  // namespace loomtest
