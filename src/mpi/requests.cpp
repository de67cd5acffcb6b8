// The pending-operation table, op recycling and the completion steps (see
// requests.hpp for the protocol and the claiming rule).
#include "requests.hpp"

#include "config.hpp"
#include "errors.hpp"
#include "l2l.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <mutex>
#include <new>

namespace loom_mpi {
namespace detail {
std::atomic<long> g_live{0};
std::atomic<long> g_detached{0};
}  // namespace detail

namespace {

inline uintptr_t req_key(MPI_Request r) { return (uintptr_t)r; }

// Guarded by g_mu: the table (chained buckets through PendingOp::next and
// ::prev) and the detached list.  A completion call's claim takes an op off
// the table (its handle is the caller's until it completes or the claim is
// given back), so a bucket holds only unclaimed ops and borrowed ones:
// finding a handle's op never walks past claimed ones (the systems give
// every eagerly completed send one handle, and a Waitall of n of them
// walked O(n^2) ops when claimed ops stayed), and completing one takes no
// lock.
std::mutex g_mu;
struct Bucket {
  PendingOp *head = nullptr;
};
std::vector<Bucket> *g_buckets = nullptr;  // never destroyed (atexit use)
size_t g_count = 0;
PendingOp *g_detached_head = nullptr;

// What a thread keeps for its next small messages, so that taking and
// giving back an op or a small staging buffer costs no lock (the locks
// were most of the drop-in's cost on a 1 KiB exchange): recycled ops (their
// vectors keep their capacity; as many as the thread once had outstanding,
// 4096 at most) and idle staging buffers per size class up
// to 16 KiB: 64 KiB of them per class, 8 to 64 buffers (a window of 64
// messages of 1 KiB or less recycles its own; 432 KiB at most).  Reached
// through a thread-local pointer (plain data, so no C++ wrapper; TLS
// descriptors, CMakeLists.txt, make it a few instructions), allocated on a
// thread's first use; a thread-specific key's destructor gives it back when
// a thread other than the main one ends (the main thread's lives until exit).
struct ThreadCache {
  static constexpr unsigned kMaxOps = 4096;
  static constexpr int kMaxShift = 14;
  static constexpr unsigned kMaxPerClass = 64;
  static constexpr unsigned per_class(int cls) {
    return (65536u >> cls) < 8 ? 8 : (65536u >> cls) > kMaxPerClass ? kMaxPerClass : 65536u >> cls;
  }
  PendingOp *ops = nullptr;
  unsigned nops = 0;
  struct Idle {
    loom::xfer::Buffer b[kMaxPerClass];
    unsigned n = 0;
  } idle[kMaxShift + 1];
};

thread_local ThreadCache *t_cache = nullptr;

void drop_thread_cache(void *p) {
  auto *c = static_cast<ThreadCache *>(p);
  t_cache = nullptr;
  while (PendingOp *op = c->ops) {
    c->ops = op->next;
    delete op;
  }
  for (ThreadCache::Idle &i : c->idle)
    while (i.n) staging_pool().release(i.b[--i.n]);
  delete c;
}

// The key is made while the library loads (no guard on the hot path) and
// deleted when it unloads, so that no thread ending after a dlclose calls
// into unmapped code (the caches of threads still running then leak).
// `keyed` false: out of keys, no thread caches.
struct CacheKey {
  pthread_key_t key;
  bool keyed = pthread_key_create(&key, drop_thread_cache) == 0;
  ~CacheKey() {
    if (keyed) pthread_key_delete(key);
    keyed = false;
  }
} g_cache_key;

// This thread's cache; null when none can be had (out of memory or keys,
// or the thread is ending): callers then use the pool and the heap.
ThreadCache *thread_cache() {
  if (__builtin_expect(t_cache != nullptr, 1)) return t_cache;
  if (!g_cache_key.keyed) return nullptr;
  auto *c = new (std::nothrow) ThreadCache;
  if (c && pthread_setspecific(g_cache_key.key, c) != 0) {
    delete c;
    return nullptr;
  }
  return t_cache = c;
}

void live_add(long d) { detail::g_live.fetch_add(d, std::memory_order_acq_rel); }

size_t bucket_of(uintptr_t k, size_t n) {
  return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & (n - 1);
}

void link_locked(Bucket &b, PendingOp *op) {
  op->prev = nullptr;
  op->next = b.head;
  if (b.head) b.head->prev = op;
  b.head = op;
}

void unlink_locked(Bucket &b, PendingOp *op) {
  (op->prev ? op->prev->next : b.head) = op->next;
  if (op->next) op->next->prev = op->prev;
  op->next = op->prev = nullptr;
}

Bucket &bucket_locked(const PendingOp *op) {
  return (*g_buckets)[bucket_of(req_key(op->req), g_buckets->size())];
}

void grow_locked() {
  size_t n = g_buckets ? g_buckets->size() * 2 : 256;
  auto *nb = new std::vector<Bucket>(n);
  if (g_buckets) {
    for (Bucket &b : *g_buckets)
      while (PendingOp *op = b.head) {
        unlink_locked(b, op);
        link_locked((*nb)[bucket_of(req_key(op->req), n)], op);
      }
    delete g_buckets;
  }
  g_buckets = nb;
}

void insert_locked(PendingOp *op) {
  if (!g_buckets || g_count + 1 > g_buckets->size()) grow_locked();
  link_locked(bucket_locked(op), op);
  ++g_count;
}

// Takes op off the table if it is on it.
void remove_locked(PendingOp *op) {
  if (!g_buckets) return;
  Bucket &b = bucket_locked(op);
  if (!op->prev && b.head != op) return;
  unlink_locked(b, op);
  --g_count;
}

// A completion call's claim: off the table until given back.
void claim_locked(PendingOp *op) {
  remove_locked(op);
  op->claimed = true;
}

// Gives back a claim: a completion call's op returns to the table, a
// borrowed one never left it.
void unclaim_locked(PendingOp *op) {
  if (!op->borrowed) insert_locked(op);
  op->claimed = op->borrowed = false;
}

// The op of live handle r that a completion call may claim.  None, with
// `borrowed` set: r's op is on loan to peek_receives (wait for it).
PendingOp *find_unclaimed_locked(MPI_Request r, bool *borrowed) {
  *borrowed = false;
  if (!g_buckets || r == MPI_REQUEST_NULL) return nullptr;
  uintptr_t k = req_key(r);
  for (PendingOp *op = (*g_buckets)[bucket_of(k, g_buckets->size())].head; op; op = op->next) {
    if (req_key(op->req) != k) continue;
    if (!op->claimed) return op;
    if (op->borrowed) *borrowed = true;
  }
  return nullptr;
}

// Releases what an op holds and recycles it (vectors keep their capacity).
void destroy(PendingOp *op) {
  if (op->on_release) op->on_release(*op, nullptr);
  for (auto &u : op->unpacks) loom_type_free(u.side.type);
  for (auto &p : op->packs) loom_type_free(p.side.type);
  op->unpacks.clear();
  op->packs.clear();
  staging_release(op->staging);
  ThreadCache *c = thread_cache();
  if (c && c->nops < ThreadCache::kMaxOps) {
    op->next = c->ops;
    c->ops = op;
    ++c->nops;
  } else {
    delete op;
  }
}

// Bytes the system says arrived (for the partial-unpack rule).
size_t received_bytes(const MPI_Status *st, size_t cap) {
  const MPI_Count n = status_bytes(*st);  // past INT_MAX too
  if (n < 0) return 0;
  return (size_t)n < cap ? (size_t)n : cap;
}

// How many staged stream bytes hold message data: none after an error
// other than truncation (then what fitted arrived, as the system itself
// would have written it) or a cancel; the status's byte count for partial
// receives; everything otherwise.
size_t arrived(const MPI_Status *st, int err, bool partial, size_t cap) {
  int cls = err;
  if (err != MPI_SUCCESS) PMPI_Error_class(err, &cls);
  if (cls != MPI_SUCCESS && cls != MPI_ERR_TRUNCATE) return 0;
  // Collectives: whole steps, and the status is not read at all (the
  // system need not write it for a collective request: MPICH 4.0.2's
  // Request_get_status leaves it as it was; nor can they be cancelled).
  if (!partial && cls == MPI_SUCCESS) return SIZE_MAX;
  if (status_cancelled(*st)) return 0;
  return received_bytes(st, cap);
}

int run_unpacks(PendingOp *op, MPI_Status *st, int err) {
  if (op->on_data) return op->on_data(*op, st);
  if (op->kind == PendingOp::kSend || op->unpacks.empty()) return MPI_SUCCESS;
  if (op->partial) {
    return deliver(op->unpacks.front().side, op->staging.data, st, err, op->rdv_check,
                   op->plain_comm);
  }
  size_t limit = arrived(st, err, op->partial, op->staging.capacity);
  for (const UnpackStep &u : op->unpacks) {
    if (u.offset >= limit) break;
    size_t len = u.side.bytes;
    if (limit - u.offset < len) len = limit - u.offset;
    if (len == 0) continue;
    int rc = unpack_side(u.side, op->staging.data + u.offset, 0, len);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

// ---- finalize: complete what MPI_Request_free left behind ----
int g_final_keyval = MPI_KEYVAL_INVALID;

int drain_at_finalize(MPI_Comm, int, void *, void *) {
  // Runs at the start of MPI_Finalize (attribute deletion on MPI_COMM_SELF),
  // while the system can still complete requests.  Sends are waited for;
  // a freed receive whose message does not come within a grace period is
  // cancelled (nothing could ever observe its data).
  double until = PMPI_Wtime() + 2.0;
  while (detail::g_detached.load() != 0) {
    detail::poll_detached_slow();
    l2l::poll();
    if (PMPI_Wtime() > until) break;
  }
  std::unique_lock<std::mutex> lk(g_mu);
  PendingOp *list = g_detached_head;
  g_detached_head = nullptr;
  lk.unlock();
  while (list) {
    PendingOp *op = list;
    list = op->next;
    op->next = nullptr;
    MPI_Status st;
    if (op->kind != PendingOp::kSend) PMPI_Cancel(&op->req);
    int rc = PMPI_Wait(&op->req, &st);
    if ((op->persistent || op->sys_persistent) && op->req != MPI_REQUEST_NULL)
      PMPI_Request_free(&op->req);
    detail::g_detached.fetch_sub(1, std::memory_order_release);
    complete(op, &st, rc, nullptr);
  }
  // Messages this process sent whose receivers have yet to pull their
  // packed copies: a receive may legally come after the send completed.
  // Those to processes that will pull no more are let go.
  l2l::close_receiving();
  until = PMPI_Wtime() + 10.0;
  while (l2l::parked() != 0 && PMPI_Wtime() < until) {
    l2l::release_abandoned();
    l2l::poll();
    sched_yield();
  }
  if (l2l::parked() != 0) note("Loom-to-Loom: %d sent messages never received", l2l::parked());
  l2l::stop();
  staging_pool().trim();
  return MPI_SUCCESS;
}

}  // namespace

void arm_finalize_hook() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, drain_at_finalize,
                                &g_final_keyval, nullptr) == MPI_SUCCESS)
      PMPI_Comm_set_attr(MPI_COMM_SELF, g_final_keyval, nullptr);
  });
}


