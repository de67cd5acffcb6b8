// Checkpoint-parallel pack and unpack (loom.h): argument checks mirror the
// single-threaded calls, the checkpoint cache is bounded and reported, a
// freed type does not leave a usable entry behind, and several user
// threads may run parallel packs at once (the pool then runs some alone).
// Byte-identity on random types is in the differential test (parallel()).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <limits>
#include <vector>

#include "checkpoint_cache.hpp"
#include "timed_choice.hpp"
#include "loom.h"

namespace {

// A vector of `blocks` doubles, every other one: a 4 MiB message at 524288.
loom_type column(int64_t blocks) {
  loom_type d = nullptr, v = nullptr;
  EXPECT_EQ(loom_type_primitive(LOOM_DOUBLE, &d), LOOM_OK);
  EXPECT_EQ(loom_type_vector(blocks, 1, 2, d, &v), LOOM_OK);
  EXPECT_EQ(loom_type_commit(v), LOOM_OK);
  loom_type_free(d);
  return v;
}

std::vector<double> source(int64_t blocks) {
  std::vector<double> a((size_t)blocks * 2);
  for (size_t i = 0; i < a.size(); ++i) a[i] = (double)i;
  return a;
}

TEST(Parallel, ChecksMirrorTheSingleThreadedCalls) {
  loom_type v = column(1024);
  std::vector<double> a = source(1024);
  std::vector<char> out(8192);
  size_t pos = 0;
  EXPECT_EQ(loom_pack_parallel(a.data(), 1, v, out.data(), out.size(), &pos, -1), LOOM_ERR_ARG);
  EXPECT_EQ(loom_pack_parallel(a.data(), 1, nullptr, out.data(), out.size(), &pos, 2),
            LOOM_ERR_TYPE);
  EXPECT_EQ(loom_pack_parallel(a.data(), -1, v, out.data(), out.size(), &pos, 2), LOOM_ERR_COUNT);
  EXPECT_EQ(loom_pack_parallel(a.data(), 1, v, out.data(), 8191, &pos, 2), LOOM_ERR_TRUNCATE);
  EXPECT_EQ(pos, 0u);
  EXPECT_EQ(loom_pack_parallel(a.data(), 1, v, out.data(), out.size(), nullptr, 2), LOOM_ERR_ARG);
  EXPECT_EQ(loom_unpack_parallel(out.data(), 8191, &pos, a.data(), 1, v, 2), LOOM_ERR_TRUNCATE);
  EXPECT_EQ(loom_pack_range_parallel(a.data(), 1, v, 8000, 193, out.data(), 2), LOOM_ERR_RANGE);
  EXPECT_EQ(loom_pack_range_parallel(a.data(), 1, v, 0, 8, nullptr, 2), LOOM_ERR_ARG);
  EXPECT_EQ(loom_pack_range_parallel(a.data(), 1, v, 0, 0, nullptr, 2), LOOM_OK);  // nothing
  loom_type_free(v);
}

TEST(Parallel, AutomaticThreadsFollowTheSize) {
  EXPECT_EQ(loom_parallel_threads(0), 1);
  EXPECT_EQ(loom_parallel_threads(64 << 10), 1);  // small messages stay single-threaded
  const int hw = (int)std::thread::hardware_concurrency();
  EXPECT_EQ(loom_parallel_threads(size_t(1) << 40), hw > 0 ? hw : 1);
}

// Packs of 4 MiB with 2 threads: the bytes of one thread, checkpoints
// cached once per (type, count) within the bound, none kept with bound 0.
TEST(Parallel, CheckpointCacheIsBoundedAndReported) {
  loom::set_checkpoint_min_interval(int64_t(64) << 10);
  const int64_t blocks = 524288;
  loom_type v = column(blocks);
  std::vector<double> a = source(blocks);
  std::vector<char> one((size_t)blocks * 8), two(one.size());
  size_t p1 = 0, p2 = 0;
  ASSERT_EQ(loom_pack(a.data(), 1, v, one.data(), one.size(), &p1), LOOM_OK);
  ASSERT_EQ(loom_pack_parallel(a.data(), 1, v, two.data(), two.size(), &p2, 2), LOOM_OK);
  EXPECT_EQ(p2, p1);
  EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size()), 0);
  const size_t held = loom_checkpoint_cache_bytes();
  EXPECT_GT(held, 0u);
  EXPECT_LE(held, loom_checkpoint_cache_limit());
  // Again: the same set, nothing more held.
  p2 = 0;
  ASSERT_EQ(loom_pack_parallel(a.data(), 1, v, two.data(), two.size(), &p2, 2), LOOM_OK);
  EXPECT_EQ(loom_checkpoint_cache_bytes(), held);
  const size_t limit = loom_checkpoint_cache_limit();
  loom_set_checkpoint_cache_limit(0);
  EXPECT_EQ(loom_checkpoint_cache_bytes(), 0u);
  p2 = 0;
  std::memset(two.data(), 0, two.size());
  ASSERT_EQ(loom_pack_parallel(a.data(), 1, v, two.data(), two.size(), &p2, 2), LOOM_OK);
  EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size()), 0);  // built, used, not kept
  EXPECT_EQ(loom_checkpoint_cache_bytes(), 0u);
  loom_set_checkpoint_cache_limit(limit);
  loom_type_free(v);
}

