#include "coll_bench.h"

#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_json.h"
#include "harness.h"
#include "p2p_harness.h"
#include "p2p_report.h"
#include "report.h"

namespace loom_bench {

namespace {

// ------------------------------------------------------------ block cases
// What the cases of per-peer blocks share: the contenders around one typed
// collective from a local layout `a` into `b`; the hand contender packing
// into `sbuf`, the same collective over contiguous bytes (wire(): `block`
// bytes per peer) into `rbuf`, and unpacking; the bound runs wire() alone.
// `bexp` and `rexp` hold what `b` and `rbuf` must hold afterwards.
class BlockCase : public CollCase {
 public:
  void run(int k) override {
    switch (k) {
      case cLoom:
        typed(false);
        break;
      case cSys:
        typed(true);
        break;
      case cHand:
        hand_pack();
        wire();
        hand_unpack();
        break;
      default:
        wire();
        break;
    }
  }

  void reset() override {
    std::memset(b_.get(), kSentinel, recv_local_);
    std::memset(rbuf_.get(), kSentinel, rbytes_);
  }

  std::string check(int k) override {
    std::string d = k == cBound ? compare(rbuf_.get(), rexp_.get(), rbytes_)
                                : compare(b_.get(), bexp_.get(), recv_local_);
    if (!guard_ok(b_.get(), recv_local_) || !guard_ok(rbuf_.get(), rbytes_))
      d += std::string(d.empty() ? "" : "; ") + "wrote past the receive buffer";
    return d;
  }

 protected:
  explicit BlockCase(MPI_Comm comm) : comm_(comm) {
    PMPI_Comm_rank(comm, &me_);
    PMPI_Comm_size(comm, &P_);
  }
  // The buffers, once block_ is known: the local layouts' bytes, and the
  // packed blocks sent and received.
  void allocate(size_t send_local, size_t recv_local, size_t sblocks, size_t rblocks) {
    recv_local_ = recv_local;
    bytes = block_ * sblocks;
    block = block_;
    rbytes_ = block_ * rblocks;
    a_ = make_buf(send_local);
    b_ = make_buf(recv_local);
    bexp_ = make_buf(recv_local);
    sbuf_ = make_buf(bytes);
    rbuf_ = make_buf(rbytes_);
    rexp_ = make_buf(rbytes_);
  }
  // Loom's collective (system: the system's, PMPI_) with the types.
  virtual void typed(bool system) = 0;
  // The collective over the packed blocks (default: Alltoall).
  virtual void wire() {
    const int blk = static_cast<int>(block_);
    PMPI_Alltoall(sbuf_.get(), blk, MPI_BYTE, rbuf_.get(), blk, MPI_BYTE, comm_);
  }
  virtual void hand_pack() = 0;
  virtual void hand_unpack() = 0;

