// Layout-aware scheme selection for the drop-in: which scheme moves a
// message (src/xfer/select.hpp decides, this file feeds it the layout's
// facts, the settings and the machine's profile).
//
// Staging moves a message's bytes four times (pack, the transport's copy in
// and out, unpack); the system MPIs pack straight into their shared-memory
// cells and unpack straight out of them, pipelined across both processes.
// When a layout is made of long runs the system's per-run cost is nothing
// and its path is the faster one; short runs are where the system engines
// lose 2-15x, and there Loom stages.  Where exactly the crossover lies
// depends on the machine and the MPI: `loom tune` measures it into a
// profile (docs/tune.md) and selection predicts every scheme's time from
// that.  Without a profile the fixed rules of LOOM_SYSTEM_RUN, _MIN and _MAX
// decide, as they always have (docs/settings.md gives their per-MPI
// defaults and why).
//
// Only single-primitive types go to the system this way: MPICH 4.0.2
// mis-receives byte streams chunked inside an element of a mixed type, and
// a Loom peer may send this message as MPI_PACKED.  Point-to-point
// receives on MPICH take it only once the message is known to hold whole
// elements (a blocking receive probes first): a stream that ends inside an
// element (legal from an MPI_PACKED sender) fails there with
// MPI_ERR_TRUNCATE.
#pragma once
#include "mirror.hpp"
#include "scheme_id.hpp"
#include "select.hpp"

#include <cstddef>
#include <type_traits>

namespace loom_mpi {

using loom::xfer::Scheme;

// What an argument is for (classify() applies the receive rule above);
// `staged`: whatever Loom can move, it stages (the caller decides between
// the schemes itself).
enum class Use { send, recv, staged };

// Whether point-to-point receives may take the system path.
#if defined(MPICH)
constexpr bool kSystemReceives = false;
#else
constexpr bool kSystemReceives = true;
#endif

namespace detail {
// The fixed rules when nothing else can change their answer (no profile,
// LOOM_SCHEME=auto, LOOM_VERBOSE off): prefer_system() then decides
// inline.  `on` is false otherwise.
struct InlineRules {
  bool on = false;
  loom::xfer::Rules rules;
};
const InlineRules &inline_rules();
}  // namespace detail

// The scheme for a message of @p bytes of type m: the system's path (for a
// single-primitive type), staging, or, with @p loom_peer (Loom on the other
// side), a Loom-to-Loom scheme once the layout has been used before.  With
// LOOM_VERBOSE, says which and why once per (mean run, size class).
Scheme choose_scheme(const Mirror &m, size_t bytes, bool loom_peer);

// The Loom-to-Loom scheme for a block already promised to a Loom peer by
// an RDV (collectives: every rank decided alike from the block size, so
// the system path and staging are no longer options): the one selection
// ranks lowest among single copy, per block and pipelined, with staging's
// place taken by pipelined (packing, its nearest Loom-to-Loom form).
// LOOM_SCHEME forces it when it names one of those three.
Scheme choose_pull(const Mirror &m, size_t bytes);

// Whether senders should time their packs: the profile in use has a pack
// table, so a layout that packs slower or faster than the profile's vector
// of the same mean run moves the predictions (select.hpp: layout_passes).
bool pack_times_wanted();
// A pack of @p bytes of m's layout took @p seconds: the fastest per byte
// is kept, the layout's first pack left out (it pays cold caches and
// faults, and could send the layout to the system path for good).
void record_pack(const Mirror &m, size_t bytes, double seconds);
// Seconds on a monotonic clock, for timing packs.
double pack_clock();

// Runs pack(), which packs @p bytes of a layout of type dt, and records its
// time (record_pack) when pack_times_wanted(), the pack is large enough to
// time and it did not fail (an int
// result other than MPI_SUCCESS).  Returns pack()'s result.
// Packs under 64 KiB are not timed: two clock reads (about 60 ns on a VM)
// would double a 1 KiB pack's measured time and send its layout to the
// system path.
constexpr size_t kTimedPackMin = size_t(64) << 10;
template <class F>
auto timed_pack(MPI_Datatype dt, size_t bytes, F &&pack) {
  if (bytes < kTimedPackMin || !pack_times_wanted()) return pack();
  const double t0 = pack_clock();
  if constexpr (std::is_void_v<decltype(pack())>) {
    pack();
    if (const Mirror *m = find(dt)) record_pack(*m, bytes, pack_clock() - t0);
  } else {
    auto r = pack();
    if (r == MPI_SUCCESS)
      if (const Mirror *m = find(dt)) record_pack(*m, bytes, pack_clock() - t0);
    return r;
  }
}

// Whether a contiguous message of @p bytes to a Loom peer is read in place
// (single copy of its one run) rather than moved by the system's own copy:
// from 16 times LOOM_L2L_MIN when that is set; else under LOOM_SCHEME,
// always for single copy and per block and never for the others; else
// where the profile's contiguous rows (`loom tune`) predict the read
// faster; else from 256 KiB, or never where the probe found cross-memory
// attach slower than the transport's copies.
bool contiguous_read_in_place(size_t bytes);

// The smallest block a collective moves Loom-to-Loom: LOOM_L2L_COLL_MIN
// when set, else the crossover `loom tune` measured into the profile, else
// the setting's default.  Every rank of a collective must see the same
// value: they read the same environment and the same per-user profile.
size_t coll_min();

// True when a message of `bytes` of type m is better moved by the system's
// datatype path than by staging.
inline bool prefer_system(const Mirror &m, size_t bytes) {
  if (m.elem_size <= 0) return false;
  const detail::InlineRules &r = detail::inline_rules();
  if (r.on) {
    loom::xfer::Features f;
    f.bytes = bytes;
    f.mean_run = (double)m.mean_run;
    f.system_allowed = true;
    return r.rules.prefer_system(f);
  }
  return choose_scheme(m, bytes, false) == Scheme::system;
}

}  // namespace loom_mpi
