// The library's one progress function, and the wrapper every intercepted
// communication entry point runs in.
//
// progress() advances whatever Loom has in flight that no request of the
// program's is being waited on for: requests the program freed while active
// (completed behind its back), and the Loom-to-Loom send slots whose
// receivers have pulled the data (docs/protocol.md: their packed copies are
// released).  It costs a couple of atomic loads when there is nothing to do,
// so every entry point calls it: a later progress thread would call the
// same function and need no other change.
#pragma once
#include "errors.hpp"
#include "requests.hpp"

namespace loom_mpi {

void progress();

// The body of an MPI entry point: progress first, then `body` under
// guarded() (no C++ exception leaves the library).
template <class F>
int entry(MPI_Comm comm, F &&body) noexcept {
  return guarded(comm, [&]() -> int {
    progress();
    return body();
  });
}

}  // namespace loom_mpi
