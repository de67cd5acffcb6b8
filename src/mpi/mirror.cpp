// The type mirror cache and the intercepted MPI_Type_commit and
// MPI_Type_free (MPI_Type_dup is recorded with the constructors).
#include "mirror.hpp"

#include "decode.hpp"
#include "errors.hpp"
#include "recorded.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

namespace loom_mpi {
namespace detail {
std::atomic<Table *> g_table{nullptr};
// A tombstone for handles the program freed: using such a handle must give
// MPI_ERR_TYPE without asking the system, which crashes on freed handles
// (MPICH 4.0.2 asserts in yaksa, Open MPI 4.1.4 reads freed memory).
static Mirror g_freed_marker;
Mirror *const kFreed = &g_freed_marker;
}  // namespace detail

using detail::kFreed;
using detail::Slot;
using detail::Table;

namespace {

std::mutex g_mu;  // serializes every writer of the table
constexpr size_t kInitialSlots = 1024;
size_t g_used = 0;
// Tables replaced by growth stay readable for good (see mirror.hpp); the
// lists are never destroyed, so a pack from an atexit handler still works.
std::vector<std::unique_ptr<Slot[]>> &slot_arrays() {
  static auto *v = new std::vector<std::unique_ptr<Slot[]>>;
  return *v;
}
std::vector<std::unique_ptr<Table>> &tables() {
  static auto *v = new std::vector<std::unique_ptr<Table>>;
  return *v;
}

Table *new_table(size_t cap) {
  slot_arrays().emplace_back(new Slot[cap]);
  tables().emplace_back(new Table{cap - 1, slot_arrays().back().get()});
  return tables().back().get();
}

Slot *probe(Table *t, uintptr_t k) {
  for (size_t i = detail::hash_key(k) & t->mask;; i = (i + 1) & t->mask) {
    uintptr_t sk = t->slots[i].key.load(std::memory_order_relaxed);
    if (sk == k || sk == 0) return &t->slots[i];
  }
}

// Under g_mu: the slot of key k, created (empty) if absent.
Slot *slot_locked(uintptr_t k) {
  Table *t = detail::g_table.load(std::memory_order_relaxed);
  if (!t) {
    t = new_table(kInitialSlots);
    detail::g_table.store(t, std::memory_order_release);
  }
  Slot *s = probe(t, k);
  if (s->key.load(std::memory_order_relaxed) == k) return s;
  if ((g_used + 1) * 2 > t->mask + 1) {
    // Grow; keys whose slot is empty again (a cleared tombstone) are dropped.
    Table *n = new_table((t->mask + 1) * 2);
    g_used = 0;
    for (size_t i = 0; i <= t->mask; ++i) {
      uintptr_t sk = t->slots[i].key.load(std::memory_order_relaxed);
      Mirror *v = t->slots[i].val.load(std::memory_order_relaxed);
      if (!sk || !v) continue;
      Slot *d = probe(n, sk);
      d->val.store(v, std::memory_order_relaxed);
      d->key.store(sk, std::memory_order_relaxed);
      ++g_used;
    }
    detail::g_table.store(n, std::memory_order_release);
    t = n;
    s = probe(t, k);
  }
  ++g_used;
  s->key.store(k, std::memory_order_release);
  return s;
}

Slot *existing_locked(uintptr_t k) {
  Table *t = detail::g_table.load(std::memory_order_relaxed);
  if (!t) return nullptr;
  Slot *s = probe(t, k);
  return s->key.load(std::memory_order_relaxed) == k ? s : nullptr;
}

void retire(Mirror *m) {
  if (m && m != kFreed) delete m;
}

// A mirror for t: Loom's plan, or a fallback marker (type == nullptr).
Mirror *build_mirror(MPI_Datatype t, bool predefined) {
  auto *m = new Mirror;
  m->predefined = predefined;
  system_facts(t, m->sys);
  const char *why = "";
  loom_type lt = decode(t, &why, m->sys);
  if (lt && loom_type_commit(lt) != LOOM_OK) {
    why = "loom_type_commit failed";
    loom_type_free(lt);
    lt = nullptr;
  }
  if (!lt) {
    note("datatype %#lx: falling back to the system MPI (%s)",
         (unsigned long)handle_key(t), why);
    return m;
  }
  m->type = lt;
  m->size = loom_type_size(lt);
  loom_type_extent(lt, &m->lb, &m->extent);
  loom_type_true_extent(lt, &m->true_lb, nullptr);
  m->contig = loom_type_is_contiguous(lt);
  m->native_contig = m->contig && predefined && loom_type_element(lt) >= 0;
  int64_t runs = loom_type_num_runs(lt);
  m->mean_run = runs > 0 ? m->size / runs : 0;
  // Long doubles excluded: MPICH moves 10 of their 16 bytes (docs/dropin.md).
  int elem = loom_type_element(lt);
  int64_t nelems = loom_type_num_elements(lt);
  if (elem >= 0 && elem != LOOM_LONG_DOUBLE && elem != LOOM_C_LONG_DOUBLE_COMPLEX &&
      elem != LOOM_LONG_DOUBLE_INT && nelems > 0)
    m->elem_size = m->size / nelems;
  size_t e32 = 0;
  if (loom_external32_size(1, lt, &e32) == LOOM_OK) m->ext32_size = (int64_t)e32;
  if (verbose()) {
    char plan[160];
    loom_type_plan_string(lt, 1, plan, sizeof plan);
    note("datatype %#lx: size %lld extent %lld plan %s",
         (unsigned long)handle_key(t), (long long)m->size,
         (long long)m->extent, plan);
  }
  return m;
}

// Mirrors displaced by a rebuild: a reader may still hold one, so they are
// kept (this only happens after a free Loom did not see).
std::vector<std::unique_ptr<Mirror>> &graveyard() {
  static auto *v = new std::vector<std::unique_ptr<Mirror>>;
  return *v;
}

// Publishes m for key k unless another thread won, or the handle was freed
// meanwhile (then m is discarded).  Returns the mirror now cached, or
// nullptr for a freed handle.  `stale` (if set) is a mirror to replace.
Mirror *publish(uintptr_t k, Mirror *m, bool replace_tombstone, Mirror *stale = nullptr) {
  std::lock_guard<std::mutex> g(g_mu);
  Slot *s = slot_locked(k);
  Mirror *cur = s->val.load(std::memory_order_relaxed);
  if (stale && cur == stale) {
    graveyard().emplace_back(cur);
    s->val.store(m, std::memory_order_release);
    return m;
  }
  if (cur && (cur != kFreed || !replace_tombstone)) {
    delete m;
    return cur == kFreed ? nullptr : cur;
  }
  s->val.store(m, std::memory_order_release);
  return m;
}

bool get_combiner(MPI_Datatype t, int *comb) {
#if LOOM_MPI_HAVE_LARGE_COUNT
  MPI_Count ni, na, nc, nd;
  return PMPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, comb) == MPI_SUCCESS;
#else
  int ni, na, nd;
  return PMPI_Type_get_envelope(t, &ni, &na, &nd, comb) == MPI_SUCCESS;
#endif
}

// A private communicator whose errors return: asking the system whether a
// type is committed must not run the program's error handlers.
MPI_Comm g_probe_comm = MPI_COMM_NULL;
int g_probe_keyval = MPI_KEYVAL_INVALID;

int free_probe_comm(MPI_Comm, int, void *, void *) {
  // Runs at the start of MPI_Finalize (attribute deletion on
  // MPI_COMM_SELF), so the private communicator is not reported leaked.
  if (g_probe_comm != MPI_COMM_NULL) PMPI_Comm_free(&g_probe_comm);
  return MPI_SUCCESS;
}

MPI_Comm probe_comm() {
  static std::once_flag once;
  std::call_once(once, [] {
    MPI_Comm c;
    if (PMPI_Comm_dup(MPI_COMM_SELF, &c) != MPI_SUCCESS) return;
    PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    g_probe_comm = c;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_probe_comm,
                                &g_probe_keyval, nullptr) == MPI_SUCCESS)
      PMPI_Comm_set_attr(MPI_COMM_SELF, g_probe_keyval, nullptr);
  });
  return g_probe_comm;
}