// Both directions of (v, 1) timed `calls` calls and have a verdict.
void expect_settled(loom_type v, uint64_t calls) {
  std::shared_ptr<const loom::CheckpointSet> set = loom::checkpoints_for(v, 1);
  ASSERT_TRUE(set);
  for (int dir = 0; dir < 2; ++dir) {
    const loom::TimedChoice &c = set->choice[dir];
    EXPECT_EQ(c.calls(), calls) << "direction " << dir;
    EXPECT_NE(c.verdict(), loom::TimedChoice::kUndecided) << "direction " << dir;
  }
}

// threads = 0: the calls of a (type, count) and direction are timed into
// its TimedChoice, which has a verdict once its trials are done; the bytes
// are one thread's throughout, in both directions.
TEST(Parallel, AutomaticChoiceIsMeasuredThenSettled) {
  if (loom_parallel_threads(size_t(4) << 20) < 2) GTEST_SKIP() << "one hardware thread";
  loom::set_checkpoint_min_interval(int64_t(64) << 10);
  const int64_t blocks = 524288;
  loom_type v = column(blocks);
  const std::vector<double> a = source(blocks);
  std::vector<double> b(a.size(), -1.0), want(a.size(), -1.0);
  std::vector<char> one((size_t)blocks * 8), two(one.size());
  size_t p = 0;
  ASSERT_EQ(loom_pack(a.data(), 1, v, one.data(), one.size(), &p), LOOM_OK);
  p = 0;
  ASSERT_EQ(loom_unpack(one.data(), one.size(), &p, want.data(), 1, v), LOOM_OK);
  const int calls = 2 * loom::TimedChoice::kTrials + 4;
  for (int call = 0; call < calls; ++call) {
    std::memset(two.data(), 0, two.size());
    std::fill(b.begin(), b.end(), -1.0);
    size_t q = 0, r = 0;
    ASSERT_EQ(loom_pack_parallel(a.data(), 1, v, two.data(), two.size(), &q, 0), LOOM_OK);
    ASSERT_EQ(q, one.size());
    ASSERT_EQ(std::memcmp(one.data(), two.data(), one.size()), 0) << "pack call " << call;
    ASSERT_EQ(loom_unpack_parallel(one.data(), one.size(), &r, b.data(), 1, v, 0), LOOM_OK);
    ASSERT_EQ(r, one.size());
    ASSERT_EQ(b, want) << "unpack call " << call;
  }
  expect_settled(v, calls);
  loom_type_free(v);
}

