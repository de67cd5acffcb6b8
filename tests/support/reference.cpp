// The reference typemap interpreter.  It expands a TypeSpec into the
// explicit MPI typemap (ordered pieces of primitive data) the way the MPI
// standard defines each constructor, with no optimisation at all: every copy
// of the old type is placed at its displacement one by one.  Bounds follow
// the standard's rules as MPICH and Open MPI implement them:
//  * a derived type's lb/ub are the min/max of the lb/ub of the copies of its
//    old type (so padding of an inner struct carries outwards);
//  * explicit lb/ub markers (resized, subarray, darray) are sticky: once any
//    contributing part has a marker, only markers decide that bound;
//  * a struct without an ub marker is padded to the max alignment of the
//    primitives actually in its typemap (members without data add none);
//  * a zero-length block contributes nothing; a copy of a zero-size type
//    still contributes its bounds (an empty type has lb = ub = 0);
//  * true bounds come from data only; no data gives true lb = extent = 0.
// These match Open MPI 4.1 (sticky markers) and MPICH 4 (apart from its
// non-sticky markers) on hand-checked cases; see tests/core/bounds_test.cpp.
#include <algorithm>
#include <stdexcept>

#include "type_spec.hpp"

namespace loomtest {

namespace {

// Accumulates copies of old types into a new layout.
struct Acc {
  Layout out;
  size_t max_pieces;
  bool any = false;      // at least one copy placed
  bool lbm = false, ubm = false;
  int64_t lb_marked = 0, ub_marked = 0, lb_all = 0, ub_all = 0;
  bool data = false;

  explicit Acc(size_t mp) : max_pieces(mp) {}

  void add(const Layout &c, int64_t disp) {
    if (out.pieces.size() + c.pieces.size() > max_pieces)
      throw std::length_error("typemap too large");
    for (const Piece &p : c.pieces) out.pieces.push_back({p.disp + disp, p.len});
    out.size += c.size;
    out.nelems += c.nelems;
    int64_t lb = c.lb + disp, ub = c.ub + disp;
    if (!any) { lb_all = lb; ub_all = ub; }
    lb_all = std::min(lb_all, lb);
    ub_all = std::max(ub_all, ub);
    if (c.lb_marker) { lb_marked = lbm ? std::min(lb_marked, lb) : lb; lbm = true; }
    if (c.ub_marker) { ub_marked = ubm ? std::max(ub_marked, ub) : ub; ubm = true; }
    if (c.size > 0) {
      out.align = std::max(out.align, c.align);
      int64_t tl = c.true_lb + disp, tu = c.true_ub + disp;
      if (!data) { out.true_lb = tl; out.true_ub = tu; }
      out.true_lb = std::min(out.true_lb, tl);
      out.true_ub = std::max(out.true_ub, tu);
      data = true;
    }
    any = true;
  }

