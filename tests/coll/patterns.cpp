// Collectives in the shapes applications use them, and the edges of the
// contract:
//  * FFT transpose: a distributed matrix transposed by MPI_Alltoall with a
//    resized vector (send) and a resized column-of-columns (receive), and
//    by Alltoallw and Ialltoall; checked against the analytic transpose
//    and against the system.
//  * halo exchange: Neighbor_alltoallw (and Ineighbor_alltoallw) on 2-d
//    cartesian communicators, periodic and not: ghost rows (contiguous) and
//    columns (vectors) must hold the neighbours' edges; ghosts at a
//    non-periodic edge stay untouched.
//  * Loom engaged: the system sees MPI_BYTE for non-contiguous types and the
//    program's own type for contiguous ones (the PMPI entry points are
//    interposed here to watch what the drop-in hands the system).
//  * MPI_BOTTOM with absolute addresses, zero counts, intercommunicators
//    (left to the system), several nonblocking collectives completed
//    together, errors (a freed datatype gives MPI_ERR_TYPE through the
//    communicator's handler; bad counts reach the system's checks), and
//    MPI_THREAD_MULTIPLE: threads running collectives on their own
//    communicators at once.
#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "coll_test.hpp"

using namespace loomtest;

// ---- watching what the drop-in hands the system ----------------------------

namespace {
// The receive type of the last call the system saw (single-threaded use).
long g_calls = 0;
MPI_Datatype g_last_type = MPI_DATATYPE_NULL;
int g_last_count = -1;
void note_type(MPI_Datatype t, int count = -1) {
  ++g_calls;
  g_last_type = t;
  g_last_count = count;
}

// Between Loom processes, blocks from LOOM_L2L_COLL_MIN up travel as 44-byte
// rendezvous messages (docs/protocol.md, "Collectives").
bool saw_rdv_wire() { return g_last_type == MPI_BYTE && g_last_count == 44; }

// Whether the system last saw a wire type for `user` (contiguous bytes of
// the same size) in place of `user` itself.
bool saw_wire_for(MPI_Datatype user) {
  if (g_last_type == user || g_last_type == MPI_DATATYPE_NULL) return false;
  int s1, s2;
  MPI_Aint lb, ext, tlb, text;
  PMPI_Type_size(user, &s1);
  PMPI_Type_size(g_last_type, &s2);
  PMPI_Type_get_extent(g_last_type, &lb, &ext);
  PMPI_Type_get_true_extent(g_last_type, &tlb, &text);
  return s1 == s2 && lb == 0 && ext == s2 && tlb == 0 && text == s2;
}
template <class F>
F next(const char *name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}
}  // namespace

// The drop-in's calls to these resolve to the program's definitions (the
// program is searched first); they forward to the system's.
extern "C" int PMPI_Alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                             MPI_Datatype rt, MPI_Comm c) {
  static auto real = next<decltype(&PMPI_Alltoall)>("PMPI_Alltoall");
  note_type(rt, rc);
  return real(sb, sc, st, rb, rc, rt, c);
}

extern "C" int PMPI_Neighbor_alltoallw(const void *sb, const int *sc, const MPI_Aint *sd,
                                       const MPI_Datatype *st, void *rb, const int *rc,
                                       const MPI_Aint *rd, const MPI_Datatype *rt, MPI_Comm c) {
  static auto real = next<decltype(&PMPI_Neighbor_alltoallw)>("PMPI_Neighbor_alltoallw");
  note_type(rt[0]);
  return real(sb, sc, sd, st, rb, rc, rd, rt, c);
}

