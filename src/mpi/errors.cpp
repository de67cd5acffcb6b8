#include "errors.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdio>

#include "config.hpp"

namespace loom_mpi {

int raise(MPI_Comm comm, int cls) {
  // MPI_Comm_call_errhandler returns MPI_SUCCESS when the handler returns;
  // the user still has to see the error code, as from the system MPI.
  PMPI_Comm_call_errhandler(comm, cls);
  return cls;
}

int raise_nocomm(int cls) { return raise(MPI_COMM_WORLD, cls); }

namespace {

// Writes one line to stderr, in one piece (ranks and threads interleave
// whole lines): "loom[rank]: " (MPI_COMM_WORLD rank, once MPI is
// initialized; "loom[pid N]: " before), @p tag, the message.
void vline(const char *tag, const char *fmt, va_list ap) {
  static std::atomic<int> cached_rank{-1};
  int rank = cached_rank.load(std::memory_order_relaxed);
  if (rank < 0) {
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    if (init) PMPI_Finalized(&fin);
    if (init && !fin && PMPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS)
      cached_rank.store(rank, std::memory_order_relaxed);
    else
      rank = -1;
  }
  char line[1024];
  int n = rank >= 0 ? std::snprintf(line, sizeof line, "loom[%d]: %s", rank, tag)
                    : std::snprintf(line, sizeof line, "loom[pid %ld]: %s", (long)getpid(), tag);
  int m = std::vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
  n = m < 0 ? n : std::min(n + m, (int)sizeof line - 2);  // truncated when long
  line[n] = '\n';
  line[n + 1] = 0;
  std::fputs(line, stderr);
}

}  // namespace

bool verbose() { return config().on(Id::verbose); }

void note(const char *fmt, ...) {
  if (!verbose()) return;
  va_list ap;
  va_start(ap, fmt);
  vline("", fmt, ap);
  va_end(ap);
}

void warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vline("warning: ", fmt, ap);
  va_end(ap);
}

}  // namespace loom_mpi
