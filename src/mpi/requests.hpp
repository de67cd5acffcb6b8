// The pending-operation engine: nonblocking messages whose data Loom moves.
//
// Protocol: one system message per user message, so a process without Loom
// can be the peer.  A non-contiguous send is packed into a pooled staging
// buffer and sent as MPI_PACKED with the packed byte count; a non-contiguous
// receive is posted as MPI_PACKED into staging of count * type size bytes
// and unpacked (the bytes that actually arrived) by whichever completion
// call observes it.  Contiguous and declined types never get here.
//
// The request the user holds is the system's own request for the staged
// message, so everything that only reads it (MPI_Cancel, MPI_Test_cancelled,
// MPI_Request_get_status on system requests) keeps working unchanged.  This
// engine remembers which of those handles carry Loom work (a PendingOp) and
// finishes that work when a completion call sees the request complete.
//
// Handle reuse: the system may hand out a freed request handle again at
// once, possibly to another thread, before the thread that completed it has
// removed its entry.  So a completion call *claims* the ops of the handles
// it was given before it asks the system (while those handles are certainly
// live): a claimed op is off the table until it completes or the claim is
// given back, and the table allows equal keys.
// A claim by progress (peek_receives, on another thread's receive) is a
// *borrow*, which leaves the op on the table: the handle is live, so a
// completion call that meets a borrowed op of its handle waits for it to
// be given back rather than missing it
// (missing it would complete the system request without Loom's work, and
// leave a stale entry for the next owner of the handle value).
// Equal keys also come from the systems' one shared handle for eagerly
// completed sends: any op under it is complete, so which one a call takes
// does not matter for staged sends; Loom-to-Loom sends avoid it
// (sys_persistent).
//
// Users: p2p_*.cpp (point-to-point) and coll_*.cpp (collectives: one system
// request per nonblocking collective, several unpack steps at stream offsets).
#pragma once
#include "engine.hpp"
#include "scheme.hpp"
#include "staging_pool.hpp"
#include "wire.hpp"

#include <atomic>
#include <climits>
#include <vector>

