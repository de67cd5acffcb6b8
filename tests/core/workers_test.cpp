// The worker pool (src/core/workers.hpp): every call runs work(i) exactly
// once for each of its runners and returns only after all have returned,
// also when calls with different runner counts follow each other closely
// (a pool thread not needed by one call must not take the next call's
// runner count for the older call's, run twice, and let the caller return
// while another runner still uses the caller's stack).
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "workers.hpp"

TEST(Workers, EachRunnerOnceAndNoneAfterReturn) {
  std::atomic<int> active{0};
  int bad_counts = 0, still_running = 0;
  for (int call = 0; call < 20000; ++call) {
    // 2 and 5 runners alternating, with runs of the same count between:
    // pool threads 2..4 sit out the 2-runner calls.
    const int n = (call % 3 == 0) ? 5 : 2;
    std::vector<std::atomic<int>> runs(8);
    const std::function<void(int)> work = [&](int id) {
      active.fetch_add(1);
      runs[id].fetch_add(1);
      for (volatile int spin = 0; spin < 200; spin = spin + 1) {
      }
      active.fetch_sub(1);
    };
    const int ran = loom::run_parallel(n, work);
    if (active.load() != 0) ++still_running;
    for (int id = 0; id < 8; ++id)
      if (runs[id].load() != (id < ran ? 1 : 0)) ++bad_counts;
  }
  EXPECT_EQ(still_running, 0) << "calls that returned while a runner was still working";
  EXPECT_EQ(bad_counts, 0) << "runners that ran other than once";
}
