// Machinery shared by the benchmarks that communicate (`loom bench p2p` and
// `loom bench coll`): every rank runs the same contenders in lock-step,
// interleaved in rounds (one order, shuffled per round from a fixed seed, the
// same on every rank), and a sample's time is the slowest rank's.
//
// The four contenders:
//   Loom   the MPI_ entry points with the derived datatype: with
//          libloom-mpi.so preloaded they are Loom's (pack into staging, send
//          MPI_PACKED, unpack)
//   MPI    the PMPI_ entry points with the same datatype: the system MPI's
//          own datatype path, preloaded or not
//   hand   the catalogue's hand loops around a contiguous PMPI_ transfer
//   bound  the contiguous PMPI_ transfer of the same bytes alone
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace loom_bench {

enum CommContender {
  cLoom = 0,
  cSys = 1,
  cHand = 2,
  cBound = 3,
  kCommContenders = 4
};
const char *comm_contender_name(int c);  // "Loom", "MPI", "hand", "bound"

struct CommTiming {
  int reps = 0;               // timed rounds; 0 = as many as fit in budget_s
  double budget_s = 0.4;      // per measurement (all contenders together),
                              // spent in rounds after the calibration
  int min_rounds = 5;
  int max_rounds = 200;
  double min_sample_s = 5e-4; // a sample repeats the operation this long
  bool quick = false;         // smoke test: two rounds of one operation
};

// One contender's operation: a function every rank of the communicator calls
// in the same order (a round trip, a window of messages, a collective).
struct CommOp {
  bool enabled = false;
  std::function<void()> fn;
  int64_t reps = 1;               // operations per sample (same on all ranks)
  std::vector<double> samples;    // seconds per operation, slowest rank
};

// Warms up, calibrates and times the enabled operations in interleaved,
// shuffled rounds until budget_s is spent (at least min_rounds).  Collective over comm; `enabled` must agree on every rank
// (see all_ranks).  Returns the number of rounds.
int time_comm_ops(const std::vector<CommOp *> &ops, const CommTiming &opt,
                  MPI_Comm comm);

// Median (or fastest) seconds per operation; NAN when not measured.
double comm_stat(const CommOp &op, bool use_min);

// Logical AND of `local` over the ranks of comm (PMPI_Allreduce).
bool all_ranks(bool local, MPI_Comm comm);

// Every rank's messages, gathered on rank 0 of comm as "rank R: message"
// (other ranks get an empty list).
std::vector<std::string> gather_messages(const std::vector<std::string> &local,
                                         MPI_Comm comm);

// Whether MPI_Send, as the dynamic linker resolves it for this process,
// comes from libloom-mpi.so (preloaded or linked first).  `from` names the
// object it comes from.
struct PreloadInfo {
  bool preloaded = false;
  std::string from;
};
PreloadInfo detect_preload();

// Where each rank of comm may run, on rank 0: "rank 0: CPU 0, rank 1: CPU 1"
// (sched_getaffinity; "CPUs 0-1" when a rank is not bound).
std::string cpu_binding(MPI_Comm comm);

// A 64-bit hash of a few integers (deterministic data that a peer can
// predict: verification oracles of the communication benchmarks).
uint64_t mix64(uint64_t a, uint64_t b = 0, uint64_t c = 0, uint64_t d = 0);

}  // namespace loom_bench