  MPI_Comm comm_;
  int me_ = 0, P_ = 1;
  size_t block_ = 0, recv_local_ = 0, rbytes_ = 0;
  Buf a_, b_, bexp_, sbuf_, rbuf_, rexp_;
};

// ------------------------------------------------------------------ FFT2D
// N x N complex doubles (16 bytes), rows = N/P consecutive rows per rank.
// Rank p sends rank q the rows x cols block (cols = N/P) of its columns
// [q*cols, (q+1)*cols), row by row; rank q stores it transposed, so that
// afterwards each rank holds cols consecutive rows of the transposed matrix:
//   send type  resized(vector(rows, cols, N, complex), 0, cols*16)
//   recv type  contiguous(rows, resized(vector(cols, 1, N, complex), 0, 16))
//              (extent rows*16: peer p's block starts at column p*rows)
// The Alltoallw form uses vector(rows, cols, N, complex) unresized and the
// same receive type, at byte displacements p*cols*16 and p*rows*16.
class FftCase : public BlockCase {
 public:
  FftCase(MPI_Comm comm, int64_t n, bool w) : BlockCase(comm), w_(w) {
    N_ = n / P_ * P_;
    if (N_ == 0) throw TypeError("matrix smaller than the number of ranks");
    rows_ = cols_ = N_ / P_;
    block_ = static_cast<size_t>(rows_ * cols_ * 16);
    const size_t local = static_cast<size_t>(rows_ * N_ * 16);
    allocate(local, local, P_, P_);
    sizes = fmt::format("{}^2 complex doubles, {} rows per rank, {} KiB blocks",
                        N_, rows_, block_ / 1024);

    auto cplx = DualType::contiguous(2, DualType::double_());
    auto blockv = DualType::vector(rows_, cols_, N_, cplx);
    auto col16 = DualType::resized(DualType::vector(cols_, 1, N_, cplx), 0, 16);
    recv_ = DualType::contiguous(rows_, col16);
    recv_.commit();
    if (w_) {
      send_ = blockv;
    } else {
      send_ = DualType::resized(blockv, 0, cols_ * 16);
    }
    send_.commit();
    plan = "send " + plan_string(send_.loom(), 1) + "  recv " + plan_string(recv_.loom(), 1);
    for (int p = 0; p < P_; ++p) {
      ones_.push_back(1);
      sdispl_.push_back(static_cast<int>(p * cols_ * 16));
      rdispl_.push_back(static_cast<int>(p * rows_ * 16));
      stypes_.push_back(send_.mpi());
      rtypes_.push_back(recv_.mpi());
    }

    for (int64_t r = 0; r < rows_; ++r)
      for (int64_t c = 0; c < N_; ++c) elem(a_.get() + (r * N_ + c) * 16, me_ * rows_ + r, c);
    for (int64_t c = 0; c < cols_; ++c)
      for (int64_t j = 0; j < N_; ++j) elem(bexp_.get() + (c * N_ + j) * 16, j, me_ * cols_ + c);
    for (int p = 0; p < P_; ++p)
      for (int64_t r = 0; r < rows_; ++r)
        for (int64_t c = 0; c < cols_; ++c)
          elem(rexp_.get() + ((p * rows_ + r) * cols_ + c) * 16, p * rows_ + r, me_ * cols_ + c);
    hand_pack();  // what the bound sends
  }

 private:
  void typed(bool system) override {
    auto w = system ? PMPI_Alltoallw : MPI_Alltoallw;
    auto u = system ? PMPI_Alltoall : MPI_Alltoall;
    if (w_)
      w(a_.get(), ones_.data(), sdispl_.data(), stypes_.data(), b_.get(), ones_.data(),
        rdispl_.data(), rtypes_.data(), comm_);
    else
      u(a_.get(), 1, send_.mpi(), b_.get(), 1, recv_.mpi(), comm_);
  }
  static void elem(char *at, int64_t row, int64_t col) {
    const uint64_t v[2] = {mix64(uint64_t(row), uint64_t(col), 0),
                           mix64(uint64_t(row), uint64_t(col), 1)};
    std::memcpy(at, v, 16);
  }
  // Peer by peer, row by row: cols complex numbers per row.
  void hand_pack() override {
    const char *a = a_.get();
    char *s = sbuf_.get();
    const size_t run = static_cast<size_t>(cols_ * 16);
    for (int p = 0; p < P_; ++p)
      for (int64_t r = 0; r < rows_; ++r, s += run)
        std::memcpy(s, a + (r * N_ + p * cols_) * 16, run);
  }
  // Transposed stores, in the received order.
  void hand_unpack() override {
    const char *in = rbuf_.get();
    char *b = b_.get();
    for (int p = 0; p < P_; ++p)
      for (int64_t r = 0; r < rows_; ++r) {
        char *col = b + (p * rows_ + r) * 16;
        for (int64_t c = 0; c < cols_; ++c, in += 16)
          std::memcpy(col + c * N_ * 16, in, 16);
      }
  }