namespace {

int g_rank, g_size;

int err_class_of(int rc) {
  int c = rc;
  if (rc != MPI_SUCCESS) PMPI_Error_class(rc, &c);
  return c;
}

// ---- FFT transpose ----------------------------------------------------------

double value(int r, int c) { return r * 100000.0 + c; }

void transpose(int b, bool nonblocking, bool w) {
  const int n = b * g_size;  // global n x n, b rows per rank
  std::vector<double> a((size_t)b * n), t((size_t)b * n, -1.0), t_ref((size_t)b * n, -1.0);
  for (int r = 0; r < b; ++r)
    for (int c = 0; c < n; ++c) a[(size_t)r * n + c] = value(g_rank * b + r, c);
  // Send: the b x b block of columns j*b.. (a vector of rows), one per peer.
  MPI_Datatype vec, blk, col, colr, cols, colsr;
  MPI_Type_vector(b, b, n, MPI_DOUBLE, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)b * 8, &blk);
  MPI_Type_commit(&blk);
  // Receive: the block lands transposed, column by column.
  MPI_Type_vector(b, 1, n, MPI_DOUBLE, &col);
  MPI_Type_create_resized(col, 0, 8, &colr);
  MPI_Type_contiguous(b, colr, &cols);
  MPI_Type_create_resized(cols, 0, (MPI_Aint)b * 8, &colsr);
  MPI_Type_commit(&colsr);
  long before = g_calls;
  int rc;
  if (w) {
    std::vector<int> cnt(g_size, 1), d(g_size);
    std::vector<MPI_Datatype> st(g_size, blk), rt(g_size, colsr);
    for (int j = 0; j < g_size; ++j) d[j] = j * b * 8;
    rc = MPI_Alltoallw(a.data(), cnt.data(), d.data(), st.data(), t.data(), cnt.data(),
                       d.data(), rt.data(), MPI_COMM_WORLD);
    PMPI_Alltoallw(a.data(), cnt.data(), d.data(), st.data(), t_ref.data(), cnt.data(),
                   d.data(), rt.data(), MPI_COMM_WORLD);
  } else if (nonblocking) {
    MPI_Request q;
    rc = MPI_Ialltoall(a.data(), 1, blk, t.data(), 1, colsr, MPI_COMM_WORLD, &q);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    PMPI_Alltoall(a.data(), 1, blk, t_ref.data(), 1, colsr, MPI_COMM_WORLD);
  } else {
    rc = MPI_Alltoall(a.data(), 1, blk, t.data(), 1, colsr, MPI_COMM_WORLD);
    // b = 1: the receive type is contiguous but not a named one, so its
    // run goes as bytes too (Mirror::native_contig), unstaged.
    EXPECT_MSG(g_calls - before == 1 && (saw_wire_for(colsr) || saw_rdv_wire()),
               "transpose b=%d: the system did not get the %s", b,
               b == 1 ? "receive run as bytes" : "staged bytes or the rendezvous");
    PMPI_Alltoall(a.data(), 1, blk, t_ref.data(), 1, colsr, MPI_COMM_WORLD);
  }
  EXPECT_MSG(rc == MPI_SUCCESS, "transpose b=%d rc %d", b, rc);
  int bad = 0;
  for (int r = 0; r < b; ++r)
    for (int c = 0; c < n; ++c) bad += t[(size_t)r * n + c] != value(c, g_rank * b + r);
  EXPECT_MSG(bad == 0, "transpose b=%d%s%s: %d elements wrong", b, w ? " (w)" : "",
             nonblocking ? " (nonblocking)" : "", bad);
  EXPECT_MSG(t == t_ref, "transpose b=%d: differs from the system's", b);
  for (MPI_Datatype *x : {&vec, &blk, &col, &colr, &cols, &colsr}) MPI_Type_free(x);
}

// ---- halo exchange ----------------------------------------------------------

