// Type decoding: system datatype handle -> loom type.
//
// Every level is checked against the system: a decoded type whose size
// differs from PMPI_Type_size is refused (the caller then falls back to
// PMPI), so a decoding mistake can cost speed but never bytes.
#include "decode.hpp"

#include "errors.hpp"
#include "mirror.hpp"
#include "recorded.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace loom_mpi {
namespace {

// Owns loom references and system child handles for one decode() call.
// Child handles from get_contents are freed only at the end: Open MPI may
// hand out fresh objects, and freeing one early could let the next
// get_contents reuse its address for a different type, poisoning the memo.
//
// Two memos keep decoding linear in the size of the description: by handle,
// and by contents (combiner, arguments, decoded children).  The second is
// what Open MPI needs: its get_contents returns a fresh copy of every child
// handle, so a struct of n blocks of one derived type names n distinct
// handles that all decode to one loom type.
struct Session {
  std::unordered_map<uintptr_t, loom_type> by_handle;
  std::unordered_map<std::string, loom_type> by_contents;
  std::vector<MPI_Datatype> to_free;
  const char *why = nullptr;
  ~Session() {
    for (auto &e : by_handle) loom_type_free(e.second);
    for (auto &e : by_contents) loom_type_free(e.second);
    for (MPI_Datatype &d : to_free) PMPI_Type_free(&d);
  }
  loom_type fail(const char *w) {
    if (!why) why = w;
    return nullptr;
  }
};

template <class T>
std::vector<int64_t> widen(const T *p, size_t n) {
  return std::vector<int64_t>(p, p + n);
}

#if LOOM_MPI_HAVE_LARGE_COUNT
// MPI-4 "_c" constructors store every count and displacement in
// array_of_large_counts (layout checked against MPICH 4.0.2); fold it back
// into the classic layout so one builder serves both.
bool fold_large(Contents &c, const std::vector<int> &is,
                const std::vector<MPI_Count> &cs) {
  auto C = [&](size_t from, size_t n) {
    return std::vector<int64_t>(cs.begin() + from, cs.begin() + from + n);
  };
  auto add = [](std::vector<int64_t> &v, const std::vector<int64_t> &w) {
    v.insert(v.end(), w.begin(), w.end());
  };
  size_t nc = cs.size();
  switch (c.combiner) {
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
      c.I = C(0, nc);
      return true;
    case MPI_COMBINER_HVECTOR:
      if (nc != 3) return false;
      c.I = C(0, 2);
      c.A = C(2, 1);
      return true;
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_STRUCT: {
      if (nc < 1 || cs[0] < 0 || nc != 1 + 2 * (size_t)cs[0]) return false;
      size_t n = (size_t)cs[0];
      c.I = C(0, 1 + n);
      c.A = C(1 + n, n);
      return true;
    }
    case MPI_COMBINER_HINDEXED_BLOCK:
      if (nc < 2) return false;
      c.I = C(0, 2);
      c.A = C(2, nc - 2);
      return true;
    case MPI_COMBINER_SUBARRAY: {
      if (is.size() != 2 || nc != 3 * (size_t)is[0]) return false;
      c.I = {is[0]};
      add(c.I, C(0, nc));
      c.I.push_back(is[1]);
      return true;
    }
    case MPI_COMBINER_DARRAY: {
      if (is.size() < 3) return false;
      size_t nd = (size_t)is[2];
      if (nc != nd || is.size() != 4 + 3 * nd) return false;
      c.I = {is[0], is[1], is[2]};
      add(c.I, C(0, nd));
      c.I.insert(c.I.end(), is.begin() + 3, is.end());
      return true;
    }
    case MPI_COMBINER_RESIZED:
      if (nc != 2) return false;
      c.A = C(0, 2);
      return true;
    default:
      return false;
  }
}
#endif

bool read_contents(MPI_Datatype t, Contents &c) {
#if LOOM_MPI_HAVE_LARGE_COUNT
  MPI_Count ni, na, nc, nd;
  if (PMPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &c.combiner) !=
      MPI_SUCCESS)
    return false;
  if (c.combiner == MPI_COMBINER_NAMED) return true;
  std::vector<int> is((size_t)ni + 1);
  std::vector<MPI_Aint> as((size_t)na + 1);
  std::vector<MPI_Count> cs((size_t)nc + 1);
  c.D.resize((size_t)nd + 1);
  if (PMPI_Type_get_contents_c(t, ni, na, nc, nd, is.data(), as.data(),
                               cs.data(), c.D.data()) != MPI_SUCCESS)
    return false;
  is.resize((size_t)ni);
  as.resize((size_t)na);
  cs.resize((size_t)nc);
  c.D.resize((size_t)nd);
  if (nc > 0) return fold_large(c, is, cs);
  c.I = widen(is.data(), is.size());
  c.A = widen(as.data(), as.size());
  return true;
#else
  int ni, na, nd;
  if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &c.combiner) != MPI_SUCCESS)
    return false;
  if (c.combiner == MPI_COMBINER_NAMED) return true;
  std::vector<int> is((size_t)ni + 1);
  std::vector<MPI_Aint> as((size_t)na + 1);
  c.D.resize((size_t)nd + 1);
  if (PMPI_Type_get_contents(t, ni, na, nd, is.data(), as.data(),
                             c.D.data()) != MPI_SUCCESS)
    return false;
  c.I = widen(is.data(), (size_t)ni);
  c.A = widen(as.data(), (size_t)na);
  c.D.resize((size_t)nd);
  return true;
