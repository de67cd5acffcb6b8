// `loom sim`: its options and what it runs (one simulation, the quick
// self-check, or every figure sweep).
#pragma once

#include <string>
#include <vector>

#include "bench/cases.h"

namespace CLI {
class App;
}

namespace loom_sim {

struct SimArgs {
  std::string layout = "vector";  // or a DDTBench case regex (selected by the caller)
  size_t block = 64, stride = 0, bytes = size_t(4) << 20;
  std::vector<std::string> strategies{"all"};
  int hpus = 0;  // 0: the preset's
  std::string preset = "paper";
  std::vector<std::string> sets;
  std::string config;
  std::string catchup = "walk";
  std::string stat = "median";
  size_t reorder = 0;
  uint64_t seed = 1;
  std::string json, csv, figures;
  bool quick = false;
  bool corrupt_replay = false;
};

void add_sim_options(CLI::App *cmd, SimArgs &a);
// `selected`: the DDTBench cases --layout matched (empty for "vector");
// `ddtbench`: all of them (for --figures and --quick).  Returns the exit
// status: 0 when every run replayed identically and kept its bounds.
int run_sim(const SimArgs &a, const std::vector<loom_bench::CaseDef> &selected,
            const std::vector<loom_bench::CaseDef> &ddtbench, const std::string &command);

}  // namespace loom_sim
