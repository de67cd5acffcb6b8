// Application layouts of DDTBench (Schneider, Gerstenberger, Hoefler,
// "Micro-Applications for Communication Data Access Patterns and MPI
// Datatypes", EuroMPI 2012), reconstructed from the paper's descriptions of
// each application's halo or exchange datatype.  One input per layout, taken
// from the benchmark's own parameter sets; sizes are stated per case below.
// Where the original uses MPI_BOTTOM with absolute addresses, the arrays here
// live in one arena and the struct displacements are offsets into it (same
// layout; MPICH 4.0.2 rejects MPI_Pack on MPI_BOTTOM).
//
// The hand loops are what the application would otherwise do: nested loops
// over the same index ranges, memcpy for runs of fixed length, and the same
// packed order as the datatype (MPI typemap order).
#include <cstring>
#include <random>

#include "cases.h"

namespace loom_bench {

namespace {

// `count` distinct indices from [0, range), in random order (the particle
// or mesh-point lists of LAMMPS and SPECFEM3D).  Deterministic per seed.
std::vector<int64_t> random_index_list(int64_t count, int64_t range,
                                       uint64_t seed) {
  std::vector<int64_t> all(range);
  for (int64_t i = 0; i < range; ++i) all[i] = i;
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t j = i + static_cast<int64_t>(rng() % uint64_t(range - i));
    std::swap(all[i], all[j]);
  }
  all.resize(count);
  return all;
}

// ------------------------------------------------------------------ WRF
// WRF halo exchange of the em_b_wave case, 2x2 processes (the largest of
// DDTBench's WRF inputs): four 2D, three 3D and two 4D float arrays with
// memory bounds i in [-4,27], k in [1,65], j in [34,85] (32 x 65 x 52), the
// 4D arrays with 2 scalars of which the second is sent.
//   y direction: i in [1,23], k in [1,65], j in [41,43]  (23-float runs)
//   x direction: i in [18,20], k in [1,65], j in [38,81] (3-float runs)
// "vec": struct of (h)vectors per array; "sa": struct of subarrays
// (Fortran order, as in the Fortran original).
struct WrfGeom {
  int64_t dim1, dim2, dim3;     // i, k, j extents of memory
  int64_t sub1, sub2, sub3;     // sent extents
  int64_t is, ks, js;           // zero-based starts
  int64_t n2d = 4, n3d = 3, n4d = 2, limit4d = 2, first_scalar = 1;
};

WrfGeom wrf_geom(bool xdir) {
  WrfGeom g;
  const int64_t ims = -4, ime = 27, kms = 1, kme = 65, jms = 34, jme = 85;
  g.dim1 = ime - ims + 1;
  g.dim2 = kme - kms + 1;
  g.dim3 = jme - jms + 1;
  int64_t is, ie, js, je;
  if (xdir) {
    is = 18, ie = 20, js = 38, je = 81;
  } else {
    is = 1, ie = 23, js = 41, je = 43;
  }
  const int64_t ks = 1, ke = 65;
  g.sub1 = ie - is + 1;
  g.sub2 = ke - ks + 1;
  g.sub3 = je - js + 1;
  g.is = is - ims;
  g.ks = ks - kms;
  g.js = js - jms;
  return g;
}

// The loops WRF's halo code runs: for each array, j, then k, then a run of
// sub1 floats along i.  In the x direction the run is the halo width, a
// compile-time constant of the generated halo code (kRun = 3: three element
// moves); in the y direction it is the patch width, known only at run time
// (kRun = 0: a memcpy of 23 floats, faster here than an element loop).
// bases: the offsets of the 2D, 3D and 4D arrays.
template <bool kPack, int64_t kRun>
void wrf_hand(const WrfGeom &g, const int64_t *bases, char *user, char *packed) {
  const int64_t dim1 = g.dim1, dim2 = g.dim2, a3 = g.dim1 * g.dim2 * g.dim3;
  const int64_t sub1 = kRun ? kRun : g.sub1, sub2 = g.sub2, sub3 = g.sub3;
  const int64_t is = g.is, ks = g.ks, js = g.js;
  uint32_t *p = reinterpret_cast<uint32_t *>(packed);
  auto move = [](uint32_t *a, int64_t n, uint32_t *&q) {
    if (kRun) {  // fixed width: element moves the compiler unrolls
      for (int64_t i = 0; i < kRun; ++i) {
        if (kPack)
          q[i] = a[i];
        else
          a[i] = q[i];
      }
    } else if (kPack) {
      std::memcpy(q, a, n * sizeof(float));
    } else {
      std::memcpy(a, q, n * sizeof(float));
    }
    q += n;
  };
  int64_t m = 0;
  for (int64_t t = 0; t < g.n2d; ++t, ++m) {
    uint32_t *arr = reinterpret_cast<uint32_t *>(user + bases[m]);
    for (int64_t j = 0; j < sub3; ++j) move(arr + is + dim1 * (js + j), sub1, p);
  }
  for (int64_t t = 0; t < g.n3d; ++t, ++m) {
    uint32_t *arr = reinterpret_cast<uint32_t *>(user + bases[m]);
    for (int64_t j = 0; j < sub3; ++j)
      for (int64_t k = 0; k < sub2; ++k)
        move(arr + is + dim1 * (ks + k + dim2 * (js + j)), sub1, p);
  }
  for (int64_t t = 0; t < g.n4d; ++t, ++m) {
    uint32_t *arr = reinterpret_cast<uint32_t *>(user + bases[m]);
    for (int64_t sc = g.first_scalar; sc < g.limit4d; ++sc)
      for (int64_t j = 0; j < sub3; ++j)
        for (int64_t k = 0; k < sub2; ++k)
          move(arr + sc * a3 + is + dim1 * (ks + k + dim2 * (js + j)), sub1, p);
  }
}

CaseDef wrf_case(bool xdir, bool subarray) {
  CaseDef d;
  d.name = std::string("WRF ") + (xdir ? "x" : "y") + (subarray ? " sa" : " vec");
  d.group = "DDTBench";
  d.make = [xdir, subarray](const CaseParams &p) {
    const WrfGeom g = wrf_geom(xdir);
    auto c = std::make_unique<CaseInstance>();
    c->sizes = "32x65x52 floats, 4 2D + 3 3D + 2 4D arrays, " +
               std::to_string(g.sub1) + "x" + std::to_string(g.sub2) + "x" +
               std::to_string(g.sub3) + " sent";
    const int64_t f = sizeof(float);
    const int64_t a2 = g.dim1 * g.dim3, a3 = g.dim1 * g.dim2 * g.dim3;
    // Arena: every array starts on a 64-byte boundary.
    std::vector<int64_t> base2, base3, base4;
    size_t off = 0;
    for (int64_t m = 0; m < g.n2d; ++m, off = align64(off + a2 * f)) base2.push_back(off);
    for (int64_t m = 0; m < g.n3d; ++m, off = align64(off + a3 * f)) base3.push_back(off);
    for (int64_t m = 0; m < g.n4d; ++m, off = align64(off + a3 * g.limit4d * f))
      base4.push_back(off);
    c->user_bytes = off;

    std::vector<int64_t> bl, dp;
    std::vector<DualType> types;
    const DualType fl = DualType::float_();
    if (!subarray) {
      auto t2 = DualType::vector(g.sub3, g.sub1, g.dim1, fl);
      auto plane = DualType::vector(g.sub2, g.sub1, g.dim1, fl);
      auto t3 = DualType::hvector(g.sub3, 1, g.dim1 * g.dim2 * f, plane);
      auto t4 = DualType::hvector(g.limit4d - g.first_scalar, 1, a3 * f, t3);
      const int64_t s2 = (g.is + g.dim1 * g.js) * f;
      const int64_t s3 = (g.is + g.dim1 * (g.ks + g.dim2 * g.js)) * f;
      const int64_t s4 = s3 + g.first_scalar * a3 * f;
      for (auto b : base2) bl.push_back(1), dp.push_back(b + s2), types.push_back(t2);
      for (auto b : base3) bl.push_back(1), dp.push_back(b + s3), types.push_back(t3);
      for (auto b : base4) bl.push_back(1), dp.push_back(b + s4), types.push_back(t4);
    } else {
      auto t2 = DualType::subarray({g.dim1, g.dim3}, {g.sub1, g.sub3},
                                   {g.is, g.js}, LOOM_ORDER_FORTRAN, fl);
      auto t3 = DualType::subarray({g.dim1, g.dim2, g.dim3},
                                   {g.sub1, g.sub2, g.sub3}, {g.is, g.ks, g.js},
                                   LOOM_ORDER_FORTRAN, fl);
      auto t4 = DualType::subarray(
          {g.dim1, g.dim2, g.dim3, g.limit4d},
          {g.sub1, g.sub2, g.sub3, g.limit4d - g.first_scalar},
          {g.is, g.ks, g.js, g.first_scalar}, LOOM_ORDER_FORTRAN, fl);
      for (auto b : base2) bl.push_back(1), dp.push_back(b), types.push_back(t2);
      for (auto b : base3) bl.push_back(1), dp.push_back(b), types.push_back(t3);
      for (auto b : base4) bl.push_back(1), dp.push_back(b), types.push_back(t4);
    }
    c->type = DualType::struct_(bl, dp, types, p.rule);

    // Hand loops: array by array, j then k, then i element by element.
    auto bases = std::make_shared<std::vector<int64_t>>();
    for (auto v : {&base2, &base3, &base4}) bases->insert(bases->end(), v->begin(), v->end());
    if (g.sub1 == 3) {
      c->hand_pack = [g, bases](const char *u, char *pk) {
        wrf_hand<true, 3>(g, bases->data(), const_cast<char *>(u), pk);
      };
      c->hand_unpack = [g, bases](const char *pk, char *u) {
        wrf_hand<false, 3>(g, bases->data(), u, const_cast<char *>(pk));
      };
    } else {
      c->hand_pack = [g, bases](const char *u, char *pk) {
        wrf_hand<true, 0>(g, bases->data(), const_cast<char *>(u), pk);
      };
      c->hand_unpack = [g, bases](const char *pk, char *u) {
        wrf_hand<false, 0>(g, bases->data(), u, const_cast<char *>(pk));
      };
    }
    return finish(std::move(c));
  };
  return d;
}

// ------------------------------------------------------------ MILC su3_zdown
// MILC's z-down halo of a 16^4 local lattice (DDTBench's largest input) of
// su3 vectors (3 complex floats, 24 bytes), stored as even and odd halves:
// hvector(2, 1, half, vector(16, 16*16/2, 16*16*16/2, contiguous(6, float))).
// 32 runs of 3 KiB, 96 KiB packed.
CaseDef milc_case() {
  CaseDef d;
  d.name = "MILC su3_zd";
  d.group = "DDTBench";
  d.make = [](const CaseParams &p) {
    const int64_t D = p.quick ? 8 : 16;  // DIM2 = DIM3 = DIM4 = DIM5
    const int64_t su3 = 24;
    const int64_t half = su3 * D * D * D * D / 2;
    auto c = std::make_unique<CaseInstance>();
    c->sizes = std::to_string(D) + "^4 lattice of su3 vectors (24 B)";
    auto vec = DualType::contiguous(6, DualType::float_());
    auto t = DualType::vector(D, D * D / 2, D * D * D / 2, vec);
    c->type = DualType::hvector(2, 1, half, t);
    c->user_bytes = 2 * half;
    const size_t run = D * D / 2 * su3;
    const int64_t tstride = D * D * D / 2 * su3;
    c->hand_pack = [=](const char *u, char *pk) {
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t t5 = 0; t5 < D; ++t5, pk += run)
          std::memcpy(pk, u + h * half + t5 * tstride, run);
    };
    c->hand_unpack = [=](const char *pk, char *u) {
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t t5 = 0; t5 < D; ++t5, pk += run)
          std::memcpy(u + h * half + t5 * tstride, pk, run);
    };
    return finish(std::move(c));
  };
  return d;
}