  bool w_;
  int64_t N_ = 0, rows_ = 0, cols_ = 0;
  DualType send_, recv_;
  std::vector<int> ones_, sdispl_, rdispl_;
  std::vector<MPI_Datatype> stypes_, rtypes_;
};

// --------------------------------------------------------------- vectors
// One vector type on both sides, blocks of `block` bytes of doubles in runs
// of `run` bytes every 2 * run (the type resized to 2 * block, blocks back
// to back), through MPI_Alltoall, MPI_Allgather, MPI_Gather or MPI_Bcast
// (root 0).  Element k of the block rank p sends rank q holds
// mix64(p, q, k) for Alltoall, mix64(p, 0, k) otherwise.  `loom tune`
// sweeps the Alltoall beside FFT2D: runs that staging packs at memory
// speed, where only the collective's size pays for Loom-to-Loom's extra
// synchronisation.
class VecCollCase : public BlockCase {
 public:
  VecCollCase(MPI_Comm comm, VecColl op, size_t run, size_t block)
      : BlockCase(comm), op_(op), per_run_(run / 8), runs_(block / run) {
    if (per_run_ == 0 || runs_ == 0) throw TypeError("block smaller than a run of doubles");
    block_ = runs_ * per_run_ * 8;
    const size_t ns = op_ == VecColl::alltoall ? P_ : 1;
    const size_t nr = op_ == VecColl::bcast ? 1 : P_;
    allocate(2 * block_ * ns, 2 * block_ * nr, ns, nr);
    sizes = fmt::format("{} B runs every {} B, {} KiB blocks", per_run_ * 8, per_run_ * 16,
                        block_ / 1024);
    type_ = DualType::resized(DualType::vector(runs_, per_run_, 2 * per_run_, DualType::double_()),
                              0, 2 * block_);
    type_.commit();
    plan = plan_string(type_.loom(), 1);
    std::memset(bexp_.get(), kSentinel, recv_local_);
    std::memset(rexp_.get(), kSentinel, rbytes_);
    const size_t n = block_ / 8;
    const bool to_each = op_ == VecColl::alltoall;
    for (size_t q = 0; q < ns; ++q)
      for (size_t k = 0; k < n; ++k)
        put(a_.get() + at(q, k), mix64(uint64_t(me_), to_each ? q : 0, k));
    for (size_t i = 0; i < nr; ++i) {
      if (!receives()) break;
      const uint64_t from = op_ == VecColl::bcast ? 0 : i;
      for (size_t k = 0; k < n; ++k) {
        const uint64_t v = mix64(from, to_each ? uint64_t(me_) : 0, k);
        put(bexp_.get() + at(i, k), v);
        put(rexp_.get() + (i * n + k) * 8, v);
      }
    }
    hand_pack();  // what the bound sends
  }

 private:
  // Whether this rank receives anything (Gather: the root; Bcast: the others).
  bool receives() const {
    return op_ == VecColl::gather ? me_ == 0 : op_ == VecColl::bcast ? me_ != 0 : true;
  }
  void typed(bool system) override {
    MPI_Datatype t = type_.mpi();
    switch (op_) {
      case VecColl::alltoall:
        (system ? PMPI_Alltoall : MPI_Alltoall)(a_.get(), 1, t, b_.get(), 1, t, comm_);
        break;
      case VecColl::allgather:
        (system ? PMPI_Allgather : MPI_Allgather)(a_.get(), 1, t, b_.get(), 1, t, comm_);
        break;
      case VecColl::gather:
        (system ? PMPI_Gather : MPI_Gather)(a_.get(), 1, t, b_.get(), 1, t, 0, comm_);
        break;
      case VecColl::bcast:
        (system ? PMPI_Bcast : MPI_Bcast)(me_ == 0 ? a_.get() : b_.get(), 1, t, 0, comm_);
        break;
    }
  }
  void wire() override {
    const int blk = static_cast<int>(block_);
    char *s = sbuf_.get(), *r = rbuf_.get();
    switch (op_) {
      case VecColl::alltoall:
        BlockCase::wire();
        break;
      case VecColl::allgather:
        PMPI_Allgather(s, blk, MPI_BYTE, r, blk, MPI_BYTE, comm_);
        break;
      case VecColl::gather:
        PMPI_Gather(s, blk, MPI_BYTE, r, blk, MPI_BYTE, 0, comm_);
        break;
      case VecColl::bcast:
        PMPI_Bcast(me_ == 0 ? s : r, blk, MPI_BYTE, 0, comm_);
        break;
    }
  }
  static void put(char *p, uint64_t v) { std::memcpy(p, &v, 8); }
  // Byte offset of element k of local block q.
  size_t at(size_t q, size_t k) const {
    return q * 2 * block_ + (k / per_run_) * per_run_ * 16 + (k % per_run_) * 8;
  }
  void hand_pack() override {
    char *s = sbuf_.get();
    const size_t run = per_run_ * 8, blocks = bytes / block_;
    for (size_t q = 0; q < blocks; ++q)
      for (size_t r = 0; r < runs_; ++r, s += run)
        std::memcpy(s, a_.get() + at(q, r * per_run_), run);
  }
  void hand_unpack() override {
    if (!receives()) return;
    const char *in = rbuf_.get();
    const size_t run = per_run_ * 8, blocks = rbytes_ / block_;
    for (size_t q = 0; q < blocks; ++q)
      for (size_t r = 0; r < runs_; ++r, in += run)
        std::memcpy(b_.get() + at(q, r * per_run_), in, run);
  }

