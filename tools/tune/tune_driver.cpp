// The driver of `loom tune`: launches the workers (one mpiexec per scheme
// and repeat, the schemes interleaved), takes the fastest repeat of each
// case and scheme, writes the profile and reports.
#include <mpi.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/run_meta.h"
#include "build_flavor.hpp"
#include "info.h"
#include "launch.h"
#include "profile.hpp"
#include "select.hpp"
#include "settings.hpp"
#include "tune.h"
#include "tune_check.h"

namespace loom_tune {
namespace {

using loom::xfer::kSchemeCount;
using loom::xfer::Scheme;
using nlohmann::json;

// One worker run of @p scheme (with @p coll: the collective sweep, under
// the extra environment @p env): its JSON, or null (and a message) on
// failure.
json run_worker(const TuneArgs &a, const std::string &scheme, const std::string &dropin,
                const std::string &log, bool coll = false,
                const std::vector<std::string> &env = {}) {
  const std::string out = a.output + ".worker.json";
  std::remove(out.c_str());
  std::vector<std::string> args = {"tune", "--worker", out, "--budget", fmt::format("{}", a.budget)};
  if (a.quick) args.push_back("--quick");
  if (coll) args.push_back("--coll");
  const std::vector<std::string> argv =
      loom_cli::scheme_run_argv(a.mpiexec, dropin, scheme, args, env);
  const std::string cmd = loom_cli::join_command(argv);
  {
    std::ofstream l(log, std::ios::app);
    l << "\n$ " << cmd << "\n";
  }
  const int rc = loom_cli::run_logged(argv, log);
  std::ifstream in(out);
  json j = json::parse(in, nullptr, false);
  std::remove(out.c_str());
  if (j.is_discarded() || !j.is_object()) {
    fmt::print(stderr, "loom tune: {} failed (exit status {}); the end of {}:\n{}", cmd, rc, log,
               loom_cli::tail_of(log, 15));
    return nullptr;
  }
  if (rc != 0)
    fmt::print(stderr, "loom tune: scheme {}: exit status {} (a case failed; see {})\n", scheme,
               rc, log);
  return j;
}

// The fastest of @p v, each a run's median (NaN when empty).  Not the
// median over the repeats: a slow spell of a shared machine can last
// minutes and fall on several repeats of one scheme (on the AMD EPYC VM,
// 2026-11-29, all three of pipelined's: 18 us a message at 32 KiB and 714
// at 2 MiB, against 5.0 and 79 in a run alone minutes later), and what
// selection needs is each scheme's cost when nothing disturbs it.
double fastest(const std::vector<double> &v) {
  return v.empty() ? NAN : *std::min_element(v.begin(), v.end());
}

std::string kernel_release() {
  struct utsname u;
  return uname(&u) == 0 ? u.release : "";
}

// Where the profile goes: --output, else LOOM_PROFILE, else the per-user path.
std::string output_path(const TuneArgs &a) {
  if (!a.output.empty()) return a.output;
  using namespace loom::settings;
  Snapshot s = Snapshot::from_environment(kBuildFlavor);
  if (!s.path(Id::profile).empty()) return s.path(Id::profile);
  return loom::xfer::default_profile_path(LOOM_FLAVOR, std::getenv("XDG_CONFIG_HOME"),
                                          std::getenv("HOME"));
}

loom::xfer::Rules default_rules() {
  using namespace loom::settings;
  Snapshot s = Snapshot::from_environment(kBuildFlavor);
  loom::xfer::Rules r;
  r.system_run = s.bytes(Id::system_run);
  r.system_min = (size_t)s.bytes(Id::system_min);
  r.system_max = (size_t)s.bytes(Id::system_max);
  return r;
}

}  // namespace

int run_tune(const TuneArgs &args, const std::vector<std::string> &command_line) {
  TuneArgs a = args;
  a.output = output_path(args);
  if (a.output.empty()) {
    fmt::print(stderr, "loom tune: no place for the profile: give --output (HOME is unset)\n");
    return 2;
  }
  loom_cli::self_exe();  // resolved now
  const std::string dropin = loom_cli::dropin_beside_me();
  if (dropin.empty()) {
    fmt::print(stderr, "loom tune: libloom-mpi.so not found beside {}\n", loom_cli::self_exe());
    return 2;
  }
  std::vector<std::string> schemes = a.schemes;
  if (schemes.empty()) schemes.assign(std::begin(loom::xfer::kSchemeNames), std::end(loom::xfer::kSchemeNames));
  loom_cli::prepare_launch_environment();
  // The directory, and a file written there, before minutes of measuring.
  std::string why;
  const std::string log = a.output + ".log";
  if (!loom::xfer::make_parent_dirs(a.output, &why) || !std::ofstream(log)) {
    fmt::print(stderr, "loom tune: cannot write beside {}{}\n", a.output,
               why.empty() ? "" : ": " + why);
    return 2;
  }
  loom_bench::RunInfo info = loom_bench::collect_run_info(LOOM_FLAVOR, a.quick, "median", command_line);
  fmt::print("loom tune: {} ({}), {} repeats{}; worker output in {}\n", info.mpi, LOOM_FLAVOR,
             a.repeats, a.quick ? ", quick" : "", log);
  fmt::print("load at start: {}\n", loom_bench::format_load(info.load_start, info.cores));
  std::fflush(stdout);

  // samples[case name][scheme]: one median per repeat.
  const std::vector<TuneCase> cases = tune_cases(a.quick);
  std::map<std::string, std::vector<double>[kSchemeCount]> samples;
  std::map<std::string, json> facts;
  std::map<std::string, std::vector<double>> pack_samples;  // one per worker
  std::vector<std::string> skipped;
  for (int rep = 0; rep < a.repeats; ++rep) {
    std::vector<std::string> order = schemes;
    if (!order.empty()) std::rotate(order.begin(), order.begin() + rep % order.size(), order.end());
    for (const std::string &name : order) {
      json j = run_worker(a, name, dropin, log);
      if (j.is_null()) return 1;
      if (!j.value("available", false)) {
        fmt::print("scheme {}: skipped, the drop-in does not implement it (it implements {})\n",
                   name, j.value("implemented", std::string("?")));
        skipped.push_back(name);
        continue;
      }
      const size_t s = (size_t)*loom::xfer::parse_scheme(name);
      for (const json &c : j["cases"]) {
        const std::string cname = c["name"];
        facts[cname] = c;
        if (c.contains("pack_seconds")) pack_samples[cname].push_back(c["pack_seconds"].get<double>());
        if (c.contains("seconds")) samples[cname][s].push_back(c["seconds"].get<double>());
        else if (rep == 0)
          fmt::print("scheme {}: {}: {}\n", name, cname, c.value("error", std::string("?")));
      }
      fmt::print("  repeat {} of {}: {} done\n", rep + 1, a.repeats, name);
      std::fflush(stdout);
    }
    for (const std::string &s : skipped)
      schemes.erase(std::remove(schemes.begin(), schemes.end(), s), schemes.end());
    skipped.clear();
  }

  // The collective sweep: every block Loom-to-Loom, and none, interleaved;
  // the rules choose each block's scheme (no profile: the one being
  // written may be read by neither run).
  const char *coll_modes[2] = {"0", "1T"};  // LOOM_L2L_COLL_MIN
  std::map<std::string, std::vector<double>> coll_samples[2];
  std::map<std::string, size_t> coll_block;
  for (int rep = 0; rep < a.repeats; ++rep)
    for (int k = 0; k < 2; ++k) {
      const int mode = (k + rep) % 2;
      json j = run_worker(a, "auto", dropin, log, true,
                          {std::string("LOOM_L2L_COLL_MIN=") + coll_modes[mode], "LOOM_PROFILE=none"});
      if (j.is_null()) return 1;
      for (const json &c : j["cases"]) {
        const std::string cname = c["name"];
        coll_block[cname] = c.value("block", size_t(0));
        if (c.contains("seconds")) coll_samples[mode][cname].push_back(c["seconds"].get<double>());
        else if (rep == 0)
          fmt::print("collectives ({}): {}: {}\n", mode ? "staged" : "Loom-to-Loom", cname,
                     c.value("error", std::string("?")));
      }
      fmt::print("  repeat {} of {}: collectives {} done\n", rep + 1, a.repeats,
                 mode ? "staged" : "Loom-to-Loom");
      std::fflush(stdout);
    }
  std::vector<CollTimes> coll_times;
  std::vector<loom::xfer::CollPoint> coll_points;
  for (const loom_bench::CollDef &c : tune_coll_cases(a.quick)) {
    const auto b = coll_block.find(c.name);
    if (b == coll_block.end()) continue;
    coll_times.push_back({c.name, {b->second, fastest(coll_samples[0][c.name]),
                                   fastest(coll_samples[1][c.name])}});
    coll_points.push_back(coll_times.back().point);
  }

  // The profile: the grid cells' medians.
  const TuneGrid grid = tune_grid(a.quick);
  loom::xfer::Profile p;
  p.flavor = LOOM_FLAVOR;
  p.mpi_library = info.mpi;
  p.date = info.date;
  p.loom = fmt::format("{} ({}{})", LOOM_VERSION, info.git_commit, info.git_dirty ? ", modified" : "");
  p.machine.host = info.host;
  p.machine.cpu = info.cpu_model;
  p.machine.cores = info.cores;
  p.machine.kernel = kernel_release();
  const loom_bench::LoadAverage load = loom_bench::read_load_average();
  p.machine.load[0] = load.one;
  p.machine.load[1] = load.five;
  p.machine.load[2] = load.fifteen;
  p.runs = grid.runs;
  p.bytes = grid.bytes;
  p.coll_min = loom::xfer::coll_crossover(coll_points);
  std::vector<CaseTimes> times;
  for (const TuneCase &c : cases) {
    CaseTimes t;
    t.name = c.def.name;
    t.run_index = c.run_index;
    t.bytes_index = c.bytes_index;
    t.contiguous = c.def.contiguous;
    auto f = facts.find(c.def.name);
    if (f != facts.end()) {
      t.bytes = f->second.value("bytes", size_t(0));
      t.mean_run = f->second.value("mean_run", int64_t(0));
      t.elem_size = f->second.value("elem_size", int64_t(0));
    }
    t.pack = fastest(pack_samples[c.def.name]);
    if (c.run_index >= 0 && !std::isnan(t.pack)) {
      if (p.pack.empty()) p.pack.assign(p.runs.size() * p.bytes.size(), NAN);
      p.pack[(size_t)c.run_index * p.bytes.size() + (size_t)c.bytes_index] = t.pack;
    }
    for (size_t s = 0; s < kSchemeCount; ++s) {
      t.t[s] = fastest(samples[c.def.name][s]);
      if (c.run_index < 0 || samples[c.def.name][s].empty()) continue;
      // The system path's time only where it carried the layout.
      if ((Scheme)s == Scheme::system && t.elem_size <= 0) continue;
      auto &cells = p.cells[s];
      if (cells.empty()) cells.assign(p.runs.size() * p.bytes.size(), NAN);
      cells[(size_t)c.run_index * p.bytes.size() + (size_t)c.bytes_index] = t.t[s];
    }
    if (t.contiguous && c.bytes_index >= 0) {
      // A contiguous message of a grid size: the profile's contiguous rows.
      if (p.contig_system.empty()) {
        p.contig_system.assign(p.bytes.size(), NAN);
        p.contig_read.assign(p.bytes.size(), NAN);
      }
      p.contig_system[(size_t)c.bytes_index] = t.t[(size_t)Scheme::system];
      p.contig_read[(size_t)c.bytes_index] = t.t[(size_t)Scheme::single_copy];
    }
    times.push_back(t);
  }
  if (!loom::xfer::write_profile(a.output, p, &why)) {
    fmt::print(stderr, "loom tune: {}\n", why);
    return 1;
  }
  // The check works from the profile as the drop-in will read it.
  loom::xfer::Profile back;
  if (!loom::xfer::load_profile(a.output, &back, &why)) {
    fmt::print(stderr, "loom tune: the profile written does not read back: {}\n", why);
    return 1;
  }
  const bool agree = print_tune_report(stdout, times, back, default_rules());
  print_coll_report(stdout, coll_times, back.coll_min);
  fmt::print("load at end: {}\n", loom_bench::format_load(load, info.cores));
  fmt::print("profile written to {}{}\n", a.output,
             agree ? "" : "\nloom tune: FAILED: the profile read back does not reproduce the "
                          "fastest scheme of every grid cell");
  return agree ? 0 : 1;
}

}  // namespace loom_tune
