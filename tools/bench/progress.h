// Progress of a benchmark run on stderr, away from the result tables
// (stdout) and the JSON.  A suite takes about a minute, and under mpiexec
// stderr is a pipe, not a terminal, so progress is printed as plain lines,
// a few seconds apart, rather than as a status line rewritten in place.
#pragma once

#include <cstdio>
#include <string>

namespace loom_bench {

enum class ProgressMode {
  kAuto,    // default: on a terminal, one status line rewritten in place;
            // otherwise a line every kProgressInterval seconds (none when
            // the run ends sooner)
  kQuiet,   // --quiet: nothing
  kAlways,  // --progress: a line for every case, terminal or not
};

// Seconds between two progress lines in ProgressMode::kAuto off a terminal.
constexpr double kProgressInterval = 5.0;

// Reports case i of n.  Only the rank that prints (rank 0) should make one
// with `enabled`; the others pass false and stay silent.
class Progress {
 public:
  // `suite` names the run in every line ("loom bench p2p").
  Progress(std::string suite, size_t cases, ProgressMode mode, bool enabled,
           std::FILE *out = stderr);
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  // Case i (0-based) is about to run.
  void start(size_t i, const std::string &name);
  // All cases ran: clears the status line, or says how long the run took
  // when a line was printed.
  void finish();

 private:
  std::string suite_;
  size_t cases_;
  ProgressMode mode_;
  bool enabled_;
  bool tty_;
  std::FILE *out_;
  double start_s_;
  double last_line_s_;  // when the last line was printed (start_s_ if none)
  bool printed_ = false;
  bool finished_ = false;
};

}  // namespace loom_bench