#endif
}

bool is_named(MPI_Datatype t) {
#if LOOM_MPI_HAVE_LARGE_COUNT
  MPI_Count ni, na, nc, nd;
  int comb;
  if (PMPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb) != MPI_SUCCESS)
    return false;
#else
  int ni, na, nd, comb;
  if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS)
    return false;
#endif
  return comb == MPI_COMBINER_NAMED;
}

int64_t sys_size(MPI_Datatype t) {
  MPI_Count s = -1;
  if (PMPI_Type_size_x(t, &s) != MPI_SUCCESS) return -1;
  return (int64_t)s;
}

// Largest power of two dividing n, at most 16: the alignment C gives a
// scalar of that size, which is what the system MPIs assume for padding.
int64_t natural_align(int64_t n) {
  int64_t a = 1;
  while (a < 16 && n % (a * 2) == 0) a *= 2;
  return a;
}

// A new reference to the process's one loom type of primitive p (made at
// first use, never freed): types built on a primitive share it, so a type
// made per message allocates no primitive.  nullptr without memory.
loom_type shared_primitive(loom_prim p) {
  static std::atomic<loom_type> made[LOOM_PRIM_COUNT];
  if (p < 0 || p >= LOOM_PRIM_COUNT) return nullptr;
  loom_type lt = made[p].load(std::memory_order_acquire);
  if (!lt) {
    loom_type fresh = nullptr;
    if (loom_type_primitive(p, &fresh) != LOOM_OK) return nullptr;
    if (made[p].compare_exchange_strong(lt, fresh, std::memory_order_acq_rel)) lt = fresh;
    else loom_type_free(fresh);  // another thread's is in place (lt)
  }
  return loom_type_ref(lt);
}

loom_type named(MPI_Datatype t, Session &s) {
  loom_type out = nullptr;
  loom_prim p;
  if (named_prim(t, &p)) {
    if (!(out = shared_primitive(p))) return s.fail("primitive");
    return out;
  }
  // A named type Loom has no primitive for (MPI_INTEGER16, MPI_REAL2,
  // MPI_LB...): plain bytes with the system's size and bounds.  Packing is
  // exact; external32 of such a type falls back to PMPI.
  MPI_Aint lb, ext;
  int64_t sz = sys_size(t);
  if (sz < 0 || PMPI_Type_get_extent(t, &lb, &ext) != MPI_SUCCESS)
    return s.fail("named type query");
  if (loom_type_bytes(sz, natural_align(sz ? sz : 1), &out) != LOOM_OK)
    return s.fail("bytes");
  if (lb != 0 || ext != sz) {
    loom_type r = nullptr;
    loom_status st = loom_type_resized(out, lb, ext, &r);
    loom_type_free(out);
    if (st != LOOM_OK) return s.fail("resized named");
    out = r;
  }
  return out;
}

