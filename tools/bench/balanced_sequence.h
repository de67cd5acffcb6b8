// The order in which `loom bench pack`, `p2p` and `coll` interleave their
// operations (harness.cpp, p2p_harness.cpp).  Header-only so that
// tests/bench can check it.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace loom_bench {

// One pass of n operations in which every operation runs right after
// every other one exactly once (an Eulerian circuit of the complete
// directed graph on n nodes, Hierholzer's walk, successors tried in an
// order drawn from `rng`): n - 1 runs of each, the last run followed by
// the first.
//
// Orders shuffled per round were balanced only on average, and one fixed
// circuit (successors in index order) only to first order: it runs an
// operation every other step for a while (0 1 0 2 0 3 ...), so what ran
// two or three steps before differed between contenders, the same in
// every pass (memcpy against the same memcpy read 0.77x, unpacking Struct
// Array).  A fresh random circuit per pass keeps the first order exact and
// evens out the rest.
template <class Rng>
std::vector<size_t> balanced_sequence(size_t n, Rng &rng) {
  if (n < 2) return std::vector<size_t>(n, 0);
  std::vector<std::vector<size_t>> succ(n);  // successors still to take, last first
  for (size_t v = 0; v < n; ++v) {
    for (size_t u = 0; u < n; ++u)
      if (u != v) succ[v].push_back(u);
    for (size_t j = succ[v].size() - 1; j > 0; --j) std::swap(succ[v][j], succ[v][rng() % (j + 1)]);
  }
  const size_t start = rng() % n;
  std::vector<size_t> stack{start}, circuit;
  while (!stack.empty()) {
    const size_t v = stack.back();
    if (!succ[v].empty()) {
      stack.push_back(succ[v].back());
      succ[v].pop_back();
    } else {
      circuit.push_back(v);
      stack.pop_back();
    }
  }
  circuit.pop_back();  // back at the start: the next pass follows on
  return {circuit.rbegin(), circuit.rend()};
}

// One pass of n operations in balanced_sequence's order: run(j) for each
// operation j whose samples(j) is still below `target` (--reps and
// --quick may end within a pass).  After a pass every operation has the
// same number of samples, at most `target`.
template <class Rng, class Samples, class Run>
void balanced_pass(size_t n, size_t target, Rng &rng, Samples samples, Run run) {
  for (size_t j : balanced_sequence(n, rng))
    if (samples(j) < target) run(j);
}

}  // namespace loom_bench
