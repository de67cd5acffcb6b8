// MPI_THREAD_MULTIPLE: several threads per rank exchange messages of random
// derived types with the peer rank at the same time, on one communicator
// (a tag per thread), through nonblocking calls completed with every
// completion call, persistent requests, blocking Sendrecv and freed active
// sends, while contiguous messages run beside them.  Loom's pending-op
// table, request claiming and staging pool are all shared between the
// threads.  Oracle: the reference interpreter.
#include <atomic>
#include <cinttypes>
#include <mutex>
#include <thread>

#include "comm_test.hpp"

using namespace commtest;

namespace {

constexpr int kThreads = 4;
constexpr int kIters = 300;

int g_rank, g_peer;
MPI_Comm g_comm;
std::atomic<int> g_errors{0};
std::mutex g_print;

struct Shared {
  MpiType mt;
  MPI_Datatype T;
  Layout L;
  std::string desc;
  int64_t count;
  Span sp;
};
std::vector<Shared> g_types;

// `how`: the completion pattern of the iteration (worker's switch).
void terr(int th, int it, int how, const char *what, const Shared &s) {
  if (g_errors++ < 20) {
    std::lock_guard<std::mutex> g(g_print);
    std::printf("FAIL: rank %d thread %d iteration %d (pattern %d): %s: %.200s\n", g_rank, th,
                it, how, what, s.desc.c_str());
  }
}

uint64_t data_seed(int rank, int th, int it) {
  return ((uint64_t)rank << 40) ^ ((uint64_t)th << 20) ^ (uint64_t)it;
}

void worker(int th) {
  std::mt19937_64 rng(777 + (uint64_t)th);  // same on both ranks
  for (int it = 0; it < kIters; ++it) {
    const Shared &s = g_types[rng() % g_types.size()];
    int how = (int)(rng() % 7);
    int tag = th;
    Buf src(s.sp, 0), dst(s.sp, 3), exp(s.sp, 3);
    src.g.fill(data_seed(g_rank, th, it));
    dst.g.fill(it);
    exp.g.fill(it);
    {
      Buf theirs(s.sp, 0);
      theirs.g.fill(data_seed(g_peer, th, it));
      auto stream = reference_pack(s.L, s.count, theirs.origin());
      reference_unpack(s.L, s.count, stream.data(), exp.origin());
    }
    const int c = (int)s.count;
    MPI_Request q[3];
    MPI_Status st[3];
    int rc = MPI_SUCCESS;
    // A contiguous message beside it, so system and Loom requests mix.
    int mine = it, theirs = -1;
    switch (how) {
      case 0:
      case 1:
      case 2:
      case 3: {
        MPI_Irecv(dst.origin(), c, s.T, g_peer, tag, g_comm, &q[0]);
        MPI_Irecv(&theirs, 1, MPI_INT, g_peer, tag + 100, g_comm, &q[1]);
        MPI_Isend(src.origin(), c, s.T, g_peer, tag, g_comm, &q[2]);
        MPI_Send(&mine, 1, MPI_INT, g_peer, tag + 100, g_comm);
        if (how == 0) {
          rc = MPI_Waitall(3, q, st);
        } else if (how == 1) {
          for (int done = 0; done < 3;) {
            int out, idx[3];
            rc |= MPI_Waitsome(3, q, &out, idx, st);
            done += out;
          }
        } else if (how == 2) {
          for (int done = 0; done < 3;) {
            int idx, flag;
            rc |= MPI_Testany(3, q, &idx, &flag, MPI_STATUS_IGNORE);
            if (flag) ++done;
          }
        } else {
          for (int k = 2; k >= 0; --k) rc |= MPI_Wait(&q[k], MPI_STATUS_IGNORE);
        }
        if (theirs != it) terr(th, it, how, "contiguous message", s);
        break;
      }
      case 4: {
        MPI_Request p[2];
        MPI_Recv_init(dst.origin(), c, s.T, g_peer, tag, g_comm, &p[0]);
        MPI_Send_init(src.origin(), c, s.T, g_peer, tag, g_comm, &p[1]);
        for (int round = 0; round < 2; ++round) {
          MPI_Startall(2, p);
          int flag = 0;
          while (!flag) rc |= MPI_Testall(2, p, &flag, MPI_STATUSES_IGNORE);
        }
        MPI_Request_free(&p[0]);
        MPI_Request_free(&p[1]);
        break;
      }
      case 5:
        rc = MPI_Sendrecv(src.origin(), c, s.T, g_peer, tag, dst.origin(), c, s.T, g_peer,
                          tag, g_comm, MPI_STATUS_IGNORE);
        break;
      default: {
        // A freed active Loom send; the receive is blocking.
        MPI_Request r;
        MPI_Isend(src.origin(), c, s.T, g_peer, tag, g_comm, &r);
        MPI_Request_free(&r);
        rc = MPI_Recv(dst.origin(), c, s.T, g_peer, tag, g_comm, MPI_STATUS_IGNORE);
        // The freed send's staging is released later; its user buffer may
        // not change until the peer has it: wait for the peer's word.
        int tok = 0;
        MPI_Sendrecv(&tok, 1, MPI_INT, g_peer, tag + 200, &tok, 1, MPI_INT, g_peer,
                     tag + 200, g_comm, MPI_STATUS_IGNORE);
      }
    }
    if (rc != MPI_SUCCESS) {
      char what[96];
      std::snprintf(what, sizeof what, "call failed (rc %d; statuses' errors %d %d %d)", rc,
                    how == 0 ? st[0].MPI_ERROR : 0, how == 0 ? st[1].MPI_ERROR : 0,
                    how == 0 ? st[2].MPI_ERROR : 0);
      terr(th, it, how, what, s);
    }
    if (!reference_overlaps(s.L, s.count) && dst.bytes() != exp.bytes())
      terr(th, it, how, "received bytes differ from the reference", s);
    if (!dst.g.guard_error().empty()) terr(th, it, how, "canary", s);
  }
}

}  // namespace

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Constructors the system refuses report through MPI_COMM_WORLD
  // (to_mpi() skips those types).
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  g_rank = rank;
  if (!dropin_active()) failf("the drop-in is not in front of the system MPI");
  if (provided < MPI_THREAD_MULTIPLE || size < 2) {
    std::printf("comm_p2p_threads: MPI_THREAD_MULTIPLE not provided (%d) or one rank: "
                "skipped\n", provided);
    return finish("comm_p2p_threads");
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
  if (rank < 2) {
    g_peer = 1 - rank;
    // Types built up front (same seeds on both ranks).
    for (uint64_t seed = 1; g_types.size() < 24 && seed < 1000; ++seed) {
      std::mt19937_64 rng(seed * 7919);
      RandType rt = random_type(rng, 3);
      if (!rt.ok() || rt.L.size == 0) {
        free_type(rt);
        continue;
      }
      int64_t count = 1 + (int64_t)(rng() % 3);
      g_types.push_back({rt.mt, rt.T, rt.L, rt.desc, count, span_of(rt.T, rt.L, count)});
    }
    std::vector<std::thread> ts;
    for (int t = 0; t < kThreads; ++t) ts.emplace_back(worker, t);
    for (auto &t : ts) t.join();
    for (auto &s : g_types) release(s.mt);
    std::printf("rank %d: %d threads x %d exchanges over %zu types\n", rank, kThreads,
                kIters, g_types.size());
  }
  MPI_Comm_free(&g_comm);
  if (g_errors) failures() += g_errors;
  return finish("comm_p2p_threads");
}
