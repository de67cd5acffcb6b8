// Verification and timing of one case: Loom, the hand loop, the system MPI
// (PMPI_Pack / PMPI_Unpack) and a memcpy of the packed bytes, interleaved
// (each operation after every other one equally often), medians reported.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cases.h"

namespace loom_bench {

// ------------------------------------------------ helpers shared by the
// pack, p2p and coll benchmarks

// Byte every unpack destination starts from (gaps must keep it).
constexpr unsigned char kSentinel = 0x5A;

struct FreeDeleter {
  void operator()(char *p) const { std::free(p); }
};
using Buf = std::unique_ptr<char, FreeDeleter>;

// Page-aligned buffer of n usable bytes followed by a guard zone.
Buf make_buf(size_t n);
// True when nothing wrote into the guard zone after the n usable bytes.
bool guard_ok(const char *p, size_t n);
// Deterministic pseudo-random bytes.
void fill_random(char *p, size_t n, uint64_t seed);
// "" when equal, otherwise where and how the two differ.
std::string compare(const char *a, const char *b, size_t n);
// Monotonic clock, seconds.
double now_s();
double median(std::vector<double> v);
// loom_type_plan_string of `count` elements of t.
std::string plan_string(loom_type t, int64_t count);

enum Contender { kLoom = 0, kHand = 1, kMpi = 2, kMemcpy = 3, kContenders = 4 };
const char *contender_name(int c);

struct TimingOptions {
  int reps = 0;             // timed rounds; 0 = automatic (time budget)
  double budget_s = 1.2;    // automatic: time per case for the timed rounds
  int min_rounds = 7;
  int max_rounds = 400;
  double min_sample_s = 100e-6;  // a sample repeats an operation this long
  bool quick = false;       // smoke test: verify, then a couple of rounds
  // The "MPI" contender calls PMPI_Pack/PMPI_Unpack (the system MPI, even with
  // libloom-mpi.so preloaded); with use_mpi_symbols it calls MPI_Pack and
  // MPI_Unpack, which a preloaded drop-in library intercepts.
  bool use_mpi_symbols = false;
  // Report medians (default) or the fastest sample of each contender.
  bool use_min = false;
  // Instead of timing: run each verified operation this many times with
  // callgrind collecting, one dump per operation (scripts/icount.py).
  int icount = 0;
};

struct OpResult {
  bool ok = false;          // measured
  double median_s = 0;      // per operation
  double min_s = 0;         // fastest sample, per operation
  double mbs = 0;           // packed MB/s (1 MB = 1e6 bytes) at the reported
                            // statistic (median, or min with --stat min)
  double median_mbs = 0, best_mbs = 0;
  int64_t reps = 0;                // operations per sample
  std::vector<double> samples_s;   // every timed sample, seconds per operation
};

struct CaseResult {
  std::string name, group, sizes, plan;
  bool contiguous = false;
  size_t packed_bytes = 0, user_bytes = 0;
  int rounds = 0;
  // Verification: empty when everything matched.
  std::vector<std::string> mismatches;
  std::string error;        // the case could not be built or run
  OpResult pack[kContenders], unpack[kContenders];
};

CaseResult run_case(const CaseDef &def, const CaseParams &params,
                    const TimingOptions &opt);

}  // namespace loom_bench
