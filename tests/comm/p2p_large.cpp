// A message past 2 GiB (2.5 GiB packed) both ways between two ranks:
// blocking Send/Recv, then Isend/Irecv, then (MPI-4) the stream as a count
// of bytes past INT_MAX with MPI_Recv_c and MPI_Isend_c.  Every element must arrive and no
// gap byte may be written.  Run with LOOM_L2L=0 (staged), the system must
// see one message of one byte type of exactly the packed size (not the
// program's type, which would mean the system's datatype path moved it);
// with `l2l` as argument (the Loom-to-Loom protocol may move it), the system
// must never see the program's type.
//
// About 5.4 GB of memory per rank (the user buffer and the staging copy);
// labelled `large` so that `ctest -LE large` leaves it out.
#include <mpi.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "mpi_test.hpp"

namespace {

MPI_Datatype g_sys_type = MPI_DATATYPE_NULL;  // what the system last got
int g_sys_count = -1;
bool g_l2l = false;  // the Loom-to-Loom protocol may carry the message

template <class F>
F next(const char *name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

void seen(int count, MPI_Datatype t) {
  g_sys_count = count;
  g_sys_type = t;
}

}  // namespace

// The drop-in's calls resolve to these (the program is searched first).
extern "C" int PMPI_Send(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm) {
  static auto real = next<decltype(&PMPI_Send)>("PMPI_Send");
  seen(c, t);
  return real(b, c, t, d, tag, comm);
}
extern "C" int PMPI_Recv(void *b, int c, MPI_Datatype t, int s, int tag, MPI_Comm comm,
                         MPI_Status *st) {
  static auto real = next<decltype(&PMPI_Recv)>("PMPI_Recv");
  seen(c, t);
  return real(b, c, t, s, tag, comm, st);
}
extern "C" int PMPI_Isend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm,
                          MPI_Request *r) {
  static auto real = next<decltype(&PMPI_Isend)>("PMPI_Isend");
  seen(c, t);
  return real(b, c, t, d, tag, comm, r);
}
extern "C" int PMPI_Irecv(void *b, int c, MPI_Datatype t, int s, int tag, MPI_Comm comm,
                          MPI_Request *r) {
  static auto real = next<decltype(&PMPI_Irecv)>("PMPI_Irecv");
  seen(c, t);
  return real(b, c, t, s, tag, comm, r);
}

