// started(): see lifecycle.hpp.  The matching teardown runs at the start of
// MPI_Finalize (requests.cpp, drain_at_finalize).
#include "lifecycle.hpp"

#include "l2l_segment.hpp"
#include "mirror.hpp"

namespace loom_mpi {

void starting() {
  try {
    l2l::start_early();
  } catch (...) {
    // Out of memory: the segment is made after MPI_Init, or not at all.
  }
}

void started() {
  prepare_mirrors();
  try {
    l2l::start();
  } catch (...) {
    // Out of memory: no segment, so no peer ever sends this process an RDV.
  }
}

}  // namespace loom_mpi
