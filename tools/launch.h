// Launching measuring runs under mpiexec from a driver that runs no MPI of
// its own (`loom tune`, `loom bench p2p|coll --schemes`): two ranks bound to
// a core each, the drop-in beside this program preloaded, one scheme forced
// per run (LOOM_SCHEME, which the drop-in reads once per process).
#pragma once

#include <string>
#include <vector>

namespace loom_cli {

// This program, as it was when started (a rebuild during a run leaves
// /proc/self/exe naming a deleted file; the workers run the new one).
// Call once early to resolve it.
const std::string &self_exe();

// Runs @p argv with stdout and stderr appended to @p log; the exit status
// (-1: could not start, 128+N: killed by signal N).  With @p limit_s > 0
// the command gets SIGTERM after that many seconds (then SIGKILL 5 s
// later): exit status 124.
int run_logged(const std::vector<std::string> &argv, const std::string &log,
               double limit_s = 0);

// The last @p n lines of file @p path, each indented by four spaces.
std::string tail_of(const std::string &path, size_t n);

// The environment a launcher needs on this machine, set where the user has
// not: Open MPI as root, and no ptrace-based single copy (containers often
// forbid it).
void prepare_launch_environment();

// `mpiexec -n 2 <bind to core> env LD_PRELOAD=<dropin> LOOM_SCHEME=<scheme>
// <env...> <this program> <args...>`; @p mpiexec "" = this build's launcher.
std::vector<std::string> scheme_run_argv(const std::string &mpiexec, const std::string &dropin,
                                         const std::string &scheme,
                                         const std::vector<std::string> &args,
                                         const std::vector<std::string> &env = {});

// The words of @p argv joined by spaces (for logs and messages).
std::string join_command(const std::vector<std::string> &argv);

}  // namespace loom_cli
