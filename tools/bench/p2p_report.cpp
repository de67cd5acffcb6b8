#include "p2p_report.h"

#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_json.h"

namespace loom_bench {

void CommRow::set_times(const CommOp *ops, bool use_min) {
  for (int k = 0; k < kCommContenders; ++k) {
    t_median[k] = comm_stat(ops[k], false);
    t_min[k] = comm_stat(ops[k], true);
    t[k] = use_min ? t_min[k] : t_median[k];
    reps[k] = ops[k].reps;
    samples[k] = ops[k].enabled ? ops[k].samples : std::vector<double>();
  }
}

double comm_ratio(const CommRow &r, int other) {
  const double a = r.t[cLoom], b = r.t[other];
  if (std::isnan(a) || std::isnan(b) || b <= 0) return NAN;
  return a / b;
}

double comm_ratio_best(const CommRow &r) {
  double best = NAN;
  for (int c : {cHand, cSys})
    if (!std::isnan(r.t[c]) && (std::isnan(best) || r.t[c] < best)) best = r.t[c];
  if (std::isnan(best) || std::isnan(r.t[cLoom]) || best <= 0) return NAN;
  return r.t[cLoom] / best;
}

CommSummary summarize_comm(const CommTable &t) {
  CommSummary s;
  s.key = t.key;
  std::vector<double> h, m, b;
  std::vector<std::string> group_order;
  for (const auto &r : t.rows)
    if (group_order.empty() || group_order.back() != r.group) group_order.push_back(r.group);
  for (const auto &r : t.rows) {
    ++s.cases;
    if (!r.error.empty()) ++s.errors;
    if (!r.mismatches.empty()) ++s.mismatched;
    double rh = comm_ratio(r, cHand), rm = comm_ratio(r, cSys), rb = comm_ratio(r, cBound);
    if (!std::isnan(rh)) h.push_back(rh);
    if (!std::isnan(rm)) m.push_back(rm);
    if (!std::isnan(rb)) b.push_back(rb);
    double best = comm_ratio_best(r);
    if (!std::isnan(best)) {
      if (std::isnan(s.worst) || best > s.worst) s.worst = best, s.worst_case = r.name;
      if (best > kCommBestTarget)
        s.above.push_back(fmt::format("{} ({:.2f}x the better of hand and MPI)", r.name, best));
    }
  }
  s.gm_hand = geomean(h);
  s.gm_mpi = geomean(m);
  s.gm_bound = geomean(b);
  std::set<std::string> seen;
  for (const auto &g : group_order) {
    if (!seen.insert(g).second) continue;
    CommSummary::Group gs;
    gs.name = g;
    std::vector<double> gh, gm, gb;
    for (const auto &r : t.rows) {
      if (r.group != g) continue;
      ++gs.cases;
      double rh = comm_ratio(r, cHand), rm = comm_ratio(r, cSys), rb = comm_ratio(r, cBound);
      if (!std::isnan(rh)) gh.push_back(rh);
      if (!std::isnan(rm)) gm.push_back(rm);
      if (!std::isnan(rb)) gb.push_back(rb);
    }
    gs.gm_hand = geomean(gh);
    gs.gm_mpi = geomean(gm);
    gs.gm_bound = geomean(gb);
    s.groups.push_back(gs);
  }
  return s;
}

void print_comm_header(std::FILE *f, const CommRunInfo &info) {
  const RunInfo &r = info.run;
  fmt::print(f, "{}  |  {}  |  {} ranks  |  {}  |  {}  |  {}{}\n", info.tool, r.mpi,
             info.ranks, r.host, r.date, short_commit(r),
             r.quick ? "  |  --quick (smoke test, reduced sizes)" : "");
  fmt::print(f, "MPI_Send from {}{}\n", info.preload.from,
             info.preload.preloaded ? " (Loom drop-in)" : "");
  fmt::print(f, "{}; load average {} at the start, {} at the end; {}\n", r.cpu_model,
             format_load(r.load_start, r.cores), format_load(r.load_end, r.cores),
             info.binding);
  if (!info.preload.preloaded)
    fmt::print(f,
               "WARNING: libloom-mpi.so is not preloaded: the Loom column measures "
               "the system MPI through MPI_*.\n         Run with LD_PRELOAD="
               "build/{}/libloom-mpi.so (see loom bench {} --help).\n",
               r.flavor, info.tool.substr(info.tool.rfind(' ') + 1));
  fmt::print(f,
             "contenders: Loom = MPI_* with the datatype (the drop-in), MPI = PMPI_* "
             "with the datatype (system),\n            hand = hand loops + contiguous "
             "PMPI_*, bound = the contiguous PMPI_* transfer alone.\n"
             "{} over interleaved rounds (slowest rank per sample); ratios are "
             "Loom's time over the other's\n(below 1.00 = Loom faster).  "
             "flags: ! verification failed   * Loom above {:.2f}x the better of "
             "hand and MPI\n",
             r.stat == "min" ? "fastest sample" : "medians", kCommBestTarget);
}

std::string format_usec(double s) {
  if (std::isnan(s)) return "n/a";
  const double us = s * 1e6;
  if (us < 100) return fmt::format("{:.2f}", us);
  if (us < 10000) return fmt::format("{:.1f}", us);
  return fmt::format("{:.0f}", us);
}

std::string format_mbs(double bytes, double s) {
  if (std::isnan(s) || s <= 0) return "n/a";
  return fmt::format("{:.0f}", bytes / s / 1e6);
}

void print_comm_table(std::FILE *f, const CommTable &t, const CommSummary &s,
                      bool show_plans) {
  fmt::print(f, "\n{}: {}\n", t.title, t.what);
  fmt::print(f, "{:<22} {:>13} {:>6} | {:>8} {:>8} {:>8} {:>8} | {:>6} {:>6} {:>7}\n",
             t.mbs ? "MB/s" : "microseconds", "bytes", "rounds", "Loom", "MPI", "hand",
             "bound", "L/hand", "L/MPI", "L/bound");
  fmt::print(f, "{:-<22}-{:->13}-{:->6}-+-{:->8}-{:->8}-{:->8}-{:->8}-+-{:->6}-{:->6}-{:->7}\n",
             "", "", "", "", "", "", "", "", "", "");
  std::string group;
  for (const auto &r : t.rows) {
    if (r.group != group) {
      group = r.group;
      fmt::print(f, "[{}]\n", group);
    }
    if (!r.error.empty()) {
      fmt::print(f, "{:<22} ERROR: {}\n", r.name, r.error);
      continue;
    }
    std::string cols[kCommContenders];
    for (int c = 0; c < kCommContenders; ++c)
      cols[c] = t.mbs ? format_mbs(r.moved_bytes, r.t[c]) : format_usec(r.t[c]);
    std::string flags;
    if (!r.mismatches.empty()) flags += "!";
    const double best = comm_ratio_best(r);
    if (!std::isnan(best) && best > kCommBestTarget) flags += "*";
    std::string bytes = human_bytes(r.bytes);
    if (r.window > 1) bytes = fmt::format("{}x{}", r.window, bytes);
    fmt::print(f, "{:<22} {:>13} {:>6} | {:>8} {:>8} {:>8} {:>8} | {:>6} {:>6} {:>7} {}\n",
               r.name, bytes, r.rounds, cols[cLoom], cols[cSys], cols[cHand],
               cols[cBound], num(comm_ratio(r, cHand), "{:.2f}"),
               num(comm_ratio(r, cSys), "{:.2f}"), num(comm_ratio(r, cBound), "{:.2f}"),
               flags);
  }
  fmt::print(f, "geometric mean, Loom's time over:");
  for (const auto &g : s.groups)
    fmt::print(f, "  [{}] hand {} MPI {} bound {};", g.name, num(g.gm_hand, "{:.2f}"),
               num(g.gm_mpi, "{:.2f}"), num(g.gm_bound, "{:.2f}"));
  fmt::print(f, "  all: hand {} MPI {} bound {}\n", num(s.gm_hand, "{:.2f}"),
             num(s.gm_mpi, "{:.2f}"), num(s.gm_bound, "{:.2f}"));
  if (!std::isnan(s.worst))
    fmt::print(f, "worst case: {} at {:.2f}x the better of hand and MPI\n", s.worst_case,
               s.worst);
  if (show_plans) {
    fmt::print(f, "plans:\n");
    for (const auto &r : t.rows)
      if (r.error.empty()) fmt::print(f, "  {:<22} {}\n  {:<22} {}\n", r.name, r.plan, "", r.sizes);
  }
}

void print_comm_verification(std::FILE *f, const std::vector<CommTable> &tables) {
  int cases = 0, bad = 0;
  for (const auto &t : tables)
    for (const auto &r : t.rows) {
      ++cases;
      if (!r.mismatches.empty() || !r.error.empty()) ++bad;
    }
  if (bad == 0) {
    fmt::print(f,
               "\nverification: all {} measurements received byte-identical data "
               "(every contender, whole buffers, gaps included)\n",
               cases);
    return;
  }
  fmt::print(f, "\n!!!!!!!! {} of {} measurements FAILED VERIFICATION or could not run !!!!!!!!\n",
             bad, cases);
  for (const auto &t : tables)
    for (const auto &r : t.rows) {
      for (const auto &m : r.mismatches) fmt::print(f, "!! {} {}: {}\n", t.key, r.name, m);
      if (!r.error.empty()) fmt::print(f, "!! {} {}: {}\n", t.key, r.name, r.error);
    }
}

nlohmann::json comm_json(const CommRunInfo &info, const std::vector<CommTable> &tables,
                         const std::vector<CommSummary> &sums) {
  using nlohmann::json;
  auto jnum = [](double v) { return std::isnan(v) ? json(nullptr) : json(v); };
  json j = bench_document(info.suite, info.run);
  j["run"]["ranks"] = info.ranks;
  j["run"]["preloaded"] = info.preload.preloaded;
  j["run"]["mpi_send_from"] = info.preload.from;
  j["run"]["binding"] = info.binding;
  j["units"] =
      "seconds per operation (the slowest rank's); bytes: packed bytes of one message or "
      "of one rank's call; summary: Loom's time over the other's (below 1 = Loom faster)";
  j["bound"] = comm_contender_name(cBound);
  std::vector<std::string> names;
  for (int c = 0; c < kCommContenders; ++c) names.push_back(comm_contender_name(c));
  json jt = json::array();
  for (const auto &t : tables) {
    json tj = table_json(t.key, t.title, t.what, names);
    json rows = json::array();
    for (const auto &r : t.rows) {
      json rj = row_json(r.name, r.group, r.sizes, r.plan, r.bytes, r.rounds, r.mismatches,
                         r.error);
      rj["moved_bytes"] = r.moved_bytes;
      rj["window"] = r.window;
      json ops = json::object();
      for (int c = 0; c < kCommContenders; ++c)
        ops[comm_contender_name(c)] = samples_json(r.reps[c], r.samples[c]);
      rj["contenders"] = ops;
      rows.push_back(rj);
    }
    tj["rows"] = rows;
    jt.push_back(tj);
  }
  j["tables"] = jt;
  json js = json::array();
  for (const auto &s : sums) {
    json sj;
    sj["key"] = s.key;
    sj["cases"] = s.cases;
    sj["mismatched"] = s.mismatched;
    sj["errors"] = s.errors;
    sj["gm_loom_over_hand"] = jnum(s.gm_hand);
    sj["gm_loom_over_mpi"] = jnum(s.gm_mpi);
    sj["gm_loom_over_bound"] = jnum(s.gm_bound);
    sj["worst_loom_over_best"] = jnum(s.worst);
    sj["worst_case"] = s.worst_case;
    sj["above_target"] = s.above;
    json g = json::array();
    for (const auto &x : s.groups)
      g.push_back({{"group", x.name},
                   {"cases", x.cases},
                   {"gm_loom_over_hand", jnum(x.gm_hand)},
                   {"gm_loom_over_mpi", jnum(x.gm_mpi)},
                   {"gm_loom_over_bound", jnum(x.gm_bound)}});
    sj["groups"] = g;
    js.push_back(sj);
  }
  j["summary"] = js;
  return j;
}

}  // namespace loom_bench
