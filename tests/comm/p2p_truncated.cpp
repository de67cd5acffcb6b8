// Truncated receives of a message far over the eager limit, the receive
// posted before the send leaves (so that the system takes its rendezvous
// path, where Open MPI 4.1.4's single copy writes a truncated message
// whole): each must report MPI_ERR_TRUNCATE and write nothing outside its
// receive layout, and the process must survive.  Count 0 of a derived type
// (the system's own receive: the drop-in hands it an inaccessible page),
// and a non-contiguous receive with little room, blocking and not (Loom
// stages it: its staging ends at a guard page there), several times so
// that an overfilled heap buffer would be reused.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "mpi_test.hpp"

using namespace loomtest;

namespace {

constexpr int kSent = 256 << 10;  // bytes sent each time
constexpr size_t kPad = 1 << 20;  // guarded bytes around the receive layout
constexpr unsigned char kFill = 0xA5;

// Receives into the middle of a buffer of pads: every byte outside
// [origin + lo, origin + hi) must keep kFill.
void check_receive(const char *what, int count, MPI_Datatype t, bool blocking, int64_t lo,
                   int64_t hi, const std::vector<unsigned char> &layout_mask) {
  std::vector<unsigned char> buf(2 * kPad, kFill);
  unsigned char *origin = buf.data() + kPad;
  MPI_Status st;
  int rc;
  if (blocking) {
    MPI_Barrier(MPI_COMM_WORLD);  // the sender waits for it, then sends
    rc = MPI_Recv(origin, count, t, 0, 7, MPI_COMM_WORLD, &st);
  } else {
    MPI_Request r;
    rc = MPI_Irecv(origin, count, t, 0, 7, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, &st);
  }
  EXPECT_MSG(err_class(rc) == MPI_ERR_TRUNCATE, "%s: class %d, not MPI_ERR_TRUNCATE", what,
             err_class(rc));
  for (size_t i = 0; i < buf.size(); ++i) {
    const int64_t at = (int64_t)i - (int64_t)kPad;
    const bool inside = at >= lo && at < hi && layout_mask[(size_t)(at - lo)];
    if (!inside && buf[i] != kFill) {
      failf("%s: byte at origin%+lld written (outside the receive layout)\n", what,
            (long long)at);
      break;
    }
  }
  // An overfilled heap buffer shows when its neighbours are reused.
  std::vector<void *> blocks;
  for (int i = 0; i < 256; ++i) blocks.push_back(std::malloc(64 + 64 * (i % 64)));
  for (void *b : blocks) std::free(b);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "p2p_truncated: run with 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  // Every other float of 64: 128 bytes of room in 252 bytes.
  MPI_Datatype vec;
  MPI_Type_vector(32, 1, 2, MPI_FLOAT, &vec);
  MPI_Type_commit(&vec);
  std::vector<unsigned char> mask(252, 0);
  for (int i = 0; i < 32; ++i) std::memset(&mask[8 * i], 1, 4);
  struct Case {
    const char *what;
    int count;
    bool blocking;
  };
  const Case cases[] = {{"Irecv count 0", 0, false},
                        {"Recv count 0", 0, true},
                        {"Irecv vector (128 bytes of room)", 1, false},
                        {"Recv vector (128 bytes of room)", 1, true}};
  std::vector<char> out(kSent, 0x11);
  for (int round = 0; round < 4; ++round)
    for (const Case &c : cases) {
      if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(out.data(), kSent, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
      } else {
        check_receive(c.what, c.count, vec, c.blocking, 0, c.count ? 252 : 0, mask);
      }
    }
  MPI_Type_free(&vec);
  return finish("comm_p2p_truncated");
}
