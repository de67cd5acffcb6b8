// Collective trials: MPI_Bcast from every root with a receive type of its
// own shape on every rank, and MPI_Alltoallw with a sender/receiver pair
// of its own per (source, destination).  The same collective by the
// system alone (PMPI_*, same types, identical buffers) is the second
// oracle; the first is the reference, per block.
#include <memory>

#include "sig_trial.hpp"

namespace sigtest {

namespace {

using colltest::Fns;
using colltest::Path;
using Bytes = std::vector<unsigned char>;

Path draw_path(Trial &t, bool blocking) {
  Path p;
  p.loom = !t.system;
  p.nonblocking = !blocking && t.rng() % 10 < 3;
  p.completion = (int)(t.rng() % 9);
  return p;
}

Path system_path(Path p) {
  p.loom = false;
  return p;
}

// True when ok holds on every rank (a rank without its types makes all
// skip the call together).
bool everywhere(MPI_Comm comm, bool ok) {
  int v = ok, m = 0;
  PMPI_Allreduce(&v, &m, 1, MPI_INT, MPI_MIN, comm);
  return m != 0;
}

Bytes slice(const Bytes &v, int64_t a, int64_t b) {
  return Bytes(v.begin() + a, v.begin() + b);
}

}  // namespace

void run_bcast(Trial &t, const Fixed *fixed) {
  std::mt19937_64 &rng = t.rng;
  SidePtr S = fixed ? build(fixed->send, fixed->send_count, rng())
                    : draw_sender(rng, draw_bytes(rng, 384 << 10));
  const Path path = draw_path(t, fixed != nullptr);
  const uint64_t rseed = rng();
  const size_t phase = rng() % 64;
  SidePtr R;
  if (S) {
    std::mt19937_64 rrng(t.key(3, (uint64_t)t.rank, rseed));
    R = fixed ? build(fixed->recv, fixed->recv_count, rseed) : draw_receiver(rrng, *S, Fit::exact);
  }
  if (S && !R) Report("bcast, " + t.where(), t.system).fail("no receive type could be built");
  if (!everywhere(t.comm, S && R)) return;
  if (system_unsafe(*S)) {
    ++tally().unsafe;
    if (t.system) return;
  }
  const bool oracle = !t.system && !system_unsafe(*S);
  for (int root = 0; root < t.size; ++root) {
    const bool at_root = t.rank == root;
    const Side &mine = at_root ? *S : *R;
    const uint64_t fill = at_root ? t.key(1, (uint64_t)root) : t.key(2, (uint64_t)root, (uint64_t)t.rank);
    auto call = [&](const Path &p, Buf &b) {
      return colltest::run(
          p, [&](const Fns &f) { return f.bcast(b.origin(), (int)mine.count, mine.T, root, t.comm); },
          [&](const Fns &f, MPI_Request *q) {
            return f.ibcast(b.origin(), (int)mine.count, mine.T, root, t.comm, q);
          });
    };
    Report rep("bcast [" + path.name() + "] root " + std::to_string(root) + ", rank " +
                   std::to_string(t.rank) + ", " + t.where() + "\n    root's type: " + S->desc() +
                   "\n    rank " + std::to_string(t.rank) + "'s type: " + mine.desc() + "\n    message " +
                   describe_message(*S),
               t.system);
    rep.known_system_defect(system_defect(*S, *R));
    Buf b(mine.span(), phase);
    keyed_fill(b, fill);
    const Bytes prefill = b.bytes();
    const int rc = call(path, b);
    std::unique_ptr<Buf> sys;
    int64_t sys_err = 0;
    Bytes sys_bytes;
    if (oracle) {
      sys = std::make_unique<Buf>(mine.span(), phase);
      keyed_fill(*sys, fill);
      sys_err = err_class(call(system_path(path), *sys));
      sys_bytes = sys->bytes();
    }
    rep.value("error class", MPI_SUCCESS, err_class(rc), sys ? &sys_err : nullptr);
    if (!b.g.guard_error().empty()) rep.fail(b.g.guard_error());
    Bytes want = prefill;
    std::vector<bool> skip(want.size(), false);
    if (!at_root) {
      unpack_at(&want, -b.lo, *R, keyed_stream(S->L, S->count, t.key(1, (uint64_t)root)),
                S->bytes());
      mark_undefined(&skip, -b.lo, *R);
    }
    rep.bytes(at_root ? "root buffer" : "receive buffer", want, b.bytes(),
              sys ? &sys_bytes : nullptr, skip, b.lo);
  }
}

namespace {

// The pair (i -> j): its sender and, where wanted, its receiver, drawn
// from the pair's own stream (ranks i and j draw the same sender).  One
// pair in ten is empty (count 0 on both sides).
struct PairSides {
  SidePtr send, recv;
};

PairSides pair_sides(const Trial &t, int i, int j, bool with_recv) {
  std::mt19937_64 r(t.key(4, (uint64_t)i, (uint64_t)j));
  PairSides p;
  const int64_t target = draw_bytes(r, 48 << 10);
  const bool empty = r() % 10 == 0;
  p.send = draw_sender(r, target);
  const uint64_t rseed = r();
  if (!p.send) return p;
  if (empty) p.send->count = 0;
  if (!with_recv) return p;
  std::mt19937_64 rr(rseed);
  p.recv = draw_receiver(rr, *p.send, empty ? Fit::empty : Fit::exact);
  if (p.recv && empty) p.recv->count = 0;
  return p;
}

// Block displacements (bytes) for sides of the given spans, without
// overlap, in random order with gaps; *reg gets their union.
std::vector<int64_t> blocks(const std::vector<const Side *> &sides, std::mt19937_64 &rng,
                            colltest::Region *reg,
                            std::vector<std::pair<int64_t, int64_t>> *spans) {
  for (const Side *s : sides) {
    const Span sp = s ? s->span() : Span{0, 0};
    spans->push_back({sp.lo, sp.hi});
  }
  return colltest::layout_blocks(*spans, 1, rng, reg);
}

}  // namespace

void run_alltoallw(Trial &t) {
  const int P = t.size, me = t.rank;
  Path path = draw_path(t, false);
  const size_t phase = t.rng() % 64;
  std::vector<PairSides> out, in;  // out[j]: me -> j; in[i]: i -> me
  for (int j = 0; j < P; ++j) out.push_back(pair_sides(t, me, j, false));
  for (int i = 0; i < P; ++i) in.push_back(pair_sides(t, i, me, true));
  bool ok = true;
  for (int i = 0; i < P; ++i) ok &= !in[(size_t)i].send || in[(size_t)i].recv;
  if (!ok) Report("alltoallw, " + t.where(), t.system).fail("no receive type could be built");
  if (!everywhere(t.comm, ok)) return;
  // Open MPI 4.1.4's MPI_Ialltoallw mishandles types of negative extent.
  // A receive type: every byte lands wrong and, past the eager limit, the
  // sender never completes (PMPI_Ialltoallw, 3 ranks, all counts 0 but
  // 1224 MPI_DOUBLE from rank 0 into resized(MPI_DOUBLE,0,-8) on rank 2).
  // A send type: the receiver never completes (16 x resized(MPI_DOUBLE,0,
  // -8) from rank 0 into 16 MPI_DOUBLE on rank 2).  Its blocking
  // MPI_Alltoallw moves them right: that is the system's call then.
  bool negative = false;
  for (const PairSides &p : in) negative |= p.recv && p.recv->L.extent() < 0;
  for (const PairSides &p : out) negative |= p.send && p.send->L.extent() < 0;
  bool unsafe = false;
  for (const PairSides &p : in) unsafe |= p.send && system_unsafe(*p.send);
  for (const PairSides &p : out) unsafe |= p.send && system_unsafe(*p.send);
  unsafe = !everywhere(t.comm, !unsafe);
  if (unsafe) {
    ++tally().unsafe;
    if (t.system) return;
  }
  Path sys_path = system_path(path);
  if (!is_mpich() && !everywhere(t.comm, !negative)) {
    sys_path.nonblocking = false;
    if (t.system) path.nonblocking = false;
  }

  // A missing sender (none drawn) is count 0 of MPI_BYTE on both ends.
  std::vector<const Side *> ss, rs;
  for (int k = 0; k < P; ++k) {
    ss.push_back(out[(size_t)k].send.get());
    rs.push_back(in[(size_t)k].recv.get());
  }
  std::mt19937_64 lay(t.key(5, (uint64_t)me));
  colltest::Region sreg, rreg;
  std::vector<std::pair<int64_t, int64_t>> sspan, rspan;
  const std::vector<int64_t> sd = blocks(ss, lay, &sreg, &sspan);
  const std::vector<int64_t> rd = blocks(rs, lay, &rreg, &rspan);
  std::vector<int> sc(P), sdi(P), rc(P), rdi(P);
  std::vector<MPI_Datatype> st(P), rt(P);
  for (int k = 0; k < P; ++k) {
    const size_t u = (size_t)k;
    sc[u] = ss[u] ? (int)ss[u]->count : 0;
    st[u] = ss[u] ? ss[u]->T : MPI_BYTE;
    sdi[u] = (int)sd[u];
    rc[u] = rs[u] ? (int)rs[u]->count : 0;
    rt[u] = rs[u] ? rs[u]->T : MPI_BYTE;
    rdi[u] = (int)rd[u];
  }
  // Send blocks hold the keyed bytes the receivers recompute.
  auto fill_send = [&](Buf &b) {
    keyed_fill(b, t.key(6, (uint64_t)me));
    for (int j = 0; j < P; ++j)
      for (int64_t x = sspan[(size_t)j].first; ss[(size_t)j] && x < sspan[(size_t)j].second; ++x)
        b.origin()[sd[(size_t)j] + x] = keyed(t.key(1, (uint64_t)me, (uint64_t)j), x);
  };
  const Span sreg_span{sreg.lo - 64, sreg.hi + 64}, rreg_span{rreg.lo - 64, rreg.hi + 64};
  auto call = [&](const Path &p, Buf &s, Buf &r) {
    return colltest::run(
        p,
        [&](const Fns &f) {
          return f.alltoallw(s.origin(), sc.data(), sdi.data(), st.data(), r.origin(), rc.data(),
                             rdi.data(), rt.data(), t.comm);
        },
        [&](const Fns &f, MPI_Request *q) {
          return f.ialltoallw(s.origin(), sc.data(), sdi.data(), st.data(), r.origin(),
                              rc.data(), rdi.data(), rt.data(), t.comm, q);
        });
  };
  // A report per block (its pair's types), then one for the rest that
  // names every block received here (made last, so that a crash report
  // names them all).
  std::vector<std::unique_ptr<Report>> per_block(P);
  std::string blocks_here, defect;
  for (int i = 0; i < P; ++i) {
    const Side *S = in[(size_t)i].send.get(), *R = rs[(size_t)i];
    if (!S) continue;
    const std::string detail = "\n    from rank " + std::to_string(i) + ": send " + S->desc() +
                               "\n      recv " + R->desc();
    blocks_here += detail;
    per_block[(size_t)i] = std::make_unique<Report>(
        "alltoallw [" + path.name() + "] rank " + std::to_string(i) + " -> " +
            std::to_string(me) + ", " + t.where() + "\n    send " + S->desc() + "\n    recv " +
            R->desc() + "\n    message " + describe_message(*S),
        t.system);
    per_block[(size_t)i]->known_system_defect(system_defect(*S, *R));
    if (defect.empty()) defect = system_defect(*S, *R);
  }
  Report whole("alltoallw [" + path.name() + "] rank " + std::to_string(me) + ", " + t.where() +
                   blocks_here,
               t.system);
  whole.known_system_defect(defect);
  Buf sb(sreg_span, phase), rb(rreg_span, (phase * 7) % 64);
  fill_send(sb);
  keyed_fill(rb, t.key(2, (uint64_t)me));
  const Bytes before = sb.bytes(), prefill = rb.bytes();
  const int err = call(path, sb, rb);
  std::unique_ptr<Buf> sys_s, sys_r;
  int64_t sys_err = 0;
  Bytes sys_bytes;
  if (!t.system && !unsafe) {
    sys_s = std::make_unique<Buf>(sreg_span, phase);
    sys_r = std::make_unique<Buf>(rreg_span, (phase * 7) % 64);
    fill_send(*sys_s);
    keyed_fill(*sys_r, t.key(2, (uint64_t)me));
    sys_err = err_class(call(sys_path, *sys_s, *sys_r));
    sys_bytes = sys_r->bytes();
  }
  const Bytes got = rb.bytes();
  whole.value("error class", MPI_SUCCESS, err_class(err), sys_s ? &sys_err : nullptr);
  if (sb.bytes() != before) whole.fail("the send buffer changed");
  if (!sb.g.guard_error().empty()) whole.fail("send buffer: " + sb.g.guard_error());
  if (!rb.g.guard_error().empty()) whole.fail("receive buffer: " + rb.g.guard_error());

  Bytes want = prefill;
  std::vector<bool> skip(want.size(), false), outside(want.size(), false);
  for (int i = 0; i < P; ++i) {
    const size_t u = (size_t)i;
    const Side *S = in[u].send.get(), *R = rs[u];
    if (!S) continue;
    const int64_t at = rd[u] - rb.lo;
    unpack_at(&want, at, *R, keyed_stream(S->L, S->count, t.key(1, (uint64_t)i, (uint64_t)me)),
              S->bytes());
    mark_undefined(&skip, at, *R);
  }
  // Each block on its own (with its pair's types), then the rest.
  for (int i = 0; i < P; ++i) {
    const size_t u = (size_t)i;
    if (!per_block[u]) continue;
    const int64_t a = rd[u] + rspan[u].first - rb.lo, b = rd[u] + rspan[u].second - rb.lo;
    for (int64_t x = a; x < b; ++x) outside[(size_t)x] = true;
    Report &rep = *per_block[u];
    const std::vector<bool> bskip(skip.begin() + a, skip.begin() + b);
    const Bytes sblock = sys_r ? slice(sys_bytes, a, b) : Bytes();
    rep.bytes("block from rank " + std::to_string(i), slice(want, a, b), slice(got, a, b),
              sys_r ? &sblock : nullptr, bskip, a + rb.lo - rd[u]);
  }
  for (size_t x = 0; x < skip.size(); ++x) outside[x] = outside[x] || skip[x];
  whole.bytes("receive buffer between the blocks", want, got, sys_r ? &sys_bytes : nullptr,
              outside, rb.lo);
}

}  // namespace sigtest
