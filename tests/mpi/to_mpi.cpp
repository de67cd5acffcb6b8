#include "to_mpi.hpp"

#include <cstdio>
#include <stdexcept>
#include <vector>

namespace loomtest {

const char *mpi_flavor() {
#if defined(MPICH)
  return "mpich";
#elif defined(OPEN_MPI)
  return "openmpi";
#else
  return "unknown";
#endif
}

MPI_Datatype mpi_prim(loom_prim p) {
  switch (p) {
    case LOOM_CHAR: return MPI_CHAR;
    case LOOM_SIGNED_CHAR: return MPI_SIGNED_CHAR;
    case LOOM_UNSIGNED_CHAR: return MPI_UNSIGNED_CHAR;
    case LOOM_BYTE: return MPI_BYTE;
    case LOOM_PACKED: return MPI_PACKED;
    case LOOM_SHORT: return MPI_SHORT;
    case LOOM_UNSIGNED_SHORT: return MPI_UNSIGNED_SHORT;
    case LOOM_INT: return MPI_INT;
    case LOOM_UNSIGNED: return MPI_UNSIGNED;
    case LOOM_LONG: return MPI_LONG;
    case LOOM_UNSIGNED_LONG: return MPI_UNSIGNED_LONG;
    case LOOM_LONG_LONG: return MPI_LONG_LONG;
    case LOOM_UNSIGNED_LONG_LONG: return MPI_UNSIGNED_LONG_LONG;
    case LOOM_FLOAT: return MPI_FLOAT;
    case LOOM_DOUBLE: return MPI_DOUBLE;
    case LOOM_LONG_DOUBLE: return MPI_LONG_DOUBLE;
    case LOOM_WCHAR: return MPI_WCHAR;
    case LOOM_C_BOOL: return MPI_C_BOOL;
    case LOOM_INT8_T: return MPI_INT8_T;
    case LOOM_INT16_T: return MPI_INT16_T;
    case LOOM_INT32_T: return MPI_INT32_T;
    case LOOM_INT64_T: return MPI_INT64_T;
    case LOOM_UINT8_T: return MPI_UINT8_T;
    case LOOM_UINT16_T: return MPI_UINT16_T;
    case LOOM_UINT32_T: return MPI_UINT32_T;
    case LOOM_UINT64_T: return MPI_UINT64_T;
    case LOOM_AINT: return MPI_AINT;
    case LOOM_OFFSET: return MPI_OFFSET;
    case LOOM_COUNT: return MPI_COUNT;
    case LOOM_C_FLOAT_COMPLEX: return MPI_C_FLOAT_COMPLEX;
    case LOOM_C_DOUBLE_COMPLEX: return MPI_C_DOUBLE_COMPLEX;
    case LOOM_C_LONG_DOUBLE_COMPLEX: return MPI_C_LONG_DOUBLE_COMPLEX;
    case LOOM_CXX_BOOL: return MPI_CXX_BOOL;
    case LOOM_F_CHARACTER: return MPI_CHARACTER;
    case LOOM_F_INTEGER: return MPI_INTEGER;
    case LOOM_F_REAL: return MPI_REAL;
    case LOOM_F_DOUBLE_PRECISION: return MPI_DOUBLE_PRECISION;
    case LOOM_F_COMPLEX: return MPI_COMPLEX;
    case LOOM_F_DOUBLE_COMPLEX: return MPI_DOUBLE_COMPLEX;
    case LOOM_F_LOGICAL: return MPI_LOGICAL;
    case LOOM_F_INTEGER1: return MPI_INTEGER1;
    case LOOM_F_INTEGER2: return MPI_INTEGER2;
    case LOOM_F_INTEGER4: return MPI_INTEGER4;
    case LOOM_F_INTEGER8: return MPI_INTEGER8;
    case LOOM_F_REAL4: return MPI_REAL4;
    case LOOM_F_REAL8: return MPI_REAL8;
    case LOOM_F_REAL16: return MPI_REAL16;
    case LOOM_FLOAT_INT: return MPI_FLOAT_INT;
    case LOOM_DOUBLE_INT: return MPI_DOUBLE_INT;
    case LOOM_LONG_INT: return MPI_LONG_INT;
    case LOOM_2INT: return MPI_2INT;
    case LOOM_SHORT_INT: return MPI_SHORT_INT;
    case LOOM_LONG_DOUBLE_INT: return MPI_LONG_DOUBLE_INT;
    case LOOM_2REAL: return MPI_2REAL;
    case LOOM_2DOUBLE_PRECISION: return MPI_2DOUBLE_PRECISION;
    case LOOM_2INTEGER: return MPI_2INTEGER;
    default: break;
  }
  throw std::logic_error("no MPI type for loom prim");
}

namespace {

int order(int o) { return o == LOOM_ORDER_FORTRAN ? MPI_ORDER_FORTRAN : MPI_ORDER_C; }

int distrib(int d) {
  return d == LOOM_DISTRIBUTE_BLOCK ? MPI_DISTRIBUTE_BLOCK
         : d == LOOM_DISTRIBUTE_CYCLIC ? MPI_DISTRIBUTE_CYCLIC
                                       : MPI_DISTRIBUTE_NONE;
}

std::vector<int> ints(const std::vector<int64_t> &v) { return std::vector<int>(v.begin(), v.end()); }
std::vector<MPI_Aint> aints(const std::vector<int64_t> &v) {
  return std::vector<MPI_Aint>(v.begin(), v.end());
}

struct SysBounds {
  MPI_Count size;
  MPI_Aint lb, ext, tlb, text;
};

SysBounds sys_bounds(MPI_Datatype t) {
  SysBounds b;
  MPI_Type_size_x(t, &b.size);
  MPI_Type_get_extent(t, &b.lb, &b.ext);
  MPI_Type_get_true_extent(t, &b.tlb, &b.text);
  return b;
}

// System and reference agree on size, bounds, and (where there is data)
// true bounds.
bool agrees(const SysBounds &b, const Layout &l) {
  bool same = b.lb == l.lb && b.ext == l.extent() && b.size == l.size;
  if (l.size > 0) same = same && b.tlb == l.true_lb && b.text == l.true_extent();
  return same;
}

std::string bounds_note(const SysBounds &b, const TypeSpec &s, const Layout &l) {
  char buf[240];
  std::snprintf(buf, sizeof buf,
                " [system size %lld lb %ld extent %ld true %ld+%ld; reference %lld lb %lld "
                "extent %lld true %lld+%lld]",
                (long long)b.size, (long)b.lb, (long)b.ext, (long)b.tlb, (long)b.text,
                (long long)l.size, (long long)l.lb, (long long)l.extent(),
                (long long)l.true_lb, (long long)l.true_extent());
  return describe(s) + buf;
}

struct Builder {
  const ToMpiOptions &opt;
  MpiType &out;
  bool chance(double p) { return opt.rng && std::bernoulli_distribution(p)(*opt.rng); }

