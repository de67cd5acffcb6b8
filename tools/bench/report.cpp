#include "report.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace loom_bench {

namespace {

constexpr double kHandTarget = 0.95;
constexpr double kMemcpyTarget = 0.90;

double ratio(const OpResult &a, const OpResult &b) {
  return a.ok && b.ok && b.mbs > 0 ? a.mbs / b.mbs : NAN;
}

}  // namespace

std::string human_bytes(size_t b) {
  if (b >= (size_t(1) << 20)) return fmt::format("{:.2f} MiB", b / 1048576.0);
  if (b >= 1024) return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{} B", b);
}

double geomean(const std::vector<double> &v) {
  if (v.empty()) return NAN;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

std::string num(double v, const char *spec) {
  if (std::isnan(v)) return "n/a";
  return fmt::format(fmt::runtime(spec), v);
}

Summary summarize(const std::vector<CaseResult> &results) {
  Summary s;
  std::vector<double> h, m, hp, hu, mp, mu;
  for (const auto &r : results) {
    ++s.cases;
    if (!r.error.empty()) ++s.errors;
    if (!r.mismatches.empty()) ++s.mismatched;
    for (int dir = 0; dir < 2; ++dir) {
      const OpResult *ops = dir == 0 ? r.pack : r.unpack;
      const char *dn = dir == 0 ? "pack" : "unpack";
      double rh = ratio(ops[kLoom], ops[kHand]);
      double rm = ratio(ops[kLoom], ops[kMpi]);
      double rc = ratio(ops[kLoom], ops[kMemcpy]);
      if (!std::isnan(rh)) {
        h.push_back(rh);
        (dir == 0 ? hp : hu).push_back(rh);
        if (rh < kHandTarget)
          s.below_hand.push_back(fmt::format("{} {} ({:.2f}x hand)", r.name, dn, rh));
      }
      if (!std::isnan(rm)) {
        m.push_back(rm);
        (dir == 0 ? mp : mu).push_back(rm);
      }
      if (r.contiguous && !std::isnan(rc) && rc < kMemcpyTarget)
        s.below_memcpy.push_back(fmt::format("{} {} ({:.2f}x memcpy)", r.name, dn, rc));
    }
  }
  s.gm_hand = geomean(h);
  s.gm_mpi = geomean(m);
  s.gm_hand_pack = geomean(hp);
  s.gm_hand_unpack = geomean(hu);
  s.gm_mpi_pack = geomean(mp);
  s.gm_mpi_unpack = geomean(mu);
  return s;
}

void print_report(std::FILE *f, const RunInfo &info,
                  const std::vector<CaseResult> &results, const Summary &s,
                  bool show_plans) {
  fmt::print(f, "loom bench pack  |  {} ({})  |  {}  |  {}{}\n", info.mpi,
             info.mpi_calls, info.host, info.date,
             info.quick ? "  |  --quick (smoke test, reduced sizes)" : "");
  fmt::print(f,
             "MB/s of packed bytes (1 MB = 1e6 B), {} over interleaved rounds; "
             "ratios are Loom's throughput over the others'.\n"
             "flags: ! verification failed   < below {:.2f}x hand   m below {:.2f}x "
             "memcpy on contiguous data\n",
             info.stat == "min" ? "fastest sample" : "median", kHandTarget,
             kMemcpyTarget);
  for (int dir = 0; dir < 2; ++dir) {
    fmt::print(f, "\n{:<24} {:>10} {:>6} | {:>9} {:>9} {:>9} {:>9} | {:>6} {:>6} {:>6} {}\n",
               dir == 0 ? "PACK" : "UNPACK", "packed", "rounds", "Loom", "hand", "MPI",
               "memcpy", "L/hand", "L/MPI", "L/mcpy", "");
    fmt::print(f, "{:-<24} {:->10} {:->6}-+-{:->9}-{:->9}-{:->9}-{:->9}-+-{:->6}-{:->6}-{:->6}\n",
               "", "", "", "", "", "", "", "", "", "");
    std::string group;
    for (const auto &r : results) {
      if (r.group != group) {
        group = r.group;
        fmt::print(f, "[{}]\n", group);
      }
      if (!r.error.empty()) {
        fmt::print(f, "{:<24} ERROR: {}\n", r.name, r.error);
        continue;
      }
      const OpResult *o = dir == 0 ? r.pack : r.unpack;
      const double rh = ratio(o[kLoom], o[kHand]);
      const double rm = ratio(o[kLoom], o[kMpi]);
      const double rc = ratio(o[kLoom], o[kMemcpy]);
      std::string flags;
      if (!r.mismatches.empty()) flags += "!";
      if (!std::isnan(rh) && rh < kHandTarget) flags += "<";
      if (r.contiguous && !std::isnan(rc) && rc < kMemcpyTarget) flags += "m";
      auto mbs = [](const OpResult &x) { return x.ok ? fmt::format("{:.0f}", x.mbs) : "n/a"; };
      fmt::print(f, "{:<24} {:>10} {:>6} | {:>9} {:>9} {:>9} {:>9} | {:>6} {:>6} {:>6} {}\n",
                 r.name, human_bytes(r.packed_bytes), r.rounds, mbs(o[kLoom]),
                 mbs(o[kHand]), mbs(o[kMpi]), mbs(o[kMemcpy]), num(rh, "{:.2f}"),
                 num(rm, "{:.2f}"), num(rc, "{:.2f}"), flags);
    }
  }
  fmt::print(f,
             "\ngeometric mean over {} cases   Loom/hand: pack {}  unpack {}  all {}"
             "   |   Loom/MPI: pack {}  unpack {}  all {}\n",
             s.cases, num(s.gm_hand_pack, "{:.2f}"), num(s.gm_hand_unpack, "{:.2f}"),
             num(s.gm_hand, "{:.2f}"), num(s.gm_mpi_pack, "{:.2f}"),
             num(s.gm_mpi_unpack, "{:.2f}"), num(s.gm_mpi, "{:.2f}"));

  if (!s.below_hand.empty() || !s.below_memcpy.empty()) {
    fmt::print(f, "\nbelow target:\n");
    for (const auto &x : s.below_hand) fmt::print(f, "  {}\n", x);
    for (const auto &x : s.below_memcpy) fmt::print(f, "  {}\n", x);
  }
  bool header = false;
  for (const auto &r : results) {
    bool slow = false;
    for (const auto &x : s.below_hand) slow |= x.rfind(r.name + " ", 0) == 0;
    for (const auto &x : s.below_memcpy) slow |= x.rfind(r.name + " ", 0) == 0;
    if (!(show_plans || slow) || !r.error.empty()) continue;
    if (!header) fmt::print(f, "\nplans (loom_type_plan_string) and sizes:\n");
    header = true;
    fmt::print(f, "  {:<24} {}\n  {:<24} {}\n", r.name, r.plan, "", r.sizes);
  }
  if (s.mismatched || s.errors) {
    fmt::print(f, "\n!!!!!!!! {} case(s) FAILED VERIFICATION, {} could not run !!!!!!!!\n",
               s.mismatched, s.errors);
    for (const auto &r : results) {
      for (const auto &m : r.mismatches) fmt::print(f, "!! {}: {}\n", r.name, m);
      if (!r.error.empty()) fmt::print(f, "!! {}: {}\n", r.name, r.error);
    }
  } else {
    fmt::print(f, "\nverification: all {} cases byte-identical (Loom, hand loop, "
                  "{}; pack and unpack)\n",
               s.cases, info.mpi_calls);
  }
}

bool write_json(const std::string &path, const RunInfo &info,
                const std::vector<CaseResult> &results, const Summary &s) {
  using nlohmann::json;
  auto nan_null = [](double v) { return std::isnan(v) ? json(nullptr) : json(v); };
  json j;
  j["tool"] = "loom bench pack";
  j["date"] = info.date;
  j["host"] = info.host;
  j["mpi"] = info.mpi;
  j["flavor"] = info.flavor;
  j["mpi_calls"] = info.mpi_calls;
  j["quick"] = info.quick;
  j["units"] = "MB/s of packed bytes, 1 MB = 1e6 bytes";
  j["stat"] = info.stat;
  json cases = json::array();
  for (const auto &r : results) {
    json c;
    c["name"] = r.name;
    c["group"] = r.group;
    c["sizes"] = r.sizes;
    c["plan"] = r.plan;
    c["contiguous"] = r.contiguous;
    c["packed_bytes"] = r.packed_bytes;
    c["user_bytes"] = r.user_bytes;
    c["rounds"] = r.rounds;
    c["verified"] = r.mismatches.empty() && r.error.empty();
    c["mismatches"] = r.mismatches;
    if (!r.error.empty()) c["error"] = r.error;
    for (int dir = 0; dir < 2; ++dir) {
      const OpResult *o = dir == 0 ? r.pack : r.unpack;
      json d;
      for (int k = 0; k < kContenders; ++k) {
        d[contender_name(k)] = o[k].ok ? json(o[k].mbs) : json(nullptr);
        d[std::string(contender_name(k)) + "_median"] =
            o[k].ok ? json(o[k].median_mbs) : json(nullptr);
        d[std::string(contender_name(k)) + "_best"] =
            o[k].ok ? json(o[k].best_mbs) : json(nullptr);
      }
      d["loom_over_hand"] = nan_null(ratio(o[kLoom], o[kHand]));
      d["loom_over_mpi"] = nan_null(ratio(o[kLoom], o[kMpi]));
      d["loom_over_memcpy"] = nan_null(ratio(o[kLoom], o[kMemcpy]));
      c[dir == 0 ? "pack" : "unpack"] = d;
    }
    cases.push_back(c);
  }
  j["cases"] = cases;
  j["geomean"] = {{"loom_over_hand", nan_null(s.gm_hand)},
                  {"loom_over_hand_pack", nan_null(s.gm_hand_pack)},
                  {"loom_over_hand_unpack", nan_null(s.gm_hand_unpack)},
                  {"loom_over_mpi", nan_null(s.gm_mpi)},
                  {"loom_over_mpi_pack", nan_null(s.gm_mpi_pack)},
                  {"loom_over_mpi_unpack", nan_null(s.gm_mpi_unpack)}};
  j["below_target"] = {{"hand", s.below_hand}, {"memcpy", s.below_memcpy}};
  j["mismatched_cases"] = s.mismatched;
  std::ofstream out(path);
  if (!out) {
    fmt::print(stderr, "loom: cannot write {}\n", path);
    return false;
  }
  out << j.dump(2) << "\n";
  return static_cast<bool>(out);
}

}  // namespace loom_bench

