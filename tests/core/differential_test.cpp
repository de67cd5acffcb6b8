// Random differential test: >= 20,000 random type trees per run, split in
// shards so that ctest -j runs them in parallel.  Each failure prints the
// seed, the count and the type; LOOM_TEST_REPLAY=<seed> reruns one tree.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <random>

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
  std::fflush(stdout);  // a crash must not take the seeds with it
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

// Transposes large enough for the tiled kernel (columns spanning more than
// L1): 4-, 8- and 16-byte elements, column counts that leave a remainder,
// negative strides, and every chunk order of the trial.
TEST(Kernels, Transposes) {
  auto column = [](int64_t rows, int64_t stride, int64_t elem, TypeSpecPtr e) {
    return resized(vector(rows, 1, stride, e), 0, elem);
  };
  const TypeSpecPtr dbl = prim(LOOM_DOUBLE), flt = prim(LOOM_FLOAT);
  const TypeSpecPtr cplx = contig(2, dbl);
  const std::vector<std::pair<TypeSpecPtr, int64_t>> cases = {
      {contig(64, column(64, 512, 16, cplx)), 2},             // FFT2D shape
      {contig(37, column(100, 1000, 4, flt)), 1},             // K=8, remainder 5
      {contig(19, column(80, 600, 8, dbl)), 3},               // K=8, remainder 3
      {hvector(21, 1, -8, column(70, 700, 8, dbl)), 1},       // negative column step
      {hvector(9, 1, 32, column(50, -1200, 16, cplx)), 2},    // gaps, rows upward
      {contig(12, column(300, 1, 4, flt)), 1},                // short rows: untiled
  };
  uint64_t seed = 0x7A11;
  for (const auto &c : cases) {
    TrialResult r = run_trial(seed++, c.first, c.second);
    if (!r.error.empty()) report(seed - 1, r);
  }
}

// Transposes over deeper nests (kernels.cpp k_vec_columns, Flash I/O's
// shape): 4-, 8- and 16-byte blocks in columns side by side, each column
// 2 to 4 strided levels spanning 32 KiB or more, rows of 1 to 70 blocks
// (prefetched ahead or not), column counts that leave a remainder; the
// levels nested (packed and unpacked by the transpose) or not (rows
// upward, columns wider than a row's stride: packed only).
TEST(Kernels, DeepTransposes) {
  const uint64_t seed = base_seed(0xF1A5);
  std::mt19937_64 rng(seed);
  auto uni = [&](int64_t a, int64_t b) { return std::uniform_int_distribution<int64_t>(a, b)(rng); };
  const TypeSpecPtr kElem[] = {prim(LOOM_FLOAT), prim(LOOM_DOUBLE), contig(2, prim(LOOM_DOUBLE))};
  for (int i = 0; i < 24; ++i) {
    const int e = (int)uni(0, 2);
    const int64_t b = int64_t(4) << e, k = e == 2 ? 4 : 8;
    const int64_t cols = uni(k, 3 * k + 2), row_gap = uni(0, 1) ? b * uni(0, 8) : -b * uni(1, 8);
    const int64_t rows = uni(0, 2) ? uni(1, 12) : uni(40, 70);
    int64_t rstride = cols * b + row_gap;
    if (uni(0, 3) == 0) rstride = -rstride;
    TypeSpecPtr t = hvector(rows, 1, rstride, kElem[e]);
    int64_t span = rows * (rstride < 0 ? -rstride : rstride);
    for (int64_t l = uni(1, 3); l > 0 || span < (int64_t(32) << 10); --l) {
      const int64_t stride = span + b * uni(0, 16);
      t = hvector(uni(2, 6), 1, stride, t);
      span = stride * 6;
    }
    const TypeSpecPtr spec = contig(cols, resized(t, 0, b));
    TrialResult r = run_trial(seed + (uint64_t)i, spec, 1);
    if (!r.error.empty()) report(seed + (uint64_t)i, r);
  }
}

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
