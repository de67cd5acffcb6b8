// Subarray and darray: described by their MPI arguments, laid out by an
// equivalent type built from the simpler constructors (the standard defines
// them that way too).  Building costs O(ndims), never O(elements).
#include <algorithm>
#include <vector>

#include "api_call.hpp"
#include "type.hpp"

namespace {

// Owns intermediate references while a layout is assembled.
struct Chain {
  loom_type cur = nullptr;
  ~Chain() { loom_type_free(cur); }
  loom_status step(loom_status s, loom_type next) {
    if (s != LOOM_OK) return s;
    loom_type_free(cur);
    cur = next;
    return LOOM_OK;
  }
};

loom_status wrap(loom_combiner c, loom_type layout, loom_type old,
                 std::vector<int64_t> args, loom_type *out) {
  loom::TypeOwner t = loom::new_type(c, old);
  t->ints = std::move(args);
  t->layout = loom_type_ref(layout);  // nothing below can fail
  loom::inherit_sizes(t.get(), layout);
  t->align = old->align;
  t->lb = layout->lb;
  t->ub = layout->ub;
  t->lb_marker = t->ub_marker = true;
  *out = t.release();
  return LOOM_OK;
}

// Places `t` at byte `disp` inside an array of `total` bytes starting at 0.
loom_status place(loom_type t, int64_t disp, int64_t total, Chain &c) {
  loom_type moved, sized;
  loom_status s = loom_type_hindexed_block(1, 1, &disp, t, &moved);
  if (s != LOOM_OK) return s;
  s = loom_type_resized(moved, 0, total, &sized);
  loom_type_free(moved);
  return c.step(s, sized);
}

}  // namespace

