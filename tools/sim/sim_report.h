// What `loom sim` prints and writes: every parameter with its source, the
// costs measured here and their HPU equivalents, one row per strategy with
// its replay and bounds verdicts; JSON (everything) and CSV (one row per
// layout and strategy) for scripts/plot_sim.py.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "sim_params.h"
#include "sim_run.h"

namespace loom_sim {

void print_params(FILE *out, const Params &p);
void print_layout(FILE *out, const LayoutRuns &r);

// Runs collected for the output files, each tagged with the figure it
// belongs to and its x value there (block size, HPUs, ...).
class Report {
 public:
  // `calibration`: how the measured costs summarise their repeats.
  Report(const Params &p, std::string calibration)
      : params_(p), calibration_(std::move(calibration)) {}
  void add(const std::string &figure, double x, int hpus, LayoutRuns r);
  bool ok() const;  // every run replayed identically and kept its bounds
  // Both return an error message, "" on success.
  std::string write_json(const std::string &path, const std::string &command) const;
  std::string write_csv(const std::string &path) const;
  size_t runs() const;

 private:
  struct Entry {
    std::string figure;
    double x;
    int hpus;
    LayoutRuns runs;
  };
  Params params_;
  std::string calibration_;
  std::vector<Entry> entries_;
};

}  // namespace loom_sim