  VecColl op_;
  size_t per_run_, runs_;
  DualType type_;
};

// ------------------------------------------------------------------- halo
// A 3D stencil's ghost-face exchange: u[x][y][z], (n+2)^3 doubles (C
// order), interior 1..n, on a cartesian communicator with all ranks along
// one dimension (periodic when that dimension has 3 or more ranks; with 2,
// a periodic grid would make both neighbours the same rank and the face
// order ambiguous).  Neighbour 2d is the one below in dimension d, 2d+1 the
// one above (MPI_Cart_shift order, as MPI_Neighbor_alltoallw uses); faces
// are n x n subarrays: send at d = 1 (below) / n (above), receive into the
// ghost layer d = 0 / n+1.
class HaloCase : public CollCase {
 public:
  HaloCase(MPI_Comm comm, int64_t n, int split, loom_bounds_rule)
      : n_(n), split_(split) {
    int P = 1;
    PMPI_Comm_size(comm, &P);
    int dims[3] = {1, 1, 1}, periods[3] = {0, 0, 0};
    dims[split] = P;
    periods[split] = P >= 3;
    MPI_Cart_create(comm, 3, dims, periods, 0, &cart_);
    PMPI_Comm_rank(cart_, &me_);
    for (int d = 0; d < 3; ++d) MPI_Cart_shift(cart_, d, 1, &nb_[2 * d], &nb_[2 * d + 1]);

    const int64_t m = n + 2;
    total_ = static_cast<size_t>(m * m * m * 8);
    face_ = static_cast<size_t>(n * n * 8);
    const DualType dbl = DualType::double_();
    int active = 0;
    for (int k = 0; k < 6; ++k) {
      const int d = k / 2;
      std::vector<int64_t> sub{n, n, n}, ss{1, 1, 1}, rs{1, 1, 1};
      sub[d] = 1;
      ss[d] = send_at(k);
      rs[d] = recv_at(k);
      auto st = DualType::subarray({m, m, m}, sub, ss, LOOM_ORDER_C, dbl);
      auto rt = DualType::subarray({m, m, m}, sub, rs, LOOM_ORDER_C, dbl);
      st.commit();
      rt.commit();
      smt_[k] = st.mpi();
      rmt_[k] = rt.mpi();
      types_.push_back(st);
      types_.push_back(rt);
      if (nb_[k] != MPI_PROC_NULL) {
        ++active;
        if (plan.empty()) plan = plan_string(st.loom(), 1);
      }
    }
    bytes = face_ * static_cast<size_t>(active);
    block = face_;
    static const char dn[] = "xyz";
    sizes = fmt::format(
        "({})^3 doubles, ranks along {}, {} face(s) of {}x{} {} per rank", m, dn[split],
        active, n, n,
        split == 2 ? "single doubles" : fmt::format("({} runs of {} doubles)", n, n));

    u0_ = make_buf(total_);
    u_ = make_buf(total_);
    uexp_ = make_buf(total_);
    sbuf_ = make_buf(face_ * 6);
    rbuf_ = make_buf(face_ * 6);
    rexp_ = make_buf(face_ * 6);
    std::memset(u0_.get(), kSentinel, total_);
    double *u0 = reinterpret_cast<double *>(u0_.get());
    for (int64_t x = 1; x <= n; ++x)
      for (int64_t y = 1; y <= n; ++y)
        for (int64_t z = 1; z <= n; ++z) u0[idx(x, y, z)] = value(me_, x, y, z);
    // The ghost faces hold the neighbours' boundary faces.
    std::memcpy(uexp_.get(), u0_.get(), total_);
    std::memset(rexp_.get(), kSentinel, face_ * 6);
    double *ue = reinterpret_cast<double *>(uexp_.get());
    for (int k = 0; k < 6; ++k) {
      if (nb_[k] == MPI_PROC_NULL) continue;
      const int d = k / 2;
      for (int64_t i = 1; i <= n; ++i)
        for (int64_t j = 1; j <= n; ++j) {
          int64_t at[3], from[3];
          const int64_t other[2] = {i, j};
          for (int e = 0, o = 0; e < 3; ++e) {
            at[e] = from[e] = e == d ? 0 : other[o++];
          }
          at[d] = recv_at(k);
          from[d] = k % 2 == 0 ? n : 1;  // the neighbour's face next to us
          ue[idx(at[0], at[1], at[2])] = value(nb_[k], from[0], from[1], from[2]);
        }
      face_copy<true>(uexp_.get(), k, recv_at(k), rexp_.get() + k * face_);
    }
    std::memcpy(u_.get(), u0_.get(), total_);
    for (int k = 0; k < 6; ++k)  // what the bound sends
      if (nb_[k] != MPI_PROC_NULL) face_copy<true>(u_.get(), k, send_at(k), sbuf_.get() + k * face_);
  }

