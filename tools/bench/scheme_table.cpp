// The table and summary of `loom bench p2p|coll --schemes` (scheme_runs.h),
// computed from the merged document's medians.
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "p2p_report.h"
#include "report.h"
#include "scheme_runs.h"

namespace loom_bench {

namespace {

using nlohmann::json;

double med(const json &row, const std::string &who) {
  const json &c = row["contenders"].value(who, json());
  return c.is_null() ? NAN : c["median_s"].get<double>();
}

double ratio(const json &row, const std::string &a, const std::string &b) {
  return med(row, a) / med(row, b);
}

std::vector<std::string> names_of(const json &table) {
  return table["contenders"].get<std::vector<std::string>>();
}

// "Loom over hand" etc. first, then every contender past the first four
// over the bound: {key in the summary, numerator, denominator}.
struct Ratio {
  std::string key, label, num, den;
};
std::vector<Ratio> ratios_of(const json &table) {
  std::vector<Ratio> v = {{"gm_loom_over_bound", "L/bnd", "Loom", "bound"},
                          {"gm_loom_over_hand", "L/hand", "Loom", "hand"},
                          {"gm_loom_over_mpi", "L/MPI", "Loom", "MPI"}};
  const std::vector<std::string> names = names_of(table);
  for (size_t i = 4; i < names.size(); ++i)
    v.push_back({names[i], names[i].substr(0, 6) + "/b", names[i], "bound"});
  return v;
}

bool measured(const json &row) { return !row.contains("error"); }

json gm_json(const std::vector<double> &v) {
  const double g = geomean(v);
  return std::isnan(g) ? json(nullptr) : json(g);
}

}  // namespace

json scheme_summary(const json &doc) {
  json out = json::array();
  for (const json &t : doc["tables"]) {
    const std::vector<Ratio> rs = ratios_of(t);
    std::map<std::string, std::map<std::string, std::vector<double>>> by;  // group -> key
    std::vector<std::string> groups;
    int cases = 0;
    for (const json &r : t["rows"]) {
      if (!measured(r)) continue;
      ++cases;
      const std::string g = r["group"];
      if (!by.count(g)) groups.push_back(g);
      for (const Ratio &x : rs) {
        const double v = ratio(r, x.num, x.den);
        if (std::isfinite(v)) {
          by[g][x.key].push_back(v);
          by[""][x.key].push_back(v);
        }
      }
    }
    auto fill = [&](json &j, const std::string &g) {
      json over = json::object();
      for (const Ratio &x : rs) {
        if (x.key.rfind("gm_", 0) == 0) j[x.key] = gm_json(by[g][x.key]);
        else over[x.key] = gm_json(by[g][x.key]);
      }
      j["gm_over_bound"] = over;
    };
    json s = {{"key", t["key"]}, {"cases", cases}};
    fill(s, "");
    json gj = json::array();
    for (const std::string &g : groups) {
      json x = {{"group", g}, {"cases", by[g].empty() ? 0 : by[g].begin()->second.size()}};
      fill(x, g);
      gj.push_back(x);
    }
    s["groups"] = gj;
    out.push_back(s);
  }
  return out;
}

void print_scheme_tables(std::FILE *f, const json &doc) {
  const json &run = doc["run"];
  const auto &ls = run["machine"]["load_start"], &le = run["machine"]["load_end"];
  fmt::print(f, "{} --schemes  |  {}  |  {} ranks  |  {}  |  {}  |  {} repeats of: Loom (as selected), "
                "LOOM_SCHEME={}\n",
             doc["tool"].get<std::string>(), run["mpi"]["name"].get<std::string>(),
             run["ranks"].dump(), run["machine"]["hostname"].get<std::string>(),
             run["date"].get<std::string>(), run["schemes"]["repeats"].dump(),
             fmt::format("{}", fmt::join(run["schemes"]["forced"].get<std::vector<std::string>>(), ",")));
  fmt::print(f, "load average {} at the start, {} at the end ({} cores); {}\n", ls.dump(), le.dump(),
             run["machine"]["cores"].dump(), run.value("binding", std::string()));
  for (const json &x : run["schemes"].value("failed", json::array()))
    fmt::print(f, "LEFT OUT (failed run): {}\n", x.get<std::string>());
  fmt::print(f, "medians of every run's samples pooled; ratios are times (below 1.00 = the "
                "first faster); x/b = scheme x over the contiguous bound\n");
  for (size_t ti = 0; ti < doc["tables"].size(); ++ti) {
    const json &t = doc["tables"][ti];
    const bool bw = t["key"] == "bw";
    const std::vector<std::string> names = names_of(t);
    const std::vector<Ratio> rs = ratios_of(t);
    fmt::print(f, "\n{}: {}\n{:<24} {:>12} |", t["title"].get<std::string>(),
               t["what"].get<std::string>(), bw ? "MB/s" : "microseconds", "bytes");
    for (const std::string &n : names) fmt::print(f, " {:>8}", n.substr(0, 8));
    fmt::print(f, " |");
    for (const Ratio &x : rs) fmt::print(f, " {:>8}", x.label);
    fmt::print(f, "\n{:-<{}}\n", "", 40 + 9 * (names.size() + rs.size()));
    std::string group;
    for (const json &r : t["rows"]) {
      if (r["group"] != group) {
        group = r["group"];
        fmt::print(f, "[{}]\n", group);
      }
      const std::string name = r["name"];
      if (!measured(r)) {
        fmt::print(f, "{:<24} ERROR: {}\n", name, r["error"].get<std::string>());
        continue;
      }
      std::string bytes = human_bytes(r["bytes"].get<size_t>());
      const int window = r.value("window", 1);
      if (window > 1) bytes = fmt::format("{}x{}", window, bytes);
      fmt::print(f, "{:<24} {:>12} |", name.substr(0, 24), bytes);
      for (const std::string &n : names)
        fmt::print(f, " {:>8}",
                   bw ? format_mbs(r["moved_bytes"].get<double>(), med(r, n)) : format_usec(med(r, n)));
      fmt::print(f, " |");
      for (const Ratio &x : rs) fmt::print(f, " {:>8}", num(ratio(r, x.num, x.den), "{:.2f}"));
      fmt::print(f, "{}\n", r["verified"].get<bool>() ? "" : " !");
    }
    const json &s = doc["summary"][ti];
    auto line = [&](const json &j, const std::string &label) {
      fmt::print(f, "  geometric mean {:<20}", label);
      for (const Ratio &x : rs) {
        const json &v = x.key.rfind("gm_", 0) == 0 ? j[x.key] : j["gm_over_bound"][x.key];
        fmt::print(f, " {} {}", x.label, v.is_null() ? "n/a" : fmt::format("{:.2f}", v.get<double>()));
      }
      fmt::print(f, "\n");
    };
    for (const json &g : s["groups"]) line(g, "[" + g["group"].get<std::string>() + "]");
    line(s, "all");
  }
  bool ok = true;
  for (const json &t : doc["tables"])
    for (const json &r : t["rows"])
      for (const json &m : r["mismatches"]) {
        ok = false;
        fmt::print(f, "FAILED VERIFICATION: {}: {}\n", r["name"].get<std::string>(), m.get<std::string>());
      }
  if (ok) fmt::print(f, "verification: all contenders of all runs matched\n");
}

}  // namespace loom_bench
