// MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe: the system's, with the
// size of a Loom-to-Loom message reported as the message's, not its RDV's
// (docs/protocol.md, "Probes").
#include "l2l.hpp"
#include "p2p.hpp"

using namespace loom_mpi;

LOOM_MPI_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  return entry(comm, [&]() -> int {
    int rc = PMPI_Probe(source, tag, comm, status);
    if (rc == MPI_SUCCESS && status != MPI_STATUS_IGNORE) l2l::fix_probe(comm, status, false);
    return rc;
  });
}

LOOM_MPI_EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
                               MPI_Status *status) {
  return entry(comm, [&]() -> int {
    int rc = PMPI_Iprobe(source, tag, comm, flag, status);
    if (rc == MPI_SUCCESS && flag && *flag && status != MPI_STATUS_IGNORE)
      l2l::fix_probe(comm, status, false);
    return rc;
  });
}

LOOM_MPI_EXPORT int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                               MPI_Status *status) {
  return entry(comm, [&]() -> int {
    // The slot must be marked even when the program ignores the status.
    MPI_Status tmp;
    MPI_Status *st = status_or(status, &tmp);
    int rc = PMPI_Mprobe(source, tag, comm, message, st);
    if (rc == MPI_SUCCESS) l2l::fix_probe(comm, st, true);
    return rc;
  });
}

LOOM_MPI_EXPORT int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
                                MPI_Message *message, MPI_Status *status) {
  return entry(comm, [&]() -> int {
    MPI_Status tmp;
    MPI_Status *st = status_or(status, &tmp);
    int rc = PMPI_Improbe(source, tag, comm, flag, message, st);
    if (rc == MPI_SUCCESS && flag && *flag) l2l::fix_probe(comm, st, true);
    return rc;
  });
}
