// Contiguous messages to a Loom peer: read in place, or moved by the
// system's own copy, as contiguous_read_in_place() decides (from 16 x
// LOOM_L2L_MIN when set; under LOOM_SCHEME=single_copy always, under
// staged never; else by the profile's contiguous rows, per size).  Each
// rank sends contiguous doubles of 32 KiB, 128 KiB and 512 KiB to the
// other, checks what it received value for value, and checks in its own
// Loom segment that exactly the sizes it is given (KiB, comma-separated,
// or "none") went by rendezvous.
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "comm_test.hpp"
#include "l2l_announced.hpp"

using namespace commtest;

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 || argc != 2) {
    if (rank == 0) std::fprintf(stderr, "usage: mpiexec -n 2 loom_comm_l2l_contig KIB,...|none\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::set<size_t> read;  // the sizes expected to be read in place
  if (std::string(argv[1]) != "none") {
    std::stringstream in(argv[1]);
    for (std::string kib; std::getline(in, kib, ',');) read.insert(std::stoul(kib) << 10);
  }
  const loom_mpi::l2l::Header *seg = find_segment();
  EXPECT_MSG(seg, "rank %d: no Loom segment of this process in /dev/shm", rank);
  const int peer = 1 - rank;
  for (size_t bytes : {size_t(32) << 10, size_t(128) << 10, size_t(512) << 10}) {
    const int n = (int)(bytes / sizeof(double));
    for (int sender = 0; sender < 2; ++sender) {
      std::vector<double> buf(n + 1, -1.0);
      const uint64_t before = announced(seg);
      if (rank == sender) {
        for (int i = 0; i < n; ++i) buf[i] = (double)(i + 7 * bytes + sender);
        MPI_Send(buf.data(), n, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD);
        const uint64_t got = announced(seg) - before, want = read.count(bytes);
        EXPECT_MSG(got == want, "rank %d: %zu contiguous bytes sent with %llu rendezvous, expected %llu",
                   rank, bytes, (unsigned long long)got, (unsigned long long)want);
      } else {
        MPI_Status st;
        MPI_Recv(buf.data(), n, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &st);
        int count = -1;
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        EXPECT_MSG(count == n, "rank %d: %zu bytes: count %d, expected %d", rank, bytes, count, n);
        for (int i = 0; i < n; ++i)
          if (buf[i] != (double)(i + 7 * bytes + sender)) {
            EXPECT_MSG(false, "rank %d: %zu bytes: double %d is %g", rank, bytes, i, buf[i]);
            break;
          }
        EXPECT_MSG(buf[n] == -1.0, "rank %d: %zu bytes: written past the buffer", rank, bytes);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  return finish("loom_comm_l2l_contig");
}
