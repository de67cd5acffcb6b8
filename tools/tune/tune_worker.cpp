// A measuring run of `loom tune`: the p2p ping-pong of every case with the
// scheme the driver forced (LOOM_SCHEME), the Loom contender only; rank 0
// writes each case's median time per message and its layout facts.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/coll_bench.h"
#include "bench/p2p_bench.h"
#include "bench/p2p_report.h"
#include "bench/run_meta.h"
#include "build_flavor.hpp"
#include "layout_facts.hpp"
#include "settings.hpp"
#include "tune.h"

namespace loom_tune {
namespace {

using nlohmann::json;

// Whether the preloaded drop-in implements @p scheme: it lists what it
// implements in LOOM_DROPIN_SCHEMES (src/mpi/scheme.cpp); nullptr when no
// drop-in said anything.
const char *implemented_schemes() { return std::getenv("LOOM_DROPIN_SCHEMES"); }

bool listed(const std::string &list, const std::string &name) {
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (item == name) return true;
  return false;
}

// The scheme LOOM_SCHEME forces, by name ("auto" when none).
std::string forced_scheme() {
  using namespace loom::settings;
  Snapshot s = Snapshot::from_environment(kBuildFlavor);
  return format(spec(Id::scheme), s.choice(Id::scheme));
}

// Seconds Loom's engine takes to pack one message of @p c, in this
// process: the median of up to 9 packs after one untimed (the ping-pong
// packs the same buffers round after round), fewer when they take over
// 20 ms in all.  NaN when a pack fails.
double pack_seconds(const loom_bench::CaseInstance &c) {
  std::vector<char> user(c.user_bytes + 64, 1), packed(c.packed_bytes + 64);
  const char *base = user.data() + c.origin;
  auto pack = [&] {
    size_t pos = 0;
    return loom_pack(base, c.count, c.type.loom(), packed.data(), packed.size(), &pos) == LOOM_OK;
  };
  if (!pack()) return NAN;
  std::vector<double> t;
  double spent = 0;
  while (t.size() < 9 && (t.size() < 3 || spent < 0.02)) {
    const double t0 = MPI_Wtime();
    pack();
    t.push_back(MPI_Wtime() - t0);
    spent += t.back();
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Each case's facts and time (rank 0).
json case_results(const std::vector<TuneCase> &cases, const std::vector<loom_bench::CommRow> &rows,
                  bool quick) {
  json out = json::array();
  loom_bench::CaseParams params;
  params.quick = quick;
  params.rule = loom_bench::native_bounds_rule();
  for (size_t i = 0; i < cases.size(); ++i) {
    const loom_bench::CommRow &r = rows[i];
    json c = {{"name", cases[i].def.name}, {"bytes", r.bytes}};
    auto inst = cases[i].def.make(params);
    loom::xfer::LayoutFacts f = loom::xfer::layout_facts(inst->type.loom());
    c["mean_run"] = f.mean_run;
    c["elem_size"] = f.elem_size;
    const double pk = pack_seconds(*inst);
    if (std::isfinite(pk)) c["pack_seconds"] = pk;
    std::string error = r.error;
    if (error.empty() && !r.mismatches.empty()) error = "verification: " + r.mismatches.front();
    const double t = r.t_median[loom_bench::cLoom] / 2;  // one way
    if (error.empty() && std::isfinite(t))
      c["seconds"] = t;
    else
      c["error"] = error.empty() ? "not measured" : error;
    out.push_back(c);
  }
  return out;
}

// The collective sweep (every rank runs it; rank 0's rows are written).
json coll_results(const TuneArgs &a, const std::vector<std::string> &command_line, int *rc) {
  loom_bench::CommBenchArgs b;
  b.quick = a.quick;
  b.budget = a.budget;
  b.loom_only = true;
  b.progress = loom_bench::ProgressMode::kQuiet;
  const std::vector<loom_bench::CollDef> cases = tune_coll_cases(a.quick);
  std::vector<loom_bench::CommRow> rows;
  *rc = loom_bench::bench_coll(
      cases, b, loom_bench::collect_run_info(LOOM_FLAVOR, a.quick, "median", command_line),
      &rows);
  json out = json::array();
  for (const loom_bench::CommRow &r : rows) {
    json c = {{"name", r.name}, {"block", r.block}};
    const double t = r.t_median[loom_bench::cLoom];
    if (r.error.empty() && r.mismatches.empty() && std::isfinite(t))
      c["seconds"] = t;
    else
      c["error"] = !r.error.empty() ? r.error
                   : r.mismatches.empty() ? "not measured"
                                          : "verification: " + r.mismatches.front();
    out.push_back(c);
  }
  return out;
}

}  // namespace

int run_tune_worker(const TuneArgs &a, const std::vector<std::string> &command_line) {
  MPI_Init(nullptr, nullptr);
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string scheme = forced_scheme();
  const char *implemented = implemented_schemes();
  json out = {{"scheme", scheme}};
  int rc = 0;
  if (!implemented) {
    if (rank == 0) fmt::print(stderr, "loom tune: libloom-mpi.so is not preloaded\n");
    rc = 2;
  } else if (a.coll) {
    out["available"] = true;
    json cases = coll_results(a, command_line, &rc);
    if (rank == 0) out["cases"] = cases;
  } else if (!listed(implemented, scheme)) {
    out["available"] = false;
    out["implemented"] = implemented;
  } else {
    out["available"] = true;
    // A contiguous message has two paths, the system's copy and a read in
    // place: the other schemes would time the first again.
    std::vector<TuneCase> cases = tune_cases(a.quick);
    if (scheme != "system" && scheme != "single_copy")
      cases.erase(std::remove_if(cases.begin(), cases.end(),
                                 [](const TuneCase &c) { return c.def.contiguous; }),
                  cases.end());
    std::vector<loom_bench::CaseDef> defs;
    for (const TuneCase &c : cases) defs.push_back(c.def);
    loom_bench::CommBenchArgs b;
    b.quick = a.quick;
    b.budget = a.budget;
    b.no_bw = true;
    b.loom_only = true;
    b.progress = loom_bench::ProgressMode::kQuiet;
    std::vector<loom_bench::CommRow> rows;
    rc = loom_bench::bench_p2p(
        defs, b, loom_bench::collect_run_info(LOOM_FLAVOR, a.quick, "median", command_line),
        &rows);
    if (rank == 0) out["cases"] = case_results(cases, rows, a.quick);
  }
  if (rank == 0 && rc != 2) {
    std::ofstream f(a.worker);
    f << out.dump(1) << "\n";
    if (!f) {
      fmt::print(stderr, "loom tune: cannot write {}\n", a.worker);
      rc = 1;
    }
  }
  MPI_Finalize();
  return rc;
}

}  // namespace loom_tune
