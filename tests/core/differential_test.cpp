// Random differential test: >= 20,000 random type trees per run, split in
// shards so that ctest -j runs them in parallel.  Each failure prints the
// seed, the count and the type; LOOM_TEST_REPLAY=<seed> reruns one tree.
#include <gtest/gtest.h>

#include <cinttypes>

#include "differential.hpp"
#include "test_env.hpp"

namespace loomtest {
namespace {

constexpr int kShards = LOOM_DIFF_SHARDS;  // set by CMake, one ctest per shard
constexpr int kTreesPerShard = 20480 / kShards;  // 20,480 trees per run
constexpr uint64_t kDefaultSeed = 0x100000;

void report(uint64_t seed, const TrialResult &r) {
  ADD_FAILURE() << "seed " << seed << " (replay: LOOM_TEST_REPLAY=" << seed
                << ") count " << r.count << " packed " << r.packed << " bytes\n  type: "
                << r.type << "\n  " << r.error;
}

class Differential : public ::testing::TestWithParam<int> {};

TEST_P(Differential, RandomTrees) {
  const int shard = GetParam();
  const int n = static_cast<int>(kTreesPerShard * test_scale());
  // Shards cover disjoint seed ranges whatever the scale.
  const uint64_t base = base_seed(kDefaultSeed) + static_cast<uint64_t>(shard) * static_cast<uint64_t>(n);
  std::printf("shard %d: seeds %" PRIu64 "..%" PRIu64 "\n", shard, base, base + n - 1);
  int failures = 0;
  int64_t bytes = 0;
  for (int i = 0; i < n && failures < 5; ++i) {
    TrialResult r = run_trial(base + static_cast<uint64_t>(i));
    bytes += r.packed;
    if (!r.error.empty()) {
      report(base + static_cast<uint64_t>(i), r);
      ++failures;
    }
  }
  std::printf("shard %d: %d trees, %lld packed bytes, %d failing\n", shard, n,
              static_cast<long long>(bytes), failures);
}

INSTANTIATE_TEST_SUITE_P(Shards, Differential, ::testing::Range(0, kShards));

TEST(Differential, Replay) {
  uint64_t seed = env_u64("LOOM_TEST_REPLAY", 0);
  if (!seed) GTEST_SKIP() << "set LOOM_TEST_REPLAY=<seed> to rerun one tree";
  TrialResult r = run_trial(seed);
  std::printf("type: %s\ncount %lld, %lld packed bytes\n", r.type.c_str(),
              static_cast<long long>(r.count), static_cast<long long>(r.packed));
  if (!r.error.empty()) report(seed, r);
}

}  // namespace
}  // namespace loomtest
