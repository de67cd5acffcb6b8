// Layout-aware scheme selection (no MPI in here): the LAH paper's
// selection (section IV-C), calibrated on the machine.  Given what a
// message looks like and a measured profile (profile.hpp), the scheme with
// the lowest predicted time; without a profile, the fixed rules the drop-in
// has always used.  docs/tune.md describes it.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profile.hpp"
#include "scheme_id.hpp"

namespace loom {
namespace xfer {

/// What selection knows about one message.
struct Features {
  size_t bytes = 0;         ///< packed bytes of the message
  double mean_run = 0;      ///< mean contiguous run in bytes (bytes / runs)
  bool system_allowed = false;  ///< the system MPI's datatype path may carry it
  bool loom_peer = false;   ///< the Loom-to-Loom schemes are available with the peer
  bool first_use = false;   ///< the layout's first message: only schemes that need nothing prepared
  /// Seconds Loom's engine takes to pack this message's layout, as measured
  /// on earlier messages of it; NaN when unknown.
  double pack_seconds = NAN;
};

/// How many passes of packing or unpacking over the layout lie one after
/// the other on a message's path with scheme @p s: staging packs the whole
/// message, hands it over, then unpacks it (two); the other schemes pass
/// over each layout once and overlap the two sides (the system's and the
/// pipelined engines pack and unpack fragment by fragment; single copy and
/// per block read straight from one layout into the other).  A layout that
/// packs slower than the profile's vector of the same mean run and size
/// costs each scheme that many times the difference (select.cpp).
inline double layout_passes(Scheme s) { return s == Scheme::staged ? 2.0 : 1.0; }

/// The rules used without a profile (the settings LOOM_SYSTEM_RUN,
/// LOOM_SYSTEM_MIN, LOOM_SYSTEM_MAX): the system path for a mean run of at
/// least system_run (0: never) and system_min..system_max bytes, staging
/// otherwise.
struct Rules {
  int64_t system_run = 512;
  size_t system_min = 0;
  size_t system_max = SIZE_MAX;
  /// Loom-to-Loom (LOOM_L2L_MIN, LOOM_L2L_RUN): a message of at least
  /// l2l_min bytes to a Loom peer that the system path does not take goes
  /// single copy when its mean run is at least l2l_run, pipelined below.
  size_t l2l_min = SIZE_MAX;
  int64_t l2l_run = 4096;
  /// Single copy only for messages of at most this many bytes (larger
  /// ones go pipelined).
  size_t l2l_single_max = SIZE_MAX;
  /// Loom-to-Loom, where it applies, comes before the system path for
  /// messages of at most this many bytes (0: never): set where a pipelined
  /// sender's packed copy lies in memory its receiver maps (the shared
  /// arena), so that the stream costs a pack and an unpack that overlap,
  /// against the system engine's pack into its cells and unpack out of
  /// them plus its cost per run.  Larger streams leave the caches, where
  /// the system's small cells do not.
  size_t l2l_before_system_max = 0;
  /// Whether the rules send @p f's message through the system path when
  /// no Loom-to-Loom scheme comes first.
  bool prefer_system(const Features &f) const {
    return f.system_allowed && system_run > 0 && f.mean_run >= (double)system_run &&
           f.bytes >= system_min && f.bytes <= system_max;
  }
};

/// A decision and why, in one line ("single_copy: 41 us vs staged 88 us
/// (profile cell run 512 B, 1 MiB)").
struct Choice {
  Scheme scheme = Scheme::staged;
  std::string reason;
};

/// Whether @p s may carry @p f's message: staged always; system when
/// allowed; pipelined with a Loom peer; single copy and per block with a
/// Loom peer after the layout's first use (they read the sender's layout,
/// which must be serialized and cached first).
bool available(Scheme s, const Features &f);

/// The predicted seconds per message of scheme @p s at (@p mean_run,
/// @p bytes): log-log interpolation between the four grid cells around the
/// point (cells not measured left out, the rest re-weighted), the point
/// clamped to the grid's edges.  NaN when the profile has no cell of @p s
/// around the point.
double predict(const Profile &p, Scheme s, double mean_run, double bytes);

/// predict() for message @p f: where its layout's measured pack time and
/// the profile's pack table are both known, corrected by layout_passes(s)
/// times the difference between the two (never below a tenth of the grid's
/// prediction); otherwise predict() alone.
double predict(const Profile &p, Scheme s, const Features &f);

/// The scheme for @p f: @p forced when given and available; else, with a
/// profile (nullptr: none), the available scheme with the lowest
/// prediction; else (or when the profile predicts none) the rules.
/// @p explain: fill Choice::reason (formatting it costs more than the
/// choice itself; the drop-in asks only under LOOM_VERBOSE).
Choice select(const Features &f, const Profile *profile, const Rules &rules,
              std::optional<Scheme> forced = std::nullopt, bool explain = true);

/// One block size of `loom tune`'s collective sweep: seconds per call with
/// every block Loom-to-Loom and with every block staged.
struct CollPoint {
  size_t block = 0;
  double l2l = 0, staged = 0;
};

/// The crossover written as a profile's coll_min when staging everywhere
/// costs least: never (LOOM_L2L_COLL_MIN's largest value, 1 TiB).
inline constexpr size_t kCollNever = size_t(1) << 40;

/// The crossover (a block measured, or kCollNever) that costs @p points
/// least: Loom-to-Loom for blocks from it, staging below, with the
/// geometric mean over the cases of time over the faster of the two
/// smallest (any order, several layouts per block size; ties to the larger
/// crossover; points with a time that is not a positive number are left
/// out).  One layout's loss at a block does not outvote the others' wins
/// there.  0 when nothing was measured.
size_t coll_crossover(std::vector<CollPoint> points);

/// Whether profile @p p predicts a contiguous message of @p bytes read in
/// place (single copy) faster than moved by the system's own copy
/// (log-log interpolation along its contiguous rows, clamped at their
/// ends); false when it holds no contiguous rows.
bool contiguous_read_wins(const Profile &p, double bytes);

/// @p bytes for people: "512 B", "4 KiB", "1.5 MiB".
std::string format_bytes(double bytes);

}  // namespace xfer
}  // namespace loom
