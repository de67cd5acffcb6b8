// Loom-to-Loom collectives (docs/protocol.md, "Collectives"): one system
// exchange in which a block between two Loom peers travels as an RDV and
// every other block as packed bytes; then every rank pulls the blocks
// announced to it straight into its receive layout, and waits until its
// own announced blocks have been pulled (a nonblocking call: all of that
// in the completion call, its own blocks finished as sends are).
#include "l2l_coll.hpp"

#include "comm_keys.hpp"
#include "errors.hpp"
#include "l2l_internal.hpp"
#include "progress.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace loom_mpi {
namespace l2l {
namespace {

// One block as Loom moves it.
struct Moving {
  Side side;         // the run (type null) or the layout
  size_t bytes = 0;  // 0: nothing to move
  bool rdv = false;  // travels as an RDV
  bool local = false;  // this rank's block to itself: copied in place
  size_t off = 0;    // in this side's wire buffer
  int64_t slot = -1; // send side: the announced slot
};

// Every rank of comm decides alike (coll_peer, the communicator's size);
// false: the old path.  At most kCollSlots ranks: a rank announces one
// block per peer, so the collectives' own slots suffice (l2l_segment.hpp;
// a neighbourhood that repeats a peer may also take point-to-point ones).
// Settled once per communicator: segments made before MPI_Init never
// appear later, and stay until MPI_Finalize.
bool all_peers(MPI_Comm comm, int size, int me) {
  const uint64_t key = comm_key(comm);
  if (!enabled() || !key || size > (int)kCollSlots) return false;
  static std::mutex mu;
  static auto *known = new std::unordered_map<uint64_t, bool>;
  {
    std::lock_guard<std::mutex> g(mu);
    auto it = known->find(key);
    if (it != known->end()) return it->second;
  }
  bool all = true;
  for (int r = 0; r < size && all; ++r)
    if (r != me && !coll_peer(world_rank(comm, r))) all = false;
  std::lock_guard<std::mutex> g(mu);
  (*known)[key] = all;
  return all;
}

// The Side of one block; false for what the system must judge.
bool block_side(const CollBlock &b, Side *s) {
  *s = Side{};
  if (b.peer == MPI_PROC_NULL || b.count == 0) return true;
  if (b.count < 0) return false;
  const void *buf = reinterpret_cast<const void *>(b.addr);
  if (classify(buf, b.count, b.type, s, Use::staged) != MPI_SUCCESS) return false;
  if (s->type) return true;
  return contiguous_run(buf, b.count, b.type, s);
}

// The rule both ends of a block apply to the same byte count.
bool big(size_t bytes) {
  return bytes >= kCollRdvBytes && bytes >= coll_min();
}

}  // namespace

bool coll_possible(MPI_Comm comm) { return enabled() && comm_key(comm) != 0; }

bool coll_block_may_fit(int count, MPI_Datatype t) {
  const Mirror *m = find(t);
  return !m || count < 0 || big((size_t)count * (size_t)m->size);
}

int alltoall_wire(CollShape shape, MPI_Comm comm, const WireArgs &a) {
  const int rdv = (int)kCollRdvBytes;
  MPI_Request *q = a.req;
  switch (shape) {
    case CollShape::uniform:
      return q ? PMPI_Ialltoall(a.sbuf, rdv, MPI_BYTE, a.rbuf, rdv, MPI_BYTE, comm, q)
               : PMPI_Alltoall(a.sbuf, rdv, MPI_BYTE, a.rbuf, rdv, MPI_BYTE, comm);
    case CollShape::v:
      return q ? PMPI_Ialltoallv(a.sbuf, a.scounts, a.sdispls, MPI_BYTE, a.rbuf, a.rcounts,
                                 a.rdispls, MPI_BYTE, comm, q)
               : PMPI_Alltoallv(a.sbuf, a.scounts, a.sdispls, MPI_BYTE, a.rbuf, a.rcounts,
                                a.rdispls, MPI_BYTE, comm);
    default:
      return q ? PMPI_Ialltoallw(a.sbuf, a.scounts, a.sdispls, a.bytes, a.rbuf, a.rcounts,
                                 a.rdispls, a.bytes, comm, q)
               : PMPI_Alltoallw(a.sbuf, a.scounts, a.sdispls, a.bytes, a.rbuf, a.rcounts,
                                a.rdispls, a.bytes, comm);
  }
}

namespace {

// One collective between Loom processes, from the decisions to the pulls;
// a nonblocking one lives in its PendingOp until completion.
struct Exchange {
  MPI_Comm comm = MPI_COMM_NULL;
  CollShape shape = CollShape::uniform;
  std::vector<Moving> S, R;
  int self_s = -1, self_r = -1;  // the pair of blocks to this rank itself
  loom::xfer::Buffer sb, rb;     // the wire
  loom::xfer::Buffer packed;     // one_source: the one packed copy
  std::vector<int> sc, sd, rc, rd;
  std::vector<MPI_Aint> sa, ra;
  std::vector<MPI_Datatype> bytes;
  bool refs = false;  // holds references to the receive sides' types
  int lrc = MPI_SUCCESS;