// The choice on a machine whose speed changes: fed times of a side that
// turns slower, then faster again, it follows within a few probes, and a
// stable verdict probes less and less often.  One thread after several
// takes 5x its time (its buffers are in the other core's cache) and must
// not count; several after one lose 2% (what the probe of several, one
// call, pays).
TEST(Parallel, TimedChoiceFollowsTheFasterSide) {
  using TC = loom::TimedChoice;
  TC choice;
  double several = 1.0, one = 2.0;  // time per byte of each side, warm
  bool last = false;
  uint64_t on_several = 0;
  auto run = [&](uint64_t calls) {
    on_several = 0;
    for (uint64_t i = 0; i < calls; ++i) {
      const TC::Call c = choice.plan();
      on_several += c.alt;
      const double t = c.alt ? several : one;
      choice.record(c, c.alt == last ? t : c.alt ? 1.02 * t : 5 * t);
      last = c.alt;
    }
  };
  run(2 * TC::kTrials);
  EXPECT_EQ(on_several, TC::kTrials);  // the trials alternate pairs
  EXPECT_EQ(choice.verdict(), TC::kAlt);
  // Stable: probes at 16, 32, ... calls apart up to kProbeMax.
  run(20000);
  EXPECT_EQ(choice.verdict(), TC::kAlt);
  EXPECT_GE(on_several, 20000u - 60u);
  EXPECT_LE(choice.probes(), 7u + 20000u / TC::kProbeMax + 1);
  // Several turn 1.5x slower than one: a majority of their window of
  // samples switches.
  several = 3.0;
  run(TC::kWindow / 2 + 1);
  EXPECT_EQ(choice.verdict(), TC::kBase);
  run(1000);
  EXPECT_LE(on_several, 20u);  // probes only
  // Several turn faster again: the next probe (the gap has grown to at
  // most kProbeMax) wins alone and is repeated every kProbeFirst calls
  // until a majority of the window is fast.
  several = 1.0;
  run(TC::kProbeMax + (TC::kWindow / 2 + 1) * (TC::kProbeFirst + 2));
  EXPECT_EQ(choice.verdict(), TC::kAlt);
  EXPECT_GE(on_several, 16u);
  // Equal within 5%: one, and several are still probed, backing off: a
  // probe slightly faster than one but not 5% loses without a cost.
  several = 0.97 * one;
  run(10);
  EXPECT_EQ(choice.verdict(), TC::kBase);
  run(2000);
  EXPECT_EQ(choice.verdict(), TC::kBase);
  EXPECT_GE(on_several, 5u);
  EXPECT_LE(on_several, 8u);
  // Several 40x slower (a preempted runner): a probe that loses that much
  // waits until it is 1/kProbeShare of the calls since.
  several = 40 * one;
  run(5000);
  EXPECT_LE(on_several, 3u);
  // A failed call counts as the slowest.
  TC failing;
  for (uint32_t i = 0; i < 2 * TC::kTrials; ++i) {
    const TC::Call c = failing.plan();
    failing.record(c, c.alt ? std::numeric_limits<double>::infinity() : 1.0);
  }
  EXPECT_EQ(failing.verdict(), TC::kBase);
}

// Tie::kKeep (the kernel alternatives): a verdict changes only when the
// other side is at least 5% faster, where Tie::kBase returns to the base
// as soon as the alternative is not.
TEST(Parallel, TimedChoiceKeepsItsVerdictWithinFivePercent) {
  using TC = loom::TimedChoice;
  for (const TC::Tie tie : {TC::Tie::kBase, TC::Tie::kKeep}) {
    TC choice(tie);
    double alt = 1.0, base = 2.0;
    auto run = [&](uint64_t calls) {
      for (uint64_t i = 0; i < calls; ++i) {
        const TC::Call c = choice.plan();
        choice.record(c, c.alt ? alt : base);
      }
    };
    run(2 * TC::kTrials);
    ASSERT_EQ(choice.verdict(), TC::kAlt);
    // The base turns 3% faster than the alternative: under kBase the
    // alternative loses at once, under kKeep it keeps the verdict (its
    // probes of the base, 3% faster, lose).
    base = 0.97 * alt;
    run(TC::kWindow + 2000);
    EXPECT_EQ(choice.verdict(), tie == TC::Tie::kKeep ? TC::kAlt : TC::kBase);
    // The base 10% faster: both take it, within a window of probes.
    base = 0.9 * alt;
    run(TC::kProbeMax + (TC::kWindow / 2 + 1) * (TC::kProbeFirst + 2));
    EXPECT_EQ(choice.verdict(), TC::kBase);
    // The alternative 3% faster than the base: neither returns to it.
    alt = 0.97 * base;
    run(2000);
    EXPECT_EQ(choice.verdict(), TC::kBase);
  }
}

