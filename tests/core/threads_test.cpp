// loom.h: commit is idempotent and thread-safe, and committed types are
// shared between threads.  Plans are built and count-folded lazily, so the
// first uses race; several threads commit and pack the same fresh types at
// once (different counts, so folding races too) and must all get the
// reference bytes.  ASan builds turn a torn plan into a crash.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <random>
#include <thread>

#include "guarded.hpp"
#include "loom_handle.hpp"
#include "test_env.hpp"

namespace loomtest {
namespace {

TEST(Threads, ConcurrentCommitAndPackOfOneType) {
  const uint64_t base = base_seed(0x400000);
  const int rounds = static_cast<int>(60 * test_scale());
  constexpr int kThreads = 4;
  std::atomic<int> failures{0};
  for (int r = 0; r < rounds && failures == 0; ++r) {
    std::mt19937_64 rng(base + static_cast<uint64_t>(r));
    TypeSpecPtr s = random_spec(rng, 4);
    Layout l = reference_layout(*s);
    Type t(to_loom(*s));  // deliberately not committed yet
    ASSERT_TRUE(t) << describe(s);
    std::atomic<int> ready{0};
    std::vector<std::thread> th;
    for (int k = 0; k < kThreads; ++k) {
      th.emplace_back([&, k] {
        const int64_t count = 1 + (k + r) % 4;
        int64_t lo, hi;
        reference_span(l, count, &lo, &hi);
        Guarded src(static_cast<size_t>(hi - lo));
        src.fill(base + static_cast<uint64_t>(r * kThreads + k));
        std::vector<unsigned char> want = reference_pack(l, count, src.data() - lo);
        ++ready;
        while (ready < kThreads) std::this_thread::yield();
        if (loom_type_commit(t.get()) != LOOM_OK) { ++failures; return; }
        Guarded out(want.size());
        size_t pos = 0;
        if (loom_pack(src.data() - lo, count, t.get(), out.data(), want.size(), &pos) != LOOM_OK ||
            out.contents() != want || !out.guard_error().empty())
          ++failures;
      });
    }
    for (auto &x : th) x.join();
    EXPECT_EQ(failures.load(), 0) << "seed " << base + r << " type " << describe(s);
  }
}

// One committed type packed and unpacked with more counts than it keeps
// plans for (8 fold slots, then the 64 counts last used), by several
// threads at once, so that plans are kept, replaced while another thread
// may use them, and built again; every count against the reference.
TEST(Threads, ManyCountsOfOneTypeAtOnce) {
  const uint64_t base = base_seed(0x410000);
  const int rounds = static_cast<int>(6 * test_scale());
  constexpr int kThreads = 4, kCounts = 100;
  std::printf("seeds %llu..%llu\n", (unsigned long long)base,
              (unsigned long long)(base + rounds - 1));
  for (int r = 0; r < rounds; ++r) {
    std::mt19937_64 rng(base + static_cast<uint64_t>(r));
    TypeSpecPtr s = random_spec(rng, 3);
    Layout l = reference_layout(*s);
    Type t(to_loom(*s));
    ASSERT_TRUE(t && loom_type_commit(t.get()) == LOOM_OK) << describe(s);
    const bool overlaps = reference_overlaps(l, kCounts + 1);
    std::atomic<int> failures{0};
    std::vector<std::thread> th;
    for (int k = 0; k < kThreads; ++k) {
      th.emplace_back([&, k] {
        // Each thread its own order of counts 2 .. kCounts + 1, twice.
        std::vector<int64_t> counts;
        for (int pass = 0; pass < 2; ++pass)
          for (int i = 0; i < kCounts; ++i) counts.push_back(2 + (i * (2 * k + 1) + pass * 37) % kCounts);
        for (int64_t count : counts) {
          int64_t lo, hi;
          reference_span(l, count, &lo, &hi);
          Guarded src(static_cast<size_t>(hi - lo));
          src.fill(base + static_cast<uint64_t>(count * kThreads + k));
          std::vector<unsigned char> want = reference_pack(l, count, src.data() - lo);
          Guarded out(want.size());
          size_t pos = 0;
          if (loom_pack(src.data() - lo, count, t.get(), out.data(), want.size(), &pos) != LOOM_OK ||
              out.contents() != want || !out.guard_error().empty()) {
            ++failures;
            return;
          }
          if (overlaps) continue;  // unpacking into overlapping pieces is erroneous
          Guarded got(static_cast<size_t>(hi - lo)), expect(static_cast<size_t>(hi - lo));
          got.fill(~base), expect.fill(~base);  // the gaps' bytes
          reference_unpack(l, count, want.data(), expect.data() - lo);
          pos = 0;
          if (loom_unpack(want.data(), want.size(), &pos, got.data() - lo, count, t.get()) !=
                  LOOM_OK ||
              got.contents() != expect.contents() || !got.guard_error().empty()) {
            ++failures;
            return;
          }
        }
      });
    }
    for (auto &x : th) x.join();
    EXPECT_EQ(failures.load(), 0) << "seed " << base + r << " type " << describe(s);
  }
}

}  // namespace
}  // namespace loomtest