  ~Exchange() {
    staging_release(sb);
    staging_release(rb);
    staging_release(packed);
    if (refs)
      for (const Moving &m : R)
        if (m.side.type) loom_type_free(m.side.type);
  }

  size_t wire_len(const Moving &m) const {
    return shape == CollShape::uniform || m.rdv ? kCollRdvBytes : m.local ? 0 : m.bytes;
  }

  // The decisions (kFallback: this collective does not run here) and, past
  // the point where the other ranks take this path too, the announcements
  // and the packed blocks (MPI_SUCCESS or an error class to raise).
  int prepare(int me, const std::vector<CollBlock> &send, const std::vector<CollBlock> &recv,
              bool one_source);
  // Once the wire is under way: the streamed blocks packed (park: their
  // slots left for progress() to release) and the block to itself copied.
  void started(bool park);
  // The blocks announced to this rank pulled, the packed ones unpacked, and
  // this rank's own announced blocks finished: waited for until pulled
  // (blocking), or for at most the grace and then packed for their
  // receivers (nonblocking).  Returns Loom's outcome.
  int complete(bool blocking);
  // The wire failed as a whole: nobody got the RDVs.
  void withdraw() {
    for (Moving &m : S)
      if (m.slot >= 0) release_slot((uint32_t)m.slot), m.slot = -1;
  }
};

int Exchange::prepare(int me, const std::vector<CollBlock> &send,
                      const std::vector<CollBlock> &recv, bool one_source) {
  S.resize(send.size());
  R.resize(recv.size());
  // The one block this rank sends itself and the one it receives from
  // itself pair up (MPI's order leaves no choice): copied here, neither
  // announced nor on the wire.  Several (a periodic dimension of size 1
  // sends to itself both ways) are announced like any other block: the
  // system routes their RDVs to the right receive blocks, and the pull
  // reads this process's own memory.
  auto lone_self = [me](const std::vector<CollBlock> &v) {
    int at = -1;
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i].peer == me) {
        if (at >= 0) return -1;
        at = (int)i;
      }
    return at;
  };
  self_s = lone_self(send);
  self_r = self_s < 0 ? -1 : lone_self(recv);
  if (self_r < 0) self_s = -1;
  bool any = false;
  for (size_t i = 0; i < send.size(); ++i) {
    if (!block_side(send[i], &S[i].side)) return kFallback;
    S[i].bytes = S[i].side.bytes;
    S[i].local = (int)i == self_s;
    S[i].rdv = send[i].peer != MPI_PROC_NULL && !S[i].local && big(S[i].bytes);
    any |= S[i].rdv;
  }
  for (size_t i = 0; i < recv.size(); ++i) {
    if (!block_side(recv[i], &R[i].side)) return kFallback;
    R[i].bytes = R[i].side.bytes;
    R[i].local = (int)i == self_r;
    R[i].rdv = recv[i].peer != MPI_PROC_NULL && !R[i].local && big(R[i].bytes);
    any |= R[i].rdv;
  }
  if (shape == CollShape::uniform) {
    // One block size for all: every block is an RDV, or none is.
    for (size_t i = 0; i < send.size(); ++i)
      if (send[i].peer != MPI_PROC_NULL && !S[i].local && !S[i].rdv) return kFallback;
    for (size_t i = 0; i < recv.size(); ++i)
      if (recv[i].peer != MPI_PROC_NULL && !R[i].local && !R[i].rdv) return kFallback;
  }
  if (!any) return kFallback;
  size_t rdvs = 0;
  for (const Moving &m : S) rdvs += m.rdv;
  // On the wire: RDVs and packed blocks (uniform: RDV-sized slots for all,
  // MPI_PROC_NULL ones included, as the system lays them out).
  size_t sbytes = 0, rbytes = 0;
  for (Moving &m : S) m.off = sbytes, sbytes += wire_len(m);
  for (Moving &m : R) m.off = rbytes, rbytes += wire_len(m);
  // From here on the other ranks take this path too: no fallback, errors.
  if (sbytes > (size_t)INT32_MAX || rbytes > (size_t)INT32_MAX) return MPI_ERR_COUNT;
  sb = staging_acquire(sbytes);
  rb = staging_acquire(rbytes);
  if (!sb.data || !rb.data) return MPI_ERR_NO_MEM;
  std::memset(sb.data, 0, sbytes);
  for (size_t i = 0; i < S.size(); ++i) {
    sc.push_back((int)wire_len(S[i]));
    sd.push_back((int)S[i].off);
    sa.push_back((MPI_Aint)S[i].off);
  }
  for (size_t i = 0; i < R.size(); ++i) {
    rc.push_back((int)wire_len(R[i]));
    rd.push_back((int)R[i].off);
    ra.push_back((MPI_Aint)R[i].off);
  }
  bytes.assign(std::max(S.size(), R.size()) + 1, MPI_BYTE);

