// Selection: interpolation in the profile, the fixed rules, LOOM_SCHEME.
#include "select.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace loom {
namespace xfer {
namespace {

// Where @p x falls on @p axis (clamped to its ends): the index of the cell
// at or below it and the weight of the one above, in log space.
void locate(const std::vector<double> &axis, double x, size_t *i, double *w) {
  if (axis.size() == 1 || x <= axis.front()) {
    *i = 0;
    *w = 0;
    return;
  }
  if (x >= axis.back()) {
    *i = axis.size() - 2;
    *w = 1;
    return;
  }
  size_t k = 0;
  while (axis[k + 1] < x) ++k;
  *i = k;
  *w = (std::log(x) - std::log(axis[k])) / (std::log(axis[k + 1]) - std::log(axis[k]));
}

// The grid point nearest (run, bytes) in log space.
void nearest(const Profile &p, double run, double bytes, size_t *i, size_t *j) {
  auto closest = [](const std::vector<double> &axis, double x) {
    size_t best = 0;
    for (size_t k = 1; k < axis.size(); ++k)
      if (std::fabs(std::log(axis[k] / x)) < std::fabs(std::log(axis[best] / x))) best = k;
    return best;
  };
  *i = closest(p.runs, run);
  *j = closest(p.bytes, bytes);
}

std::string format_us(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g us", seconds * 1e6);
  return buf;
}

// The rules' decision and its reason.

Choice by_rules(const Features &f, const Rules &r, bool explain) {
  Choice c;
  const bool l2l_applies = available(Scheme::pipelined, f) && f.bytes >= r.l2l_min;
  const bool system =
      r.prefer_system(f) && !(l2l_applies && f.bytes <= r.l2l_before_system_max);
  const bool l2l = !system && l2l_applies;
  const bool single = f.mean_run >= (double)r.l2l_run && f.bytes <= r.l2l_single_max &&
                      available(Scheme::single_copy, f);
  c.scheme = system ? Scheme::system
             : l2l  ? (single ? Scheme::single_copy : Scheme::pipelined)
                    : Scheme::staged;
  if (!explain) return c;
  char buf[160];
  if (system) {
    std::snprintf(buf, sizeof buf, "system: mean run %s >= %s, %s within [%s, %s] (no profile)",
                  format_bytes(f.mean_run).c_str(), format_bytes((double)r.system_run).c_str(),
                  format_bytes((double)f.bytes).c_str(), format_bytes((double)r.system_min).c_str(),
                  format_bytes((double)r.system_max).c_str());
  } else if (l2l) {
    const std::string run =
        r.l2l_run == INT64_MAX ? std::string("(single copy never pays here)")
        : !single && f.mean_run >= (double)r.l2l_run && f.bytes > r.l2l_single_max
            ? ">= " + format_bytes((double)r.l2l_run) + " but message above " +
                  format_bytes((double)r.l2l_single_max) + " (single copy only from cache)"
        : !single && f.mean_run >= (double)r.l2l_run
            ? std::string("(first use of the layout: single copy needs it cached)")
            : std::string(single ? ">= " : "< ") + format_bytes((double)r.l2l_run);
    std::snprintf(buf, sizeof buf, "%s: Loom peer, %s >= LOOM_L2L_MIN, mean run %s %s (no profile)",
                  scheme_name(c.scheme), format_bytes((double)f.bytes).c_str(),
                  format_bytes(f.mean_run).c_str(), run.c_str());
  } else {
    const char *why = !f.system_allowed ? "the system path cannot carry this type"
                      : r.system_run <= 0 || f.mean_run < (double)r.system_run
                          ? "mean run below LOOM_SYSTEM_RUN"
                          : "message outside [LOOM_SYSTEM_MIN, LOOM_SYSTEM_MAX]";
    std::snprintf(buf, sizeof buf, "staged: %s (mean run %s, %s; no profile)", why,
                  format_bytes(f.mean_run).c_str(), format_bytes((double)f.bytes).c_str());
  }
  c.reason = buf;
  return c;
}

// The lowest prediction among the available schemes; nothing when the
// profile predicts none of them.
std::optional<Choice> by_profile(const Features &f, const Profile &p) {
  std::optional<Scheme> best, second;
  double t[kSchemeCount];
  for (size_t s = 0; s < kSchemeCount; ++s) {
    t[s] = available((Scheme)s, f) ? predict(p, (Scheme)s, f) : NAN;
    if (std::isnan(t[s])) continue;
    if (!best || t[s] < t[(size_t)*best]) {
      second = best;
      best = (Scheme)s;
    } else if (!second || t[s] < t[(size_t)*second]) {
      second = (Scheme)s;
    }
  }
  if (!best) return std::nullopt;
  size_t i, j;
  nearest(p, f.mean_run, (double)f.bytes, &i, &j);
  Choice c;
  c.scheme = *best;
  c.reason = std::string(scheme_name(*best)) + ": " + format_us(t[(size_t)*best]);
  if (second)
    c.reason += std::string(" vs ") + scheme_name(*second) + " " + format_us(t[(size_t)*second]);
  c.reason += " (profile cell run " + format_bytes(p.runs[i]) + ", " + format_bytes(p.bytes[j]) +
              (f.first_use ? "; first use of the layout" : "") + ")";
  return c;
}

}  // namespace

bool available(Scheme s, const Features &f) {
  if (s == Scheme::staged) return true;
  if (s == Scheme::system) return f.system_allowed;
  // A packed stream needs nothing prepared (the sender packs with its plan,
  // the receiver unpacks with its own); reading a layout in place needs the
  // sender's layout serialized and the iovecs made from both.
  if (s == Scheme::pipelined) return f.loom_peer;
  return f.loom_peer && !f.first_use;
}

namespace {

// Log-log interpolation of @p value(i, j) over the grid around (mean_run,
// bytes) (predict()'s rule); NaN when no cell around it has a value.
template <class Value>
double interpolate(const Profile &p, double mean_run, double bytes, Value value) {
  if (!(mean_run > 0) || !(bytes > 0)) return NAN;
  size_t i, j;
  double wi, wj;
  locate(p.runs, mean_run, &i, &wi);
  locate(p.bytes, bytes, &j, &wj);
  double sum = 0, weights = 0, plain = 0;
  int valid = 0;
  for (size_t di = 0; di < 2; ++di) {
    for (size_t dj = 0; dj < 2; ++dj) {
      size_t ci = std::min(i + di, p.runs.size() - 1), cj = std::min(j + dj, p.bytes.size() - 1);
      double t = value(ci, cj);
      if (std::isnan(t)) continue;
      double w = (di ? wi : 1 - wi) * (dj ? wj : 1 - wj);
      sum += w * std::log(t);
      weights += w;
      plain += std::log(t);
      ++valid;
    }
  }
  if (valid == 0) return NAN;
  // Only cells of weight 0 measured (the point sits on a missing cell):
  // their plain mean.
  return weights > 1e-9 ? std::exp(sum / weights) : std::exp(plain / valid);
}

}  // namespace

double predict(const Profile &p, Scheme s, double mean_run, double bytes) {
  if (!p.has(s)) return NAN;
  return interpolate(p, mean_run, bytes, [&](size_t i, size_t j) { return p.cell(s, i, j); });
}

double predict(const Profile &p, Scheme s, const Features &f) {
  const double t = predict(p, s, f.mean_run, (double)f.bytes);
  if (std::isnan(t) || !(f.pack_seconds > 0) || p.pack.empty()) return t;
  const double grid_pack = interpolate(p, f.mean_run, (double)f.bytes,
                                       [&](size_t i, size_t j) { return p.pack_cell(i, j); });
  if (std::isnan(grid_pack)) return t;
  return std::max(t + layout_passes(s) * (f.pack_seconds - grid_pack), 0.1 * t);
}

Choice select(const Features &f, const Profile *profile, const Rules &rules,
              std::optional<Scheme> forced, bool explain) {
  std::optional<Choice> chosen;
  if (profile) chosen = by_profile(f, *profile);
  Choice c = chosen ? *chosen : by_rules(f, rules, explain);
  if (!forced) return c;
  if (available(*forced, f)) {
    c.scheme = *forced;
    if (!explain) return c;
    c.reason = std::string(scheme_name(*forced)) + ": LOOM_SCHEME=" + scheme_name(*forced);
    return c;
  }
  if (explain)
    c.reason = std::string("LOOM_SCHEME=") + scheme_name(*forced) + " is not available here; " +
               c.reason;
  return c;
}

std::string format_bytes(double bytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t u = 0;
  while (bytes >= 1024 && u + 1 < sizeof units / sizeof *units) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  if (bytes == std::floor(bytes))
    std::snprintf(buf, sizeof buf, "%.0f %s", bytes, units[u]);
  else
    std::snprintf(buf, sizeof buf, "%.3g %s", bytes, units[u]);
  return buf;
}

bool contiguous_read_wins(const Profile &p, double bytes) {
  const size_t n = p.bytes.size();
  if (n == 0 || p.contig_system.size() != n || p.contig_read.size() != n) return false;
  size_t i;
  double w;
  locate(p.bytes, bytes, &i, &w);
  // Log-log, as for the grid: each time follows a power of the size
  // between two measured sizes.  NaN (unmeasured) loses the comparison.
  auto at = [&](const std::vector<double> &row) {
    if (n == 1) return std::log(row[0]);
    return (1 - w) * std::log(row[i]) + w * std::log(row[i + 1]);
  };
  return at(p.contig_read) < at(p.contig_system);
}

size_t coll_crossover(std::vector<CollPoint> points) {
  points.erase(std::remove_if(points.begin(), points.end(),
                              [](const CollPoint &p) { return !(p.l2l > 0) || !(p.staged > 0); }),
               points.end());
  if (points.empty()) return 0;
  // Every block measured is a candidate, and never.  A candidate's cost:
  // the sum over the cases of log(its time / the case's faster time), the
  // log of the geometric mean of what it loses; ties go to the larger
  // crossover (staging, where Loom-to-Loom gains nothing).
  std::vector<size_t> candidates;
  for (const CollPoint &p : points) candidates.push_back(p.block);
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  candidates.push_back(kCollNever);
  size_t best = kCollNever;
  double best_cost = 0;
  bool first = true;
  for (size_t c : candidates) {
    double cost = 0;
    for (const CollPoint &p : points)
      cost += std::log((p.block >= c ? p.l2l : p.staged) / std::min(p.l2l, p.staged));
    if (first || cost <= best_cost + 1e-9) best = c, best_cost = cost, first = false;
  }
  return best;
}

}  // namespace xfer
}  // namespace loom
