// A fresh seed per run for randomized tests that explore rather than
// replay: printed so a failure can be rerun, overridable with
// LOOM_TEST_SEED=<n>.
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace loomtest {

inline uint64_t run_seed(const char *what) {
  const char *v = std::getenv("LOOM_TEST_SEED");
  uint64_t s;
  if (v && *v) {
    s = std::strtoull(v, nullptr, 0);
  } else {
    std::random_device rd;
    s = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }
  std::printf("%s: seed %" PRIu64 " (rerun: LOOM_TEST_SEED=%" PRIu64 ")\n", what, s, s);
  std::fflush(stdout);
  return s;
}

}  // namespace loomtest
