// A measured transfer profile (no MPI in here): for each scheme, the median
// time per message over a grid of (mean contiguous run) x (message bytes),
// measured on one machine with one MPI flavor by `loom tune`.  The drop-in
// predicts each scheme's time from it (select.hpp).  File format and
// location: docs/tune.md.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "scheme_id.hpp"

namespace loom {
namespace xfer {

/// The profile file format this build reads and writes ("schema" field).
inline constexpr int kProfileSchema = 1;

/// Where and on what a profile was measured (informational: selection
/// only checks the flavor).
struct ProfileMachine {
  std::string host, cpu, kernel;
  int cores = 0;
  double load[3] = {0, 0, 0};  ///< /proc/loadavg when the sweep ended
};

/// One profile.
struct Profile {
  std::string flavor;       ///< "mpich" or "openmpi"
  std::string mpi_library;  ///< the MPI's version line
  std::string date;         ///< ISO 8601, when it was measured
  std::string loom;         ///< the Loom version (and commit) that measured it
  ProfileMachine machine;
  std::vector<double> runs;   ///< mean contiguous run axis (bytes), ascending
  std::vector<double> bytes;  ///< message size axis (bytes), ascending
  /// Seconds per message for each scheme, row-major over (runs, bytes):
  /// cells[s][i * bytes.size() + j]; NaN where not measured.  An empty
  /// vector: the scheme was not measured at all.
  std::array<std::vector<double>, kSchemeCount> cells;
  /// The smallest block (bytes) from which the Loom-to-Loom collectives
  /// were faster than staging at every larger block measured (the drop-in's
  /// default for LOOM_L2L_COLL_MIN); 0: not measured.  Beyond the largest
  /// block measured when they never were.
  size_t coll_min = 0;
  /// Contiguous messages of each `bytes` size: seconds per message through
  /// the system's own copy and read in place (single copy), NaN where not
  /// measured; both empty when not measured at all (contiguous_read_wins()
  /// in select.hpp decides from them).
  std::vector<double> contig_system, contig_read;
  /// Seconds Loom's engine takes to pack one message of each grid cell's
  /// vector on this machine, row-major like `cells` (NaN where not
  /// measured); empty in profiles written before it was measured.  What a
  /// layout's own packing costs beyond this moves the predictions
  /// (select.hpp: layout_passes).
  std::vector<double> pack;

  /// Whether scheme @p s has cells.
  bool has(Scheme s) const { return !cells[(size_t)s].empty(); }
  /// The time of scheme @p s at grid point (i, j); NaN when not measured.
  double cell(Scheme s, size_t i, size_t j) const;
  /// The pack time of grid point (i, j); NaN when not measured.
  double pack_cell(size_t i, size_t j) const;
};

/// Parses the JSON text of a profile into @p out.  On any defect (not JSON,
/// another schema, an unknown flavor or scheme, axes not ascending and
/// positive, a row of the wrong length, a time that is not a positive
/// number or null) returns false and says what in @p why.
bool parse_profile(const std::string &text, Profile *out, std::string *why);

/// Reads and parses the file at @p path (parse_profile; a file that cannot
/// be read is a failure too).
bool load_profile(const std::string &path, Profile *out, std::string *why);

/// The JSON text of @p p (what parse_profile reads back).
std::string profile_json(const Profile &p);

/// Writes @p p to @p path, creating missing directories; false (and why)
/// on failure.
bool write_profile(const std::string &path, const Profile &p, std::string *why);

/// Creates the missing directories of @p path's directory part; false (and
/// why) on failure.
bool make_parent_dirs(const std::string &path, std::string *why);

/// The per-user profile of @p flavor: $XDG_CONFIG_HOME/loom/profile-FLAVOR.json,
/// else $HOME/.config/loom/profile-FLAVOR.json (the arguments are those
/// variables' values, nullptr or empty when unset); "" when neither is set.
std::string default_profile_path(const std::string &flavor, const char *xdg_config_home,
                                 const char *home);

}  // namespace xfer
}  // namespace loom
