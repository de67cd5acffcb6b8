// The receiving side of the Loom-to-Loom protocol (docs/protocol.md):
// recognising an RDV, pulling the message, and probes.
#include "l2l_internal.hpp"
#include "progress.hpp"

#include "comm_keys.hpp"
#include "errors.hpp"
#include "l2l_layouts.hpp"
#include "l2l_move.hpp"

#include <sched.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace loom_mpi {
namespace l2l {
// The slot an RDV names, when the RDV is genuine: the sender's segment
// holds a live slot with its token addressed to this process.
Slot *slot_of(const Rdv &r, Header **seg) {
  if (r.magic != kRdvMagic || r.version != kVersion || r.slot >= kSlots) return nullptr;
  Header *h = peer_segment(r.sender_world, true);
  if (!h) return nullptr;
  Slot &s = h->slots[r.slot];
  uint32_t st = s.state.load(std::memory_order_acquire);
  if (st != kPosted && st != kStaging && st != kStaged && st != kStreaming) return nullptr;
  if (s.token[0] != r.token[0] || s.token[1] != r.token[1] || s.recv_world != my_world())
    return nullptr;
  *seg = h;
  return &s;
}

void spin(unsigned &n) {
  wait_step(n);
}

// The sender's layout could not be read: ask it to write the stream into
// staging here, then deliver from there.
Moved pull_pushed(Header *h, Slot &s, uint32_t from, const Side &dst, size_t take) {
  loom::xfer::Buffer b = staging_acquire(take);
  if (!b.data) {
    s.state.store(from, std::memory_order_release);  // give it back untouched
    return Moved::failed;
  }
  s.push_addr = reinterpret_cast<uint64_t>(b.data);
  s.push_len = take;
  s.state.store(kRefused, std::memory_order_release);
  note("Loom-to-Loom: cannot read world rank %d: it pushes", (int)h->world_rank);
  uint32_t st;
  unsigned n = 0;
  while ((st = s.state.load(std::memory_order_acquire)) == kRefused) {
    progress();  // our own parked sends may be what the sender waits for
    spin(n);
  }
  Moved m = Moved::failed;
  if (st == kPushed) {
    if (!dst.type) loom_copy(dst.base, b.data, take);
    m = dst.type && unpack_side(dst, b.data, 0, take) != MPI_SUCCESS ? Moved::failed : Moved::ok;
  }
  s.state.store(kDone, std::memory_order_release);  // the sender may reuse it now
  staging_release(b);
  return m;
}

// Moves stream bytes [0, take) of slot s's message into dst with the
// transfer its state names (src/xfer/transfer.hpp): from the sender's
// layout in place (POSTED: single copy, or per block when the slot says
// so), or from its packed copy as far as published (STAGED, STREAMING):
// unpacked in place when the copy is in the sender's arena, else read with
// cross-memory attach.  Reads take short local runs through a bounce and
// Loom's unpack.
Moved read(Header *h, Slot &s, uint32_t from, const Side &dst, size_t take) {
  namespace x = loom::xfer;
  const x::Side local = xfer_side(dst);
  const int threads = dst.type ? pack_threads(std::min(x::kChunk, take)) : 1;
  if (from != kPosted) {
    // In the sender's arena: unpacked in place (Invariant B: only within
    // the arena its header declares).
    if (s.arena && s.arena_off <= h->arena_bytes && s.bytes <= h->arena_bytes - s.arena_off) {
      x::MappedRead t(arena_of(h) + s.arena_off, &s.packed_upto, local, 0, take, threads);
      return run(t);
    }
    x::StreamRead t(h->pid, s.packed_addr, &s.packed_upto, local, 0, take, &staging_pool(),
                    threads);
    return run(t);
  }
  // The sender's layout (none: one run), freed after the transfer's walks.
  std::unique_ptr<loom_type_s, void (*)(loom_type)> remote(nullptr, loom_type_free);
  if (s.layout_addr) {
    remote.reset(remote_layout(*h, s));
    if (!remote) return Moved::failed;
  }
  const x::Side there =
      remote ? x::Side{remote.get(), s.base, s.count} : x::byte_run(s.base, s.bytes);
  x::LayoutRead t(h->pid, there, local, 0, take, s.per_block != 0, &staging_pool(), threads);
  return run(t);
}

// Moves the first `take` bytes of slot s's message into dst.
Moved pull(Header *h, Slot &s, const Side &dst, size_t take) {
  unsigned n = 0;
  for (;;) {
    uint32_t st = s.state.load(std::memory_order_acquire);
    if (st == kStaging) {
      spin(n);
      continue;
    }
    if (st != kPosted && st != kStaged && st != kStreaming) return Moved::failed;
    uint32_t to = st == kPosted ? kPulling : kPullingPacked;
    if (!s.state.compare_exchange_strong(st, to, std::memory_order_acq_rel)) continue;
    Moved m = take == 0 ? Moved::ok : read(h, s, st, dst, take);
    if (m == Moved::ok) {
      s.state.store(kDone, std::memory_order_release);
      return m;
    }
    return pull_pushed(h, s, st, dst, take);
  }
}

bool may_meet_rdv(MPI_Comm comm, int source) {
  // Whether the sender sends an RDV is the sender's decision: any Loom
  // process may, once it has seen this process's segment.
  return enabled() && source != MPI_PROC_NULL && comm_key(comm);
}

namespace {

// The earliest slot of sender segment h addressed to this process on
// (key, tag) that no receive or matching probe has taken: the system
// matches in order per (source, communicator, tag), and slots are
// published before their messages leave.  `plain`: PLAIN slots only.
Slot *earliest(Header *h, uint64_t key, int tag, bool plain) {
  Slot *best = nullptr;
  for (Slot &s : h->slots) {
    uint32_t state = s.state.load(std::memory_order_acquire);
    bool live = state == kPlain || (!plain && (state == kPosted || state == kStaging ||
                                               state == kStaged || state == kStreaming));
    if (live && !s.probed.load(std::memory_order_acquire) && s.recv_world == my_world() &&
        s.comm_key == key && s.tag == tag && (!best || s.seq < best->seq))
      best = &s;
  }
  return best;
}

// A plain message of an RDV's size arrived from st's source on comm.
void retire_plain(MPI_Comm comm, const MPI_Status *st) {
  if (comm == MPI_COMM_NULL || st->MPI_SOURCE < 0) return;
  uint64_t key = comm_key(comm);
  Header *h = key ? peer_segment(world_rank(comm, st->MPI_SOURCE), true) : nullptr;
  if (Slot *s = h ? earliest(h, key, st->MPI_TAG, true) : nullptr)
    s->state.store(kDone, std::memory_order_release);
}

}  // namespace

Arrival on_arrival(const char *got, MPI_Status *st, const Side &dst, MPI_Comm plain_comm,
                   int *rc) {
  Rdv r;
  std::memcpy(&r, got, sizeof r);
  Header *h = nullptr;
  Slot *s = slot_of(r, &h);
  if (!s) {
    retire_plain(plain_comm, st);
    return Arrival::data;
  }
  // Read before the pull: once it has stored DONE the sender may reuse the
  // slot at once, for another message of another size (a spurious
  // MPI_ERR_TRUNCATE on correct data, seen under MPI_THREAD_MULTIPLE).
  const uint64_t bytes = s->bytes;
  size_t take = std::min<size_t>(dst.bytes, bytes);
  Moved m = pull(h, *s, dst, take);
  PMPI_Status_set_elements_x(st, MPI_BYTE, (MPI_Count)take);
  *rc = m != Moved::ok ? MPI_ERR_OTHER : take < bytes ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
  if (*rc != MPI_SUCCESS) st->MPI_ERROR = *rc;
  return Arrival::rdv;
}

void fix_probe(MPI_Comm comm, MPI_Status *st, bool matched) {
  if (!enabled() || !st || st->MPI_SOURCE < 0) return;
  if (status_bytes(*st) != (MPI_Count)kRdvBytes) return;
  uint64_t key = comm_key(comm);
  Header *h = key ? peer_segment(world_rank(comm, st->MPI_SOURCE), true) : nullptr;
  if (!h) return;
  // RDVs a posted receive matched already are pulled first: the earliest
  // slot left is then the probed message's.
  peek_receives();
  // Invariant R: the probed message is an RDV or an announced plain one;
  // the earliest no receive or matched probe has taken yet is the one the
  // system matched.
  Slot *best = earliest(h, key, st->MPI_TAG, false);
  if (!best) return;
  if (best->state.load(std::memory_order_acquire) == kPlain) {
    // Its own size, kRdvBytes; a matching probe takes it (the Mrecv cannot know
    // the communicator).
    if (matched) best->state.store(kDone, std::memory_order_release);
    return;
  }
  PMPI_Status_set_elements_x(st, MPI_BYTE, (MPI_Count)best->bytes);
  if (matched) best->probed.store(1, std::memory_order_release);
}

}  // namespace l2l
}  // namespace loom_mpi
