// The scheme selection's thresholds (scheme.hpp): settings LOOM_SYSTEM_RUN,
// LOOM_SYSTEM_MIN and LOOM_SYSTEM_MAX, whose per-MPI defaults and reasons
// are in the registry (src/settings/registry.cpp).
#include "scheme.hpp"

#include "config.hpp"

namespace loom_mpi {

int64_t system_min_run() {
  static const int64_t v = config().bytes(Id::system_run);
  return v;
}

size_t system_min_bytes() {
  static const size_t v = (size_t)config().bytes(Id::system_min);
  return v;
}

size_t system_max_bytes() {
  static const size_t v = (size_t)config().bytes(Id::system_max);
  return v;
}

}  // namespace loom_mpi