namespace {

// Runs of 508 bytes (127 ints every 128): short enough that Loom stages
// them on both MPIs (scheme.hpp), 2.5 GiB packed in all.
constexpr int64_t kBlocks = 5284000;
constexpr int64_t kRun = 127, kStride = 128;
constexpr uint32_t kCanary = 0xfeedfaceu;

uint32_t value(int64_t i, uint32_t salt) { return (uint32_t)(i * 2654435761u) ^ salt; }

// The system got one byte type of `packed` bytes (staged), or at least not
// `user` (the Loom-to-Loom protocol sends an envelope and moves the bytes
// itself).
void expect_wire(MPI_Datatype user, int64_t packed, const char *what) {
  MPI_Count size = -1;
  if (g_sys_type != MPI_DATATYPE_NULL) PMPI_Type_size_x(g_sys_type, &size);
  if (g_l2l) {
    EXPECT_MSG(g_sys_type != user, "%s: the system's datatype path got the message", what);
    return;
  }
  EXPECT_MSG(g_sys_type != user && g_sys_count == 1 && size == packed,
        "%s: the system got count %d of a type of %lld bytes, not one message of %lld "
        "staged bytes",
        what, g_sys_count, (long long)size, (long long)packed);
}

// Every element of the layout holds value(i, salt); every gap the canary.
// (Block by block, without a division per int: these passes over 2.7 GB
// were a fifth of the test's time.)
void expect_data(const std::vector<uint32_t> &buf, uint32_t salt, const char *what) {
  int64_t bad = 0, first = -1;
  for (int64_t b = 0; b * kStride < (int64_t)buf.size(); ++b) {
    const uint32_t *p = buf.data() + b * kStride;
    const int64_t n = std::min<int64_t>(kStride, (int64_t)buf.size() - b * kStride);
    int64_t wrong = 0;
    for (int64_t j = 0; j < n; ++j)
      wrong += p[j] != (j < kRun ? value(b * kStride + j, salt) : kCanary);
    if (wrong && first < 0)
      for (int64_t j = 0; first < 0; ++j)
        if (p[j] != (j < kRun ? value(b * kStride + j, salt) : kCanary)) first = b * kStride + j;
    bad += wrong;
  }
  EXPECT_MSG(bad == 0, "%s: %lld wrong ints, first at int %lld", what, (long long)bad,
        (long long)first);
}

void fill(std::vector<uint32_t> &buf, uint32_t salt) {
  for (int64_t b = 0; b * kStride < (int64_t)buf.size(); ++b) {
    uint32_t *p = buf.data() + b * kStride;
    const int64_t n = std::min<int64_t>(kStride, (int64_t)buf.size() - b * kStride);
    for (int64_t j = 0; j < n; ++j) p[j] = j < kRun ? value(b * kStride + j, salt) : kCanary;
  }
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  g_l2l = argc > 1 && std::string(argv[1]) == "l2l";
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "p2p_large: run with 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Datatype vec;
  MPI_Type_vector((int)kBlocks, (int)kRun, (int)kStride, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  const int64_t packed = kBlocks * kRun * 4;
  const int64_t ints = (kBlocks - 1) * kStride + kRun;
  std::vector<uint32_t> buf((size_t)ints);
  const uint32_t salt0 = 0x1234567u, salt1 = 0x7654321u;
  const int peer = 1 - rank;

  // Blocking, rank 0 -> rank 1.
  if (rank == 0) {
    fill(buf, salt0);
    double t = MPI_Wtime();
    EXPECT_MSG(MPI_Send(buf.data(), 1, vec, peer, 1, MPI_COMM_WORLD) == MPI_SUCCESS, "Send");
    expect_wire(vec, packed, "Send");
    std::printf("rank 0: Send of %lld packed bytes %.2f s\n", (long long)packed,
                MPI_Wtime() - t);
  } else {
    std::fill(buf.begin(), buf.end(), kCanary);
    MPI_Status st;
    double t = MPI_Wtime();
    EXPECT_MSG(MPI_Recv(buf.data(), 1, vec, peer, 1, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "Recv");
    std::printf("rank 1: Recv %.2f s\n", MPI_Wtime() - t);
    expect_wire(vec, packed, "Recv");
    int count = -1;
    MPI_Get_count(&st, vec, &count);
    EXPECT_MSG(count == 1, "Get_count %d, want 1", count);
    MPI_Count elems = -1;
    MPI_Get_elements_x(&st, MPI_INT, &elems);
    EXPECT_MSG(elems == kBlocks * kRun, "Get_elements_x %lld, want %lld", (long long)elems,
          (long long)(kBlocks * kRun));
    expect_data(buf, salt0, "blocking");
  }

  // Nonblocking, rank 1 -> rank 0 (rank 0's buffer is overwritten).
  MPI_Request req;
  if (rank == 1) {
    fill(buf, salt1);
    EXPECT_MSG(MPI_Isend(buf.data(), 1, vec, peer, 2, MPI_COMM_WORLD, &req) == MPI_SUCCESS, "Isend");
    expect_wire(vec, packed, "Isend");
    EXPECT_MSG(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait (send)");
  } else {
    std::fill(buf.begin(), buf.end(), kCanary);
    EXPECT_MSG(MPI_Irecv(buf.data(), 1, vec, peer, 2, MPI_COMM_WORLD, &req) == MPI_SUCCESS, "Irecv");
    expect_wire(vec, packed, "Irecv");
    MPI_Status st;
    EXPECT_MSG(MPI_Wait(&req, &st) == MPI_SUCCESS, "Wait (recv)");
    int count = -1;
    MPI_Get_count(&st, vec, &count);
    EXPECT_MSG(count == 1, "Get_count %d, want 1", count);
    expect_data(buf, salt1, "nonblocking");
  }

#if MPI_VERSION >= 4
  // Large counts (MPI-4): the packed stream as one count of bytes past
  // INT_MAX.  Rank 0's typed send lands contiguous in rank 1's MPI_Recv_c
  // (a Loom-to-Loom RDV must not be taken as its data); rank 1 sends it
  // back with MPI_Isend_c into rank 0's typed receive.
  const MPI_Count bytes = packed;
  if (rank == 0) {
    fill(buf, salt0);
    EXPECT_MSG(MPI_Send(buf.data(), 1, vec, peer, 3, MPI_COMM_WORLD) == MPI_SUCCESS, "Send");
    std::fill(buf.begin(), buf.end(), kCanary);
    MPI_Status st;
    EXPECT_MSG(MPI_Recv(buf.data(), 1, vec, peer, 4, MPI_COMM_WORLD, &st) == MPI_SUCCESS,
               "Recv of Isend_c");
    expect_data(buf, salt0, "Isend_c of bytes to a typed receive");
  } else {
    std::fill(buf.begin(), buf.end(), kCanary);
    MPI_Status st;
    EXPECT_MSG(MPI_Recv_c(buf.data(), bytes, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &st) ==
                   MPI_SUCCESS, "Recv_c");
    MPI_Count got = -1;
    MPI_Get_count_c(&st, MPI_BYTE, &got);
    EXPECT_MSG(got == bytes, "Recv_c: Get_count_c %lld, want %lld", (long long)got,
               (long long)bytes);
    int64_t bad = 0;
    for (int64_t b = 0; b < kBlocks; ++b)
      for (int64_t j = 0; j < kRun; ++j)
        bad += buf[(size_t)(b * kRun + j)] != value(b * kStride + j, salt0);
    EXPECT_MSG(bad == 0, "Recv_c of a typed send: %lld wrong ints", (long long)bad);
    EXPECT_MSG(MPI_Isend_c(buf.data(), bytes, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &req) ==
                   MPI_SUCCESS, "Isend_c");
    EXPECT_MSG(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait (Isend_c)");
  }
#endif

  MPI_Type_free(&vec);
  return loomtest::finish("p2p_large");
}
