// TypeSpec -> loom_type: one Loom constructor call per spec node, nothing
// else, so a failure points at Loom rather than at a translation layer.
#include "type_spec.hpp"

namespace loomtest {

namespace {

struct Builder {
  loom_status first = LOOM_OK;

  loom_type fail(loom_status s) {
    if (first == LOOM_OK) first = s;
    return nullptr;
  }

  loom_type build(const TypeSpec &t) {
    loom_type out = nullptr, c = nullptr;
    loom_status s = LOOM_OK;
    if (t.kind == Kind::Prim) {
      s = loom_type_primitive(t.prim, &out);
      return s == LOOM_OK ? out : fail(s);
    }
    if (t.kind == Kind::Struct) {
      std::vector<loom_type> ts;
      bool ok = true;
      for (auto &m : t.types) {
        ts.push_back(build(*m));
        ok &= ts.back() != nullptr;
      }
      if (ok)
        s = loom_type_struct(t.count, t.blocklens.data(), t.displs.data(), ts.data(),
                             LOOM_BOUNDS_STANDARD, &out);
      for (loom_type m : ts)
        if (m) loom_type_free(m);  // the struct holds its own references
      if (!ok) return nullptr;
      return s == LOOM_OK ? out : fail(s);
    }
    c = build(*t.child);
    if (!c) return nullptr;
    int nd = static_cast<int>(t.sizes.size());
    switch (t.kind) {
      case Kind::Contig: s = loom_type_contiguous(t.count, c, &out); break;
      case Kind::Vector: s = loom_type_vector(t.count, t.blocklen, t.stride, c, &out); break;
      case Kind::Hvector: s = loom_type_hvector(t.count, t.blocklen, t.stride, c, &out); break;
      case Kind::Indexed:
        s = loom_type_indexed(t.count, t.blocklens.data(), t.displs.data(), c, &out);
        break;
      case Kind::Hindexed:
        s = loom_type_hindexed(t.count, t.blocklens.data(), t.displs.data(), c, &out);
        break;
      case Kind::IndexedBlock:
        s = loom_type_indexed_block(t.count, t.blocklen, t.displs.data(), c, &out);
        break;
      case Kind::HindexedBlock:
        s = loom_type_hindexed_block(t.count, t.blocklen, t.displs.data(), c, &out);
        break;
      case Kind::Subarray:
        s = loom_type_subarray(nd, t.sizes.data(), t.subsizes.data(), t.starts.data(),
                               t.order, c, &out);
        break;
      case Kind::Darray:
        s = loom_type_darray(t.nprocs, t.rank, nd, t.sizes.data(), t.distribs.data(),
                             t.dargs.data(), t.psizes.data(), t.order, c, &out);
        break;
      case Kind::Resized: s = loom_type_resized(c, t.lb, t.extent, &out); break;
      case Kind::Dup: s = loom_type_dup(c, &out); break;
      default: s = LOOM_ERR_ARG; break;
    }
    loom_type_free(c);
    return s == LOOM_OK ? out : fail(s);
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
