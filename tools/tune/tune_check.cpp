#include "tune_check.h"

#include <cmath>

#include <fmt/format.h>

namespace loom_tune {
namespace {

using loom::xfer::Features;
using loom::xfer::kSchemeCount;
using loom::xfer::Profile;
using loom::xfer::Scheme;
using loom::xfer::scheme_name;

// Whether scheme s was measured on c (the system path only where it can
// carry the layout: elsewhere the drop-in staged what was asked of it).
bool measured(const CaseTimes &c, size_t s) {
  return !std::isnan(c.t[s]) && ((Scheme)s != Scheme::system || c.elem_size > 0);
}

Features features(const CaseTimes &c) {
  Features f;
  f.bytes = c.bytes;
  f.mean_run = (double)c.mean_run;
  f.system_allowed = c.elem_size > 0;
  f.pack_seconds = c.pack;
  for (size_t s = 0; s < kSchemeCount; ++s)
    if (measured(c, s) && loom::xfer::needs_loom_peer((Scheme)s)) f.loom_peer = true;
  return f;
}

// A tally of agreements, with the misses described.
struct Tally {
  int cells = 0, within = 0;
  std::vector<std::string> misses;
  void print(std::FILE *f, const char *what) const {
    if (cells == 0) return;
    fmt::print(f, "  {:<44} {:5.1f}%  ({} of {})\n", what, 100.0 * within / cells, within, cells);
  }
};

// Adds case c, the selector working from profile p, to t; returns the pick.
Scheme judge(const CaseTimes &c, const Profile &p, const loom::xfer::Rules &rules, Tally &t) {
  int fastest = -1;
  for (size_t s = 0; s < kSchemeCount; ++s)
    if (measured(c, s) && (fastest < 0 || c.t[s] < c.t[fastest])) fastest = (int)s;
  loom::xfer::Choice pick;
  if (c.contiguous)
    pick.scheme = loom::xfer::contiguous_read_wins(p, (double)c.bytes) ? Scheme::single_copy
                                                                       : Scheme::system;
  else
    pick = loom::xfer::select(features(c), &p, rules);
  if (fastest < 0) return pick.scheme;
  ++t.cells;
  const double tp = c.t[(size_t)pick.scheme];
  if (measured(c, (size_t)pick.scheme) && tp <= kWithin * c.t[fastest]) {
    ++t.within;
  } else {
    t.misses.push_back(fmt::format("{}: picked {} ({}), fastest {} {:.3g} us", c.name,
                                   scheme_name(pick.scheme),
                                   measured(c, (size_t)pick.scheme)
                                       ? fmt::format("{:.3g} us, {:.2f}x", tp * 1e6, tp / c.t[fastest])
                                       : "not measured",
                                   scheme_name((Scheme)fastest), c.t[fastest] * 1e6));
  }
  return pick.scheme;
}

// p without grid cell (i, j): what the selector knows of a cell it never saw.
Profile without_cell(const Profile &p, int i, int j) {
  Profile q = p;
  for (auto &cells : q.cells)
    if (!cells.empty()) cells[(size_t)i * p.bytes.size() + (size_t)j] = NAN;
  if (!q.pack.empty()) q.pack[(size_t)i * p.bytes.size() + (size_t)j] = NAN;
  return q;
}

// c as the selector would see it before its layout's pack time is known.
CaseTimes without_pack(CaseTimes c) {
  c.pack = NAN;
  return c;
}

}  // namespace

bool print_tune_report(std::FILE *f, const std::vector<CaseTimes> &cases, const Profile &profile,
                       const loom::xfer::Rules &rules) {
  std::vector<size_t> shown;
  for (size_t s = 0; s < kSchemeCount; ++s)
    for (const CaseTimes &c : cases)
      if (measured(c, s)) {
        shown.push_back(s);
        break;
      }
  fmt::print(f, "\nmicroseconds per message (the fastest repeat's median; half a ping-pong round trip)\n");
  fmt::print(f, "{:<20} {:>9} {:>9} {:>9}", "case", "bytes", "mean run", "pack");
  for (size_t s : shown) fmt::print(f, " {:>11}", scheme_name((Scheme)s));
  fmt::print(f, "  {:<11} {:<11} {}\n", "fastest", "pick", "pick/fastest");
  Tally all, grid, left_out, contiguous, off_grid, off_grid_plain;
  for (const CaseTimes &c : cases) {
    fmt::print(f, "{:<20} {:>9} {:>9} {:>9}", c.name, c.bytes, c.mean_run,
               std::isnan(c.pack) ? "-" : fmt::format("{:.2f}", c.pack * 1e6));
    int fastest = -1;
    for (size_t s : shown) {
      fmt::print(f, " {:>11}", measured(c, s) ? fmt::format("{:.2f}", c.t[s] * 1e6) : "-");
      if (measured(c, s) && (fastest < 0 || c.t[s] < c.t[fastest])) fastest = (int)s;
    }
    const Scheme pick = judge(c, profile, rules, all);
    if (c.run_index >= 0) {
      judge(c, profile, rules, grid);
      judge(c, without_cell(profile, c.run_index, c.bytes_index), rules, left_out);
    } else if (c.contiguous) {
      judge(c, profile, rules, contiguous);
    } else {
      judge(c, profile, rules, off_grid);
      judge(without_pack(c), profile, rules, off_grid_plain);
    }
    if (fastest < 0) {
      fmt::print(f, "  (not measured)\n");
      continue;
    }
    const double ratio = c.t[(size_t)pick] / c.t[fastest];
    fmt::print(f, "  {:<11} {:<11} {}\n", scheme_name((Scheme)fastest), scheme_name(pick),
               std::isnan(ratio) ? "-" : fmt::format("{:.2f}", ratio));
  }
  fmt::print(f, "\ncheck: the selector's pick within {:.0f}% of the fastest measured scheme\n",
             (kWithin - 1) * 100);
  all.print(f, "all cases");
  grid.print(f, "grid cells (in the profile)");
  left_out.print(f, "grid cells, each left out of the profile");
  contiguous.print(f, "contiguous data (by the contiguous rows)");
  off_grid.print(f, "other DDTBench layouts (off the grid)");
  off_grid_plain.print(f, "  the same, pack time of the layout unknown");
  if (!all.misses.empty()) {
    fmt::print(f, "  misses:\n");
    for (const std::string &m : all.misses) fmt::print(f, "    {}\n", m);
  }
  if (!left_out.misses.empty()) {
    fmt::print(f, "  misses with the cell left out:\n");
    for (const std::string &m : left_out.misses) fmt::print(f, "    {}\n", m);
  }
  return grid.within == grid.cells;
}

void print_coll_report(std::FILE *f, const std::vector<CollTimes> &cases, size_t coll_min) {
  using loom::xfer::format_bytes;
  fmt::print(f, "\ncollectives (microseconds per call, the fastest repeat's medians):\n");
  fmt::print(f, "  {:<28} {:>10}  {:>12}  {:>10}  {:>6}\n", "case", "block", "Loom-to-Loom",
             "staged", "ratio");
  for (const CollTimes &c : cases) {
    const loom::xfer::CollPoint &p = c.point;
    fmt::print(f, "  {:<28} {:>10}  {:>12.1f}  {:>10.1f}  {:>6.2f}\n", c.name,
               format_bytes((double)p.block), p.l2l * 1e6, p.staged * 1e6, p.l2l / p.staged);
  }
  if (coll_min == 0)
    fmt::print(f, "coll_min: not measured (LOOM_L2L_COLL_MIN's default applies)\n");
  else if (coll_min >= loom::xfer::kCollNever)
    fmt::print(f, "coll_min: never (staging every block lost least over the cases)\n");
  else
    fmt::print(f, "coll_min: {} (collectives go Loom-to-Loom from this block size: the "
               "crossover that lost least over the cases, geometric mean of time over the "
               "faster)\n",
               format_bytes((double)coll_min));
}

}  // namespace loom_tune
