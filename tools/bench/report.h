// Printing of `loom bench pack` results: the text tables and the JSON file.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "harness.h"

namespace loom_bench {

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

}  // namespace loom_bench
