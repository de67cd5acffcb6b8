// Point-to-point semantics the random test does not reach by chance:
// MPI_PROC_NULL and zero counts through every call, ANY_SOURCE/ANY_TAG
// fan-in with message ordering across Loom, contiguous, PMPI_ and
// MPI_PACKED senders, persistent requests reused (Start, Startall,
// Request_free), MPI_Request_free of active Loom sends and receives
// (completed later), MPI_Cancel, MPI_BOTTOM with absolute types, error
// classes through the communicator's handler, MPI_ERR_IN_STATUS, a window
// of hundreds of requests completed by every call, messages
// larger than the staging pool keeps, and statuses compared with the
// system's.  Ranks 0 and 1 do the pair tests; every rank joins the fan-in.
#include <cinttypes>
#include <cstdlib>
#include <numeric>

#include "comm_test.hpp"

using namespace commtest;

namespace {

int g_rank, g_size;
MPI_Comm g_comm;  // MPI_ERRORS_RETURN, handler counting calls

int g_handled = 0, g_last_class = 0;
void record(MPI_Comm *, int *code, ...) {
  ++g_handled;
  g_last_class = err_class(*code);
}

// Vector of n ints at stride 2 (Loom moves it) and its contiguous twin
// (same type signature: the system moves it).
struct Types {
  MPI_Datatype vec, contig;
  int n;
};

Types make_types(int n) {
  Types t;
  t.n = n;
  MPI_Type_vector(n, 1, 2, MPI_INT, &t.vec);
  MPI_Type_commit(&t.vec);
  MPI_Type_contiguous(n, MPI_INT, &t.contig);
  MPI_Type_commit(&t.contig);
  return t;
}

void free_types(Types &t) {
  MPI_Type_free(&t.vec);
  MPI_Type_free(&t.contig);
}

// Strided buffer of 2n ints: even slots carry data, odd slots a canary.
std::vector<int> strided(int n, int base) {
  std::vector<int> v((size_t)(2 * n));
  for (int i = 0; i < n; ++i) {
    v[(size_t)(2 * i)] = base + i;
    v[(size_t)(2 * i + 1)] = -7 - i;
  }
  return v;
}

bool strided_ok(const std::vector<int> &v, int n, int base) {
  for (int i = 0; i < n; ++i)
    if (v[(size_t)(2 * i)] != base + i || v[(size_t)(2 * i + 1)] != -7 - i) return false;
  return true;
}

void refill(std::vector<int> &v, const std::vector<int> &from) {
  std::copy(from.begin(), from.end(), v.begin());
}

void sync() { PMPI_Barrier(MPI_COMM_WORLD); }

// ---------------------------------------------------------------------------

// MPI_PROC_NULL through every call with a Loom type: the buffer untouched
// and the status the system gives for the same call with PMPI_.
void proc_null_and_zero() {
  Types t = make_types(5);
  std::vector<int> buf = strided(5, 100);
  const auto before = buf;
  MPI_Status st;
  auto same = [&](const char *what, const MPI_Status &a, const MPI_Status &b) {
    int ca = -1, cb = -2;
    MPI_Get_count(&a, t.vec, &ca);
    PMPI_Get_count(&b, t.vec, &cb);
    EXPECT_MSG(a.MPI_SOURCE == b.MPI_SOURCE && a.MPI_TAG == b.MPI_TAG && ca == cb,
               "%s: PROC_NULL status src %d tag %d count %d, system %d %d %d", what,
               a.MPI_SOURCE, a.MPI_TAG, ca, b.MPI_SOURCE, b.MPI_TAG, cb);
    EXPECT_MSG(buf == before, "%s: PROC_NULL touched the buffer", what);
  };
  EXPECT(MPI_Send(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, g_comm) == MPI_SUCCESS);
  EXPECT(MPI_Bsend(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, g_comm) == MPI_SUCCESS);
  EXPECT(MPI_Ssend(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, g_comm) == MPI_SUCCESS);
  EXPECT(MPI_Rsend(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, g_comm) == MPI_SUCCESS);
  MPI_Status ref;
  EXPECT(MPI_Recv(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, g_comm, &st) == MPI_SUCCESS);
  PMPI_Recv(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, g_comm, &ref);
  same("Recv", st, ref);
  for (int sys = 0; sys < 2; ++sys) {
    auto isend = sys ? PMPI_Isend : MPI_Isend;
    auto issend = sys ? PMPI_Issend : MPI_Issend;
    auto irsend = sys ? PMPI_Irsend : MPI_Irsend;
    auto irecv = sys ? PMPI_Irecv : MPI_Irecv;
    auto waitall = sys ? PMPI_Waitall : MPI_Waitall;
    MPI_Request r[4];
    EXPECT(isend(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, g_comm, &r[0]) == MPI_SUCCESS);
    EXPECT(issend(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, g_comm, &r[1]) == MPI_SUCCESS);
    EXPECT(irecv(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, g_comm, &r[2]) == MPI_SUCCESS);
    EXPECT(irsend(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, g_comm, &r[3]) == MPI_SUCCESS);
    MPI_Status sts[4];
    EXPECT(waitall(4, r, sts) == MPI_SUCCESS);
    (sys ? ref : st) = sts[2];
  }
  same("Irecv", st, ref);
  EXPECT(MPI_Sendrecv(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, buf.data(), 5, t.vec,
                      MPI_PROC_NULL, 1, g_comm, &st) == MPI_SUCCESS);
  PMPI_Sendrecv(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, buf.data(), 5, t.vec,
                MPI_PROC_NULL, 1, g_comm, &ref);
  same("Sendrecv", st, ref);
  EXPECT(MPI_Sendrecv_replace(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1,
                              g_comm, &st) == MPI_SUCCESS);
  PMPI_Sendrecv_replace(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1, g_comm,
                        &ref);
  same("Sendrecv_replace", st, ref);
  MPI_Message msg;
  EXPECT(MPI_Mprobe(MPI_PROC_NULL, 1, g_comm, &msg, &st) == MPI_SUCCESS);
  EXPECT(MPI_Mrecv(buf.data(), 5, t.vec, &msg, &st) == MPI_SUCCESS);
  PMPI_Mprobe(MPI_PROC_NULL, 1, g_comm, &msg, &ref);
  PMPI_Mrecv(buf.data(), 5, t.vec, &msg, &ref);
  same("Mrecv", st, ref);
  for (int sys = 0; sys < 2; ++sys) {
    auto send_init = sys ? PMPI_Send_init : MPI_Send_init;
    auto recv_init = sys ? PMPI_Recv_init : MPI_Recv_init;
    auto startall = sys ? PMPI_Startall : MPI_Startall;
    auto waitall = sys ? PMPI_Waitall : MPI_Waitall;
    auto request_free = sys ? PMPI_Request_free : MPI_Request_free;
    MPI_Request r[2];
    MPI_Status sts[2];
    EXPECT(send_init(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, g_comm, &r[0]) == MPI_SUCCESS);
    EXPECT(recv_init(buf.data(), 5, t.vec, MPI_PROC_NULL, 1, g_comm, &r[1]) == MPI_SUCCESS);
    for (int k = 0; k < 2; ++k) {
      EXPECT(startall(2, r) == MPI_SUCCESS);
      EXPECT(waitall(2, r, sts) == MPI_SUCCESS);
    }
    (sys ? ref : st) = sts[1];
    request_free(&r[0]);
    request_free(&r[1]);
  }
  same("Recv_init", st, ref);

  // Zero counts between ranks 0 and 1 with a Loom type.
  if (g_rank < 2 && g_size >= 2) {
    int peer = 1 - g_rank;
    MPI_Request q;
    EXPECT(MPI_Isend(buf.data(), 0, t.vec, peer, 2, g_comm, &q) == MPI_SUCCESS);
    EXPECT(MPI_Recv(buf.data(), 5, t.vec, peer, 2, g_comm, &st) == MPI_SUCCESS);
    EXPECT(MPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    int c = -1, e = -1;
    MPI_Get_count(&st, t.vec, &c);
    MPI_Get_elements(&st, t.vec, &e);
    EXPECT_MSG(c == 0 && e == 0 && st.MPI_SOURCE == peer && st.MPI_TAG == 2,
               "zero-count message: count %d elements %d", c, e);
    EXPECT_MSG(buf == before, "zero-count message touched the buffer");
    // Zero count, null buffer.
    EXPECT(MPI_Sendrecv(nullptr, 0, t.vec, peer, 3, nullptr, 0, t.vec, peer, 3, g_comm,
                        &st) == MPI_SUCCESS);
  }
  free_types(t);
  sync();
}

// ---------------------------------------------------------------------------
// Every other rank sends kMsgs messages to rank 0 in a random mix of paths;
// rank 0 receives them all with ANY_SOURCE/ANY_TAG (and ANY_SOURCE with a
// tag) in a random mix of Loom and contiguous receives and checks that each
// source's messages arrive in the order they were sent.
constexpr int kMsgs = 40;

void fan_in() {
  const int n = 33;
  Types t = make_types(n);
  std::mt19937_64 rng(12345 + (uint64_t)g_rank);
  if (g_rank != 0) {
    for (int k = 0; k < kMsgs; ++k) {
      int how = (int)(rng() % 5);
      int tag = 10 + (int)(rng() % 2);
      std::vector<int> s = strided(n, g_rank * 100000 + k * 100);
      std::vector<int> c(n);
      for (int i = 0; i < n; ++i) c[(size_t)i] = s[(size_t)(2 * i)];
      MPI_Request r;
      switch (how) {
        case 0: MPI_Send(s.data(), 1, t.vec, 0, tag, g_comm); break;
        case 1: MPI_Send(c.data(), 1, t.contig, 0, tag, g_comm); break;
        case 2: PMPI_Send(s.data(), 1, t.vec, 0, tag, g_comm); break;
        case 3: PMPI_Send(c.data(), n * 4, MPI_PACKED, 0, tag, g_comm); break;
        default:
          MPI_Isend(s.data(), 1, t.vec, 0, tag, g_comm, &r);
          MPI_Wait(&r, MPI_STATUS_IGNORE);
      }
    }
  } else {
    std::vector<int> next((size_t)g_size, 0);
    for (int k = 0; k < kMsgs * (g_size - 1); ++k) {
      int how = (int)(rng() % 4);
      std::vector<int> d = strided(n, -1000);
      std::vector<int> c(n, -1);
      MPI_Status st;
      MPI_Request r;
      int src = MPI_ANY_SOURCE, tag = MPI_ANY_TAG;
      switch (how) {
        case 0: MPI_Recv(d.data(), 1, t.vec, src, tag, g_comm, &st); break;
        case 1: MPI_Recv(c.data(), 1, t.contig, src, tag, g_comm, &st); break;
        case 2:
          MPI_Irecv(d.data(), 1, t.vec, src, tag, g_comm, &r);
          MPI_Wait(&r, &st);
          break;
        default: {
          MPI_Message m;
          MPI_Mprobe(src, tag, g_comm, &m, &st);
          MPI_Mrecv(d.data(), 1, t.vec, &m, &st);
        }
      }
      if (how != 1)
        for (int i = 0; i < n; ++i) c[(size_t)i] = d[(size_t)(2 * i)];
      int from = st.MPI_SOURCE;
      EXPECT_MSG(from > 0 && from < g_size && (st.MPI_TAG == 10 || st.MPI_TAG == 11),
                 "fan-in status src %d tag %d", from, st.MPI_TAG);
      if (from <= 0 || from >= g_size) continue;
      int base = from * 100000 + next[(size_t)from] * 100;
      bool ok = true;
      for (int i = 0; i < n; ++i) ok &= c[(size_t)i] == base + i;
      if (how != 1)
        for (int i = 0; i < n; ++i) ok &= d[(size_t)(2 * i + 1)] == -7 - i;
      EXPECT_MSG(ok, "fan-in: message %d from %d out of order or corrupt (got %d)",
                 next[(size_t)from], from, c[0]);
      ++next[(size_t)from];
    }
  }
  free_types(t);
  sync();
}

// ---------------------------------------------------------------------------

void persistent() {
  if (g_rank >= 2 || g_size < 2) return sync();
  const int n = 257;
  Types t = make_types(n);
  int peer = 1 - g_rank;
  std::vector<int> s = strided(n, 0), d = strided(n, 0);
  MPI_Request r[2];
  EXPECT(MPI_Send_init(s.data(), 1, t.vec, peer, 20, g_comm, &r[0]) == MPI_SUCCESS);
  EXPECT(MPI_Recv_init(d.data(), 1, t.vec, peer, 20, g_comm, &r[1]) == MPI_SUCCESS);
  for (int round = 0; round < 6; ++round) {
    // New data each round: packed at Start, not at init.  (Copied into
    // the same storage: the requests hold its address.)
    refill(s, strided(n, 1000 * round + 10 * g_rank));
    std::vector<int> keep = s;
    refill(d, strided(n, -1));
    if (round % 2) {
      EXPECT(MPI_Startall(2, r) == MPI_SUCCESS);
    } else {
      EXPECT(MPI_Start(&r[1]) == MPI_SUCCESS);
      EXPECT(MPI_Start(&r[0]) == MPI_SUCCESS);
    }
    MPI_Status sts[2];
    int rc;
    if (round % 3 == 2) {
      int flag = 0;
      do rc = MPI_Testall(2, r, &flag, sts);
      while (rc == MPI_SUCCESS && !flag);
    } else {
      rc = MPI_Waitall(2, r, sts);
    }
    EXPECT(rc == MPI_SUCCESS);
    EXPECT_MSG(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL,
               "persistent requests must stay allocated");
    EXPECT_MSG(strided_ok(d, n, 1000 * round + 10 * peer), "persistent round %d data", round);
    EXPECT_MSG(s == keep, "persistent send modified its buffer");
    int c = -1;
    MPI_Get_count(&sts[1], t.vec, &c);
    EXPECT_MSG(c == 1 && sts[1].MPI_SOURCE == peer && sts[1].MPI_TAG == 20,
               "persistent status count %d", c);
  }
  // Waiting on an inactive persistent request returns at once, empty.
  MPI_Status st;
  EXPECT(MPI_Wait(&r[1], &st) == MPI_SUCCESS);
  EXPECT(MPI_Request_free(&r[0]) == MPI_SUCCESS && r[0] == MPI_REQUEST_NULL);
  EXPECT(MPI_Request_free(&r[1]) == MPI_SUCCESS && r[1] == MPI_REQUEST_NULL);
  // The other persistent modes once.
  refill(s, strided(n, 77));
  MPI_Request q[3];
  if (g_rank == 0) {
    PMPI_Recv(nullptr, 0, MPI_INT, 1, 21, g_comm, MPI_STATUS_IGNORE);  // 1 posted
    EXPECT(MPI_Ssend_init(s.data(), 1, t.vec, 1, 22, g_comm, &q[0]) == MPI_SUCCESS);
    EXPECT(MPI_Bsend_init(s.data(), 1, t.vec, 1, 23, g_comm, &q[1]) == MPI_SUCCESS);
    EXPECT(MPI_Rsend_init(s.data(), 1, t.vec, 1, 24, g_comm, &q[2]) == MPI_SUCCESS);
    EXPECT(MPI_Startall(3, q) == MPI_SUCCESS);
    EXPECT(MPI_Waitall(3, q, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    for (auto &x : q) MPI_Request_free(&x);
  } else {
    std::vector<int> d3[3] = {strided(n, 0), strided(n, 0), strided(n, 0)};
    for (int k = 0; k < 3; ++k)
      MPI_Irecv(d3[k].data(), 1, t.vec, 0, 22 + k, g_comm, &q[k]);
    PMPI_Send(nullptr, 0, MPI_INT, 0, 21, g_comm);
    int done = 0, idx[3];
    while (done < 3) {
      int out;
      EXPECT(MPI_Waitsome(3, q, &out, idx, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
      done += out;
    }
    for (int k = 0; k < 3; ++k)
      EXPECT_MSG(strided_ok(d3[k], n, 77), "persistent mode %d data", k);
  }
  free_types(t);
  sync();
}

// ---------------------------------------------------------------------------
// MPI_Waitall over several Loom receives mixed with a system receive, a
// null request, an inactive persistent one and sends: every status in the
// program's order equal to the system's MPI_Waitall over the same list
// (empty for the null and inactive requests), and every buffer filled.

void waitall_statuses() {
  if (g_rank >= 2 || g_size < 2) return sync();
  const int n = 3000;  // large enough that the messages arrive one by one
  const int kRecvs = 5;
  Types t = make_types(n);
  int peer = 1 - g_rank;
  for (int k = 0; k < 2; ++k) {  // Loom's Waitall, then the system's
    auto irecv = k ? PMPI_Irecv : MPI_Irecv;
    auto isend = k ? PMPI_Isend : MPI_Isend;
    auto waitall = k ? PMPI_Waitall : MPI_Waitall;
    const char *who = k ? "system" : "Loom";
    std::vector<std::vector<int>> in, out;
    for (int i = 0; i < kRecvs; ++i) {
      in.push_back(strided(n, -1));
      out.push_back(strided(n, 10000 * i + 100 * g_rank + k));
    }
    std::vector<int> cin(n, -1), cout(n, 42 + g_rank);
    std::vector<int> pbuf = strided(n, -1);
    MPI_Request idle;
    EXPECT(MPI_Recv_init(pbuf.data(), 1, t.vec, peer, 79, g_comm, &idle) == MPI_SUCCESS);
    // Requests: kRecvs vector receives, a null, the contiguous receive,
    // the inactive persistent one, then the sends (tags in reverse order,
    // so the receives complete out of the list's order).
    std::vector<MPI_Request> q;
    for (int i = 0; i < kRecvs; ++i) {
      q.emplace_back();
      irecv(in[(size_t)i].data(), 1, t.vec, peer, 70 + i, g_comm, &q.back());
    }
    q.push_back(MPI_REQUEST_NULL);
    q.emplace_back();
    irecv(cin.data(), n, MPI_INT, peer, 78, g_comm, &q.back());
    q.push_back(idle);
    // Both sides' receives are posted before any send.
    PMPI_Sendrecv(nullptr, 0, MPI_INT, peer, 169, nullptr, 0, MPI_INT, peer, 169, g_comm,
                  MPI_STATUS_IGNORE);
    q.emplace_back();
    isend(cout.data(), n, MPI_INT, peer, 78, g_comm, &q.back());
    for (int i = kRecvs - 1; i >= 0; --i) {
      q.emplace_back();
      isend(out[(size_t)i].data(), 1, t.vec, peer, 70 + i, g_comm, &q.back());
    }
    std::vector<MPI_Status> sts(q.size());
    int rc = waitall((int)q.size(), q.data(), sts.data());
    EXPECT_MSG(rc == MPI_SUCCESS, "%s: Waitall rc %d", who, rc);
    for (int i = 0; i < kRecvs; ++i) {
      EXPECT_MSG(strided_ok(in[(size_t)i], n, 10000 * i + 100 * peer + k),
                 "%s: Waitall receive %d data", who, i);
      int c = -1;
      MPI_Get_count(&sts[(size_t)i], t.vec, &c);
      EXPECT_MSG(c == 1 && sts[(size_t)i].MPI_SOURCE == peer &&
                     sts[(size_t)i].MPI_TAG == 70 + i,
                 "%s: Waitall status %d: count %d source %d tag %d", who, i, c,
                 sts[(size_t)i].MPI_SOURCE, sts[(size_t)i].MPI_TAG);
    }
    EXPECT_MSG(cin == std::vector<int>(n, 42 + peer), "%s: Waitall contiguous data", who);
    for (size_t i : {(size_t)kRecvs, (size_t)kRecvs + 2}) {
      int c = -1, cancelled = 1;
      MPI_Get_count(&sts[i], MPI_INT, &c);
      MPI_Test_cancelled(&sts[i], &cancelled);
      EXPECT_MSG(sts[i].MPI_SOURCE == MPI_ANY_SOURCE && sts[i].MPI_TAG == MPI_ANY_TAG &&
                     c == 0 && !cancelled,
                 "%s: Waitall status %zu not empty: source %d tag %d count %d", who, i,
                 sts[i].MPI_SOURCE, sts[i].MPI_TAG, c);
    }
    EXPECT_MSG(q[(size_t)kRecvs + 2] == idle, "%s: inactive persistent request freed", who);
    for (size_t i = 0; i < q.size(); ++i)
      if (i != (size_t)kRecvs + 2)
        EXPECT_MSG(q[i] == MPI_REQUEST_NULL, "%s: request %zu not freed", who, i);
    MPI_Request_free(&idle);
  }
  free_types(t);
  sync();
}

// A window of many small staged messages each way (the systems give the
// eagerly completed sends one shared handle, so the request table holds
// hundreds of ops under one key), completed by every kind of call in turn:
// Testsome until something completes, Testany, Waitany, Waitsome, Test
// on single requests (some not yet complete: their claims are given
// back), then Waitall on the rest.
void wide_window() {
  if (g_rank >= 2 || g_size < 2) return sync();
  const int n = 16, kMsgs = 600;
  Types t = make_types(n);
  const int peer = 1 - g_rank;
  std::vector<std::vector<int>> in, out;
  for (int i = 0; i < kMsgs; ++i) {
    in.push_back(strided(n, -1));
    out.push_back(strided(n, 1000 * i + g_rank));
  }
  std::vector<MPI_Request> q;
  for (int i = 0; i < kMsgs; ++i) {
    q.emplace_back();
    MPI_Irecv(in[(size_t)i].data(), 1, t.vec, peer, 300 + i, g_comm, &q.back());
  }
  PMPI_Sendrecv(nullptr, 0, MPI_INT, peer, 169, nullptr, 0, MPI_INT, peer, 169, g_comm,
                MPI_STATUS_IGNORE);
  for (int i = 0; i < kMsgs; ++i) {
    q.emplace_back();
    MPI_Isend(out[(size_t)i].data(), 1, t.vec, peer, 300 + i, g_comm, &q.back());
  }
  const int total = (int)q.size();
  int done = 0, outc = 0, idx = -1, flag = 0;
  std::vector<int> ind((size_t)total);
  do {
    EXPECT(MPI_Testsome(total, q.data(), &outc, ind.data(), MPI_STATUSES_IGNORE) ==
           MPI_SUCCESS);
  } while (outc == 0);
  if (outc != MPI_UNDEFINED) done += outc;
  EXPECT(MPI_Testany(total, q.data(), &idx, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  if (flag && idx != MPI_UNDEFINED) ++done;
  for (int k = 0; k < 5; ++k) {
    EXPECT(MPI_Waitany(total, q.data(), &idx, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    if (idx != MPI_UNDEFINED) ++done;
  }
  EXPECT(MPI_Waitsome(total, q.data(), &outc, ind.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  if (outc != MPI_UNDEFINED) done += outc;
  for (int i = total - 1; i >= 0; i -= 7)
    if (q[(size_t)i] != MPI_REQUEST_NULL) {
      EXPECT(MPI_Test(&q[(size_t)i], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      if (flag) ++done;
    }
  EXPECT(MPI_Waitall(total, q.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  EXPECT_MSG(done <= total, "wide window: %d completions of %d requests", done, total);
  int bad = 0;
  for (int i = 0; i < kMsgs; ++i)
    if (!strided_ok(in[(size_t)i], n, 1000 * i + peer)) ++bad;
  EXPECT_MSG(bad == 0, "wide window: %d of %d messages wrong", bad, kMsgs);
  for (MPI_Request r : q) EXPECT(r == MPI_REQUEST_NULL);
  free_types(t);
  sync();
}

// ---------------------------------------------------------------------------
// MPI_Request_free on active Loom requests, and MPI_Cancel.

void free_and_cancel() {
  if (g_rank >= 2 || g_size < 2) return sync();
  const int n = 1000;
  Types t = make_types(n);
  int peer = 1 - g_rank;
  if (g_rank == 1) {
    std::vector<int> d = strided(n, -5);
    MPI_Request r;
    EXPECT(MPI_Irecv(d.data(), 1, t.vec, 0, 30, g_comm, &r) == MPI_SUCCESS);
    EXPECT(MPI_Request_free(&r) == MPI_SUCCESS && r == MPI_REQUEST_NULL);
    PMPI_Send(nullptr, 0, MPI_INT, 0, 31, g_comm);  // now send it
    // The receive completes behind the program: a later MPI call finishes
    // it (unpacks), so the data appears while we keep calling MPI.
    std::vector<int> sink = strided(n, 0);
    EXPECT(MPI_Recv(sink.data(), 1, t.vec, 0, 32, g_comm, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    double until = MPI_Wtime() + 20;
    while (!strided_ok(d, n, 4242) && MPI_Wtime() < until) {
      MPI_Request none = MPI_REQUEST_NULL;
      MPI_Wait(&none, MPI_STATUS_IGNORE);
    }
    EXPECT_MSG(strided_ok(d, n, 4242), "freed active receive never delivered its data");
    // A freed active Loom send: the peer still gets the message.
    std::vector<int> s = strided(n, 999);
    EXPECT(MPI_Isend(s.data(), 1, t.vec, 0, 33, g_comm, &r) == MPI_SUCCESS);
    EXPECT(MPI_Request_free(&r) == MPI_SUCCESS && r == MPI_REQUEST_NULL);
    // Cancel a receive nobody sends to.
    std::vector<int> c = strided(n, -9);
    const auto before = c;
    MPI_Status st;
    EXPECT(MPI_Irecv(c.data(), 1, t.vec, 0, 34, g_comm, &r) == MPI_SUCCESS);
    EXPECT(MPI_Cancel(&r) == MPI_SUCCESS);
    EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    EXPECT_MSG(cancelled && c == before, "cancelled receive: cancelled %d", cancelled);
    // Cancel through Test, persistent receive.
    EXPECT(MPI_Recv_init(c.data(), 1, t.vec, 0, 35, g_comm, &r) == MPI_SUCCESS);
    EXPECT(MPI_Start(&r) == MPI_SUCCESS);
    EXPECT(MPI_Cancel(&r) == MPI_SUCCESS);
    int flag = 0;
    while (!flag) MPI_Test(&r, &flag, &st);
    MPI_Test_cancelled(&st, &cancelled);
    EXPECT_MSG(cancelled && c == before, "cancelled persistent receive");
    MPI_Request_free(&r);
  } else {
    PMPI_Recv(nullptr, 0, MPI_INT, 1, 31, g_comm, MPI_STATUS_IGNORE);
    std::vector<int> s = strided(n, 4242);
    EXPECT(MPI_Send(s.data(), 1, t.vec, 1, 30, g_comm) == MPI_SUCCESS);
    EXPECT(MPI_Send(s.data(), 1, t.vec, 1, 32, g_comm) == MPI_SUCCESS);
    std::vector<int> d = strided(n, 0);
    EXPECT(MPI_Recv(d.data(), 1, t.vec, 1, 33, g_comm, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    EXPECT_MSG(strided_ok(d, n, 999), "freed active send: data");
    // Cancelling a send: MPICH may, Open MPI 4.1 cannot.  Either way the
    // outcome must be consistent: cancelled, or delivered intact.
    MPI_Request r;
    MPI_Status st;
    EXPECT(MPI_Issend(s.data(), 1, t.vec, 1, 36, g_comm, &r) == MPI_SUCCESS);
    EXPECT(MPI_Cancel(&r) == MPI_SUCCESS);
    int flag = 0;
    double until = MPI_Wtime() + 3;
    while (!flag && MPI_Wtime() < until) MPI_Test(&r, &flag, &st);
    int need = !flag;
    PMPI_Send(&need, 1, MPI_INT, 1, 37, g_comm);
    if (need) EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    EXPECT_MSG(cancelled != need, "send cancel: cancelled %d, delivered %d", cancelled, need);
  }
  if (g_rank == 1) {
    int need = 0;
    PMPI_Recv(&need, 1, MPI_INT, 0, 37, g_comm, MPI_STATUS_IGNORE);
    if (need) {
      std::vector<int> d = strided(n, 0);
      EXPECT(MPI_Recv(d.data(), 1, t.vec, 0, 36, g_comm, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      EXPECT_MSG(strided_ok(d, n, 4242), "uncancelled send: data");
    }
  }
  (void)peer;
  free_types(t);
  sync();
}

// ---------------------------------------------------------------------------
// MPI_BOTTOM: absolute-address types on both sides.

void bottom() {
  if (g_rank >= 2 || g_size < 2) return sync();
  const int n = 40;
  Types t = make_types(n);
  std::vector<int> s = strided(n, 500), d = strided(n, -3);
  MPI_Aint as, ad;
  MPI_Get_address(s.data(), &as);
  MPI_Get_address(d.data(), &ad);
  int one = 1;
  MPI_Datatype abs_s, abs_d;
  MPI_Type_create_struct(1, &one, &as, &t.vec, &abs_s);
  MPI_Type_create_struct(1, &one, &ad, &t.vec, &abs_d);
  MPI_Type_commit(&abs_s);
  MPI_Type_commit(&abs_d);
  int peer = 1 - g_rank;
  MPI_Status st;
  EXPECT(MPI_Sendrecv(MPI_BOTTOM, 1, abs_s, peer, 40, MPI_BOTTOM, 1, abs_d, peer, 40,
                      g_comm, &st) == MPI_SUCCESS);
  EXPECT_MSG(strided_ok(d, n, 500), "MPI_BOTTOM Sendrecv");
  refill(d, strided(n, -3));  // same storage: abs_d holds its address
  MPI_Request r;
  EXPECT(MPI_Irecv(MPI_BOTTOM, 1, abs_d, peer, 41, g_comm, &r) == MPI_SUCCESS);
  EXPECT(MPI_Send(MPI_BOTTOM, 1, abs_s, peer, 41, g_comm) == MPI_SUCCESS);
  EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS);
  EXPECT_MSG(strided_ok(d, n, 500), "MPI_BOTTOM Irecv/Send");
  int c = -1;
  MPI_Get_count(&st, abs_d, &c);
  EXPECT_MSG(c == 1, "MPI_BOTTOM count %d", c);
  MPI_Type_free(&abs_s);
  MPI_Type_free(&abs_d);
  free_types(t);
  sync();
}

// ---------------------------------------------------------------------------
// Error classes through the communicator's handler; MPI_ERR_IN_STATUS.

template <class F>
void expect_error(const char *what, int cls, F f) {
  int h = g_handled;
  int rc = f();
  EXPECT_MSG(err_class(rc) == cls, "%s: class %d, expected %d", what, err_class(rc), cls);
  EXPECT_MSG(g_handled == h + 1 && g_last_class == cls, "%s: handler calls %d, class %d",
             what, g_handled - h, g_last_class);
}

void errors() {
  Types t = make_types(8);
  std::vector<int> buf = strided(8, 0);
  MPI_Datatype freed, uncommitted;
  MPI_Type_vector(4, 1, 3, MPI_INT, &freed);
  MPI_Type_commit(&freed);
  MPI_Datatype freed_copy = freed;
  MPI_Type_free(&freed);
  MPI_Type_vector(4, 1, 3, MPI_INT, &uncommitted);
  MPI_Request r;
  int self = g_rank;
  expect_error("Send, freed type", MPI_ERR_TYPE,
               [&] { return MPI_Send(buf.data(), 1, freed_copy, self, 1, g_comm); });
  expect_error("Isend, freed type", MPI_ERR_TYPE,
               [&] { return MPI_Isend(buf.data(), 1, freed_copy, self, 1, g_comm, &r); });
  expect_error("Recv, freed type", MPI_ERR_TYPE, [&] {
    return MPI_Recv(buf.data(), 1, freed_copy, self, 1, g_comm, MPI_STATUS_IGNORE);
  });
  expect_error("Irecv, uncommitted type", MPI_ERR_TYPE,
               [&] { return MPI_Irecv(buf.data(), 1, uncommitted, self, 1, g_comm, &r); });
  expect_error("Send, rank out of range", MPI_ERR_RANK,
               [&] { return MPI_Send(buf.data(), 1, t.vec, g_size + 3, 1, g_comm); });
  expect_error("Irecv, rank out of range", MPI_ERR_RANK, [&] {
    return MPI_Irecv(buf.data(), 1, t.vec, g_size + 3, 1, g_comm, &r);
  });
  expect_error("Send, negative count", MPI_ERR_COUNT,
               [&] { return MPI_Send(buf.data(), -1, t.vec, self, 1, g_comm); });
  expect_error("Send, negative tag", MPI_ERR_TAG,
               [&] { return MPI_Send(buf.data(), 1, t.vec, self, -5, g_comm); });
  EXPECT_MSG(buf == strided(8, 0), "a failed call touched the buffer");
  MPI_Type_free(&uncommitted);

  // Truncation and MPI_ERR_IN_STATUS, compared with the system.
  if (g_rank < 2 && g_size >= 2) {
    int peer = 1 - g_rank;
    std::vector<int> big = strided(16, 60);
    MPI_Datatype v16;
    MPI_Type_vector(16, 1, 2, MPI_INT, &v16);
    MPI_Type_commit(&v16);
    if (g_rank == 0) {
      for (int k = 0; k < 2; ++k) {  // Loom exchange, then the system's
        MPI_Send(big.data(), 1, t.vec, 1, 50, g_comm);
        MPI_Send(big.data(), 1, v16, 1, 51, g_comm);
      }
    } else {
      int calls[2] = {0, 0};  // handler calls: Loom's Waitall, the system's
      for (int k = 0; k < 2; ++k) {
        std::vector<int> a = strided(8, -1), b = strided(8, -1);
        MPI_Request q[2];
        MPI_Status sts[2];
        auto irecv = k ? PMPI_Irecv : MPI_Irecv;
        auto waitall = k ? PMPI_Waitall : MPI_Waitall;
        irecv(a.data(), 1, t.vec, peer, 50, g_comm, &q[0]);
        irecv(b.data(), 1, t.vec, peer, 51, g_comm, &q[1]);
        int h = g_handled;
        int rc = waitall(2, q, sts);
        EXPECT_MSG(rc == MPI_ERR_IN_STATUS && sts[0].MPI_ERROR == MPI_SUCCESS &&
                       err_class(sts[1].MPI_ERROR) == MPI_ERR_TRUNCATE,
                   "%s: Waitall rc %d errors %d %d", k ? "system" : "Loom", rc,
                   sts[0].MPI_ERROR, sts[1].MPI_ERROR);
        calls[k] = g_handled - h;
        EXPECT_MSG(strided_ok(a, 8, 60), "%s: Waitall first message", k ? "system" : "Loom");
        // Nothing written past the receive buffer's layout.
        bool gaps = true;
        for (int i = 0; i < 8; ++i) gaps &= b[(size_t)(2 * i + 1)] == -7 - i;
        EXPECT_MSG(gaps, "%s: truncated receive wrote into gaps", k ? "system" : "Loom");
      }
      EXPECT_MSG(calls[0] == calls[1], "Waitall handler calls %d, system %d", calls[0],
                 calls[1]);
    }
    MPI_Type_free(&v16);
  }
  free_types(t);
  sync();
}

// ---------------------------------------------------------------------------
// Messages above the staging pool's largest class (allocated and freed)
// and many small ones (pooled, reused): data and statuses.

void sizes() {
  if (g_rank >= 2 || g_size < 2) return sync();
  int peer = 1 - g_rank;
  for (int n : {1, 3, 1000, 100000, 3 << 20}) {
    Types t = make_types(n);
    std::vector<int> s = strided(n, n), d = strided(n, 0);
    MPI_Request q[2];
    MPI_Status st[2];
    for (int rep = 0; rep < (n < 1000 ? 50 : 2); ++rep) {
      MPI_Irecv(d.data(), 1, t.vec, peer, 60, g_comm, &q[0]);
      MPI_Isend(s.data(), 1, t.vec, peer, 60, g_comm, &q[1]);
      EXPECT(MPI_Waitall(2, q, st) == MPI_SUCCESS);
    }
    EXPECT_MSG(strided_ok(d, n, n), "size %d", n);
    MPI_Count c = -1;
    MPI_Get_elements_x(&st[0], t.vec, &c);
    EXPECT_MSG(c == n, "size %d: elements %lld", n, (long long)c);
    free_types(t);
  }
  sync();
}

// MPI_Get_elements on a struct of mixed basic types: MPICH 4.0.2's own
// answer is a SIGFPE (also for its own statuses); the drop-in answers whole
// instances from the mirror.
void elements() {
  if (g_rank >= 2 || g_size < 2) return sync();
  MPI_Datatype ib, st;
  int d2 = 2, bl[2] = {10, 1};
  MPI_Aint dp[2] = {4, 36};
  MPI_Type_create_indexed_block(1, 5, &d2, MPI_FLOAT, &ib);
  MPI_Datatype ts[2] = {MPI_INT, ib};
  MPI_Type_create_struct(2, bl, dp, ts, &st);
  MPI_Type_commit(&st);
  std::vector<char> s(4096, 3), d(4096, 0);
  MPI_Status sts[2];
  int peer = 1 - g_rank;
  for (int sys = 0; sys < 2; ++sys) {  // a Loom receive, then the system's
    auto sendrecv = sys ? PMPI_Sendrecv : MPI_Sendrecv;
    sendrecv(s.data(), 3, st, peer, 70, d.data(), 3, st, peer, 70, g_comm, &sts[sys]);
    int e = -1, c = -1;
    MPI_Count ex = -1;
    MPI_Get_elements(&sts[sys], st, &e);
    MPI_Get_elements_x(&sts[sys], st, &ex);
    MPI_Get_count(&sts[sys], st, &c);
    EXPECT_MSG(e == 45 && ex == 45 && c == 3, "%s status: elements %d/%lld count %d",
               sys ? "system" : "Loom", e, (long long)ex, c);
  }
  MPI_Type_free(&st);
  MPI_Type_free(&ib);
  sync();
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (!dropin_active()) failf("the drop-in is not in front of the system MPI");
  MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(record, &eh);
  MPI_Comm_set_errhandler(g_comm, eh);
  // Completion calls may raise on MPI_COMM_WORLD's handler (the system
  // decides); count those too instead of aborting.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
  static std::vector<char> bsend(1 << 20);
  MPI_Buffer_attach(bsend.data(), (int)bsend.size());
  proc_null_and_zero();
  fan_in();
  persistent();
  waitall_statuses();
  wide_window();
  free_and_cancel();
  bottom();
  errors();
  sizes();
  elements();
  void *b;
  int bs;
  MPI_Buffer_detach(&b, &bs);
  MPI_Errhandler_free(&eh);
  MPI_Comm_free(&g_comm);
  return finish("comm_p2p_semantics");
}
