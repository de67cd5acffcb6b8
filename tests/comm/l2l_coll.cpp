// The collectives that run Loom-to-Loom (docs/protocol.md, "Collectives"):
// Bcast, Gather(v), Scatter(v), Allgather(v) and Alltoall, blocking and
// nonblocking (completed by MPI_Wait and by MPI_Test loops), each with a
// sparse layout (4-byte runs: pipelined or packed once for several
// receivers) and a long-run layout (4 KiB runs: single copy), with
// MPI_IN_PLACE where the call allows it and with a receive type of another
// shape than the send type (contiguous ints against a vector).  Every
// receive buffer is checked int for int against what MPI says it must hold
// (canaries in every gap and past the end), and every rank checks in its
// own Loom segment how many blocks it announced by rendezvous: a silent
// fallback to staging cannot pass for a pass (a rank's block to itself
// is copied in place, never announced).  Run with LOOM_L2L_COLL_MIN=0
// (every block Loom-to-Loom); with LOOM_L2L=0, or with the argument `none`
// (a profile whose crossover says never), it expects no rendezvous.
#include <cstdlib>
#include <functional>
#include <string>

#include "comm_test.hpp"
#include "l2l_announced.hpp"

using namespace commtest;

namespace {

int g_rank, g_size;
constexpr int kCanary = -12345;
const loom_mpi::l2l::Header *g_segment = nullptr;
uint64_t announced() { return commtest::announced(g_segment); }

bool g_none = false;  // argument `none`: no block goes Loom-to-Loom
bool l2l_expected() { return !g_none && !env_off("LOOM_L2L") && !env_off("LOOM_CMA"); }

// Block layouts: n ints spread `stride` apart in runs of `run` ints.
struct Shape {
  const char *name;
  int run, stride;
};

// One block's type: `blocks` runs of the shape (the count is 1).
MPI_Datatype block_type(const Shape &s, int blocks) {
  MPI_Datatype t, r;
  MPI_Type_vector(blocks, s.run, s.stride, MPI_INT, &t);
  // One block's extent covers its last gap too: consecutive blocks of a
  // buffer never interleave.
  MPI_Type_create_resized(t, 0, (MPI_Aint)blocks * s.stride * (MPI_Aint)sizeof(int), &r);
  MPI_Type_free(&t);
  MPI_Type_commit(&r);
  return r;
}

// The value of int k of rank r's data for call `call`.
int value(int call, int r, int k) {
  return (int)((unsigned)call * 1000003u + (unsigned)r * 100019u + (unsigned)k + 1u);
}

// A buffer of `blocks` blocks of type t (ints in its runs, canary
// elsewhere and in one block of slack past the end).
struct Buf {
  Shape shape;
  int ints;  // ints per block
  std::vector<int> v;
  Buf(const Shape &s, int ints_per_block, int blocks)
      : shape(s), ints(ints_per_block),
        v((size_t)(blocks + 1) * (size_t)(ints_per_block / s.run) * (size_t)s.stride,
          kCanary) {}
  size_t block_len() const { return (size_t)(ints / shape.run) * (size_t)shape.stride; }
  // Where int k of block b lies.
  size_t at(int b, int k) const {
    return (size_t)b * block_len() + (size_t)(k / shape.run) * (size_t)shape.stride +
           (size_t)(k % shape.run);
  }
  void fill(int b, int call, int r) {
    for (int k = 0; k < ints; ++k) v[at(b, k)] = value(call, r, k);
  }
  int *data() { return v.data(); }
};

// Checks that buffer x holds, per block b, rank owner(b)'s data (owner
// -1: untouched) and canaries everywhere else.
void expect_blocks(const char *what, const Buf &x, int blocks, int call,
                   const std::function<int(int)> &owner) {
  std::vector<int> want(x.v.size(), kCanary);
  for (int b = 0; b < blocks; ++b) {
    const int r = owner(b);
    if (r >= 0)
      for (int k = 0; k < x.ints; ++k) want[x.at(b, k)] = value(call, r, k);
  }
  for (size_t i = 0; i < want.size(); ++i)
    if (x.v[i] != want[i]) {
      EXPECT_MSG(false, "rank %d, %s: int %zu is %d, expected %d", g_rank, what, i, x.v[i],
                 want[i]);
      return;
    }
}

void expect_announced(const char *what, uint64_t before, uint64_t want) {
  uint64_t got = announced() - before;
  if (!l2l_expected()) want = 0;
  EXPECT_MSG(got == want, "rank %d, %s: %llu blocks announced by rendezvous, expected %llu", g_rank,
             what, (unsigned long long)got, (unsigned long long)want);
}

// How the collectives are called: blocking, or nonblocking and completed
// by MPI_Wait or by a loop of MPI_Test (which must never wait for a peer).
enum class Mode { blocking, wait, test };
Mode g_mode = Mode::blocking;
const char *mode_name() {
  return g_mode == Mode::blocking ? "blocking" : g_mode == Mode::wait ? "Wait" : "Test";
}

// Runs call(nullptr) (blocking) or call(&request) and completes it.
int run(const std::function<int(MPI_Request *)> &call) {
  if (g_mode == Mode::blocking) return call(nullptr);
  MPI_Request q = MPI_REQUEST_NULL;
  int rc = call(&q);
  if (rc != MPI_SUCCESS) return rc;
  if (g_mode == Mode::wait) return MPI_Wait(&q, MPI_STATUS_IGNORE);
  for (int flag = 0; !flag;)
    if ((rc = MPI_Test(&q, &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS) return rc;
  return MPI_SUCCESS;
}

struct Case {
  Shape shape;
  int ints;  // per block (a multiple of shape.run)
  bool in_place;
  bool contig_recv;  // receive as plain MPI_INT (Gather, Scatter, Bcast)
};

std::string name(const char *call, const Case &c) {
  return std::string(call) + " " + c.shape.name + (c.in_place ? " in place" : "") +
         (c.contig_recv ? " contiguous receive" : "") + " (" + mode_name() + ")";
}

void bcast(const Case &c, int call) {
  const int root = call % g_size;
  MPI_Datatype t = block_type(c.shape, c.ints / c.shape.run);
  const bool contig = c.contig_recv && g_rank != root;
  Buf b(contig ? Shape{"ints", 1, 1} : c.shape, c.ints, 1);
  if (g_rank == root) b.fill(0, call, root);
  uint64_t before = announced();
  EXPECT(run([&](MPI_Request *q) {
           const int n = contig ? c.ints : 1;
           MPI_Datatype bt = contig ? MPI_INT : t;
           return q ? MPI_Ibcast(b.data(), n, bt, root, MPI_COMM_WORLD, q)
                    : MPI_Bcast(b.data(), n, bt, root, MPI_COMM_WORLD);
         }) == MPI_SUCCESS);
  std::string w = name("Bcast", c);
  expect_blocks(w.c_str(), b, 1, call, [&](int) { return root; });
  expect_announced(w.c_str(), before, g_rank == root ? (uint64_t)g_size - 1 : 0);
  MPI_Type_free(&t);
}

// Gather(v): block b of the root's buffer from rank b (v: rank b sends
// b + 1 blocks' worth, laid out in reverse order).
void gather(const Case &c, int call, bool v) {
  const int root = call % g_size;
  MPI_Datatype t = block_type(c.shape, c.ints / c.shape.run);
  const bool in_place = c.in_place && g_rank == root;
  const bool contig = c.contig_recv;
  MPI_Datatype rt = t;
  Buf r(contig ? Shape{"ints", 1, 1} : c.shape, c.ints, g_size);
  if (contig) MPI_Type_contiguous(c.ints, MPI_INT, &rt), MPI_Type_commit(&rt);
  Buf s(c.shape, c.ints, 1);
  s.fill(0, call, g_rank);
  if (in_place) {
    // The root's contribution already sits in its receive block.
    r.fill(v ? g_size - 1 - root : root, call, root);
  }
  std::vector<int> counts((size_t)g_size, 1), displs((size_t)g_size);
  for (int i = 0; i < g_size; ++i) displs[(size_t)i] = g_size - 1 - i;
  uint64_t before = announced();
  const void *sb = in_place ? MPI_IN_PLACE : s.data();
  int rc = run([&](MPI_Request *q) {
    MPI_Comm w = MPI_COMM_WORLD;
    const int *n = counts.data(), *d = displs.data();
    if (v)
      return q ? MPI_Igatherv(sb, 1, t, r.data(), n, d, rt, root, w, q)
               : MPI_Gatherv(sb, 1, t, r.data(), n, d, rt, root, w);
    return q ? MPI_Igather(sb, 1, t, r.data(), 1, rt, root, w, q)
             : MPI_Gather(sb, 1, t, r.data(), 1, rt, root, w);
  });
  EXPECT(rc == MPI_SUCCESS);
  std::string w = name(v ? "Gatherv" : "Gather", c);
  if (g_rank == root)
    expect_blocks(w.c_str(), r, g_size, call,
                  [&](int b) { return v ? g_size - 1 - b : b; });
  else
    expect_blocks(w.c_str(), r, g_size, call, [](int) { return -1; });
  // A rank's block to itself is copied, not announced.
  expect_announced(w.c_str(), before, g_rank == root ? 0 : 1);
  if (contig) MPI_Type_free(&rt);
  MPI_Type_free(&t);
}

void scatter(const Case &c, int call, bool v) {
  const int root = call % g_size;
  MPI_Datatype t = block_type(c.shape, c.ints / c.shape.run);
  const bool in_place = c.in_place && g_rank == root;
  const bool contig = c.contig_recv;
  Buf s(c.shape, c.ints, g_size);
  std::vector<int> counts((size_t)g_size, 1), displs((size_t)g_size);
  for (int i = 0; i < g_size; ++i) displs[(size_t)i] = g_size - 1 - i;
  if (g_rank == root)
    for (int i = 0; i < g_size; ++i) s.fill(v ? displs[(size_t)i] : i, call, i);
  Buf r(contig ? Shape{"ints", 1, 1} : c.shape, c.ints, 1);
  uint64_t before = announced();
  void *rb = in_place ? MPI_IN_PLACE : r.data();
  int rcount = contig ? c.ints : 1;
  MPI_Datatype rt = contig ? MPI_INT : t;
  int rc = run([&](MPI_Request *q) {
    MPI_Comm w = MPI_COMM_WORLD;
    const int *n = counts.data(), *d = displs.data();
    if (v)
      return q ? MPI_Iscatterv(s.data(), n, d, t, rb, rcount, rt, root, w, q)
               : MPI_Scatterv(s.data(), n, d, t, rb, rcount, rt, root, w);
    return q ? MPI_Iscatter(s.data(), 1, t, rb, rcount, rt, root, w, q)
             : MPI_Scatter(s.data(), 1, t, rb, rcount, rt, root, w);
  });
  EXPECT(rc == MPI_SUCCESS);
  std::string w = name(v ? "Scatterv" : "Scatter", c);
  expect_blocks(w.c_str(), r, 1, call, [&](int) { return in_place ? -1 : g_rank; });
  uint64_t want = g_rank != root ? 0 : (uint64_t)g_size - 1;
  expect_announced(w.c_str(), before, want);
  MPI_Type_free(&t);
}

void allgather(const Case &c, int call, bool v) {
  MPI_Datatype t = block_type(c.shape, c.ints / c.shape.run);
  Buf r(c.shape, c.ints, g_size), s(c.shape, c.ints, 1);
  std::vector<int> counts((size_t)g_size, 1), displs((size_t)g_size);
  for (int i = 0; i < g_size; ++i) displs[(size_t)i] = g_size - 1 - i;
  const int mine = v ? displs[(size_t)g_rank] : g_rank;
  if (c.in_place) r.fill(mine, call, g_rank);
  else s.fill(0, call, g_rank);
  uint64_t before = announced();
  const void *sb = c.in_place ? MPI_IN_PLACE : s.data();
  int rc = run([&](MPI_Request *q) {
    MPI_Comm w = MPI_COMM_WORLD;
    const int *n = counts.data(), *d = displs.data();
    if (v)
      return q ? MPI_Iallgatherv(sb, 1, t, r.data(), n, d, t, w, q)
               : MPI_Allgatherv(sb, 1, t, r.data(), n, d, t, w);
    return q ? MPI_Iallgather(sb, 1, t, r.data(), 1, t, w, q)
             : MPI_Allgather(sb, 1, t, r.data(), 1, t, w);
  });
  EXPECT(rc == MPI_SUCCESS);
  std::string w = name(v ? "Allgatherv" : "Allgather", c);
  expect_blocks(w.c_str(), r, g_size, call, [&](int b) { return v ? g_size - 1 - b : b; });
  expect_announced(w.c_str(), before, (uint64_t)g_size - 1);
  MPI_Type_free(&t);
}

void alltoall(const Case &c, int call) {
  MPI_Datatype t = block_type(c.shape, c.ints / c.shape.run);
  Buf s(c.shape, c.ints, g_size), r(c.shape, c.ints, g_size);
  // Block b of rank x's send buffer is x's data for call `call * size + b`:
  // each receiver can tell whose and which block it got.
  for (int b = 0; b < g_size; ++b)
    for (int k = 0; k < c.ints; ++k) s.v[s.at(b, k)] = value(call * g_size + b, g_rank, k);
  uint64_t before = announced();
  EXPECT(run([&](MPI_Request *q) {
           return q ? MPI_Ialltoall(s.data(), 1, t, r.data(), 1, t, MPI_COMM_WORLD, q)
                    : MPI_Alltoall(s.data(), 1, t, r.data(), 1, t, MPI_COMM_WORLD);
         }) == MPI_SUCCESS);
  std::string w = name("Alltoall", c);
  std::vector<int> want(r.v.size(), kCanary);
  for (int b = 0; b < g_size; ++b)
    for (int k = 0; k < c.ints; ++k) want[r.at(b, k)] = value(call * g_size + g_rank, b, k);
  EXPECT_MSG(r.v == want, "rank %d, %s: wrong data", g_rank, w.c_str());
  expect_announced(w.c_str(), before, (uint64_t)g_size - 1);
  MPI_Type_free(&t);
}

// More point-to-point sends in flight than there are slots, their receives
// posted only after a collective: the collective must still get slots of
// its own (it cannot fall back once its peers expect its rendezvous).
void busy_slots(const Case &c) {
  constexpr int kSends = 600;  // more than all 512 slots
  std::vector<int> out((size_t)kSends * 64), in((size_t)kSends * 64, kCanary);
  std::vector<MPI_Request> reqs;
  if (g_rank == 0)
    for (int i = 0; i < kSends; ++i) {
      for (int k = 0; k < 64; ++k) out[(size_t)i * 64 + (size_t)k] = value(i, 0, k);
      reqs.push_back(MPI_REQUEST_NULL);
      MPI_Isend(&out[(size_t)i * 64], 64, MPI_INT, 1, 7, MPI_COMM_WORLD, &reqs.back());
    }
  alltoall(c, 999);
  if (g_rank == 1)
    for (int i = 0; i < kSends; ++i) {
      reqs.push_back(MPI_REQUEST_NULL);
      MPI_Irecv(&in[(size_t)i * 64], 64, MPI_INT, 0, 7, MPI_COMM_WORLD, &reqs.back());
    }
  EXPECT(MPI_Waitall((int)reqs.size(), reqs.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  if (g_rank == 1)
    for (int i = 0; i < kSends; ++i)
      for (int k = 0; k < 64; ++k)
        if (in[(size_t)i * 64 + (size_t)k] != value(i, 0, k)) {
          EXPECT_MSG(false, "busy slots: message %d int %d is %d", i, k,
                     in[(size_t)i * 64 + (size_t)k]);
          return;
        }
}

// More nonblocking collectives outstanding than there are slots for their
// blocks (700 calls, a block to every other rank each), completed by one
// MPI_Waitall, by MPI_Wait newest first, and by an MPI_Testall loop: a
// rank starting a call may wait for a slot that only its peers' pulls
// free, so every one of those completions must pull the blocks of calls
// already complete at the system level without waiting for the rest.
void many_outstanding() {
  constexpr int kCalls = 700, kInts = 256;
  MPI_Datatype v, t;  // every other int, blocks 2 * kInts ints apart
  MPI_Type_vector(kInts, 1, 2, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * kInts * sizeof(int)), &t);
  MPI_Type_free(&v);
  MPI_Type_commit(&t);
  const size_t span = 2 * kInts, per_call = span * (size_t)g_size;
  for (int how = 0; how < 3; ++how) {
    std::vector<int> out(per_call * kCalls), in(per_call * kCalls, kCanary);
    for (int i = 0; i < kCalls; ++i)
      for (int b = 0; b < g_size; ++b)
        for (int k = 0; k < kInts; ++k)
          out[i * per_call + b * span + 2 * k] = value(i * g_size + g_rank, b, k);
    std::vector<MPI_Request> q((size_t)kCalls);
    for (int i = 0; i < kCalls; ++i)
      MPI_Ialltoall(&out[i * per_call], 1, t, &in[i * per_call], 1, t, MPI_COMM_WORLD, &q[i]);
    if (how == 0) {
      EXPECT(MPI_Waitall(kCalls, q.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    } else if (how == 1) {
      for (int i = kCalls; i-- > 0;) EXPECT(MPI_Wait(&q[i], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else {
      for (int flag = 0; !flag;) MPI_Testall(kCalls, q.data(), &flag, MPI_STATUSES_IGNORE);
    }
    for (int i = 0; i < kCalls; ++i)
      for (int b = 0; b < g_size; ++b)
        for (int k = 0; k < kInts; ++k) {
          const int got = in[i * per_call + b * span + 2 * k],
                    gap = in[i * per_call + b * span + 2 * k + 1];
          if (got != value(i * g_size + b, g_rank, k) || gap != kCanary) {
            EXPECT_MSG(false, "rank %d, %d outstanding calls (completion %d): call %d block %d int %d is %d",
                       g_rank, kCalls, how, i, b, k, got);
            MPI_Type_free(&t);
            return;
          }
        }
  }
  MPI_Type_free(&t);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_none = argc > 1 && std::string(argv[1]) == "none";
  g_segment = find_segment();
  if (l2l_expected() && g_size > 1)
    EXPECT_MSG(g_segment, "rank %d: no Loom segment of this process in /dev/shm", g_rank);
  const Shape sparse{"4-byte runs", 1, 2}, runs{"4 KiB runs", 1024, 1536};
  int call = 0;
  for (Mode mode : {Mode::blocking, Mode::wait, Mode::test})
  for (const Shape &sh : {sparse, runs}) {
    g_mode = mode;
    const int ints = sh.run * 64;
    for (bool in_place : {false, true})
      for (bool contig : {false, true}) {
        Case c{sh, ints, in_place, contig};
        if (!in_place) bcast(c, ++call);
        for (bool v : {false, true}) {
          gather(c, ++call, v);
          scatter(c, ++call, v);
          if (!contig) allgather(c, ++call, v);
        }
        if (!in_place && !contig) alltoall(c, ++call);
      }
  }
  g_mode = Mode::blocking;
  busy_slots(Case{runs, runs.run * 64, false, false});
  many_outstanding();
  return finish("loom_comm_l2l_coll");
}
