// The JSON every `loom bench` suite writes (--json) and its CSV form
// (--csv), described in docs/benchmarks.md.  One shape for all suites:
//
//   {"schema": 1, "suite": "p2p", "tool": "loom bench p2p",
//    "run": {date, git, flavor, mpi, machine, command_line, ...},
//    "units": "...", "bound": "bound",
//    "tables": [{"key", "title", "what", "contenders": ["Loom", ...],
//                "rows": [{"name", "group", "bytes", ..., "verified",
//                          "contenders": {"Loom": {"reps", "median_s",
//                                                  "min_s", "samples_s"},
//                                         ...}}]}],
//    "summary": ...}
//
// A contender that was not measured is null.  samples_s holds every timed
// sample, in seconds per operation (a sample times `reps` operations).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_meta.h"

namespace loom_bench {

// Bumped whenever a reader of the previous version would misread a file.
constexpr int kBenchSchemaVersion = 1;

// {"schema", "suite", "tool", "run"} of a suite's document.
nlohmann::json bench_document(const std::string &suite, const RunInfo &info);

// The fields of a table and of a measured row that all suites share; the
// caller adds "rows" to the table, suite-specific fields and "contenders"
// to the row.
nlohmann::json table_json(const std::string &key, const std::string &title,
                          const std::string &what, const std::vector<std::string> &contenders);
nlohmann::json row_json(const std::string &name, const std::string &group,
                        const std::string &sizes, const std::string &plan, size_t bytes,
                        int rounds, const std::vector<std::string> &mismatches,
                        const std::string &error);

// A measured contender: {"reps", "median_s", "min_s", "samples_s"}; null
// when there are no samples.
nlohmann::json samples_json(int64_t reps, const std::vector<double> &samples_s);

// Write the document as JSON, or as CSV (one row per sample, columns in
// kCsvHeader).  False, with a message on stderr, when the file cannot be
// written.
bool write_json_file(const std::string &path, const nlohmann::json &doc);
bool write_csv_file(const std::string &path, const nlohmann::json &doc);
extern const char kCsvHeader[];
// Both, for the paths that are not empty (--json, --csv); false when a file
// cannot be written.
bool write_results(const std::string &json_path, const std::string &csv_path,
                   const nlohmann::json &doc);

// Reads a benchmark JSON file and checks its schema version and suite.
// False with `error` saying what is wrong (cannot open or read, not JSON,
// not a loom bench file, an unsupported schema version).
bool read_bench_file(const std::string &path, nlohmann::json &doc, std::string &error);

}  // namespace loom_bench