// Both MPICH 4.0.2 and Open MPI 4.1.4 check commitment in MPI_Pack before
// anything else about the data; a zero-count pack touches no memory.
bool system_says_committed(MPI_Datatype t) {
  MPI_Comm c = probe_comm();
  if (c == MPI_COMM_NULL) return true;  // cannot ask: trust the caller
  char in = 0, out = 0;
  int pos = 0;
  int rc = PMPI_Pack(&in, 0, t, &out, 0, &pos, c);
  if (rc == MPI_SUCCESS) return true;
  int cls = rc;
  PMPI_Error_class(rc, &cls);
  return cls != MPI_ERR_TYPE;
}

}  // namespace

bool still_describes(const Mirror &m, MPI_Datatype t) {
  int64_t now[5];
  system_facts(t, now);
  return std::equal(now, now + 5, m.sys);
}

Mirror::~Mirror() {
  if (type) loom_type_free(type);
  if (loom_type b = bottom.load()) loom_type_free(b);
}

Resolved resolve(MPI_Datatype t, const Mirror **out) {
  if (t == MPI_DATATYPE_NULL || handle_key(t) == 0) return Resolved::bad_type;
  uintptr_t k = handle_key(t);
  {
    std::lock_guard<std::mutex> g(g_mu);
    if (Slot *s = existing_locked(k)) {
      Mirror *m = s->val.load(std::memory_order_relaxed);
      if (m == kFreed) return Resolved::freed;
      if (m) {
        *out = m;
        return m->type ? Resolved::ok : Resolved::fallback;
      }
    }
  }
  int comb;
  if (!get_combiner(t, &comb)) return Resolved::bad_type;
  bool named = comb == MPI_COMBINER_NAMED;
  // Derived types reach here when they were committed before Loom was
  // loaded, by a dup of a committed type, or not at all.
  if (!named && !system_says_committed(t)) return Resolved::bad_type;
  Mirror *m = publish(k, build_mirror(t, named), false);
  if (!m) return Resolved::freed;
  *out = m;
  return m->type ? Resolved::ok : Resolved::fallback;
}

