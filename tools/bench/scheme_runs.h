// `loom bench p2p|coll --schemes`: the drop-in's transfer schemes as
// contenders of the communication benchmarks.  The drop-in reads
// LOOM_SCHEME once per process, so a scheme cannot change between the
// interleaved rounds of one run: the driver (run directly, not under
// mpiexec) launches the suite once with the selection as it is ("Loom") and
// once per forced scheme, repeats that with the order rotated each time (a
// slow spell of a shared machine then falls on every scheme in turn), and
// merges the runs into one document of the suite's JSON schema: the
// contenders Loom, MPI, hand and bound (their samples pooled over the runs
// that measured them), then one per forced scheme (the Loom column of the
// runs that forced it).  docs/benchmarks.md, "Schemes as contenders".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "p2p_bench.h"
#include "run_meta.h"

namespace loom_bench {

struct SchemeRunArgs {
  std::vector<std::string> schemes;  // forced beside the selection; empty = the suite's
  int repeats = 2;                   // runs of every scheme
  std::string mpiexec;               // "" = this build's launcher
  double run_limit_s = 0;            // a run taking longer is ended; 0 = none
};

// The schemes a suite measures by default: p2p the Loom-to-Loom ones and
// staging; coll staging and the system path (the drop-in's collectives use
// no other scheme).
std::vector<std::string> default_bench_schemes(const std::string &suite);

// Runs @p suite ("p2p", "coll") as described above with the options of
// @p a (forwarded to every run), prints the merged table and writes the
// merged JSON/CSV (a.json, a.csv).  Exit status.
int run_comm_schemes(const std::string &suite, const CommBenchArgs &a, const SchemeRunArgs &s,
                     const RunInfo &run);

// Merges the documents of one suite's runs: @p runs[i] was measured with
// @p forced[i] ("auto": the selection, the Loom contender).  The first
// "auto" run gives the tables' shape.
nlohmann::json merge_scheme_runs(const std::vector<nlohmann::json> &runs,
                                 const std::vector<std::string> &forced,
                                 const std::vector<std::string> &schemes);

// The merged document's "summary": per table, the geometric means over its
// measured cases of Loom's time over hand, MPI and the bound, and of each
// scheme's time over the bound ("gm_over_bound"), also per group.
nlohmann::json scheme_summary(const nlohmann::json &doc);

// Prints the merged document's tables: each contender's median (µs, or
// MB/s for bandwidth), Loom's time over the bound, hand and MPI, and each
// scheme's time over the bound; geometric means per group.
void print_scheme_tables(std::FILE *f, const nlohmann::json &doc);

}  // namespace loom_bench
