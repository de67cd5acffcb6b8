// Seeded random type trees.  The distribution leans towards the cases that
// break type engines: zero counts and block lengths, negative strides and
// displacements, resized with negative lb, struct gaps, pair types, and
// subarray/darray over derived types.  Most trees do not overlap themselves
// (so unpack can be checked), some do (pack must still read them right).
#include <algorithm>
#include <stdexcept>

#include "random_draw.hpp"

namespace loomtest {

namespace {

constexpr int64_t kMaxSpan = 64 * 1024;     // bytes one instance may touch
constexpr size_t kMaxPieces = 3000;         // typemap pieces per instance

struct Gen : Draw {
  GenOptions opt;

  // Layout of a subtree under construction; a subtree far over budget
  // throws std::length_error and the whole tree is redrawn.
  Layout lay(const TypeSpec &t) { return reference_layout(t, 4 * kMaxPieces); }

  // Mostly small counts, zero now and then, and sometimes long enough for
  // the vectorised/unrolled kernels to engage.
  int64_t count() { return chance(0.04) ? 0 : chance(0.75) ? uni(1, 4) : uni(5, 40); }
  int64_t blocklen() { return chance(0.04) ? 0 : chance(0.75) ? uni(1, 3) : uni(4, 16); }

  TypeSpecPtr primitive() {
    static const loom_prim common[] = {LOOM_CHAR, LOOM_INT, LOOM_DOUBLE,
                                       LOOM_FLOAT, LOOM_SHORT, LOOM_BYTE};
    if (opt.pair_weight > 0 && chance(opt.pair_weight)) return prim(pair_prim());
    if (chance(0.75)) return prim(common[uni(0, 5)]);
    return prim(static_cast<loom_prim>(uni(0, LOOM_PRIM_COUNT - 1)));
  }

  // Byte unit for h-forms: usually the old extent, sometimes unaligned.
  int64_t byte_unit(const Layout &c) {
    int64_t e = std::max<int64_t>(c.extent(), 1);
    return chance(0.8) ? e : e + uni(0, 3);
  }

  TypeSpecPtr make(int depth, bool top = false) {
    if (depth <= 0 || (!top && chance(0.2))) return primitive();
    switch (uni(0, 13)) {
      case 0: return contig(count(), child(depth));
      case 1:
      case 2: {  // vector: stride usually >= blocklen, may be negative
        int64_t bl = blocklen();
        int64_t s = chance(0.2) ? uni(-bl - 2, bl + 2) : (bl + uni(0, 3)) * (chance(0.3) ? -1 : 1);
        return vector(count(), bl, s, child(depth));
      }
      case 3: {
        TypeSpecPtr c = child(depth);
        Layout cl = lay(*c);
        int64_t bl = blocklen();
        int64_t u = byte_unit(cl);
        int64_t s = chance(0.2) ? uni(-3, 3) * u + uni(-2, 2)
                                : (bl + uni(0, 2)) * u * (chance(0.3) ? -1 : 1);
        return hvector(count(), bl, s, c);
      }
      case 4: {
        size_t n = static_cast<size_t>(chance(0.05) ? 0 : uni(1, 5));
        std::vector<int64_t> bl(n);
        for (auto &b : bl) b = blocklen();
        return indexed(bl, displs(n, 1, bl), child(depth));
      }
      case 5: {
        TypeSpecPtr c = child(depth);
        size_t n = static_cast<size_t>(chance(0.05) ? 0 : uni(1, 5));
        std::vector<int64_t> bl(n);
        for (auto &b : bl) b = blocklen();
        return hindexed(bl, displs(n, byte_unit(lay(*c)), bl), c);
      }
      case 6: {
        size_t n = static_cast<size_t>(chance(0.05) ? 0 : uni(1, 5));
        int64_t b = blocklen();
        return indexed_block(b, displs(n, 1, std::vector<int64_t>(n, b)), child(depth));
      }
      case 7: {
        TypeSpecPtr c = child(depth);
        size_t n = static_cast<size_t>(chance(0.05) ? 0 : uni(1, 5));
        int64_t b = blocklen();
        return hindexed_block(b, displs(n, byte_unit(lay(*c)),
                                        std::vector<int64_t>(n, b)), c);
      }
      case 8:
      case 9: return make_struct(depth);
      case 10: return make_subarray(depth);
      case 11: return make_darray(depth);
      case 12: {  // resized: negative lb common, extent >= 0 unless wild
        TypeSpecPtr c = child(depth);
        Layout cl = lay(*c);
        if (opt.wild_resize && chance(0.5)) {
          auto b = wild_bounds(cl);
          return resized(c, b.first, b.second);
        }
        int64_t lb = chance(0.5) ? cl.lb - uni(0, 8) : cl.lb + uni(-8, 8);
        int64_t ext = chance(0.7) ? (cl.ub - lb) + uni(0, 16) : uni(0, 24);
        return resized(c, lb, std::max<int64_t>(ext, 0));
      }
      default: return dup(child(depth));
    }
  }

