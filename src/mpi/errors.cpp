#include "errors.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace loom_mpi {

int raise(MPI_Comm comm, int cls) {
  // MPI_Comm_call_errhandler returns MPI_SUCCESS when the handler returns;
  // the user still has to see the error code, as from the system MPI.
  PMPI_Comm_call_errhandler(comm, cls);
  return cls;
}

int raise_nocomm(int cls) { return raise(MPI_COMM_WORLD, cls); }

bool verbose() {
  static const bool on = [] {
    const char *v = std::getenv("LOOM_VERBOSE");
    return v && *v && !(v[0] == '0' && v[1] == 0);
  }();
  return on;
}

void note(const char *fmt, ...) {
  if (!verbose()) return;
  va_list ap;
  va_start(ap, fmt);
  std::fputs("[loom-mpi] ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
}

}  // namespace loom_mpi
