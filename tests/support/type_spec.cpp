// TypeSpec construction helpers, the primitive table and describe().
#include "type_spec.hpp"

#include <sstream>
#include <stdexcept>

namespace loomtest {

namespace {

// One row per loom_prim, in enum order; checked at startup so that a
// reordered enum cannot silently shift every size.
struct PrimRow {
  loom_prim p;
  const char *name;
  PrimInfo info;
};

using PV = std::vector<std::pair<int64_t, int64_t>>;

PrimInfo simple(int64_t size, int64_t align, int64_t ext32) {
  return PrimInfo{size, size, align, PV{{0, size}}, ext32, {ext32}};
}
PrimInfo pair(int64_t a, int64_t aoff, int64_t b, int64_t boff, int64_t ext,
              int64_t align, int64_t ea, int64_t eb) {
  return PrimInfo{a + b, ext, align, PV{{aoff, a}, {boff, b}}, ea + eb, {ea, eb}};
}

const std::vector<PrimRow> &rows() {
  // Sizes/alignments: x86-64 SysV ABI with gcc and gfortran.  external32
  // sizes: MPI-3.1 table 13.2 (LONG is 4, WCHAR 2, LONG DOUBLE 16).
  static const std::vector<PrimRow> r = {
      {LOOM_CHAR, "char", simple(1, 1, 1)},
      {LOOM_SIGNED_CHAR, "signed_char", simple(1, 1, 1)},
      {LOOM_UNSIGNED_CHAR, "unsigned_char", simple(1, 1, 1)},
      {LOOM_BYTE, "byte", simple(1, 1, 1)},
      {LOOM_PACKED, "packed", simple(1, 1, 1)},
      {LOOM_SHORT, "short", simple(2, 2, 2)},
      {LOOM_UNSIGNED_SHORT, "unsigned_short", simple(2, 2, 2)},
      {LOOM_INT, "int", simple(4, 4, 4)},
      {LOOM_UNSIGNED, "unsigned", simple(4, 4, 4)},
      {LOOM_LONG, "long", simple(8, 8, 4)},
      {LOOM_UNSIGNED_LONG, "unsigned_long", simple(8, 8, 4)},
      {LOOM_LONG_LONG, "long_long", simple(8, 8, 8)},
      {LOOM_UNSIGNED_LONG_LONG, "unsigned_long_long", simple(8, 8, 8)},
      {LOOM_FLOAT, "float", simple(4, 4, 4)},
      {LOOM_DOUBLE, "double", simple(8, 8, 8)},
      {LOOM_LONG_DOUBLE, "long_double", simple(16, 16, 16)},
      {LOOM_WCHAR, "wchar", simple(4, 4, 2)},
      {LOOM_C_BOOL, "c_bool", simple(1, 1, 1)},
      {LOOM_INT8_T, "int8", simple(1, 1, 1)},
      {LOOM_INT16_T, "int16", simple(2, 2, 2)},
      {LOOM_INT32_T, "int32", simple(4, 4, 4)},
      {LOOM_INT64_T, "int64", simple(8, 8, 8)},
      {LOOM_UINT8_T, "uint8", simple(1, 1, 1)},
      {LOOM_UINT16_T, "uint16", simple(2, 2, 2)},
      {LOOM_UINT32_T, "uint32", simple(4, 4, 4)},
      {LOOM_UINT64_T, "uint64", simple(8, 8, 8)},
      {LOOM_AINT, "aint", simple(8, 8, 8)},
      {LOOM_OFFSET, "offset", simple(8, 8, 8)},
      {LOOM_COUNT, "count", simple(8, 8, 8)},
      {LOOM_C_FLOAT_COMPLEX, "c_float_complex", simple(8, 4, 8)},
      {LOOM_C_DOUBLE_COMPLEX, "c_double_complex", simple(16, 8, 16)},
      {LOOM_C_LONG_DOUBLE_COMPLEX, "c_long_double_complex", simple(32, 16, 32)},
      {LOOM_CXX_BOOL, "cxx_bool", simple(1, 1, 1)},
      {LOOM_F_CHARACTER, "f_character", simple(1, 1, 1)},
      {LOOM_F_INTEGER, "f_integer", simple(4, 4, 4)},
      {LOOM_F_REAL, "f_real", simple(4, 4, 4)},
      {LOOM_F_DOUBLE_PRECISION, "f_double_precision", simple(8, 8, 8)},
      {LOOM_F_COMPLEX, "f_complex", simple(8, 4, 8)},
      {LOOM_F_DOUBLE_COMPLEX, "f_double_complex", simple(16, 8, 16)},
      {LOOM_F_LOGICAL, "f_logical", simple(4, 4, 4)},
      {LOOM_F_INTEGER1, "f_integer1", simple(1, 1, 1)},
      {LOOM_F_INTEGER2, "f_integer2", simple(2, 2, 2)},
      {LOOM_F_INTEGER4, "f_integer4", simple(4, 4, 4)},
      {LOOM_F_INTEGER8, "f_integer8", simple(8, 8, 8)},
      {LOOM_F_REAL4, "f_real4", simple(4, 4, 4)},
      {LOOM_F_REAL8, "f_real8", simple(8, 8, 8)},
      {LOOM_F_REAL16, "f_real16", simple(16, 16, 16)},
      {LOOM_FLOAT_INT, "float_int", pair(4, 0, 4, 4, 8, 4, 4, 4)},
      {LOOM_DOUBLE_INT, "double_int", pair(8, 0, 4, 8, 16, 8, 8, 4)},
      {LOOM_LONG_INT, "long_int", pair(8, 0, 4, 8, 16, 8, 4, 4)},
      {LOOM_2INT, "2int", pair(4, 0, 4, 4, 8, 4, 4, 4)},
      {LOOM_SHORT_INT, "short_int", pair(2, 0, 4, 4, 8, 4, 2, 4)},
      {LOOM_LONG_DOUBLE_INT, "long_double_int", pair(16, 0, 4, 16, 32, 16, 16, 4)},
      {LOOM_2REAL, "2real", pair(4, 0, 4, 4, 8, 4, 4, 4)},
      {LOOM_2DOUBLE_PRECISION, "2double_precision", pair(8, 0, 8, 8, 16, 8, 8, 8)},
      {LOOM_2INTEGER, "2integer", pair(4, 0, 4, 4, 8, 4, 4, 4)},
  };
  for (size_t i = 0; i < r.size(); ++i)
    if (static_cast<size_t>(r[i].p) != i)
      throw std::logic_error("prim table out of enum order");
  if (r.size() != static_cast<size_t>(LOOM_PRIM_COUNT))
    throw std::logic_error("prim table incomplete");
  return r;
}

TypeSpecPtr make(TypeSpec s) { return std::make_shared<const TypeSpec>(std::move(s)); }

}  // namespace

const PrimInfo &prim_info(loom_prim p) { return rows().at(static_cast<size_t>(p)).info; }
const char *prim_name(loom_prim p) { return rows().at(static_cast<size_t>(p)).name; }

TypeSpecPtr prim(loom_prim p) {
  TypeSpec s; s.kind = Kind::Prim; s.prim = p; return make(s);
}
TypeSpecPtr contig(int64_t n, TypeSpecPtr c) {
  TypeSpec s; s.kind = Kind::Contig; s.count = n; s.child = c; return make(s);
}
TypeSpecPtr vector(int64_t n, int64_t bl, int64_t stride, TypeSpecPtr c) {
  TypeSpec s; s.kind = Kind::Vector; s.count = n; s.blocklen = bl;
  s.stride = stride; s.child = c; return make(s);
}
TypeSpecPtr hvector(int64_t n, int64_t bl, int64_t stride, TypeSpecPtr c) {
  TypeSpec s; s.kind = Kind::Hvector; s.count = n; s.blocklen = bl;
  s.stride = stride; s.child = c; return make(s);
}
TypeSpecPtr indexed(std::vector<int64_t> bl, std::vector<int64_t> d, TypeSpecPtr c) {
  TypeSpec s; s.kind = Kind::Indexed; s.count = static_cast<int64_t>(bl.size());
  s.blocklens = bl; s.displs = d; s.child = c; return make(s);
}
TypeSpecPtr hindexed(std::vector<int64_t> bl, std::vector<int64_t> d, TypeSpecPtr c) {
  TypeSpec s; s.kind = Kind::Hindexed; s.count = static_cast<int64_t>(bl.size());
  s.blocklens = bl; s.displs = d; s.child = c; return make(s);
}
TypeSpecPtr indexed_block(int64_t bl, std::vector<int64_t> d, TypeSpecPtr c) {
  TypeSpec s; s.kind = Kind::IndexedBlock; s.count = static_cast<int64_t>(d.size());
  s.blocklen = bl; s.displs = d; s.child = c; return make(s);
}
TypeSpecPtr hindexed_block(int64_t bl, std::vector<int64_t> d, TypeSpecPtr c) {
  TypeSpec s; s.kind = Kind::HindexedBlock; s.count = static_cast<int64_t>(d.size());
  s.blocklen = bl; s.displs = d; s.child = c; return make(s);
}
TypeSpecPtr structure(std::vector<int64_t> bl, std::vector<int64_t> d,
                      std::vector<TypeSpecPtr> types) {
  TypeSpec s; s.kind = Kind::Struct; s.count = static_cast<int64_t>(bl.size());
  s.blocklens = bl; s.displs = d; s.types = types; return make(s);
}
TypeSpecPtr subarray(std::vector<int64_t> sizes, std::vector<int64_t> subsizes,
                     std::vector<int64_t> starts, int order, TypeSpecPtr c) {
  TypeSpec s; s.kind = Kind::Subarray; s.sizes = sizes; s.subsizes = subsizes;
  s.starts = starts; s.order = order; s.child = c; return make(s);
}
TypeSpecPtr darray(int nprocs, int rank, std::vector<int64_t> gsizes,
                   std::vector<int> distribs, std::vector<int> dargs,
                   std::vector<int> psizes, int order, TypeSpecPtr c) {
  TypeSpec s; s.kind = Kind::Darray; s.nprocs = nprocs; s.rank = rank;
  s.sizes = gsizes; s.distribs = distribs; s.dargs = dargs; s.psizes = psizes;
  s.order = order; s.child = c; return make(s);
}
TypeSpecPtr resized(TypeSpecPtr c, int64_t lb, int64_t extent) {
  TypeSpec s; s.kind = Kind::Resized; s.lb = lb; s.extent = extent; s.child = c;
  return make(s);
}
TypeSpecPtr dup(TypeSpecPtr c) {
  TypeSpec s; s.kind = Kind::Dup; s.child = c; return make(s);
}

namespace {

template <class T>
std::string list(const std::vector<T> &v) {
  std::ostringstream o;
  o << '[';
  for (size_t i = 0; i < v.size(); ++i) o << (i ? "," : "") << v[i];
  o << ']';
  return o.str();
}

const char *dist_name(int d) {
  switch (d) {
    case LOOM_DISTRIBUTE_NONE: return "N";
    case LOOM_DISTRIBUTE_BLOCK: return "B";
    case LOOM_DISTRIBUTE_CYCLIC: return "C";
  }
  return "?";
}

}  // namespace

std::string describe(const TypeSpec &t) {
  std::ostringstream o;
  const char *ord = t.order == LOOM_ORDER_C ? "C" : "F";
  switch (t.kind) {
    case Kind::Prim: o << prim_name(t.prim); break;
    case Kind::Contig: o << "contig(" << t.count << "," << describe(*t.child) << ")"; break;
    case Kind::Vector:
      o << "vector(" << t.count << "," << t.blocklen << "," << t.stride << ","
        << describe(*t.child) << ")";
      break;
    case Kind::Hvector:
      o << "hvector(" << t.count << "," << t.blocklen << "," << t.stride << ","
        << describe(*t.child) << ")";
      break;
    case Kind::Indexed:
      o << "indexed(" << list(t.blocklens) << "," << list(t.displs) << ","
        << describe(*t.child) << ")";
      break;
    case Kind::Hindexed:
      o << "hindexed(" << list(t.blocklens) << "," << list(t.displs) << ","
        << describe(*t.child) << ")";
      break;
    case Kind::IndexedBlock:
      o << "indexed_block(" << t.blocklen << "," << list(t.displs) << ","
        << describe(*t.child) << ")";
      break;
    case Kind::HindexedBlock:
      o << "hindexed_block(" << t.blocklen << "," << list(t.displs) << ","
        << describe(*t.child) << ")";
      break;
    case Kind::Struct: {
      o << "struct(" << list(t.blocklens) << "," << list(t.displs) << ",[";
      for (size_t i = 0; i < t.types.size(); ++i)
        o << (i ? "," : "") << describe(*t.types[i]);
      o << "])";
      break;
    }
    case Kind::Subarray:
      o << "subarray(" << ord << "," << list(t.sizes) << "," << list(t.subsizes)
        << "," << list(t.starts) << "," << describe(*t.child) << ")";
      break;
    case Kind::Darray: {
      std::vector<std::string> d;
      for (int x : t.distribs) d.push_back(dist_name(x));
      o << "darray(" << t.nprocs << "," << t.rank << "," << ord << ",g="
        << list(t.sizes) << ",dist=" << list(d) << ",darg=" << list(t.dargs)
        << ",p=" << list(t.psizes) << "," << describe(*t.child) << ")";
      break;
    }
    case Kind::Resized:
      o << "resized(" << t.lb << "," << t.extent << "," << describe(*t.child) << ")";
      break;
    case Kind::Dup: o << "dup(" << describe(*t.child) << ")"; break;
  }
  return o.str();
}

}  // namespace loomtest
