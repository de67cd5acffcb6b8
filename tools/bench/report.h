// Printing of `loom bench pack` results: the text tables and the JSON
// document.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness.h"
#include "run_meta.h"

namespace loom_bench {

// Formatting helpers shared by the pack, p2p and coll reports.
std::string human_bytes(size_t b);           // "1.00 MiB", "3.0 KiB", "40 B"
std::string size_name(size_t b);             // "8B", "4KiB", "16MiB": case names
double geomean(const std::vector<double> &v);  // NAN when empty
std::string num(double v, const char *spec);   // "n/a" for NAN

// "commit 0d2299d" (with "-dirty" when the tree differed from it).
std::string short_commit(const RunInfo &info);

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

// Everything, every sample included, as the suite's JSON document
// (bench_json.h): tables "pack" and "unpack".
nlohmann::json pack_json(const RunInfo &info, const std::vector<CaseResult> &results,
                         const Summary &s);

}  // namespace loom_bench
