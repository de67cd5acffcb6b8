// Scheme selection's process-wide state: the settings (LOOM_SCHEME,
// LOOM_PROFILE, LOOM_SYSTEM_*), the profile read once, which layouts have
// been used, and a per-thread cache of decisions per (mean run, size class).
#include <mpi.h>

#include "scheme.hpp"

#include <unistd.h>

#include <array>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "build_flavor.hpp"
#include "calibrate.hpp"
#include "cma_probe.hpp"
#include "config.hpp"
#include "errors.hpp"
#include "profile.hpp"

namespace loom_mpi {
namespace {

using loom::xfer::Choice;
using loom::xfer::Features;
using loom::xfer::Profile;

const char *flavor_name() {
  return loom::settings::kBuildFlavor == loom::settings::Flavor::mpich ? "mpich" : "openmpi";
}

// The schemes this drop-in can carry a message with.  Published for
// `loom tune` (LOOM_DROPIN_SCHEMES, below), which measures only these; a
// Loom-to-Loom scheme joins the list when the drop-in implements it.
constexpr Scheme kImplemented[] = {Scheme::system, Scheme::staged, Scheme::single_copy,
                                    Scheme::per_block, Scheme::pipelined};

// `loom tune` runs its measurements with this library preloaded and asks it
// which schemes it implements: the answer is in the environment of the
// process from the moment the library is loaded.
__attribute__((constructor)) void publish_schemes() {
  std::string names;
  for (Scheme s : kImplemented) names += (names.empty() ? "" : ",") + std::string(scheme_name(s));
  setenv("LOOM_DROPIN_SCHEMES", names.c_str(), 1);
}

struct State {
  std::unique_ptr<Profile> profile;  // nullptr: the rules decide
  loom::xfer::Rules rules;
  std::optional<Scheme> forced;      // LOOM_SCHEME other than auto
  bool verbose = false;
};

// Whether packed copies may live in the shared arena (docs/protocol.md):
// the setting, which every rank reads alike (collectives decide by it).
bool arena_on() { return config().bytes(Id::l2l_arena) > 0; }

// What cross-memory attach costs here (cma_probe.hpp), measured once when
// the rules' Loom-to-Loom thresholds or the collectives' default need it;
// not measured (CmaCosts::measured false) when Loom-to-Loom is off.
const loom::xfer::CmaCosts &cma_costs() {
  static const loom::xfer::CmaCosts c = [] {
    if (!config().on(Id::l2l) || !config().on(Id::cma) || !config().on(Id::p2p))
      return loom::xfer::CmaCosts{};
    loom::xfer::CmaCosts m = loom::xfer::node_cma_costs();
    note("Loom-to-Loom without a profile: %s", m.describe(arena_on()).c_str());
    return m;
  }();
  return c;
}

// The profile named by LOOM_PROFILE ("none": no profile), else the per-user
// one if it exists; a file that cannot be used is reported (LOOM_VERBOSE)
// and ignored.
std::unique_ptr<Profile> read_profile() {
  std::string path = config().path(Id::profile);
  if (path == "none") return nullptr;
  if (path.empty()) {
    path = loom::xfer::default_profile_path(flavor_name(), std::getenv("XDG_CONFIG_HOME"),
                                            std::getenv("HOME"));
    if (path.empty() || access(path.c_str(), F_OK) != 0) return nullptr;
  }
  auto p = std::make_unique<Profile>();
  std::string why;
  if (!loom::xfer::load_profile(path, p.get(), &why)) {
    note("warning: profile not used (%s); the LOOM_SYSTEM_* rules decide", why.c_str());
    return nullptr;
  }
  if (p->flavor != flavor_name()) {
    note("warning: profile %s is for %s, not %s; the LOOM_SYSTEM_* rules decide", path.c_str(),
         p->flavor.c_str(), flavor_name());
    return nullptr;
  }
  note("scheme selection uses the profile %s%s%s", path.c_str(),
       p->date.empty() ? "" : ", measured ", p->date.c_str());
  return p;
}

const State &state() {
  static const State *s = [] {
    auto *st = new State;  // never destroyed: MPI_Finalize may run at exit
    st->rules.system_run = config().bytes(Id::system_run);
    st->rules.system_min = (size_t)config().bytes(Id::system_min);
    st->rules.system_max = (size_t)config().bytes(Id::system_max);
    st->rules.l2l_min = (size_t)config().bytes(Id::l2l_min);
    st->rules.l2l_run = config().bytes(Id::l2l_run);
    loom::xfer::CalibrationInputs in;
    in.min_set = config().set(Id::l2l_min);
    in.run_set = config().set(Id::l2l_run);
    in.arena = arena_on();
    in.mpich = loom::settings::kBuildFlavor == loom::settings::Flavor::mpich;
    loom::xfer::calibrate_l2l(&st->rules, cma_costs(), in);
    if (int64_t c = config().choice(Id::scheme)) st->forced = (Scheme)(c - 1);  // 0: auto
    st->verbose = verbose();
    st->profile = read_profile();
    return st;
  }();
  return *s;
}

// Quarter octaves: a profile's predictions change smoothly with the size,
// so one decision serves a size class.
int size_class(size_t bytes) { return (int)std::floor(4 * std::log2((double)bytes + 1)); }
size_t class_bytes(int cls) { return (size_t)std::exp2((cls + 0.5) / 4); }

// Whether this is the first message of layout m (with a Loom peer: the only
// time that matters).  A relaxed load once the layout has been used (every
// message after the first: it used to be a global lock and a set insert).
bool first_use(const Mirror &m) {
  if (m.used_with_peer.load(std::memory_order_relaxed)) return false;
  return !m.used_with_peer.exchange(true, std::memory_order_relaxed);
}

// What a decision depends on besides the profile and the settings: mean
// run, size class, system path allowed, Loom peer, first use, and the
// layout's measured pack speed in quarter octaves (INT_MIN: unknown).
using Key = std::tuple<int64_t, int, bool, bool, bool, int>;

// Says once per key which scheme was chosen and why (LOOM_VERBOSE).
void note_once(const Key &k, const Features &f, const Choice &c) {
  static std::mutex mu;
  static auto *told = new std::set<Key>;
  {
    std::lock_guard<std::mutex> g(mu);
    if (!told->insert(k).second) return;
  }
  note("scheme for mean run %s, ~%s messages: %s", loom::xfer::format_bytes(f.mean_run).c_str(),
       loom::xfer::format_bytes((double)f.bytes).c_str(), c.reason.c_str());
}

// A small per-thread cache of profile decisions (direct-mapped), keyed by
// the exact inputs (mean run, bytes, the three flags, the pack speed's
// bits), so that a hit costs no logarithm: programs repeat their sizes.
using ExactKey = std::tuple<int64_t, size_t, unsigned, uint64_t>;
struct CacheSlot {
  bool used = false;
  ExactKey key;
  Scheme scheme = Scheme::staged;
};
constexpr size_t kCacheSlots = 64;

}  // namespace

namespace detail {

const InlineRules &inline_rules() {
  static const InlineRules r = [] {
    InlineRules x;
    const State &st = state();
    x.on = !st.profile && !st.forced && !st.verbose;
    x.rules = st.rules;
    return x;
  }();
  return r;
}

}  // namespace detail

Scheme choose_scheme(const Mirror &m, size_t bytes, bool loom_peer) {
  const State &st = state();
  Features f;
  f.bytes = bytes;
  f.mean_run = (double)m.mean_run;
  f.system_allowed = m.elem_size > 0;
  f.loom_peer = loom_peer;
  f.first_use = loom_peer && first_use(m);
  const double per_byte = m.pack_per_byte.load(std::memory_order_relaxed);
  // A profile decides per size class (the rules compare exact sizes); the
  // cache in front of it is keyed by the exact inputs.
  CacheSlot *slot = nullptr;
  ExactKey exact;
  if (st.profile) {
    uint64_t bits;
    std::memcpy(&bits, &per_byte, sizeof bits);
    const unsigned flags = f.system_allowed * 4u + f.loom_peer * 2u + f.first_use;
    exact = ExactKey{m.mean_run, bytes, flags, bits};
    thread_local CacheSlot cache[kCacheSlots];
    slot = &cache[(std::hash<int64_t>{}(m.mean_run * 131 + (int64_t)flags) ^
                   std::hash<size_t>{}(bytes * 31) ^ std::hash<uint64_t>{}(bits)) %
                  kCacheSlots];
    if (slot->used && slot->key == exact) return slot->scheme;
  }
  const int pack_cls = per_byte > 0 ? (int)std::floor(4 * std::log2(per_byte * 1e12)) : INT_MIN;
  if (per_byte > 0) f.pack_seconds = per_byte * (double)bytes;
  const int cls = size_class(bytes);
  if (st.profile) f.bytes = class_bytes(cls);
  Choice c = loom::xfer::select(f, st.profile.get(), st.rules, st.forced, st.verbose);
  if (st.verbose)
    note_once(Key{m.mean_run, cls, f.system_allowed, f.loom_peer, f.first_use, pack_cls}, f, c);
  if (slot) *slot = CacheSlot{true, exact, c.scheme};
  return c.scheme;
}

bool pack_times_wanted() {
  static const bool v = state().profile && !state().profile->pack.empty();
  return v;
}

void record_pack(const Mirror &m, size_t bytes, double seconds) {
  if (bytes == 0 || !(seconds > 0)) return;
  // The layout's first pack pays cold caches and page faults: kept, it
  // could make the system path look faster for good, and a layout the
  // system path then carries is never packed (timed) again.
  if (!m.pack_timed.load(std::memory_order_relaxed) &&
      !m.pack_timed.exchange(true, std::memory_order_relaxed))
    return;
  const double per_byte = seconds / (double)bytes;
  double old = m.pack_per_byte.load(std::memory_order_relaxed);
  while ((old == 0 || per_byte < old) &&
         !m.pack_per_byte.compare_exchange_weak(old, per_byte, std::memory_order_relaxed)) {
  }
}

double pack_clock() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

// The quarter octave of a size (4 per power of two), with no logarithm:
// the contiguous path asks it per send.
int quarter_octave(size_t bytes) {
  if (bytes < 4) return 0;
  const int msb = 63 - __builtin_clzll(bytes);
  return 4 * msb + (int)((bytes >> (msb - 2)) & 3);
}
constexpr int kQuarterOctaves = 4 * 64;

// Where contiguous messages are read in place: from a threshold, or per
// quarter octave from the profile's contiguous rows.
struct ContiguousRule {
  size_t min = SIZE_MAX;
  bool by_size = false;
  std::array<bool, kQuarterOctaves> read{};
};

ContiguousRule contiguous_rule() {
  ContiguousRule r;
  const State &st = state();
  const bool is_set = config().set(Id::l2l_min);
  if (is_set) {
    const size_t m = (size_t)config().bytes(Id::l2l_min);
    r.min = m > SIZE_MAX / 16 ? SIZE_MAX : 16 * m;
    return r;
  }
  // Forced: single copy and per block read the one run in place; any
  // other scheme leaves it to the system (Loom never packs contiguous
  // data), so that `loom tune` measures both paths.
  if (st.forced) {
    r.min = *st.forced == Scheme::single_copy || *st.forced == Scheme::per_block ? 0 : SIZE_MAX;
    return r;
  }
  if (st.profile && !st.profile->contig_system.empty()) {
    // Measured: on Open MPI without the kernel's single copy the read won
    // from 32 to 256 KiB and lost above (its pipelined double copy runs on
    // both cores), so the rule is per size, not one threshold.
    r.by_size = true;
    std::string where;
    for (int c = 0; c < kQuarterOctaves; ++c) {
      const double lo = std::ldexp(1.0 + (c % 4) / 4.0, c / 4),
                   hi = std::ldexp(1.0 + (c % 4 + 1) / 4.0, c / 4);
      // Below 16 bytes (c < 8) never: nothing that small goes Loom-to-Loom.
      r.read[(size_t)c] = c >= 8 && loom::xfer::contiguous_read_wins(*st.profile, std::sqrt(lo * hi));
      if (r.read[(size_t)c] && !r.read[(size_t)c - 1])
        where += (where.empty() ? "" : ", ") + loom::xfer::format_bytes(lo) + "-";
      if (!r.read[(size_t)c] && c > 0 && r.read[(size_t)c - 1]) where += loom::xfer::format_bytes(lo);
    }
    note("contiguous messages read in place: %s (the profile's contiguous rows)",
         where.empty() ? "never" : where.c_str());
    return r;
  }
  // A contiguous message gains nothing from overlapped packing: it needs
  // reads that beat copies.
  if (cma_costs().measured && !cma_costs().stream_wins()) return r;
  // 256 KiB, 16 times LOOM_L2L_MIN's former default (16 KiB): the default
  // now follows the system's eager limit, which says nothing of when a
  // read beats the transport's copies.
  r.min = size_t(256) << 10;
  return r;
}

}  // namespace