namespace loom_mpi {

// ---------------------------------------------------------------------------
// Routing one (buf, count, datatype) argument.

// An argument Loom moves: what to hand loom_pack / loom_unpack_range.
struct Side {
  loom_type type = nullptr;  // borrowed from the mirror unless held by an op
  void *base = nullptr;      // user_base(): MPI_BOTTOM already resolved
  int64_t count = 0;
  size_t bytes = 0;          // packed bytes: count * MPI_Type_size (wire_for())
  // A receive the system path would serve once the message is known to
  // hold whole elements of this size (scheme.hpp); 0: stage regardless.
  int64_t system_elem = 0;
  // type null, direct set: a receive into memory-contiguous data of a type
  // the system may not see as contiguous (Mirror::native_contig): the
  // system receives `bytes` MPI_PACKED bytes straight into the run at base.
  bool direct = false;
  // The type's mirror while type is set (classify(); for this call only).
  const Mirror *mirror = nullptr;
};

// An inaccessible page: the buffer a receive of count 0 hands the system
// where it may overfill a truncated receive (kSystemOverfillsTruncatedReceives),
// so that its copy of a message that has no room fails there instead of
// writing the message over the program's memory at `buf`.
void *no_room();

// The arguments the system path gets for a receive's (buf, count, dt) that
// classify() left to it: the user's own, the run as bytes (Side::direct),
// or no_room() for count 0.
struct SysArgs {
  void *buf;
  int count;
  MPI_Datatype dt;
};
inline SysArgs sys_args(const Side &s, const void *buf, int count, MPI_Datatype dt) {
  if (s.direct) {
    Wire w = wire_for(s.bytes);
    return {s.base, w.count, w.type};
  }
  if (kSystemOverfillsTruncatedReceives && count == 0)
    if (void *page = no_room()) return {page, 0, dt};
  return {const_cast<void *>(buf), count, dt};
}

// False when LOOM_P2P=0: every message then takes the system's datatype
// path (a switch for measuring and for ruling Loom out).
bool comm_enabled();

namespace detail {
int classify_slow(const void *buf, int64_t count, MPI_Datatype dt,
                  const Mirror *m, Side *s, Use use);
}

// Whether Loom moves (buf, count, dt) used as `use`.  MPI_SUCCESS with
// s->type set: Loom packs/unpacks it.  MPI_SUCCESS with s->type null: hand
// the call to the system with sys_args() (the run as bytes for a
// contiguous receive that is not native_contig; otherwise unchanged:
// contiguous or declined types, layouts
// the system moves faster (scheme.hpp), count <= 0, no data,
// byte counts above INT_MAX, anything the system must judge such as null
// buffers or uncommitted types).  An error class only for what must not
// reach the system at all (a datatype handle the program already freed).
// The contiguous case costs one lock-free lookup.
inline int classify(const void *buf, int64_t count, MPI_Datatype dt, Side *s,
                    Use use) {
  s->type = nullptr;
  s->direct = false;
  if (count <= 0) return MPI_SUCCESS;
  const Mirror *m = find(dt);
  if (m && (!m->type || (m->contig && (use != Use::recv || m->native_contig))))
    return MPI_SUCCESS;
  return detail::classify_slow(buf, count, dt, m, s, use);
}

// What classify(Use::send) gives, from what it gave for Use::staged: the
// system's path (type null) where selection prefers it for this layout.
void system_if_faster(Side *s);

// The one run of a contiguous (buf, count, dt) as a Side with no type
// (base: the run's first byte; bytes: its length); false for anything
// else, and for what the system must judge (count <= 0, bad buffers).
bool contiguous_run(const void *buf, int64_t count, MPI_Datatype dt, Side *s);

// Packs the whole argument into dst (s.bytes bytes): its layout, or its
// one run (no type: contiguous_run's) copied.
int pack_side(const Side &s, char *dst);
// Unpacks stream bytes [offset, offset + len) of the argument from src
// (src points at stream byte `offset`).
int unpack_side(const Side &s, const char *src, size_t offset, size_t len);

// Copies argument `from` into argument `to` (their first `bytes` stream
// bytes), in this process: straight when either is one run, else through
// an L2-sized bounce, packing and unpacking chunk by chunk.
int copy_side(const Side &from, const Side &to, size_t bytes);

// After a point-to-point receive: delivers what arrived (`got`, staging of
// exactly s.bytes; the byte count in *st; none on an error other than
// truncation or when cancelled; on truncation what fitted) into argument
// s by unpacking it; `got` null: the system received it in place (into the
// run, or into the layout by the user's own type).  With rdv_check (a
// receive with room for an RDV), an RDV is served instead
// (l2l::on_arrival), and a plain message of an RDV's size is accounted on
// plain_comm (MPI_COMM_NULL: a matching probe did that).  err is the
// receive's outcome; returns Loom's own.
int deliver(const Side &s, const char *got, MPI_Status *st, int err, bool rdv_check,
            MPI_Comm plain_comm = MPI_COMM_NULL);

// The process-wide staging pool (limits from LOOM_STAGING_MAX_MB,
// LOOM_STAGING_CACHE_MB).
loom::xfer::StagingPool &staging_pool();

// Staging for one message: the pool's, behind a per-thread cache of 64 KiB
// of idle buffers per size class up to 16 KiB (8 to 64 buffers, 432 KiB a
// thread at most, given back to the pool when the thread ends;
// requests.cpp, ThreadCache).  A small message's buffer then costs no lock: the pool's
// two locks were a tenth of a 1 KiB exchange.
loom::xfer::Buffer staging_acquire(size_t bytes);
// Gives b back (to this thread's cache or the pool) and clears it.
void staging_release(loom::xfer::Buffer &b);

// Staging for the span of one blocking call (none for 0 bytes): this thread's own bounce
// buffer (16 KiB) when the message fits and no outer call on this thread
// holds it (an error handler or a generalized request's callback may send
// from inside the system's progress), else staging_acquire()'s.  The
// bounce costs a flag, where the cache costs a size class and two lookups.
class CallStaging {
 public:
  explicit CallStaging(size_t bytes);
  ~CallStaging();
  CallStaging(const CallStaging &) = delete;
  CallStaging &operator=(const CallStaging &) = delete;
  char *data() const { return b_.data; }  // null: out of memory