int map_order(int64_t o) { return o == MPI_ORDER_FORTRAN ? LOOM_ORDER_FORTRAN : LOOM_ORDER_C; }

int map_distrib(int64_t d) {
  if (d == MPI_DISTRIBUTE_BLOCK) return LOOM_DISTRIBUTE_BLOCK;
  if (d == MPI_DISTRIBUTE_CYCLIC) return LOOM_DISTRIBUTE_CYCLIC;
  return LOOM_DISTRIBUTE_NONE;
}

loom_type build(MPI_Datatype t, Session &s, bool root);

// Builds the derived type described by c over already-built children.
loom_type construct(const Contents &c, const std::vector<loom_type> &kids,
                    const std::vector<MPI_Datatype> &kid_handles,
                    Session &s) {
  const auto &I = c.I;
  const auto &A = c.A;
  loom_type out = nullptr;
  loom_status st = LOOM_ERR_ARG;
  auto need = [&](size_t ni, size_t na, size_t nd) {
    return I.size() >= ni && A.size() >= na && kids.size() >= nd;
  };
  switch (c.combiner) {
    case MPI_COMBINER_DUP:
      if (!need(0, 0, 1)) break;
      st = loom_type_dup(kids[0], &out);
      break;
    case MPI_COMBINER_CONTIGUOUS:
      if (!need(1, 0, 1)) break;
      st = loom_type_contiguous(I[0], kids[0], &out);
      break;
    case MPI_COMBINER_VECTOR:
      if (!need(3, 0, 1)) break;
      st = loom_type_vector(I[0], I[1], I[2], kids[0], &out);
      break;
    case MPI_COMBINER_HVECTOR:
      if (!need(2, 1, 1)) break;
      st = loom_type_hvector(I[0], I[1], A[0], kids[0], &out);
      break;
    case MPI_COMBINER_INDEXED: {
      if (!need(1, 0, 1) || I[0] < 0 || I.size() < 1 + 2 * (size_t)I[0]) break;
      size_t n = (size_t)I[0];
      st = loom_type_indexed(I[0], &I[1], &I[1 + n], kids[0], &out);
      break;
    }
    case MPI_COMBINER_HINDEXED: {
      if (!need(1, 0, 1) || I[0] < 0 || I.size() < 1 + (size_t)I[0] ||
          A.size() < (size_t)I[0])
        break;
      st = loom_type_hindexed(I[0], &I[1], A.data(), kids[0], &out);
      break;
    }
    case MPI_COMBINER_INDEXED_BLOCK:
      if (!need(2, 0, 1) || I[0] < 0 || I.size() < 2 + (size_t)I[0]) break;
      st = loom_type_indexed_block(I[0], I[1], &I[2], kids[0], &out);
      break;
    case MPI_COMBINER_HINDEXED_BLOCK:
      if (!need(2, 0, 1) || I[0] < 0 || A.size() < (size_t)I[0]) break;
      st = loom_type_hindexed_block(I[0], I[1], A.data(), kids[0], &out);
      break;
    case MPI_COMBINER_STRUCT: {
      if (!need(1, 0, 0) || I[0] < 0) break;
      size_t n = (size_t)I[0];
      if (I.size() < 1 + n || A.size() < n || kids.size() < n) break;
      // MPI_LB/MPI_UB members are dropped here; the bounds they set come
      // back through the reconciliation with the system's extent below.
      std::vector<int64_t> bl, dp;
      std::vector<loom_type> ty;
      for (size_t i = 0; i < n; ++i) {
        if (is_bound_marker(kid_handles[i])) continue;
        bl.push_back(I[1 + i]);
        dp.push_back(A[i]);
        ty.push_back(kids[i]);
      }
#if defined(MPICH)
      const loom_bounds_rule rule = LOOM_BOUNDS_MPICH;
#else
      const loom_bounds_rule rule = LOOM_BOUNDS_STANDARD;
#endif
      st = loom_type_struct((int64_t)bl.size(), bl.data(), dp.data(),
                            ty.data(), rule, &out);
      break;
    }
    case MPI_COMBINER_SUBARRAY: {
      if (!need(1, 0, 1) || I[0] < 0) break;
      size_t nd = (size_t)I[0];
      if (I.size() < 2 + 3 * nd) break;
      st = loom_type_subarray((int)nd, &I[1], &I[1 + nd], &I[1 + 2 * nd],
                              map_order(I[1 + 3 * nd]), kids[0], &out);
      break;
    }
    case MPI_COMBINER_DARRAY: {
      if (!need(3, 0, 1) || I[2] < 0) break;
      size_t nd = (size_t)I[2];
      if (I.size() < 4 + 4 * nd) break;
      std::vector<int> distribs(nd), dargs(nd), psizes(nd);
      for (size_t i = 0; i < nd; ++i) {
        distribs[i] = map_distrib(I[3 + nd + i]);
        int64_t d = I[3 + 2 * nd + i];
        dargs[i] = d == MPI_DISTRIBUTE_DFLT_DARG ? LOOM_DISTRIBUTE_DFLT_DARG : (int)d;
        psizes[i] = (int)I[3 + 3 * nd + i];
      }
      st = loom_type_darray((int)I[0], (int)I[1], (int)nd, &I[3],
                            distribs.data(), dargs.data(), psizes.data(),
                            map_order(I[3 + 4 * nd]), kids[0], &out);
      break;
    }
    case MPI_COMBINER_RESIZED:
      if (!need(0, 2, 1)) break;
      st = loom_type_resized(kids[0], A[0], A[1], &out);
      break;
#if defined(MPICH)
    // Fortran MPI-1 constructors: byte displacements stored as integers.
    case MPI_COMBINER_HVECTOR_INTEGER:
      if (!need(3, 0, 1)) break;
      st = loom_type_hvector(I[0], I[1], I[2], kids[0], &out);
      break;
    case MPI_COMBINER_HINDEXED_INTEGER: {
      if (!need(1, 0, 1) || I[0] < 0 || I.size() < 1 + 2 * (size_t)I[0]) break;
      size_t n = (size_t)I[0];
      st = loom_type_hindexed(I[0], &I[1], &I[1 + n], kids[0], &out);
      break;
    }
    case MPI_COMBINER_STRUCT_INTEGER: {
      Contents c2 = c;
      c2.combiner = MPI_COMBINER_STRUCT;
      if (I.empty() || I[0] < 0 || I.size() < 1 + 2 * (size_t)I[0]) break;
      size_t n = (size_t)I[0];
      c2.I.assign(I.begin(), I.begin() + 1 + n);
      c2.A.assign(I.begin() + 1 + n, I.begin() + 1 + 2 * n);
      return construct(c2, kids, kid_handles, s);
    }
#endif
    default:
      return s.fail("combiner not handled");
  }
  if (st != LOOM_OK) return s.fail(st == LOOM_ERR_ARG ? "constructor arguments" : loom_status_string(st));
  return out;
}

