// Printing of `loom bench pack` results: the text tables and the JSON file.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "harness.h"

namespace loom_bench {

// Formatting helpers shared by the pack, p2p and coll reports.
std::string human_bytes(size_t b);           // "1.00 MiB", "3.0 KiB", "40 B"
double geomean(const std::vector<double> &v);  // NAN when empty
std::string num(double v, const char *spec);   // "n/a" for NAN

struct RunInfo {
  std::string date;     // ISO 8601, local time
  std::string host;
  std::string mpi;      // system MPI library
  std::string flavor;   // build flavour (mpich / openmpi)
  std::string mpi_calls = "PMPI_Pack/PMPI_Unpack";  // what the MPI column calls
  bool quick = false;
  std::string stat = "median";  // the statistic in the tables
};

struct Summary {
  // Geometric means over the measured cases (pack and unpack together, and
  // separately).
  double gm_hand = 0, gm_mpi = 0;
  double gm_hand_pack = 0, gm_hand_unpack = 0, gm_mpi_pack = 0, gm_mpi_unpack = 0;
  int cases = 0, mismatched = 0, errors = 0;
  // Speed targets: Loom >= 0.95x hand everywhere, >= 0.9x memcpy on
  // contiguous data.
  std::vector<std::string> below_hand, below_memcpy;
};

Summary summarize(const std::vector<CaseResult> &results);

// Prints the header, the pack and unpack tables, the geometric means, the
// plans of the cases below target and any verification failures.
void print_report(std::FILE *f, const RunInfo &info,
                  const std::vector<CaseResult> &results, const Summary &s,
                  bool show_plans);

// Writes everything to a JSON file; returns false (with a message on stderr)
// if the file cannot be written.
bool write_json(const std::string &path, const RunInfo &info,
                const std::vector<CaseResult> &results, const Summary &s);

// `loom bench summary`: one table from the JSON files of `loom bench pack`,
// `p2p` and `coll` (--json): per suite, flavour and case group, the
// geometric means of Loom's time over the hand loop's, the system MPI's and
// the bound's, and the worst case against the better of hand and MPI, from
// the medians and from the fastest samples.  Returns 1 when a file cannot
// be read.
int print_bench_summary(std::FILE *f, const std::vector<std::string> &paths);

}  // namespace loom_bench
