// The report of `loom tune`: every case's measured times per scheme, and
// the check: how often the scheme the selector picks (from the
// profile just written) is within 5% of the fastest one measured.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "profile.hpp"
#include "select.hpp"

namespace loom_tune {

// One case's medians (seconds per message; NaN: not measured).
struct CaseTimes {
  std::string name;
  int run_index = -1, bytes_index = -1;  // grid cell; -1: off the grid
  size_t bytes = 0;
  int64_t mean_run = 0, elem_size = 0;
  double pack = NAN;  // seconds Loom takes to pack one message (median)
  // Contiguous data: the drop-in moves it by the profile's contiguous rows
  // (read in place or the system's copy), not by selection; only system
  // and single_copy are measured.
  bool contiguous = false;
  double t[loom::xfer::kSchemeCount];
};

// The selector's pick may be this much slower than the fastest scheme.
constexpr double kWithin = 1.05;

// Prints the table and the check (all cases; grid cells in sample and each
// left out of the profile; layouts off the grid), listing the misses.
// Returns whether every grid cell in sample agrees: the profile read back
// must reproduce what was measured.
bool print_tune_report(std::FILE *f, const std::vector<CaseTimes> &cases,
                       const loom::xfer::Profile &profile, const loom::xfer::Rules &rules);

// One case of the collective sweep: its medians per block size.
struct CollTimes {
  std::string name;
  loom::xfer::CollPoint point;
};

// Prints the collective sweep (per case: Loom-to-Loom, staged, their
// ratio) and the crossover the profile holds (coll_min).
void print_coll_report(std::FILE *f, const std::vector<CollTimes> &cases, size_t coll_min);

}  // namespace loom_tune