// ----------------------------------------------------------------- NAS LU
// NAS LU: u(5, DIM2+2, DIM3+2) doubles with DIM2 = DIM3 = 1020 (DDTBench's
// largest input).  x: one contiguous face of 5*1020 doubles; y: 1020 runs of
// 5 doubles (40 B), vector(1020, 1, 1022, contiguous(5, double)).
CaseDef nas_lu_case(bool xdir) {
  CaseDef d;
  d.name = std::string("NAS LU ") + (xdir ? "x" : "y");
  d.group = "DDTBench";
  d.contiguous = xdir;
  d.make = [xdir](const CaseParams &p) {
    const int64_t D = p.quick ? 64 : 1020;  // DIM2 = DIM3
    auto c = std::make_unique<CaseInstance>();
    c->sizes = "u(5, " + std::to_string(D + 2) + ", " + std::to_string(D + 2) +
               ") doubles";
    const int64_t cell = 5 * 8, row = (D + 2) * cell;
    c->user_bytes = (D + 2) * row;
    if (xdir) {
      c->type = DualType::contiguous(5 * D, DualType::double_());
      c->origin = D * row + cell;  // (0, 1, DIM3)
      const size_t bytes = D * cell;
      c->hand_pack = [bytes](const char *u, char *pk) { std::memcpy(pk, u, bytes); };
      c->hand_unpack = [bytes](const char *pk, char *u) { std::memcpy(u, pk, bytes); };
    } else {
      auto five = DualType::contiguous(5, DualType::double_());
      c->type = DualType::vector(D, 1, D + 2, five);
      c->origin = row + D * cell;  // (0, DIM2, 1)
      c->hand_pack = [D, row](const char *u, char *pk) {
        for (int64_t k = 0; k < D; ++k, pk += 40) std::memcpy(pk, u + k * row, 40);
      };
      c->hand_unpack = [D, row](const char *pk, char *u) {
        for (int64_t k = 0; k < D; ++k, pk += 40) std::memcpy(u + k * row, pk, 40);
      };
    }
    return finish(std::move(c));
  };
  return d;
}

