// Random type trees with a given signature (see signature.hpp).  A
// signature is regrouped top-down: a repetition (its primitive root k
// times) becomes a constructor whose copies, blocks or sub-array cells
// multiply to k, over a child that repeats the root k / that many times;
// what does not repeat is cut into consecutive parts, the members of a
// struct placed side by side as a C compiler would (aligned, sometimes
// padded, sometimes in reverse or shuffled address order).
#include <algorithm>
#include <stdexcept>

#include "random_draw.hpp"
#include "signature.hpp"

namespace loomtest {

namespace {

struct SigGen : Draw {
  SigGenOptions opt;

  // A divisor of k drawn among those in [lo, hi]; 1 when there is none.
  int64_t divisor(int64_t k, int64_t lo = 2, int64_t hi = INT64_MAX) {
    std::vector<int64_t> d;
    for (int64_t i = 1; i * i <= k; ++i) {
      if (k % i) continue;
      for (int64_t x : {i, k / i})
        if (x >= lo && x <= hi && (d.empty() || d.back() != x)) d.push_back(x);
    }
    return d.empty() ? 1 : d[static_cast<size_t>(uni(0, (int64_t)d.size() - 1))];
  }

  // k as a product of n factors (some may be 1), in random order.
  std::vector<int64_t> factors(int64_t k, size_t n) {
    std::vector<int64_t> f;
    for (size_t i = 0; i + 1 < n; ++i) {
      int64_t x = divisor(k, 1);
      f.push_back(x);
      k /= x;
    }
    f.push_back(k);
    std::shuffle(f.begin(), f.end(), rng);
    return f;
  }

  // k split into n parts >= 1 (n <= k).
  std::vector<int64_t> parts(int64_t k, size_t n) {
    std::vector<int64_t> cut;
    while (cut.size() + 1 < n) {
      int64_t c = uni(1, k - 1);
      if (std::find(cut.begin(), cut.end(), c) == cut.end()) cut.push_back(c);
    }
    std::sort(cut.begin(), cut.end());
    std::vector<int64_t> p;
    int64_t at = 0;
    for (int64_t c : cut) {
      p.push_back(c - at);
      at = c;
    }
    p.push_back(k - at);
    return p;
  }

  // Byte unit for h-forms: the old extent, sometimes unaligned.
  int64_t byte_unit(const TypeSpecPtr &c) {
    const int64_t e = std::max<int64_t>(reference_layout(*c).extent(), 1);
    return chance(0.8) ? e : e + uni(1, 3);
  }

  // Memory-dense: resized to its size at its true lb, where the data leave
  // no hole (a pair type, a packed struct{int, float}).
  TypeSpecPtr dense(const TypeSpecPtr &t) {
    const Layout l = reference_layout(*t);
    if (l.size > 0 && l.true_extent() == l.size) return resized(t, l.true_lb, l.size);
    return t;
  }

  TypeSpecPtr wrap(TypeSpecPtr t) {
    if (chance(opt.resize)) {
      auto b = wild_bounds(reference_layout(*t));
      return resized(t, b.first, b.second);
    }
    return chance(0.05) ? dup(t) : t;
  }

  TypeSpecPtr leaf(loom_prim p) {
    TypeSpecPtr t = prim(p);
    if (sig_members(p).size() == 2 && chance(0.35)) return dense(t);
    return wrap(t);
  }

  // A type with signature s.
  TypeSpecPtr seg(const Signature &s, int depth) {
    Signature r;
    const int64_t k = sig_root(s, &r);
    if (k > 1) return rep(r, k, depth);
    const int64_t n = sig_elements(s);
    if (n == 1) return leaf(s[0].prim);
    if (n == 2) {
      const loom_prim p = pair_of(sig_slice(s, 0, 1)[0].prim, sig_slice(s, 1, 2)[0].prim);
      if (p != LOOM_PRIM_COUNT && chance(0.7)) return leaf(p);
    }
    return members(s, depth);
  }

