// Defaults and environment overrides of the scheme selection (scheme.hpp).
#include "scheme.hpp"

#include <cstdlib>

namespace loom_mpi {
namespace {

#if defined(MPICH)
constexpr int64_t kMinRun = 512;
constexpr size_t kMinBytes = size_t(8) << 10;  // below, its path costs 2x a loop
constexpr size_t kMaxBytes = size_t(4) << 20;
#else
constexpr int64_t kMinRun = 512;
constexpr size_t kMinBytes = 0;
constexpr size_t kMaxBytes = size_t(1) << 40;
#endif

int64_t env_bytes(const char *name, int64_t dflt) {
  const char *v = std::getenv(name);
  if (!v || !*v) return dflt;
  char *end;
  long long n = std::strtoll(v, &end, 10);
  return *end || n < 0 ? dflt : n;
}

}  // namespace

int64_t system_min_run() {
  static const int64_t v = env_bytes("LOOM_SYSTEM_RUN", kMinRun);
  return v;
}

size_t system_min_bytes() {
  static const size_t v = (size_t)env_bytes("LOOM_SYSTEM_MIN", (int64_t)kMinBytes);
  return v;
}

size_t system_max_bytes() {
  static const size_t v = (size_t)env_bytes("LOOM_SYSTEM_MAX", (int64_t)kMaxBytes);
  return v;
}

}  // namespace loom_mpi