// ----------------------------------------------------------------- NAS MG
// NAS MG: a 258 x 130 x 130 double array (DDTBench's third input), faces
// without the ghost ring:
//   x: hvector(128, 1, 258*130*8, vector(128, 1, 258, double))  single doubles
//   y: vector(128, 256, 258*130, double)                         2 KiB runs
//   z: vector(128, 256, 258, double)                             2 KiB runs
CaseDef nas_mg_case(char dir) {
  CaseDef d;
  d.name = std::string("NAS MG ") + dir;
  d.group = "DDTBench";
  d.make = [dir](const CaseParams &p) {
    const int64_t D1 = p.quick ? 34 : 258, D2 = p.quick ? 18 : 130,
                  D3 = p.quick ? 18 : 130;
    auto c = std::make_unique<CaseInstance>();
    c->sizes = std::to_string(D1) + "x" + std::to_string(D2) + "x" +
               std::to_string(D3) + " doubles";
    c->user_bytes = D1 * D2 * D3 * 8;
    auto idx = [=](int64_t x, int64_t y, int64_t z) { return (x + D1 * (y + z * D2)) * 8; };
    const DualType dbl = DualType::double_();
    if (dir == 'x') {
      auto t = DualType::vector(D2 - 2, 1, D1, dbl);
      c->type = DualType::hvector(D3 - 2, 1, D1 * D2 * 8, t);
      c->origin = idx(D1 - 2, 1, 1);
      c->hand_pack = [=](const char *u, char *pk) {
        const uint64_t *in = reinterpret_cast<const uint64_t *>(u);
        uint64_t *out = reinterpret_cast<uint64_t *>(pk);
        for (int64_t z = 0; z < D3 - 2; ++z)
          for (int64_t y = 0; y < D2 - 2; ++y) *out++ = in[D1 * (y + z * D2)];
      };
      c->hand_unpack = [=](const char *pk, char *u) {
        const uint64_t *in = reinterpret_cast<const uint64_t *>(pk);
        uint64_t *out = reinterpret_cast<uint64_t *>(u);
        for (int64_t z = 0; z < D3 - 2; ++z)
          for (int64_t y = 0; y < D2 - 2; ++y) out[D1 * (y + z * D2)] = *in++;
      };
    } else {
      const bool ydir = dir == 'y';
      const int64_t nrun = ydir ? D3 - 2 : D2 - 2;
      const int64_t stride = ydir ? D1 * D2 * 8 : D1 * 8;
      c->type = DualType::vector(nrun, D1 - 2, stride / 8, dbl);
      c->origin = ydir ? idx(1, D2 - 2, 1) : idx(1, 1, 1);
      const size_t run = (D1 - 2) * 8;
      c->hand_pack = [=](const char *u, char *pk) {
        for (int64_t i = 0; i < nrun; ++i, pk += run) std::memcpy(pk, u + i * stride, run);
      };
      c->hand_unpack = [=](const char *pk, char *u) {
        for (int64_t i = 0; i < nrun; ++i, pk += run) std::memcpy(u + i * stride, pk, run);
      };
    }
    return finish(std::move(c));
  };
  return d;
}

