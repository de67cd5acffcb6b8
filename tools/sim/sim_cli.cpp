// `loom sim` options and driver (sim_cli.h).
#include "sim_cli.h"

#include <sys/stat.h>

#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_checks.h"
#include "sim_figures.h"
#include "sim_report.h"
#include "sim_run.h"

namespace loom_sim {
namespace {

// The quick self-check: small messages, every strategy, reordering on, both
// catch-up charges (a vector whose blocks straddle packets for the seeks),
// two DDTBench layouts (one with few blocks per packet, one with hundreds).
const char *const kQuickCases[] = {"NAS LU x", "SPECFEM3D oc"};

Params make_params(const SimArgs &a) {
  Params p = Params::preset(a.preset);
  if (!a.config.empty()) p.load_file(a.config);
  for (const std::string &kv : a.sets) p.set_assignment(kv, "command line");
  if (a.hpus > 0) p.set("hpus", a.hpus, "command line");
  return p;
}

RunOptions make_options(const SimArgs &a) {
  RunOptions o;
  for (const std::string &name : a.strategies) {
    if (name == "all") {
      o.strategies.assign(std::begin(kAllStrategies), std::end(kAllStrategies));
      continue;
    }
    Strategy s;
    if (!parse_strategy(name, s)) throw std::invalid_argument("unknown strategy '" + name + "'");
    o.strategies.push_back(s);
  }
  o.catchup = a.catchup == "seek" ? CatchUp::kSeek : CatchUp::kWalk;
  o.engine.reorder = a.reorder;
  o.engine.seed = a.seed;
  o.calibration.quick = a.quick;
  o.calibration.fastest = a.stat == "min";
  o.corrupt_replay = a.corrupt_replay;
  return o;
}

void run_one(Report &report, const char *figure, const Params &p, const Layout &l,
             const RunOptions &o) {
  LayoutRuns r = run_layout(p, l, calibrate(l, p.payload(), o.calibration), o);
  print_layout(stdout, r);
  report.add(figure, 0, p.hpus(), std::move(r));
}

void run_quick(Report &report, const Params &p, const RunOptions &o,
               const std::vector<loom_bench::CaseDef> &ddtbench) {
  const size_t bytes = size_t(256) << 10;
  RunOptions shuffled = o;
  shuffled.engine.reorder = 8;
  for (size_t block : {size_t(4), size_t(64)}) {
    auto l = Layout::vector(bytes, block, 2 * block);
    run_one(report, "quick", p, *l, o);
    fmt::print("  (packets reordered within windows of {})", shuffled.engine.reorder);
    run_one(report, "quick-reordered", p, *l, shuffled);
  }
  RunOptions seeking = shuffled;
  seeking.catchup = CatchUp::kSeek;
  fmt::print("  (reordered, catch-ups by loom_cursor_seek)");
  run_one(report, "quick-seek", p, *Layout::vector(bytes, 24, 40), seeking);
  for (const loom_bench::CaseDef &d : ddtbench)
    for (const char *name : kQuickCases)
      if (d.name == name) run_one(report, "quick-reordered", p, *Layout::from_case(d), shuffled);
}

}  // namespace

void add_sim_options(CLI::App *cmd, SimArgs &a) {
  cmd->add_option("--layout", a.layout,
                  "'vector' (--bytes, --block, --stride) or a regular expression naming "
                  "DDTBench layouts of the benchmark catalogue (e.g. 'WRF|FFT2D')");
  cmd->add_option("--block", a.block, "vector: block length in bytes (default 64)")
      ->check(loom_cli::positive());
  cmd->add_option("--stride", a.stride, "vector: stride in bytes (default 2 x block)");
  cmd->add_option("--bytes", a.bytes, "vector: packed message size (default 4 MiB)")
      ->check(loom_cli::positive());
  cmd->add_option("--strategy", a.strategies,
                  "all (default), specialized, hpu-local, ro-cp, rw-cp, iovec, host "
                  "(repeatable; the host baseline always runs, specialized only for vectors)");
  cmd->add_option("--hpus", a.hpus, "handler processing units (default: the preset's)")
      ->check(loom_cli::positive());
  cmd->add_option("--preset", a.preset,
                  "paper: the sPIN datatype paper's NIC (32 HPUs at 800 MHz, 200 Gbit/s, "
                  "2 KiB packets, PCIe Gen4 x32); pspin: PsPIN's (32 cores at 1 GHz, "
                  "4 MiB L1, 4 MiB L2, 400 Gbit/s)")
      ->check(CLI::IsMember({"paper", "pspin"}));
  cmd->add_option("--set", a.sets,
                  "key=value: override one parameter (repeatable; `loom sim` prints every "
                  "key with its value and source)");
  cmd->add_option("--config", a.config, "a JSON object of key: number overrides")
      ->check(CLI::ExistingFile);
  cmd->add_option("--catchup", a.catchup,
                  "walk: catch-ups cost the blocks they pass (MPITypes, the paper's model; "
                  "default); seek: one loom_cursor_seek")
      ->check(CLI::IsMember({"walk", "seek"}));
  cmd->add_option("--stat", a.stat,
                  "what the calibration keeps of its repeats: median (default) or min (the "
                  "fastest; steadier when other processes share the machine)")
      ->check(CLI::IsMember({"median", "min"}));
  cmd->add_option("--reorder", a.reorder,
                  "shuffle packets within windows of this many (header and completion stay "
                  "first and last; default 0: in order)");
  cmd->add_option("--seed", a.seed, "seed of the reordering (default 1)");
  cmd->add_option("--json", a.json, "write every result, parameter and source to this JSON file");
  cmd->add_option("--csv", a.csv, "write one row per layout and strategy to this CSV file");
  cmd->add_option("--figures", a.figures,
                  "run every figure sweep (Figures 8, 12, 13, 16-18 of the paper) and write "
                  "DIR/sim.json and DIR/sim.csv; scripts/plot_sim.py DIR draws them");
  cmd->add_flag("--quick", a.quick,
                "self-check in seconds: 256 KiB vectors and two DDTBench layouts, every "
                "strategy, in order and reordered, walked and seeked catch-ups, short "
                "calibration");
  std::string keys =
      "\nParameters (--set KEY=VALUE; `loom sim` prints each one's value and source):\n";
  const Params defaults = Params::preset("paper");  // outlives the loop over its parameters
  for (const Param &q : defaults.all()) {
    const std::string unit = q.unit.empty() ? "" : " (" + q.unit + ")";
    keys += fmt::format("  {:<18} {}{}\n", q.key, q.what, unit);
  }
  keys +=
      "\nEach run prints, per strategy: the message processing time (first byte arrives to "
      "last DMA write lands), payload Gbit/s, speedup over host unpack, the mean handler "
      "init/setup/blocks on the HPU, NIC memory, bytes copied to the NIC beforehand, DMA "
      "writes, the closed-form bound it comes closest to (or VIOLATED), and the replay "
      "verdict against loom_unpack.  Exit status 0 when every run replays identical and "
      "keeps its bounds, 1 otherwise, 2 on bad arguments.  Model and results: docs/sim.md.\n";
  cmd->footer(keys);
  cmd->add_flag("--corrupt-replay", a.corrupt_replay,
                "self-test of the replay check: move one DMA write by a byte (must fail)")
      ->group("");
}

int run_sim(const SimArgs &a, const std::vector<loom_bench::CaseDef> &selected,
            const std::vector<loom_bench::CaseDef> &ddtbench, const std::string &command) {
  try {
    const Params p = make_params(a);
    const RunOptions o = make_options(a);
    print_params(stdout, p);
    fmt::print("  calibration: {}\n", describe(o.calibration));
    Report report(p, describe(o.calibration));
    std::string json = a.json, csv = a.csv;
    if (!a.figures.empty()) {
      mkdir(a.figures.c_str(), 0777);
      if (json.empty()) json = a.figures + "/sim.json";
      if (csv.empty()) csv = a.figures + "/sim.csv";
      run_figures(p, o, ddtbench, report);
    } else if (a.quick) {
      run_quick(report, p, o, ddtbench);
    } else if (a.layout == "vector") {
      run_one(report, "run", p, *Layout::vector(a.bytes, a.block, a.stride ? a.stride : 2 * a.block),
              o);
    } else {
      for (const loom_bench::CaseDef &d : selected)
        run_one(report, "run", p, *Layout::from_case(d), o);
    }
    for (const std::string &err :
         {json.empty() ? "" : report.write_json(json, command), csv.empty() ? "" : report.write_csv(csv)})
      if (!err.empty()) {
        fmt::print(stderr, "loom sim: {}\n", err);
        return 2;
      }
    if (!report.ok()) {
      fmt::print("\nverification: FAILED (a replay differs from loom_unpack or a bound is "
                 "violated; see above)\n");
      return 1;
    }
    fmt::print("\nverification: all {} runs replay identical to loom_unpack and respect the "
               "link, handler, host-interface and DMA-slot bounds\n",
               report.runs());
    return 0;
  } catch (const std::exception &e) {
    fmt::print(stderr, "loom sim: {}\n", e.what());
    return 2;
  }
}

}  // namespace loom_sim