void halo(bool periodic, bool nonblocking) {
  int dims[2] = {0, 0}, per[2] = {periodic, periodic}, coords[2];
  MPI_Dims_create(g_size, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &cart);
  int me;
  MPI_Comm_rank(cart, &me);
  MPI_Cart_coords(cart, me, 2, coords);
  const int ny = 6, nx = 5, ld = nx + 2;  // interior ny x nx, one ghost layer
  const double sentinel = -7.0;
  auto field = [&](int cy, int cx, int y, int x) {  // a cell's value by global position
    return (double)((cy * ny + y) * 1000 + cx * nx + x);
  };
  std::vector<double> u((size_t)(ny + 2) * ld, sentinel);
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) u[(size_t)(y + 1) * ld + x + 1] = field(coords[0], coords[1], y, x);
  std::vector<double> u_ref = u;
  MPI_Datatype row, column;
  MPI_Type_contiguous(nx, MPI_DOUBLE, &row);
  MPI_Type_vector(ny, 1, ld, MPI_DOUBLE, &column);
  MPI_Type_commit(&row);
  MPI_Type_commit(&column);
  // Neighbours: dimension 0 (y) at -1, +1, then dimension 1 (x) at -1, +1.
  auto at = [&](int y, int x) { return (MPI_Aint)(((size_t)y * ld + x) * sizeof(double)); };
  const MPI_Aint sd[4] = {at(1, 1), at(ny, 1), at(1, 1), at(1, nx)};
  const MPI_Aint rd[4] = {at(0, 1), at(ny + 1, 1), at(1, 0), at(1, nx + 1)};
  const MPI_Datatype ty[4] = {row, row, column, column};
  const int cnt[4] = {1, 1, 1, 1};
  long before = g_calls;
  int rc;
  if (nonblocking) {
    MPI_Request q;
    rc = MPI_Ineighbor_alltoallw(u.data(), cnt, sd, ty, u.data(), cnt, rd, ty, cart, &q);
    if (rc == MPI_SUCCESS) rc = MPI_Waitall(1, &q, MPI_STATUSES_IGNORE);
  } else {
    rc = MPI_Neighbor_alltoallw(u.data(), cnt, sd, ty, u.data(), cnt, rd, ty, cart);
    // MPICH on a cartesian grid: equal degrees, so the plain entry point.
    EXPECT_MSG(g_calls - before == 1 && g_last_type == MPI_BYTE,
               "halo: the system did not get the staged bytes");
  }
  // The same kind of call: with a periodic dimension of 1 or 2 processes a
  // neighbour sits on both sides, and which of its two messages lands in
  // which ghost layer is the system's choice (the standard fixed it only in
  // the MPI-4.0 errata, mpi-forum issue 153: Open MPI 4.1.4 follows it in
  // the blocking form, MPICH 4.0.2 in neither, and they differ between
  // their blocking and nonblocking forms).  There only the system's own
  // result is the reference.
  if (nonblocking) {
    MPI_Request q;
    PMPI_Ineighbor_alltoallw(u_ref.data(), cnt, sd, ty, u_ref.data(), cnt, rd, ty, cart, &q);
    PMPI_Wait(&q, MPI_STATUS_IGNORE);
  } else {
    PMPI_Neighbor_alltoallw(u_ref.data(), cnt, sd, ty, u_ref.data(), cnt, rd, ty, cart);
  }
  const bool doubled = periodic && (dims[0] <= 2 || dims[1] <= 2);
  EXPECT_MSG(rc == MPI_SUCCESS, "halo rc %d", rc);
  // Expected ghosts: the neighbour's edge, or untouched at an open edge.
  int bad = 0;
  for (int side = 0; side < 4; ++side) {
    int d = side / 2, dir = side % 2 ? 1 : -1, src, dst;
    MPI_Cart_shift(cart, d, 1, &src, &dst);
    int peer = dir < 0 ? src : dst, pc[2] = {0, 0};
    if (peer != MPI_PROC_NULL) MPI_Cart_coords(cart, peer, 2, pc);
    for (int k = 0; k < (d == 0 ? nx : ny); ++k) {
      int y = d == 0 ? (dir < 0 ? 0 : ny + 1) : k + 1;
      int x = d == 0 ? k + 1 : (dir < 0 ? 0 : nx + 1);
      double want = sentinel;
      if (peer != MPI_PROC_NULL)
        want = d == 0 ? field(pc[0], pc[1], dir < 0 ? ny - 1 : 0, k)
                      : field(pc[0], pc[1], k, dir < 0 ? nx - 1 : 0);
      bad += u[(size_t)y * ld + x] != want;
    }
  }
  EXPECT_MSG(bad == 0 || doubled, "halo %s%s: %d ghost cells wrong",
             periodic ? "periodic" : "open", nonblocking ? " nonblocking" : "", bad);
  EXPECT_MSG(u == u_ref, "halo %s%s: differs from the system's", periodic ? "periodic" : "open",
             nonblocking ? " nonblocking" : "");
  MPI_Type_free(&row);
  MPI_Type_free(&column);
  MPI_Comm_free(&cart);
}

// ---- smaller contracts ------------------------------------------------------

