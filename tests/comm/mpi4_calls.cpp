// MPI-4 calls through the drop-in (MPICH 4 only: Open MPI 4.1 has none of
// them): every large-count "_c" send, receive and persistent form at
// ordinary counts, MPI_Mrecv_c/MPI_Imrecv_c after a matched probe,
// MPI_Sendrecv(_replace)_c, MPI_Isendrecv(_c) and
// MPI_Isendrecv_replace(_c); then the collectives' "_c" forms (those with
// one count a side, blocking and nonblocking; the v and w forms, blocking),
// compared with the system's own (PMPI_) call.  Each is run between a Loom type (a vector of
// ints at stride 2) and its contiguous twin, both ways, at 5 ints, at 259
// ints (1036 bytes: a Loom-to-Loom RDV's size, which must be announced or
// be an RDV, protocol.md Invariant R) and at 40000 ints (Loom-to-Loom where
// the protocol's thresholds allow).  Every element, every gap, the status's
// source, tag and MPI_Get_count_c are checked: a call that bypassed Loom
// would take a Loom peer's RDV as its data.
#include <functional>
#include <string>
#include <vector>

#include "comm_test.hpp"

using namespace commtest;

namespace {

int g_rank;

// Buffers of 2n ints: data at even slots for the vector (gaps keep their
// canary), or the first n ints for the contiguous twin.
struct Arg {
  MPI_Datatype type;  // committed: vec(n, 1, 2, int) or contiguous(n, int)
  bool strided;
};

std::vector<int> source_buf(int n, bool strided, int base) {
  std::vector<int> v((size_t)(2 * n), -1);
  for (int i = 0; i < n; ++i) v[(size_t)(strided ? 2 * i : i)] = base + i;
  return v;
}

std::vector<int> canaries(int n) {
  std::vector<int> v((size_t)(2 * n));
  for (int i = 0; i < 2 * n; ++i) v[(size_t)i] = -1000 - i;
  return v;
}

// The receive buffer holds base+i at the element slots, canaries elsewhere.
bool received_ok(const std::vector<int> &v, int n, bool strided, int base) {
  for (int i = 0; i < 2 * n; ++i) {
    const bool slot = strided ? i % 2 == 0 && i / 2 < n : i < n;
    const int want = slot ? base + (strided ? i / 2 : i) : -1000 - i;
    if (v[(size_t)i] != want) return false;
  }
  return true;
}

void check_status(const MPI_Status &st, int source, int tag, MPI_Datatype t, const char *what) {
  MPI_Count c = -1;
  MPI_Get_count_c(&st, t, &c);
  EXPECT_MSG(st.MPI_SOURCE == source && st.MPI_TAG == tag && c == 1,
             "%s: status source %d tag %d count %lld, want %d, %d, 1", what, st.MPI_SOURCE,
             st.MPI_TAG, (long long)c, source, tag);
}

using SendFn = std::function<void(const void *, MPI_Datatype, int dest, int tag)>;
using RecvFn = std::function<void(void *, MPI_Datatype, int src, int tag, MPI_Status *)>;

MPI_Status wait1(MPI_Request &r) {
  MPI_Status st;
  EXPECT_MSG(MPI_Wait(&r, &st) == MPI_SUCCESS, "Wait");
  return st;
}

// Rank 0 sends with `send`, rank 1 receives with `recv`, for every pair of
// (sender's, receiver's) types.
void one_way(const char *name, int n, const Arg (&args)[2], const SendFn &send,
             const RecvFn &recv) {
  static int tag = 100;
  for (const Arg &s : args)
    for (const Arg &r : args) {
      ++tag;
      const int base = tag * 100000;
      std::string what = std::string(name) + " n=" + std::to_string(n) +
                         (s.strided ? " vec->" : " contig->") + (r.strided ? "vec" : "contig");
      if (g_rank == 0) {
        std::vector<int> b = source_buf(n, s.strided, base);
        send(b.data(), s.type, 1, tag);
      } else {
        std::vector<int> b = canaries(n);
        MPI_Status st;
        recv(b.data(), r.type, 0, tag, &st);
        EXPECT_MSG(received_ok(b, n, r.strided, base), "%s: wrong data", what.c_str());
        check_status(st, 0, tag, r.type, what.c_str());
      }
      PMPI_Barrier(MPI_COMM_WORLD);
    }
}

void sends_and_receives(int n, const Arg (&a)[2]) {
  const MPI_Comm w = MPI_COMM_WORLD;
  RecvFn recv_c = [](void *b, MPI_Datatype t, int s, int tag, MPI_Status *st) {
    EXPECT_MSG(MPI_Recv_c(b, 1, t, s, tag, MPI_COMM_WORLD, st) == MPI_SUCCESS, "Recv_c");
  };
  RecvFn irecv_c = [](void *b, MPI_Datatype t, int s, int tag, MPI_Status *st) {
    MPI_Request r;
    EXPECT_MSG(MPI_Irecv_c(b, 1, t, s, tag, MPI_COMM_WORLD, &r) == MPI_SUCCESS, "Irecv_c");
    *st = wait1(r);
  };
  RecvFn mrecv_c = [](void *b, MPI_Datatype t, int s, int tag, MPI_Status *st) {
    MPI_Message m;
    MPI_Status pst;
    EXPECT_MSG(MPI_Mprobe(s, tag, MPI_COMM_WORLD, &m, &pst) == MPI_SUCCESS, "Mprobe");
    MPI_Count c = -1;
    MPI_Get_count_c(&pst, t, &c);
    EXPECT_MSG(c == 1, "Mprobe: count %lld of the receive type, want 1", (long long)c);
    EXPECT_MSG(MPI_Mrecv_c(b, 1, t, &m, st) == MPI_SUCCESS, "Mrecv_c");
  };
  RecvFn imrecv_c = [](void *b, MPI_Datatype t, int s, int tag, MPI_Status *st) {
    MPI_Message m;
    int flag = 0;
    MPI_Status pst;
    while (!flag) MPI_Improbe(s, tag, MPI_COMM_WORLD, &flag, &m, &pst);
    MPI_Request r;
    EXPECT_MSG(MPI_Imrecv_c(b, 1, t, &m, &r) == MPI_SUCCESS, "Imrecv_c");
    *st = wait1(r);
  };
  RecvFn recv_init_c = [](void *b, MPI_Datatype t, int s, int tag, MPI_Status *st) {
    MPI_Request r;
    EXPECT_MSG(MPI_Recv_init_c(b, 1, t, s, tag, MPI_COMM_WORLD, &r) == MPI_SUCCESS,
               "Recv_init_c");
    MPI_Start(&r);
    *st = wait1(r);
    MPI_Request_free(&r);
  };
  auto blocking = [w](int (*f)(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm),
                      const char *name) {
    return SendFn([=](const void *b, MPI_Datatype t, int d, int tag) {
      EXPECT_MSG(f(b, 1, t, d, tag, w) == MPI_SUCCESS, "%s", name);
    });
  };
  auto nonblocking = [w](int (*f)(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm,
                                  MPI_Request *),
                         const char *name, bool persistent) {
    return SendFn([=](const void *b, MPI_Datatype t, int d, int tag) {
      MPI_Request r;
      EXPECT_MSG(f(b, 1, t, d, tag, w, &r) == MPI_SUCCESS, "%s", name);
      if (persistent) MPI_Start(&r);
      wait1(r);
      if (persistent) MPI_Request_free(&r);
    });
  };
  one_way("Send_c/Recv_c", n, a, blocking(MPI_Send_c, "Send_c"), recv_c);
  one_way("Bsend_c/Irecv_c", n, a, blocking(MPI_Bsend_c, "Bsend_c"), irecv_c);
  one_way("Ssend_c/Mrecv_c", n, a, blocking(MPI_Ssend_c, "Ssend_c"), mrecv_c);
  one_way("Isend_c/Imrecv_c", n, a, nonblocking(MPI_Isend_c, "Isend_c", false), imrecv_c);
  one_way("Ibsend_c/Recv_init_c", n, a, nonblocking(MPI_Ibsend_c, "Ibsend_c", false),
          recv_init_c);
  one_way("Issend_c/Recv_c", n, a, nonblocking(MPI_Issend_c, "Issend_c", false), recv_c);
  one_way("Send_init_c/Recv_c", n, a, nonblocking(MPI_Send_init_c, "Send_init_c", true), recv_c);
  one_way("Bsend_init_c/Irecv_c", n, a, nonblocking(MPI_Bsend_init_c, "Bsend_init_c", true),
          irecv_c);
  one_way("Ssend_init_c/Recv_c", n, a, nonblocking(MPI_Ssend_init_c, "Ssend_init_c", true),
          recv_c);
  // Ready mode: the receive is posted (and the peers synchronized) first.
  for (int k = 0; k < 3; ++k) {
    const bool persistent = k == 2;
    auto f = k == 0 ? nullptr : k == 1 ? MPI_Irsend_c : MPI_Rsend_init_c;
    for (const Arg &s : a)
      for (const Arg &r : a) {
        const int tag = 900 + k, base = 7000000 + 1000 * k;
        if (g_rank == 1) {
          std::vector<int> b = canaries(n);
          MPI_Request q;
          MPI_Irecv_c(b.data(), 1, r.type, 0, tag, w, &q);
          PMPI_Barrier(w);
          MPI_Status st = wait1(q);
          EXPECT_MSG(received_ok(b, n, r.strided, base), "ready mode %d n=%d: wrong data", k, n);
          check_status(st, 0, tag, r.type, "ready mode");
        } else {
          std::vector<int> b = source_buf(n, s.strided, base);
          PMPI_Barrier(w);
          if (!f) {
            EXPECT_MSG(MPI_Rsend_c(b.data(), 1, s.type, 1, tag, w) == MPI_SUCCESS, "Rsend_c");
          } else {
            MPI_Request q;
            EXPECT_MSG(f(b.data(), 1, s.type, 1, tag, w, &q) == MPI_SUCCESS, "Irsend_c/init");
            if (persistent) MPI_Start(&q);
            wait1(q);
            if (persistent) MPI_Request_free(&q);
          }
        }
        PMPI_Barrier(w);
      }
  }
}

// Both ranks exchange at once: Sendrecv_c, Isendrecv(_c), and the replace
// forms, each rank sending one of the two types and receiving the other.
void exchanges(int n, const Arg (&a)[2]) {
  const MPI_Comm w = MPI_COMM_WORLD;
  const int peer = 1 - g_rank;
  for (int form = 0; form < 4; ++form)
    for (int k = 0; k < 4; ++k) {
      const Arg &s = a[k & 1], &r = a[(k >> 1) & 1];
      const int tag = 500 + form, mine = (g_rank + 1) * 1000000, theirs = (peer + 1) * 1000000;
      std::vector<int> out = source_buf(n, s.strided, mine), in = canaries(n);
      MPI_Status st;
      MPI_Request q;
      const char *what = "";
      switch (form) {
        case 0:
          what = "Sendrecv_c";
          EXPECT_MSG(MPI_Sendrecv_c(out.data(), 1, s.type, peer, tag, in.data(), 1, r.type,
                                    peer, tag, w, &st) == MPI_SUCCESS, "%s", what);
          break;
        case 1:
          what = "Isendrecv";
          EXPECT_MSG(MPI_Isendrecv(out.data(), 1, s.type, peer, tag, in.data(), 1, r.type,
                                   peer, tag, w, &q) == MPI_SUCCESS, "%s", what);
          st = wait1(q);
          break;
        case 2:
          what = "Isendrecv_c";
          EXPECT_MSG(MPI_Isendrecv_c(out.data(), 1, s.type, peer, tag, in.data(), 1, r.type,
                                     peer, tag, w, &q) == MPI_SUCCESS, "%s", what);
          // The send buffer is the program's again once the call returned
          // (Loom sends a copy): overwrite it before completion.
          std::fill(out.begin(), out.end(), -5);
          st = wait1(q);
          break;
        case 3:
          what = "Sendrecv_replace_c";
          // Replace forms move one type: the sender's and receiver's layouts
          // must agree, so r is s here.
          in = source_buf(n, s.strided, mine);
          for (int i = 0; i < 2 * n; ++i)
            if (in[(size_t)i] == -1) in[(size_t)i] = -1000 - i;
          EXPECT_MSG(MPI_Sendrecv_replace_c(in.data(), 1, s.type, peer, tag, peer, tag, w, &st) ==
                         MPI_SUCCESS, "%s", what);
          break;
      }
      const Arg &got = form == 3 ? s : r;
      EXPECT_MSG(received_ok(in, n, got.strided, theirs), "%s n=%d k=%d: wrong data", what, n, k);
      check_status(st, peer, tag, got.type, what);
      PMPI_Barrier(w);
    }
  // Isendrecv_replace(_c): the replace forms' nonblocking twins.
  for (int c = 0; c < 2; ++c)
    for (const Arg &s : a) {
      const int tag = 600 + c, mine = (g_rank + 1) * 1000000, theirs = (peer + 1) * 1000000;
      std::vector<int> b = source_buf(n, s.strided, mine);
      for (int i = 0; i < 2 * n; ++i)
        if (b[(size_t)i] == -1) b[(size_t)i] = -1000 - i;
      MPI_Request q;
      int rc = c ? MPI_Isendrecv_replace_c(b.data(), 1, s.type, peer, tag, peer, tag, w, &q)
                 : MPI_Isendrecv_replace(b.data(), 1, s.type, peer, tag, peer, tag, w, &q);
      EXPECT_MSG(rc == MPI_SUCCESS, "Isendrecv_replace%s", c ? "_c" : "");
      MPI_Status st = wait1(q);
      EXPECT_MSG(received_ok(b, n, s.strided, theirs), "Isendrecv_replace%s n=%d: wrong data",
                 c ? "_c" : "", n);
      check_status(st, peer, tag, s.type, "Isendrecv_replace");
      PMPI_Barrier(w);
    }
}


// A collective through Loom and through the system (PMPI_), each into
// receive buffers of canaries; the results must be identical.
void same_as_system(const char *what, int n,
                    const std::function<void(bool loom, const int *s, int *r)> &call) {
  const size_t len = (size_t)(8 * n + 64);
  std::vector<int> s(len), a(len, -77), b(len, -77);
  for (size_t i = 0; i < len; ++i) s[i] = g_rank * 10000000 + (int)i;
  call(true, s.data(), a.data());
  call(false, s.data(), b.data());
  EXPECT_MSG(a == b, "%s n=%d: Loom's result differs from the system's", what, n);
}

void collectives(int n, const Arg (&a)[2]) {
  const MPI_Comm w = MPI_COMM_WORLD;
  MPI_Comm ring;  // a periodic 1-D cartesian ring: neighbours on both sides
  int dims = 2, periods = 1;
  MPI_Cart_create(w, 1, &dims, &periods, 0, &ring);
  auto wait_if = [](MPI_Request *r) {
    if (*r != MPI_REQUEST_NULL) MPI_Wait(r, MPI_STATUS_IGNORE);
  };
  for (int nb = 0; nb < 2; ++nb)
    for (const Arg &st : a)
      for (const Arg &rt : a) {
        MPI_Datatype S = st.type, R = rt.type;
        std::string tag = std::string(nb ? " (nonblocking)" : "") + (st.strided ? " vec->" : " contig->") +
                          (rt.strided ? "vec" : "contig");
        MPI_Request q = MPI_REQUEST_NULL, *rq = nb ? &q : nullptr;
        same_as_system(("Bcast_c" + tag).c_str(), n, [&](bool loom, const int *s, int *r) {
          std::copy(s, s + 4 * n, r);
          MPI_Datatype t = g_rank == 0 ? S : R;
          if (loom) rq ? MPI_Ibcast_c(r, 1, t, 0, w, rq) : MPI_Bcast_c(r, 1, t, 0, w);
          else rq ? PMPI_Ibcast_c(r, 1, t, 0, w, rq) : PMPI_Bcast_c(r, 1, t, 0, w);
          wait_if(&q);
        });
        same_as_system(("Gather_c" + tag).c_str(), n, [&](bool loom, const int *s, int *r) {
          if (loom) rq ? MPI_Igather_c(s, 1, S, r, 1, R, 1, w, rq) : MPI_Gather_c(s, 1, S, r, 1, R, 1, w);
          else rq ? PMPI_Igather_c(s, 1, S, r, 1, R, 1, w, rq) : PMPI_Gather_c(s, 1, S, r, 1, R, 1, w);
          wait_if(&q);
        });
        same_as_system(("Scatter_c" + tag).c_str(), n, [&](bool loom, const int *s, int *r) {
          if (loom) rq ? MPI_Iscatter_c(s, 1, S, r, 1, R, 0, w, rq) : MPI_Scatter_c(s, 1, S, r, 1, R, 0, w);
          else rq ? PMPI_Iscatter_c(s, 1, S, r, 1, R, 0, w, rq) : PMPI_Scatter_c(s, 1, S, r, 1, R, 0, w);
          wait_if(&q);
        });
        same_as_system(("Allgather_c" + tag).c_str(), n, [&](bool loom, const int *s, int *r) {
          if (loom) rq ? MPI_Iallgather_c(s, 1, S, r, 1, R, w, rq) : MPI_Allgather_c(s, 1, S, r, 1, R, w);
          else rq ? PMPI_Iallgather_c(s, 1, S, r, 1, R, w, rq) : PMPI_Allgather_c(s, 1, S, r, 1, R, w);
          wait_if(&q);
        });
        same_as_system(("Alltoall_c" + tag).c_str(), n, [&](bool loom, const int *s, int *r) {
          if (loom) rq ? MPI_Ialltoall_c(s, 1, S, r, 1, R, w, rq) : MPI_Alltoall_c(s, 1, S, r, 1, R, w);
          else rq ? PMPI_Ialltoall_c(s, 1, S, r, 1, R, w, rq) : PMPI_Alltoall_c(s, 1, S, r, 1, R, w);
          wait_if(&q);
        });
        same_as_system(("Neighbor_allgather_c" + tag).c_str(), n, [&](bool loom, const int *s, int *r) {
          if (loom)
            rq ? MPI_Ineighbor_allgather_c(s, 1, S, r, 1, R, ring, rq)
               : MPI_Neighbor_allgather_c(s, 1, S, r, 1, R, ring);
          else
            rq ? PMPI_Ineighbor_allgather_c(s, 1, S, r, 1, R, ring, rq)
               : PMPI_Neighbor_allgather_c(s, 1, S, r, 1, R, ring);
          wait_if(&q);
        });
        same_as_system(("Neighbor_alltoall_c" + tag).c_str(), n, [&](bool loom, const int *s, int *r) {
          if (loom)
            rq ? MPI_Ineighbor_alltoall_c(s, 1, S, r, 1, R, ring, rq)
               : MPI_Neighbor_alltoall_c(s, 1, S, r, 1, R, ring);
          else
            rq ? PMPI_Ineighbor_alltoall_c(s, 1, S, r, 1, R, ring, rq)
               : PMPI_Neighbor_alltoall_c(s, 1, S, r, 1, R, ring);
          wait_if(&q);
        });
      }
  // The v and w forms (blocking): one instance per block, blocks one
  // extent apart (v) or 2n ints apart in bytes (w), on 2 ranks and on the
  // ring's 2 neighbours a side.
  const MPI_Count one[2] = {1, 1};
  const MPI_Aint at[2] = {0, 1};
  const MPI_Aint bytes[2] = {0, (MPI_Aint)(8 * n)};
  for (const Arg &st : a)
    for (const Arg &rt : a) {
      MPI_Datatype S = st.type, R = rt.type;
      const MPI_Datatype Ss[2] = {S, S}, Rs[2] = {R, R};
      std::string tag = std::string(st.strided ? " vec->" : " contig->") +
                        (rt.strided ? "vec" : "contig");
      same_as_system(("Gatherv_c" + tag).c_str(), n, [&](bool loom, const int *s, int *r) {
        (loom ? MPI_Gatherv_c : PMPI_Gatherv_c)(s, 1, S, r, one, at, R, 0, w);
      });
      same_as_system(("Scatterv_c" + tag).c_str(), n, [&](bool loom, const int *s, int *r) {
        (loom ? MPI_Scatterv_c : PMPI_Scatterv_c)(s, one, at, S, r, 1, R, 1, w);
      });
      same_as_system(("Allgatherv_c" + tag).c_str(), n, [&](bool loom, const int *s, int *r) {
        (loom ? MPI_Allgatherv_c : PMPI_Allgatherv_c)(s, 1, S, r, one, at, R, w);
      });
      same_as_system(("Alltoallv_c" + tag).c_str(), n, [&](bool loom, const int *s, int *r) {
        (loom ? MPI_Alltoallv_c : PMPI_Alltoallv_c)(s, one, at, S, r, one, at, R, w);
      });
      same_as_system(("Alltoallw_c" + tag).c_str(), n, [&](bool loom, const int *s, int *r) {
        (loom ? MPI_Alltoallw_c : PMPI_Alltoallw_c)(s, one, bytes, Ss, r, one, bytes, Rs, w);
      });
      same_as_system(("Neighbor_allgatherv_c" + tag).c_str(), n,
                     [&](bool loom, const int *s, int *r) {
                       (loom ? MPI_Neighbor_allgatherv_c : PMPI_Neighbor_allgatherv_c)(
                           s, 1, S, r, one, at, R, ring);
                     });
      same_as_system(("Neighbor_alltoallv_c" + tag).c_str(), n,
                     [&](bool loom, const int *s, int *r) {
                       (loom ? MPI_Neighbor_alltoallv_c : PMPI_Neighbor_alltoallv_c)(
                           s, one, at, S, r, one, at, R, ring);
                     });
      same_as_system(("Neighbor_alltoallw_c" + tag).c_str(), n,
                     [&](bool loom, const int *s, int *r) {
                       (loom ? MPI_Neighbor_alltoallw_c : PMPI_Neighbor_alltoallw_c)(
                           s, one, bytes, Ss, r, one, bytes, Rs, ring);
                     });
    }
  MPI_Comm_free(&ring);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) failf("run with 2 ranks");
  if (!dropin_active()) failf("the drop-in is not in front of the system MPI");
  static std::vector<char> bsend(4 << 20);
  MPI_Buffer_attach(bsend.data(), (int)bsend.size());
  for (int n : {5, 259, 40000}) {
    Arg a[2];
    MPI_Type_vector(n, 1, 2, MPI_INT, &a[0].type);
    a[0].strided = true;
    MPI_Type_contiguous(n, MPI_INT, &a[1].type);
    a[1].strided = false;
    for (Arg &x : a) MPI_Type_commit(&x.type);
    sends_and_receives(n, a);
    exchanges(n, a);
    collectives(n, a);
    for (Arg &x : a) MPI_Type_free(&x.type);
  }
  void *b;
  int bs;
  MPI_Buffer_detach(&b, &bs);
  return finish("comm_mpi4_calls");
}
