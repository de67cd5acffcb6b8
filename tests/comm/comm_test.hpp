// Shared pieces of the point-to-point tests: seeded random MPI types with
// the facts that decide which oracle applies, buffers that cover a type's
// footprint with canaries, and byte comparisons that ignore what the system
// MPI itself leaves unwritten.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "guarded.hpp"
#include "mpi_test.hpp"
#include "to_mpi.hpp"

namespace commtest {

using namespace loomtest;

inline bool is_mpich() { return std::strcmp(mpi_flavor(), "mpich") == 0; }

// Whether environment variable `name` says off (0, no, off, false).
inline bool env_off(const char *name) {
  const char *v = std::getenv(name);
  if (!v) return false;
  std::string s(v);
  for (auto &c : s) c = (char)std::tolower((unsigned char)c);
  return s == "0" || s == "no" || s == "off" || s == "false";
}

// Whether a spec contains a node of kind k.
inline bool any_kind(const TypeSpec &t, Kind k) {
  if (t.kind == k) return true;
  for (const auto &c : t.types)
    if (c && any_kind(*c, k)) return true;
  return t.child && any_kind(*t.child, k);
}

// Whether a spec contains a primitive for which pred() holds.
template <class Pred>
bool any_prim(const TypeSpec &t, Pred pred) {
  if (t.kind == Kind::Prim) return pred(t.prim);
  for (const auto &c : t.types)
    if (c && any_prim(*c, pred)) return true;
  return t.child && any_prim(*t.child, pred);
}

// MPICH 4.0.2 moves long double (and the types made of it) in derived
// types with 10-byte x87 moves: the 6 pad bytes of every element are left
// unwritten by its unpack, and its typed send puts unspecified bytes there.
inline bool has_x87(const TypeSpec &t) {
  return any_prim(t, [](loom_prim p) {
    return p == LOOM_LONG_DOUBLE || p == LOOM_C_LONG_DOUBLE_COMPLEX ||
           p == LOOM_LONG_DOUBLE_INT || p == LOOM_F_REAL16;
  });
}

// Basic elements of different sizes (pair types count by their members).
inline bool heterogeneous(const TypeSpec &t) {
  int64_t first = -1;
  bool mixed = false;
  any_prim(t, [&](loom_prim p) {
    for (const auto &pc : prim_info(p).pieces) {
      if (first < 0) first = pc.second;
      mixed |= pc.second != first;
    }
    return false;
  });
  return mixed;
}

// A committed random type and what the tests need to know about it.
struct RandType {
  MpiType mt;
  MPI_Datatype T = MPI_DATATYPE_NULL;
  Layout L;
  std::string desc;
  // The system's datatype path moves this type's bytes correctly, so the
  // system is an oracle (documented system bugs excluded: tests/mpi).
  bool sys_ok = false;
  // The system's typed path moves every standard byte (MPICH leaves x87
  // pad bytes unwritten on receive and unspecified on the wire).
  bool sys_exact = false;
  // MPICH 4.0.2's own MPI_Get_elements fails on its own statuses, Loom or
  // not: SIGFPE for struct([10,1],[4,36],[int,indexed_block(5,[2],float)]),
  // an assertion (get_elements_x.c:268) for resized(-5,26,darray(...)).
  // The drop-in answers whole instances itself; a byte count that ends
  // inside an instance still reaches the system, so on MPICH only whole
  // instances are asked.
  bool elements_ok = true;
  // MPICH 4.0.2 cannot receive a long MPI_PACKED (or MPI_BYTE) message
  // into a type whose basic elements differ in size: its pipeline cuts the
  // bytes inside an element and the typed receive fails (a plain MPICH
  // program: PMPI_Pack + PMPI_Send(MPI_PACKED) of 1000 struct{int,double,
  // short} into PMPI_Recv of the struct returns an error).  So a Loom
  // sender cannot feed a non-Loom MPICH typed receiver such types.
  // Open MPI 4.1.4 overruns a buffer (glibc: "buffer overflow detected")
  // receiving MPI_PACKED data into non-contiguous types of 32-byte elements
  // (vector(3,1,2,MPI_C_LONG_DOUBLE_COMPLEX), count 100, plain PMPI).
  bool packed_to_typed_ok = true;
  bool ok() const { return T != MPI_DATATYPE_NULL; }
};

inline RandType random_type(std::mt19937_64 &rng, int max_depth) {
  RandType r;
  GenOptions go;
  go.zero_subsizes = is_mpich();  // Open MPI 4.1 rejects zero subsizes
  TypeSpecPtr spec = random_spec(rng, max_depth, go);
  r.desc = describe(*spec);
  ToMpiOptions to;
  to.rng = &rng;
  r.mt = to_mpi(spec, to);
  if (r.mt.type == MPI_DATATYPE_NULL) return r;
  MPI_Type_commit(&r.mt.type);
  r.T = r.mt.type;
  r.L = reference_layout(*r.mt.reconciled);
  r.sys_ok = !r.mt.ompi_negbyte && !r.mt.empty_member;
  r.elements_ok = !is_mpich();  // partial instances too
  r.packed_to_typed_ok =
      is_mpich() ? !heterogeneous(*spec)
                 : !any_prim(*spec, [](loom_prim p) { return p == LOOM_C_LONG_DOUBLE_COMPLEX; });
  r.sys_exact = r.sys_ok && !(is_mpich() && has_x87(*spec));
  return r;
}

inline void free_type(RandType &r) {
  if (r.ok()) release(r.mt);
  r.T = MPI_DATATYPE_NULL;
}

// Byte range `count` instances touch, as the system and the reference see
// it, with a margin: buffers cover both.
struct Span {
  int64_t lo, hi;
};

inline Span span_of(MPI_Datatype t, const Layout &l, int64_t count) {
  int64_t lo, hi;
  reference_span(l, count, &lo, &hi);
  MPI_Aint lb, ext, tlb, text;
  MPI_Count size;
  MPI_Type_get_extent(t, &lb, &ext);
  MPI_Type_get_true_extent(t, &tlb, &text);
  MPI_Type_size_x(t, &size);
  for (int64_t i = 0; i < count && size > 0; ++i) {
    lo = std::min<int64_t>(lo, i * ext + tlb);
    hi = std::max<int64_t>(hi, i * ext + tlb + text);
  }
  return {lo - 64, hi + 64};
}

// A guarded buffer whose origin (the MPI buf argument) is data() - lo.
struct Buf {
  Guarded g;
  int64_t lo;
  Buf(Span s, size_t phase) : g((size_t)(s.hi - s.lo), phase), lo(s.lo) {}
  unsigned char *origin() { return g.data() - lo; }
  std::vector<unsigned char> bytes() const { return g.contents(); }
};

inline std::vector<bool> differing(const std::vector<unsigned char> &a,
                                   const std::vector<unsigned char> &b) {
  std::vector<bool> m(a.size());
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) m[i] = a[i] != b[i];
  return m;
}

