#include <mpi.h>

#include "config.hpp"

#include "build_flavor.hpp"
#include "errors.hpp"

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

}  // namespace loom_mpi
