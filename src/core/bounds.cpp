#include "bounds.hpp"

#include <algorithm>
#include <limits>

namespace loom {
namespace {
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

bool mul(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }
bool add(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
bool sub(int64_t a, int64_t b, int64_t *r) { return !__builtin_sub_overflow(a, b, r); }

// Lowest and highest start of n copies one extent apart.
bool span(const Piece &p, int64_t *lo, int64_t *hi) {
  int64_t last;
  if (!mul(p.n - 1, p.t->extent(), &last)) return false;
  *lo = p.disp + std::min<int64_t>(0, last);
  *hi = p.disp + std::max<int64_t>(0, last);
  return true;
}
}  // namespace

bool compute_bounds(loom_type_s *out, const std::vector<Piece> &pieces,
                    bool is_struct) {
  const bool sticky = !(is_struct && out->rule == LOOM_BOUNDS_MPICH);
  int64_t size = 0, nel = 0, ext32 = 0, align = 1;
  int64_t lb = kMax, ub = kMin, mlb = kMax, mub = kMin, tlb = kMax, tub = kMin;
  bool any = false, has_lbm = false, has_ubm = false;
  int homog = -2;  // -2: no element yet
  for (const Piece &p : pieces) {
    if (p.n <= 0) continue;
    const loom_type_s *t = p.t;
    int64_t lo, hi, v;
    if (!span(p, &lo, &hi)) return false;
    any = true;
    align = std::max(align, t->align);
    if (!mul(p.n, t->size, &v) || !add(size, v, &size)) return false;
    if (!mul(p.n, t->nelems, &v) || !add(nel, v, &nel)) return false;
    if (!mul(p.n, t->ext32_size, &v) || !add(ext32, v, &ext32)) return false;
    if (!add(lo, t->lb, &v)) return false;
    if (t->lb_marker && sticky) { has_lbm = true; mlb = std::min(mlb, v); }
    lb = std::min(lb, v);
    if (!add(hi, t->ub, &v)) return false;
    if (t->ub_marker && sticky) { has_ubm = true; mub = std::max(mub, v); }
    ub = std::max(ub, v);
    if (t->size > 0) {
      if (!add(lo, t->true_lb, &v)) return false;
      tlb = std::min(tlb, v);
      if (!add(hi, t->true_ub, &v)) return false;
      tub = std::max(tub, v);
      if (homog == -2) homog = t->homogeneous;
      else if (homog != t->homogeneous) homog = -1;
    }
  }
  out->size = size;
  out->nelems = nel;
  out->ext32_size = ext32;
  out->align = align;
  out->homogeneous = homog == -2 ? -1 : homog;
  if (!any) {  // an empty typemap
    out->lb = out->ub = out->true_lb = out->true_ub = 0;
    return true;
  }
  // Explicit markers win over data bounds (the standard's sticky lb/ub).
  out->lb_marker = has_lbm;
  out->ub_marker = has_ubm;
  if (has_lbm) lb = mlb;
  if (has_ubm) ub = mub;
  // The extent and the true extent must fit too: every user of a type
  // takes ub - lb.
  int64_t ext;
  if (!sub(ub, lb, &ext)) return false;
  if (is_struct && !has_ubm && align > 1) {
    // Round the extent up to the strictest member alignment (MPI's epsilon).
    int64_t rem = ext % align;
    if (rem && (!add(ub, align - rem, &ub) || !sub(ub, lb, &ext))) return false;
  }
  out->lb = lb;
  out->ub = ub;
  if (tlb == kMax) tlb = tub = 0;
  if (!sub(tub, tlb, &ext)) return false;
  out->true_lb = tlb;
  out->true_ub = tub;
  return true;
}

}  // namespace loom
