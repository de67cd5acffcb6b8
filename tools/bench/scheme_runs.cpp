#include "scheme_runs.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_json.h"
#include "harness.h"
#include "info.h"
#include "launch.h"

namespace loom_bench {

namespace {

using nlohmann::json;

// The contenders every run measures: the first is the drop-in's.
const char *const kRunContenders[] = {"Loom", "MPI", "hand", "bound"};

// The options of @p a that every run gets, besides --json.
std::vector<std::string> forwarded(const std::string &suite, const CommBenchArgs &a) {
  std::vector<std::string> v = {"bench", suite, "--quiet", "--case", a.case_regex, "--stat", a.stat};
  if (a.reps > 0) v.insert(v.end(), {"--reps", std::to_string(a.reps)});
  else v.insert(v.end(), {"--budget", fmt::format("{}", a.budget)});
  if (a.quick) v.push_back("--quick");
  if (a.no_bw) v.push_back("--no-bw");
  if (a.sgrs) v.push_back("--sgrs");
  if (a.once) v.push_back("--once");
  return v;
}

// Samples pooled per (table key, row name, contender).
struct Pool {
  int64_t reps = 0;
  std::vector<double> samples;
};

}  // namespace

std::vector<std::string> default_bench_schemes(const std::string &suite) {
  if (suite == "coll") return {"staged", "system"};
  return {"staged", "single_copy", "per_block", "pipelined"};
}

json merge_scheme_runs(const std::vector<json> &runs, const std::vector<std::string> &forced,
                       const std::vector<std::string> &schemes) {
  std::map<std::string, Pool> pools;
  std::map<std::string, json> facts;  // rounds, verified, mismatches, error per row
  const json *shape = nullptr;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (forced[i] == "auto" && !shape) shape = &runs[i];
    for (const json &t : runs[i]["tables"])
      for (const json &r : t["rows"]) {
        const std::string row = t["key"].get<std::string>() + "\n" + r["name"].get<std::string>();
        json &f = facts[row];
        if (f.is_null()) f = json::object();
        f["rounds"] = f.value("rounds", 0) + r.value("rounds", 0);
        f["verified"] = f.value("verified", true) && r.value("verified", false);
        for (const json &m : r.value("mismatches", json::array()))
          f["mismatches"].push_back(fmt::format("[LOOM_SCHEME={}] {}", forced[i], m.get<std::string>()));
        if (r.contains("error") && !f.contains("error"))
          f["error"] = fmt::format("[LOOM_SCHEME={}] {}", forced[i], r["error"].get<std::string>());
        for (const char *c : kRunContenders) {
          const json &o = r["contenders"].value(c, json());
          if (o.is_null()) continue;
          const std::string who = std::string(c) == "Loom" && forced[i] != "auto" ? forced[i] : c;
          Pool &p = pools[row + "\n" + who];
          if (p.reps == 0) p.reps = o["reps"].get<int64_t>();
          for (const json &s : o["samples_s"]) p.samples.push_back(s.get<double>());
        }
      }
  }
  if (!shape) return nullptr;
  json doc = *shape;
  std::vector<std::string> names(std::begin(kRunContenders), std::end(kRunContenders));
  names.insert(names.end(), schemes.begin(), schemes.end());
  for (json &t : doc["tables"]) {
    t["contenders"] = names;
    for (json &r : t["rows"]) {
      const std::string row = t["key"].get<std::string>() + "\n" + r["name"].get<std::string>();
      const json &f = facts[row];
      r["rounds"] = f["rounds"];
      r["verified"] = f["verified"].get<bool>() && !f.contains("error");
      r["mismatches"] = f.value("mismatches", json::array());
      if (f.contains("error")) r["error"] = f["error"];
      json ops = json::object();
      for (const std::string &who : names) {
        auto p = pools.find(row + "\n" + who);
        ops[who] = p == pools.end() ? json(nullptr) : samples_json(p->second.reps, p->second.samples);
      }
      r["contenders"] = ops;
    }
  }
  return doc;
}

