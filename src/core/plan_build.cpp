// Type -> plan, once per type.  Children's plans are shared, so a type tree
// compiles in time proportional to its description.
#include <algorithm>

#include "pair.hpp"
#include "plan.hpp"
#include "type.hpp"

namespace loom {
namespace {

// Blocks of t->ints[i] instances of k at byte displacements t->disps[i]:
// the indexed family, and structs whose blocks are all of one type.
NodeP blocks_of(const loom_type_s *t, const loom_type_s *k) {
  const NodeP &p = type_plan(k);
  const size_t n = t->ints.size();
  if (!p) return nullptr;
  if (p->kind == Kind::Block && p->count == k->extent()) {
    // Blocks of a dense child are plain byte runs.
    std::vector<int64_t> d(n), l(n);
    for (size_t i = 0; i < n; i++) d[i] = t->disps[i] + p->off, l[i] = t->ints[i] * p->count;
    return mk_idxv(std::move(d), std::move(l));
  }
  bool uniform = true;
  for (size_t i = 1; i < n && uniform; i++) uniform = t->ints[i] == t->ints[0];
  if (uniform && n > 0) return mk_idx(t->disps, mk_vec(t->ints[0], k->extent(), p));
  std::vector<NodeP> kids(n);
  for (size_t i = 0; i < n; i++) kids[i] = mk_vec(t->ints[i], k->extent(), p);
  return mk_struct(t->disps, std::move(kids));
}

NodeP build(const loom_type_s *t) {
  const loom_type_s *k = t->kids.empty() ? nullptr : t->kids[0];
  switch (t->combiner) {
    case LOOM_COMBINER_NAMED: {
      if (t->raw_bytes) return mk_block(t->size);
      if (const PairLayout *p = pair_layout(t->prim))
        return mk_struct({0, p->second_off}, {mk_block(prim_info(p->first).size),
                                              mk_block(prim_info(p->second).size)});
      return mk_block(t->size);
    }
    case LOOM_COMBINER_DUP:
    case LOOM_COMBINER_RESIZED: return type_plan(k);
    case LOOM_COMBINER_SUBARRAY:
    case LOOM_COMBINER_DARRAY: return type_plan(t->layout);
    case LOOM_COMBINER_CONTIGUOUS: return mk_vec(t->ints[0], k->extent(), type_plan(k));
    case LOOM_COMBINER_VECTOR:
    case LOOM_COMBINER_HVECTOR:
      return mk_vec(t->ints[0], t->disps[0], mk_vec(t->ints[1], k->extent(), type_plan(k)));
    case LOOM_COMBINER_INDEXED:
    case LOOM_COMBINER_HINDEXED:
    case LOOM_COMBINER_INDEXED_BLOCK:
    case LOOM_COMBINER_HINDEXED_BLOCK: return blocks_of(t, k);
    case LOOM_COMBINER_STRUCT: {
      const size_t n = t->kids.size();
      // One type in every block (a struct built from a record type): an
      // hindexed type, without a plan node per block.
      if (n > 0 && std::all_of(t->kids.begin(), t->kids.end(),
                               [k](const loom_type_s *c) { return c == k; }))
        return blocks_of(t, k);
      std::vector<NodeP> kids(n);
      for (size_t i = 0; i < n; i++)
        kids[i] = mk_vec(t->ints[i], t->kids[i]->extent(), type_plan(t->kids[i]));
      return mk_struct(t->disps, std::move(kids));
    }
  }
  return nullptr;
}

}  // namespace

const NodeP &type_plan(const loom_type_s *t) {
  if (t->plan_ready.load(std::memory_order_acquire)) return t->plan;
  std::call_once(t->plan_once, [t] {
    t->plan = build(t);
    t->plan_ready.store(true, std::memory_order_release);
  });
  return t->plan;
}

}  // namespace loom

namespace loom {
PlanRef fold_plan(const loom_type_s *t, int64_t count) {
  const NodeP &p = type_plan(t);
  if (count == 1 || !p) return {p.get(), nullptr};
  if (count <= 0) return {};
  for (const auto &f : t->folds)
    if (f.count.load(std::memory_order_acquire) == count)
      return {f.plan.load(std::memory_order_relaxed), nullptr};
  {
    std::lock_guard<std::mutex> lock(t->fold_mu);
    if (NodeP n = t->recent_folds.find(count)) return {n.get(), std::move(n)};
  }
  // Built outside the lock: choosing kernels takes a microsecond or more.
  NodeP n = mk_vec(count, t->extent(), p);
  NodeP replaced;
  std::lock_guard<std::mutex> lock(t->fold_mu);
  for (auto &f : t->folds) {
    int64_t c = f.count.load(std::memory_order_relaxed);
    if (c == count) return {f.plan.load(std::memory_order_relaxed), nullptr};
    if (c == 0) {
      t->fold_owners.push_back(n);
      f.plan.store(n.get(), std::memory_order_relaxed);
      f.count.store(count, std::memory_order_release);
      return {n.get(), nullptr};
    }
  }
  // Every slot taken: kept with the recent counts (unless another thread
  // kept one for this count meanwhile; this call uses its own).
  if (!t->recent_folds.find(count)) replaced = t->recent_folds.add(count, n);
  return {n.get(), std::move(n)};
}
}  // namespace loom