  ~HaloCase() override {
    types_.clear();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && cart_ != MPI_COMM_NULL) MPI_Comm_free(&cart_);
  }

  void run(int k) override {
    const int nn = static_cast<int>(n_ * n_);
    switch (k) {
      case cLoom:
        MPI_Neighbor_alltoallw(u_.get(), ones_, zeros_, smt_, u_.get(), ones_, zeros_, rmt_,
                               cart_);
        break;
      case cSys:
        PMPI_Neighbor_alltoallw(u_.get(), ones_, zeros_, smt_, u_.get(), ones_, zeros_, rmt_,
                                cart_);
        break;
      case cHand:
        for (int f = 0; f < 6; ++f)
          if (nb_[f] != MPI_PROC_NULL)
            face_copy<true>(u_.get(), f, send_at(f), sbuf_.get() + f * face_);
        PMPI_Neighbor_alltoall(sbuf_.get(), nn, MPI_DOUBLE, rbuf_.get(), nn, MPI_DOUBLE, cart_);
        for (int f = 0; f < 6; ++f)
          if (nb_[f] != MPI_PROC_NULL)
            face_copy<false>(u_.get(), f, recv_at(f), rbuf_.get() + f * face_);
        break;
      default:
        PMPI_Neighbor_alltoall(sbuf_.get(), nn, MPI_DOUBLE, rbuf_.get(), nn, MPI_DOUBLE, cart_);
        break;
    }
  }

  void reset() override {
    std::memcpy(u_.get(), u0_.get(), total_);
    std::memset(rbuf_.get(), kSentinel, face_ * 6);
  }

  std::string check(int k) override {
    std::string d;
    if (k == cBound) {
      for (int f = 0; f < 6 && d.empty(); ++f)
        if (nb_[f] != MPI_PROC_NULL)
          d = compare(rbuf_.get() + f * face_, rexp_.get() + f * face_, face_);
    } else {
      d = compare(u_.get(), uexp_.get(), total_);
    }
    if (!guard_ok(u_.get(), total_) || !guard_ok(rbuf_.get(), face_ * 6))
      d += std::string(d.empty() ? "" : "; ") + "wrote past the receive buffer";
    return d;
  }