// ----------------------------------------------------------------- LAMMPS
// LAMMPS border exchange: per-atom arrays x (3 doubles per atom) and 1-double
// properties, indexed by a list of atoms; struct of indexed_block types, one
// member per array (packed array by array).
//   full   (peptide, 2 processes): 3062 of 3534 atoms; x, tag, type, mask,
//          q, molecule: 8 doubles per atom, 196 KB packed
//   atomic (crack, 2 processes):    243 of 4084 atoms; x, tag, type, mask:
//          6 doubles per atom, 11.7 KB packed
CaseDef lammps_case(bool full) {
  CaseDef d;
  d.name = std::string("LAMMPS ") + (full ? "full" : "atomic");
  d.group = "DDTBench";
  d.make = [full](const CaseParams &p) {
    const int64_t icount = full ? 3062 : 243;
    const int64_t natoms = (full ? 3534 : 4084) + icount;
    const int64_t nprop = full ? 5 : 3;
    (void)p;
    auto c = std::make_unique<CaseInstance>();
    c->sizes = std::to_string(icount) + " of " + std::to_string(natoms - icount) +
               " atoms, x + " + std::to_string(nprop) + " properties";
    auto list = std::make_shared<std::vector<int64_t>>(
        random_index_list(icount, natoms - icount, full ? 11 : 12));
    size_t off = 0;
    const size_t xoff = off;
    off = align64(off + 3 * natoms * 8);
    std::vector<int64_t> poff;
    for (int64_t m = 0; m < nprop; ++m, off = align64(off + natoms * 8)) poff.push_back(off);
    c->user_bytes = off;

    std::vector<int64_t> d3(icount);
    for (int64_t i = 0; i < icount; ++i) d3[i] = 3 * (*list)[i];
    auto ix3 = DualType::indexed_block(3, d3, DualType::double_());
    auto ix1 = DualType::indexed_block(1, *list, DualType::double_());
    std::vector<int64_t> bl(1 + nprop, 1), dp{int64_t(xoff)};
    std::vector<DualType> types{ix3};
    for (auto o : poff) dp.push_back(o), types.push_back(ix1);
    c->type = DualType::struct_(bl, dp, types, p.rule);

    c->hand_pack = [list, xoff, poff](const char *u, char *pk) {
      const int64_t *l = list->data();
      const int64_t n = static_cast<int64_t>(list->size());
      const char *x = u + xoff;
      for (int64_t i = 0; i < n; ++i, pk += 24) std::memcpy(pk, x + l[i] * 24, 24);
      for (auto o : poff) {
        const uint64_t *a = reinterpret_cast<const uint64_t *>(u + o);
        uint64_t *out = reinterpret_cast<uint64_t *>(pk);
        for (int64_t i = 0; i < n; ++i) out[i] = a[l[i]];
        pk += n * 8;
      }
    };
    c->hand_unpack = [list, xoff, poff](const char *pk, char *u) {
      const int64_t *l = list->data();
      const int64_t n = static_cast<int64_t>(list->size());
      char *x = u + xoff;
      for (int64_t i = 0; i < n; ++i, pk += 24) std::memcpy(x + l[i] * 24, pk, 24);
      for (auto o : poff) {
        uint64_t *a = reinterpret_cast<uint64_t *>(u + o);
        const uint64_t *in = reinterpret_cast<const uint64_t *>(pk);
        for (int64_t i = 0; i < n; ++i) a[l[i]] = in[i];
        pk += n * 8;
      }
    };
    return finish(std::move(c));
  };
  return d;
}

