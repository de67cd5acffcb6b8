// The plans of the counts a type was last used with beyond its fold slots
// (loom_type_s::folds).  A program that sends one type with many counts (a
// sweep of message sizes, particles that come and go) would otherwise build
// a plan node and choose its kernels on every such call (~1 us: more than
// packing a few KiB); here each count's plan is built once while the count
// stays in use, the least recently used one replaced.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace loom {
struct Node;
using NodeP = std::shared_ptr<const Node>;

/// Not thread-safe: the owning type's fold_mu guards it.  Plans handed out
/// are shared, so replacing one never frees a plan in use.
class RecentPlans {
 public:
  /// Counts kept.  A linear scan of them costs less than the lock around it.
  static constexpr size_t kCapacity = 64;

  /// The plan kept for `count` (now the most recently used), or null.
  NodeP find(int64_t count) {
    for (Entry &e : entries_)
      if (e.count == count) return e.used = ++clock_, e.plan;
    return nullptr;
  }

  /// Keeps `plan` for `count` (not kept yet), replacing the least recently
  /// used count when full; returns the plan replaced (to be released after
  /// the lock: freeing a plan's tables takes a while).
  NodeP add(int64_t count, NodeP plan) {
    Entry e{count, std::move(plan), ++clock_};
    if (entries_.size() < kCapacity) return entries_.push_back(std::move(e)), nullptr;
    Entry *oldest = &entries_[0];
    for (Entry &x : entries_)
      if (x.used < oldest->used) oldest = &x;
    std::swap(*oldest, e);
    return std::move(e.plan);
  }

 private:
  struct Entry {
    int64_t count;
    NodeP plan;
    uint64_t used;  // clock_ when last found or added
  };
  std::vector<Entry> entries_;
  uint64_t clock_ = 0;
};

}  // namespace loom
