// progress(): see progress.hpp.
#include "progress.hpp"

#include "l2l.hpp"

namespace loom_mpi {

void progress() {
  poll_detached();
  l2l::poll();
}

}  // namespace loom_mpi