// ---------------------------------------------------------------------------

bool comm_enabled() {
  static const bool on = config().on(Id::p2p);
  return on;
}

loom::xfer::StagingPool &staging_pool() {
  // Never destroyed: requests may complete from atexit-time MPI_Finalize.
  static loom::xfer::StagingPool *pool = [] {
    loom::xfer::StagingPool::Limits lim;
    lim.max_pooled_buffer = (size_t)config().bytes(Id::staging_max);
    lim.max_cached_bytes = (size_t)config().bytes(Id::staging_cache);
    lim.guard_pages = kSystemOverfillsTruncatedReceives;
    return new loom::xfer::StagingPool(lim);
  }();
  return *pool;
}

using loom::xfer::Buffer;
using loom::xfer::StagingPool;

void *no_room() {
  static void *const page = [] {
    void *m = mmap(nullptr, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? nullptr : m;  // then the program's own buffer
  }();
  return page;
}

Buffer staging_acquire(size_t bytes) {
  const int c = StagingPool::class_of(bytes);
  ThreadCache *t;
  if (c <= ThreadCache::kMaxShift && (t = thread_cache())) {
    ThreadCache::Idle &i = t->idle[c];
    if (i.n) {
      Buffer b = i.b[--i.n];
      staging_pool().fit(b, bytes);
      return b;
    }
  }
  return staging_pool().acquire(bytes);
}

void staging_release(Buffer &b) {
  if (!b.data) return;
  ThreadCache *t;
  if (b.cls >= 0 && b.cls <= ThreadCache::kMaxShift && (t = thread_cache())) {
    ThreadCache::Idle &i = t->idle[b.cls];
    if (i.n < ThreadCache::per_class(b.cls)) {
      i.b[i.n++] = b;
      b = Buffer();
      return;
    }
  }
  staging_pool().release(b);
}

namespace {
// One thread-local object, so that a call resolves its address once.
struct Bounce {
  static constexpr size_t kBytes = size_t(16) << 10;
  alignas(64) char data[kBytes];
  bool busy;
};
thread_local Bounce t_bounce;
}  // namespace

CallStaging::CallStaging(size_t bytes) {
  if (bytes == 0) return;
  Bounce &t = t_bounce;
  // Not where the system may overfill a receive: the bounce has no guard.
  if (!kSystemOverfillsTruncatedReceives && bytes <= Bounce::kBytes && !t.busy) {
    t.busy = bounce_ = true;
    b_.data = t.data;
    b_.capacity = Bounce::kBytes;
    return;
  }
  b_ = staging_acquire(bytes);
}

CallStaging::~CallStaging() {
  if (bounce_) t_bounce.busy = false;
  else staging_release(b_);
}

int detail::classify_slow(const void *buf, int64_t count, MPI_Datatype dt,
                          const Mirror *m, Side *s, Use use) {
  if (!comm_enabled()) return MPI_SUCCESS;
  if (!m) {
    if (dt == MPI_DATATYPE_NULL) return MPI_SUCCESS;
    switch (resolve(dt, &m)) {
      case Resolved::ok: break;
      case Resolved::freed: return MPI_ERR_TYPE;
      default: return MPI_SUCCESS;  // the system judges or moves it
    }
    if (!m->type) return MPI_SUCCESS;
  }
  if (m->contig && (use != Use::recv || m->native_contig)) return MPI_SUCCESS;
  int64_t bytes;
  if (__builtin_mul_overflow(count, m->size, &bytes) || bytes <= 0) return MPI_SUCCESS;
  // Past INT_MAX bytes the stream travels as one instance of a byte type
  // (wire.hpp); without one, the system's own datatype path moves it.
  if (wire_for((size_t)bytes).type == MPI_DATATYPE_NULL) return MPI_SUCCESS;
  if (bad_null(*m, buf)) return MPI_SUCCESS;
  if (m->contig) {
    // Integer arithmetic: with MPI_BOTTOM the true lb is the address.
    s->base = reinterpret_cast<void *>((uintptr_t)buf + (uintptr_t)m->true_lb);
    s->bytes = (size_t)bytes;
    s->direct = true;
    return MPI_SUCCESS;
  }
  if (use != Use::staged && prefer_system(*m, (size_t)bytes)) {
    if (use != Use::recv || kSystemReceives) return MPI_SUCCESS;
    s->system_elem = m->elem_size;
  }
  loom_type t;
  const void *base;
  if (!user_base(*m, buf, &t, &base)) return MPI_SUCCESS;
  s->type = t;
  s->base = const_cast<void *>(base);
  s->count = count;
  s->bytes = (size_t)bytes;
  s->mirror = m;
  return MPI_SUCCESS;
}

void system_if_faster(Side *s) {
  if (s->type && prefer_system(*s->mirror, s->bytes)) *s = Side{};
}

bool contiguous_run(const void *buf, int64_t count, MPI_Datatype dt, Side *s) {
  if (count <= 0) return false;
  const Mirror *m = find(dt);
  if (!m && resolve(dt, &m) != Resolved::ok) return false;
  if (!m->type || !m->contig) return false;
  int64_t bytes;
  if (__builtin_mul_overflow(count, m->size, &bytes) || bytes <= 0) return false;
  if (bad_null(*m, buf, count)) return false;
  *s = Side{};
  // Integer arithmetic: with MPI_BOTTOM the true lb is the address.
  s->base = reinterpret_cast<void *>((uintptr_t)buf + (uintptr_t)m->true_lb);
  s->bytes = (size_t)bytes;
  s->count = count;
  return true;
}

// One thread: the whole-message calls themselves (small messages, most).
int pack_side(const Side &s, char *dst) {
  if (!s.type) {
    loom_copy(dst, s.base, s.bytes);
    return MPI_SUCCESS;
  }
  size_t pos = 0;
  const int threads = pack_threads(s.bytes);
  loom_status st =
      threads == 1
          ? loom_pack(s.base, s.count, s.type, dst, s.bytes, &pos)
          : loom_pack_parallel(s.base, s.count, s.type, dst, s.bytes, &pos, threads);
  return st == LOOM_OK && pos == s.bytes ? MPI_SUCCESS : MPI_ERR_INTERN;
}

int unpack_side(const Side &s, const char *src, size_t offset, size_t len) {
  loom_status st;
  const int threads = pack_threads(len);
  if (offset == 0 && len == s.bytes) {
    size_t pos = 0;
    st = threads == 1 ? loom_unpack(src, len, &pos, s.base, s.count, s.type)
                      : loom_unpack_parallel(src, len, &pos, s.base, s.count, s.type, threads);
  } else {
    st = loom_unpack_range_parallel(src, offset, len, s.base, s.count, s.type, threads);
  }
  return st == LOOM_OK ? MPI_SUCCESS : MPI_ERR_INTERN;
}

int copy_side(const Side &from, const Side &to, size_t bytes) {
  if (!from.type && !to.type) {
    loom_copy(to.base, from.base, bytes);
    return MPI_SUCCESS;
  }
  if (!from.type) return unpack_side(to, static_cast<const char *>(from.base), 0, bytes);
  if (!to.type) {
    return loom_pack_range(from.base, from.count, from.type, 0, bytes, to.base) == LOOM_OK
               ? MPI_SUCCESS
               : MPI_ERR_INTERN;
  }
  loom_cursor in = nullptr, out = nullptr;
  int rc = MPI_ERR_INTERN;
  if (loom_cursor_create(from.type, from.count, from.base, &in) == LOOM_OK &&
      loom_cursor_create(to.type, to.count, to.base, &out) == LOOM_OK) {
    constexpr size_t kBounce = size_t(64) << 10;
    alignas(64) static thread_local char bounce[kBounce];
    rc = MPI_SUCCESS;
    for (size_t at = 0; at < bytes && rc == MPI_SUCCESS;) {
      size_t n = std::min(kBounce, bytes - at), packed = 0, unpacked = 0;
      if (loom_cursor_pack(in, bounce, n, &packed) != LOOM_OK || packed != n ||
          loom_cursor_unpack(out, bounce, n, &unpacked) != LOOM_OK || unpacked != n)
        rc = MPI_ERR_INTERN;
      at += n;
    }
  }
  loom_cursor_free(in);
  loom_cursor_free(out);
  return rc;
}

int deliver(const Side &s, const char *got, MPI_Status *st, int err, bool rdv_check,
            MPI_Comm plain_comm) {
  if (!got) {
    // Received in place: only a message of an RDV's size needs more than
    // the system's own status (most receives end here, on one count).
    if (!rdv_check || (err == MPI_SUCCESS && status_bytes(*st) != (MPI_Count)l2l::kRdvBytes))
      return MPI_SUCCESS;
  }
  size_t n = arrived(st, err, true, s.bytes);
  int rc = MPI_SUCCESS;
  if (rdv_check && n == l2l::kRdvBytes) {
    // In place in a typed layout: the RDV's bytes are the stream's first.
    char head[sizeof(l2l::Rdv)];
    const char *h = got ? got : static_cast<const char *>(s.base);
    if (!got && s.type &&
        loom_pack_range(s.base, s.count, s.type, 0, sizeof head, head) == LOOM_OK)
      h = head;
    if ((got || !s.type || h == head) &&
        l2l::on_arrival(h, st, s, plain_comm, &rc) == l2l::Arrival::rdv)
      return rc;
  }
  if (!got || !n) return MPI_SUCCESS;
  return unpack_side(s, got, 0, n);
}

// ---------------------------------------------------------------------------

PendingOp *op_new(PendingOp::Kind kind, MPI_Comm comm) {
  ThreadCache *c = thread_cache();
  PendingOp *op = c ? c->ops : nullptr;
  if (op) {
    c->ops = op->next;
    --c->nops;
  } else {
    op = new PendingOp;
  }
  op->kind = kind;
  op->persistent = op->sys_persistent = false;
  op->partial = kind == PendingOp::kRecv;
  op->comm = comm;
  op->req = MPI_REQUEST_NULL;
  op->on_complete = op->on_release = nullptr;
  op->on_data = nullptr;
  op->rdv_check = false;
  op->plain_comm = MPI_COMM_NULL;
  op->plain_dest = -1;
  op->ctx = nullptr;
  op->state = PendingOp::State::inactive;
  op->claimed = op->borrowed = op->detached = false;
  op->finished_rc = MPI_SUCCESS;
  op->next = op->prev = nullptr;
  return op;
}

int op_stage(PendingOp *op, size_t bytes) {
  staging_release(op->staging);
  op->staging = staging_acquire(bytes);
  return op->staging.data ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

void op_add_unpack(PendingOp *op, size_t offset, const Side &side) {
  op->unpacks.push_back(UnpackStep{offset, side});
  loom_type_ref(side.type);
}

void op_add_pack(PendingOp *op, size_t offset, const Side &side) {
  op->packs.push_back(PackStep{offset, side});
  loom_type_ref(side.type);
}

int op_run_packs(PendingOp *op) {
  for (const PackStep &p : op->packs) {
    int rc = pack_side(p.side, op->staging.data + p.offset);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

void op_discard(PendingOp *op) { destroy(op); }

void op_register(PendingOp *op, MPI_Request req, bool active) {
  op->req = req;
  op->state = active ? PendingOp::State::active : PendingOp::State::inactive;
  live_add(1);
  std::lock_guard<std::mutex> g(g_mu);
  insert_locked(op);
}

int claim(const MPI_Request *reqs, int n, PendingOp **ops) {
  for (unsigned spins = 0;; ++spins) {
    {
      std::lock_guard<std::mutex> g(g_mu);
      int found = 0, i = 0;
      for (; i < n; ++i) {
        bool borrowed;
        PendingOp *op = find_unclaimed_locked(reqs[i], &borrowed);
        if (!op && borrowed) break;  // wait for the peek to give it back
        if (op) {
          claim_locked(op);
          ++found;
        }
        ops[i] = op;
      }
      if (i == n) return found;
      for (int k = 0; k < i; ++k)
        if (ops[k]) unclaim_locked(ops[k]);
    }
    // A peek holds one of them for the time of one status query (and
    // perhaps its data movement).
    if (spins > 16) sched_yield();
  }
}

PendingOp *claim_one(MPI_Request req) {
  PendingOp *op;
  claim(&req, 1, &op);
  return op;
}

void unclaim(PendingOp *op) {
  std::lock_guard<std::mutex> g(g_mu);
  unclaim_locked(op);
}

int complete(PendingOp *op, MPI_Status *st, int err, MPI_Request *handle) {
  if (op->sys_persistent && handle && *handle != MPI_REQUEST_NULL) PMPI_Request_free(handle);
  const MPI_Request now = handle ? *handle : MPI_REQUEST_NULL;
  int rc = MPI_SUCCESS;
  if (op->state != PendingOp::State::finished) {
    rc = run_unpacks(op, st, err);
  } else {
    rc = op->finished_rc;
    if (op->partial) PMPI_Status_set_elements_x(st, MPI_BYTE, op->finished_bytes);
  }
  if (op->on_complete) op->on_complete(*op, st);
  if (rc != MPI_SUCCESS) st->MPI_ERROR = rc;
  if (op->persistent && now != MPI_REQUEST_NULL && !op->detached) {
    std::lock_guard<std::mutex> g(g_mu);
    op->state = PendingOp::State::inactive;
    unclaim_locked(op);
    return rc;
  }
  // Off the table: claimed by the completion call, or detached (completed
  // behind the program's back; poll_detached_slow took it off that list).
  live_add(-1);
  destroy(op);
  return rc;
}

int finish_early(PendingOp *op, MPI_Status *st, int err) {
  if (op->state == PendingOp::State::finished) return op->finished_rc;
  const int rc = op->finished_rc = run_unpacks(op, st, err);
  if (op->partial) op->finished_bytes = status_bytes(*st);
  op->state = PendingOp::State::finished;
  return rc;
}

int complete_peek(PendingOp *op, MPI_Status *st, int err) {
  const int rc = finish_early(op, st, err);
  unclaim(op);
  return rc;
}

namespace {
// complete_peek on every active op `want` picks whose system request is
// complete but not yet seen by a completion call.
template <class Want>
void peek_where(Want want) {
  if (!ops_live()) return;
  std::vector<PendingOp *> mine;
  {
    std::lock_guard<std::mutex> g(g_mu);
    if (!g_buckets) return;
    for (Bucket &b : *g_buckets)
      for (PendingOp *op = b.head; op;) {
        PendingOp *nx = op->next;
        if (want(*op) && !op->claimed && op->state == PendingOp::State::active) {
          op->claimed = op->borrowed = true;  // stays on the table
          mine.push_back(op);
        }
        op = nx;
      }
  }
  for (PendingOp *op : mine) {
    int flag = 0;
    MPI_Status st;
    int rc = PMPI_Request_get_status(op->req, &flag, &st);
    if (flag) complete_peek(op, &st, rc);
    else unclaim(op);
  }
}
}  // namespace

void peek_receives() {
  peek_where([](const PendingOp &op) { return op.kind == PendingOp::kRecv && op.rdv_check; });
}

void peek_collectives() {
  peek_where([](const PendingOp &op) { return pulls_blocks(op); });
}

int rearm(PendingOp *op) {
  op->state = PendingOp::State::active;
  if (op->plain_dest >= 0)
    l2l::announce_plain(op->comm, op->plain_dest, op->plain_tag, l2l::kRdvBytes);
  return op_run_packs(op);
}

bool release_request(PendingOp *op) {
  std::unique_lock<std::mutex> lk(g_mu);
  remove_locked(op);
  if (op->state == PendingOp::State::inactive) {
    live_add(-1);
    lk.unlock();
    destroy(op);
    return true;
  }
  op->detached = true;
  op->next = g_detached_head;
  g_detached_head = op;
  detail::g_detached.fetch_add(1, std::memory_order_release);
  lk.unlock();
  arm_finalize_hook();
  return false;
}

void detail::poll_detached_slow() {
  // One poller at a time; others go on (they will poll next call).
  static std::mutex poll_mu;
  std::unique_lock<std::mutex> pl(poll_mu, std::try_to_lock);
  if (!pl.owns_lock()) return;
  std::unique_lock<std::mutex> lk(g_mu);
  PendingOp *list = g_detached_head;
  g_detached_head = nullptr;
  lk.unlock();
  PendingOp *keep = nullptr;
  while (list) {
    PendingOp *op = list;
    list = op->next;
    op->next = nullptr;
    int flag = 0;
    MPI_Status st;
    int rc = PMPI_Test(&op->req, &flag, &st);
    if (rc != MPI_SUCCESS) flag = 1;  // failed: nothing more will arrive
    if (!flag) {
      op->next = keep;
      keep = op;
      continue;
    }
    if ((op->persistent || op->sys_persistent) && op->req != MPI_REQUEST_NULL)
      PMPI_Request_free(&op->req);
    detail::g_detached.fetch_sub(1, std::memory_order_release);
    complete(op, &st, rc, nullptr);
  }
  if (keep) {
    lk.lock();
    PendingOp *tail = keep;
    while (tail->next) tail = tail->next;
    tail->next = g_detached_head;
    g_detached_head = keep;
  }
}

}  // namespace loom_mpi
