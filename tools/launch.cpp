#include "launch.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <fstream>

extern char **environ;

namespace loom_cli {

const std::string &self_exe() {
  static const std::string path = [] {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    return n > 0 ? std::string(exe, (size_t)n) : std::string("loom");
  }();
  return path;
}

int run_logged(const std::vector<std::string> &argv, const std::string &log, double limit_s) {
  std::vector<char *> args;
  for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int err = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err != 0) return -1;
  int status = 0;
  if (limit_s <= 0) {
    if (waitpid(pid, &status, 0) < 0) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  // Polled: a launcher that hangs (a deadlocked rank) is ended, the
  // launcher passing the signal on to its ranks.
  const auto start = std::chrono::steady_clock::now();
  bool termed = false, killed = false;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w < 0) return -1;
    if (w == pid) break;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!termed && s > limit_s) {
      kill(pid, SIGTERM);
      termed = true;
    } else if (termed && !killed && s > limit_s + 5) {
      kill(pid, SIGKILL);
      killed = true;
    }
    usleep(100000);
  }
  if (termed) return 124;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string tail_of(const std::string &path, size_t n) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::string out;
  for (size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i)
    out += "    " + lines[i] + "\n";
  return out;
}

void prepare_launch_environment() {
  setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
  if (geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
}

std::vector<std::string> scheme_run_argv(const std::string &mpiexec, const std::string &dropin,
                                         const std::string &scheme,
                                         const std::vector<std::string> &args,
                                         const std::vector<std::string> &env) {
  std::vector<std::string> argv = {mpiexec.empty() ? LOOM_MPIEXEC : mpiexec};
  argv.push_back(std::string(LOOM_FLAVOR) == "openmpi" ? "--bind-to" : "-bind-to");
  argv.insert(argv.end(), {"core", "-n", "2", "env", "LD_PRELOAD=" + dropin,
                           "LOOM_SCHEME=" + scheme});
  argv.insert(argv.end(), env.begin(), env.end());
  argv.push_back(self_exe());
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::string join_command(const std::vector<std::string> &argv) {
  std::string cmd;
  for (const std::string &s : argv) cmd += (cmd.empty() ? "" : " ") + s;
  return cmd;
}

}  // namespace loom_cli