 private:
  loom::xfer::Buffer b_;
  bool bounce_ = false;
};

// ---------------------------------------------------------------------------
// Pending operations.

struct PendingOp;
// Hooks run by the completion path; st is always a real status (the engine
// substitutes its own when the user passed MPI_STATUS(ES)_IGNORE).
using OpHook = void (*)(PendingOp &op, MPI_Status *st);

struct UnpackStep {
  size_t offset;  // where this argument's bytes start in the staging stream
  Side side;      // side.type holds a reference while the op lives
};
struct PackStep {
  size_t offset;
  Side side;
};

struct PendingOp {
  enum Kind : uint8_t { kSend, kRecv, kColl };
  Kind kind = kSend;
  // Persistent (MPI_*_init): survives completion, MPI_Start re-arms it and
  // runs `packs` first; destroyed by MPI_Request_free.
  bool persistent = false;
  // The system request is a persistent one Loom started for a
  // non-persistent program request (a Loom-to-Loom send, l2l::isend): the
  // systems hand every eagerly completed send one shared handle (MPICH
  // 4.0: 0x6c000001; Open MPI 4.1: one static request), which cannot tell
  // ops apart.  Freed once complete, so the program sees MPI_REQUEST_NULL.
  bool sys_persistent = false;
  // Unpack only the bytes the status reports (point-to-point receives:
  // shorter messages are legal).  Otherwise every step is unpacked whole.
  bool partial = false;
  MPI_Comm comm = MPI_COMM_NULL;      // for errors Loom itself raises
  MPI_Request req = MPI_REQUEST_NULL;  // the system request the user holds
  loom::xfer::Buffer staging;          // the packed stream
  std::vector<UnpackStep> unpacks;     // at completion, in order
  std::vector<PackStep> packs;         // at each MPI_Start
  // Instead of the unpacks, where they would run (once per activation,
  // before the program may touch the buffers): a Loom-to-Loom send
  // finishing its slot, a Loom-to-Loom collective pulling its blocks.
  // Returns Loom's outcome (an error class, as the unpacks would).
  int (*on_data)(PendingOp &op, MPI_Status *st) = nullptr;
  // A point-to-point receive that may be matched by a Loom-to-Loom RDV
  // (l2l.hpp): its arrival is looked at before it is taken as data.
  bool rdv_check = false;
  MPI_Comm plain_comm = MPI_COMM_NULL;  // deliver()'s, for rdv_check
  // A persistent send of an RDV's size: MPI_Start announces it to this
  // destination and tag first (l2l::announce_plain); -1: not one.
  int plain_dest = -1;
  int plain_tag = 0;
  OpHook on_complete = nullptr;  // after the unpacks, at every completion
  OpHook on_release = nullptr;   // when the op is destroyed (free ctx)
  void *ctx = nullptr;

