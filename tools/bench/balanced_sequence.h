// The order in which `loom bench pack` interleaves its operations
// (harness.cpp).  Header-only so that tests/bench can check it.
#pragma once

#include <cstddef>
#include <vector>

namespace loom_bench {

// The order in which n operations run, over and over: every operation
// right after every other one exactly once (an Eulerian circuit of the
// complete directed graph on n nodes, Hierholzer's walk), n - 1 runs of
// each.  Orders shuffled per round were balanced only on average, and
// rounds of a balanced design (a Williams square) not across the end of a
// round: one operation followed another half as often again as the rest.
inline std::vector<size_t> balanced_sequence(size_t n) {
  if (n < 2) return std::vector<size_t>(n, 0);
  std::vector<size_t> next(n, 0), stack{0}, circuit;  // next[v]: next successor to try
  while (!stack.empty()) {
    const size_t v = stack.back();
    if (next[v] == v) ++next[v];
    if (next[v] < n) {
      stack.push_back(next[v]++);
    } else {
      circuit.push_back(v);
      stack.pop_back();
    }
  }
  circuit.pop_back();  // back at the start: the sequence repeats from there
  return {circuit.rbegin(), circuit.rend()};
}

}  // namespace loom_bench
