// The interleaving order of loom bench pack, p2p and coll
// (tools/bench/balanced_sequence.h):
// for every number of operations, each runs equally often and follows
// every other one exactly once, a pass read as a cycle, and passes from
// one seed differ.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <utility>

#include "balanced_sequence.h"

TEST(BalancedSequence, EveryOperationFollowsEveryOtherOnce) {
  std::mt19937_64 rng(1);
  for (size_t n = 2; n <= 12; ++n) {
    const std::vector<size_t> s = loom_bench::balanced_sequence(n, rng);
    ASSERT_EQ(s.size(), n * (n - 1)) << n << " operations";
    std::map<std::pair<size_t, size_t>, int> pairs;
    std::vector<int> runs(n);
    for (size_t k = 0; k < s.size(); ++k) {
      ASSERT_LT(s[k], n);
      ++runs[s[k]];
      ++pairs[{s[k], s[(k + 1) % s.size()]}];
    }
    for (size_t a = 0; a < n; ++a) {
      EXPECT_EQ(runs[a], (int)(n - 1)) << "operation " << a << " of " << n;
      for (size_t b = 0; b < n; ++b)
        EXPECT_EQ(pairs[std::make_pair(a, b)], a == b ? 0 : 1) << a << " then " << b << " of " << n;
    }
  }
  EXPECT_EQ(loom_bench::balanced_sequence(1, rng), std::vector<size_t>{0});
  std::set<std::vector<size_t>> passes;
  for (int k = 0; k < 10; ++k) passes.insert(loom_bench::balanced_sequence(7, rng));
  EXPECT_GE(passes.size(), 9u) << "passes repeat";
}