// -------------------------------------------------------------- SPECFEM3D
// SPECFEM3D_GLOBE exchanges of mesh points shared with a neighbour, 10x10x6
// mesh with c = 4 (DDTBench's largest input):
//   oc (outer core, one float per point):  indexed_block(3225, 1, list)
//       over 88881 floats
//   cm (crust/mantle and inner core, 3 floats per point): struct of two
//       indexed_block(n, 3, 3*list) over 834917 and 51153 points (11797 and
//       3009 points sent, 12-byte runs)
//   mt (matrix transpose): vector(7600, 1, 2, contiguous(3, float)): 7600
//       runs of 12 bytes, stride 24 bytes
CaseDef specfem_case(const char *which) {
  CaseDef d;
  d.name = std::string("SPECFEM3D ") + which;
  d.group = "DDTBench";
  const std::string w = which;
  d.make = [w](const CaseParams &p) {
    auto c = std::make_unique<CaseInstance>();
    const DualType fl = DualType::float_();
    if (w == "oc") {
      const int64_t icount = 3225, n = 88881;
      c->sizes = "3225 of 88881 floats";
      auto list = std::make_shared<std::vector<int64_t>>(random_index_list(icount, n, 21));
      c->type = DualType::indexed_block(1, *list, fl);
      c->user_bytes = n * 4;
      c->hand_pack = [list](const char *u, char *pk) {
        const uint32_t *in = reinterpret_cast<const uint32_t *>(u);
        uint32_t *out = reinterpret_cast<uint32_t *>(pk);
        const int64_t *l = list->data();
        for (size_t i = 0; i < list->size(); ++i) out[i] = in[l[i]];
      };
      c->hand_unpack = [list](const char *pk, char *u) {
        const uint32_t *in = reinterpret_cast<const uint32_t *>(pk);
        uint32_t *out = reinterpret_cast<uint32_t *>(u);
        const int64_t *l = list->data();
        for (size_t i = 0; i < list->size(); ++i) out[l[i]] = in[i];
      };
    } else if (w == "cm") {
      const int64_t ncm = 11797, nic = 3009, dcm = 834917, dic = 51153;
      c->sizes = "11797 of 834917 + 3009 of 51153 points, 3 floats each";
      auto lcm = std::make_shared<std::vector<int64_t>>(random_index_list(ncm, dcm, 31));
      auto lic = std::make_shared<std::vector<int64_t>>(random_index_list(nic, dic, 32));
      const size_t off_ic = align64(dcm * 12);
      c->user_bytes = off_ic + dic * 12;
      std::vector<int64_t> d1(ncm), d2(nic);
      for (int64_t i = 0; i < ncm; ++i) d1[i] = 3 * (*lcm)[i];
      for (int64_t i = 0; i < nic; ++i) d2[i] = 3 * (*lic)[i];
      auto t1 = DualType::indexed_block(3, d1, fl);
      auto t2 = DualType::indexed_block(3, d2, fl);
      c->type = DualType::struct_({1, 1}, {0, int64_t(off_ic)}, {t1, t2}, p.rule);
      c->hand_pack = [lcm, lic, off_ic](const char *u, char *pk) {
        for (int64_t i : *lcm) std::memcpy(pk, u + i * 12, 12), pk += 12;
        for (int64_t i : *lic) std::memcpy(pk, u + off_ic + i * 12, 12), pk += 12;
      };
      c->hand_unpack = [lcm, lic, off_ic](const char *pk, char *u) {
        for (int64_t i : *lcm) std::memcpy(u + i * 12, pk, 12), pk += 12;
        for (int64_t i : *lic) std::memcpy(u + off_ic + i * 12, pk, 12), pk += 12;
      };
    } else {  // mt
      const int64_t n = 7600;
      c->sizes = "send array 3 x 2 x 7600 floats";
      auto three = DualType::contiguous(3, fl);
      c->type = DualType::vector(n, 1, 2, three);
      c->user_bytes = n * 24;
      c->hand_pack = [n](const char *u, char *pk) {
        for (int64_t k = 0; k < n; ++k) std::memcpy(pk + k * 12, u + k * 24, 12);
      };
      c->hand_unpack = [n](const char *pk, char *u) {
        for (int64_t k = 0; k < n; ++k) std::memcpy(u + k * 24, pk + k * 12, 12);
      };
    }
    return finish(std::move(c));
  };
  return d;
}