  // One activation (a persistent op has many):
  //   inactive --start--> active --the system completes it--> retired
  //   active --MPI_Request_get_status saw it complete--> finished
  //   finished --Wait/Test/Request_free--> retired
  // Retired: destroyed, or inactive again when persistent.  Data moves
  // exactly once per activation, on the way out of `active`.
  enum class State : uint8_t { inactive, active, finished };
  State state = State::inactive;
  // Ownership, not state (requests.cpp only): a completion call is asking
  // the system about it; MPI_Request_free'd while not inactive (the engine
  // completes it behind the program's back).
  bool claimed = false;
  bool borrowed = false;  // claimed by peek_receives (implies claimed)
  bool detached = false;
  // Loom's outcome of the data movement when it ran early (`finished`):
  // the later Wait/Test reports it again, as the system reports an error
  // it saw at MPI_Request_get_status.
  int finished_rc = 0;
  MPI_Count finished_bytes = 0;  // and the receive's byte count then
  // An op is on exactly one list at a time, so one link serves all three:
  // the table's bucket chain (registered), the detached list
  // (MPI_Request_free'd while not inactive: taken off the table first), or
  // the recycled ops (destroyed).  Guarded by the table's lock.
  PendingOp *next = nullptr;
  PendingOp *prev = nullptr;  // the table's chain only (doubly linked)
};

// Arms the MPI_Finalize hook that completes what the program left to Loom
// (freed active requests, unreceived Loom-to-Loom messages).  Idempotent.
void arm_finalize_hook();

// Building an op (the caller then starts the system request and registers).
// Ops are recycled: op_new() does not allocate in steady state.
PendingOp *op_new(PendingOp::Kind kind, MPI_Comm comm);
// Staging of at least `bytes` bytes: MPI_SUCCESS or MPI_ERR_NO_MEM.
int op_stage(PendingOp *op, size_t bytes);
// Steps; they take their own reference to side.type.
void op_add_unpack(PendingOp *op, size_t offset, const Side &side);
void op_add_pack(PendingOp *op, size_t offset, const Side &side);
// Runs the pack steps into the staging buffer (persistent sends: at Start).
int op_run_packs(PendingOp *op);
// Frees an op that was never registered (the system refused to start it).
void op_discard(PendingOp *op);
// The user now holds @p req for op (active: the system started it).
void op_register(PendingOp *op, MPI_Request req, bool active);

// ---------------------------------------------------------------------------
// Completion path (p2p_complete.cpp and friends).

namespace detail {
extern std::atomic<long> g_live;      // registered + detached ops (set under the table lock)
extern std::atomic<long> g_detached;  // detached ops not yet completed
void poll_detached_slow();
}  // namespace detail

// Fast path: no Loom op exists, so every request is the system's alone.
inline bool ops_live() {
  return detail::g_live.load(std::memory_order_acquire) != 0;
}
// Completes what MPI_Request_free left behind, if anything (cheap when
// nothing: one atomic load).
inline void poll_detached() {
  if (detail::g_detached.load(std::memory_order_relaxed) != 0)
    detail::poll_detached_slow();
}

// Claims the unclaimed ops of reqs[0..n) under one lock: ops[i] is the op
// of reqs[i] or nullptr.  Returns how many were found.
int claim(const MPI_Request *reqs, int n, PendingOp **ops);
PendingOp *claim_one(MPI_Request req);
// Gives back a claim (the request did not complete).
void unclaim(PendingOp *op);
// Whether completing op needs a real status (byte count or hook).
inline bool needs_status(const PendingOp *op) {
  return op->partial || op->on_complete;
}
// The system reported op's request complete with status *st (a real
// status) and outcome err (the call's return code, or the status's
// MPI_ERROR under MPI_ERR_IN_STATUS): unpack (once per activation; not if
// cancelled or failed; only what fits on truncation), run the hooks, then
// retire it: a non-persistent op is destroyed (the system freed its
// request), a persistent one becomes inactive.  `handle`: the program's
// handle after the system call (null: the program no longer holds one).
// MPI_REQUEST_NULL there means the system freed the request, persistent or
// not (Open MPI 4.1 frees a persistent request that completed with an
// error), so the op goes too; a sys_persistent op's request is freed here
// and *handle becomes MPI_REQUEST_NULL.  Returns an error class only if
// Loom's own unpack failed.  op must be off the table: claimed by the
// calling completion call (not borrowed), or detached.
int complete(PendingOp *op, MPI_Status *st, int err, MPI_Request *handle);
// MPI_Request_get_status saw op complete: unpack now (the user buffer must
// be valid), unclaim, and keep the op registered for the later
// Wait/Test/Request_free (which will not unpack again).
int complete_peek(PendingOp *op, MPI_Status *st, int err);
// The same for an op the caller has claimed and keeps claimed (its own
// later completion retires it).
int finish_early(PendingOp *op, MPI_Status *st, int err);
// Runs complete_peek on every receive that may hold an RDV and whose system
// request is complete but not yet seen by a completion call: a probe must
// not count RDVs already matched by a posted receive.
void peek_receives();
// Whether op is a nonblocking Loom-to-Loom collective: completing it pulls
// the blocks announced to this process, which frees the slots its peers
// may need before they can start a later collective.
inline bool pulls_blocks(const PendingOp &op) {
  return op.kind == PendingOp::kColl && op.on_data;
}
// The same for nonblocking Loom-to-Loom collectives (pulls_blocks): their
// blocks announced to this process are pulled and their own announced
// blocks finished, which frees the slots their peers wait for.  A
// collective that needs a slot while all are held calls it (l2l_coll.cpp).
void peek_collectives();
// MPI_Start: re-arms a claimed persistent op (packs for sends).
int rearm(PendingOp *op);
// MPI_Request_free of a claimed op: an inactive one is destroyed; an active
// one is kept internally (its system request too) and completed later.
// Returns true when the caller must also PMPI_Request_free the request
// (the op is gone and the system request no longer needed).
bool release_request(PendingOp *op);

}  // namespace loom_mpi
