#include "run_meta.h"

#include <unistd.h>

#include <cmath>
#include <ctime>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "dual_type.h"
#include "loom.h"

namespace loom_bench {

namespace {

std::string local_date() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %z", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) break;
    auto b = line.find_first_not_of(" \t", colon + 1);
    return b == std::string::npos ? "unknown" : line.substr(b);
  }
  return "unknown";
}

}  // namespace

LoadAverage read_load_average() {
  LoadAverage l{NAN, NAN, NAN};
  std::ifstream in("/proc/loadavg");
  double a, b, c;
  if (in >> a >> b >> c) l = {a, b, c};
  return l;
}

std::string format_load(const LoadAverage &l, int cores) {
  auto f = [](double v) { return std::isnan(v) ? std::string("?") : fmt::format("{:.2f}", v); };
  return fmt::format("{} {} {} ({} cores)", f(l.one), f(l.five), f(l.fifteen), cores);
}

RunInfo collect_run_info(const std::string &flavor, bool quick, const std::string &stat,
                         const std::vector<std::string> &command_line) {
  RunInfo info;
  info.date = local_date();
  info.host = host_name();
  info.mpi = mpi_library_name();
  info.mpi_version = mpi_library_version();
  info.flavor = flavor;
  info.git_commit = build_git_commit();
  info.git_dirty = build_git_dirty();
  info.cpu_model = cpu_model();
  info.cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  info.load_start = read_load_average();
  info.load_end = info.load_start;
  info.command_line = command_line;
  info.quick = quick;
  info.stat = stat;
  info.isa = loom_isa();
  info.hand_flags = LOOM_HAND_FLAGS;
  return info;
}

nlohmann::json run_json(const RunInfo &info) {
  using nlohmann::json;
  auto load = [](const LoadAverage &l) {
    json a = json::array();
    for (double v : {l.one, l.five, l.fifteen}) a.push_back(std::isnan(v) ? json(nullptr) : json(v));
    return a;
  };
  return {{"date", info.date},
          {"git", {{"commit", info.git_commit}, {"dirty", info.git_dirty}}},
          {"flavor", info.flavor},
          {"mpi", {{"name", info.mpi}, {"library_version", info.mpi_version}}},
          {"machine",
           {{"hostname", info.host},
            {"cpu_model", info.cpu_model},
            {"cores", info.cores},
            {"load_start", load(info.load_start)},
            {"load_end", load(info.load_end)}}},
          {"command_line", info.command_line},
          {"quick", info.quick},
          {"stat", info.stat},
          {"isa", info.isa},
          {"hand_flags", info.hand_flags}};
}

}  // namespace loom_bench