extern "C" {

loom_status loom_type_subarray(int ndims, const int64_t *sizes,
                               const int64_t *subsizes, const int64_t *starts,
                               int order, loom_type old, loom_type *out) {
  if (!old || !out || ndims <= 0 || !sizes || !subsizes || !starts ||
      (order != LOOM_ORDER_C && order != LOOM_ORDER_FORTRAN))
    return LOOM_ERR_ARG;
  for (int d = 0; d < ndims; d++)
    if (sizes[d] <= 0 || subsizes[d] < 0 || starts[d] < 0 ||
        subsizes[d] > sizes[d] || starts[d] > sizes[d] - subsizes[d])
      return LOOM_ERR_ARG;
  return loom::api_call([&] {
    Chain c;
    c.cur = loom_type_ref(old);
    int64_t stride = old->extent(), disp = 0;
    for (int k = 0; k < ndims; k++) {
      int d = order == LOOM_ORDER_C ? ndims - 1 - k : k;  // innermost first
      loom_type next = nullptr;
      loom_status s = loom_type_hvector(subsizes[d], 1, stride, c.cur, &next);
      s = c.step(s, next);
      if (s != LOOM_OK) return s;
      int64_t off;
      if (__builtin_mul_overflow(starts[d], stride, &off) ||
          __builtin_add_overflow(disp, off, &disp) ||
          __builtin_mul_overflow(stride, sizes[d], &stride))
        return LOOM_ERR_OVERFLOW;
    }
    loom_status s = place(c.cur, disp, stride, c);
    if (s != LOOM_OK) return s;
    std::vector<int64_t> args{ndims, order};
    args.insert(args.end(), sizes, sizes + ndims);
    args.insert(args.end(), subsizes, subsizes + ndims);
    args.insert(args.end(), starts, starts + ndims);
    return wrap(LOOM_COMBINER_SUBARRAY, c.cur, old, std::move(args), out);
  });
}

loom_status loom_type_darray(int size, int rank, int ndims,
                             const int64_t *gsizes, const int *distribs,
                             const int *dargs, const int *psizes, int order,
                             loom_type old, loom_type *out) {
  if (!old || !out || size <= 0 || rank < 0 || rank >= size || ndims <= 0 ||
      !gsizes || !distribs || !dargs || !psizes ||
      (order != LOOM_ORDER_C && order != LOOM_ORDER_FORTRAN))
    return LOOM_ERR_ARG;
  int64_t nprocs = 1;
  for (int d = 0; d < ndims; d++) {
    if (gsizes[d] <= 0 || psizes[d] <= 0 ||
        __builtin_mul_overflow(nprocs, psizes[d], &nprocs) || nprocs > size)
      return LOOM_ERR_ARG;
  }
  if (nprocs != size) return LOOM_ERR_ARG;
  return loom::api_call([&] {
    // Process coordinates are row-major whatever the array order.
    std::vector<int64_t> coords(ndims);
    for (int d = ndims - 1, r = rank; d >= 0; d--) {
      coords[d] = r % psizes[d];
      r /= psizes[d];
    }
    Chain c;
    c.cur = loom_type_ref(old);
    int64_t stride = old->extent(), disp = 0;
    for (int k = 0; k < ndims; k++) {
      int d = order == LOOM_ORDER_C ? ndims - 1 - k : k;
      int64_t gs = gsizes[d], np = psizes[d], r = coords[d], darg = dargs[d];
      if (k > 0) {  // copies of the inner dimensions sit one row apart
        loom_type sized = nullptr;
        loom_status s = loom_type_resized(c.cur, c.cur->lb, stride, &sized);
        s = c.step(s, sized);
        if (s != LOOM_OK) return s;
      }
      loom_type next = nullptr;
      loom_status s;
      int64_t first = 0;  // first global index owned, in this dimension
      if (distribs[d] == LOOM_DISTRIBUTE_NONE || distribs[d] == LOOM_DISTRIBUTE_BLOCK) {
        if (distribs[d] == LOOM_DISTRIBUTE_NONE) np = 1, r = 0, darg = LOOM_DISTRIBUTE_DFLT_DARG;
        int64_t blk = darg == LOOM_DISTRIBUTE_DFLT_DARG ? (gs + np - 1) / np : darg;
        if (blk <= 0 || blk * np < gs) return LOOM_ERR_ARG;
        int64_t mine = std::min(blk, gs - blk * r);
        if (mine < 0) mine = 0;
        if (mine > 0) first = blk * r;
        s = loom_type_hvector(mine, 1, stride, c.cur, &next);
      } else if (distribs[d] == LOOM_DISTRIBUTE_CYCLIC) {
        int64_t blk = darg == LOOM_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        if (blk <= 0) return LOOM_ERR_ARG;
        int64_t start = r * blk, local = 0;
        if (start < gs) {
          int64_t span = gs - start, cycle = np * blk;
          local = span / cycle * blk + std::min(span % cycle, blk);
          first = start;
        }
        int64_t nfull = local / blk, rem = local % blk, cstride, tail;
        if (__builtin_mul_overflow(np * blk, stride, &cstride) ||
            __builtin_mul_overflow(nfull, cstride, &tail))
          return LOOM_ERR_OVERFLOW;
        s = loom_type_hvector(nfull, blk, cstride, c.cur, &next);
        if (s == LOOM_OK && rem) {  // a last, shorter block
          loom_type kids[2] = {next, c.cur};
          int64_t bl[2] = {1, rem}, ds[2] = {0, tail};
          loom_type both;
          s = loom_type_struct(2, bl, ds, kids, LOOM_BOUNDS_STANDARD, &both);
          loom_type_free(next);
          next = s == LOOM_OK ? both : nullptr;
        }
      } else {
        return LOOM_ERR_ARG;
      }
      if (c.step(s, next) != LOOM_OK) return s;
      if (__builtin_mul_overflow(first, stride, &first) ||
          __builtin_add_overflow(disp, first, &disp) ||
          __builtin_mul_overflow(stride, gs, &stride))
        return LOOM_ERR_OVERFLOW;
    }
    loom_status s = place(c.cur, disp, stride, c);
    if (s != LOOM_OK) return s;
    std::vector<int64_t> args{size, rank, ndims, order};
    args.insert(args.end(), gsizes, gsizes + ndims);
    for (int d = 0; d < ndims; d++) args.push_back(distribs[d]);
    for (int d = 0; d < ndims; d++) args.push_back(dargs[d]);
    for (int d = 0; d < ndims; d++) args.push_back(psizes[d]);
    return wrap(LOOM_COMBINER_DARRAY, c.cur, old, std::move(args), out);
  });
}

}  // extern "C"
