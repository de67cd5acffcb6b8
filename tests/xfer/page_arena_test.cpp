// PageArena (the Loom-to-Loom sender's allocator of its shared arena):
// first fit in whole pages, nothing handed out twice, exhaustion reported,
// pages given back reused; random take/give sequences against a model.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "page_arena.hpp"
#include "run_seed.hpp"

namespace loomtest {
namespace {

using loom::xfer::PageArena;
constexpr size_t P = PageArena::kPage;

TEST(PageArena, FirstFitWholePages) {
  PageArena a(8 * P + 100);  // the partial page is not used
  EXPECT_EQ(a.pages(), 8u);
  EXPECT_EQ(a.take(1), 0u);           // one page
  EXPECT_EQ(a.take(P + 1), 1 * P);    // two pages
  EXPECT_EQ(a.take(0), 3 * P);        // an empty copy still gets a page
  EXPECT_EQ(a.take(5 * P), PageArena::kNone);  // 4 left
  EXPECT_EQ(a.take(4 * P), 4 * P);
  EXPECT_EQ(a.held(), 8u);
  EXPECT_EQ(a.take(1), PageArena::kNone);
  a.give(1 * P, P + 1);
  EXPECT_EQ(a.take(2 * P), 1 * P);  // the hole, reused
  EXPECT_EQ(PageArena(0).take(1), PageArena::kNone);
}

TEST(PageArena, RandomAgainstModel) {
  std::mt19937_64 rng(run_seed("PageArena.RandomAgainstModel"));
  const size_t pages = 1 + rng() % 300;
  PageArena a(pages * P);
  std::map<size_t, size_t> held;  // offset -> bytes
  std::vector<int> owner(pages, 0);
  for (int step = 0; step < 20000; step++) {
    if (held.empty() || rng() % 2) {
      const size_t bytes = rng() % (8 * P);
      const size_t n = bytes == 0 ? 1 : (bytes + P - 1) / P;
      const size_t off = a.take(bytes);
      // The model's first fit.
      size_t want = PageArena::kNone;
      for (size_t p = 0, run = 0; p < pages; p++) {
        run = owner[p] ? 0 : run + 1;
        if (run == n) {
          want = (p + 1 - n) * P;
          break;
        }
      }
      ASSERT_EQ(off, want) << "step " << step;
      if (off == PageArena::kNone) continue;
      for (size_t p = off / P; p < off / P + n; p++) owner[p] = 1;
      held[off] = bytes;
    } else {
      auto it = held.begin();
      std::advance(it, rng() % held.size());
      const size_t n = it->second == 0 ? 1 : (it->second + P - 1) / P;
      a.give(it->first, it->second);
      for (size_t p = it->first / P; p < it->first / P + n; p++) owner[p] = 0;
      held.erase(it);
    }
    size_t used = 0;
    for (int o : owner) used += o;
    ASSERT_EQ(a.held(), used);
  }
}

}  // namespace
}  // namespace loomtest