// Types made by MPI_Type_create_f90_*: a named-like type known by its size.
loom_type f90(MPI_Datatype t, int combiner, Session &s) {
  int64_t sz = sys_size(t);
  loom_prim p = LOOM_PRIM_COUNT;
  if (combiner == MPI_COMBINER_F90_REAL)
    p = sz == 4 ? LOOM_F_REAL4 : sz == 8 ? LOOM_F_REAL8 : sz == 16 ? LOOM_F_REAL16 : p;
  else if (combiner == MPI_COMBINER_F90_COMPLEX)
    p = sz == 8 ? LOOM_F_COMPLEX : sz == 16 ? LOOM_F_DOUBLE_COMPLEX : p;
  else
    p = sz == 1 ? LOOM_F_INTEGER1 : sz == 2 ? LOOM_F_INTEGER2 : sz == 4 ? LOOM_F_INTEGER4 : sz == 8 ? LOOM_F_INTEGER8 : p;
  loom_type out = nullptr;
  if (p == LOOM_PRIM_COUNT || loom_type_primitive(p, &out) != LOOM_OK)
    return s.fail("f90 type");
  return out;
}

// Bounds conventions differ between the MPIs where the standard leaves
// room: struct padding and sticky markers (MPICH 4 vs Open MPI), alignment
// padding of h-type extents (Open MPI rounds hvector(2,4,30,MPI_FLOAT) up to
// extent 48, MPICH says 46), bounds of types without data.  Parents must lay
// instances out exactly as the system does, so Loom adopts the system's
// lb/extent: always for a struct, and for other constructors when the
// system places the data where Loom does (same true bounds) or there is no
// data.  Where the data itself is placed differently the system is wrong
// (Open MPI 4.1.4 reports lb 0 for hvector(12,1,-1,MPI_CHAR) and packs
// bytes +0..+11) and Loom keeps the standard layout.
loom_type reconcile(MPI_Datatype t, loom_type lt, bool is_struct, Session &s) {
  MPI_Aint slb, sext, stlb, stext;
  if (PMPI_Type_get_extent(t, &slb, &sext) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(t, &stlb, &stext) != MPI_SUCCESS) {
    loom_type_free(lt);
    return s.fail("get_extent");
  }
  int64_t lb, ext, tlb, text;
  loom_type_extent(lt, &lb, &ext);
  if (lb == slb && ext == sext) return lt;
  loom_type_true_extent(lt, &tlb, &text);
  bool same_data = loom_type_size(lt) == 0 || (tlb == stlb && text == stext);
  if (!is_struct && !same_data) {
    note("datatype %#lx: the system places its data elsewhere (true lb %ld, "
         "Loom %lld); keeping the standard layout",
         (unsigned long)handle_key(t), (long)stlb, (long long)tlb);
    return lt;
  }
  loom_type r = nullptr;
  loom_status st = loom_type_resized(lt, slb, sext, &r);
  loom_type_free(lt);
  if (st != LOOM_OK) return s.fail("bounds reconcile");
  return r;
}