  // Finishes the layout; `pad` applies the struct alignment rule.
  Layout finish(bool pad) {
    out.lb_marker = lbm;
    out.ub_marker = ubm;
    if (any) {
      out.lb = lbm ? lb_marked : lb_all;
      out.ub = ubm ? ub_marked : ub_all;
    }
    if (pad && any && !ubm && out.align > 1) {
      int64_t ext = out.ub - out.lb;
      int64_t rem = ((ext % out.align) + out.align) % out.align;
      if (rem) out.ub += out.align - rem;
    }
    if (!data) { out.true_lb = out.true_ub = 0; }
    return std::move(out);
  }
};

Layout layout_of(const TypeSpec &t, size_t mp);

// Copies of `c` at element offsets in multidimensional index order; used by
// subarray and darray, whose typemaps place old-type copies at
// (linear index) * extent and carry explicit markers at 0 and total*extent.
Layout grid(const Layout &c, const std::vector<std::vector<int64_t>> &idx,
            const std::vector<int64_t> &sizes, int order, size_t mp) {
  size_t nd = sizes.size();
  // dims from slowest to fastest varying
  std::vector<size_t> dims(nd);
  for (size_t k = 0; k < nd; ++k) dims[k] = order == LOOM_ORDER_C ? k : nd - 1 - k;
  // element stride of each dimension in the full array
  std::vector<int64_t> stride(nd, 1);
  int64_t total = 1;
  for (size_t k = nd; k-- > 0;) { stride[dims[k]] = total; total *= sizes[dims[k]]; }
  Acc a(mp);
  bool empty = false;
  for (auto &v : idx) empty |= v.empty();
  if (!empty) {
    std::vector<size_t> pos(nd, 0);
    for (;;) {
      int64_t lin = 0;
      for (size_t d = 0; d < nd; ++d) lin += idx[d][pos[d]] * stride[d];
      a.add(c, lin * c.extent());
      size_t k = nd;
      while (k-- > 0) {
        size_t d = dims[k];
        if (++pos[d] < idx[d].size()) break;
        pos[d] = 0;
      }
      if (k == static_cast<size_t>(-1)) break;
    }
  }
  Layout l = a.finish(false);
  l.lb = 0;
  l.ub = total * c.extent();
  l.lb_marker = l.ub_marker = true;
  if (!a.data) { l.true_lb = l.true_ub = 0; }
  return l;
}

Layout darray_layout(const TypeSpec &t, const Layout &c, size_t mp) {
  size_t nd = t.sizes.size();
  // Process grid coordinates are row-major whatever the array order.
  std::vector<int> coord(nd);
  int r = t.rank;
  for (size_t k = nd; k-- > 0;) { coord[k] = r % t.psizes[k]; r /= t.psizes[k]; }
  std::vector<std::vector<int64_t>> idx(nd);
  for (size_t d = 0; d < nd; ++d) {
    int64_t g = t.sizes[d], p = t.psizes[d], darg = t.dargs[d];
    switch (t.distribs[d]) {
      case LOOM_DISTRIBUTE_NONE: darg = g; p = 1; break;
      case LOOM_DISTRIBUTE_BLOCK:
        if (darg == LOOM_DISTRIBUTE_DFLT_DARG) darg = (g + p - 1) / p;
        break;
      case LOOM_DISTRIBUTE_CYCLIC:
        if (darg == LOOM_DISTRIBUTE_DFLT_DARG) darg = 1;
        break;
    }
    // MPI-3.1 4.1.4: block(darg) is cyclic(darg); index i belongs to the
    // process whose coordinate is (i / darg) mod p; ascending order.
    int64_t me = t.distribs[d] == LOOM_DISTRIBUTE_NONE ? 0 : coord[d];
    for (int64_t i = 0; i < g; ++i)
      if ((i / darg) % p == me) idx[d].push_back(i);
  }
  return grid(c, idx, t.sizes, t.order, mp);
}

Layout layout_of(const TypeSpec &t, size_t mp) {
  if (t.kind == Kind::Prim) {
    const PrimInfo &pi = prim_info(t.prim);
    Layout l;
    for (auto &pc : pi.pieces) l.pieces.push_back({pc.first, pc.second});
    l.size = pi.size;
    l.lb = 0; l.ub = pi.extent;
    l.true_lb = l.pieces.front().disp;
    l.true_ub = l.pieces.back().disp + l.pieces.back().len;
    l.align = pi.align;
    l.nelems = static_cast<int64_t>(pi.pieces.size());
    return l;
  }
  if (t.kind == Kind::Struct) {
    std::vector<Layout> ls;
    for (auto &c : t.types) ls.push_back(layout_of(*c, mp));
    Acc a(mp);
    for (size_t i = 0; i < ls.size(); ++i)
      for (int64_t j = 0; j < t.blocklens[i]; ++j)
        a.add(ls[i], t.displs[i] + j * ls[i].extent());
    return a.finish(true);
  }
  Layout c = layout_of(*t.child, mp);
  int64_t ext = c.extent();
  Acc a(mp);
  switch (t.kind) {
    case Kind::Dup: return c;
    case Kind::Resized:
      c.lb = t.lb;
      c.ub = t.lb + t.extent;
      c.lb_marker = c.ub_marker = true;
      return c;
    case Kind::Contig:
      for (int64_t i = 0; i < t.count; ++i) a.add(c, i * ext);
      break;
    case Kind::Vector:
    case Kind::Hvector: {
      int64_t s = t.kind == Kind::Vector ? t.stride * ext : t.stride;
      for (int64_t i = 0; i < t.count; ++i)
        for (int64_t j = 0; j < t.blocklen; ++j) a.add(c, i * s + j * ext);
      break;
    }
    case Kind::Indexed:
    case Kind::Hindexed:
      for (size_t i = 0; i < t.blocklens.size(); ++i) {
        int64_t d = t.kind == Kind::Indexed ? t.displs[i] * ext : t.displs[i];
        for (int64_t j = 0; j < t.blocklens[i]; ++j) a.add(c, d + j * ext);
      }
      break;
    case Kind::IndexedBlock:
    case Kind::HindexedBlock:
      for (size_t i = 0; i < t.displs.size(); ++i) {
        int64_t d = t.kind == Kind::IndexedBlock ? t.displs[i] * ext : t.displs[i];
        for (int64_t j = 0; j < t.blocklen; ++j) a.add(c, d + j * ext);
      }
      break;
    case Kind::Subarray: {
      std::vector<std::vector<int64_t>> idx(t.sizes.size());
      for (size_t d = 0; d < t.sizes.size(); ++d)
        for (int64_t i = 0; i < t.subsizes[d]; ++i) idx[d].push_back(t.starts[d] + i);
      return grid(c, idx, t.sizes, t.order, mp);
    }
    case Kind::Darray: return darray_layout(t, c, mp);
    default: throw std::logic_error("unhandled kind");
  }
  return a.finish(false);
}

}  // namespace

Layout reference_layout(const TypeSpec &t, size_t max_pieces) {
  return layout_of(t, max_pieces);
}

std::vector<Piece> reference_pieces(const Layout &l, int64_t count, bool merge) {
  std::vector<Piece> v;
  for (int64_t i = 0; i < count; ++i)
    for (const Piece &p : l.pieces) {
      Piece q{p.disp + i * l.extent(), p.len};
      if (merge && !v.empty() && v.back().disp + v.back().len == q.disp)
        v.back().len += q.len;
      else
        v.push_back(q);
    }
  return v;
}

void reference_span(const Layout &l, int64_t count, int64_t *lo, int64_t *hi) {
  *lo = *hi = 0;
  if (count <= 0 || l.size == 0) return;
  int64_t a = l.true_lb, b = l.true_lb + (count - 1) * l.extent();
  *lo = std::min(a, b);
  *hi = std::max(a, b) + l.true_extent();
}

bool reference_overlaps(const Layout &l, int64_t count) {
  std::vector<Piece> v = reference_pieces(l, count, false);
  std::sort(v.begin(), v.end(),
            [](const Piece &a, const Piece &b) { return a.disp < b.disp; });
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i - 1].disp + v[i - 1].len > v[i].disp) return true;
  return false;
}