  TypeSpecPtr child(int depth) { return make(depth - 1); }

  TypeSpecPtr make_struct(int depth) {
    size_t n = static_cast<size_t>(uni(1, 4));
    std::vector<int64_t> bl(n), d(n);
    std::vector<TypeSpecPtr> ts(n);
    int64_t pos = uni(-16, 8);
    for (size_t i = 0; i < n; ++i) {
      ts[i] = chance(0.5) ? primitive() : child(depth);
      Layout l = lay(*ts[i]);
      bl[i] = blocklen();
      if (chance(0.8)) {  // natural C-like placement: aligned, after the last
        int64_t a = l.align;
        pos = (pos + a - 1) / a * a;
        d[i] = pos - l.lb;
        pos = d[i] + l.lb + bl[i] * l.extent() + (chance(0.3) ? uni(1, 8) : 0);
      } else {
        d[i] = uni(-64, 64);
      }
    }
    return structure(bl, d, ts);
  }

  TypeSpecPtr make_subarray(int depth) {
    size_t nd = static_cast<size_t>(uni(1, 3));
    std::vector<int64_t> sz(nd), sub(nd), st(nd);
    for (size_t i = 0; i < nd; ++i) {
      sz[i] = uni(1, 5);
      sub[i] = opt.zero_subsizes && chance(0.05) ? 0 : uni(1, sz[i]);
      st[i] = uni(0, sz[i] - sub[i]);
    }
    return subarray(sz, sub, st, chance(0.5) ? LOOM_ORDER_C : LOOM_ORDER_FORTRAN,
                    child(depth - 1));
  }

  TypeSpecPtr make_darray(int depth) {
    size_t nd = static_cast<size_t>(uni(1, 3));
    std::vector<int64_t> g(nd);
    std::vector<int> dist(nd), darg(nd), p(nd);
    int nprocs = 1;
    for (size_t i = 0; i < nd; ++i) {
      g[i] = uni(1, 7);
      dist[i] = static_cast<int>(uni(0, 2));
      p[i] = dist[i] == LOOM_DISTRIBUTE_NONE ? 1 : static_cast<int>(uni(1, 3));
      if (nprocs * p[i] > 8) p[i] = 1;
      nprocs *= p[i];
      darg[i] = LOOM_DISTRIBUTE_DFLT_DARG;
      if (dist[i] == LOOM_DISTRIBUTE_BLOCK && chance(0.4)) {
        int64_t minb = (g[i] + p[i] - 1) / p[i];
        darg[i] = static_cast<int>(minb + uni(0, 2));
      } else if (dist[i] == LOOM_DISTRIBUTE_CYCLIC && chance(0.6)) {
        darg[i] = static_cast<int>(uni(1, 3));
      }
    }
    int rank = static_cast<int>(uni(0, nprocs - 1));
    return darray(nprocs, rank, g, dist, darg, p,
                  chance(0.5) ? LOOM_ORDER_C : LOOM_ORDER_FORTRAN, child(depth - 1));
  }
};

bool acceptable(const TypeSpec &t, const GenOptions &opt) {
  try {
    Layout l = reference_layout(t, kMaxPieces);
    int64_t lo, hi;
    reference_span(l, 1, &lo, &hi);
    return hi - lo <= kMaxSpan && std::abs(l.extent()) <= kMaxSpan &&
           (l.extent() >= 0 || opt.wild_resize) &&
           std::abs(l.lb) <= kMaxSpan && std::abs(l.true_lb) <= kMaxSpan;
  } catch (const std::length_error &) {
    return false;
  }
}

}  // namespace

TypeSpecPtr random_spec(std::mt19937_64 &rng, int max_depth, const GenOptions &opt) {
  Gen g{{rng}, opt};
  for (int tries = 0; tries < 64; ++tries) {
    try {
      TypeSpecPtr t = g.make(max_depth, true);
      if (acceptable(*t, opt)) return t;
    } catch (const std::length_error &) {
    }
  }
  return g.primitive();
}

}  // namespace loomtest