bool contiguous_read_in_place(size_t bytes) {
  // Computed once: its inputs (the settings, the profile, the probe) are
  // fixed for the process.
  static const ContiguousRule r = contiguous_rule();
  return r.by_size ? r.read[(size_t)quarter_octave(bytes)] : bytes >= r.min;
}

size_t coll_min() {
  static const size_t v = [] {
    const bool is_set = config().set(Id::l2l_coll_min);
    const Profile *p = state().profile.get();
    if (!is_set && p && p->coll_min > 0) {
      note("collectives go Loom-to-Loom from %s blocks (the profile's crossover)",
           loom::xfer::format_bytes((double)p->coll_min).c_str());
      return p->coll_min;
    }
    // Blocks whose runs are short go pipelined, and with the shared arena
    // their streams are unpacked in place, not read (measured on the AMD
    // EPYC VM: every collective of bench coll from 256 KiB blocks at
    // 0.30-0.76x the better of hand and the system path, both MPIs).
    if (!is_set && cma_costs().measured && !cma_costs().stream_wins() && !arena_on()) {
      note("collectives stay staged: cross-memory attach loses to copies here");
      return loom::xfer::kCollNever;
    }
    return (size_t)config().bytes(Id::l2l_coll_min);
  }();
  return v;
}

Scheme choose_pull(const Mirror &m, size_t bytes) {
  const State &st = state();
  Features f;
  f.bytes = bytes;
  f.mean_run = (double)m.mean_run;
  f.loom_peer = true;
  loom::xfer::Rules rules = st.rules;
  rules.l2l_min = 0;  // the size was settled by the collective's own rule
  std::optional<Scheme> forced;
  if (st.forced && loom::xfer::needs_loom_peer(*st.forced)) forced = st.forced;
  Choice c = loom::xfer::select(f, st.profile.get(), rules, forced, false);
  return c.scheme == Scheme::staged ? Scheme::pipelined : c.scheme;
}

}  // namespace loom_mpi
