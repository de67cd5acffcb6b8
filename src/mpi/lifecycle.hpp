// What the drop-in does when the system MPI has started: everything that
// must be ready before the program's first call.
#pragma once

namespace loom_mpi {

// Before PMPI_Init / PMPI_Init_thread: what can be ready before the
// system starts (the Loom-to-Loom segment, when the launcher names the
// rank).
void starting();

// After a successful PMPI_Init / PMPI_Init_thread: the type path's
// warm-up and this process's Loom-to-Loom segment.  Never fails the
// program's call (a failure only leaves the protocol off).
void started();

}  // namespace loom_mpi