  // Announce (slots first: a receiver may pull as soon as it has the RDV),
  // pack the rest.  A slot that cannot be had is waited for: the decision
  // to send an RDV is already shared with the receiver.  The slots are held
  // by earlier sends waiting to be pulled, and their receivers may be in
  // this same wait, each holding nonblocking collectives that would pull
  // the others' blocks only at their completion: so the wait completes this
  // process's pending collectives early, as MPI_Request_get_status would
  // (1000 outstanding MPI_Ialltoallw among 3 ranks hung here before).
  const uint64_t key = comm_key(comm);
  for (size_t i = 0; i < send.size(); ++i) {
    Moving &m = S[i];
    if (!m.bytes || m.local) continue;
    if (!m.rdv) {
      int u = m.side.type ? pack_side(m.side, sb.data + m.off)
                          : (loom_copy(sb.data + m.off, m.side.base, m.bytes), MPI_SUCCESS);
      if (u != MPI_SUCCESS) lrc = u;
      continue;
    }
    Scheme scheme = Scheme::single_copy;
    if (m.side.type) {
      const Mirror *mir = find(send[i].type);
      scheme = mir ? choose_pull(*mir, m.bytes) : Scheme::pipelined;
    }
    if (one_source && scheme == Scheme::pipelined && rdvs > 1) {
      // Several receivers of one layout: pack it once, and let each read
      // the packed copy as one run.
      if (!packed.data) {
        packed = staging_acquire(m.bytes);
        if (packed.data && pack_side(m.side, packed.data) != MPI_SUCCESS)
          staging_release(packed);
      }
      if (packed.data) {
        m.side = Side{};
        m.side.base = packed.data;
        m.side.bytes = m.bytes;
        scheme = Scheme::single_copy;
      }
    }
    Rdv rdv;
    int w = world_rank(comm, send[i].peer);
    while ((m.slot = post(m.side, scheme, w, -1, key, &rdv, true)) < 0) {
      progress();
      peek_collectives();
    }
    std::memcpy(sb.data + m.off, &rdv, kCollRdvBytes);
  }
  return MPI_SUCCESS;
}

