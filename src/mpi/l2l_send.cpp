// The sending side of the Loom-to-Loom protocol (docs/protocol.md): slots,
// RDVs, and finishing a send (pulled, or packed when the receiver is late).
#include "l2l_internal.hpp"

#include "comm_keys.hpp"
#include "config.hpp"
#include "errors.hpp"
#include "l2l_layouts.hpp"
#include "l2l_move.hpp"
#include "l2l_packed.hpp"
#include "scheme.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <algorithm>
#include <mutex>
#include <vector>

namespace loom_mpi {
namespace l2l {
namespace {

// What the sender keeps for a slot besides the shared part.
struct SendRec {
  Side side;                      // side.type referenced while in use
  std::shared_ptr<const Layout> layout;
  PackedCopy packed;              // the packed copy (kStaged, kStreaming)
  // Completed for the program, slot still busy: progress() releases it
  // (and from then on only progress() may touch the slot).
  std::atomic<bool> parked{false};
  bool plain = false;  // a PLAIN slot (announce_plain): no data, no side
};

std::mutex g_mu;
std::vector<uint32_t> *g_free = nullptr;       // free point-to-point slot indices
std::vector<uint32_t> *g_coll_free = nullptr;  // free collective ones (kCollSlots)
SendRec *g_recs = nullptr;                // kSlots of them
std::atomic<int> g_parked{0};
std::atomic<int> g_plain{0};  // announced plain messages not yet received
// Which slots are parked, a bit each: poll() visits those, not all kSlots
// (it runs in every MPI call while anything is parked).
static_assert(kSlots % 64 == 0, "whole words of parked bits");
std::atomic<uint64_t> g_parked_bits[kSlots / 64];

// Slot i is parked from now on: progress() releases it once received.
// `plain`: a PLAIN slot (counted apart).
void park(uint32_t i, bool plain) {
  g_recs[i].parked.store(true, std::memory_order_release);
  g_parked_bits[i / 64].fetch_or(uint64_t(1) << (i % 64), std::memory_order_release);
  (plain ? g_plain : g_parked).fetch_add(1, std::memory_order_release);
}

// Calls f(i) for every slot i parked now.
template <class F>
void for_each_parked(F f) {
  for (uint32_t w = 0; w < kSlots / 64; ++w) {
    for (uint64_t bits = g_parked_bits[w].load(std::memory_order_acquire); bits;
         bits &= bits - 1) {
      const uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(bits);
      if (g_recs[i].parked.load(std::memory_order_acquire)) f(i);
    }
  }
}

thread_local int t_wait_depth = 0;

uint64_t g_rng[2];

void init_locked() {
  if (g_free) return;
  g_recs = new SendRec[kSlots];
  g_free = new std::vector<uint32_t>();
  g_coll_free = new std::vector<uint32_t>();
  for (uint32_t i = kSlots; i-- > 0;) (i >= kSlots - kCollSlots ? g_coll_free : g_free)->push_back(i);
  if (getrandom(g_rng, sizeof g_rng, 0) != (ssize_t)sizeof g_rng) {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    g_rng[0] = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
    g_rng[1] = (uint64_t)ts.tv_sec ^ 0xD1B54A32D192ED03ull;
  }
}

// xorshift128+ seeded from getrandom: tokens are never shown to any
// program, so unpredictability within the job is what matters.
uint64_t next_rand_locked() {
  uint64_t s1 = g_rng[0];
  const uint64_t s0 = g_rng[1];
  g_rng[0] = s0;
  s1 ^= s1 << 23;
  g_rng[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
  return g_rng[1] + s0;
}

double now_us() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

}  // namespace

void release_slot(uint32_t i) {
  SendRec &r = g_recs[i];
  if (r.side.type) loom_type_free(r.side.type);
  r.side = Side{};
  r.layout.reset();
  release_packed(r.packed);
  r.parked.store(false, std::memory_order_relaxed);
  g_parked_bits[i / 64].fetch_and(~(uint64_t(1) << (i % 64)), std::memory_order_relaxed);
  r.plain = false;
  own()->slots[i].state.store(kFree, std::memory_order_release);
  std::lock_guard<std::mutex> g(g_mu);
  (i >= kSlots - kCollSlots ? g_coll_free : g_free)->push_back(i);
}

// The packed stream of the slot's message, in r.packed (allocated here).
bool pack_copy(SendRec &r) {
  r.packed = acquire_packed(r.side.bytes);
  if (!r.packed.data) return false;
  if (!r.side.type) {
    loom_copy(r.packed.data, r.side.base, r.side.bytes);
    return true;
  }
  return pack_side(r.side, r.packed.data) == MPI_SUCCESS;
}

// The receiver could not read the sender: write the stream where it asked.
void serve_push(uint32_t i) {
  Slot &s = own()->slots[i];
  SendRec &r = g_recs[i];
  Header *peer_seg = peer_segment(s.recv_world, true);
  bool ok = peer_seg && (r.packed.data || pack_copy(r)) &&
            write_packed(peer_seg->pid, r.packed.data, s.push_addr,
                         std::min<uint64_t>(s.push_len, s.bytes)) == Moved::ok;
  if (!ok) refuse(s.recv_world, "push failed");
  else refuse(s.recv_world, "receiver cannot read this process");
  s.state.store(ok ? kPushed : kFailed, std::memory_order_release);
}

double send_grace() {
  return t_wait_depth > 0 ? (double)config().bytes(Id::l2l_grace) : 0.0;
}

// Finishes slot i for the program: returns once the user's buffer is free
// (pulled, or packed here).  `wait_us`: how long a POSTED slot may wait
// for its receiver first.
int finish(uint32_t i, double wait_us) {
  Slot &s = own()->slots[i];
  SendRec &r = g_recs[i];
  double deadline = wait_us > 0 ? now_us() + wait_us : 0;
  for (unsigned spins = 0;;) {
    uint32_t st = s.state.load(std::memory_order_acquire);
    switch (st) {
      case kDone:
        release_slot(i);
        return MPI_SUCCESS;
      case kRefused:
        serve_push(i);
        continue;
      case kPosted:
        if (wait_us <= 0 || now_us() >= deadline) {
          uint32_t expect = kPosted;
          if (!s.state.compare_exchange_strong(expect, kStaging,
                                               std::memory_order_acq_rel))
            continue;  // the receiver started meanwhile
          if (!pack_copy(r)) {
            // No memory for the copy: wait for the receiver after all.
            s.state.store(kPosted, std::memory_order_release);
            wait_us = 1e18;
            continue;
          }
          describe_packed(s, r.packed);
          s.packed_upto.store(r.side.bytes, std::memory_order_relaxed);
          park(i, false);
          s.state.store(kStaged, std::memory_order_release);
          return MPI_SUCCESS;
        }
        break;
      default:
        break;  // a receiver is moving the data: it needs nothing from us
    }
    wait_step(spins);
  }
}

// Slot i's op completed at the system level (its RDV left).
int on_send_data(PendingOp &op, MPI_Status *st) {
  uint32_t i = (uint32_t)(uintptr_t)op.ctx;
  if (st && status_cancelled(*st)) {
    release_slot(i);  // never matched: nobody pulls it
    return MPI_SUCCESS;
  }
  return finish(i, send_grace());
}

// Packs slot i's message into its packed copy chunk by chunk, publishing
// progress for a receiver reading behind.
void stream_pack(uint32_t i, bool park) {
  SendRec &r = g_recs[i];
  loom::xfer::StreamPack t(xfer_side(r.side), r.packed.data, r.side.bytes,
                           stream_chunk(r.side.bytes, r.packed.in_arena),
                           &own()->slots[i].packed_upto);
  if (loom::xfer::run(t, [] {}) != loom::xfer::Step::done)
    // A committed plan does not fail to pack; were it to, the receiver
    // would wait for bytes never published rather than take wrong ones.
    note("Loom-to-Loom: packing slot %u failed at byte %zu", i, t.moved());
  if (park) l2l::park(i, false);
}

namespace {

// Whether side s may go Loom-to-Loom by its size alone (none of the
// peer lookups or selection's bookkeeping yet, which together cost as
// much as packing a small message).  Never shorter than an RDV: an RDV
// received in place must be covered by the data pulled over it.  Where the
// rules decide inline (no profile, LOOM_SCHEME or LOOM_VERBOSE) they never
// go Loom-to-Loom below LOOM_L2L_MIN.
bool size_allows(const Side &s) {
  if (s.bytes < kRdvBytes) return false;
  if (s.bytes == kRdvBytes || !s.type) return true;
  const detail::InlineRules &r = detail::inline_rules();
  return !r.on || s.bytes >= r.rules.l2l_min;
}

// Whether a contiguous message of `bytes` goes Loom-to-Loom (read in
// place): at an RDV's size always (Invariant R), else where
// contiguous_read_in_place() says.
bool contiguous_goes_l2l(size_t bytes) {
  return bytes == kRdvBytes || contiguous_read_in_place(bytes);
}

// The scheme for side s of type dt (scheme.hpp, with a Loom peer), s
// having passed size_allows(): a Loom-to-Loom one, or false (the staged or
// system path then decides as for any peer).  A contiguous message is read
// in place where contiguous_read_in_place() says (elsewhere the system's
// own copy is as good); a message of exactly kRdvBytes always goes
// Loom-to-Loom (Invariant R).
bool choose(MPI_Datatype dt, const Side &s, Scheme *out) {
  if (s.bytes == kRdvBytes) return *out = Scheme::single_copy, true;
  if (!s.type) {
    *out = Scheme::single_copy;
    return contiguous_goes_l2l(s.bytes);
  }
  const Mirror *m = find(dt);
  if (!m) return false;
  *out = choose_scheme(*m, s.bytes, true);
  return *out == Scheme::single_copy || *out == Scheme::per_block || *out == Scheme::pipelined;
}

// The world rank of dest when a message to it on comm can go through a
// slot (a Loom peer on this node other than this process, a keyed
// communicator), with the communicator's key in *key; -1 otherwise.
int peer_dest(MPI_Comm comm, int dest, uint64_t *key) {
  if (!enabled() || dest < 0 || !(*key = comm_key(comm))) return -1;
  int w = world_rank(comm, dest);
  return w < 0 || w == my_world() || !peer(w) ? -1 : w;
}

// A free slot addressed to world rank w on (key, tag), with a fresh token
// and the next sequence number; not yet published.  `coll`: from the
// collectives' slots first.  -1: none free.
int64_t take_slot(int w, int tag, uint64_t key, bool coll = false) {
  uint32_t i;
  uint64_t tok[2];
  {
    std::lock_guard<std::mutex> g(g_mu);
    init_locked();
    std::vector<uint32_t> *from = coll && !g_coll_free->empty() ? g_coll_free : g_free;
    if (from->empty()) return -1;
    i = from->back();
    from->pop_back();
    tok[0] = next_rand_locked();
    tok[1] = next_rand_locked();
  }
  Header *h = own();
  Slot &sl = h->slots[i];
  sl.tag = tag;
  sl.recv_world = w;
  sl.comm_key = key;
  sl.token[0] = tok[0];
  sl.token[1] = tok[1];
  sl.seq = h->seq.fetch_add(1, std::memory_order_relaxed) + 1;
  sl.probed.store(0, std::memory_order_relaxed);
  return i;
}

}  // namespace

// Claims and fills a slot for side s to world rank w; publishes POSTED.
// Returns the slot index or -1.
int64_t post(const Side &s, Scheme scheme, int w, int tag, uint64_t key, Rdv *rdv, bool coll) {
  // Pipelined needs a buffer to pack into; without one the receiver reads
  // the layout itself (a slot without layout would say "one run").
  PackedCopy packed;
  if (scheme == Scheme::pipelined && !(packed = acquire_packed(s.bytes)).data)
    scheme = Scheme::single_copy;
  std::shared_ptr<const Layout> lay;
  if (s.type && scheme != Scheme::pipelined && !(lay = local_layout(s.type))) return -1;
  const int64_t at = take_slot(w, tag, key, coll);
  if (at < 0) {
    // Staged instead (the caller falls back), as for a peer without Loom.
    static std::atomic<bool> said{false};
    if (!said.exchange(true, std::memory_order_relaxed))
      note("Loom-to-Loom: no free slot (%u messages sent and not yet received at "
           "most): until some are received, further messages are staged",
           (unsigned)(coll ? kSlots : kSlots - kCollSlots));
    release_packed(packed);
    return -1;
  }
  const uint32_t i = (uint32_t)at;
  SendRec &r = g_recs[i];
  r.side = s;
  r.packed = packed;
  if (s.type) loom_type_ref(s.type);
  r.layout = lay;
  Slot &sl = own()->slots[i];
  sl.bytes = s.bytes;
  sl.base = reinterpret_cast<uint64_t>(s.base);
  sl.count = s.count;
  sl.layout_addr = lay ? reinterpret_cast<uint64_t>(lay->bytes.data()) : 0;
  sl.layout_len = lay ? lay->bytes.size() : 0;
  sl.layout_id = lay ? lay->id : 0;
  sl.packed_addr = sl.push_addr = sl.push_len = 0;
  sl.arena = 0;
  sl.arena_off = 0;
  sl.packed_upto.store(0, std::memory_order_relaxed);
  sl.per_block = scheme == Scheme::per_block;
  const bool stream = scheme == Scheme::pipelined;
  if (stream) describe_packed(sl, r.packed);
  sl.state.store(stream ? kStreaming : kPosted, std::memory_order_release);
  *rdv = Rdv{kRdvMagic, kVersion, {sl.token[0], sl.token[1]}, my_world(), i, s.bytes, 0};
  return i;
}

void announce_plain(MPI_Comm comm, int dest, int tag, size_t bytes) {
  uint64_t key;
  int w = bytes == kRdvBytes ? peer_dest(comm, dest, &key) : -1;
  if (w < 0) return;
  const int64_t i = take_slot(w, tag, key);
  if (i < 0) {
    // Probes may then take it for an RDV (docs/protocol.md).
    note("Loom-to-Loom: no slot to announce a plain %zu-byte message", bytes);
    return;
  }
  Slot &sl = own()->slots[i];
  sl.bytes = bytes;
  g_recs[i].plain = true;
  park((uint32_t)i, true);
  sl.state.store(kPlain, std::memory_order_release);
}

// Everything before the RDV leaves: -1 when the protocol does not apply.
// The local side is the caller's Use::staged classification, or for a
// contiguous type its one run.
int64_t prepare(Side s, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm, Rdv *rdv) {
  if (!enabled()) return -1;
  if (!s.type && (!contiguous_may_go(count, dt) || !contiguous_run(buf, count, dt, &s)))
    return -1;
  if (!size_allows(s)) return -1;
  uint64_t key;
  int w = peer_dest(comm, dest, &key);
  if (w < 0) return -1;
  Scheme scheme;
  if (!choose(dt, s, &scheme)) return -1;
  return post(s, scheme, w, tag, key, rdv);
}

bool contiguous_may_go(int count, MPI_Datatype dt) {
  if (!enabled()) return false;
  // Contiguous: Loom-to-Loom only at an RDV's size or where
  // contiguous_read_in_place() says (choose()), decided before the run is
  // looked at.
  const Mirror *m = find(dt);
  int64_t n;
  return !(m && m->contig && !__builtin_mul_overflow((int64_t)count, m->size, &n) &&
           !contiguous_goes_l2l((size_t)n));
}

bool may_send_to(MPI_Comm comm, int dest) {
  return enabled() && dest >= 0 && comm_key(comm) && peer(world_rank(comm, dest));
}

WaitScope::WaitScope() { ++t_wait_depth; }
WaitScope::~WaitScope() { --t_wait_depth; }

namespace {
// A point-to-point RDV as it travels: zero-padded to kRdvBytes.
struct RdvWire {
  Rdv head;
  char pad[kRdvBytes - sizeof(Rdv)];
};
static_assert(sizeof(RdvWire) == kRdvBytes, "padded RDV");
// This thread's latest RDV: only the head is ever written (the padding
// stays zero); a blocking send hands it to the system as it is, a
// nonblocking one copies it to the op's staging first.
thread_local RdvWire t_wire{};
}  // namespace

int send(IsendFn sys, const Side &staged, const void *buf, int count, MPI_Datatype dt,
         int dest, int tag, MPI_Comm comm) {
  int64_t i = prepare(staged, buf, count, dt, dest, tag, comm, &t_wire.head);
  if (i < 0) return kFallback;
  MPI_Request r;
  int rc = sys(&t_wire, (int)kRdvBytes, MPI_BYTE, dest, tag, comm, &r);
  if (rc != MPI_SUCCESS) {
    release_slot((uint32_t)i);  // never sent: no receiver holds it
    return rc;
  }
  // Streamed: the slot is progress()'s once packed (it may even be reused
  // before this returns); otherwise this call finishes it.
  const bool streamed = g_recs[i].packed.data != nullptr;
  if (streamed)  // overlaps the pull
    timed_pack(dt, g_recs[i].side.bytes, [&] { stream_pack((uint32_t)i, true); });
  rc = PMPI_Wait(&r, MPI_STATUS_IGNORE);
  if (!streamed) finish((uint32_t)i, (double)config().bytes(Id::l2l_grace));
  return rc;
}

int isend(IsendFn init, const Side &staged, const void *buf, int count, MPI_Datatype dt,
          int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  int64_t i = prepare(staged, buf, count, dt, dest, tag, comm, &t_wire.head);
  if (i < 0) return kFallback;
  const bool streamed = g_recs[i].packed.data != nullptr;
  PendingOp *op = op_new(PendingOp::kSend, comm);
  op->sys_persistent = true;
  op->ctx = reinterpret_cast<void *>((uintptr_t)i);
  // Streamed: complete once packed (below); progress() owns the slot then.
  if (!streamed) op->on_data = on_send_data;
  // The RDV is copied by the system before Isend returns (about 1 KiB:
  // every MPI sends it eagerly); op staging keeps it alive regardless.
  if (op_stage(op, kRdvBytes) != MPI_SUCCESS) {
    op_discard(op);
    release_slot((uint32_t)i);
    return kFallback;
  }
  std::memcpy(op->staging.data, &t_wire, kRdvBytes);
  int rc = init(op->staging.data, (int)kRdvBytes, MPI_BYTE, dest, tag, comm, req);
  if (rc == MPI_SUCCESS && (rc = PMPI_Start(req)) != MPI_SUCCESS) PMPI_Request_free(req);
  if (rc != MPI_SUCCESS) {
    op_discard(op);
    release_slot((uint32_t)i);
    return rc;
  }
  if (streamed) timed_pack(dt, g_recs[i].side.bytes, [&] { stream_pack((uint32_t)i, true); });
  op_register(op, *req, true);
  return MPI_SUCCESS;
}

bool streaming(uint32_t i) { return g_recs[i].packed.data && !g_recs[i].parked.load(); }

void wait_pulled(uint32_t i) {
  Slot &s = own()->slots[i];
  unsigned spins = 0;
  for (;;) {
    uint32_t st = s.state.load(std::memory_order_acquire);
    if (st == kDone) break;
    if (st == kRefused) serve_push(i);
    else wait_step(spins);
  }
  release_slot(i);
}

int parked() { return g_parked.load(std::memory_order_acquire); }

void close_receiving() {
  if (Header *h = own()) h->closed.store(1, std::memory_order_release);
}

void release_abandoned() {
  if (g_parked.load(std::memory_order_acquire) == 0) return;
  for_each_parked([](uint32_t i) {
    if (g_recs[i].plain) return;
    Slot &s = own()->slots[i];
    const Header *h = peer_segment(s.recv_world, true);
    if (h && !h->closed.load(std::memory_order_acquire) && kill(h->pid, 0) == 0) return;
    // Its receiver will never pull (closed, gone, or never mapped): no
    // receiver holds the slot, since a receiver's CAS precedes any read
    // and a closed receiver reads no more.
    uint32_t st = s.state.load(std::memory_order_acquire);
    if (st == kStaged || st == kStreaming)
      s.state.compare_exchange_strong(st, kDone, std::memory_order_acq_rel);
  });
}

void poll() {
  if (g_parked.load(std::memory_order_acquire) == 0 &&
      g_plain.load(std::memory_order_acquire) == 0)
    return;
  static std::mutex poll_mu;
  std::unique_lock<std::mutex> pl(poll_mu, std::try_to_lock);
  if (!pl.owns_lock()) return;
  for_each_parked([](uint32_t i) {
    uint32_t st = own()->slots[i].state.load(std::memory_order_acquire);
    if (st == kRefused) {
      serve_push(i);
      st = own()->slots[i].state.load(std::memory_order_acquire);
    }
    if (st == kDone) {
      (g_recs[i].plain ? g_plain : g_parked).fetch_sub(1, std::memory_order_release);
      release_slot(i);
    }
  });
}

}  // namespace l2l
}  // namespace loom_mpi
