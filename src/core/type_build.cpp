// The MPI constructors.  Each validates its arguments, records them, and
// derives the MPI-exact bounds through compute_bounds().
#include <algorithm>
#include <new>

#include "api_call.hpp"
#include "bounds.hpp"
#include "pair.hpp"
#include "type.hpp"

using loom::Piece;

loom_type_s::~loom_type_s() {
  for (loom_type k : kids) loom_type_free(k);
  if (layout) loom_type_free(layout);
}

namespace {

using loom::TypeOwner;

loom_status finish(TypeOwner t, const std::vector<Piece> &pieces,
                   bool is_struct, loom_type *out) {
  if (!loom::compute_bounds(t.get(), pieces, is_struct)) return LOOM_ERR_OVERFLOW;
  *out = t.release();
  return LOOM_OK;
}

bool bad(loom_type old, loom_type *out) { return !old || !out; }

// count * (blocklen * unit), false on overflow.
bool blocks_of(int64_t count, int64_t blocklen, int64_t unit, int64_t *r) {
  return !__builtin_mul_overflow(blocklen, unit, r) &&
         !__builtin_mul_overflow(count, *r, r);
}

// Shared body of contiguous, vector and hvector (stride already in bytes);
// `args` are the constructor arguments kept for introspection.
loom_status strided(loom_combiner c, int64_t count, int64_t blocklen,
                    int64_t stride_bytes, std::vector<int64_t> args,
                    loom_type old, loom_type *out) {
  if (bad(old, out)) return LOOM_ERR_ARG;
  if (count < 0 || blocklen < 0) return LOOM_ERR_COUNT;
  TypeOwner t = loom::new_type(c, old);
  t->ints = std::move(args);
  t->disps = {stride_bytes};
  std::vector<Piece> pieces;
  if (count > 0 && blocklen > 0) {
    // The bounds of count blocks depend only on the first and the last.
    pieces.push_back({0, blocklen, old});
    int64_t last;
    if (__builtin_mul_overflow(count - 1, stride_bytes, &last)) return LOOM_ERR_OVERFLOW;
    if (count > 1) pieces.push_back({last, blocklen, old});
  }
  if (!loom::compute_bounds(t.get(), pieces, false)) return LOOM_ERR_OVERFLOW;
  // Sizes count every block, not just the two that shape the bounds.
  if (!blocks_of(count, blocklen, old->size, &t->size) ||
      !blocks_of(count, blocklen, old->nelems, &t->nelems) ||
      !blocks_of(count, blocklen, old->ext32_size, &t->ext32_size))
    return LOOM_ERR_OVERFLOW;
  *out = t.release();
  return LOOM_OK;
}

loom_status indexed_common(loom_combiner c, int64_t count,
                           const int64_t *blocklens, int64_t blocklen,
                           const int64_t *displs, int64_t unit, loom_type old,
                           loom_type *out) {
  if (bad(old, out) || (count > 0 && !displs))
    return LOOM_ERR_ARG;
  if (count < 0 || blocklen < 0) return LOOM_ERR_COUNT;
  TypeOwner t = loom::new_type(c, old);
  std::vector<Piece> pieces;
  t->ints.resize(count);
  t->disps.resize(count);
  pieces.reserve(count);
  for (int64_t i = 0; i < count; i++) {
    int64_t bl = blocklens ? blocklens[i] : blocklen, d;
    if (bl < 0) return LOOM_ERR_COUNT;
    if (__builtin_mul_overflow(displs[i], unit, &d)) return LOOM_ERR_OVERFLOW;
    t->ints[i] = bl;
    t->disps[i] = d;
    pieces.push_back({d, bl, old});
  }
  return finish(std::move(t), pieces, false, out);
}

}  // namespace

namespace loom {

TypeOwner new_type(loom_combiner c, loom_type old) {
  TypeOwner t(new loom_type_s);
  t->combiner = c;
  if (old) {
    t->kids.reserve(1);  // no allocation once the reference is taken
    t->kids.push_back(loom_type_ref(old));
  }
  return t;
}

void inherit_sizes(loom_type_s *t, const loom_type_s *from) {
  t->size = from->size;
  t->nelems = from->nelems;
  t->ext32_size = from->ext32_size;
  t->align = from->align;
  t->homogeneous = from->homogeneous;
  t->true_lb = from->true_lb;
  t->true_ub = from->true_ub;
}

}  // namespace loom

