// external32 (MPI-3.1 section 13.5.2): big-endian, IEEE formats, the
// standard's sizes (LONG 4, WCHAR 2, LONG DOUBLE 16 as binary128, pair types
// per member).  Expected byte vectors are written out by hand from those
// rules, never produced by Loom.
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <random>
#include <set>

#include "guarded.hpp"
#include "loom_handle.hpp"
#include "test_env.hpp"

namespace loomtest {
namespace {

using Bytes = std::vector<unsigned char>;

Bytes hex(const char *s) {
  Bytes b;
  for (; s[0] && s[1]; s += 2) {
    if (s[0] == ' ') { --s; continue; }
    b.push_back(static_cast<unsigned char>(std::stoi(std::string(s, 2), nullptr, 16)));
  }
  return b;
}

std::string show(const Bytes &b) {
  static const char *d = "0123456789ABCDEF";
  std::string s;
  for (unsigned char c : b) { s += d[c >> 4]; s += d[c & 15]; }
  return s;
}

Bytes pack32(const void *in, int64_t count, const TypeSpecPtr &spec) {
  Type t = committed(spec);
  EXPECT_TRUE(t);
  if (!t) return {};
  size_t size = 0;
  EXPECT_EQ(loom_external32_size(count, t.get(), &size), LOOM_OK);
  Guarded out(size);
  size_t pos = 0;
  EXPECT_EQ(loom_pack_external32(in, count, t.get(), out.data(), size, &pos), LOOM_OK);
  EXPECT_EQ(pos, size);
  EXPECT_TRUE(out.guard_error().empty()) << out.guard_error();
  return out.contents();
}

// Packs `value`, compares with `want`, unpacks `want` back and compares
// the value bytes listed in `meaningful` (padding is not data).
template <class T>
void check_prim(loom_prim p, const T &value, const char *want_hex,
                std::vector<std::pair<size_t, size_t>> meaningful = {}) {
  SCOPED_TRACE(prim_name(p));
  Bytes want = hex(want_hex);
  EXPECT_EQ(show(pack32(&value, 1, prim(p))), show(want));
  Type t = committed(prim(p));
  ASSERT_TRUE(t);
  T back;
  std::memset(static_cast<void *>(&back), 0xEE, sizeof back);
  size_t pos = 0;
  ASSERT_EQ(loom_unpack_external32(want.data(), want.size(), &pos, &back, 1, t.get()), LOOM_OK);
  EXPECT_EQ(pos, want.size());
  if (meaningful.empty()) meaningful.push_back({0, sizeof(T)});
  for (auto &r : meaningful)
    EXPECT_EQ(0, std::memcmp(reinterpret_cast<const char *>(&back) + r.first,
                             reinterpret_cast<const char *>(&value) + r.first, r.second))
        << "unpacked bytes [" << r.first << "," << r.first + r.second << ") differ";
}

TEST(External32, Sizes) {
  // One row per primitive: the standard's external32 size.
  for (int p = 0; p < LOOM_PRIM_COUNT; ++p) {
    SCOPED_TRACE(prim_name(static_cast<loom_prim>(p)));
    Type t = committed(prim(static_cast<loom_prim>(p)));
    ASSERT_TRUE(t);
    size_t s = 0;
    ASSERT_EQ(loom_external32_size(3, t.get(), &s), LOOM_OK);
    EXPECT_EQ(s, 3 * static_cast<size_t>(prim_info(static_cast<loom_prim>(p)).ext32));
  }
  // The few the standard singles out, spelled out independently of the table.
  struct { loom_prim p; size_t n; } spot[] = {
      {LOOM_LONG, 4}, {LOOM_UNSIGNED_LONG, 4}, {LOOM_WCHAR, 2}, {LOOM_LONG_DOUBLE, 16},
      {LOOM_C_BOOL, 1}, {LOOM_AINT, 8}, {LOOM_OFFSET, 8}, {LOOM_COUNT, 8},
      {LOOM_LONG_INT, 8}, {LOOM_DOUBLE_INT, 12}, {LOOM_SHORT_INT, 6},
      {LOOM_LONG_DOUBLE_INT, 20}, {LOOM_C_LONG_DOUBLE_COMPLEX, 32}};
  for (auto &x : spot) {
    Type t = committed(prim(x.p));
    size_t s = 0;
    ASSERT_EQ(loom_external32_size(1, t.get(), &s), LOOM_OK);
    EXPECT_EQ(s, x.n) << prim_name(x.p);
  }
  // Derived: vector(3,2,5,long) holds 6 longs -> 24 bytes; gaps don't count.
  Type v = committed(vector(3, 2, 5, prim(LOOM_LONG)));
  size_t s = 0;
  ASSERT_EQ(loom_external32_size(2, v.get(), &s), LOOM_OK);
  EXPECT_EQ(s, 48u);
}

TEST(External32, IntegerVectors) {
  check_prim(LOOM_INT, int32_t(0x01020304), "01020304");
  check_prim(LOOM_SHORT, int16_t(-2), "FFFE");
  check_prim(LOOM_UNSIGNED_SHORT, uint16_t(0xABCD), "ABCD");
  check_prim(LOOM_LONG, long(-2), "FFFFFFFE");
  check_prim(LOOM_LONG, long(0x12345678), "12345678");
  check_prim(LOOM_UNSIGNED_LONG, static_cast<unsigned long>(0x89ABCDEFul), "89ABCDEF");
  check_prim(LOOM_LONG_LONG, int64_t(0x0102030405060708), "0102030405060708");
  check_prim(LOOM_UINT64_T, uint64_t(0xF1E2D3C4B5A69788ull), "F1E2D3C4B5A69788");
  check_prim(LOOM_AINT, int64_t(-256), "FFFFFFFFFFFFFF00");
  check_prim(LOOM_WCHAR, wchar_t(0x20AC), "20AC");
  check_prim(LOOM_C_BOOL, true, "01");
  check_prim(LOOM_CXX_BOOL, false, "00");
  check_prim(LOOM_CHAR, 'A', "41");
  check_prim(LOOM_F_INTEGER, int32_t(5), "00000005");
  check_prim(LOOM_F_LOGICAL, int32_t(1), "00000001");
  check_prim(LOOM_F_INTEGER2, int16_t(0x0102), "0102");
}

TEST(External32, FloatVectors) {
  check_prim(LOOM_FLOAT, 1.0f, "3F800000");
  check_prim(LOOM_FLOAT, -2.5f, "C0200000");
  check_prim(LOOM_DOUBLE, 1.0, "3FF0000000000000");
  check_prim(LOOM_DOUBLE, -2.5, "C004000000000000");
  check_prim(LOOM_F_REAL8, 0.1, "3FB999999999999A");
  // long double: x87 80-bit in 16 bytes natively, IEEE binary128 outside;
  // only the first 10 native bytes are data.
  std::vector<std::pair<size_t, size_t>> ten = {{0, 10}};
  check_prim(LOOM_LONG_DOUBLE, 1.0L, "3FFF0000000000000000000000000000", ten);
  check_prim(LOOM_LONG_DOUBLE, -2.5L, "C0004000000000000000000000000000", ten);
  // 0.1L is 0x3FFB CCCCCCCCCCCCCCCD in x87 form; widening is exact.
  check_prim(LOOM_LONG_DOUBLE, 0.1L, "3FFB999999999999999A000000000000", ten);
  check_prim(LOOM_F_REAL16, static_cast<__float128>(-2.5), "C0004000000000000000000000000000");
  check_prim(LOOM_C_FLOAT_COMPLEX, std::complex<float>(1.0f, -2.5f), "3F800000C0200000");
  check_prim(LOOM_C_DOUBLE_COMPLEX, std::complex<double>(1.0, -2.5),
             "3FF0000000000000C004000000000000");
  check_prim(LOOM_C_LONG_DOUBLE_COMPLEX, std::complex<long double>(1.0L, -2.5L),
             "3FFF0000000000000000000000000000C0004000000000000000000000000000",
             {{0, 10}, {16, 10}});
}

TEST(External32, PairTypes) {
  struct FI { float f; int i; } fi{1.0f, 7};
  check_prim(LOOM_FLOAT_INT, fi, "3F80000000000007");
  struct DI { double d; int i; } di{-2.5, -1};
  check_prim(LOOM_DOUBLE_INT, di, "C004000000000000FFFFFFFF", {{0, 12}});
  struct LI { long l; int i; } li{-2, 5};
  check_prim(LOOM_LONG_INT, li, "FFFFFFFE00000005", {{0, 12}});
  struct SI { short s; int i; } si{2, 3};
  check_prim(LOOM_SHORT_INT, si, "000200000003", {{0, 2}, {4, 4}});
  struct II { int a, b; } ii{1, 2};
  check_prim(LOOM_2INT, ii, "0000000100000002");
  struct LDI { long double d; int i; } ldi{1.0L, 9};
  check_prim(LOOM_LONG_DOUBLE_INT, ldi, "3FFF000000000000000000000000000000000009",
             {{0, 10}, {16, 4}});
}

TEST(External32, DerivedTypeSkipsGapsAndKeepsOrder) {
  // C struct {char c; long l; double d; short s;}: offsets 0, 8, 16, 24.
  struct S { char c; long l; double d; short s; };
  S v[2] = {{'x', -3, 1.0, 0x0102}, {'y', 70000, -2.5, -1}};
  TypeSpecPtr spec = structure({1, 1, 1, 1}, {0, 8, 16, 24},
                               {prim(LOOM_CHAR), prim(LOOM_LONG), prim(LOOM_DOUBLE), prim(LOOM_SHORT)});
  Bytes want = hex("78FFFFFFFD3FF00000000000000102"
                   "7900011170C004000000000000FFFF");
  EXPECT_EQ(show(pack32(v, 2, spec)), show(want));
  // Unpacking writes the members and leaves the padding alone.
  Type t = committed(spec);
  ASSERT_TRUE(t);
  Guarded dst(sizeof v);
  std::memset(dst.data(), 0xAB, sizeof v);
  size_t pos = 0;
  ASSERT_EQ(loom_unpack_external32(want.data(), want.size(), &pos, dst.data(), 2, t.get()),
            LOOM_OK);
  EXPECT_EQ(pos, want.size());
  EXPECT_TRUE(dst.guard_error().empty()) << dst.guard_error();
  S back[2];
  std::memcpy(back, dst.data(), sizeof back);
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(back[k].c, v[k].c);
    EXPECT_EQ(back[k].l, v[k].l);
    EXPECT_EQ(back[k].d, v[k].d);
    EXPECT_EQ(back[k].s, v[k].s);
  }
  for (size_t gap : {1u, 7u, 26u, 31u, 33u, 63u})
    EXPECT_EQ(dst.data()[gap], 0xAB) << "padding byte " << gap << " written";
}

TEST(External32, TruncateWritesNothing) {
  Type t = committed(vector(2, 1, 2, prim(LOOM_LONG)));
  ASSERT_TRUE(t);
  long in[3] = {1, 2, 3};
  Guarded out(7);  // needs 8
  out.fill(1);
  Bytes before = out.contents();
  size_t pos = 0;
  EXPECT_EQ(loom_pack_external32(in, 1, t.get(), out.data(), 7, &pos), LOOM_ERR_TRUNCATE);
  EXPECT_EQ(pos, 0u);
  EXPECT_EQ(out.contents(), before);
  Guarded dst(24);
  dst.fill(2);
  Bytes dbefore = dst.contents();
  EXPECT_EQ(loom_unpack_external32(out.data(), 7, &pos, dst.data(), 1, t.get()),
            LOOM_ERR_TRUNCATE);
  EXPECT_EQ(dst.contents(), dbefore);
}

// external32 size of one instance, by the constructor definitions.
int64_t ext32_of(const TypeSpec &t) {
  switch (t.kind) {
    case Kind::Prim: return prim_info(t.prim).ext32;
    case Kind::Dup:
    case Kind::Resized: return ext32_of(*t.child);
    case Kind::Struct: {
      int64_t n = 0;
      for (size_t i = 0; i < t.types.size(); ++i) n += t.blocklens[i] * ext32_of(*t.types[i]);
      return n;
    }
    default: {
      // Every other constructor replicates its one old type; the count of
      // copies is the reference typemap's element count over the child's.
      Layout me = reference_layout(t), c = reference_layout(*t.child);
      return c.nelems ? me.nelems / c.nelems * ext32_of(*t.child) : 0;
    }
  }
}

// Primitives whose external32 form is the native bytes reversed per member
// (so any random bit pattern round-trips exactly).
bool swap_only(const TypeSpec &t) {
  static const std::set<loom_prim> ok = {
      LOOM_CHAR, LOOM_SIGNED_CHAR, LOOM_UNSIGNED_CHAR, LOOM_BYTE, LOOM_PACKED, LOOM_SHORT,
      LOOM_UNSIGNED_SHORT, LOOM_INT, LOOM_UNSIGNED, LOOM_LONG_LONG, LOOM_UNSIGNED_LONG_LONG,
      LOOM_FLOAT, LOOM_DOUBLE, LOOM_INT8_T, LOOM_INT16_T, LOOM_INT32_T, LOOM_INT64_T,
      LOOM_UINT8_T, LOOM_UINT16_T, LOOM_UINT32_T, LOOM_UINT64_T, LOOM_AINT, LOOM_OFFSET,
      LOOM_COUNT, LOOM_F_CHARACTER, LOOM_F_INTEGER, LOOM_F_REAL, LOOM_F_DOUBLE_PRECISION,
      LOOM_F_INTEGER1, LOOM_F_INTEGER2, LOOM_F_INTEGER4, LOOM_F_INTEGER8, LOOM_F_REAL4,
      LOOM_F_REAL8, LOOM_F_REAL16, LOOM_FLOAT_INT, LOOM_DOUBLE_INT, LOOM_2INT,
      LOOM_SHORT_INT, LOOM_2REAL, LOOM_2DOUBLE_PRECISION, LOOM_2INTEGER};
  if (t.kind == Kind::Prim) return ok.count(t.prim) > 0;
  if (t.child && !swap_only(*t.child)) return false;
  for (auto &c : t.types)
    if (!swap_only(*c)) return false;
  return true;
}

TEST(External32, RandomTrees) {
  const uint64_t base = base_seed(0x300000);
  const int n = static_cast<int>(3000 * test_scale());
  std::printf("seeds %llu..%llu\n", static_cast<unsigned long long>(base),
              static_cast<unsigned long long>(base + n - 1));
  int failures = 0, streams = 0;
  for (int i = 0; i < n && failures < 5; ++i) {
    uint64_t seed = base + static_cast<uint64_t>(i);
    std::mt19937_64 rng(seed);
    TypeSpecPtr s = random_spec(rng, 3);
    int64_t count = std::uniform_int_distribution<int64_t>(0, 3)(rng);
    std::string where = "seed " + std::to_string(seed) + " count " + std::to_string(count) +
                        " type " + describe(s);
    Type t = committed(s);
    if (!t) { ADD_FAILURE() << where << ": build failed"; ++failures; continue; }
    size_t size = 0;
    int64_t want = count * ext32_of(*s);
    if (loom_external32_size(count, t.get(), &size) != LOOM_OK ||
        size != static_cast<size_t>(want)) {
      ADD_FAILURE() << where << ": external32_size " << size << " want " << want;
      ++failures;
      continue;
    }
    if (!swap_only(*s)) continue;
    ++streams;
    Layout l = reference_layout(*s);
    int64_t lo, hi;
    reference_span(l, count, &lo, &hi);
    Guarded src(static_cast<size_t>(hi - lo));
    src.fill(seed);
    const unsigned char *origin = src.data() - lo;
    Bytes expect;
    for (const Piece &p : reference_pieces(l, count, false))
      for (int64_t b = p.len; b-- > 0;) expect.push_back(origin[p.disp + b]);
    Guarded out(size);
    size_t pos = 0;
    loom_status st = loom_pack_external32(origin, count, t.get(), out.data(), size, &pos);
    if (st != LOOM_OK || pos != size || out.contents() != expect || !out.guard_error().empty()) {
      ADD_FAILURE() << where << ": pack_external32 status " << loom_status_string(st)
                    << " position " << pos << " " << out.guard_error();
      ++failures;
      continue;
    }
    // Round trip into a sentinel buffer: typemap bytes restored, rest kept.
    if (reference_overlaps(l, count)) continue;
    Guarded dst(static_cast<size_t>(hi - lo));
    dst.fill(~seed);
    Guarded ref(static_cast<size_t>(hi - lo));
    ref.fill(~seed);
    reference_unpack(l, count, reference_pack(l, count, origin).data(), ref.data() - lo);
    pos = 0;
    st = loom_unpack_external32(out.data(), size, &pos, dst.data() - lo, count, t.get());
    if (st != LOOM_OK || pos != size || dst.contents() != ref.contents() ||
        !dst.guard_error().empty()) {
      ADD_FAILURE() << where << ": unpack_external32 round trip differs (status "
                    << loom_status_string(st) << ") " << dst.guard_error();
      ++failures;
    }
  }
  std::printf("%d trees, %d with byte-exact stream checks\n", n, streams);
  EXPECT_GT(streams, n / 4) << "generator rarely produced swap-only trees";
}

}  // namespace
}  // namespace loomtest