loom_type checked_size(MPI_Datatype t, loom_type lt, Session &s) {
  if (lt && loom_type_size(lt) != sys_size(t)) {
    loom_type_free(lt);
    return s.fail("size differs from the system's");
  }
  return lt;
}

loom_type level(MPI_Datatype t, const Contents &c, const std::vector<loom_type> &kids,
                Session &s) {
  loom_type lt = construct(c, kids, c.D, s);
  if (!lt) return nullptr;
  bool is_struct = c.combiner == MPI_COMBINER_STRUCT;
#if defined(MPICH)
  is_struct = is_struct || c.combiner == MPI_COMBINER_STRUCT_INTEGER;
#endif
  return reconcile(t, lt, is_struct, s);
}

// The contents memo's key: combiner, arguments and the decoded children
// (loom types are unique per content within a session, so their addresses
// stand for them).
std::string contents_key(const Contents &c, const std::vector<loom_type> &kids) {
  std::string k;
  auto put = [&k](const void *p, size_t n) { k.append(static_cast<const char *>(p), n); };
  size_t sizes[3] = {c.I.size(), c.A.size(), kids.size()};
  put(&c.combiner, sizeof c.combiner);
  put(sizes, sizeof sizes);
  put(c.I.data(), c.I.size() * sizeof(int64_t));
  put(c.A.data(), c.A.size() * sizeof(int64_t));
  put(kids.data(), kids.size() * sizeof(loom_type));
  return k;
}

