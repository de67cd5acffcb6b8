// One trial of the signature test: its seed, where it runs, which path is
// under test (the drop-in's MPI_* or, with --system, the system's PMPI_*),
// and the three kinds of exchange.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "coll_test.hpp"
#include "sig_case.hpp"
#include "sig_oracle.hpp"

namespace sigtest {

// The point-to-point calls, one table per provider.
struct P2p {
  decltype(&MPI_Send) send;
  decltype(&MPI_Isend) isend;
  decltype(&MPI_Ssend) ssend;
  decltype(&MPI_Send_init) send_init;
  decltype(&MPI_Recv) recv;
  decltype(&MPI_Irecv) irecv;
  decltype(&MPI_Recv_init) recv_init;
  decltype(&MPI_Sendrecv) sendrecv;
  decltype(&MPI_Mprobe) mprobe;
  decltype(&MPI_Mrecv) mrecv;
  decltype(&MPI_Start) start;
  decltype(&MPI_Wait) wait;
  decltype(&MPI_Request_free) request_free;
  decltype(&MPI_Get_count) get_count;
  decltype(&MPI_Get_elements_x) get_elements_x;
};
extern const P2p kLoomP2p;    // MPI_*: the drop-in
extern const P2p kSystemP2p;  // PMPI_*: the system alone

struct Trial {
  uint64_t run_seed;
  long index;     // -1, -2...: the fixed regression cases
  uint64_t seed;  // this trial's (from run_seed and index)
  bool system;    // --system: the path under test is the system's
  MPI_Comm comm;
  int rank, size;
  std::mt19937_64 rng;  // the same stream on every rank

  const P2p &p2p() const { return system ? kSystemP2p : kLoomP2p; }
  // "seed S trial K" (how to replay it).
  std::string where() const;
  uint64_t key(uint64_t a, uint64_t b = 0, uint64_t c = 0) const;
};

// Fixed sides for a regression case (rng draws nothing then).
struct Fixed {
  TypeSpecPtr send, recv;
  int64_t send_count, recv_count;
};

// rank (index % size) sends to the next rank, through Send, Isend, Ssend,
// Send_init or Sendrecv, received by Recv, Irecv, Recv_init, Mprobe+Mrecv
// or Sendrecv; any Fit.
void run_p2p(Trial &t, const Fixed *fixed = nullptr);
// MPI_Bcast (or Ibcast) from every root in turn; each rank has a receive
// type of its own shape.
void run_bcast(Trial &t, const Fixed *fixed = nullptr);
// MPI_Alltoallw (or Ialltoallw): a sender/receiver pair of its own per
// (source, destination).
void run_alltoallw(Trial &t);

}  // namespace sigtest