  // A type with signature unit repeated k times (unit is its own root).
  TypeSpecPtr rep(const Signature &unit, int64_t k, int depth) {
    if (k == 1) return seg(unit, depth);
    if (depth <= 0) return wrap(contig(k, seg(unit, 0)));
    const int64_t k1 = divisor(k), k2 = k / k1;  // k1 copies of unit^k2
    auto child = [&](int64_t reps) { return rep(unit, reps, depth - 1); };
    auto stride = [&](int64_t bl) {
      int64_t s = bl + uni(0, 2);
      return chance(0.25) ? -s : s;
    };
    switch (uni(0, 9)) {
      case 0: return wrap(contig(k1, child(k2)));
      case 1: {
        const int64_t bl = divisor(k1, 1);
        return wrap(vector(k1 / bl, bl, stride(bl), child(k2)));
      }
      case 2: {
        const int64_t bl = divisor(k1, 1);
        TypeSpecPtr c = child(k2);
        const int64_t u = byte_unit(c);
        return wrap(hvector(k1 / bl, bl, stride(bl) * u, c));
      }
      case 3:
      case 4: {
        std::vector<int64_t> bl = parts(k1, (size_t)uni(1, std::min<int64_t>(k1, 4)));
        if (chance(0.2)) bl.insert(bl.begin() + uni(0, (int64_t)bl.size()), 0);
        TypeSpecPtr c = child(k2);
        if (uni(0, 1)) return wrap(indexed(bl, displs(bl.size(), 1, bl), c));
        return wrap(hindexed(bl, displs(bl.size(), byte_unit(c), bl), c));
      }
      case 5:
      case 6: {
        const int64_t nb = divisor(k1, 1, 8), bl = k1 / nb;
        const std::vector<int64_t> bls((size_t)nb, bl);
        TypeSpecPtr c = child(k2);
        if (uni(0, 1)) return wrap(indexed_block(bl, displs(bls.size(), 1, bls), c));
        return wrap(hindexed_block(bl, displs(bls.size(), byte_unit(c), bls), c));
      }
      case 7: {  // struct of differently shaped repetitions of the unit
        std::vector<int64_t> ks = parts(k, (size_t)std::min<int64_t>(k, uni(2, 3)));
        std::vector<TypeSpecPtr> ts;
        std::vector<int64_t> bls;
        for (int64_t ki : ks) {
          const int64_t b = chance(0.5) ? divisor(ki, 1) : 1;
          bls.push_back(b);
          ts.push_back(rep(unit, ki / b, depth - 1));
        }
        return wrap(place(ts, bls));
      }
      case 8: {
        const std::vector<int64_t> sub = factors(k1, (size_t)uni(1, 3));
        std::vector<int64_t> sz, st;
        for (int64_t x : sub) {
          sz.push_back(x + uni(0, 2));
          st.push_back(uni(0, sz.back() - x));
        }
        return wrap(subarray(sz, sub, st, chance(0.5) ? LOOM_ORDER_C : LOOM_ORDER_FORTRAN,
                             child(k2)));
      }
      default: return wrap(distributed(factors(k1, (size_t)uni(1, 3)), child(k2)));
    }
  }

  // darray in which this rank owns local[d] cells of dimension d.
  TypeSpecPtr distributed(const std::vector<int64_t> &local, TypeSpecPtr c) {
    const size_t nd = local.size();
    std::vector<int64_t> g(nd);
    std::vector<int> dist(nd), darg(nd, LOOM_DISTRIBUTE_DFLT_DARG), p(nd, 1);
    int nprocs = 1;
    for (size_t d = 0; d < nd; ++d) {
      dist[d] = static_cast<int>(uni(0, 2));
      if (dist[d] != LOOM_DISTRIBUTE_NONE) p[d] = static_cast<int>(uni(1, 3));
      if (nprocs * p[d] > 8) p[d] = 1;
      nprocs *= p[d];
      // g = local * p: every process owns local cells, in blocks (default
      // or explicit block size) or cyclically in blocks dividing local.
      g[d] = local[d] * p[d];
      if (dist[d] == LOOM_DISTRIBUTE_BLOCK && chance(0.3)) darg[d] = (int)local[d];
      if (dist[d] == LOOM_DISTRIBUTE_CYCLIC && chance(0.6))
        darg[d] = (int)divisor(local[d], 1);
    }
    return darray(nprocs, (int)uni(0, nprocs - 1), g, dist, darg, p,
                  chance(0.5) ? LOOM_ORDER_C : LOOM_ORDER_FORTRAN, c);
  }

