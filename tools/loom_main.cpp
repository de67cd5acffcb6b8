// loom: the Loom command-line tool.
//
//   loom bench pack [--case REGEX] [--reps N] [--json FILE] [--csv FILE] [--quick]
//                   [--list] [--plans] [--budget SECONDS]
//   mpiexec -n 2 env LD_PRELOAD=build/<flavor>/libloom-mpi.so
//       loom bench p2p  [--case REGEX] [--reps N] [--json FILE] [--quick] [--no-bw] ...
//   mpiexec -n 2 env LD_PRELOAD=... loom bench coll [same options]
//   loom bench engine [--quick] [--json FILE] [--csv FILE]
//   loom bench cma [--quick] [--reps N] [--budget SECONDS] [--json FILE] [--csv FILE]
//   loom bench summary FILE.json...
//   loom info [--markdown]
//   loom tune [--quick] [--repeats N] [--budget S] [--output FILE] [--scheme NAME]...
//   loom sim [--layout vector|REGEX] [--strategy NAME]... [--preset paper|pspin]
//            [--set KEY=VALUE]... [--figures DIR] [--quick] ...   (docs/sim.md)
//
// Every suite reports progress on stderr (rank 0; --quiet: none, --progress:
// a line per case).
//
// Built once per MPI flavour (build/mpich/loom, build/openmpi/loom).  `pack`
// compares Loom's native engine with the system MPI it is linked against,
// called through PMPI; `p2p` and `coll` compare the preloaded drop-in (MPI_*)
// with the system MPI's datatype path (PMPI_*) and hand packing.
#include <mpi.h>
#include <regex.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <valgrind/valgrind.h>

#include "bench/bench_json.h"
#include "bench/cases.h"
#include "bench/cma_bench.h"
#include "bench/coll_bench.h"
#include "bench/harness.h"
#include "bench/commit_mpi.h"
#include "bench/engine.h"
#include "bench/parallel_bench.h"
#include "bench/p2p_bench.h"
#include "bench/progress.h"
#include "bench/report.h"
#include "bench/run_meta.h"
#include "bench/scheme_runs.h"
#include "bench/summary.h"
#include "cli_checks.h"
#include "info.h"
#include "sim/sim_cli.h"
#include "scheme_id.hpp"
#include "tune/tune.h"
#include "loom.h"

#ifndef LOOM_FLAVOR
#define LOOM_FLAVOR "unknown"
#endif
#ifndef LOOM_VERSION
#define LOOM_VERSION "unknown"
#endif

