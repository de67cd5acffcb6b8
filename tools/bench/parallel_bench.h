// `loom bench parallel`: checkpoint-parallel pack and unpack (loom.h) of
// the Ross and DDTBench layouts, one message of at least 4 MiB each (the
// catalogue's count raised until it is), on N threads against one thread
// (loom_pack / loom_unpack) and memcpy of the same bytes.  Rounds
// interleave the contenders; medians; every parallel result is checked
// byte-identical to the one-thread result before timing.
#pragma once

#include <string>
#include <vector>

#include "cases.h"

#include "run_meta.h"

namespace loom_bench {

struct ParallelArgs {
  std::string case_regex = ".*";
  int threads = 2;        // the parallel contender's threads
  bool quick = false;     // 1 MiB messages, two rounds
  double budget = 0.3;    // seconds of rounds per case
  std::string json, csv;
};

// Runs @p cases (selected from the catalogue by args.case_regex).
int bench_parallel(const ParallelArgs &args, const std::vector<CaseDef> &cases,
                   const RunInfo &run);

}  // namespace loom_bench