// Cache::kSameCore (two kernels of one thread): trials alternate single
// calls, every call is a sample (none warms the other side's caches), and
// a probe of the losing side is one call, where kOtherCore takes two for a
// probe of the base.
TEST(Parallel, TimedChoiceOfOneThreadSamplesEveryCall) {
  using TC = loom::TimedChoice;
  for (const TC::Cache cache : {TC::Cache::kSameCore, TC::Cache::kOtherCore}) {
    const bool same = cache == TC::Cache::kSameCore;
    TC choice(TC::Tie::kKeep, cache);
    uint64_t on_base = 0;
    for (uint32_t k = 0; k < 2 * TC::kTrials; ++k) {
      const TC::Call c = choice.plan();
      EXPECT_EQ(c.alt, (same ? k : k / 2) % 2 == 0) << "trial " << k;
      EXPECT_EQ(c.warm, !same && k % 2 == 0 && k > 0) << "trial " << k;
      choice.record(c, c.alt ? 1.0 : 1.4);
    }
    ASSERT_EQ(choice.verdict(), TC::kAlt);
    const uint64_t probes_before = choice.probes();
    for (int i = 0; i < 20000; ++i) {
      const TC::Call c = choice.plan();
      EXPECT_FALSE(same && c.warm);
      on_base += !c.alt;
      choice.record(c, c.alt ? 1.0 : 1.4);
    }
    EXPECT_EQ(choice.verdict(), TC::kAlt);
    const uint64_t probes = choice.probes() - probes_before;
    EXPECT_GE(probes, 5u);
    EXPECT_EQ(on_base, (same ? 1 : 2) * probes) << (same ? "kSameCore" : "kOtherCore");
  }
}

// A type freed while cached stays alive in the cache (its reference), so
// a new type at the same address never meets the old one's checkpoints.
TEST(Parallel, FreedTypeIsNotConfusedWithItsSuccessor) {
  loom::set_checkpoint_min_interval(int64_t(64) << 10);
  const int64_t blocks = 524288;
  std::vector<double> a = source(blocks);
  for (int stride = 2; stride <= 3; ++stride) {
    loom_type d = nullptr, v = nullptr;
    ASSERT_EQ(loom_type_primitive(LOOM_DOUBLE, &d), LOOM_OK);
    ASSERT_EQ(loom_type_vector(blocks / 2, 1, stride, d, &v), LOOM_OK);
    ASSERT_EQ(loom_type_commit(v), LOOM_OK);
    loom_type_free(d);
    std::vector<char> one((size_t)blocks * 4), two(one.size());
    size_t p1 = 0, p2 = 0;
    ASSERT_EQ(loom_pack(a.data(), 1, v, one.data(), one.size(), &p1), LOOM_OK);
    ASSERT_EQ(loom_pack_parallel(a.data(), 1, v, two.data(), two.size(), &p2, 2), LOOM_OK);
    EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size()), 0) << "stride " << stride;
    loom_type_free(v);
  }
}

// Several user threads at once: each gets its own bytes.
TEST(Parallel, ConcurrentCallers) {
  loom::set_checkpoint_min_interval(4096);
  const int64_t blocks = 65536;
  loom_type v = column(blocks);
  std::vector<double> a = source(blocks);
  std::vector<char> want((size_t)blocks * 8);
  size_t p = 0;
  ASSERT_EQ(loom_pack(a.data(), 1, v, want.data(), want.size(), &p), LOOM_OK);
  std::vector<int> ok(4, 0);
  std::vector<std::thread> ts;
  for (int i = 0; i < 4; ++i)
    ts.emplace_back([&, i] {
      std::vector<char> out(want.size());
      int good = 1;
      for (int r = 0; r < 20; ++r) {
        size_t q = 0;
        good &= loom_pack_parallel(a.data(), 1, v, out.data(), out.size(), &q, 2) == LOOM_OK &&
                std::memcmp(out.data(), want.data(), out.size()) == 0;
      }
      ok[i] = good;
    });
  for (auto &t : ts) t.join();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ok[i], 1) << "thread " << i;
  loom_type_free(v);
  loom::set_checkpoint_min_interval(int64_t(64) << 10);
}

}  // namespace
