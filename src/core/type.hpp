// The exact type description: what MPI's constructors build, with MPI's
// size/extent/bounds semantics.  Immutable once built; the plan is attached
// lazily at commit.
#pragma once
#include "loom.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "recent_plans.hpp"

namespace loom {

/// Static facts about one primitive kind.
struct PrimInfo {
  const char *name;
  int64_t size, align;
  int64_t ext32_size;  // size of one element in external32
  enum Class : uint8_t { Int, Uint, Float, LongDouble, Complex, Bytes, Pair } cls;
  int64_t nelems;  // basic elements (2 for pair types)
};
const PrimInfo &prim_info(loom_prim p);

}  // namespace loom

/// The C handle is the type itself, reference counted.
struct loom_type_s {
  mutable std::atomic<int64_t> refs{1};
  loom_combiner combiner = LOOM_COMBINER_NAMED;
  loom_prim prim = LOOM_BYTE;  // NAMED only
  bool raw_bytes = false;      // loom_type_bytes: no external32 meaning
  loom_bounds_rule rule = LOOM_BOUNDS_STANDARD;

  // Constructor arguments, kept for introspection and external32 walks.
  std::vector<int64_t> ints;   // counts, block lengths, dims...
  std::vector<int64_t> disps;  // displacements (in bytes after construction)
  std::vector<loom_type> kids; // references held by this type
  loom_type layout = nullptr;  // subarray/darray: the equivalent built type

  // MPI-exact bounds.
  int64_t size = 0, lb = 0, ub = 0, true_lb = 0, true_ub = 0;
  int64_t align = 1, nelems = 0;
  int64_t ext32_size = 0;  // bytes of one instance in external32 (<= size)
  bool lb_marker = false, ub_marker = false;  // explicit (sticky) bounds
  int homogeneous = -1;  // the single loom_prim of every element, or -1

  // Committed state.
  std::atomic<bool> committed{false};
  mutable std::once_flag plan_once;
  mutable loom::NodeP plan;  // plan of one instance, built once
  // Set once `plan` is built (type_plan's fast path: every pack and unpack
  // asks for the plan, and std::call_once costs four TLS accesses a call).
  mutable std::atomic<bool> plan_ready{false};
  // Set at commit: the plan of one instance where a message of one
  // instance runs its root's one kernel untimed ([0] unpacking, [1]
  // packing), else null: loom_pack's first test (capi.cpp).
  std::atomic<const loom::Node *> one_instance[2] = {};
  // Plans of `count` instances for the first counts asked for: repeated
  // calls with one count neither allocate nor touch a reference count.
  // Slots are published once (plan before count) and live with the type.
  static constexpr int kFoldSlots = 8;
  struct Fold {
    std::atomic<int64_t> count{0};
    std::atomic<const loom::Node *> plan{nullptr};
  };
  mutable Fold folds[kFoldSlots];
  mutable std::mutex fold_mu;
  mutable std::vector<loom::NodeP> fold_owners;
  // Past the slots: the counts last used (fold_mu guards it).
  mutable loom::RecentPlans recent_folds;

  ~loom_type_s();
  int64_t extent() const { return ub - lb; }
};

namespace loom {
/// The plan of one instance (built on first call; thread-safe).
const NodeP &type_plan(const loom_type_s *t);
/// A plan in use: `node`, kept alive by the type or by `hold`.
struct PlanRef {
  const Node *node = nullptr;
  NodeP hold;
};
/// The plan of `count` consecutive instances (one extent apart): the type's
/// own plan built on first use, folded under a vector for count > 1.
PlanRef fold_plan(const loom_type_s *t, int64_t count);
/// The same; inline for a type whose plan is built: one instance (every
/// message of count 1 after the first), or the count first folded (a
/// program mostly sends a type with one count), cost a load or two.
inline PlanRef plan_for(const loom_type_s *t, int64_t count) {
  if (t->plan_ready.load(std::memory_order_acquire)) {
    if (count == 1) return {t->plan.get(), {}};
    const loom_type_s::Fold &f = t->folds[0];
    if (f.count.load(std::memory_order_acquire) == count)
      return {f.plan.load(std::memory_order_relaxed), {}};
  }
  return fold_plan(t, count);
}

/// Owns a type under construction: deleting it drops the references its
/// kids hold, so a constructor that fails half-way leaks nothing.
using TypeOwner = std::unique_ptr<loom_type_s>;
/// A new type of combiner `c` holding a reference to `old` (if any).
/// Throws std::bad_alloc before taking the reference.
TypeOwner new_type(loom_combiner c, loom_type old);
/// Copies the size, element counts, alignment, element kind and true bounds
/// of `from`: what a type moving the same data as `from` shares with it.
void inherit_sizes(loom_type_s *t, const loom_type_s *from);
}  // namespace loom
