// Point-to-point trials: one message from a sender type to a receiver type
// of another shape, through the path under test, then the same message by
// the system alone (PMPI_Send/PMPI_Recv of the same types) as the second
// oracle.
#include <memory>

#include "sig_trial.hpp"

namespace sigtest {

namespace {

enum SendCall { S_SEND, S_ISEND, S_SSEND, S_INIT, S_SENDRECV, kSendCalls };
enum RecvCall { R_RECV, R_IRECV, R_INIT, R_MRECV, R_SENDRECV, kRecvCalls };
const char *const kSendName[] = {"Send", "Isend+Wait", "Ssend", "Send_init+Start+Wait",
                                 "Sendrecv"};
const char *const kRecvName[] = {"Recv", "Irecv+Wait", "Recv_init+Start+Wait",
                                 "Mprobe+Mrecv", "Sendrecv"};

constexpr int kTag = 11, kBackTag = 12, kRefTag = 13;

int send(const P2p &f, SendCall c, const void *buf, int n, MPI_Datatype T, int to,
         MPI_Comm comm) {
  MPI_Request q = MPI_REQUEST_NULL;
  int rc;
  switch (c) {
    case S_SEND: return f.send(buf, n, T, to, kTag, comm);
    case S_ISEND:
      rc = f.isend(buf, n, T, to, kTag, comm, &q);
      return rc != MPI_SUCCESS ? rc : f.wait(&q, MPI_STATUS_IGNORE);
    case S_SSEND: return f.ssend(buf, n, T, to, kTag, comm);
    case S_INIT: {
      rc = f.send_init(buf, n, T, to, kTag, comm, &q);
      if (rc != MPI_SUCCESS) return rc;
      rc = f.start(&q);
      if (rc == MPI_SUCCESS) rc = f.wait(&q, MPI_STATUS_IGNORE);
      const int rf = f.request_free(&q);
      return rc != MPI_SUCCESS ? rc : rf;
    }
    default: {
      char none;
      return f.sendrecv(buf, n, T, to, kTag, &none, 0, MPI_BYTE, to, kBackTag, comm,
                        MPI_STATUS_IGNORE);
    }
  }
}

int recv(const P2p &f, RecvCall c, void *buf, int n, MPI_Datatype T, int from,
         MPI_Comm comm, MPI_Status *st) {
  MPI_Request q = MPI_REQUEST_NULL;
  int rc;
  switch (c) {
    case R_RECV: return f.recv(buf, n, T, from, kTag, comm, st);
    case R_IRECV:
      rc = f.irecv(buf, n, T, from, kTag, comm, &q);
      return rc != MPI_SUCCESS ? rc : f.wait(&q, st);
    case R_INIT: {
      rc = f.recv_init(buf, n, T, from, kTag, comm, &q);
      if (rc != MPI_SUCCESS) return rc;
      rc = f.start(&q);
      if (rc == MPI_SUCCESS) rc = f.wait(&q, st);
      const int rf = f.request_free(&q);
      return rc != MPI_SUCCESS ? rc : rf;
    }
    case R_MRECV: {
      MPI_Message m;
      MPI_Status probe;
      rc = f.mprobe(from, kTag, comm, &m, &probe);
      return rc != MPI_SUCCESS ? rc : f.mrecv(buf, n, T, &m, st);
    }
    default: {
      char none = 0;
      return f.sendrecv(&none, 0, MPI_BYTE, from, kBackTag, buf, n, T, from, kTag, comm, st);
    }
  }
}

std::string context(const Trial &t, SendCall sc, RecvCall rc, int from, int to,
                    const Side &s, const Side *r, Fit fit) {
  std::string c = "p2p " + std::string(kSendName[sc]) + " -> " + kRecvName[rc] + ", rank " +
                  std::to_string(from) + " -> " + std::to_string(to) + ", " + t.where() +
                  "\n    send " + s.desc();
  if (r) c += "\n    recv " + r->desc();
  return c + "\n    message " + describe_message(s) + "; " + fit_name(fit);
}

// The receiving side: the path under test, then the system's receive of
// the reference copy; every comparison.
void receiver(Trial &t, const Side &S, const Side &R, RecvCall rcall, int from,
              size_t phase, bool oracle, Report &rep) {
  const P2p &f = t.p2p();
  Buf dst(R.span(), phase);
  keyed_fill(dst, t.key(2));
  const std::vector<unsigned char> prefill = dst.bytes();
  MPI_Status st;
  const int rc = recv(f, rcall, dst.origin(), (int)R.count, R.T, from, t.comm, &st);
  // The system alone receives the copy PMPI_Send sent.
  std::unique_ptr<Buf> sys;
  MPI_Status sst;
  int64_t sys_err = 0;
  if (oracle) {
    sys = std::make_unique<Buf>(R.span(), phase);
    keyed_fill(*sys, t.key(2));
    sys_err = err_class(PMPI_Recv(sys->origin(), (int)R.count, R.T, from, kRefTag, t.comm, &sst));
  }
  const int64_t *sysp = sys ? &sys_err : nullptr;
  const Expected e = expect(S.bytes(), R);
  rep.value("error class", e.err, err_class(rc), sysp);
  if (!dst.g.guard_error().empty()) rep.fail(dst.g.guard_error());
  std::vector<unsigned char> want = prefill;
  std::vector<bool> skip(want.size(), false);
  const int64_t at = -dst.lo;
  if (e.err == MPI_SUCCESS) {
    unpack_at(&want, at, R, keyed_stream(S.L, S.count, t.key(1)), e.bytes);
    mark_undefined(&skip, at, R);
  } else {
    mark_covered(&skip, at, R);  // undefined there; nothing else may change
  }
  std::vector<unsigned char> sys_bytes;
  if (sys) sys_bytes = sys->bytes();
  rep.bytes(e.err == MPI_SUCCESS ? "receive buffer" : "bytes outside the truncated receive",
            want, dst.bytes(), sys ? &sys_bytes : nullptr, skip, dst.lo);
  if (e.err != MPI_SUCCESS || err_class(rc) != MPI_SUCCESS) return;
  auto both = [&](const char *what, int64_t want_v, int64_t got, int64_t sysv) {
    rep.value(what, want_v, got, sys ? &sysv : nullptr);
  };
  both("status MPI_SOURCE", from, st.MPI_SOURCE, sys ? sst.MPI_SOURCE : 0);
  int n = -9, sn = -9;
  f.get_count(&st, MPI_BYTE, &n);
  if (sys) PMPI_Get_count(&sst, MPI_BYTE, &sn);
  both("bytes received", e.bytes, n, sn);
  f.get_count(&st, R.T, &n);
  if (sys) PMPI_Get_count(&sst, R.T, &sn);
  both("MPI_Get_count", e.count, n, sn);
  // MPICH 4.0.2's MPI_Get_elements crashes on its own statuses for some
  // derived types (tests/comm/comm_test.hpp, elements_ok): there the
  // system is never asked, and the drop-in (which answers whole instances
  // itself and asks the system otherwise) only for whole instances.
  MPI_Count x = -9, sx = -9;
  if (!is_mpich() || (e.whole && !t.system)) {
    f.get_elements_x(&st, R.T, &x);
    const bool ask_sys = sys && !is_mpich();
    if (ask_sys) PMPI_Get_elements_x(&sst, R.T, &sx);
    const int64_t sxv = sx;
    rep.value("MPI_Get_elements_x", e.elements, x, ask_sys ? &sxv : nullptr);
  }
}

}  // namespace

void run_p2p(Trial &t, const Fixed *fixed) {
  const int from = (int)(((t.index % t.size) + t.size) % t.size), to = (from + 1) % t.size;
  if (t.rank != from && t.rank != to) return;
  std::mt19937_64 &rng = t.rng;
  Fit fit = Fit::exact;
  SidePtr S;
  if (fixed) {
    S = build(fixed->send, fixed->send_count, rng());
  } else {
    const int64_t target = draw_bytes(rng, 384 << 10);
    fit = draw_fit(rng);
    S = draw_sender(rng, target);
  }
  if (!S) return;  // the same on both ranks
  if (fit == Fit::empty) S->count = 0;
  if (system_unsafe(*S)) {
    ++tally().unsafe;
    if (t.system) return;
  }
  const bool oracle = !t.system && !system_unsafe(*S);
  SendCall sc = fixed ? S_SEND : (SendCall)(rng() % kSendCalls);
  RecvCall rcall = fixed ? R_RECV : (RecvCall)(rng() % kRecvCalls);
  if (sc == S_SENDRECV || rcall == R_SENDRECV) {
    sc = S_SENDRECV;
    rcall = R_SENDRECV;
  }
  const uint64_t rseed = rng();
  const size_t phase_s = rng() % 64, phase_r = rng() % 64;

  if (t.rank == from) {
    Report rep(context(t, sc, rcall, from, to, *S, nullptr, fit), t.system);
    Buf src(S->span(), phase_s);
    keyed_fill(src, t.key(1));
    const std::vector<unsigned char> before = src.bytes();
    const int rc = send(t.p2p(), sc, src.origin(), (int)S->count, S->T, to, t.comm);
    if (rc != MPI_SUCCESS) rep.fail("send: error class " + std::to_string(err_class(rc)));
    if (src.bytes() != before) rep.fail("the send modified its buffer");
    if (oracle) PMPI_Send(src.origin(), (int)S->count, S->T, to, kRefTag, t.comm);
    return;
  }
  std::mt19937_64 rrng(rseed);
  SidePtr R = fixed ? build(fixed->recv, fixed->recv_count, rseed) : draw_receiver(rrng, *S, fit);
  Report rep(context(t, sc, rcall, from, to, *S, R.get(), fit), t.system);
  if (R) {
    rep.known_system_defect(system_defect(*S, *R));
    receiver(t, *S, *R, rcall, from, phase_r, oracle, rep);
    return;
  }
  // No receiver could be built: take the messages as bytes.
  rep.fail("no receive type could be built for this signature");
  std::vector<unsigned char> sink((size_t)S->bytes() + 1);
  MPI_Status st;
  recv(t.p2p(), rcall, sink.data(), (int)S->bytes(), MPI_BYTE, from, t.comm, &st);
  if (oracle) PMPI_Recv(sink.data(), (int)S->bytes(), MPI_BYTE, from, kRefTag, t.comm, &st);
}

}  // namespace sigtest