 private:
  int64_t idx(int64_t x, int64_t y, int64_t z) const { return (x * (n_ + 2) + y) * (n_ + 2) + z; }
  int64_t send_at(int k) const { return k % 2 == 0 ? 1 : n_; }
  int64_t recv_at(int k) const { return k % 2 == 0 ? 0 : n_ + 1; }
  static double value(int rank, int64_t x, int64_t y, int64_t z) {
    const uint64_t v = mix64(uint64_t(rank), uint64_t(x), uint64_t(y), uint64_t(z));
    double out;
    std::memcpy(&out, &v, 8);
    return out;
  }
  // Face k/2 at coordinate `at` <-> n*n packed doubles, in C order (the
  // subarray's typemap order): runs of n doubles along z for x and y
  // faces, single doubles for z faces.
  template <bool kPack>
  void face_copy(char *arr, int k, int64_t at, char *packed) const {
    const int d = k / 2;
    const int64_t n = n_;
    const size_t run = static_cast<size_t>(n * 8);
    if (d == 2) {
      uint64_t *a = reinterpret_cast<uint64_t *>(arr);
      uint64_t *p = reinterpret_cast<uint64_t *>(packed);
      for (int64_t x = 1; x <= n; ++x) {
        const int64_t row = idx(x, 1, at);
        for (int64_t y = 0; y < n; ++y, ++p) {
          if (kPack)
            *p = a[row + y * (n + 2)];
          else
            a[row + y * (n + 2)] = *p;
        }
      }
      return;
    }
    for (int64_t i = 1; i <= n; ++i, packed += run) {
      char *a = arr + (d == 0 ? idx(at, i, 1) : idx(i, at, 1)) * 8;
      if (kPack)
        std::memcpy(packed, a, run);
      else
        std::memcpy(a, packed, run);
    }
  }

  int64_t n_;
  int split_;
  MPI_Comm cart_ = MPI_COMM_NULL;
  int me_ = 0;
  int nb_[6];
  size_t total_ = 0, face_ = 0;
  std::vector<DualType> types_;
  MPI_Datatype smt_[6], rmt_[6];
  int ones_[6] = {1, 1, 1, 1, 1, 1};
  MPI_Aint zeros_[6] = {0, 0, 0, 0, 0, 0};
  Buf u0_, u_, uexp_, sbuf_, rbuf_, rexp_;
};

void run_coll_case(const CollDef &def, const CommTiming &opt, bool use_min, bool loom_only,
                   MPI_Comm comm, CommRow &row) {
  row.name = def.name;
  row.group = def.group;
  std::unique_ptr<CollCase> cc;
  std::string err;
  try {
    cc = def.make(comm, native_bounds_rule());
  } catch (const std::exception &e) {
    err = e.what();
  }
  if (!all_ranks(err.empty(), comm)) {
    row.error = err.empty() ? "could not be built on another rank" : err;
    return;
  }
  row.sizes = cc->sizes;
  row.plan = cc->plan;
  row.bytes = cc->bytes;
  row.block = cc->block;
  row.moved_bytes = static_cast<double>(cc->bytes);

  std::vector<std::string> bad;
  bool ok[kCommContenders];
  for (int k = 0; k < kCommContenders; ++k) {
    cc->reset();
    cc->run(k);
    std::string d = cc->check(k);
    if (!d.empty()) bad.push_back(fmt::format("{}: {}", comm_contender_name(k), d));
    ok[k] = all_ranks(d.empty(), comm);
  }
  row.mismatches = gather_messages(bad, comm);

  CommOp ops[kCommContenders];
  std::vector<CommOp *> list;
  for (int k = 0; k < kCommContenders; ++k) {
    ops[k].enabled = ok[k] && (!loom_only || k == cLoom);
    ops[k].fn = [&cc, k] { cc->run(k); };
    list.push_back(&ops[k]);
  }
  row.rounds = time_comm_ops(list, opt, comm);
  row.set_times(ops, use_min);
}

}  // namespace

