#include "run_moves.hpp"

#include <algorithm>

namespace loom {

std::shared_ptr<const RunMoves> make_run_moves(const Node &vec, int max_moves) {
  std::vector<Run> runs;
  if (!runs_of(*vec.child, 0, (size_t)max_moves, runs)) return nullptr;
  // Neighbours in memory are one run (an index block's adjacent blocks).
  std::vector<Run> merged;
  for (const Run &r : runs) {
    if (!merged.empty() && merged.back().off + merged.back().len == r.off) merged.back().len += r.len;
    else merged.push_back(r);
  }
  // Disjoint runs only: moves in any order then write what the runs in
  // order would (a receive type's overlapping runs are erroneous, but their
  // last writer must still win).
  auto sorted = merged;
  std::sort(sorted.begin(), sorted.end(), [](const Run &a, const Run &b) { return a.off < b.off; });
  for (size_t j = 1; j < sorted.size(); j++)
    if (sorted[j - 1].off + sorted[j - 1].len > sorted[j].off) return nullptr;
  std::vector<std::array<int64_t, 2>> by_width[RunMoves::kWidths];
  int64_t q = 0, moves = 0;
  for (const auto &[u, n] : merged) {
    auto add = [&](int w, int64_t o) {
      by_width[w].push_back({u + o, q + o});
      moves++;
    };
    if (n >= 32) {
      // Before listing them: a block of a gigabyte would list 2^25.
      if (moves + n / 32 + 1 > max_moves) return nullptr;
      for (int64_t o = 0; o + 32 <= n; o += 32) add(0, o);
      // Then one move of the smallest width that ends the run (over
      // bytes moved where the rest is no power of two): 80 bytes as 32,
      // 32, 16, where a third 32-byte move overlapped the second by 16.
      // Blocks of 40-200 bytes (floats, doubles, shorts) packed 1.06-1.19x
      // and unpacked 1.01-1.29x faster so (2-64 KiB; with AVX-512's
      // 64-byte moves, jit_moves.cpp by_zmm), random wide blocks 1.01-1.02x,
      // other shapes 1.00x (in-process A/B, Intel Xeon VM).
      if (n % 32) {
        const int32_t w = move_width(n % 32);
        add(__builtin_ctz(32 / w), n - w);
      }
    } else {
      // Two overlapping moves of one width (12 bytes as 8 and 8 from 4):
      // 8 and 4 packed 3 floats of every 4 in rows 0.77-0.83x as fast
      // (in-process A/B, Intel Xeon VM).
      int w = 1;
      while ((32 >> w) > n) w++;
      add(w, 0);
      if (n != (32 >> w)) add(w, n - (32 >> w));
    }
    q += n;
    if (moves > max_moves) return nullptr;
  }
  auto t = std::make_shared<RunMoves>();
  for (int w = 0; w < RunMoves::kWidths; w++) {
    t->count[w] = (int32_t)by_width[w].size();
    for (const auto &[u, s] : by_width[w]) {
      if (u < INT32_MIN || u > INT32_MAX || s > INT32_MAX) return nullptr;
      t->at.push_back({(int32_t)u, (int32_t)s});
    }
  }
  return t;
}

}  // namespace loom