loom_type bottom_type(const Mirror &m) {
  if (loom_type b = m.bottom.load(std::memory_order_acquire)) return b;
  // The typemap moved by -true_lb: with the true first address as base,
  // Loom never forms addresses from a null pointer.
  int64_t d = -m.true_lb;
  loom_type h = nullptr, r = nullptr;
  if (loom_type_hindexed_block(1, 1, &d, m.type, &h) != LOOM_OK) return nullptr;
  loom_status st = loom_type_resized(h, m.lb - m.true_lb, m.extent, &r);
  loom_type_free(h);
  if (st != LOOM_OK || loom_type_commit(r) != LOOM_OK) {
    if (r) loom_type_free(r);
    return nullptr;
  }
  loom_type expected = nullptr;
  auto &slot = const_cast<std::atomic<loom_type> &>(m.bottom);
  if (!slot.compare_exchange_strong(expected, r)) {
    loom_type_free(r);
    return expected;
  }
  return r;
}

void prepare_mirrors() {
  (void)verbose();
  {
    std::lock_guard<std::mutex> g(g_mu);
    if (!detail::g_table.load(std::memory_order_relaxed))
      detail::g_table.store(new_table(kInitialSlots), std::memory_order_release);
  }
  // One mirror built and dropped (vector of struct{int, double}): the code
  // of decode, commit and plan is then resident, and the program's first
  // commit costs ~1 us instead of ~20 (page faults on first execution).
  int bl[2] = {1, 1};
  MPI_Aint d[2] = {0, 8};
  MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, s, v;
  if (PMPI_Type_create_struct(2, bl, d, ty, &s) != MPI_SUCCESS) return;
  if (PMPI_Type_vector(2, 1, 2, s, &v) == MPI_SUCCESS) {
    if (PMPI_Type_commit(&v) == MPI_SUCCESS) delete build_mirror(v, false);
    PMPI_Type_free(&v);
  }
  PMPI_Type_free(&s);
}