int run_comm_schemes(const std::string &suite, const CommBenchArgs &a, const SchemeRunArgs &s,
                     const RunInfo &run) {
  loom_cli::self_exe();  // resolved now
  const std::string dropin = loom_cli::dropin_beside_me();
  if (dropin.empty()) {
    fmt::print(stderr, "loom bench {}: libloom-mpi.so not found beside {}\n", suite,
               loom_cli::self_exe());
    return 2;
  }
  loom_cli::prepare_launch_environment();
  const std::vector<std::string> schemes = s.schemes.empty() ? default_bench_schemes(suite) : s.schemes;
  const std::string base = !a.json.empty() ? a.json
                           : fmt::format("/tmp/loom-bench-{}-{}-{}", suite, run.flavor, getpid());
  const std::string log = base + ".log", out = base + ".run.json";
  if (!std::ofstream(log)) {
    fmt::print(stderr, "loom bench {}: cannot write {}\n", suite, log);
    return 2;
  }
  std::vector<std::string> order = {"auto"};
  order.insert(order.end(), schemes.begin(), schemes.end());
  fmt::print(stderr, "loom bench {}: {} runs ({} x {}: the selection, then LOOM_SCHEME={}); "
                     "their output in {}\n",
             suite, order.size() * (size_t)s.repeats, s.repeats, order.size(),
             fmt::format("{}", fmt::join(schemes, ",")), log);
  std::vector<json> runs;
  std::vector<std::string> forced, failed;
  int status = 0;
  for (int rep = 0; rep < s.repeats; ++rep) {
    for (const std::string &scheme : order) {
      std::vector<std::string> args = forwarded(suite, a);
      args.insert(args.end(), {"--json", out});
      const std::vector<std::string> argv = loom_cli::scheme_run_argv(s.mpiexec, dropin, scheme, args);
      {
        std::ofstream l(log, std::ios::app);
        l << "\n$ " << loom_cli::join_command(argv) << "\n";
      }
      std::remove(out.c_str());
      const int rc = loom_cli::run_logged(argv, log, s.run_limit_s);
      json doc;
      std::string why;
      if (!read_bench_file(out, doc, why)) {
        // A run that hangs or crashes costs its scheme these samples, not
        // the other runs' results.
        fmt::print(stderr, "loom bench {}: LOOM_SCHEME={} failed ({}; {}); left out; the end of {}:\n{}",
                   suite, scheme, rc == 124 ? fmt::format("ended after {} s", s.run_limit_s)
                                            : fmt::format("exit status {}", rc),
                   why, log, loom_cli::tail_of(log, 8));
        failed.push_back(fmt::format("LOOM_SCHEME={} repeat {}: {}", scheme, rep + 1,
                                     rc == 124 ? "ended at the run time limit"
                                               : fmt::format("exit status {}", rc)));
        status = 1;
        continue;
      }
      std::remove(out.c_str());
      if (rc != 0) status = 1;
      runs.push_back(std::move(doc));
      forced.push_back(scheme);
      fmt::print(stderr, "  repeat {} of {}: {} done{}\n", rep + 1, s.repeats, scheme,
                 rc ? fmt::format(" (exit status {}: see {})", rc, log) : "");
    }
    std::rotate(order.begin(), order.begin() + 1, order.end());
  }
  json doc = merge_scheme_runs(runs, forced, schemes);
  if (doc.is_null()) {
    fmt::print(stderr, "loom bench {}: no run as selected (LOOM_SCHEME=auto) succeeded\n", suite);
    return 1;
  }
  RunInfo info = run;
  info.load_end = read_load_average();
  json r = run_json(info);
  for (const char *k : {"ranks", "preloaded", "mpi_send_from", "binding"}) r[k] = doc["run"][k];
  r["schemes"] = {{"forced", schemes},
                  {"repeats", s.repeats},
                  {"how", "one mpiexec per scheme and repeat, order rotated per repeat; Loom: "
                          "LOOM_SCHEME=auto; each scheme: the Loom contender of its runs; MPI, "
                          "hand, bound: pooled over all runs"},
                  {"failed", failed}};
  doc["run"] = r;
  doc["summary"] = scheme_summary(doc);
  print_scheme_tables(stdout, doc);
  std::fflush(stdout);
  for (const json &t : doc["tables"])
    for (const json &row : t["rows"])
      if (!row["verified"].get<bool>()) status = 1;
  if (!write_results(a.json, a.csv, doc)) status = 1;
  return status;
}

}  // namespace loom_bench
