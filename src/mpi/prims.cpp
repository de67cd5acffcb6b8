// Named MPI datatypes -> Loom primitives.  The handles are not constant
// expressions in Open MPI (they are addresses of library globals), so the
// table is a function-local static filled at first use.
#include "decode.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace loom_mpi {
namespace {

struct Entry {
  MPI_Datatype handle;
  loom_prim prim;
};

#define E(h, p) {h, p}
const Entry *table(size_t *n) {
  // Order matters where a header aliases two names to one handle (MPICH's
  // MPI_LONG_LONG == MPI_LONG_LONG_INT, MPI_C_COMPLEX == MPI_C_FLOAT_COMPLEX):
  // the first match wins, so the C names come first.
  static const Entry entries[] = {
      E(MPI_CHAR, LOOM_CHAR), E(MPI_SIGNED_CHAR, LOOM_SIGNED_CHAR),
      E(MPI_UNSIGNED_CHAR, LOOM_UNSIGNED_CHAR), E(MPI_BYTE, LOOM_BYTE),
      E(MPI_PACKED, LOOM_PACKED), E(MPI_SHORT, LOOM_SHORT),
      E(MPI_UNSIGNED_SHORT, LOOM_UNSIGNED_SHORT), E(MPI_INT, LOOM_INT),
      E(MPI_UNSIGNED, LOOM_UNSIGNED), E(MPI_LONG, LOOM_LONG),
      E(MPI_UNSIGNED_LONG, LOOM_UNSIGNED_LONG),
      E(MPI_LONG_LONG_INT, LOOM_LONG_LONG), E(MPI_LONG_LONG, LOOM_LONG_LONG),
      E(MPI_UNSIGNED_LONG_LONG, LOOM_UNSIGNED_LONG_LONG),
      E(MPI_FLOAT, LOOM_FLOAT), E(MPI_DOUBLE, LOOM_DOUBLE),
      E(MPI_LONG_DOUBLE, LOOM_LONG_DOUBLE), E(MPI_WCHAR, LOOM_WCHAR),
      E(MPI_C_BOOL, LOOM_C_BOOL), E(MPI_INT8_T, LOOM_INT8_T),
      E(MPI_INT16_T, LOOM_INT16_T), E(MPI_INT32_T, LOOM_INT32_T),
      E(MPI_INT64_T, LOOM_INT64_T), E(MPI_UINT8_T, LOOM_UINT8_T),
      E(MPI_UINT16_T, LOOM_UINT16_T), E(MPI_UINT32_T, LOOM_UINT32_T),
      E(MPI_UINT64_T, LOOM_UINT64_T), E(MPI_AINT, LOOM_AINT),
      E(MPI_OFFSET, LOOM_OFFSET), E(MPI_COUNT, LOOM_COUNT),
      E(MPI_C_FLOAT_COMPLEX, LOOM_C_FLOAT_COMPLEX),
      E(MPI_C_COMPLEX, LOOM_C_FLOAT_COMPLEX),
      E(MPI_C_DOUBLE_COMPLEX, LOOM_C_DOUBLE_COMPLEX),
      E(MPI_C_LONG_DOUBLE_COMPLEX, LOOM_C_LONG_DOUBLE_COMPLEX),
      E(MPI_CXX_BOOL, LOOM_CXX_BOOL),
      // std::complex<T> has the layout of T _Complex.
      E(MPI_CXX_FLOAT_COMPLEX, LOOM_C_FLOAT_COMPLEX),
      E(MPI_CXX_DOUBLE_COMPLEX, LOOM_C_DOUBLE_COMPLEX),
      E(MPI_CXX_LONG_DOUBLE_COMPLEX, LOOM_C_LONG_DOUBLE_COMPLEX),
      E(MPI_CHARACTER, LOOM_F_CHARACTER), E(MPI_INTEGER, LOOM_F_INTEGER),
      E(MPI_REAL, LOOM_F_REAL),
      E(MPI_DOUBLE_PRECISION, LOOM_F_DOUBLE_PRECISION),
      E(MPI_COMPLEX, LOOM_F_COMPLEX),
      E(MPI_DOUBLE_COMPLEX, LOOM_F_DOUBLE_COMPLEX),
      E(MPI_LOGICAL, LOOM_F_LOGICAL), E(MPI_INTEGER1, LOOM_F_INTEGER1),
      E(MPI_INTEGER2, LOOM_F_INTEGER2), E(MPI_INTEGER4, LOOM_F_INTEGER4),
      E(MPI_INTEGER8, LOOM_F_INTEGER8), E(MPI_REAL4, LOOM_F_REAL4),
      E(MPI_REAL8, LOOM_F_REAL8), E(MPI_REAL16, LOOM_F_REAL16),
      E(MPI_COMPLEX8, LOOM_F_COMPLEX),
      E(MPI_COMPLEX16, LOOM_F_DOUBLE_COMPLEX),
      E(MPI_FLOAT_INT, LOOM_FLOAT_INT), E(MPI_DOUBLE_INT, LOOM_DOUBLE_INT),
      E(MPI_LONG_INT, LOOM_LONG_INT), E(MPI_2INT, LOOM_2INT),
      E(MPI_SHORT_INT, LOOM_SHORT_INT),
      E(MPI_LONG_DOUBLE_INT, LOOM_LONG_DOUBLE_INT),
      E(MPI_2REAL, LOOM_2REAL),
      E(MPI_2DOUBLE_PRECISION, LOOM_2DOUBLE_PRECISION),
      E(MPI_2INTEGER, LOOM_2INTEGER),
  };
  *n = sizeof entries / sizeof entries[0];
  return entries;
}
#undef E

}  // namespace

bool named_prim(MPI_Datatype t, loom_prim *p) {
  if (t == MPI_DATATYPE_NULL) return false;
  // Every decode asks, mostly of derived types, which a scan would compare
  // with all ~70 entries (about 320 instructions); sorted by handle, with
  // the first entry of an aliased handle kept, it is a binary search.
  static const std::vector<Entry> sorted = [] {
    size_t n;
    const Entry *e = table(&n);
    std::vector<Entry> v(e, e + n);
    auto key_less = [](const Entry &a, const Entry &b) {
      return handle_key(a.handle) < handle_key(b.handle);
    };
    std::stable_sort(v.begin(), v.end(), key_less);
    v.erase(std::unique(v.begin(), v.end(),
                        [](const Entry &a, const Entry &b) { return a.handle == b.handle; }),
            v.end());
    return v;
  }();
  const uintptr_t k = handle_key(t);
  auto it = std::lower_bound(sorted.begin(), sorted.end(), k,
                             [](const Entry &e, uintptr_t key) { return handle_key(e.handle) < key; });
  if (it == sorted.end() || it->handle != t) return false;
  *p = it->prim;
  return true;
}

bool is_bound_marker(MPI_Datatype t) {
#if LOOM_MPI_HAVE_LB_UB
  return t == MPI_LB || t == MPI_UB;
#else
  (void)t;
  return false;
#endif
}

}  // namespace loom_mpi