void on_commit(MPI_Datatype t) {
  uintptr_t k = handle_key(t);
  if (!k) return;
  Mirror *cur;
  {
    std::lock_guard<std::mutex> g(g_mu);
    Slot *s = existing_locked(k);
    cur = s ? s->val.load(std::memory_order_relaxed) : nullptr;
  }
  if (cur && cur != kFreed) {
    // Committing a mirrored type again is a no-op, unless the handle was
    // freed through PMPI_Type_free (a library's internal free, a Fortran
    // binding) and reused: then the system describes another type.
    if (still_describes(*cur, t)) return;
  } else {
    cur = nullptr;
  }
  int comb;
  if (!get_combiner(t, &comb)) return;
  publish(k, build_mirror(t, comb == MPI_COMBINER_NAMED), true, cur);
}

Mirror *on_free_begin(uintptr_t k) {
  if (!k) return nullptr;
  std::lock_guard<std::mutex> g(g_mu);
  Slot *s = slot_locked(k);
  Mirror *cur = s->val.load(std::memory_order_relaxed);
  // Freeing a named type is an error the system will report; meanwhile
  // other threads keep packing with it.
  if (cur && cur != kFreed && cur->predefined) return kFreed;
  return s->val.exchange(kFreed, std::memory_order_acq_rel);
}

void on_free_end(uintptr_t k, Mirror *old, bool freed) {
  if (!k || old == kFreed) return;
  if (freed) {
    // Parents that embed this type keep their loom types alive through
    // Loom's own reference counts; only the handle's entry goes.
    retire(old);
    return;
  }
  // The system refused (a predefined type, say): the handle lives on.
  std::lock_guard<std::mutex> g(g_mu);
  Mirror *expected = kFreed;
  Slot *s = existing_locked(k);
  if (!s || !s->val.compare_exchange_strong(expected, old)) retire(old);
}

void on_dup(MPI_Datatype, MPI_Datatype newtype) {
  // A dup of a committed type is committed without MPI_Type_commit.  Its
  // handle is new, so whatever the table holds for that value is history:
  // a tombstone (the value was freed before) or a stale mirror (freed
  // through PMPI behind Loom's back).  Forget it; first use then takes the
  // loom type recorded for the dup (constructors.cpp).
  uintptr_t k = handle_key(newtype);
  std::lock_guard<std::mutex> g(g_mu);
  if (Slot *s = existing_locked(k)) {
    Mirror *cur = s->val.exchange(nullptr, std::memory_order_acq_rel);
    if (cur && cur != kFreed) graveyard().emplace_back(cur);
  }
}

loom_type decode_uncached(MPI_Datatype t) {
  loom_type lt = decode(t, nullptr);
  if (lt && loom_type_commit(lt) != LOOM_OK) {
    loom_type_free(lt);
    lt = nullptr;
  }
  return lt;
}

// The mirror hooks never fail the program's call: out of memory while a
// mirror is built leaves the handle unmirrored, and first use tries again.
int commit_type(MPI_Datatype *datatype) {
  int rc = PMPI_Type_commit(datatype);
  if (rc == MPI_SUCCESS && datatype) {
    try {
      on_commit(*datatype);
    } catch (...) {
    }
  }
  return rc;
}

int free_type(MPI_Datatype *datatype) {
  // The tombstone goes in before the system frees the handle: from then on
  // another thread may get the same handle value for a new type, and its
  // commit must not meet the old mirror.
  const uintptr_t key = datatype && *datatype != MPI_DATATYPE_NULL ? handle_key(*datatype) : 0;
  uintptr_t k = key;
  Mirror *old = nullptr;
  try {
    old = on_free_begin(k);
  } catch (...) {
    // The table could not grow to hold a tombstone, so the handle had no
    // mirror to begin with: nothing to restore afterwards.
    k = 0;
  }
  if (key) forget_recorded(key);
  int rc = PMPI_Type_free(datatype);
  on_free_end(k, old, rc == MPI_SUCCESS);
  return rc;
}

}  // namespace loom_mpi

using namespace loom_mpi;

LOOM_MPI_EXPORT int MPI_Type_commit(MPI_Datatype *datatype) { return commit_type(datatype); }

LOOM_MPI_EXPORT int MPI_Type_free(MPI_Datatype *datatype) { return free_type(datatype); }
