// TypeSpec -> loom_type: one Loom constructor call per spec node, nothing
// else, so a failure points at Loom rather than at a translation layer.
#include "type_spec.hpp"

namespace loomtest {

loom_status construct(const TypeSpec &t, const loom_type *kids, loom_type *out) {
  const loom_type c = kids ? kids[0] : nullptr;
  const int nd = static_cast<int>(t.sizes.size());
  switch (t.kind) {
    case Kind::Prim: return loom_type_primitive(t.prim, out);
    case Kind::Struct:
      return loom_type_struct(t.count, t.blocklens.data(), t.displs.data(), kids,
                              LOOM_BOUNDS_STANDARD, out);
    case Kind::Contig: return loom_type_contiguous(t.count, c, out);
    case Kind::Vector: return loom_type_vector(t.count, t.blocklen, t.stride, c, out);
    case Kind::Hvector: return loom_type_hvector(t.count, t.blocklen, t.stride, c, out);
    case Kind::Indexed:
      return loom_type_indexed(t.count, t.blocklens.data(), t.displs.data(), c, out);
    case Kind::Hindexed:
      return loom_type_hindexed(t.count, t.blocklens.data(), t.displs.data(), c, out);
    case Kind::IndexedBlock:
      return loom_type_indexed_block(t.count, t.blocklen, t.displs.data(), c, out);
    case Kind::HindexedBlock:
      return loom_type_hindexed_block(t.count, t.blocklen, t.displs.data(), c, out);
    case Kind::Subarray:
      return loom_type_subarray(nd, t.sizes.data(), t.subsizes.data(), t.starts.data(),
                                t.order, c, out);
    case Kind::Darray:
      return loom_type_darray(t.nprocs, t.rank, nd, t.sizes.data(), t.distribs.data(),
                              t.dargs.data(), t.psizes.data(), t.order, c, out);
    case Kind::Resized: return loom_type_resized(c, t.lb, t.extent, out);
    case Kind::Dup: return loom_type_dup(c, out);
  }
  return LOOM_ERR_ARG;
}

namespace {

struct Builder {
  loom_status first = LOOM_OK;

  loom_type build(const TypeSpec &t) {
    std::vector<loom_type> kids;
    if (t.kind == Kind::Struct) {
      for (auto &m : t.types) kids.push_back(build(*m));
    } else if (t.child) {
      kids.push_back(build(*t.child));
    }
    bool ok = true;
    for (loom_type k : kids) ok &= k != nullptr;
    loom_type out = nullptr;
    loom_status s = ok ? construct(t, kids.empty() ? nullptr : kids.data(), &out) : LOOM_OK;
    for (loom_type k : kids)
      if (k) loom_type_free(k);  // the new type holds its own references
    if (!ok) return nullptr;
    if (s != LOOM_OK && first == LOOM_OK) first = s;
    return s == LOOM_OK ? out : nullptr;
  }
};

}  // namespace

loom_type to_loom(const TypeSpec &t, loom_status *status) {
  Builder b;
  loom_type r = b.build(t);
  if (status) *status = r ? LOOM_OK : b.first;
  return r;
}

}  // namespace loomtest
