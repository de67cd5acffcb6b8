// `loom bench p2p`: ping-pong round trips and unidirectional bandwidth
// between two ranks for the DDTBench layouts of the case catalogue and a
// sweep of vectors (block size x message size), four contenders interleaved
// in one run (see p2p_harness.h).  Run it with libloom-mpi.so preloaded:
//
//   mpiexec.mpich -n 2 env LD_PRELOAD=build/mpich/libloom-mpi.so
//       build/mpich/loom bench p2p
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cases.h"
#include "progress.h"
#include "report.h"

namespace loom_bench {

// Options of `loom bench p2p` and `loom bench coll`.
struct CommBenchArgs {
  std::string case_regex = ".*";
  int reps = 0;          // timed rounds per measurement; 0 = budget
  double budget = 0.4;   // seconds of timed rounds per measurement
  std::string json;      // --json: write the results here
  std::string csv;       // --csv: every sample as CSV
  bool quick = false;
  bool list = false;
  bool plans = false;
  bool no_bw = false;    // p2p: round trips only
  bool loom_only = false;  // time only the Loom contender (loom tune; every
                           // contender is still verified)
  bool sgrs = false;     // p2p: the SGRS vector test instead of the catalogue
  bool once = false;     // p2p: a fresh duplicate of the type per message
  std::string stat = "median";
  ProgressMode progress = ProgressMode::kAuto;
};

// Vectors of doubles, blocks of `block` bytes every 2*block bytes, `msg`
// packed bytes: the sweep, blocks 8 B, 64 B, 512 B, 4 KiB, 64 KiB x
// messages 1 KiB, 32 KiB, 1 MiB (block <= message) and 16 MiB messages of
// 8 B, 512 B and 64 KiB blocks (blocks 8 and 512 B x 1 and 64 KiB with
// quick).  Group "Vector sweep".
void add_vector_sweep_cases(std::vector<CaseDef> &out, bool quick);

// One case of the sweep: `block`-byte blocks, `msg` packed bytes.
CaseDef vector_case(size_t block, size_t msg);

// A contiguous message of `msg` bytes (contiguous(msg/8, double)), for
// `loom tune`'s crossover between reading in place and the system's copy.
// Group "Contiguous".
CaseDef contiguous_case(size_t msg);

// The vector test of the SGRS paper (section 5.2, figures 5 and 6): the
// first `cols` columns of an M x 4096 int array, vector(M, cols, 4096,
// MPI_INT).  Groups "SGRS M=64" and "SGRS M=128" (the paper's, 2 KiB to
// 512 KiB) and "SGRS M=2048" (32 KiB to 16 MiB); two cases with quick.
CaseDef sgrs_case(int64_t rows, int64_t cols);
std::vector<CaseDef> sgrs_cases(bool quick);

// The p2p catalogue: the DDTBench layouts, then the vector sweep.
std::vector<CaseDef> p2p_cases(bool quick);

// Runs the selected cases on ranks 0 and 1 of MPI_COMM_WORLD (others wait)
// and prints the tables on rank 0.  Returns the process exit code.  With
// @p rtt_rows, rank 0 also gets the round-trip rows there.
struct CommRow;
int bench_p2p(const std::vector<CaseDef> &cases, const CommBenchArgs &args,
              const RunInfo &run, std::vector<CommRow> *rtt_rows = nullptr);

}  // namespace loom_bench