// ------------------------------------------------------------------ FFT2D
// FFT2D transpose: a 512 x 512 complex-double matrix over 2 processes; each
// holds 256 rows.  The all-to-all receive type scatters a peer's block
// transposed: contiguous(256, resized(vector(256, 1, 512, complex), 0, 16)),
// count 2 (one per peer): 16-byte elements at a stride of 8 KiB, 2 MiB.
CaseDef fft2d_case() {
  CaseDef d;
  d.name = "FFT2D";
  d.group = "DDTBench";
  d.make = [](const CaseParams &p) {
    const int64_t n = p.quick ? 64 : 512, procs = 2, rows = n / procs;
    auto c = std::make_unique<CaseInstance>();
    c->sizes = std::to_string(n) + "^2 complex doubles over 2 processes";
    auto cplx = DualType::contiguous(2, DualType::double_());
    auto col = DualType::vector(rows, 1, n, cplx);
    auto col16 = DualType::resized(col, 0, 16);
    c->type = DualType::contiguous(rows, col16);
    c->count = procs;
    c->user_bytes = rows * n * 16;
    c->hand_pack = [n, rows](const char *u, char *pk) {
      for (int64_t col = 0; col < n; ++col)
        for (int64_t r = 0; r < rows; ++r, pk += 16)
          std::memcpy(pk, u + (r * n + col) * 16, 16);
    };
    c->hand_unpack = [n, rows](const char *pk, char *u) {
      for (int64_t col = 0; col < n; ++col)
        for (int64_t r = 0; r < rows; ++r, pk += 16)
          std::memcpy(u + (r * n + col) * 16, pk, 16);
    };
    return finish(std::move(c));
  };
  return d;
}

}  // namespace

void add_ddtbench_cases(std::vector<CaseDef> &out) {
  out.push_back(wrf_case(true, false));
  out.push_back(wrf_case(true, true));
  out.push_back(wrf_case(false, false));
  out.push_back(wrf_case(false, true));
  out.push_back(milc_case());
  out.push_back(nas_lu_case(true));
  out.push_back(nas_lu_case(false));
  out.push_back(nas_mg_case('x'));
  out.push_back(nas_mg_case('y'));
  out.push_back(nas_mg_case('z'));
  out.push_back(lammps_case(true));
  out.push_back(lammps_case(false));
  out.push_back(specfem_case("oc"));
  out.push_back(specfem_case("cm"));
  out.push_back(specfem_case("mt"));
  out.push_back(fft2d_case());
}

}  // namespace loom_bench
