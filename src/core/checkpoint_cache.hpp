// Checkpoints of (type, count), made once and reused by every parallel pack
// and unpack of such a message, whatever its buffer.
//
// A checkpoint is a cursor snapshot taken against address 0 every
// `interval` packed bytes (the sPIN paper's segment checkpoints, 3.2.4);
// a worker restores the one at or before its range and rebases it onto the
// user's buffer.  The cache holds a reference to each type it has sets for,
// so a freed handle cannot be reused under an entry; it is bounded in
// bytes and in sets (64; least recently used go first) and reports what
// it holds.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cursor.hpp"
#include "timed_choice.hpp"

namespace loom {

struct CheckpointSet {
  loom_type type = nullptr;  // a reference: the snapshots point into its plans
  int64_t count = 0;
  int64_t interval = 0;      // packed bytes between snapshots
  std::vector<Cursor> snaps; // snaps[i] at stream offset i * interval
  size_t bytes = 0;          // memory held, as the cache counts it
  /// The automatic thread choice for messages of this (type, count), one
  /// per direction ([0] unpack, [1] pack), measured on the program's own
  /// calls (parallel.cpp).  Mutable: a set is shared read-only otherwise.
  mutable TimedChoice choice[2];
  ~CheckpointSet();
  /// The snapshot at or before stream offset `off`.
  const Cursor &at_or_before(int64_t off) const {
    size_t i = (size_t)(off / interval);
    return snaps[i < snaps.size() ? i : snaps.size() - 1];
  }
};

/// The interval for a message of `total` packed bytes: 64 snapshots, none
/// closer than the minimum (64 KiB: each restore then serves at least that
/// much work).
int64_t checkpoint_interval(int64_t total);
/// Sets that minimum (>= 1); tests lower it so that small messages are cut
/// into many chunks.  Sets made with another interval are not reused.
void set_checkpoint_min_interval(int64_t bytes) noexcept;

/// The set for (t, count), built now if the cache has none (a set larger
/// than the cache's bound is built, used and not kept); nullptr when it
/// cannot be built (out of memory).  Throws nothing.  t must be committed.
std::shared_ptr<const CheckpointSet> checkpoints_for(loom_type t, int64_t count) noexcept;

/// Memory the cache holds now, and its bound.
size_t checkpoint_cache_bytes() noexcept;
size_t checkpoint_cache_limit() noexcept;
/// Sets the bound (bytes; 0 disables caching), evicting down to it.
void set_checkpoint_cache_limit(size_t bytes) noexcept;

}  // namespace loom
