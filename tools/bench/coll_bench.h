// `loom bench coll`: collectives with derived datatypes, four contenders
// interleaved in one run (see p2p_harness.h), any number of ranks (2 on this
// machine):
//   FFT2D  the transpose of a row-distributed N x N complex matrix, with
//          MPI_Alltoall of a resized vector (send) and a transposing column
//          type (receive), and with MPI_Alltoallw of the same types at byte
//          displacements;
//   halo   the face exchange of a 3D stencil ((n+2)^3 doubles with one ghost
//          layer) with MPI_Neighbor_alltoallw of subarray faces on a
//          cartesian communicator split along x, y or z (x faces are runs of
//          n doubles, z faces single doubles);
//   vector MPI_Bcast, MPI_Gather and MPI_Allgather (and, for loom tune,
//          MPI_Alltoall) of one vector type on both sides.
// The hand contender packs into a contiguous buffer, calls the contiguous
// collective (PMPI_Alltoall / PMPI_Neighbor_alltoall / the same rooted
// collective) and unpacks.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dual_type.h"
#include "p2p_bench.h"

namespace loom_bench {

// One instantiated collective case on a communicator.
class CollCase {
 public:
  virtual ~CollCase() = default;
  // Contender k's collective (cLoom, cSys, cHand, cBound); all ranks call it.
  virtual void run(int k) = 0;
  // Sentinel bytes into everything a contender writes.
  virtual void reset() = 0;
  // After reset() and run(k): "" when this rank holds exactly the expected
  // data (whole buffers), otherwise what differs.
  virtual std::string check(int k) = 0;

  std::string sizes, plan;
  size_t bytes = 0;  // packed bytes this rank sends per call
  size_t block = 0;  // packed bytes of one peer's block
};

struct CollDef {
  std::string name, group;
  std::function<std::unique_ptr<CollCase>(MPI_Comm comm, loom_bounds_rule rule)> make;
};

// The FFT2D transpose of an n x n complex matrix (Alltoall; Alltoallw
// with w): blocks of (n / ranks)^2 * 16 bytes.
CollDef fft_case(int64_t n, bool w);
// The 3D halo exchange of an n^3 grid split along x (0), y (1) or z (2):
// faces of n^2 doubles.
CollDef halo_case(int64_t n, int split);

// A collective of a vector of doubles on both sides: runs of `run` bytes
// every 2 * run, `block` bytes per peer (root 0).
enum class VecColl { alltoall, allgather, gather, bcast };
CollDef vector_coll_case(VecColl op, size_t run, size_t block);

// FFT2D of 256^2 and 1024^2 (Alltoall, Alltoallw), halos of 64^3 and 128^3
// split along x, y, z, and Bcast, Gather and Allgather of vectors with
// 64-byte runs in 256 KiB and 1 MiB blocks; with quick, 32^2, 12^3 and
// 16 KiB blocks.
std::vector<CollDef> coll_cases(bool quick);

// Runs the selected cases on MPI_COMM_WORLD and prints the table on rank 0;
// the rows (every rank) in *rows when given.
int bench_coll(const std::vector<CollDef> &cases, const CommBenchArgs &args,
               const RunInfo &run, std::vector<CommRow> *rows = nullptr);

}  // namespace loom_bench