namespace {

struct BenchPackArgs {
  std::string case_regex = ".*";
  int reps = 0;
  std::string json;
  std::string csv;
  bool quick = false;
  bool list = false;
  bool plans = false;
  double budget = 1.2;
  std::string mpi_calls = "pmpi";
  std::string stat = "median";
  int icount = 0;
  loom_bench::ProgressMode progress = loom_bench::ProgressMode::kAuto;
};

// The cases whose name or group matches `pattern` (POSIX extended regular
// expression, case-insensitive, matched anywhere), in catalogue order.
// Returns 2 (with a message) for a bad pattern or no match, 0 otherwise.
template <typename Def>
int select_cases(const std::string &pattern, std::vector<Def> all,
                 std::vector<Def> &selected) {
  regex_t re;
  if (int err = regcomp(&re, pattern.c_str(), REG_EXTENDED | REG_ICASE | REG_NOSUB)) {
    char msg[256];
    regerror(err, &re, msg, sizeof msg);
    fmt::print(stderr, "loom: bad --case regex '{}': {}\n", pattern, msg);
    return 2;
  }
  for (auto &c : all)
    if (regexec(&re, c.name.c_str(), 0, nullptr, 0) == 0 ||
        regexec(&re, c.group.c_str(), 0, nullptr, 0) == 0)
      selected.push_back(std::move(c));
  regfree(&re);
  if (selected.empty()) {
    fmt::print(stderr, "loom: no case matches '{}' (try --list)\n", pattern);
    return 2;
  }
  return 0;
}

template <typename Def>
void list_cases(const std::vector<Def> &cases) {
  for (const auto &c : cases) fmt::print("{:<16} {}\n", c.group, c.name);
}

// The command line, recorded in the JSON.
std::vector<std::string> g_command_line;

loom_bench::RunInfo run_info(bool quick, const std::string &stat) {
  return loom_bench::collect_run_info(LOOM_FLAVOR, quick, stat, g_command_line);
}

int bench_pack(const BenchPackArgs &a) {
  using namespace loom_bench;
  std::vector<CaseDef> selected;
  if (int rc = select_cases(a.case_regex, all_cases(), selected)) return rc;
  if (a.list) {
    list_cases(selected);
    return 0;
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
  opt.icount = a.icount;
  if (a.icount > 0 && !RUNNING_ON_VALGRIND) {
    fmt::print(stderr,
               "loom bench pack: --icount counts instructions under callgrind; run it "
               "through scripts/icount.py\n");
    return 2;
  }

  RunInfo info = run_info(a.quick, a.stat);
  info.mpi_calls = opt.use_mpi_symbols ? "MPI_Pack/MPI_Unpack" : "PMPI_Pack/PMPI_Unpack";

  std::vector<CaseResult> results;
  Progress progress("loom bench pack", selected.size(), a.progress, true);
  for (size_t i = 0; i < selected.size(); ++i) {
    progress.start(i, selected[i].name);
    results.push_back(run_case(selected[i], params, opt));
  }
  progress.finish();
  if (a.icount > 0) {  // the counts are in callgrind's dumps
    for (const CaseResult &r : results)
      if (!r.mismatches.empty() || !r.error.empty())
        fmt::print(stderr, "loom bench pack: {} failed verification\n", r.name);
    return 0;
  }

  info.load_end = read_load_average();

  Summary s = summarize(results);
  print_report(stdout, info, results, s, a.plans);
  std::fflush(stdout);
  bool ok = s.mismatched == 0 && s.errors == 0;
  if (!write_results(a.json, a.csv, pack_json(info, results, s))) ok = false;
  return ok ? 0 : 1;
}

int bench_p2p(const loom_bench::CommBenchArgs &a) {
  using namespace loom_bench;
  std::vector<CaseDef> selected;
  if (int rc = select_cases(a.case_regex, a.sgrs ? sgrs_cases(a.quick) : p2p_cases(a.quick),
                            selected))
    return rc;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (a.list) {
    if (rank == 0) list_cases(selected);
    return 0;
  }
  return loom_bench::bench_p2p(selected, a, run_info(a.quick, a.stat));
}

int bench_coll(const loom_bench::CommBenchArgs &a) {
  using namespace loom_bench;
  std::vector<CollDef> selected;
  if (int rc = select_cases(a.case_regex, coll_cases(a.quick), selected)) return rc;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (a.list) {
    if (rank == 0) list_cases(selected);
    return 0;
  }
  return loom_bench::bench_coll(selected, a, run_info(a.quick, a.stat));
}

// --json and --csv.
void add_output_options(CLI::App *cmd, std::string &json, std::string &csv) {
  cmd->add_option("--json", json,
                  "also write the results, every sample included, to this JSON file "
                  "(schema: docs/benchmarks.md)");
  cmd->add_option("--csv", csv,
                  "also write every timed sample to this CSV file, one row per sample "
                  "(columns: docs/benchmarks.md)");
}

// --quiet and --progress (what the suites print on stderr while they run).
void add_progress_options(CLI::App *cmd, loom_bench::ProgressMode &mode) {
  using loom_bench::ProgressMode;
  auto *quiet = cmd->add_flag_callback(
      "--quiet", [&mode] { mode = ProgressMode::kQuiet; },
      "no progress on stderr (default: a status line on a terminal, otherwise a "
      "line every few seconds once the run takes that long; rank 0 only)");
  cmd->add_flag_callback(
         "--progress", [&mode] { mode = ProgressMode::kAlways; },
         "a progress line on stderr for every case, terminal or not")
      ->excludes(quiet);
}

// --reps and --budget: how many timed rounds per `unit` ("case" ...).
void add_rounds_options(CLI::App *cmd, int &reps, double &budget, const std::string &unit) {
  cmd->add_option("--reps", reps,
                  "timed rounds per " + unit + " (default: as many as fit in --budget)")
      ->check(loom_cli::positive());
  cmd->add_option("--budget", budget,
                  "seconds of timed rounds per " + unit + " when --reps is not given")
      ->check(loom_cli::positive());
}

// Options shared by `loom bench p2p` and `loom bench coll`.
void add_comm_options(CLI::App *cmd, loom_bench::CommBenchArgs &a) {
  cmd->add_option("--case", a.case_regex,
                  "run the cases whose name or group matches this regular "
                  "expression (POSIX extended, case-insensitive, e.g. 'DDTBench', "
                  "'vec 8B', 'halo')");
  add_rounds_options(cmd, a.reps, a.budget, "measurement");
  add_output_options(cmd, a.json, a.csv);
  cmd->add_option("--stat", a.stat, "statistic in the tables: median (default) or min")
      ->check(CLI::IsMember({"median", "min"}));
  cmd->add_flag("--quick", a.quick,
                "smoke test: reduced sizes, verification and two rounds");
  cmd->add_flag("--list", a.list, "list the cases and exit");
  cmd->add_flag("--plans", a.plans, "print every case's Loom plan");
  add_progress_options(cmd, a.progress);
}

// --schemes and its options (scheme_runs.h).
struct SchemeOptions {
  bool on = false;
  loom_bench::SchemeRunArgs args;
};

void add_scheme_options(CLI::App *cmd, SchemeOptions &o, const std::string &suite) {
  const std::vector<std::string> defaults = loom_bench::default_bench_schemes(suite);
  cmd->add_flag("--schemes", o.on,
                "run directly (not under mpiexec): launch the suite once as selected and once "
                "per forced scheme (LOOM_SCHEME), --repeats times in rotating order, and merge "
                "the runs into one table and JSON with the schemes as contenders (default "
                "schemes: " + fmt::format("{}", fmt::join(defaults, ", ")) + ")");
  cmd->add_option("--scheme", o.args.schemes, "with --schemes: force this scheme (repeatable)")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(loom::xfer::kSchemeNames),
                                                     std::end(loom::xfer::kSchemeNames))));
  cmd->add_option("--repeats", o.args.repeats, "with --schemes: runs of every scheme (default 2)")
      ->check(loom_cli::positive());
  cmd->add_option("--mpiexec", o.args.mpiexec,
                  "with --schemes: the launcher (default: this build's MPI's)");
  cmd->add_option("--run-timeout", o.args.run_limit_s,
                  "with --schemes: end a run after this many seconds (a hang) and merge "
                  "the others without it (default: no limit)")
      ->check(loom_cli::positive());
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"loom: fast MPI derived datatypes (benchmarks and tools)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("loom " LOOM_VERSION " (") + LOOM_FLAVOR + ")");

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
  add_rounds_options(pack, pa.reps, pa.budget, "case");
  add_output_options(pack, pa.json, pa.csv);
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
  pack->add_option("--icount", pa.icount,
                   "under callgrind: instead of timing, run each operation N times "
                   "with collection on and dump its instruction count "
                   "(scripts/icount.py runs this and prints the table)")
      ->check(loom_cli::positive());
  add_progress_options(pack, pa.progress);

  loom_bench::CommBenchArgs p2a;
  auto *p2p = bench->add_subcommand(
      "p2p",
      "point-to-point between two ranks (mpiexec -n 2, libloom-mpi.so preloaded): "
      "ping-pong round trips and bandwidth of the DDTBench layouts and a vector "
      "sweep; Loom (MPI_Send/MPI_Recv with the datatype) against the system MPI "
      "(PMPI_*), hand-pack + contiguous send, and a contiguous send of the same "
      "bytes");
  add_comm_options(p2p, p2a);
  p2p->add_flag("--no-bw", p2a.no_bw, "round trips only (no bandwidth table)");
  p2p->add_flag("--sgrs", p2a.sgrs,
                "the vector test of the SGRS paper (columns of an M x 4096 int array, "
                "M = 64, 128, 2048; scripts/plot_sgrs.py) instead of the catalogue");
  p2p->add_flag("--once", p2a.once,
                "round trips with a fresh duplicate of the type for every message of Loom "
                "and MPI (a layout used once: no preparation or cache can help; dup, commit "
                "and free are timed too; no bandwidth table); with --schemes, compare the "
                "selected scheme to --scheme staged");
  SchemeOptions p2ps;
  add_scheme_options(p2p, p2ps, "p2p");
  loom_bench::CommBenchArgs cola;
  cola.budget = 0.8;
  auto *coll = bench->add_subcommand(
      "coll",
      "collectives with derived datatypes (any number of ranks, libloom-mpi.so "
      "preloaded): FFT2D transposes with MPI_Alltoall(w) and 3D halo exchanges "
      "with MPI_Neighbor_alltoallw; Loom against PMPI_*, hand-pack + contiguous "
      "collective and the contiguous collective alone");
  add_comm_options(coll, cola);
  SchemeOptions colls;
  add_scheme_options(coll, colls, "coll");
  std::vector<std::string> summary_files;
  auto *summary = bench->add_subcommand(
      "summary",
      "one table from the JSON files of bench pack / p2p / coll (--json, schema 1): "
      "geometric-mean time ratios against hand, the system MPI and the bound, "
      "and the worst case (medians and fastest samples).  A file that cannot be "
      "read or has another schema or shape is named with what is wrong; exit "
      "code 2, no table");
  summary->add_option("files", summary_files, "JSON files")->required();
  loom_bench::EngineArgs ea;
  auto *engine = bench->add_subcommand(
      "engine",
      "the engine's own costs: commit time against element and block counts, "
      "and seek (1 MiB packed at random offsets of a 1 GiB indexed layout "
      "against its first 1 MiB)");
  engine->add_flag("--quick", ea.quick, "smoke test: small sizes");
  add_output_options(engine, ea.json, ea.csv);

  loom_bench::ParallelArgs para;
  auto *parallel = bench->add_subcommand(
      "parallel",
      "checkpoint-parallel pack and unpack (loom_pack_parallel) of the Ross and DDTBench "
      "layouts, messages of at least 4 MiB, on N threads against one and memcpy");
  parallel->add_option("--case", para.case_regex, "cases whose name or group matches (regex)");
  parallel->add_option("--threads", para.threads, "threads of the parallel contender (default 2)")
      ->check(CLI::Range(1, 256));
  parallel->add_option("--budget", para.budget, "seconds of rounds per case (default 0.3)");
  parallel->add_flag("--quick", para.quick, "smoke test: 1 MiB messages, two rounds");
  add_output_options(parallel, para.json, para.csv);

  loom_bench::CmaBenchArgs ca;
  auto *cma = bench->add_subcommand(
      "cma",
      "single-copy transfers between two processes on one node with process_vm_readv "
      "(no MPI): a vector layout (blocks of 8 B to 64 KiB) moved by paired iovec "
      "batches, one call per block, pack + contiguous read + unpack, and a scatter "
      "from the sender's packed buffer, against memcpy of the same bytes "
      "(scripts/plot_cma.py draws the JSON)");
  cma->add_flag("--quick", ca.quick, "smoke test: small sizes, verification and two rounds");
  add_rounds_options(cma, ca.reps, ca.budget, "case");
  add_output_options(cma, ca.json, ca.csv);

  bool info_markdown = false;
  auto *info = app.add_subcommand(
      "info",
      "the Loom version, the MPI this build is for, and every setting (LOOM_* "
      "environment variable) with its current value and its source");
  info->add_flag("--markdown", info_markdown,
                 "print the settings reference as Markdown (docs/settings.md)");

  loom_tune::TuneArgs ta;
  auto *tune = app.add_subcommand(
      "tune",
      "measure every transfer scheme the drop-in implements (block length x "
      "message size, and the DDTBench layouts; ranks started with mpiexec, "
      "libloom-mpi.so preloaded) and write the profile scheme selection reads "
      "(docs/tune.md); then check the selector against the measurements");
  tune->add_flag("--quick", ta.quick,
                 "smoke test: a 3 x 3 grid, two short rounds per case, 2 repeats (about a minute)");
  tune->add_option("--repeats", ta.repeats, "runs of every scheme, interleaved (medians over them)")
      ->check(loom_cli::positive());
  tune->add_option("--budget", ta.budget, "seconds of timed rounds per case and run")
      ->check(loom_cli::positive());
  tune->add_option("--output", ta.output,
                   "the profile to write (default: LOOM_PROFILE, else "
                   "~/.config/loom/profile-FLAVOR.json)");
  tune->add_option("--scheme", ta.schemes, "measure only this scheme (repeatable; default: all)")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(loom::xfer::kSchemeNames),
                                                     std::end(loom::xfer::kSchemeNames))));
  tune->add_option("--mpiexec", ta.mpiexec, "the launcher (default: this build's MPI's)");
  tune->add_option("--worker", ta.worker, "internal: measure under mpiexec into this file")
      ->group("");
  tune->add_flag("--coll", ta.coll, "internal: the worker measures the collective sweep")
      ->group("");

  loom_sim::SimArgs sa;
  auto *sim = app.add_subcommand(
      "sim",
      "packet-level simulation of a NIC that unpacks messages with handler units (the sPIN "
      "datatype paper's strategies: specialized, HPU-local, RO-CP, RW-CP; an iovec NIC and "
      "host unpack as baselines), driven by Loom's cursor over the real layout and costs "
      "timed on this machine; every message replayed against loom_unpack (docs/sim.md)");
  loom_sim::add_sim_options(sim, sa);

  CLI11_PARSE(app, argc, argv);
  g_command_line.assign(argv, argv + argc);
  if (summary->parsed())
    return loom_bench::print_bench_summary(stdout, stderr, summary_files);
  if (info->parsed())
    return info_markdown ? loom_cli::print_settings_markdown(stdout)
                         : loom_cli::print_info(stdout);
  if (tune->parsed()) {
    if (ta.quick && tune->count("--repeats") == 0) ta.repeats = 2;
    return ta.worker.empty() ? loom_tune::run_tune(ta, g_command_line)
                             : loom_tune::run_tune_worker(ta, g_command_line);
  }

  // Open MPI refuses to start as root without these; a benchmark on a
  // throw-away machine is the common case, and the user's values win.
  if (geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  int rc = 0;
  // No MPI: the runs are launched.
  if (p2p->parsed() && p2ps.on)
    return loom_bench::run_comm_schemes("p2p", p2a, p2ps.args, run_info(p2a.quick, p2a.stat));
  if (coll->parsed() && colls.on)
    return loom_bench::run_comm_schemes("coll", cola, colls.args, run_info(cola.quick, cola.stat));
  // No MPI: the sender is a forked process, and MPI libraries dislike fork.
  if (cma->parsed()) return loom_bench::bench_cma(ca, run_info(ca.quick, "median"));
  if (engine->parsed()) {
    MPI_Init(&argc, &argv);
    rc = loom_bench::bench_engine(ea, run_info(ea.quick, "median"), loom_bench::mpi_commit_table);
    MPI_Finalize();
    return rc;
  }
  if (sim->parsed()) {
    MPI_Init(&argc, &argv);  // the DDTBench catalogue builds system datatypes beside Loom's
    std::vector<loom_bench::CaseDef> ddtbench, selected;
    loom_bench::add_ddtbench_cases(ddtbench);
    if (sa.layout == "vector" || (rc = select_cases(sa.layout, ddtbench, selected)) == 0)
      rc = loom_sim::run_sim(sa, selected, ddtbench, fmt::format("{}", fmt::join(g_command_line, " ")));
    MPI_Finalize();
    return rc;
  }
  if (parallel->parsed()) {
    std::vector<loom_bench::CaseDef> selected;
    if (int bad = select_cases(para.case_regex, loom_bench::all_cases(), selected)) return bad;
    MPI_Init(&argc, &argv);  // the catalogue builds system datatypes beside Loom's
    rc = loom_bench::bench_parallel(para, selected, run_info(para.quick, "median"));
    MPI_Finalize();
    return rc;
  }
  if (pack->parsed() || p2p->parsed() || coll->parsed()) {
    MPI_Init(&argc, &argv);
    if (pack->parsed()) rc = bench_pack(pa);
    if (p2p->parsed()) rc = bench_p2p(p2a);
    if (coll->parsed()) rc = bench_coll(cola);
    MPI_Finalize();
  }
  return rc;
}