extern "C" {

loom_type loom_type_ref(loom_type t) {
  if (t) t->refs.fetch_add(1, std::memory_order_relaxed);
  return t;
}

void loom_type_free(loom_type t) {
  if (t && t->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete t;
}

// Primitives and raw bytes allocate once and hold no references: a nothrow
// new is all their failure handling.
loom_status loom_type_primitive(loom_prim p, loom_type *out) {
  if (!out || p < 0 || p >= LOOM_PRIM_COUNT) return LOOM_ERR_ARG;
  auto *t = new (std::nothrow) loom_type_s;
  if (!t) return LOOM_ERR_NOMEM;
  const loom::PrimInfo &pi = loom::prim_info(p);
  t->prim = p;
  t->size = pi.size;
  t->align = pi.align;
  t->nelems = pi.nelems;
  t->ext32_size = pi.ext32_size;
  t->homogeneous = pi.cls == loom::PrimInfo::Pair ? -1 : p;
  const loom::PairLayout *pl = loom::pair_layout(p);
  t->ub = pl ? pl->extent : pi.size;
  t->true_ub = pl ? pl->second_off + loom::prim_info(pl->second).size : pi.size;
  *out = t;
  return LOOM_OK;
}

loom_status loom_type_bytes(int64_t size, int64_t align, loom_type *out) {
  if (!out || size < 0 || align < 1 || (align & (align - 1))) return LOOM_ERR_ARG;
  auto *t = new (std::nothrow) loom_type_s;
  if (!t) return LOOM_ERR_NOMEM;
  t->raw_bytes = true;
  t->size = t->ub = t->true_ub = t->ext32_size = size;
  t->align = align;
  t->nelems = 1;
  *out = t;
  return LOOM_OK;
}

loom_status loom_type_contiguous(int64_t count, loom_type old, loom_type *out) {
  return loom::api_call([&] {
    return strided(LOOM_COMBINER_CONTIGUOUS, 1, count, 0, {count}, old, out);
  });
}

loom_status loom_type_vector(int64_t count, int64_t blocklen, int64_t stride,
                             loom_type old, loom_type *out) {
  if (bad(old, out)) return LOOM_ERR_ARG;
  int64_t sb;
  if (__builtin_mul_overflow(stride, old->extent(), &sb)) return LOOM_ERR_OVERFLOW;
  return loom::api_call([&] {
    return strided(LOOM_COMBINER_VECTOR, count, blocklen, sb, {count, blocklen, stride},
                   old, out);
  });
}

loom_status loom_type_hvector(int64_t count, int64_t blocklen,
                              int64_t stride_bytes, loom_type old,
                              loom_type *out) {
  return loom::api_call([&] {
    return strided(LOOM_COMBINER_HVECTOR, count, blocklen, stride_bytes,
                   {count, blocklen, stride_bytes}, old, out);
  });
}

loom_status loom_type_indexed(int64_t count, const int64_t *blocklens,
                              const int64_t *displs, loom_type old,
                              loom_type *out) {
  if (bad(old, out)) return LOOM_ERR_ARG;
  if (count > 0 && !blocklens) return LOOM_ERR_ARG;
  return loom::api_call([&] {
    return indexed_common(LOOM_COMBINER_INDEXED, count, blocklens, 0, displs,
                          old->extent(), old, out);
  });
}

loom_status loom_type_hindexed(int64_t count, const int64_t *blocklens,
                               const int64_t *displs_bytes, loom_type old,
                               loom_type *out) {
  if (count > 0 && !blocklens) return LOOM_ERR_ARG;
  return loom::api_call([&] {
    return indexed_common(LOOM_COMBINER_HINDEXED, count, blocklens, 0,
                          displs_bytes, 1, old, out);
  });
}

loom_status loom_type_indexed_block(int64_t count, int64_t blocklen,
                                    const int64_t *displs, loom_type old,
                                    loom_type *out) {
  if (bad(old, out)) return LOOM_ERR_ARG;
  return loom::api_call([&] {
    return indexed_common(LOOM_COMBINER_INDEXED_BLOCK, count, nullptr, blocklen,
                          displs, old->extent(), old, out);
  });
}

loom_status loom_type_hindexed_block(int64_t count, int64_t blocklen,
                                     const int64_t *displs_bytes,
                                     loom_type old, loom_type *out) {
  return loom::api_call([&] {
    return indexed_common(LOOM_COMBINER_HINDEXED_BLOCK, count, nullptr, blocklen,
                          displs_bytes, 1, old, out);
  });
}

loom_status loom_type_struct(int64_t count, const int64_t *blocklens,
                             const int64_t *displs_bytes,
                             const loom_type *types, loom_bounds_rule rule,
                             loom_type *out) {
  if (!out || (count > 0 && (!blocklens || !displs_bytes || !types)))
    return LOOM_ERR_ARG;
  if (rule != LOOM_BOUNDS_STANDARD && rule != LOOM_BOUNDS_MPICH) return LOOM_ERR_ARG;
  if (count < 0) return LOOM_ERR_COUNT;
  for (int64_t i = 0; i < count; i++) {
    if (!types[i]) return LOOM_ERR_ARG;
    if (blocklens[i] < 0) return LOOM_ERR_COUNT;
  }
  return loom::api_call([&, rule] {  // rule by value: C callers may pass any int
    TypeOwner t = loom::new_type(LOOM_COMBINER_STRUCT, nullptr);
    t->rule = rule;
    std::vector<Piece> pieces;
    pieces.reserve(count);
    t->ints.assign(blocklens, blocklens + count);
    t->disps.assign(displs_bytes, displs_bytes + count);
    t->kids.reserve(count);  // no allocation once references are taken
    for (int64_t i = 0; i < count; i++) {
      t->kids.push_back(loom_type_ref(types[i]));
      pieces.push_back({displs_bytes[i], blocklens[i], types[i]});
    }
    return finish(std::move(t), pieces, true, out);
  });
}

loom_status loom_type_resized(loom_type old, int64_t lb, int64_t extent,
                              loom_type *out) {
  if (bad(old, out)) return LOOM_ERR_ARG;
  int64_t ub;
  if (__builtin_add_overflow(lb, extent, &ub)) return LOOM_ERR_OVERFLOW;
  return loom::api_call([&] {
    TypeOwner t = loom::new_type(LOOM_COMBINER_RESIZED, old);
    t->disps = {lb, extent};
    loom::inherit_sizes(t.get(), old);
    t->lb = lb;
    t->ub = ub;
    t->lb_marker = t->ub_marker = true;
    *out = t.release();
    return LOOM_OK;
  });
}

loom_status loom_type_dup(loom_type old, loom_type *out) {
  if (bad(old, out)) return LOOM_ERR_ARG;
  return loom::api_call([&] {
    TypeOwner t = loom::new_type(LOOM_COMBINER_DUP, old);
    loom::inherit_sizes(t.get(), old);
    t->lb = old->lb;
    t->ub = old->ub;
    t->lb_marker = old->lb_marker;
    t->ub_marker = old->ub_marker;
    *out = t.release();
    return LOOM_OK;
  });
}

}  // extern "C"