CollDef fft_case(int64_t n, bool w) {
  CollDef d;
  d.name = fmt::format("FFT2D {} {}", n, w ? "alltoallw" : "alltoall");
  d.group = "FFT2D transpose";
  d.make = [n, w](MPI_Comm comm, loom_bounds_rule) {
    return std::unique_ptr<CollCase>(new FftCase(comm, n, w));
  };
  return d;
}

CollDef vector_coll_case(VecColl op, size_t run, size_t block) {
  static const char *const names[] = {"alltoall", "allgather", "gather", "bcast"};
  CollDef d;
  d.name = std::string("vec ") + names[(int)op] + " " + size_name(run) + " " + size_name(block);
  d.group = op == VecColl::alltoall ? "vector alltoall" : "vector rooted, allgather";
  d.make = [op, run, block](MPI_Comm comm, loom_bounds_rule) {
    return std::unique_ptr<CollCase>(new VecCollCase(comm, op, run, block));
  };
  return d;
}

CollDef halo_case(int64_t n, int split) {
  CollDef d;
  d.name = fmt::format("halo {}^3 {}", n, "xyz"[split]);
  d.group = "3D halo";
  d.make = [n, split](MPI_Comm comm, loom_bounds_rule rule) {
    return std::unique_ptr<CollCase>(new HaloCase(comm, n, split, rule));
  };
  return d;
}

std::vector<CollDef> coll_cases(bool quick) {
  std::vector<CollDef> v;
  const std::vector<int64_t> ffts = quick ? std::vector<int64_t>{32} : std::vector<int64_t>{256, 1024};
  const std::vector<int64_t> halos = quick ? std::vector<int64_t>{12} : std::vector<int64_t>{64, 128};
  for (int64_t n : ffts)
    for (bool w : {false, true}) v.push_back(fft_case(n, w));
  for (int64_t n : halos)
    for (int split = 0; split < 3; ++split) v.push_back(halo_case(n, split));
  // Vectors of 64-byte runs through the rooted collectives and Allgather.
  const std::vector<size_t> blocks = quick ? std::vector<size_t>{16384}
                                           : std::vector<size_t>{262144, 1048576};
  for (VecColl op : {VecColl::bcast, VecColl::gather, VecColl::allgather})
    for (size_t b : blocks) v.push_back(vector_coll_case(op, 64, b));
  return v;
}

int bench_coll(const std::vector<CollDef> &cases, const CommBenchArgs &a,
               const RunInfo &run, std::vector<CommRow> *rows) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  CommRunInfo info;
  info.suite = "coll";
  info.tool = "loom bench coll";
  info.run = run;
  info.preload = detect_preload();
  info.ranks = size;
  info.binding = cpu_binding(MPI_COMM_WORLD);
  CommTable t;
  t.key = "coll";
  t.title = "COLLECTIVES";
  t.what = "microseconds per call (slowest rank); bytes = packed bytes one rank sends";
  CommTiming opt;
  opt.reps = a.reps;
  opt.budget_s = a.budget;
  opt.quick = a.quick;
  Progress progress(info.tool, cases.size(), a.progress, rank == 0);
  for (size_t i = 0; i < cases.size(); ++i) {
    progress.start(i, cases[i].name);
    CommRow row;
    run_coll_case(cases[i], opt, a.stat == "min", a.loom_only, MPI_COMM_WORLD, row);
    t.rows.push_back(std::move(row));
  }
  progress.finish();
  if (rows) *rows = t.rows;
  bool ok = true;
  if (rank == 0) {
    info.run.load_end = read_load_average();
    CommSummary s = summarize_comm(t);
    print_comm_header(stdout, info);
    print_comm_table(stdout, t, s, a.plans);
    print_comm_verification(stdout, {t});
    std::fflush(stdout);
    ok = s.mismatched == 0 && s.errors == 0;
    if (!write_results(a.json, a.csv, comm_json(info, {t}, {s}))) ok = false;
  }
  int okv = ok ? 1 : 0, all = 0;
  PMPI_Allreduce(&okv, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all ? 0 : 1;
}

}  // namespace loom_bench