// Equal except where mask is set.
inline bool same_except(const std::vector<unsigned char> &a,
                        const std::vector<unsigned char> &b,
                        const std::vector<bool> &mask) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i] && !(i < mask.size() && mask[i])) return false;
  return true;
}

// First differing offset (for messages), or -1.
inline long first_diff(const std::vector<unsigned char> &a,
                       const std::vector<unsigned char> &b,
                       const std::vector<bool> *mask = nullptr) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (a[i] != b[i] && !(mask && i < mask->size() && (*mask)[i])) return (long)i;
  return a.size() == b.size() ? -1 : (long)std::min(a.size(), b.size());
}

// Marks the bytes of buf that `count` instances of l cover.
inline std::vector<bool> covered(const Layout &l, int64_t count, const Buf &b) {
  std::vector<bool> m(b.g.size(), false);
  for (const Piece &p : reference_pieces(l, count, true))
    for (int64_t i = 0; i < p.len; ++i) {
      int64_t at = p.disp + i - b.lo;
      if (at >= 0 && at < (int64_t)m.size()) m[(size_t)at] = true;
    }
  return m;
}

inline void complement(Guarded &g) {
  for (size_t i = 0; i < g.size(); ++i) g.data()[i] = (unsigned char)~g.data()[i];
}

// The counts a status reports on type t (to compare statuses).
struct Counts {
  int source = -9, tag = -9, count = -9, elements = -9, bytes = -9;
  MPI_Count elements_x = -9, count_x = -9;
  bool operator==(const Counts &o) const {
    return source == o.source && tag == o.tag && count == o.count &&
           elements == o.elements && bytes == o.bytes &&
           elements_x == o.elements_x && count_x == o.count_x;
  }
};

// elements: also ask MPI_Get_elements (not for types the system mishandles).
inline Counts counts_of(const MPI_Status &st, MPI_Datatype t, bool elements = true) {
  Counts c;
  c.source = st.MPI_SOURCE;
  c.tag = st.MPI_TAG;
  MPI_Get_count(&st, t, &c.count);
  if (elements) {
    MPI_Get_elements(&st, t, &c.elements);
    MPI_Get_elements_x(&st, t, &c.elements_x);
  }
  MPI_Get_count(&st, MPI_BYTE, &c.bytes);
#if MPI_VERSION >= 4
  MPI_Get_count_c(&st, t, &c.count_x);
#else
  c.count_x = c.count;
#endif
  return c;
}

inline std::string str(const Counts &c) {
  char b[200];
  std::snprintf(b, sizeof b, "src %d tag %d count %d elems %d/%lld bytes %d",
                c.source, c.tag, c.count, c.elements, (long long)c.elements_x,
                c.bytes);
  return b;
}

}  // namespace commtest
