// `loom tune`: measures every transfer scheme the drop-in implements over a
// grid of (block length) x (message size) and the DDTBench layouts, writes
// the profile that scheme selection reads (docs/tune.md), and checks how
// often the selector's pick is within 5% of the fastest measured scheme.
//
// The driver (`loom tune`, no MPI of its own) launches the measurements:
// `mpiexec -n 2 env LD_PRELOAD=libloom-mpi.so LOOM_SCHEME=<scheme> loom tune
// --worker FILE` per scheme and repeat, interleaving the schemes; each
// worker runs the p2p ping-pong harness (tools/bench) with the Loom
// contender only and writes its medians to FILE.  Then the collective sweep
// (`--worker FILE --coll`, LOOM_L2L_COLL_MIN forced to 0 and to 1T) finds
// the block size from which Loom-to-Loom collectives win: the profile's
// coll_min.  Contiguous messages (def.contiguous) are measured only under
// `system` (the system's copy) and `single_copy` (read in place), the
// drop-in's two paths for them: the profile's contiguous rows.
#pragma once

#include <string>
#include <vector>

#include "bench/cases.h"
#include "bench/coll_bench.h"

namespace loom_tune {

struct TuneArgs {
  bool quick = false;      // smoke test: a 3 x 3 grid, short timings, 2 repeats
  int repeats = 3;         // runs of every scheme (medians over them)
  double budget = 0.25;    // seconds of timed rounds per case and run
  std::string output;      // the profile; "" = LOOM_PROFILE, else the per-user path
  std::string mpiexec;     // the launcher; "" = this build's MPI's
  std::vector<std::string> schemes;  // to measure; empty = all
  std::string worker;      // internal: run as a worker writing this file
  bool coll = false;       // internal: the worker measures the collective sweep
};

// A case of the sweep: a grid cell (run_index, bytes_index into the axes),
// a contiguous message of a grid size (run_index -1, bytes_index), or a
// layout off the grid (indices -1).
struct TuneCase {
  loom_bench::CaseDef def;
  int run_index = -1, bytes_index = -1;
};

// The grid's axes (block lengths = mean runs, and message sizes, bytes).
struct TuneGrid {
  std::vector<double> runs, bytes;
};
TuneGrid tune_grid(bool quick);
// The grid's vector cases (block <= message), contiguous messages of the
// grid's sizes, then the DDTBench layouts.
std::vector<TuneCase> tune_cases(bool quick);
// The collective sweep: MPI_Alltoall of FFT2D transposes and of vectors,
// and 3D halo exchanges, blocks spanning the Loom-to-Loom collectives'
// crossover, each timed with every block Loom-to-Loom and with none
// (LOOM_L2L_COLL_MIN 0 and 1T).
std::vector<loom_bench::CollDef> tune_coll_cases(bool quick);

// The driver: measures, writes the profile, reports.  Exit status.
int run_tune(const TuneArgs &args, const std::vector<std::string> &command_line);
// A worker (under mpiexec, the drop-in preloaded, LOOM_SCHEME set).
int run_tune_worker(const TuneArgs &args, const std::vector<std::string> &command_line);

}  // namespace loom_tune
