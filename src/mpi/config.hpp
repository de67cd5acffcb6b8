// The drop-in's settings (src/settings): read from the environment once, on
// first use, with the defaults of the MPI this library is built for; each
// invalid value is reported on stderr then (one line, whatever LOOM_VERBOSE
// says: the user asked for something Loom does not do).
#pragma once
#include "settings.hpp"

namespace loom_mpi {

using loom::settings::Id;

// The process's settings (never destroyed: MPI_Finalize may run at exit).
const loom::settings::Snapshot &config();

// Threads for packing or unpacking a message of `bytes` packed bytes, as
// loom_pack_parallel's argument (LOOM_THREADS: 1, at most N, or 0 for
// Loom's measured choice).  Both give one thread per MiB at most, so below
// 2 MiB one (the common case, decided inline).
int pack_threads_large(size_t bytes);
inline int pack_threads(size_t bytes) {
  return bytes < (size_t(2) << 20) ? 1 : pack_threads_large(bytes);
}

}  // namespace loom_mpi
