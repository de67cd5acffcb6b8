// The checkpoint cache: see checkpoint_cache.hpp.
#include "checkpoint_cache.hpp"

#include <algorithm>
#include <atomic>
#include <list>
#include <mutex>
#include <new>

#include "plan.hpp"

namespace loom {
namespace {

struct Cache {
  std::mutex mu;
  // Most recently used first; few entries (a bound of MiBs, sets of KiBs),
  // so a list searched linearly is as fast as a map and simpler.
  std::list<std::shared_ptr<const CheckpointSet>> sets;
  size_t bytes = 0;
  size_t limit = size_t(16) << 20;  // 16 MiB: hundreds of layouts
  // Each set also keeps its type alive (whose own memory the bytes do not
  // count), so the number of sets is bounded too.
  static constexpr size_t kMaxSets = 64;

  void evict_to(size_t room, size_t max_sets = kMaxSets) {
    while (!sets.empty() && (bytes > room || sets.size() > max_sets)) {
      bytes -= sets.back()->bytes;
      sets.pop_back();
    }
  }
};

Cache &cache() {
  static Cache *c = new Cache;  // never destroyed: used until exit
  return *c;
}

// Builds the set in one pass of a cursor that skips from snapshot to
// snapshot (catch-up without touching data).
std::shared_ptr<CheckpointSet> build(loom_type t, int64_t count) {
  auto set = std::make_shared<CheckpointSet>();
  Cursor c(plan_for(t, count), nullptr);
  const int64_t total = c.total();
  set->interval = checkpoint_interval(total);
  const size_t n = (size_t)(total / set->interval) + 1;
  set->snaps.reserve(n);
  for (int64_t off = 0;; off += set->interval) {
    set->snaps.push_back(c);
    if (total - off <= set->interval) break;
    c.skip(set->interval);
  }
  set->bytes = sizeof(CheckpointSet) + set->snaps.size() * sizeof(Cursor);
  const Node *root = plan_for(t, count).node;
  if (root) set->bytes += set->snaps.size() * (size_t)(root->depth + 1) * sizeof(Frame);
  set->count = count;
  set->type = loom_type_ref(t);  // last: nothing above may fail after it
  return set;
}

}  // namespace

CheckpointSet::~CheckpointSet() {
  snaps.clear();  // before the reference that keeps their plans alive
  if (type) loom_type_free(type);
}

std::atomic<int64_t> g_min_interval{int64_t(64) << 10};

int64_t checkpoint_interval(int64_t total) {
  return std::max(g_min_interval.load(std::memory_order_relaxed), (total + 63) / 64);
}

void set_checkpoint_min_interval(int64_t bytes) noexcept {
  g_min_interval.store(std::max<int64_t>(1, bytes), std::memory_order_relaxed);
}

std::shared_ptr<const CheckpointSet> checkpoints_for(loom_type t, int64_t count) noexcept {
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> g(c.mu);
    for (auto it = c.sets.begin(); it != c.sets.end(); ++it) {
      if ((*it)->type == t && (*it)->count == count &&
          (*it)->interval == checkpoint_interval((*it)->snaps[0].total())) {
        c.sets.splice(c.sets.begin(), c.sets, it);  // most recently used
        return c.sets.front();
      }
    }
  }
  try {
    std::shared_ptr<const CheckpointSet> set = build(t, count);
    std::lock_guard<std::mutex> g(c.mu);
    if (set->bytes > c.limit) return set;  // used once, not kept
    for (const auto &s : c.sets)
      if (s->type == t && s->count == count && s->interval == set->interval)
        return s;  // another thread won
    c.evict_to(c.limit - set->bytes, Cache::kMaxSets - 1);
    c.sets.push_front(set);
    c.bytes += set->bytes;
    return set;
  } catch (const std::bad_alloc &) {
    return nullptr;
  }
}

size_t checkpoint_cache_bytes() noexcept {
  Cache &c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  return c.bytes;
}

size_t checkpoint_cache_limit() noexcept {
  Cache &c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  return c.limit;
}

void set_checkpoint_cache_limit(size_t bytes) noexcept {
  Cache &c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  c.limit = bytes;
  c.evict_to(bytes);
}

}  // namespace loom
