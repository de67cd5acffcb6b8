#include "report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_json.h"

namespace loom_bench {

namespace {

constexpr double kHandTarget = 0.95;
constexpr double kMemcpyTarget = 0.90;

double ratio(const OpResult &a, const OpResult &b) {
  return a.ok && b.ok && b.mbs > 0 ? a.mbs / b.mbs : NAN;
}

}  // namespace

std::string size_name(size_t b) {
  if (b >= (size_t(1) << 20) && b % (size_t(1) << 20) == 0)
    return fmt::format("{}MiB", b >> 20);
  if (b >= 1024 && b % 1024 == 0) return fmt::format("{}KiB", b >> 10);
  return fmt::format("{}B", b);
}

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

std::string short_commit(const RunInfo &info) {
  return "commit " + info.git_commit.substr(0, 7) + (info.git_dirty ? "-dirty" : "");
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
  fmt::print(f, "loom bench pack  |  {} ({})  |  {}  |  {}  |  {}{}\n", info.mpi,
             info.mpi_calls, info.host, info.date, short_commit(info),
             info.quick ? "  |  --quick (smoke test, reduced sizes)" : "");
  fmt::print(f, "{}; load average {} at the start, {} at the end\n", info.cpu_model,
             format_load(info.load_start, info.cores), format_load(info.load_end, info.cores));
  fmt::print(f, "Loom's kernels: {} (LOOM_ISA); hand loops compiled {}\n", info.isa,
             info.hand_flags);
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

nlohmann::json pack_json(const RunInfo &info, const std::vector<CaseResult> &results,
                         const Summary &s) {
  using nlohmann::json;
  auto nan_null = [](double v) { return std::isnan(v) ? json(nullptr) : json(v); };
  json j = bench_document("pack", info);
  j["run"]["mpi_calls"] = info.mpi_calls;
  j["run"]["ranks"] = 1;
  j["units"] =
      "seconds per pack or unpack of a case's packed bytes (bytes); summary: Loom's "
      "throughput over the others' (above 1 = Loom faster)";
  j["bound"] = contender_name(kMemcpy);
  std::vector<std::string> names;
  for (int k = 0; k < kContenders; ++k) names.push_back(contender_name(k));
  json tables = json::array();
  for (int dir = 0; dir < 2; ++dir) {
    json t = table_json(dir == 0 ? "pack" : "unpack", dir == 0 ? "PACK" : "UNPACK",
                        dir == 0 ? "the user layout into a contiguous buffer"
                                 : "a contiguous buffer into the user layout",
                        names);
    json rows = json::array();
    for (const auto &r : results) {
      json c = row_json(r.name, r.group, r.sizes, r.plan, r.packed_bytes, r.rounds,
                        r.mismatches, r.error);
      c["contiguous"] = r.contiguous;
      c["user_bytes"] = r.user_bytes;
      const OpResult *o = dir == 0 ? r.pack : r.unpack;
      json ops = json::object();
      for (int k = 0; k < kContenders; ++k)
        ops[contender_name(k)] = o[k].ok ? samples_json(o[k].reps, o[k].samples_s) : json();
      c["contenders"] = ops;
      rows.push_back(c);
    }
    t["rows"] = rows;
    tables.push_back(t);
  }
  j["tables"] = tables;
  j["summary"] = {
      {"cases", s.cases},
      {"mismatched", s.mismatched},
      {"errors", s.errors},
      {"geomean_loom_throughput_over",
       {{"hand", nan_null(s.gm_hand)},
        {"hand_pack", nan_null(s.gm_hand_pack)},
        {"hand_unpack", nan_null(s.gm_hand_unpack)},
        {"MPI", nan_null(s.gm_mpi)},
        {"MPI_pack", nan_null(s.gm_mpi_pack)},
        {"MPI_unpack", nan_null(s.gm_mpi_unpack)}}},
      {"below_target", {{"hand", s.below_hand}, {"memcpy", s.below_memcpy}}}};
  return j;
}

}  // namespace loom_bench
