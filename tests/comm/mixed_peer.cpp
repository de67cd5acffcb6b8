// A job where one process has Loom and the other does not: a plain MPI
// program (not linked with the drop-in), launched MPMD with libloom-mpi.so
// preloaded into rank 0 only.  The two exchange random derived types in
// both directions through the ordinary calls (Send, Ssend, Isend,
// Send_init; Recv, Irecv, Mprobe/Mrecv, Recv_init; Sendrecv), so Loom's
// MPI_PACKED messages meet the system's typed receives and the system's
// typed sends meet Loom's staged receives.  Oracle: the reference
// interpreter.  Usage: comm_mixed_peer [trials] [first-seed].
#include <cinttypes>
#include <cstdlib>

#include "comm_test.hpp"

using namespace commtest;

namespace {

int g_rank;
long g_checked = 0;

bool loom_here() { return provider("MPI_Send").find("libloom-mpi") != std::string::npos; }

void trial(uint64_t seed, bool loom_sends) {
  std::mt19937_64 rng(seed);
  auto uni = [&](int64_t a, int64_t b) { return std::uniform_int_distribution<int64_t>(a, b)(rng); };
  RandType rt = random_type(rng, (int)uni(1, 4));
  if (!rt.ok()) return;
  const int sender = (int)(seed % 2);
  const int64_t size = rt.L.size;
  // Types whose bytes the system itself gets wrong cannot be compared with
  // the reference when the system is one side; MPICH cannot receive long
  // MPI_PACKED messages into types mixing element sizes.
  bool usable = rt.sys_exact && size > 0 && (!loom_sends || rt.packed_to_typed_ok);
  int64_t cr = uni(1, 3), cs = uni(0, 1) ? cr : uni(0, cr);
  if (cr * size > (2 << 20)) cr = cs = 1;
  int how_s = (int)uni(0, 4), how_r = (int)uni(0, 4);
  if (!usable) {
    free_type(rt);
    return;
  }
  Span sp = span_of(rt.T, rt.L, cr);
  const int tag = (int)(seed % 10000);
  if (std::getenv("LOOM_TEST_TRACE"))
    std::fprintf(stderr, "rank %d seed %" PRIu64 " (%d -> %d) cs %" PRId64 " cr %" PRId64
                 ": %s\n", g_rank, seed, how_s, how_r, cs, cr, rt.desc.c_str());
  if (g_rank == sender) {
    Buf src(sp, 5);
    src.g.fill(seed);
    MPI_Request r;
    int tok = 0;
    switch (how_s) {
      case 0: MPI_Send(src.origin(), (int)cs, rt.T, 1 - g_rank, tag, MPI_COMM_WORLD); break;
      case 1: MPI_Ssend(src.origin(), (int)cs, rt.T, 1 - g_rank, tag, MPI_COMM_WORLD); break;
      case 2:
        MPI_Isend(src.origin(), (int)cs, rt.T, 1 - g_rank, tag, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        break;
      case 3:
        MPI_Send_init(src.origin(), (int)cs, rt.T, 1 - g_rank, tag, MPI_COMM_WORLD, &r);
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Request_free(&r);
        break;
      default:
        MPI_Sendrecv(src.origin(), (int)cs, rt.T, 1 - g_rank, tag, &tok, 0, MPI_INT,
                     1 - g_rank, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else {
    Buf dst(sp, 9), exp(sp, 9), src(sp, 5);
    dst.g.fill(seed ^ 3);
    exp.g.fill(seed ^ 3);
    src.g.fill(seed);
    MPI_Status st;
    MPI_Request r;
    MPI_Message m;
    int tok = 0;
    switch (how_r) {
      case 0: MPI_Recv(dst.origin(), (int)cr, rt.T, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st); break;
      case 1:
        MPI_Irecv(dst.origin(), (int)cr, rt.T, 1 - g_rank, MPI_ANY_TAG, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, &st);
        break;
      case 2:
        MPI_Mprobe(1 - g_rank, tag, MPI_COMM_WORLD, &m, &st);
        MPI_Mrecv(dst.origin(), (int)cr, rt.T, &m, &st);
        break;
      case 3:
        MPI_Recv_init(dst.origin(), (int)cr, rt.T, 1 - g_rank, tag, MPI_COMM_WORLD, &r);
        MPI_Start(&r);
        MPI_Wait(&r, &st);
        MPI_Request_free(&r);
        break;
      default:
        MPI_Sendrecv(&tok, 0, MPI_INT, 1 - g_rank, tag, dst.origin(), (int)cr, rt.T,
                     1 - g_rank, tag, MPI_COMM_WORLD, &st);
    }
    if (how_s == 4 && how_r != 4) {  // the sender's Sendrecv wants its token
      MPI_Send(&tok, 0, MPI_INT, 1 - g_rank, tag, MPI_COMM_WORLD);
    }
    auto stream = reference_pack(rt.L, cs, src.origin());
    if (!reference_overlaps(rt.L, cr)) {
      reference_unpack_range(rt.L, cr, stream.data(), 0, (int64_t)stream.size(), exp.origin());
      EXPECT_MSG(dst.bytes() == exp.bytes(), "seed %" PRIu64 " %s sends (%d -> %d) cs %" PRId64
                 " cr %" PRId64 ": differs at %ld: %.300s", seed, loom_sends ? "Loom" : "system",
                 how_s, how_r, cs, cr, first_diff(dst.bytes(), exp.bytes()), rt.desc.c_str());
      ++g_checked;
    }
    int c = -1;
    MPI_Get_count(&st, rt.T, &c);
    EXPECT_MSG(c == cs && st.MPI_SOURCE == 1 - g_rank && st.MPI_TAG == tag,
               "seed %" PRIu64 ": status count %d src %d tag %d", seed, c, st.MPI_SOURCE,
               st.MPI_TAG);
    EXPECT_MSG(dst.g.guard_error().empty(), "seed %" PRIu64 ": %s", seed,
               dst.g.guard_error().c_str());
  }
  if (g_rank == sender && how_r == 4 && how_s != 4) {  // the receiver's Sendrecv sent a token
    int tok;
    MPI_Recv(&tok, 0, MPI_INT, 1 - g_rank, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  free_type(rt);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Constructors the system refuses report through MPI_COMM_WORLD
  // (to_mpi() skips those types).
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  long trials = argc > 1 ? std::atol(argv[1]) : 1000;
  uint64_t first = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  // Rank 0 runs with the drop-in, rank 1 without: tell each other.
  int mine = loom_here(), peer = -1;
  if (size != 2) failf("comm_mixed_peer needs exactly 2 ranks");
  MPI_Sendrecv(&mine, 1, MPI_INT, 1 - g_rank, 0, &peer, 1, MPI_INT, 1 - g_rank, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  EXPECT_MSG(mine == (g_rank == 0) && peer == (g_rank == 1),
             "rank %d: Loom here %d, at the peer %d (expected Loom on rank 0 only)", g_rank,
             mine, peer);
  for (long i = 0; i < trials && size == 2; ++i) {
    uint64_t seed = first + (uint64_t)i;
    const int sender = (int)(seed % 2);
    trial(seed, sender == 0);
  }
  std::printf("rank %d (%s): %ld receives checked\n", g_rank, mine ? "Loom" : "no Loom",
              g_checked);
  return finish("comm_mixed_peer");
}
