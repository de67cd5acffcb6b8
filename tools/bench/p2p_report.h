// Tables and JSON of the communication benchmarks (`loom bench p2p`,
// `loom bench coll`): seconds per operation of the four contenders (Loom,
// the system MPI's datatype path, hand-pack + contiguous, contiguous bound)
// and Loom's time over each of the others (below 1 = Loom faster).
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "p2p_harness.h"
#include "report.h"

namespace loom_bench {

// Loom's round trip may be at most this much slower than the better of the
// hand-pack and the system MPI's datatype path (the speed target).
constexpr double kCommBestTarget = 1.05;

struct CommRow {
  std::string name, group, sizes, plan;
  size_t bytes = 0;         // packed bytes of one message / one rank's call
  size_t block = 0;         // collectives: packed bytes of one peer's block
  double moved_bytes = 0;   // bytes one operation moves (MB/s columns)
  int window = 1;           // messages per operation (bandwidth)
  int rounds = 0;
  std::vector<std::string> mismatches;  // verification; empty when all matched
  std::string error;                    // the case could not be built or run
  double t[kCommContenders] = {NAN, NAN, NAN, NAN};  // seconds per operation
                                                    // (the reported statistic)
  double t_median[kCommContenders] = {NAN, NAN, NAN, NAN};
  double t_min[kCommContenders] = {NAN, NAN, NAN, NAN};
  int64_t reps[kCommContenders] = {0, 0, 0, 0};  // operations per sample
  std::vector<double> samples[kCommContenders];  // seconds per operation
  // Fills t_median, t_min, t (the median, or the minimum with use_min),
  // reps and samples.
  void set_times(const CommOp *ops, bool use_min);
};

struct CommTable {
  std::string key;    // "rtt", "bw", "coll": the JSON and summary key
  std::string title;  // "ROUND TRIP", ...
  std::string what;   // one line: what an operation is
  bool mbs = false;   // print MB/s of moved_bytes instead of microseconds
  std::vector<CommRow> rows;
};

// Time ratios Loom/x of one table.
struct CommSummary {
  std::string key;
  int cases = 0, mismatched = 0, errors = 0;
  double gm_hand = NAN, gm_mpi = NAN, gm_bound = NAN;
  double worst = NAN;       // largest Loom / min(hand, MPI)
  std::string worst_case;
  std::vector<std::string> above;  // cases slower than kCommBestTarget x best
  struct Group {
    std::string name;
    int cases = 0;
    double gm_hand = NAN, gm_mpi = NAN, gm_bound = NAN;
  };
  std::vector<Group> groups;
};

// A time as microseconds ("12.34", "123.4", "12345"), and @p bytes per
// @p s seconds as MB/s; "n/a" when not measured.
std::string format_usec(double s);
std::string format_mbs(double bytes, double s);

// Loom's time over x's; NAN when either is missing.
double comm_ratio(const CommRow &r, int other);
// Loom's time over the better of hand and MPI.
double comm_ratio_best(const CommRow &r);

CommSummary summarize_comm(const CommTable &t);

struct CommRunInfo {
  std::string suite;  // "p2p", "coll"
  std::string tool;   // "loom bench p2p"
  RunInfo run;        // run.load_end is set when the run ends
  PreloadInfo preload;
  int ranks = 0;
  std::string binding;  // cpu_binding()
};

// Header lines: tool, MPI, ranks, host, date, preload (with a warning when
// MPI_Send does not come from libloom-mpi.so).
void print_comm_header(std::FILE *f, const CommRunInfo &info);
void print_comm_table(std::FILE *f, const CommTable &t, const CommSummary &s,
                      bool show_plans);
// Verification outcome of all tables (failures listed).
void print_comm_verification(std::FILE *f, const std::vector<CommTable> &tables);

// Everything, every sample included, as the suite's JSON document
// (bench_json.h).
nlohmann::json comm_json(const CommRunInfo &info, const std::vector<CommTable> &tables,
                         const std::vector<CommSummary> &sums);

}  // namespace loom_bench
