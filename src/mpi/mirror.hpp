// The type mirror: for every MPI datatype handle the program uses, the
// committed loom type that describes the same typemap, cached by handle.
//
// Readers (every MPI_Pack) look a handle up without locks: an open-addressed
// table of atomic slots, published with release stores.  Writers (commit,
// free, dup, first use) serialize on one mutex.  A grown table replaces the
// old one atomically; old tables are retired, not freed, while the library is
// loaded, so a reader that loaded the old pointer still reads valid slots.
#pragma once
#include "compat.hpp"
#include "loom.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace loom_mpi {

struct Mirror {
  loom_type type = nullptr;  // committed; nullptr: Loom declines, use PMPI
  int64_t size = 0;          // MPI_Type_size
  int64_t lb = 0, extent = 0, true_lb = 0;
  int64_t ext32_size = -1;   // external32 bytes per instance; -1: no meaning
  // count instances are one run at buf + true_lb (loom_type_is_contiguous).
  bool contig = false;
  // contig, and a named type of one primitive: every MPI receives it as
  // plain bytes.  A receive of any other contig type (a resized pair type,
  // a struct without gaps) goes to the system as MPI_PACKED bytes of that
  // run: MPICH 4.0.2 treats such types as non-contiguous and mis-receives
  // byte streams into them (wrong data, MPI_ERR_TRUNCATE from ~8 KiB).
  bool native_contig = false;
  bool predefined = false;   // a named type (null buffer is then an error)
  // Layout facts for scheme selection (scheme.hpp): mean contiguous run of
  // one instance in bytes, and the element size when every element is one
  // primitive other than a long double (0 otherwise).
  int64_t mean_run = 0;
  int64_t elem_size = 0;
  // The fastest this process has packed the layout, in seconds per packed
  // byte, its first pack left out (0: not yet timed).  Senders time their packs only when the
  // profile can weigh them (scheme.hpp: record_pack).
  mutable std::atomic<double> pack_per_byte{0};
  mutable std::atomic<bool> pack_timed{false};  // a first pack was seen (not kept)
  // Whether a message of the layout has been chosen a scheme for with a
  // Loom peer (scheme.cpp: first_use): the first goes by a scheme that
  // needs no preparation (not single copy or per block).
  mutable std::atomic<bool> used_with_peer{false};
  // What the system said about the handle when the mirror was built (size,
  // lb, extent, true lb, true extent): a re-commit that hears something else
  // found a handle freed behind Loom's back (PMPI_Type_free) and reused.
  int64_t sys[5] = {-1, 0, 0, 0, 0};
  // Same typemap shifted by -true_lb, for MPI_BOTTOM (absolute addresses):
  // Loom is then handed the real first address instead of a null base.
  std::atomic<loom_type> bottom{nullptr};
  ~Mirror();
};

// What a handle resolves to.
enum class Resolved {
  ok,        // *out has a Loom plan
  fallback,  // *out exists but Loom declined the type: call PMPI
  bad_type,  // MPI_DATATYPE_NULL, invalid, or not committed
  freed      // freed through MPI_Type_free: never hand it to the system
};

namespace detail {
struct Slot {
  std::atomic<uintptr_t> key{0};
  std::atomic<Mirror *> val{nullptr};  // nullptr: absent; kFreed: tombstone
};
struct Table {
  size_t mask;
  Slot *slots;
};
extern std::atomic<Table *> g_table;
extern Mirror *const kFreed;

inline size_t hash_key(uintptr_t k) {
  // Fibonacci hashing: MPICH handles differ in low bits, Open MPI pointers in
  // bits 4 and up; the multiply spreads both over the top bits.
  return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20);
}
}  // namespace detail

// Hot path: the cached mirror of @p t, or nullptr when resolve() must decide
// (never seen, freed, or a null key).
inline const Mirror *find(MPI_Datatype t) {
  uintptr_t k = handle_key(t);
  detail::Table *tab = detail::g_table.load(std::memory_order_acquire);
  if (!tab || k == 0) return nullptr;
  for (size_t i = detail::hash_key(k) & tab->mask;; i = (i + 1) & tab->mask) {
    uintptr_t sk = tab->slots[i].key.load(std::memory_order_acquire);
    if (sk == k) {
      Mirror *m = tab->slots[i].val.load(std::memory_order_acquire);
      return m == detail::kFreed ? nullptr : m;
    }
    if (sk == 0) return nullptr;
  }
}

// Slow path: decides about a handle find() did not answer.  Named types are
// mirrored on first use; derived types only if the system says they are
// committed (types committed before Loom was loaded, dups of committed
// types); MPI_DATATYPE_NULL and uncommitted types give bad_type, freed
// handles give freed.  On ok/fallback *out is the (cached) mirror.
Resolved resolve(MPI_Datatype t, const Mirror **out);

// True when the system still reports the size and bounds it reported when
// m was built for t (a cheap check against handles freed behind Loom's back).
bool still_describes(const Mirror &m, MPI_Datatype t);

// The shifted copy used for MPI_BOTTOM buffers (built once per mirror).
loom_type bottom_type(const Mirror &m);

// Builds the one-time state of the type path (settings, the handle table)
// at MPI_Init, so that the program's first MPI_Type_commit costs what any
// other does.
void prepare_mirrors();

// Hooks for the intercepted MPI_Type_commit / MPI_Type_free / MPI_Type_dup.
void on_commit(MPI_Datatype t);
// MPI_Type_commit and MPI_Type_free as the program's calls do them (the
// system's, then the mirror table's bookkeeping), for types Loom makes.
int commit_type(MPI_Datatype *datatype);
int free_type(MPI_Datatype *datatype);
// Free in two steps around PMPI_Type_free: tombstone first (returns the
// mirror it replaced), then drop that mirror, or restore it on failure.
Mirror *on_free_begin(uintptr_t key);
void on_free_end(uintptr_t key, Mirror *old, bool freed);
void on_dup(MPI_Datatype oldtype, MPI_Datatype newtype);

// A new reference to a committed loom type decoded from @p t (no caching and
// no commit check), or nullptr if Loom cannot represent it.
loom_type decode_uncached(MPI_Datatype t);

}  // namespace loom_mpi
