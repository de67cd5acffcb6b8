// loom: the Loom command-line tool.
//
//   loom bench pack [--case REGEX] [--reps N] [--json FILE] [--quick]
//                   [--list] [--plans] [--budget SECONDS]
//
// Built once per MPI flavour (build/mpich/loom, build/openmpi/loom); the
// benchmark compares Loom's native engine with the system MPI it is linked
// against, called through PMPI.
#include <mpi.h>
#include <regex.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench/cases.h"
#include "bench/harness.h"
#include "bench/report.h"

#ifndef LOOM_FLAVOR
#define LOOM_FLAVOR "unknown"
#endif

namespace {

std::string local_date() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %z", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

struct BenchPackArgs {
  std::string case_regex = ".*";
  int reps = 0;
  std::string json;
  bool quick = false;
  bool list = false;
  bool plans = false;
  double budget = 1.2;
  std::string mpi_calls = "pmpi";
  std::string stat = "median";
};

int bench_pack(const BenchPackArgs &a) {
  using namespace loom_bench;
  // POSIX extended regular expressions, case-insensitive, matched anywhere.
  regex_t re;
  if (int err = regcomp(&re, a.case_regex.c_str(), REG_EXTENDED | REG_ICASE | REG_NOSUB)) {
    char msg[256];
    regerror(err, &re, msg, sizeof msg);
    fmt::print(stderr, "loom: bad --case regex '{}': {}\n", a.case_regex, msg);
    return 2;
  }
  std::vector<CaseDef> selected;
  for (auto &c : all_cases())
    if (regexec(&re, c.name.c_str(), 0, nullptr, 0) == 0) selected.push_back(std::move(c));
  regfree(&re);
  if (a.list) {
    for (const auto &c : selected) fmt::print("{:<10} {}\n", c.group, c.name);
    return 0;
  }
  if (selected.empty()) {
    fmt::print(stderr, "loom: no case matches '{}' (try --list)\n", a.case_regex);
    return 2;
  }

  CaseParams params;
  params.quick = a.quick;
  params.rule = native_bounds_rule();
  TimingOptions opt;
  opt.reps = a.reps;
  opt.quick = a.quick;
  opt.budget_s = a.budget;
  opt.use_mpi_symbols = a.mpi_calls == "mpi";
  opt.use_min = a.stat == "min";

  RunInfo info;
  info.date = local_date();
  info.host = host_name();
  info.mpi = mpi_library_name();
  info.flavor = LOOM_FLAVOR;
  info.quick = a.quick;
  info.stat = a.stat;
  info.mpi_calls = opt.use_mpi_symbols ? "MPI_Pack/MPI_Unpack" : "PMPI_Pack/PMPI_Unpack";

  const bool tty = isatty(fileno(stderr));
  std::vector<CaseResult> results;
  for (size_t i = 0; i < selected.size(); ++i) {
    if (tty)
      fmt::print(stderr, "\r\033[K[{}/{}] {}", i + 1, selected.size(), selected[i].name);
    results.push_back(run_case(selected[i], params, opt));
  }
  if (tty) fmt::print(stderr, "\r\033[K");

  Summary s = summarize(results);
  print_report(stdout, info, results, s, a.plans);
  std::fflush(stdout);
  bool ok = s.mismatched == 0 && s.errors == 0;
  if (!a.json.empty() && !write_json(a.json, info, results, s)) ok = false;
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"loom: fast MPI derived datatypes (benchmarks and tools)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("loom 0.1 (") + LOOM_FLAVOR + ")");

  auto *bench = app.add_subcommand("bench", "benchmarks");
  bench->require_subcommand(1);
  BenchPackArgs pa;
  auto *pack = bench->add_subcommand(
      "pack",
      "pack/unpack throughput of Loom, a hand loop, the system MPI (PMPI) and "
      "memcpy on the Ross et al. suite and the DDTBench layouts");
  pack->add_option("--case", pa.case_regex,
                   "run the cases whose name matches this regular expression "
                   "(POSIX extended, case-insensitive, e.g. 'Vector|Face')");
  pack->add_option("--reps", pa.reps,
                   "timed rounds per case (default: as many as fit in --budget)")
      ->check(CLI::PositiveNumber);
  pack->add_option("--budget", pa.budget,
                   "seconds of timed rounds per case when --reps is not given")
      ->check(CLI::PositiveNumber);
  pack->add_option("--json", pa.json, "also write the results to this JSON file");
  pack->add_option("--mpi-calls", pa.mpi_calls,
                   "what the MPI column calls: pmpi (the system MPI, default) or "
                   "mpi (MPI_Pack/MPI_Unpack: measures a preloaded libloom-mpi.so)")
      ->check(CLI::IsMember({"pmpi", "mpi"}));
  pack->add_option("--stat", pa.stat,
                   "statistic in the tables: median (default) or min (fastest "
                   "sample; steadier when the machine is shared)")
      ->check(CLI::IsMember({"median", "min"}));
  pack->add_flag("--quick", pa.quick,
                 "smoke test: reduced sizes, verification and two rounds");
  pack->add_flag("--list", pa.list, "list the cases and exit");
  pack->add_flag("--plans", pa.plans, "print every case's Loom plan");

  CLI11_PARSE(app, argc, argv);

  // Open MPI refuses to start as root without these; a benchmark on a
  // throw-away machine is the common case, and the user's values win.
  if (geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  int rc = 0;
  if (pack->parsed()) {
    MPI_Init(&argc, &argv);
    rc = bench_pack(pa);
    MPI_Finalize();
  }
  return rc;
}