loom_type build_uncached(MPI_Datatype t, Session &s, bool root) {
  Contents c;
  if (!read_contents(t, c)) return s.fail("get_envelope/get_contents");
  if (c.combiner == MPI_COMBINER_NAMED) return named(t, s);
  if (c.combiner == MPI_COMBINER_F90_REAL ||
      c.combiner == MPI_COMBINER_F90_COMPLEX ||
      c.combiner == MPI_COMBINER_F90_INTEGER)
    return f90(t, c.combiner, s);
  std::vector<loom_type> kids;
  struct Release {
    std::vector<loom_type> &v;
    ~Release() { for (loom_type k : v) loom_type_free(k); }
  } release{kids};
  for (MPI_Datatype d : c.D) {
    if (!is_named(d)) s.to_free.push_back(d);
    kids.push_back(is_bound_marker(d) ? nullptr : build(d, s, false));
    if (!kids.back() && !is_bound_marker(d)) return nullptr;
  }
  // The root is unique; memoizing its (possibly long) key would cost time.
  std::string key = root ? std::string() : contents_key(c, kids);
  if (!root) {
    auto hit = s.by_contents.find(key);
    if (hit != s.by_contents.end()) return loom_type_ref(hit->second);
  }
  loom_type lt = level(t, c, kids, s);
  if (lt && !root) s.by_contents.emplace(std::move(key), loom_type_ref(lt));
  return lt;
}

// A new reference to the loom type of t (memoized within the session).
// The root is always decoded: it may be a handle whose cached mirror went
// stale (freed through PMPI and reused).
loom_type build(MPI_Datatype t, Session &s, bool root) {
  uintptr_t k = handle_key(t);
  auto hit = s.by_handle.find(k);
  if (hit != s.by_handle.end()) return loom_type_ref(hit->second);
  // A child that is itself committed and mirrored is not decoded again, if
  // the system still describes it as it did when the mirror was built; a
  // type whose constructor Loom saw is taken as it was built then.
  if (const Mirror *m = root ? nullptr : find(t))
    if (m->type && still_describes(*m, t)) return loom_type_ref(m->type);
  loom_type lt = recorded(t);
  if (!lt) lt = checked_size(t, build_uncached(t, s, root), s);
  if (!lt) return nullptr;
  s.by_handle.emplace(k, loom_type_ref(lt));
  return lt;
}

}  // namespace

void system_facts(MPI_Datatype t, int64_t out[5]) {
  MPI_Count size = -1;
  MPI_Aint lb = 0, ext = 0, tlb = 0, text = 0;
  PMPI_Type_size_x(t, &size);
  PMPI_Type_get_extent(t, &lb, &ext);
  PMPI_Type_get_true_extent(t, &tlb, &text);
  int64_t v[5] = {(int64_t)size, lb, ext, tlb, text};
  for (int i = 0; i < 5; ++i) out[i] = v[i];
}

loom_type build_level(MPI_Datatype t, const Contents &c, const std::vector<loom_type> &kids,
                      const char **why) {
  Session s;
  loom_type lt = checked_size(t, level(t, c, kids, s), s);
  if (why) *why = s.why ? s.why : "";
  return lt;
}

loom_type decode(MPI_Datatype t, const char **why, const int64_t *sys) {
  // A named type Loom has a primitive for, and a type the drop-in saw being
  // built, need no session (build() would come to the same answers after
  // setting one up and asking the system for the envelope).
  loom_prim p;
  loom_type lt = nullptr;
  if (named_prim(t, &p)) {
    if ((lt = shared_primitive(p)) && loom_type_size(lt) != sys_size(t)) {
      loom_type_free(lt);  // the slow path says why
      lt = nullptr;
    }
  } else {
    lt = recorded(t, sys);  // checked against the system's size and bounds
  }
  if (lt) {
    if (why) *why = "";
    return lt;
  }
  Session s;
  lt = build(t, s, true);
  if (why) *why = s.why ? s.why : "";
  return lt;
}

}  // namespace loom_mpi
