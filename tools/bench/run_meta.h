// What a benchmark run records about itself, so that results from other
// commits, MPI libraries and machines can be told apart and compared: the
// date, the git commit of the build, the MPI library, the machine (host, CPU
// model, cores, load average at the start and the end) and the command line.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace loom_bench {

// /proc/loadavg's 1, 5 and 15-minute load averages (NAN when unreadable).
struct LoadAverage {
  double one, five, fifteen;
};
LoadAverage read_load_average();
// "1.23 0.98 0.75 (2 cores)"
std::string format_load(const LoadAverage &l, int cores);

// The commit the tool was built from ("unknown" outside a git checkout) and
// whether tracked files differed from it; written at build time
// (tools/git_commit.cmake).
const char *build_git_commit();
bool build_git_dirty();

struct RunInfo {
  std::string date;         // local time, "2026-11-22 03:25:59 +0000"
  std::string host;
  std::string mpi;          // system MPI library, short ("MPICH 4.0.2")
  std::string mpi_version;  // MPI_Get_library_version, whole
  std::string flavor;       // build flavour (mpich / openmpi)
  std::string git_commit;
  bool git_dirty = false;
  std::string cpu_model;    // /proc/cpuinfo "model name"
  int cores = 0;            // online processors
  LoadAverage load_start{}, load_end{};
  std::vector<std::string> command_line;
  std::string mpi_calls = "PMPI_Pack/PMPI_Unpack";  // bench pack: what the MPI
                                                    // column calls
  bool quick = false;
  std::string stat = "median";  // the statistic in the tables
  std::string isa;         // the instruction set of Loom's kernels (loom_isa())
  std::string hand_flags;  // how the benchmarks' hand loops were compiled
};

// Everything but load_end (set when the run ends) and mpi_calls.
RunInfo collect_run_info(const std::string &flavor, bool quick, const std::string &stat,
                         const std::vector<std::string> &command_line);

// The "run" object of the benchmark JSON (docs/benchmarks.md).
nlohmann::json run_json(const RunInfo &info);

}  // namespace loom_bench
