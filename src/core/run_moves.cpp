#include "run_moves.hpp"

#include <algorithm>

namespace loom {

namespace {

// The runs of one instance of `n` placed at `at`, in stream order; false
// once there are more than `max`.
bool runs_of(const Node &n, int64_t at, size_t max, std::vector<std::array<int64_t, 2>> &out) {
  switch (n.kind) {
    case Kind::Block:
      out.push_back({at, n.count});
      return out.size() <= max;
    case Kind::IdxV:
      for (int64_t j = 0; j < n.count; j++)
        if (out.push_back({at + n.disp[j], n.lens[j]}), out.size() > max) return false;
      return true;
    case Kind::Vec:
      for (int64_t j = 0; j < n.count; j++)
        if (!runs_of(*n.child, at + j * n.stride, max, out)) return false;
      return true;
    case Kind::Idx:
      for (int64_t j = 0; j < n.count; j++)
        if (!runs_of(*n.child, at + n.disp[j], max, out)) return false;
      return true;
    case Kind::Struct:
      for (size_t j = 0; j < n.kids.size(); j++)
        if (!runs_of(*n.kids[j], at + n.disp[j], max, out)) return false;
      return true;
  }
  return false;
}

}  // namespace

std::shared_ptr<const RunMoves> make_run_moves(const Node &vec, int max_moves) {
  std::vector<std::array<int64_t, 2>> runs;  // user offset, length
  if (!runs_of(*vec.child, 0, (size_t)max_moves, runs)) return nullptr;
  // Neighbours in memory are one run (an index block's adjacent blocks).
  std::vector<std::array<int64_t, 2>> merged;
  for (const auto &r : runs) {
    if (!merged.empty() && merged.back()[0] + merged.back()[1] == r[0]) merged.back()[1] += r[1];
    else merged.push_back(r);
  }
  // Disjoint runs only: moves in any order then write what the runs in
  // order would (a receive type's overlapping runs are erroneous, but their
  // last writer must still win).
  auto sorted = merged;
  std::sort(sorted.begin(), sorted.end());
  for (size_t j = 1; j < sorted.size(); j++)
    if (sorted[j - 1][0] + sorted[j - 1][1] > sorted[j][0]) return nullptr;
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
      if (n % 32) add(0, n - 32);
    } else {
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