std::vector<unsigned char> reference_pack(const Layout &l, int64_t count,
                                          const unsigned char *origin) {
  std::vector<unsigned char> out;
  out.reserve(static_cast<size_t>(l.size * std::max<int64_t>(count, 0)));
  for (const Piece &p : reference_pieces(l, count, false))
    for (int64_t b = 0; b < p.len; ++b) out.push_back(origin[p.disp + b]);
  return out;
}

void reference_unpack(const Layout &l, int64_t count, const unsigned char *packed,
                      unsigned char *origin) {
  size_t k = 0;
  for (const Piece &p : reference_pieces(l, count, false))
    for (int64_t b = 0; b < p.len; ++b) origin[p.disp + b] = packed[k++];
}

std::vector<Piece> reference_stream_pieces(const Layout &l, int64_t count,
                                           int64_t begin, int64_t end) {
  std::vector<Piece> v;
  int64_t s = 0;  // stream offset of the current piece
  for (const Piece &p : reference_pieces(l, count, false)) {
    int64_t a = std::max(s, begin), b = std::min(s + p.len, end);
    if (a < b) {
      Piece q{p.disp + (a - s), b - a};
      if (!v.empty() && v.back().disp + v.back().len == q.disp)
        v.back().len += q.len;
      else
        v.push_back(q);
    }
    s += p.len;
    if (s >= end) break;
  }
  return v;
}

void reference_unpack_range(const Layout &l, int64_t count,
                            const unsigned char *packed, int64_t begin,
                            int64_t end, unsigned char *origin) {
  int64_t k = begin;
  for (const Piece &p : reference_stream_pieces(l, count, begin, end))
    for (int64_t b = 0; b < p.len; ++b) origin[p.disp + b] = packed[k++];
}

}  // namespace loomtest