// Contiguous types go to the system as they are.
void contiguous_passes() {
  std::vector<int> s(g_size * 4), r(g_size * 4);
  for (size_t i = 0; i < s.size(); ++i) s[i] = g_rank * 1000 + (int)i;
  long before = g_calls;
  MPI_Alltoall(s.data(), 4, MPI_INT, r.data(), 4, MPI_INT, MPI_COMM_WORLD);
  EXPECT_MSG(g_calls - before == 1 && g_last_type == MPI_INT,
             "contiguous Alltoall was not handed over unchanged");
  for (int j = 0; j < g_size; ++j) EXPECT(r[(size_t)j * 4 + 1] == j * 1000 + g_rank * 4 + 1);
}

// MPI_BOTTOM: a struct of absolute addresses over two separate arrays.
void bottom() {
  std::vector<double> x(3 * (size_t)g_size);
  std::vector<int> y(2 * (size_t)g_size);
  for (int j = 0; j < g_size; ++j) {
    x[(size_t)j * 3] = g_rank * 10 + j;
    y[(size_t)j * 2 + 1] = g_rank * 100 + j;
  }
  std::vector<double> xr(3 * (size_t)g_size, -1), xr2 = xr;
  std::vector<int> yr(2 * (size_t)g_size, -1), yr2 = yr;
  auto addr_type = [&](double *xs, int *ys, int j) {
    MPI_Aint d[2];
    MPI_Get_address(xs + 3 * j, &d[0]);
    MPI_Get_address(ys + 2 * j + 1, &d[1]);
    int bl[2] = {1, 1};
    MPI_Datatype tys[2] = {MPI_DOUBLE, MPI_INT}, t;
    MPI_Type_create_struct(2, bl, d, tys, &t);
    MPI_Type_commit(&t);
    return t;
  };
  std::vector<MPI_Datatype> st(g_size), rt(g_size), rt2(g_size);
  std::vector<int> one(g_size, 1), zero(g_size, 0);
  for (int j = 0; j < g_size; ++j) {
    st[j] = addr_type(x.data(), y.data(), j);
    rt[j] = addr_type(xr.data(), yr.data(), j);
    rt2[j] = addr_type(xr2.data(), yr2.data(), j);
  }
  int rc = MPI_Alltoallw(MPI_BOTTOM, one.data(), zero.data(), st.data(), MPI_BOTTOM,
                         one.data(), zero.data(), rt.data(), MPI_COMM_WORLD);
  PMPI_Alltoallw(MPI_BOTTOM, one.data(), zero.data(), st.data(), MPI_BOTTOM, one.data(),
                 zero.data(), rt2.data(), MPI_COMM_WORLD);
  EXPECT_MSG(rc == MPI_SUCCESS, "MPI_BOTTOM Alltoallw rc %d", rc);
  EXPECT_MSG(xr == xr2 && yr == yr2, "MPI_BOTTOM Alltoallw differs from the system's");
  for (int j = 0; j < g_size; ++j)
    EXPECT(xr[(size_t)j * 3] == j * 10 + g_rank && yr[(size_t)j * 2 + 1] == j * 100 + g_rank);
  for (int j = 0; j < g_size; ++j) {
    MPI_Type_free(&st[j]);
    MPI_Type_free(&rt[j]);
    MPI_Type_free(&rt2[j]);
  }
}

// Ints 0, 1, 5, 6, 10, 11 of every 12 (extent 12 ints).
constexpr int kExt = 12;
MPI_Datatype strided() {
  MPI_Datatype t;
  MPI_Type_vector(3, 2, 5, MPI_INT, &t);
  MPI_Type_commit(&t);
  return t;
}

