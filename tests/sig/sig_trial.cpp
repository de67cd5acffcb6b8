// The point-to-point call tables and the trial's seed arithmetic.
#include "sig_trial.hpp"

namespace sigtest {

const P2p kLoomP2p = {MPI_Send,  MPI_Isend, MPI_Ssend,     MPI_Send_init,    MPI_Recv,
                      MPI_Irecv, MPI_Recv_init, MPI_Sendrecv, MPI_Mprobe,   MPI_Mrecv,
                      MPI_Start, MPI_Wait,  MPI_Request_free, MPI_Get_count, MPI_Get_elements_x};
const P2p kSystemP2p = {PMPI_Send,  PMPI_Isend, PMPI_Ssend,     PMPI_Send_init,    PMPI_Recv,
                        PMPI_Irecv, PMPI_Recv_init, PMPI_Sendrecv, PMPI_Mprobe,   PMPI_Mrecv,
                        PMPI_Start, PMPI_Wait,  PMPI_Request_free, PMPI_Get_count,
                        PMPI_Get_elements_x};

std::string Trial::where() const {
  if (index < 0) return "regression case " + std::to_string(-index);
  return "seed " + std::to_string(run_seed) + " trial " + std::to_string(index);
}

uint64_t Trial::key(uint64_t a, uint64_t b, uint64_t c) const {
  uint64_t h = seed;
  for (uint64_t x : {a, b, c}) {
    h ^= x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
  }
  return h;
}

}  // namespace sigtest
