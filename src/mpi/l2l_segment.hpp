// Loom-to-Loom on one node (docs/protocol.md): each Loom process's shared
// segment (header and send slots), and knowing which peers have one.
//
// A segment is created at MPI_Init by its owner and mapped by any Loom
// process that receives from it.  Slots are written by the owner (the
// sender) and by exactly one receiver, through the state word only (CAS);
// every other field is written by the sender before it publishes POSTED
// with a release store and read by the receiver after an acquire load.
#pragma once
#include <mpi.h>

#include <sched.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace loom_mpi {
namespace l2l {

constexpr uint32_t kMagic = 0x4c4d5347;  // "LMSG"
constexpr uint32_t kVersion = 3;  // 2: the shared arena; 3: padded RDVs, `closed`
constexpr uint32_t kSlots = 512;
// The last kCollSlots slots are kept for collectives: a collective has
// promised its RDVs to peers that are in the same call, so it waits for a
// slot rather than fall back, and point-to-point sends whose receivers are
// not posted yet (they may come after the collective) must not be able to
// hold every slot.  A collective runs Loom-to-Loom only on communicators
// of at most kCollSlots ranks (l2l_coll.cpp).
constexpr uint32_t kCollSlots = 128;

enum SlotState : uint32_t {
  kFree = 0,
  kPosted,         // sender's data in place, RDV sent
  kPulling,        // a receiver is reading the sender's layout
  kStaging,        // the sender is packing (it gave up waiting)
  kStaged,         // packed copy at `packed_addr`
  kPullingPacked,  // a receiver is reading the packed copy
  kRefused,        // the receiver could not read: the sender pushes
  kDone,           // the receiver has the data; the sender may reuse it
  kFailed,         // the push failed too (the receiver then stores kDone)
  kPushed,         // the push arrived (the receiver then stores kDone)
  kStreaming,      // pipelined: the sender packs into `packed_addr`,
                   // publishing progress in `packed_upto`
  kPlain,          // no data here: the sender's message of kRdvBytes went
                   // as plain data (Invariant R's exception); its receiver
                   // or matching probe stores kDone
};

struct Slot {
  std::atomic<uint32_t> state;
  int32_t tag;
  int32_t recv_world;  // the receiving process (world rank)
  uint32_t per_block;  // kPosted: read one remote run per call (Multi-W)
  uint64_t comm_key;
  uint64_t token[2];
  uint64_t seq;          // sender-wide, for probes (earliest first)
  uint64_t bytes;        // packed bytes of the message
  uint64_t base;         // the sender's base address (layout origin)
  int64_t count;
  uint64_t layout_addr;  // serialized plan in the sender's memory; 0: one run
  uint64_t layout_len;
  uint64_t layout_id;
  uint64_t packed_addr;  // kStaged, kStreaming: the packed copy
  // The packed copy lies in the sender's arena at this offset (receivers
  // that map the segment unpack it in place; Invariant B); 0 in `arena`:
  // it is private staging, read at packed_addr with cross-memory attach.
  uint32_t arena;
  uint64_t arena_off;
  uint64_t push_addr;    // kRefused: where the receiver wants the stream
  uint64_t push_len;
  std::atomic<uint64_t> packed_upto;  // kStreaming: bytes packed so far
  // Written by the receiver only: an MPI_Mprobe/Improbe matched this RDV
  // (later probes must not count it); the sender clears it at post.
  std::atomic<uint32_t> probed;
};

struct Header {
  uint32_t magic, version;
  int32_t pid, world_size, world_rank;
  int32_t early;  // made before MPI_Init: visible to all by the time any
                  // rank can enter a collective (Loom-to-Loom collectives)
  uint64_t probe_addr;  // address of kProbeWord in the owner's memory
  std::atomic<uint64_t> seq;
  uint64_t arena_bytes;  // the arena's size (at kArenaAt); 0: none
  // Set by the owner in MPI_Finalize once it will pull no more: its
  // senders then release the slots still addressed to it (a receive with
  // room for less than an RDV never pulls the message it truncates).
  std::atomic<uint32_t> closed;
  Slot slots[kSlots];
};

// Where the arena starts in a segment (page aligned), and its first byte
// in a mapping of segment h.
constexpr size_t kArenaAt = (sizeof(Header) + 4095) & ~size_t(4095);
inline char *arena_of(Header *h) { return reinterpret_cast<char *>(h) + kArenaAt; }
// Makes sure the first `upto` bytes of this process's arena are backed by
// memory (Invariant A); false when tmpfs cannot hold them.
bool reserve_arena(size_t upto);

constexpr uint64_t kProbeWord = 0x6c6f6f6d2d636d61ull;

// What an RDV says (docs/protocol.md).  A collective's RDVs are exactly
// this (kCollRdvBytes per block of its wire exchange, which no user
// receive can match); a point-to-point RDV is this, zero-padded to
// kRdvBytes on the wire.
struct Rdv {
  uint32_t magic;
  uint32_t version;
  uint64_t token[2];
  int32_t sender_world;
  uint32_t slot;
  uint64_t bytes;
  uint32_t pad;
} __attribute__((packed));
constexpr size_t kCollRdvBytes = 44;
static_assert(sizeof(Rdv) == kCollRdvBytes, "RDV layout");
// A point-to-point RDV's size on the wire, R of Invariant R.  About 1 KiB,
// so that a receive with room for fewer bytes needs no check: an RDV can
// match it only for a message longer than R, which the system itself
// reports as MPI_ERR_TRUNCATE.  259 ints: no message of 8-byte elements
// has this size, and few others do (each must travel as an RDV itself).
// Far below every eager limit, so an RDV never waits for its receiver.
constexpr size_t kRdvBytes = 1036;
static_assert(kRdvBytes > sizeof(Rdv) && kRdvBytes % 8 != 0, "padded RDV");
constexpr uint32_t kRdvMagic = 0x56524d4c;  // "LMRV"

// Called before PMPI_Init: creates this process's segment when the
// launcher says its world rank (MPI_Init synchronises every process of the
// job, so all segments made this way are visible once any MPI_Init
// returns).  Then, after PMPI_Init: checks that rank, or creates the
// segment now (when LOOM_L2L is on and the job can be identified).  Never
// blocks on peers.
void start_early();
void start();
// Called at MPI_Finalize: no new L2L sends; unlinks the segment.
void stop();
// Whether this process takes part at all.
bool enabled();

// This process's world rank and segment (nullptr when not enabled).
int my_world();
Header *own();

// The segment of world rank w when w is a Loom process on this node that
// this process may read with cross-memory attach; nullptr otherwise.
// Cheap when cached; a miss is re-checked at most every 250 ms.
Header *peer(int w);
// For collectives, a decision every rank of a communicator must reach
// alike: w's segment exists now, was made before MPI_Init (as is this
// process's), and this process could read w when it first looked (runtime
// refusals are not consulted: they differ between processes).
bool coll_peer(int w);
// Whether any peer has been seen (receives from MPI_ANY_SOURCE need the
// RDV check only then).
bool any_peer();
// w's segment whether or not this process may read w (receivers check
// RDVs against it; a sender that cannot be read is pushed to).  `now`:
// look even within the backoff after a miss (an RDV proves it exists).
Header *peer_segment(int w, bool now = false);
// One step of waiting for a peer that is working (the other end of a
// slot): spin with a pause, as MPI's own progress does; only after a long
// wait yield the core (a yield under load gives it away for a whole
// scheduler slice, milliseconds).  `n` counts the caller's steps.
inline void wait_step(unsigned &n) {
  if (++n < (1u << 16)) __builtin_ia32_pause();
  else sched_yield();
}

// Marks w as unreadable (a pull failed): later sends to it are staged.
void refuse(int w, const char *why);

}  // namespace l2l
}  // namespace loom_mpi