// Zero counts move nothing and touch nothing.
void zero_counts() {
  MPI_Datatype t = strided();
  std::vector<int> s(64 * g_size, 5), r(64 * g_size, 9);
  std::vector<int> z(g_size, 0), d(g_size, 0);
  EXPECT(MPI_Bcast(r.data(), 0, t, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
  EXPECT(MPI_Alltoall(s.data(), 0, t, r.data(), 0, t, MPI_COMM_WORLD) == MPI_SUCCESS);
  EXPECT(MPI_Alltoallv(s.data(), z.data(), d.data(), t, r.data(), z.data(), d.data(), t,
                       MPI_COMM_WORLD) == MPI_SUCCESS);
  MPI_Request q;
  EXPECT(MPI_Iallgather(s.data(), 0, t, r.data(), 0, t, MPI_COMM_WORLD, &q) == MPI_SUCCESS);
  EXPECT(MPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  for (int v : r) EXPECT_MSG(v == 9, "a zero-count collective wrote");
  MPI_Type_free(&t);
}

// Intercommunicators go to the system; the results must still be right.
void intercomm() {
  if (g_size < 2) return;
  MPI_Comm half, inter;
  const int color = g_rank % 2;
  MPI_Comm_split(MPI_COMM_WORLD, color, g_rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
  MPI_Datatype t = strided();
  int rsize;
  MPI_Comm_remote_size(inter, &rsize);
  std::vector<int> s(kExt), r(kExt * (size_t)rsize, -1);
  for (int i = 0; i < kExt; ++i) s[i] = g_rank * 100 + i;
  int rc = MPI_Allgather(s.data(), 1, t, r.data(), 1, t, inter);
  EXPECT_MSG(rc == MPI_SUCCESS, "intercomm Allgather rc %d", rc);
  // Remote rank k of group (1 - color) is world rank 2k + 1 - color.
  for (int k = 0; k < rsize; ++k) {
    int world = 2 * k + 1 - color;
    EXPECT_MSG(r[(size_t)k * kExt + 5] == world * 100 + 5 && r[(size_t)k * kExt + 2] == -1,
               "intercomm Allgather block %d wrong", k);
  }
  // A rooted call: group 0's rank 0 broadcasts to group 1.
  std::vector<int> b(kExt, color == 0 ? 42 : -1);
  int root = color == 0 ? (g_rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  MPI_Request q;
  rc = MPI_Ibcast(b.data(), 1, t, root, inter, &q);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
  EXPECT_MSG(rc == MPI_SUCCESS, "intercomm Ibcast rc %d", rc);
  if (color == 1) EXPECT_MSG(b[0] == 42 && b[2] == -1 && b[6] == 42, "intercomm Ibcast wrong");
  MPI_Type_free(&t);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

// Several nonblocking collectives in flight, completed by one Waitall
// together with a point-to-point request.
void outstanding() {
  MPI_Datatype t = strided();
  const int n = 4;
  std::vector<std::vector<int>> s(n), r(n);
  std::vector<MPI_Request> q(n + 1);
  for (int k = 0; k < n; ++k) {
    s[k].assign(kExt * (size_t)g_size, 0);
    r[k].assign(kExt * (size_t)g_size, -1);
    for (size_t i = 0; i < s[k].size(); ++i) s[k][i] = k * 100000 + g_rank * 1000 + (int)i;
    MPI_Ialltoall(s[k].data(), 1, t, r[k].data(), 1, t, MPI_COMM_WORLD, &q[k]);
  }
  int token = g_rank, got = -1;
  MPI_Request rq;
  MPI_Irecv(&got, 1, MPI_INT, (g_rank + g_size - 1) % g_size, 3, MPI_COMM_WORLD, &q[n]);
  MPI_Isend(&token, 1, MPI_INT, (g_rank + 1) % g_size, 3, MPI_COMM_WORLD, &rq);
  EXPECT(MPI_Waitall(n + 1, q.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  EXPECT(got == (g_rank + g_size - 1) % g_size);
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < g_size; ++j) {
      // Block j came from rank j's block for this rank.
      EXPECT_MSG(r[k][(size_t)j * kExt + 6] == k * 100000 + j * 1000 + g_rank * kExt + 6 &&
                     r[k][(size_t)j * kExt + 3] == -1,
                 "outstanding Ialltoall %d block %d wrong", k, j);
    }
  MPI_Type_free(&t);
}

int g_handler_calls = 0;
void count_errors(MPI_Comm *, int *, ...) { ++g_handler_calls; }

void errors() {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(count_errors, &eh);
  MPI_Comm_set_errhandler(c, eh);
  std::vector<int> buf(64);
  // A freed datatype: MPI_ERR_TYPE from the drop-in, through the handler,
  // on every rank (none enters the collective).
  MPI_Datatype t = strided(), kept = t;
  MPI_Type_free(&t);
  g_handler_calls = 0;
  int rc = MPI_Bcast(buf.data(), 1, kept, 0, c);
  EXPECT_MSG(err_class_of(rc) == MPI_ERR_TYPE && g_handler_calls == 1,
             "freed type: class %d, handler calls %d", err_class_of(rc), g_handler_calls);
  MPI_Request q = MPI_REQUEST_NULL;
  rc = MPI_Ialltoall(buf.data(), 1, kept, buf.data(), 1, kept, c, &q);
  EXPECT_MSG(err_class_of(rc) == MPI_ERR_TYPE && q == MPI_REQUEST_NULL,
             "freed type (nonblocking): class %d", err_class_of(rc));
  // A negative count reaches the system's own check.
  MPI_Datatype u = strided();
  g_handler_calls = 0;
  rc = MPI_Bcast(buf.data(), -1, u, 0, c);
  EXPECT_MSG(err_class_of(rc) == MPI_ERR_COUNT && g_handler_calls == 1,
             "negative count: class %d", err_class_of(rc));
  // An uncommitted type: the system's MPI_ERR_TYPE.
  MPI_Datatype v;
  MPI_Type_vector(2, 1, 3, MPI_INT, &v);
  rc = MPI_Allgather(buf.data(), 1, v, buf.data() + 16, 1, v, c);
  EXPECT_MSG(err_class_of(rc) == MPI_ERR_TYPE, "uncommitted type: class %d",
             err_class_of(rc));
  MPI_Type_free(&v);
  MPI_Type_free(&u);
  MPI_Errhandler_free(&eh);
  MPI_Comm_free(&c);
}

// Threads, each with its own communicator, all running derived-type
// collectives at once (MPI_THREAD_MULTIPLE).
void threads(int provided) {
  if (provided < MPI_THREAD_MULTIPLE) {
    if (g_rank == 0) std::printf("note: no MPI_THREAD_MULTIPLE, thread test skipped\n");
    return;
  }
  const int nt = 3, iters = 40;
  std::vector<MPI_Comm> comms(nt);
  for (auto &c : comms) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Datatype t = strided();
  std::atomic<int> bad{0};
  std::vector<std::thread> th;
  for (int k = 0; k < nt; ++k)
    th.emplace_back([&, k] {
      std::vector<int> s(13 * (size_t)g_size), r(13 * (size_t)g_size), r2(13 * (size_t)g_size);
      for (int it = 0; it < iters; ++it) {
        for (size_t i = 0; i < s.size(); ++i) s[i] = (k * iters + it) * 10000 + g_rank * 100 + (int)i;
        std::fill(r.begin(), r.end(), -1);
        std::fill(r2.begin(), r2.end(), -1);
        if (it % 2) {
          MPI_Request q;
          MPI_Iallgather(s.data(), 1, t, r.data(), 1, t, comms[k], &q);
          MPI_Wait(&q, MPI_STATUS_IGNORE);
        } else {
          MPI_Allgather(s.data(), 1, t, r.data(), 1, t, comms[k]);
        }
        PMPI_Allgather(s.data(), 1, t, r2.data(), 1, t, comms[k]);
        if (r != r2) ++bad;
      }
    });
  for (auto &x : th) x.join();
  EXPECT_MSG(bad == 0, "threads: %d results differ from the system's", bad.load());
  MPI_Type_free(&t);
  for (auto &c : comms) MPI_Comm_free(&c);
}

}  // namespace

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (!dropin_active()) {
    if (g_rank == 0) std::printf("FAIL: the drop-in is not in front of the system MPI\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int b : {1, 3, 16, 200}) transpose(b, false, false);
  transpose(24, true, false);
  transpose(24, false, true);
  for (bool periodic : {true, false})
    for (bool nb : {false, true}) halo(periodic, nb);
  contiguous_passes();
  bottom();
  zero_counts();
  intercomm();
  outstanding();
  errors();
  threads(provided);
  int f = failures(), all = 0;
  MPI_Allreduce(&f, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  failures() = all;
  return g_rank == 0 ? finish("loom_coll_patterns") : (MPI_Finalize(), all ? 1 : 0);
}
