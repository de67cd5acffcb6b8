// `loom bench engine`: the engine's own promises, measured — commit cost
// (independent of element count for vector/subarray, linear in blocks for
// indexed) and seek cost (packing 1 MiB at a random offset of a 1 GiB
// indexed layout against packing its first 1 MiB).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "run_meta.h"

namespace loom_bench {

struct EngineArgs {
  bool quick = false;  // small sizes
  std::string json;    // --json: write the results here
  std::string csv;     // --csv: every sample as CSV
};

// `extra`, when set, adds a table (the drop-in's commit costs, which need
// MPI; this file stays MPI-free).
int bench_engine(const EngineArgs &args, const RunInfo &run,
                 const std::function<nlohmann::json(bool quick)> &extra = {});

}  // namespace loom_bench
