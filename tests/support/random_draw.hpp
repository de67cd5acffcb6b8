// Random draws shared by the type generators (random_spec.cpp: free-form
// trees; signature_spec.cpp: trees with a given type signature).  Internal
// to tests/support.
#pragma once

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "type_spec.hpp"

namespace loomtest {

struct Draw {
  std::mt19937_64 &rng;

  int64_t uni(int64_t lo, int64_t hi) {  // inclusive
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng); }

  // A displacement list: usually monotone with gaps (no overlap), forwards
  // or backwards, sometimes shuffled or fully random.
  std::vector<int64_t> displs(size_t n, int64_t unit, const std::vector<int64_t> &bl) {
    std::vector<int64_t> d(n);
    int mode = static_cast<int>(uni(0, 9));
    int64_t pos = uni(-4, 4) * unit;
    for (size_t i = 0; i < n; ++i) {
      if (mode == 9) {
        d[i] = uni(-12, 12) * unit;
      } else {
        d[i] = pos;
        pos += (bl[i] + uni(0, 2)) * unit;
      }
    }
    if (mode == 7) std::reverse(d.begin(), d.end());
    if (mode == 8) std::shuffle(d.begin(), d.end(), rng);
    return d;
  }

  // One of the pair types (MPI_FLOAT_INT, MPI_DOUBLE_INT, ... MPI_2INTEGER).
  loom_prim pair_prim() {
    return static_cast<loom_prim>(uni(LOOM_FLOAT_INT, LOOM_2INTEGER));
  }

  // lb and extent for resized(c) in any relation to c's data: lb below, at
  // or above the true lb; extent smaller than, equal to or larger than the
  // true extent, equal to the size (dense memory where the data are), zero
  // or negative.
  std::pair<int64_t, int64_t> wild_bounds(const Layout &c) {
    const int64_t tl = c.true_lb, te = c.true_extent();
    int64_t lb = tl;
    switch (uni(0, 2)) {
      case 0: lb = tl - uni(1, 16); break;
      case 1: break;
      default: lb = tl + uni(1, std::max<int64_t>(te, 1)); break;
    }
    int64_t ext = te;
    switch (uni(0, 5)) {
      case 0: ext = te > 1 ? uni(1, te - 1) : te; break;
      case 1: break;
      case 2: ext = te + uni(1, 16); break;
      case 3: ext = c.size; break;
      case 4: ext = 0; break;
      default: ext = -uni(1, te + 16); break;
    }
    return {lb, ext};
  }
};

}  // namespace loomtest
