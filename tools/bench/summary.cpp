#include "summary.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_json.h"
#include "json_field.h"
#include "report.h"

namespace loom_bench {

namespace {

// ------------------------------------------------- what the summary reads

// Seconds per operation of one contender (NAN when not measured).
struct Times {
  double med = NAN, min = NAN;
};

struct Row {
  std::string name, group;
  bool verified = false;
  Times loom, hand, mpi, bound;
};

struct Table {
  std::string key;
  std::vector<Row> rows;
};

struct Input {
  std::string suite, flavor;
  std::string loom;  // what the Loom column measured
  std::vector<Table> tables;
};

Times read_times(const JsonField &contenders, const std::string &name) {
  const JsonField c = contenders.at(name);
  if (c.is_null()) return {};
  return {c.at("median_s").number_or_nan(), c.at("min_s").number_or_nan()};
}

// The fields the summary uses, checked (ShapeError names the first that is
// missing or of the wrong type).
Input read_input(const nlohmann::json &doc) {
  const JsonField d(doc, "");
  Input in;
  in.suite = d.at("suite").str();
  const JsonField run = d.at("run");
  in.flavor = run.at("flavor").str();
  if (in.suite == "pack")
    in.loom = "loom_pack/unpack";
  else
    in.loom = run.at("preloaded").boolean() ? "drop-in" : "NOT PRELOADED";
  const std::string bound = d.at("bound").str();
  const JsonField tables = d.at("tables");
  for (size_t t = 0; t < tables.size(); ++t) {
    const JsonField tj = tables.at(t);
    Table table;
    table.key = tj.at("key").str();
    const JsonField rows = tj.at("rows");
    for (size_t r = 0; r < rows.size(); ++r) {
      const JsonField rj = rows.at(r);
      Row row;
      row.name = rj.at("name").str();
      row.group = rj.at("group").str();
      row.verified = rj.at("verified").boolean();
      const JsonField c = rj.at("contenders");
      row.loom = read_times(c, "Loom");
      row.hand = read_times(c, "hand");
      row.mpi = read_times(c, "MPI");
      row.bound = read_times(c, bound);
      table.rows.push_back(std::move(row));
    }
    in.tables.push_back(std::move(table));
  }
  return in;
}

// --------------------------------------------------------------- the table

// Time ratios Loom/x of one statistic (medians or fastest samples).
struct RatioSet {
  std::vector<double> hand, mpi, bound;
  double worst = NAN;  // largest Loom / min(hand, MPI)
  std::string worst_case;
  void add(double h, double m, double b, const std::string &name) {
    for (auto [v, x] : {std::pair{&hand, h}, std::pair{&mpi, m}, std::pair{&bound, b}})
      if (!std::isnan(x) && x > 0) v->push_back(x);
    // Loom over the faster of hand and MPI is the larger of the two ratios.
    double best = NAN;
    for (double x : {h, m})
      if (!std::isnan(x) && (std::isnan(best) || x > best)) best = x;
    if (!std::isnan(best) && (std::isnan(worst) || best > worst)) worst = best, worst_case = name;
  }
};

struct SummaryLine {
  std::string suite, flavor, loom;
  int cases = 0, failed = 0;
  RatioSet med, min;
  void add(const Row &r, const std::string &name) {
    ++cases;
    if (!r.verified) ++failed;
    med.add(r.loom.med / r.hand.med, r.loom.med / r.mpi.med, r.loom.med / r.bound.med, name);
    min.add(r.loom.min / r.hand.min, r.loom.min / r.mpi.min, r.loom.min / r.bound.min, name);
  }
};

// `loom bench pack`: one line, pack and unpack together.  `p2p` / `coll`:
// per table, each case group (when there are several) and then all rows.
void add_lines(const Input &in, std::vector<SummaryLine> &out) {
  SummaryLine base;
  base.flavor = in.flavor;
  base.loom = in.loom;
  if (in.suite == "pack") {
    SummaryLine l = base;
    l.suite = "pack (Loom engine)";
    for (const auto &t : in.tables)
      for (const auto &r : t.rows) l.add(r, r.name + " " + t.key);
    out.push_back(l);
    return;
  }
  for (const auto &t : in.tables) {
    const std::string title = in.suite != "p2p" ? in.suite
                              : t.key == "rtt"  ? "p2p round trip"
                                                : "p2p bandwidth";
    std::vector<std::string> groups;
    for (const auto &r : t.rows)
      if (std::find(groups.begin(), groups.end(), r.group) == groups.end())
        groups.push_back(r.group);
    if (groups.size() > 1) groups.push_back("");  // "" = all rows
    for (const auto &g : groups) {
      SummaryLine l = base;
      l.suite = title + (g.empty() ? ": all" : ": " + g);
      for (const auto &r : t.rows)
        if (g.empty() || r.group == g) l.add(r, r.name);
      out.push_back(l);
    }
  }
}

}  // namespace

int print_bench_summary(std::FILE *f, std::FILE *err, const std::vector<std::string> &paths) {
  std::vector<SummaryLine> lines;
  int bad = 0;
  for (const auto &p : paths) {
    nlohmann::json doc;
    std::string error;
    if (read_bench_file(p, doc, error) && doc["suite"] == "engine") {
      error = "loom bench engine results have no summary (it reads pack, p2p and coll)";
    } else if (error.empty()) {
      try {
        add_lines(read_input(doc), lines);
        continue;
      } catch (const ShapeError &e) {
        error = std::string("wrong shape: ") + e.what();
      }
    }
    fmt::print(err, "loom bench summary: {}: {}\n", p, error);
    ++bad;
  }
  if (bad) {
    fmt::print(err, "loom bench summary: {} of {} file(s) unusable; no summary\n", bad,
               paths.size());
    return 2;
  }
  fmt::print(f,
             "SUMMARY: Loom's time over each contender's (below 1.00 = Loom faster), "
             "geometric means over the cases,\nfrom the medians and from the fastest "
             "samples; worst = the case where Loom is slowest against the better\nof "
             "hand and MPI (named for the medians); bound = memcpy (pack) or the "
             "contiguous transfer (p2p, coll).\n");
  const char *row = "{:<30} {:<7} {:>5} | {:>6} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6} {:>6} | {:<20} | {:<6} {}\n";
  fmt::print(f, fmt::runtime(row), "", "", "", "medians", "", "", "", "fastest", "", "", "", "",
             "", "");
  fmt::print(f, fmt::runtime(row), "suite", "flavor", "cases", "L/hand", "L/MPI", "L/bnd",
             "worst", "L/hand", "L/MPI", "L/bnd", "worst", "worst case (medians)", "verify",
             "Loom");
  fmt::print(f, "{:-<30}-{:-<7}-{:->5}-+-{:->6}-{:->6}-{:->6}-{:->6}-+-{:->6}-{:->6}-{:->6}-{:->6}-+-{:-<20}-+-{:-<6}-{:-<16}\n",
             "", "", "", "", "", "", "", "", "", "", "", "", "", "");
  auto g = [](const std::vector<double> &v) { return num(geomean(v), "{:.2f}"); };
  for (const auto &l : lines) {
    fmt::print(f, fmt::runtime(row), l.suite, l.flavor, l.cases, g(l.med.hand), g(l.med.mpi),
               g(l.med.bound), num(l.med.worst, "{:.2f}"), g(l.min.hand), g(l.min.mpi),
               g(l.min.bound), num(l.min.worst, "{:.2f}"), l.med.worst_case.substr(0, 20),
               l.failed ? fmt::format("{} BAD", l.failed) : "ok", l.loom);
  }
  return 0;
}

}  // namespace loom_bench
