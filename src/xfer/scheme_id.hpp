// The ways the drop-in can move a message with a derived datatype (no MPI
// in here).  Header-only: the settings registry lists these names as the
// values of LOOM_SCHEME.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace loom {
namespace xfer {

/// A transfer scheme.  The first two need no preparation for a layout seen
/// for the first time; the Loom-to-Loom ones need a Loom peer (the
/// receiver reads the sender's memory with process_vm_readv).
enum class Scheme {
  system,       ///< the system MPI's own datatype path
  staged,       ///< Loom packs into a staging buffer, sends MPI_PACKED, unpacks
  single_copy,  ///< Loom to Loom: the receiver copies straight from the sender
  per_block,    ///< Loom to Loom: one remote read per contiguous block
  pipelined,    ///< Loom to Loom: packed in chunks, pack and transfer overlapped
};

/// How many schemes there are.
inline constexpr size_t kSchemeCount = 5;

/// The schemes' names, in enum order (LOOM_SCHEME, profiles, reports).
inline constexpr const char *kSchemeNames[kSchemeCount] = {
    "system", "staged", "single_copy", "per_block", "pipelined"};

/// The name of @p s.
inline const char *scheme_name(Scheme s) { return kSchemeNames[(size_t)s]; }

/// The scheme called @p name (exact, lower case), or nothing.
inline std::optional<Scheme> parse_scheme(const std::string &name) {
  for (size_t i = 0; i < kSchemeCount; ++i)
    if (name == kSchemeNames[i]) return (Scheme)i;
  return std::nullopt;
}

/// Whether @p s moves a message without per-layout preparation (LAH: the
/// only candidates on a layout's first use).
inline bool needs_no_preparation(Scheme s) {
  return s == Scheme::system || s == Scheme::staged;
}

/// Whether @p s needs Loom on both sides.
inline bool needs_loom_peer(Scheme s) { return !needs_no_preparation(s); }

}  // namespace xfer
}  // namespace loom
