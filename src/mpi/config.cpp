#include <mpi.h>

#include "config.hpp"

#include <algorithm>

#include "build_flavor.hpp"
#include "errors.hpp"
#include "loom.h"

namespace loom_mpi {

const loom::settings::Snapshot &config() {
  static const loom::settings::Snapshot *snapshot = [] {
    auto *s = new loom::settings::Snapshot(
        loom::settings::Snapshot::from_environment(loom::settings::kBuildFlavor));
    for (const std::string &w : s->warnings()) warn("%s", w.c_str());
    return s;
  }();
  return *snapshot;
}

int pack_threads_large(size_t bytes) {
  static const int64_t setting = config().bytes(Id::threads);
  // 0: Loom's measured choice (loom_pack_parallel's threads = 0).
  if (setting <= 1) return (int)setting;
  return std::min<int>(loom_parallel_threads(bytes), (int)setting);
}

}  // namespace loom_mpi
