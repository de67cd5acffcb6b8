// The synthetic suite of Ross, Miller & Gropp, "Implementing Fast and
// Reusable Datatype Processing" (EuroPVM/MPI 2003), Section 3, with the
// paper's sizes.  Every layout is described once through DualType (same
// constructor calls for Loom and the system MPI) and once as the loops a
// careful HPC programmer writes by hand: nested loops over typed elements,
// memcpy for fixed-size runs, one memcpy where the data is contiguous.
//
// Sizes (full run; --quick shrinks them for smoke tests):
//   Contig          1048576 elements, count 1                 (4 / 8 MiB)
//   Struct Array    65536 structs {int[2]; char[64]; double[2]; float}
//                   packed with no gaps (resized to 92 bytes)   (5.75 MiB)
//   Vector          vector(1048576, 1, 2), count 1           (4 / 8 MiB)
//   Struct Vector   struct{T} resized to 2*sizeof(T), count 1048576
//   Indexed         1048576 one-element blocks; displacements repeat the
//                   pattern {0, 1, 3, 6} every 8 elements, so the data is
//                   half the extent (as in the paper's table) and every
//                   period has one adjacent pair, one gap of 1, one of 2:
//                   0,1,3,6, 8,9,11,14, 16,17,19,22, ...        (4 / 8 MiB)
//   3D Face         faces of a 256^3 cube at index 0:
//                   XY (z = 0): vector(256, 256, 256)     -- contiguous
//                   XZ (y = 0): vector(256, 256, 256*256)  -- 256-element runs
//                   YZ (x = 0): hvector(256, 1, 256*256*sizeof(T),
//                                       vector(256, 1, 256)) -- single elements
//   Flash I/O       80 blocks of 8x8x8 interior cells with 4 guard cells on
//                   each side (16^3 per block), 24 doubles interleaved per
//                   cell; described by variable as nested vectors:
//                   x: vector(8, 1, 24, double)   (the paper's leaf: 8 doubles,
//                                                  stride 192 bytes)
//                   y: hvector(8, 1, 16*192, x)
//                   z: hvector(8, 1, 16*16*192, y)
//                   blocks: hvector(80, 1, 16^3*192, z)
//                   variables: hvector(24, 1, 8, blocks)  (7.5 MiB of 60 MiB)
#include <cstring>

#include "cases.h"

