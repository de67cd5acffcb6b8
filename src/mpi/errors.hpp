// Error reporting for the drop-in layer: MPI error classes raised through the
// communicator's error handler, as the system MPI would raise them.
#pragma once
#include <mpi.h>

#include <new>

namespace loom_mpi {

// Invokes comm's error handler with error class @p cls and returns what the
// handler leaves for the caller (the class itself under MPI_ERRORS_RETURN).
int raise(MPI_Comm comm, int cls);

// Errors of calls without a communicator (the external32 family): both
// MPICH 4.0.2 and Open MPI 4.1.4 raise them on MPI_COMM_WORLD.
int raise_nocomm(int cls);

// Runs the body of an MPI entry point so that no C++ exception leaves the
// library: an allocation Loom could not make is MPI_ERR_NO_MEM, anything
// else MPI_ERR_INTERN, raised on comm.  Loom allocates before it starts the
// system's part of a call wherever it can, so such an error leaves nothing
// half-sent.
template <class F>
int guarded(MPI_Comm comm, F &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return raise(comm, MPI_ERR_NO_MEM);
  } catch (...) {
    return raise(comm, MPI_ERR_INTERN);
  }
}

// The LOOM_VERBOSE setting (config.hpp).
bool verbose();
// printf-style diagnostics to stderr, one line each tagged with the rank
// ("loom[3]: ..."; "loom[pid N]: ..." outside MPI_Init..MPI_Finalize), only
// when verbose().
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// A warning line ("loom[3]: warning: ..."), whatever verbose() says.
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace loom_mpi
