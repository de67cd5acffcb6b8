// Shared harness of the collective tests: the two ways to call every
// collective (the drop-in's MPI_* and the system's PMPI_*), blocking or
// nonblocking, buffers laid out for per-peer blocks of a derived type, and
// the reference comparison: the same collective done by the system alone
// on identical buffers must leave every byte (gaps included) the same.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "guarded.hpp"
#include "mpi_test.hpp"
#include "to_mpi.hpp"

namespace colltest {

using loomtest::Guarded;

// The collectives, one table per provider.
struct Fns {
  decltype(&MPI_Bcast) bcast;
  decltype(&MPI_Ibcast) ibcast;
  decltype(&MPI_Gather) gather;
  decltype(&MPI_Igather) igather;
  decltype(&MPI_Gatherv) gatherv;
  decltype(&MPI_Igatherv) igatherv;
  decltype(&MPI_Scatter) scatter;
  decltype(&MPI_Iscatter) iscatter;
  decltype(&MPI_Scatterv) scatterv;
  decltype(&MPI_Iscatterv) iscatterv;
  decltype(&MPI_Allgather) allgather;
  decltype(&MPI_Iallgather) iallgather;
  decltype(&MPI_Allgatherv) allgatherv;
  decltype(&MPI_Iallgatherv) iallgatherv;
  decltype(&MPI_Alltoall) alltoall;
  decltype(&MPI_Ialltoall) ialltoall;
  decltype(&MPI_Alltoallv) alltoallv;
  decltype(&MPI_Ialltoallv) ialltoallv;
  decltype(&MPI_Alltoallw) alltoallw;
  decltype(&MPI_Ialltoallw) ialltoallw;
  decltype(&MPI_Neighbor_allgather) nallgather;
  decltype(&MPI_Ineighbor_allgather) inallgather;
  decltype(&MPI_Neighbor_allgatherv) nallgatherv;
  decltype(&MPI_Ineighbor_allgatherv) inallgatherv;
  decltype(&MPI_Neighbor_alltoall) nalltoall;
  decltype(&MPI_Ineighbor_alltoall) inalltoall;
  decltype(&MPI_Neighbor_alltoallv) nalltoallv;
  decltype(&MPI_Ineighbor_alltoallv) inalltoallv;
  decltype(&MPI_Neighbor_alltoallw) nalltoallw;
  decltype(&MPI_Ineighbor_alltoallw) inalltoallw;
};
extern const Fns kLoom;    // MPI_*: the drop-in
extern const Fns kSystem;  // PMPI_*: the system alone

// How one rank runs a collective: through which table, blocking or not.
// Nonblocking runs complete with the drop-in's completion calls (Loom) or
// PMPI_Wait (system); `completion` picks among Wait, Test loop, Waitall,
// Waitany, Waitsome, Testall, Testany, Testsome, Request_get_status+Wait.
struct Path {
  bool loom = true;
  bool nonblocking = false;
  int completion = 0;
  std::string name() const;
};

// Runs a collective along p: blocking(fns) or nonblocking(fns, &req) and
// the completion.  Returns the first error code.
int run(const Path &p, const std::function<int(const Fns &)> &blocking,
        const std::function<int(const Fns &, MPI_Request *)> &nonblocking);

// A committed random derived type with what the tests need to lay out
// buffers for it.
struct TType {
  loomtest::MpiType mt;
  MPI_Datatype T = MPI_DATATYPE_NULL;
  loomtest::Layout L;
  int64_t ext = 0, size = 0;
  std::string desc;
  // Bytes count instances touch, relative to their origin: the reference's
  // and the system's view joined.
  void span(int64_t count, int64_t *lo, int64_t *hi) const;
  // Whether `count` consecutive instances share a byte (receive layouts
  // must not: the order of writes would decide the result).
  bool overlaps(int64_t count) const;
  ~TType();
};

// Draws a type usable for collective comparisons from seed (identical on
// every rank): size > 0, extent > 0, no known system bug in the way.
// nullptr (on every rank alike) when the draw is unusable.
std::unique_ptr<TType> draw_type(uint64_t seed);

// A memory region that holds blocks, relative to the buffer origin.
struct Region {
  int64_t lo = 0, hi = 0;
  void add(int64_t lo2, int64_t hi2);
};

// Bytes each block touches relative to its own origin: counts[k]
// instances of t, or counts[k] * t.size contiguous bytes where bytes[k]
// (a block moved as MPI_BYTE).
std::vector<std::pair<int64_t, int64_t>> block_spans(const TType &t,
                                                      const std::vector<int> &counts,
                                                      const std::vector<bool> &bytes = {});

// Displacements for blocks with the given spans that never share a byte,
// in random order with random gaps, in units of `unit` (t.ext for the v
// variants, 1 for byte displacements).  Adds the blocks to *reg.
std::vector<int64_t> layout_blocks(const std::vector<std::pair<int64_t, int64_t>> &spans,
                                   int64_t unit, std::mt19937_64 &rng, Region *reg);

// One compared run: buffers for the send and receive regions filled
// identically (per rank), body(path, send_origin, recv_origin) run first
// with the system on every rank (blocking or not, as `test`), then with
// `test` here; the receive
// buffers must match byte for byte and the send buffers be untouched.
//
// second_opinion: where Loom's result differs on some rank, every rank also
// runs the system's other kind of call (nonblocking for blocking and back),
// and Loom may match that instead.  MPICH 4.0.2's blocking and nonblocking
// algorithms disagree with each other for some types: its datatype engine
// mishandles a byte stream received into a derived type whose elements the
// stream's chunks split (see random.cpp, mixable()), and its algorithms
// move packed bytes between typed buffers internally.  Counted in
// system_disagreements().  Not for neighborhood collectives: Open MPI
// matches repeated edges differently in its two kinds, legitimately.
struct Compare {
  MPI_Comm comm;
  std::string what;
  uint64_t fill_seed;
  Region send, recv;
  bool second_opinion = false;
  void operator()(const Path &test,
                  const std::function<int(const Path &, unsigned char *, unsigned char *)> &body);
};

// Compares where only the system's other kind of call agreed with Loom.
long &system_disagreements();

// Deterministic per-pair block counts (0..3, zero now and then): identical
// on every rank, so both ends of every block agree.
int pair_count(uint64_t seed, int from, int to);

}  // namespace colltest