namespace loom_bench {

namespace {

template <typename T>
DualType elem();
template <>
DualType elem<float>() {
  return DualType::float_();
}
template <>
DualType elem<double>() {
  return DualType::double_();
}

// Hand loops move elements as same-sized integers: identical bytes, no
// floating-point semantics.
template <typename T>
struct Bits;
template <>
struct Bits<float> {
  using type = uint32_t;
};
template <>
struct Bits<double> {
  using type = uint64_t;
};

template <typename T>
const char *tname() {
  return sizeof(T) == 4 ? "FLOAT" : "DOUBLE";
}

// ---------------------------------------------------------------- Contig
template <typename T>
CaseDef contig_case() {
  CaseDef d;
  d.name = std::string("Contig (") + tname<T>() + ")";
  d.group = "Ross";
  d.contiguous = true;
  d.make = [](const CaseParams &p) {
    const int64_t n = p.quick ? 65536 : 1048576;
    auto c = std::make_unique<CaseInstance>();
    c->sizes = "contiguous(" + std::to_string(n) + "), count 1";
    c->user_bytes = n * sizeof(T);
    c->type = DualType::contiguous(n, elem<T>());
    const size_t bytes = n * sizeof(T);
    c->hand_pack = [bytes](const char *u, char *pk) { std::memcpy(pk, u, bytes); };
    c->hand_unpack = [bytes](const char *pk, char *u) { std::memcpy(u, pk, bytes); };
    return finish(std::move(c));
  };
  return d;
}

// ---------------------------------------------------------- Struct Array
CaseDef struct_array_case() {
  CaseDef d;
  d.name = "Struct Array";
  d.group = "Ross";
  d.contiguous = true;
  d.make = [](const CaseParams &p) {
    const int64_t n = p.quick ? 4096 : 65536;
    constexpr int64_t kStruct = 92;  // 2*4 + 64 + 2*8 + 4, no padding
    auto c = std::make_unique<CaseInstance>();
    c->sizes = std::to_string(n) + " x {int[2]; char[64]; double[2]; float}, 92 B";
    auto s = DualType::struct_(
        {2, 64, 2, 1}, {0, 8, 72, 88},
        {DualType::int_(), DualType::char_(), DualType::double_(),
         DualType::float_()},
        p.rule);
    c->type = DualType::resized(s, 0, kStruct);
    c->count = n;
    c->user_bytes = n * kStruct;
    const size_t bytes = n * kStruct;
    // The structs are packed without gaps: one copy moves the array.
    c->hand_pack = [bytes](const char *u, char *pk) { std::memcpy(pk, u, bytes); };
    c->hand_unpack = [bytes](const char *pk, char *u) { std::memcpy(u, pk, bytes); };
    return finish(std::move(c));
  };
  return d;
}

// ---------------------------------------------- Vector and Struct Vector
template <typename T>
void strided_loops(CaseInstance &c, int64_t n) {
  using B = typename Bits<T>::type;
  c.hand_pack = [n](const char *u, char *pk) {
    const B *in = reinterpret_cast<const B *>(u);
    B *out = reinterpret_cast<B *>(pk);
    for (int64_t i = 0; i < n; ++i) out[i] = in[2 * i];
  };
  c.hand_unpack = [n](const char *pk, char *u) {
    const B *in = reinterpret_cast<const B *>(pk);
    B *out = reinterpret_cast<B *>(u);
    for (int64_t i = 0; i < n; ++i) out[2 * i] = in[i];
  };
}

template <typename T>
CaseDef vector_case() {
  CaseDef d;
  d.name = std::string("Vector (") + tname<T>() + ")";
  d.group = "Ross";
  d.make = [](const CaseParams &p) {
    const int64_t n = p.quick ? 65536 : 1048576;
    auto c = std::make_unique<CaseInstance>();
    c->sizes = "vector(" + std::to_string(n) + ", 1, 2), count 1";
    c->type = DualType::vector(n, 1, 2, elem<T>());
    c->user_bytes = (2 * n - 1) * sizeof(T);
    strided_loops<T>(*c, n);
    return finish(std::move(c));
  };
  return d;
}

template <typename T>
CaseDef struct_vector_case() {
  CaseDef d;
  d.name = std::string("Struct Vector (") + tname<T>() + ")";
  d.group = "Ross";
  d.make = [](const CaseParams &p) {
    const int64_t n = p.quick ? 65536 : 1048576;
    auto c = std::make_unique<CaseInstance>();
    c->sizes = "resized(struct{1 x T}, 0, 2*sizeof(T)), count " + std::to_string(n);
    auto s = DualType::struct_({1}, {0}, {elem<T>()}, p.rule);
    c->type = DualType::resized(s, 0, 2 * sizeof(T));
    c->count = n;
    c->user_bytes = (2 * n - 1) * sizeof(T);
    strided_loops<T>(*c, n);
    return finish(std::move(c));
  };
  return d;
}

// --------------------------------------------------------------- Indexed
template <typename T>
CaseDef indexed_case() {
  CaseDef d;
  d.name = std::string("Indexed (") + tname<T>() + ")";
  d.group = "Ross";
  d.make = [](const CaseParams &p) {
    using B = typename Bits<T>::type;
    const int64_t n = p.quick ? 65536 : 1048576;  // blocks, a multiple of 4
    static const int64_t kPattern[4] = {0, 1, 3, 6};
    auto c = std::make_unique<CaseInstance>();
    c->sizes = std::to_string(n) + " blocks of 1, pattern {0,1,3,6} every 8";
    std::vector<int64_t> bl(n, 1), dp(n);
    for (int64_t i = 0; i < n; ++i) dp[i] = (i / 4) * 8 + kPattern[i % 4];
    c->type = DualType::indexed(bl, dp, elem<T>());
    c->user_bytes = (dp.back() + 1) * sizeof(T);
    const int64_t periods = n / 4;
    c->hand_pack = [periods](const char *u, char *pk) {
      const B *in = reinterpret_cast<const B *>(u);
      B *out = reinterpret_cast<B *>(pk);
      for (int64_t q = 0; q < periods; ++q, in += 8, out += 4) {
        out[0] = in[0];
        out[1] = in[1];
        out[2] = in[3];
        out[3] = in[6];
      }
    };
    c->hand_unpack = [periods](const char *pk, char *u) {
      const B *in = reinterpret_cast<const B *>(pk);
      B *out = reinterpret_cast<B *>(u);
      for (int64_t q = 0; q < periods; ++q, in += 4, out += 8) {
        out[0] = in[0];
        out[1] = in[1];
        out[3] = in[2];
        out[6] = in[3];
      }
    };
    return finish(std::move(c));
  };
  return d;
}

// --------------------------------------------------------------- 3D Face
enum class Face { XY, XZ, YZ };

template <typename T>
CaseDef face_case(Face f) {
  CaseDef d;
  const char *fn = f == Face::XY ? "XY" : f == Face::XZ ? "XZ" : "YZ";
  d.name = std::string("3D Face ") + fn + " (" + tname<T>() + ")";
  d.group = "Ross";
  d.contiguous = f == Face::XY;
  d.make = [f](const CaseParams &p) {
    using B = typename Bits<T>::type;
    const int64_t n = p.quick ? 32 : 256;
    const int64_t sz = sizeof(T);
    auto c = std::make_unique<CaseInstance>();
    const std::string ns = std::to_string(n);
    switch (f) {
      case Face::XY: {
        c->sizes = ns + "^3 cube, z = 0: vector(" + ns + ", " + ns + ", " + ns + ")";
        c->type = DualType::vector(n, n, n, elem<T>());
        c->user_bytes = n * n * sz;
        const size_t bytes = n * n * sz;
        c->hand_pack = [bytes](const char *u, char *pk) { std::memcpy(pk, u, bytes); };
        c->hand_unpack = [bytes](const char *pk, char *u) { std::memcpy(u, pk, bytes); };
        break;
      }
      case Face::XZ: {
        c->sizes = ns + "^3 cube, y = 0: vector(" + ns + ", " + ns + ", " + ns + "^2)";
        c->type = DualType::vector(n, n, n * n, elem<T>());
        c->user_bytes = ((n - 1) * n * n + n) * sz;
        c->hand_pack = [n](const char *u, char *pk) {
          const size_t row = n * sizeof(T);
          for (int64_t z = 0; z < n; ++z)
            std::memcpy(pk + z * row, u + z * n * row, row);
        };
        c->hand_unpack = [n](const char *pk, char *u) {
          const size_t row = n * sizeof(T);
          for (int64_t z = 0; z < n; ++z)
            std::memcpy(u + z * n * row, pk + z * row, row);
        };
        break;
      }
      case Face::YZ: {
        c->sizes = ns + "^3 cube, x = 0: hvector(" + ns + ", 1, " + ns +
                   "^2*size, vector(" + ns + ", 1, " + ns + "))";
        auto col = DualType::vector(n, 1, n, elem<T>());
        c->type = DualType::hvector(n, 1, n * n * sz, col);
        c->user_bytes = ((n - 1) * n * n + (n - 1) * n + 1) * sz;
        c->hand_pack = [n](const char *u, char *pk) {
          const B *in = reinterpret_cast<const B *>(u);
          B *out = reinterpret_cast<B *>(pk);
          for (int64_t z = 0; z < n; ++z)
            for (int64_t y = 0; y < n; ++y) *out++ = in[z * n * n + y * n];
        };
        c->hand_unpack = [n](const char *pk, char *u) {
          const B *in = reinterpret_cast<const B *>(pk);
          B *out = reinterpret_cast<B *>(u);
          for (int64_t z = 0; z < n; ++z)
            for (int64_t y = 0; y < n; ++y) out[z * n * n + y * n] = *in++;
        };
        break;
      }
    }
    return finish(std::move(c));
  };
  return d;
}

// -------------------------------------------------------------- Flash I/O
CaseDef flash_case() {
  CaseDef d;
  d.name = "Flash I/O (DOUBLE)";
  d.group = "Ross";
  d.make = [](const CaseParams &p) {
    const int64_t nblocks = p.quick ? 4 : 80;
    constexpr int64_t nb = 8, ng = 4, nx = nb + 2 * ng, nvar = 24;
    constexpr int64_t cell = nvar * 8;  // 192 bytes per cell
    auto c = std::make_unique<CaseInstance>();
    c->sizes = std::to_string(nblocks) +
               " blocks x 8^3 interior (16^3 with guards) x 24 doubles, by variable";
    auto xrow = DualType::vector(nb, 1, nvar, DualType::double_());
    auto plane = DualType::hvector(nb, 1, nx * cell, xrow);
    auto cube = DualType::hvector(nb, 1, nx * nx * cell, plane);
    auto blocks = DualType::hvector(nblocks, 1, nx * nx * nx * cell, cube);
    c->type = DualType::hvector(nvar, 1, 8, blocks);
    c->origin = ((ng * nx + ng) * nx + ng) * cell;
    c->user_bytes = nblocks * nx * nx * nx * cell;
    c->hand_pack = [nblocks](const char *u, char *pk) {
      const uint64_t *in = reinterpret_cast<const uint64_t *>(u);
      uint64_t *out = reinterpret_cast<uint64_t *>(pk);
      for (int64_t v = 0; v < nvar; ++v)
        for (int64_t b = 0; b < nblocks; ++b)
          for (int64_t z = 0; z < nb; ++z)
            for (int64_t y = 0; y < nb; ++y) {
              const uint64_t *row =
                  in + ((b * nx + z) * nx + y) * nx * nvar + v;
              for (int64_t x = 0; x < nb; ++x) *out++ = row[x * nvar];
            }
    };
    c->hand_unpack = [nblocks](const char *pk, char *u) {
      const uint64_t *in = reinterpret_cast<const uint64_t *>(pk);
      uint64_t *out = reinterpret_cast<uint64_t *>(u);
      for (int64_t v = 0; v < nvar; ++v)
        for (int64_t b = 0; b < nblocks; ++b)
          for (int64_t z = 0; z < nb; ++z)
            for (int64_t y = 0; y < nb; ++y) {
              uint64_t *row = out + ((b * nx + z) * nx + y) * nx * nvar + v;
              for (int64_t x = 0; x < nb; ++x) row[x * nvar] = *in++;
            }
    };
    return finish(std::move(c));
  };
  return d;
}

}  // namespace

void add_ross_cases(std::vector<CaseDef> &out) {
  out.push_back(contig_case<float>());
  out.push_back(contig_case<double>());
  out.push_back(struct_array_case());
  out.push_back(vector_case<float>());
  out.push_back(vector_case<double>());
  out.push_back(struct_vector_case<float>());
  out.push_back(struct_vector_case<double>());
  out.push_back(indexed_case<float>());
  out.push_back(indexed_case<double>());
  out.push_back(face_case<float>(Face::XY));
  out.push_back(face_case<float>(Face::XZ));
  out.push_back(face_case<float>(Face::YZ));
  out.push_back(face_case<double>(Face::XY));
  out.push_back(face_case<double>(Face::XZ));
  out.push_back(face_case<double>(Face::YZ));
  out.push_back(flash_case());
}

std::unique_ptr<CaseInstance> finish(std::unique_ptr<CaseInstance> c) {
  c->type.commit();
  c->packed_bytes =
      static_cast<size_t>(loom_type_size(c->type.loom()) * c->count);
  return c;
}

std::vector<CaseDef> all_cases() {
  std::vector<CaseDef> v;
  add_ross_cases(v);
  add_ddtbench_cases(v);
  add_particle_cases(v);
  return v;
}

}  // namespace loom_bench
