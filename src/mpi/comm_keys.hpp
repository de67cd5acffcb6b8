// Communicator keys and world ranks for the Loom-to-Loom protocol
// (docs/protocol.md, "Communicator keys"): a name for a communicator that
// all its members compute alike without communicating, and the world rank
// of each of its ranks.
#pragma once
#include <mpi.h>

#include <cstdint>

namespace loom_mpi {

// The communicator's key; 0 when Loom did not see it created (it then
// never carries Loom-to-Loom messages).
uint64_t comm_key(MPI_Comm comm);

// A number that moves whenever Loom sees a communicator created or freed:
// what is cached about a communicator handle stays valid while it does not
// move (a freed handle's value may come back for another communicator).
uint64_t comm_epoch();

// The world rank of `rank` in intracommunicator comm; -1 when unknown
// (an intercommunicator, MPI_PROC_NULL, a bad rank).
int world_rank(MPI_Comm comm, int rank);

}  // namespace loom_mpi