  // A struct of consecutive parts of s (not a repetition).
  TypeSpecPtr members(const Signature &s, int depth) {
    const int64_t n = sig_elements(s);
    std::vector<int64_t> cut;  // part boundaries, mostly at run boundaries
    const size_t m = (size_t)std::min<int64_t>(n, uni(2, depth > 0 ? 4 : 8));
    Signature head_root;
    const int64_t copies = sig_repeated_prefix(s, &head_root);
    const int64_t head = copies * sig_elements(head_root);
    if (copies >= 2 && 2 * head >= n) {
      cut.push_back(head);  // mostly a repetition (and what follows)
    } else if (s.size() >= m && chance(0.7)) {
      std::vector<int64_t> at;
      int64_t pos = 0;
      for (size_t i = 0; i + 1 < s.size(); ++i) at.push_back(pos += s[i].n);
      std::shuffle(at.begin(), at.end(), rng);
      cut.assign(at.begin(), at.begin() + (long)(m - 1));
      std::sort(cut.begin(), cut.end());
    } else {
      int64_t at = 0;
      for (int64_t len : parts(n, m)) cut.push_back(at += len);
      cut.pop_back();
    }
    cut.push_back(n);
    std::vector<TypeSpecPtr> ts;
    std::vector<int64_t> bls;
    int64_t begin = 0;
    for (int64_t end : cut) {
      const Signature part = sig_slice(s, begin, end);
      begin = end;
      Signature r;
      const int64_t k = sig_root(part, &r);
      const int64_t b = k > 1 && chance(0.5) ? divisor(k, 1) : 1;
      bls.push_back(b);
      ts.push_back(b > 1 ? rep(r, k / b, depth - 1) : seg(part, depth - 1));
    }
    TypeSpecPtr t = place(ts, bls);
    return chance(0.3) ? dense(t) : wrap(t);
  }

  // struct(bls, displs, ts) with the members side by side: each member's
  // blocks take the bytes their data span, at an address aligned for the
  // member, after a small gap now and then; in order, reversed or shuffled.
  TypeSpecPtr place(const std::vector<TypeSpecPtr> &ts, const std::vector<int64_t> &bls) {
    const size_t n = ts.size();
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    if (chance(0.2)) std::reverse(order.begin(), order.end());
    else if (chance(0.1)) std::shuffle(order.begin(), order.end(), rng);
    std::vector<int64_t> d(n);
    int64_t pos = 0;
    for (size_t i : order) {
      const Layout l = reference_layout(*ts[i]);
      int64_t lo, hi;
      reference_span(l, bls[i], &lo, &hi);
      const int64_t a = l.align;
      int64_t at = pos - lo;  // member origin with its data from pos on
      at = at >= 0 ? (at + a - 1) / a * a : -((-at) / a * a);
      d[i] = at;
      pos = at + std::max(hi, lo) + (chance(0.25) ? uni(1, 8) : 0);
    }
    TypeSpecPtr t = cover(structure(bls, d, ts));
    if (t->kind == Kind::Resized || !chance(opt.explicit_bounds)) return t;
    const Layout l = reference_layout(*t);
    return resized(t, l.lb, l.extent());
  }

  // A struct with a resized member takes its bounds from that member's
  // markers alone (they are sticky), which may leave data outside them:
  // resized to cover its data, as a C struct would.
  TypeSpecPtr cover(const TypeSpecPtr &t) {
    const Layout l = reference_layout(*t);
    if (l.size == 0 || (l.lb <= l.true_lb && l.ub >= l.true_ub)) return t;
    const int64_t lb = std::min(l.lb, l.true_lb), ub = std::max(l.ub, l.true_ub);
    return resized(t, lb, ub - lb);
  }
};

}  // namespace

TypeSpecPtr random_with_signature(std::mt19937_64 &rng, const Signature &s,
                                  const SigGenOptions &opt) {
  if (s.empty()) throw std::invalid_argument("random_with_signature: empty signature");
  SigGen g{{rng}, opt};
  TypeSpecPtr t = g.seg(s, opt.max_depth);
  if (!(signature_of(*t) == s))
    throw std::logic_error("random_with_signature made " + describe(*t) +
                           " for signature " + describe(s));
  return t;
}

}  // namespace loomtest