void Exchange::started(bool park) {
  for (Moving &m : S)
    if (m.slot >= 0 && streaming((uint32_t)m.slot)) {
      stream_pack((uint32_t)m.slot, park);
      if (park) m.slot = -1;  // progress() releases it once pulled
    }
  if (self_r >= 0 && S[(size_t)self_s].bytes && R[(size_t)self_r].bytes) {
    const Moving &from = S[(size_t)self_s], &to = R[(size_t)self_r];
    int u = copy_side(from.side, to.side, std::min(from.bytes, to.bytes));
    if (u == MPI_SUCCESS && from.bytes != to.bytes) u = MPI_ERR_TRUNCATE;
    if (u != MPI_SUCCESS) lrc = u;
  }
}

int Exchange::complete(bool blocking) {
  for (Moving &m : R) {
    if (!m.bytes || m.local) continue;
    const char *got = rb.data + m.off;
    if (!m.rdv) {
      int u = m.side.type ? unpack_side(m.side, got, 0, m.bytes)
                          : (loom_copy(m.side.base, got, m.bytes), MPI_SUCCESS);
      if (u != MPI_SUCCESS) lrc = u;
      continue;
    }
    Rdv r;
    std::memcpy(&r, got, sizeof r);
    Header *h = nullptr;
    Slot *s = slot_of(r, &h);
    if (s && s->bytes != m.bytes) {
      // Not the same signature at both ends (an erroneous program): free
      // the sender, report it here.
      uint32_t st = s->state.load(std::memory_order_acquire);
      if (st != kStaging) s->state.compare_exchange_strong(st, kDone);
      s = nullptr;
    }
    if (!s || pull(h, *s, m.side, m.bytes) != Moved::ok) lrc = MPI_ERR_TRUNCATE;
  }
  for (Moving &m : S) {
    if (m.slot < 0) continue;
    if (blocking) wait_pulled((uint32_t)m.slot);
    else finish((uint32_t)m.slot, send_grace());
    m.slot = -1;
  }
  return lrc;
}

// The nonblocking form's completion (PendingOp::on_data).
int coll_data(PendingOp &op, MPI_Status *) {
  return static_cast<Exchange *>(op.ctx)->complete(false);
}
void coll_free(PendingOp &op, MPI_Status *) { delete static_cast<Exchange *>(op.ctx); }

}  // namespace

int exchange(MPI_Comm comm, int size, int me, CollShape shape,
             const std::vector<CollBlock> &send, const std::vector<CollBlock> &recv,
             const CollWire &wire, bool one_source, MPI_Request *req) {
  if (!all_peers(comm, size, me)) return kFallback;
  auto ex = std::make_unique<Exchange>();
  ex->comm = comm;
  ex->shape = shape;
  int rc = ex->prepare(me, send, recv, one_source);
  if (rc == kFallback) return kFallback;
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  PendingOp *op = nullptr;
  if (req) {
    // The receive sides' types outlive the call (the program may free them).
    for (const Moving &m : ex->R)
      if (m.side.type) loom_type_ref(m.side.type);
    ex->refs = true;
    op = op_new(PendingOp::kColl, comm);
  }
  WireArgs a{ex->sb.data, ex->sc.data(), ex->sd.data(), ex->sa.data(),
             ex->rb.data, ex->rc.data(), ex->rd.data(), ex->ra.data(),
             ex->bytes.data(), req};
  int err = wire(a);
  if (err != MPI_SUCCESS) {
    ex->withdraw();
    if (op) op_discard(op);
    return err;
  }
  ex->started(req != nullptr);
  if (!req) {
    int lrc = ex->complete(true);
    return lrc == MPI_SUCCESS ? MPI_SUCCESS : raise(comm, lrc);
  }
  op->on_data = coll_data;
  op->on_release = coll_free;
  op->ctx = ex.release();
  op_register(op, *req, true);
  return MPI_SUCCESS;
}

}  // namespace l2l
}  // namespace loom_mpi