  // Open MPI 4.1.4 misplaces the data of any (h)vector whose stride is
  // exactly -1 byte (count > 1): hvector(12,1,-1,MPI_CHAR),
  // vector(4,3,-1,MPI_CHAR), hvector(14,1,-1,MPI_FLOAT)...  It reports lb 0
  // and packs ascending addresses.
  static bool negbyte_pattern(const TypeSpec &s) {
    if (s.kind != Kind::Vector && s.kind != Kind::Hvector) return false;
    Layout c = reference_layout(*s.child);
    int64_t stride = s.kind == Kind::Vector ? s.stride * c.extent() : s.stride;
    return stride == -1 && s.count > 1 && s.blocklen > 0 && c.size > 0;
  }

  struct Node {
    MPI_Datatype h;
    TypeSpecPtr rec;  // reconciled spec
    bool ok;          // system bounds agree with the reference of rec
  };

  Node build(const TypeSpecPtr &sp) {
    const TypeSpec &s = *sp;
    if (s.kind == Kind::Prim) return {mpi_prim(s.prim), sp, true};
    std::vector<MPI_Datatype> kids;
    bool kids_ok = true;
    TypeSpec r = s;  // the reconciled copy: same call, reconciled children
    auto child = [&](const TypeSpecPtr &c) {
      Node n = build(c);
      kids_ok = kids_ok && n.ok;
      kids.push_back(n.h);
      if (chance(opt.commit_child)) MPI_Type_commit(&kids.back());
      return n;
    };
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = MPI_SUCCESS;
    auto one = [&]() {
      Node n = child(s.child);
      r.child = n.rec;
      return n.h;
    };
    switch (s.kind) {
      case Kind::Contig: rc = MPI_Type_contiguous((int)s.count, one(), &t); break;
      case Kind::Vector:
        rc = MPI_Type_vector((int)s.count, (int)s.blocklen, (int)s.stride, one(), &t);
        break;
      case Kind::Hvector:
        rc = MPI_Type_create_hvector((int)s.count, (int)s.blocklen, s.stride, one(), &t);
        break;
      case Kind::Indexed: {
        auto bl = ints(s.blocklens), d = ints(s.displs);
        rc = MPI_Type_indexed((int)bl.size(), bl.data(), d.data(), one(), &t);
        break;
      }
      case Kind::Hindexed: {
        auto bl = ints(s.blocklens);
        auto d = aints(s.displs);
        rc = MPI_Type_create_hindexed((int)bl.size(), bl.data(), d.data(), one(), &t);
        break;
      }
      case Kind::IndexedBlock: {
        auto d = ints(s.displs);
        rc = MPI_Type_create_indexed_block((int)d.size(), (int)s.blocklen, d.data(), one(), &t);
        break;
      }
      case Kind::HindexedBlock: {
        auto d = aints(s.displs);
        rc = MPI_Type_create_hindexed_block((int)d.size(), (int)s.blocklen, d.data(), one(), &t);
        break;
      }
      case Kind::Struct: {
        auto bl = ints(s.blocklens);
        auto d = aints(s.displs);
        std::vector<MPI_Datatype> ts;
        r.types.clear();
        for (auto &c : s.types) {
          Node n = child(c);
          ts.push_back(n.h);
          r.types.push_back(n.rec);
          // Empty members trip both systems (see empty_member).
          if (sys_bounds(n.h).size == 0) out.empty_member = true;
        }
        rc = MPI_Type_create_struct((int)bl.size(), bl.data(), d.data(), ts.data(), &t);
        break;
      }
      case Kind::Subarray: {
        auto sz = ints(s.sizes), sub = ints(s.subsizes), st = ints(s.starts);
        rc = MPI_Type_create_subarray((int)sz.size(), sz.data(), sub.data(), st.data(),
                                      order(s.order), one(), &t);
        break;
      }
      case Kind::Darray: {
        auto g = ints(s.sizes);
        std::vector<int> dist, darg;
        for (int d : s.distribs) dist.push_back(distrib(d));
        for (int d : s.dargs)
          darg.push_back(d == LOOM_DISTRIBUTE_DFLT_DARG ? MPI_DISTRIBUTE_DFLT_DARG : d);
        std::vector<int> ps = s.psizes;
        rc = MPI_Type_create_darray(s.nprocs, s.rank, (int)g.size(), g.data(), dist.data(),
                                    darg.data(), ps.data(), order(s.order), one(), &t);
        break;
      }
      case Kind::Resized: rc = MPI_Type_create_resized(one(), s.lb, s.extent, &t); break;
      case Kind::Dup: rc = MPI_Type_dup(one(), &t); break;
      default: break;
    }
    // Children mostly go now: the parent keeps them alive inside the MPI
    // library and (for the drop-in) inside Loom.
    for (MPI_Datatype &k : kids) {
      int ni, na, nd, comb;
      MPI_Type_get_envelope(k, &ni, &na, &nd, &comb);
      if (comb == MPI_COMBINER_NAMED) continue;
      if (!opt.rng || chance(opt.free_child_early))
        MPI_Type_free(&k);
      else
        out.deferred.push_back(k);
    }
    if (rc != MPI_SUCCESS || t == MPI_DATATYPE_NULL) {
      char msg[MPI_MAX_ERROR_STRING];
      int len = 0;
      MPI_Error_string(rc, msg, &len);
      out.error = std::string("system refused ") + describe(s) + ": " + msg;
      throw std::runtime_error(out.error);
    }
    TypeSpecPtr rec = std::make_shared<const TypeSpec>(r);
    SysBounds b = sys_bounds(t);
    Layout l = reference_layout(*rec);
    if (agrees(b, l)) return {t, rec, kids_ok};
    // The drop-in adopts the system's lb/extent for a struct, and for any
    // other node whose data the system places where the standard does (same
    // true bounds) or that has no data; mirror that here.
    const bool empty = b.size == 0 && l.size == 0;
    const bool same_data = empty || (b.tlb == l.true_lb && b.text == l.true_extent());
    if (b.lb != l.lb || b.ext != l.extent()) {
      if (s.kind == Kind::Struct || same_data) rec = resized(rec, b.lb, b.ext);
      if (s.kind == Kind::Struct) out.struct_differs = true;
      else if (empty) out.empty_differs = true;
      else if (same_data) out.bounds_adopted = true;
    }
    if (same_data) return {t, rec, kids_ok};
    // The system places data elsewhere than the standard.
    if (!kids_ok) return {t, rec, false};  // inherited from a child
    if (s.kind == Kind::Struct && out.empty_member) return {t, rec, false};
#if defined(OPEN_MPI)
    if (negbyte_pattern(s)) {
      out.ompi_negbyte = true;
      return {t, rec, false};
    }
#endif
    out.other_differs = true;
    if (out.where.empty()) out.where = bounds_note(b, s, reference_layout(*rec));
    return {t, rec, false};
  }
};

}  // namespace

MpiType to_mpi(const TypeSpecPtr &t, const ToMpiOptions &opt) {
  MpiType out;
  Builder b{opt, out};
  try {
    Builder::Node n = b.build(t);
    MPI_Datatype h = n.h;
    if (t->kind == Kind::Prim) {
      // A named type is not ours to free: wrap it so the caller can.
      MPI_Type_dup(h, &h);
    }
    out.type = h;
    out.reconciled = n.rec;
  } catch (const std::runtime_error &) {
    out.type = MPI_DATATYPE_NULL;
  }
  return out;
}

void release(MpiType &t) {
  for (MPI_Datatype &d : t.deferred) MPI_Type_free(&d);
  t.deferred.clear();
  if (t.type != MPI_DATATYPE_NULL) MPI_Type_free(&t.type);
}

}  // namespace loomtest