// ------------------------------------------------------------- summary
namespace loom_bench {

namespace {

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
};

double jnum(const nlohmann::json &j, const std::string &key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return NAN;
  return it->get<double>();
}

// `loom bench pack`: MB/s per contender, case and direction; a time ratio
// Loom/x is x's throughput over Loom's.
void pack_lines(const nlohmann::json &j, std::vector<SummaryLine> &out) {
  SummaryLine l;
  l.suite = "pack (Loom engine)";
  l.flavor = j.value("flavor", "?");
  l.loom = "loom_pack/unpack";
  for (const auto &c : j["cases"]) {
    ++l.cases;
    if (!c.value("verified", false)) ++l.failed;
    for (const char *dir : {"pack", "unpack"}) {
      if (!c.contains(dir)) continue;
      const auto &d = c[dir];
      const std::string name = c.value("name", "?") + " " + dir;
      for (auto [set, suffix] : {std::pair{&l.med, "_median"}, std::pair{&l.min, "_best"}}) {
        const std::string sfx = suffix;
        const double lo = jnum(d, "Loom" + sfx);
        auto over = [&](const char *x) { return jnum(d, x + sfx) / lo; };
        set->add(over("hand"), over("MPI"), over("memcpy"), name);
      }
    }
  }
  out.push_back(l);
}

// `loom bench p2p` / `coll`: per table, each case group (when there are
// several) and then all rows.
void comm_lines(const nlohmann::json &j, std::vector<SummaryLine> &out) {
  const std::string tool = j.value("tool", "?");
  const std::string suite = tool.substr(tool.rfind(' ') + 1);
  const bool pre = j.value("preloaded", false);
  for (const auto &t : j["tables"]) {
    const std::string key = t.value("key", "?");
    std::string title = suite == "p2p" ? (key == "rtt" ? "p2p round trip" : "p2p bandwidth")
                                       : suite;
    std::vector<std::string> groups;
    for (const auto &r : t["rows"]) {
      std::string g = r.value("group", "");
      if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
    }
    std::vector<std::string> sel = groups;
    if (groups.size() > 1) sel.push_back("");
    for (const auto &g : sel) {
      SummaryLine l;
      l.suite = title + (g.empty() ? ": all" : ": " + g);
      l.flavor = j.value("flavor", "?");
      l.loom = pre ? "drop-in" : "NOT PRELOADED";
      for (const auto &r : t["rows"]) {
        if (!g.empty() && r.value("group", "") != g) continue;
        ++l.cases;
        if (!r.value("verified", false)) ++l.failed;
        for (auto [set, key] :
             {std::pair{&l.med, "seconds_median"}, std::pair{&l.min, "seconds_min"}}) {
          if (!r.contains(key)) continue;
          const auto &s = r[key];
          const double lo = jnum(s, "Loom");
          set->add(lo / jnum(s, "hand"), lo / jnum(s, "MPI"), lo / jnum(s, "bound"),
                   r.value("name", "?"));
        }
      }
      out.push_back(l);
    }
  }
}

}  // namespace

int print_bench_summary(std::FILE *f, const std::vector<std::string> &paths) {
  std::vector<SummaryLine> lines;
  int status = 0;
  for (const auto &p : paths) {
    std::ifstream in(p);
    nlohmann::json j;
    try {
      if (!in) throw std::runtime_error("cannot open");
      in >> j;
    } catch (const std::exception &e) {
      fmt::print(stderr, "loom bench summary: {}: {}\n", p, e.what());
      status = 1;
      continue;
    }
    if (j.value("tool", "") == "loom bench pack")
      pack_lines(j, lines);
    else
      comm_lines(j, lines);
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
  return status;
}

}  // namespace loom_bench
