// (c) Type life cycles the drop-in must get right, in a plain MPI program
// that loads libloom-mpi.so only later, with dlopen (so every type made
// before that was committed without Loom seeing it):
//  * types committed before the library loaded, built lazily on first use;
//  * an uncommitted type still gives MPI_ERR_TYPE on that lazy path;
//  * children freed (through the drop-in) while a parent still uses them;
//  * MPI_BOTTOM with absolute addresses;
//  * external32 against the standard's bytes (big-endian, table 13.2 sizes).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "mpi_test.hpp"

using namespace loomtest;

namespace {

struct Dropin {
  decltype(&MPI_Pack) pack;
  decltype(&MPI_Unpack) unpack;
  decltype(&MPI_Pack_size) pack_size;
  decltype(&MPI_Type_commit) commit;
  decltype(&MPI_Type_free) free;
  decltype(&MPI_Type_dup) dup;
  decltype(&MPI_Pack_external) pack_ext;
  decltype(&MPI_Unpack_external) unpack_ext;
  decltype(&MPI_Pack_external_size) ext_size;
};

template <class F>
void sym(void *h, const char *name, F *f) {
  *f = reinterpret_cast<F>(dlsym(h, name));
  if (!*f) failf("dlsym(%s): %s", name, dlerror());
}

MPI_Comm g_comm;
Dropin D;

std::vector<unsigned char> loom_pack(const void *buf, int count, MPI_Datatype t, int *rc = nullptr) {
  int size = 0, pos = 0;
  // The drop-in's: PMPI_Pack_size crashes Open MPI 4.1.4 on uncommitted types.
  D.pack_size(count, t, g_comm, &size);
  std::vector<unsigned char> out((size_t)size + 1);
  int r = D.pack(buf, count, t, out.data(), size, &pos, g_comm);
  if (rc) *rc = r;
  out.resize((size_t)pos);
  return out;
}

std::vector<unsigned char> sys_pack(const void *buf, int count, MPI_Datatype t) {
  int size = 0, pos = 0;
  PMPI_Pack_size(count, t, g_comm, &size);
  std::vector<unsigned char> out((size_t)size + 1);
  PMPI_Pack(buf, count, t, out.data(), size, &pos, g_comm);
  out.resize((size_t)pos);
  return out;
}

void check_same(const char *what, const void *buf, int count, MPI_Datatype t) {
  int rc;
  auto a = loom_pack(buf, count, t, &rc);
  auto b = sys_pack(buf, count, t);
  EXPECT_MSG(rc == MPI_SUCCESS && a == b && !b.empty(), "%s: rc %d, %zu vs %zu bytes", what, rc,
             a.size(), b.size());
  // And back: unpack into a fresh buffer equals the system's unpack.
  std::vector<unsigned char> d1(4096, 0x5A), d2(4096, 0x5A);
  int p1 = 0, p2 = 0;
  D.unpack(a.data(), (int)a.size(), &p1, d1.data() + 1024, count, t, g_comm);
  PMPI_Unpack(b.data(), (int)b.size(), &p2, d2.data() + 1024, count, t, g_comm);
  EXPECT_MSG(d1 == d2 && p1 == p2, "%s: unpack", what);
}

struct CS {
  char c;
  double d;
  int i;
};

void before_load_then_lazy(MPI_Datatype pre_vec, MPI_Datatype pre_struct, MPI_Datatype pre_dup,
                           MPI_Datatype pre_parent, MPI_Datatype pre_uncommitted) {
  std::vector<int> ints(256);
  for (int i = 0; i < 256; ++i) ints[i] = i * 7 - 300;
  check_same("vector committed before load", ints.data(), 3, pre_vec);
  check_same("dup committed before load", ints.data(), 2, pre_dup);
  check_same("parent of a freed child, committed before load", ints.data(), 2, pre_parent);
  CS cs[3];
  std::memset(cs, 0x11, sizeof cs);
  for (int i = 0; i < 3; ++i) cs[i] = CS{(char)('a' + i), 1.5 * i, -i};
  check_same("struct committed before load", cs, 3, pre_struct);
  // Named types need no commit at all.
  check_same("named type", ints.data(), 17, MPI_INT);
  check_same("pair type", ints.data(), 5, MPI_DOUBLE_INT);
  int rc;
  loom_pack(ints.data(), 1, pre_uncommitted, &rc);
  EXPECT_MSG(err_class(rc) == MPI_ERR_TYPE, "uncommitted type on the lazy path: class %d",
             err_class(rc));
}

void freed_children() {
  std::vector<double> v(512);
  for (int i = 0; i < 512; ++i) v[i] = i + 0.25;
  // 1. Child never committed, freed before the parent is committed.
  MPI_Datatype c1, p1;
  MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &c1);
  MPI_Type_create_hvector(3, 2, 64, c1, &p1);
  D.free(&c1);
  D.commit(&p1);
  check_same("child freed before the parent's commit", v.data(), 2, p1);
  // 2. Child committed (mirrored), parent built on it, child freed, then the
  //    parent committed: the child's mirror is gone, the handle stays alive
  //    inside MPI.
  MPI_Datatype c2, p2;
  MPI_Type_contiguous(3, MPI_DOUBLE, &c2);
  D.commit(&c2);
  MPI_Type_create_resized(c2, -8, 40, &p2);
  MPI_Datatype s2;
  MPI_Type_vector(4, 1, 2, p2, &s2);
  D.free(&c2);
  MPI_Type_free(&p2);
  D.commit(&s2);
  check_same("committed child freed, grandparent committed later", v.data() + 8, 2, s2);
  // 3. Parent committed while the committed child is alive (the mirror
  //    reuses the child's loom type), then the child freed: the parent's
  //    loom type keeps it.
  MPI_Datatype c3, p3;
  MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &c3);
  D.commit(&c3);
  MPI_Type_contiguous(4, c3, &p3);
  D.commit(&p3);
  D.free(&c3);
  // Churn the handle space so a reused handle value would show a stale plan.
  for (int i = 0; i < 20; ++i) {
    MPI_Datatype x;
    MPI_Type_contiguous(i + 1, MPI_CHAR, &x);
    D.commit(&x);
    D.free(&x);
  }
  check_same("child freed after the parent's commit", v.data(), 3, p3);
  int rc;
  loom_pack(v.data(), 1, c3, &rc);  // c3 is MPI_DATATYPE_NULL now
  EXPECT_MSG(err_class(rc) == MPI_ERR_TYPE, "freed handle variable: class %d", err_class(rc));
  D.free(&s2);
  D.free(&p1);
  D.free(&p3);

  // 4. A handle freed behind Loom's back (PMPI_Type_free, as a library's
  //    internal code or a Fortran binding may do) and reused by the next
  //    type: its commit must not keep the old plan.
  for (int round = 0; round < 8; ++round) {
    MPI_Datatype a, b;
    MPI_Type_vector(3, 1, 2 + round, MPI_DOUBLE, &a);
    D.commit(&a);
    check_same("before a hidden free", v.data(), 1, a);
    MPI_Datatype a_copy = a;
    PMPI_Type_free(&a);
    // Even rounds commit the new type; odd rounds dup a committed one (a
    // dup is committed without MPI_Type_commit).
    MPI_Datatype base = MPI_DATATYPE_NULL;
    if (round % 2 == 0) {
      MPI_Type_vector(4, 2, 5 + round, MPI_DOUBLE, &b);
      D.commit(&b);
    } else {
      MPI_Type_vector(4, 2, 5 + round, MPI_DOUBLE, &base);
      D.commit(&base);
      D.dup(base, &b);
    }
    check_same(b == a_copy ? "handle reused after a hidden free" : "after a hidden free", v.data(), 2, b);
    D.free(&b);
    if (base != MPI_DATATYPE_NULL) D.free(&base);
  }

  // 5. A dup takes its original's loom type itself: it outlives the
  //    original's free, and so does a dup of a dup; a dup of a named type
  //    and of a resized one move what the system moves.
  MPI_Datatype o, d1, d2, dn, r, dr;
  MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &o);
  D.commit(&o);
  D.dup(o, &d1);
  D.free(&o);
  check_same("dup after its original's free", v.data(), 2, d1);
  D.dup(d1, &d2);
  D.free(&d1);
  check_same("dup of a freed dup", v.data(), 2, d2);
  D.free(&d2);
  D.dup(MPI_DOUBLE, &dn);
  D.commit(&dn);
  check_same("dup of a named type", v.data(), 5, dn);
  D.free(&dn);
  MPI_Type_create_resized(MPI_INT, -4, 12, &r);  // not committed: nor is its dup
  D.dup(r, &dr);
  D.free(&r);
  D.commit(&dr);
  check_same("dup of an uncommitted resized type", v.data() + 4, 3, dr);
  D.free(&dr);
}

void bottom() {
  // Two separate arrays described by one absolute-address type.
  static int a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  static double b[4] = {0.5, 1.5, 2.5, 3.5};
  MPI_Aint disp[2];
  MPI_Get_address(&a[1], &disp[0]);
  MPI_Get_address(&b[2], &disp[1]);
  int bl[2] = {3, 2};
  MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, t;
  MPI_Type_create_struct(2, bl, disp, ty, &t);
  D.commit(&t);
  std::vector<unsigned char> out(64, 0);
  int pos = 0;
  int rc = D.pack(MPI_BOTTOM, 1, t, out.data(), 64, &pos, g_comm);
  std::vector<unsigned char> expect(28);
  std::memcpy(expect.data(), &a[1], 12);
  std::memcpy(expect.data() + 12, &b[2], 16);
  EXPECT_MSG(rc == MPI_SUCCESS && pos == 28 &&
                 std::equal(expect.begin(), expect.end(), out.begin()),
             "MPI_BOTTOM pack: rc %d pos %d", rc, pos);
  // Unpack to MPI_BOTTOM, after scribbling over the arrays.
  int a_before[8];
  std::memcpy(a_before, a, sizeof a);
  std::memset(a, 0, sizeof a);
  std::memset(b, 0, sizeof b);
  pos = 0;
  rc = D.unpack(out.data(), 28, &pos, MPI_BOTTOM, 1, t, g_comm);
  EXPECT_MSG(rc == MPI_SUCCESS && pos == 28 && a[1] == 2 && a[3] == 4 && a[0] == 0 &&
                 a[4] == 0 && b[2] == 2.5 && b[3] == 3.5 && b[1] == 0,
             "MPI_BOTTOM unpack: rc %d", rc);
  std::memcpy(a, a_before, sizeof a);
  // Contiguous fast path from MPI_BOTTOM.
  MPI_Datatype c;
  MPI_Aint d0;
  MPI_Get_address(&a[0], &d0);
  int eight = 8;
  MPI_Type_create_hindexed(1, &eight, &d0, MPI_INT, &c);
  D.commit(&c);
  pos = 0;
  rc = D.pack(MPI_BOTTOM, 1, c, out.data(), 64, &pos, g_comm);
  EXPECT_MSG(rc == MPI_SUCCESS && pos == 32 && std::memcmp(out.data(), a, 32) == 0,
             "MPI_BOTTOM contiguous: rc %d", rc);
  D.free(&c);
  D.free(&t);
}

// external32: the standard's sizes and big-endian bytes.
// `cmp` bytes of the value must survive the round trip (long double has 10
// significant bytes in 16).
template <class T>
void ext_case(const char *name, MPI_Datatype t, T value, std::vector<unsigned char> expect,
              size_t cmp = sizeof(T)) {
  MPI_Aint size = -1;
  EXPECT_MSG(D.ext_size("external32", 1, t, &size) == MPI_SUCCESS &&
                 size == (MPI_Aint)expect.size(),
             "%s: external32 size %ld, standard %zu", name, (long)size, expect.size());
  std::vector<unsigned char> out(expect.size() + 8, 0xEE);
  MPI_Aint pos = 0;
  int rc = D.pack_ext("external32", &value, 1, t, out.data(), (MPI_Aint)expect.size(), &pos);
  EXPECT_MSG(rc == MPI_SUCCESS && pos == (MPI_Aint)expect.size() &&
                 std::equal(expect.begin(), expect.end(), out.begin()) && out[expect.size()] == 0xEE,
             "%s: external32 bytes", name);
  T back;
  std::memset(&back, 0, sizeof back);
  pos = 0;
  rc = D.unpack_ext("external32", out.data(), (MPI_Aint)expect.size(), &pos, &back, 1, t);
  EXPECT_MSG(rc == MPI_SUCCESS && std::memcmp(&back, &value, cmp) == 0,
             "%s: external32 round trip", name);
}

void external32() {
  using V = std::vector<unsigned char>;
  ext_case<int>("MPI_INT", MPI_INT, 0x01020304, V{1, 2, 3, 4});
  ext_case<short>("MPI_SHORT", MPI_SHORT, -2, V{0xFF, 0xFE});
  ext_case<long>("MPI_LONG (4 bytes)", MPI_LONG, -3, V{0xFF, 0xFF, 0xFF, 0xFD});
  ext_case<unsigned long>("MPI_UNSIGNED_LONG", MPI_UNSIGNED_LONG, 0x11223344ul, V{0x11, 0x22, 0x33, 0x44});
  ext_case<long long>("MPI_LONG_LONG", MPI_LONG_LONG, 0x0102030405060708ll, V{1, 2, 3, 4, 5, 6, 7, 8});
  ext_case<double>("MPI_DOUBLE", MPI_DOUBLE, 1.5, V{0x3F, 0xF8, 0, 0, 0, 0, 0, 0});
  ext_case<float>("MPI_FLOAT", MPI_FLOAT, -2.0f, V{0xC0, 0, 0, 0});
  ext_case<char>("MPI_CHAR", MPI_CHAR, 'x', V{'x'});
  ext_case<MPI_Aint>("MPI_AINT", MPI_AINT, (MPI_Aint)-2, V{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE});
  // binary128: sign 0, exponent 0x3FFF, fraction .1 (binary) for 1.5.
  ext_case<long double>("MPI_LONG_DOUBLE (binary128)", MPI_LONG_DOUBLE, 1.5L,
                        V{0x3F, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 10);
  struct FI {
    float f;
    int i;
  };
  ext_case<FI>("MPI_FLOAT_INT", MPI_FLOAT_INT, FI{1.0f, 7}, V{0x3F, 0x80, 0, 0, 0, 0, 0, 7});
  struct DI {
    double d;
    int i;
  };
  DI di;
  std::memset(&di, 0, sizeof di);  // the pad bytes are not data
  di.d = -1.0;
  di.i = 0x0A0B0C0D;
  ext_case<DI>("MPI_DOUBLE_INT (no gap)", MPI_DOUBLE_INT, di,
               V{0xBF, 0xF0, 0, 0, 0, 0, 0, 0, 0x0A, 0x0B, 0x0C, 0x0D});

  // A derived type: a stride-2 int vector, 3 elements -> 12 big-endian bytes,
  // also what the system packs (both systems get int right).
  int arr[6] = {0x01020304, -1, 0x05060708, -1, 0x090A0B0C, -1};
  MPI_Datatype v;
  MPI_Type_vector(3, 1, 2, MPI_INT, &v);
  D.commit(&v);
  V out(12), sys(12);
  MPI_Aint p1 = 0, p2 = 0;
  EXPECT(D.pack_ext("external32", arr, 1, v, out.data(), 12, &p1) == MPI_SUCCESS && p1 == 12);
  PMPI_Pack_external("external32", arr, 1, v, sys.data(), 12, &p2);
  EXPECT_MSG(out == (V{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}) && out == sys,
             "external32 vector bytes");
  // A C struct {char; double; int} with padding: external32 has none.
  CS cs{'q', 2.0, 3};
  MPI_Datatype st;
  int bl[3] = {1, 1, 1};
  MPI_Aint disp[3] = {offsetof(CS, c), offsetof(CS, d), offsetof(CS, i)};
  MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
  MPI_Type_create_struct(3, bl, disp, ty, &st);
  D.commit(&st);
  V so(13);
  p1 = 0;
  EXPECT(D.pack_ext("external32", &cs, 1, st, so.data(), 13, &p1) == MPI_SUCCESS && p1 == 13);
  EXPECT_MSG(so == (V{'q', 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3}), "external32 struct bytes");
  MPI_Aint es = 0;
  EXPECT(D.ext_size("external32", 2, st, &es) == MPI_SUCCESS && es == 26);
  D.free(&st);
  D.free(&v);
}

// Named types Loom maps specially: MPI_LB/MPI_UB markers (MPICH's header
// still has them), pair types, and MPI_Type_create_f90_* types.
void named_and_markers() {
  std::vector<int> ints(256);
  for (int i = 0; i < 256; ++i) ints[i] = i * 13 + 1;
#if defined(MPICH)
  {
    int bl[3] = {1, 2, 1};
    MPI_Aint d[3] = {-8, 0, 16};
    MPI_Datatype ts[3] = {MPI_LB, MPI_INT, MPI_UB}, t, c;
    MPI_Type_create_struct(3, bl, d, ts, &t);
    MPI_Type_contiguous(3, t, &c);
    D.commit(&t);
    D.commit(&c);
    check_same("struct with MPI_LB/MPI_UB markers", ints.data() + 16, 3, t);
    check_same("contiguous over a struct with markers", ints.data() + 16, 2, c);
    D.free(&c);
    D.free(&t);
  }
#endif
  check_same("MPI_FLOAT_INT", ints.data(), 7, MPI_FLOAT_INT);
  check_same("MPI_SHORT_INT", ints.data(), 7, MPI_SHORT_INT);
  check_same("MPI_LONG_DOUBLE_INT", ints.data(), 3, MPI_LONG_DOUBLE_INT);
  MPI_Datatype f90, v;
  if (MPI_Type_create_f90_real(6, MPI_UNDEFINED, &f90) == MPI_SUCCESS) {
    MPI_Type_vector(5, 1, 3, f90, &v);
    D.commit(&v);
    check_same("vector of an f90 real", ints.data(), 2, v);
    D.free(&v);
  }
}

#if MPI_VERSION >= 4
// MPI-4 large-count forms (MPICH 4): entry points and types made by the
// _c constructors, whose contents come back as large counts.
void large_count() {
  decltype(&MPI_Pack_c) pack_c;
  decltype(&MPI_Unpack_c) unpack_c;
  decltype(&MPI_Pack_size_c) size_c;
  decltype(&MPI_Pack_external_c) ext_c;
  decltype(&MPI_Pack_external_size_c) ext_size_c;
  void *h = dlopen(LOOM_DROPIN_PATH, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  sym(h, "MPI_Pack_c", &pack_c);
  sym(h, "MPI_Unpack_c", &unpack_c);
  sym(h, "MPI_Pack_size_c", &size_c);
  sym(h, "MPI_Pack_external_c", &ext_c);
  sym(h, "MPI_Pack_external_size_c", &ext_size_c);
  if (!pack_c || !unpack_c || !size_c || !ext_c || !ext_size_c) return;
  std::vector<double> v(4096);
  for (int i = 0; i < 4096; ++i) v[i] = i * 0.5;
  std::vector<MPI_Datatype> ts;
  MPI_Datatype t;
  MPI_Type_vector_c(7, 2, 5, MPI_DOUBLE, &t);
  ts.push_back(t);
  MPI_Type_create_hvector_c(3, 2, -48, MPI_DOUBLE, &t);
  ts.push_back(t);
  {
    MPI_Count bl[2] = {2, 3}, d[2] = {1, 9};
    MPI_Type_indexed_c(2, bl, d, MPI_DOUBLE, &t);
    ts.push_back(t);
    MPI_Count bd[2] = {8, 80};
    MPI_Type_create_hindexed_c(2, bl, bd, MPI_DOUBLE, &t);
    ts.push_back(t);
    MPI_Type_create_indexed_block_c(2, 3, d, MPI_DOUBLE, &t);
    ts.push_back(t);
    MPI_Type_create_hindexed_block_c(2, 3, bd, MPI_DOUBLE, &t);
    ts.push_back(t);
    MPI_Datatype st[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct_c(2, bl, bd, st, &t);
    ts.push_back(t);
    MPI_Count sz[2] = {6, 7}, sub[2] = {2, 3}, start[2] = {1, 2};
    MPI_Type_create_subarray_c(2, sz, sub, start, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
    ts.push_back(t);
    MPI_Count g[2] = {6, 5};
    int dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}, darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2},
        ps[2] = {2, 2};
    MPI_Type_create_darray_c(4, 3, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_DOUBLE, &t);
    ts.push_back(t);
    MPI_Type_create_resized_c(MPI_DOUBLE, -8, 40, &t);
    ts.push_back(t);
    MPI_Type_contiguous_c(3, ts.back(), &t);
    ts.push_back(t);
  }
  for (size_t i = 0; i < ts.size(); ++i) {
    D.commit(&ts[i]);
    char name[64];
    std::snprintf(name, sizeof name, "large-count constructor #%zu", i);
    check_same(name, v.data() + 1024, 2, ts[i]);
    MPI_Count need = -1, pos = 0, upos = 0;
    size_c(2, ts[i], g_comm, &need);
    auto ref = sys_pack(v.data() + 1024, 2, ts[i]);
    std::vector<unsigned char> out((size_t)need + 1);
    int rc = pack_c(v.data() + 1024, 2, ts[i], out.data(), need, &pos, g_comm);
    EXPECT_MSG(rc == MPI_SUCCESS && pos == (MPI_Count)ref.size() &&
                   std::equal(ref.begin(), ref.end(), out.begin()),
               "%s: MPI_Pack_c", name);
    std::vector<double> back(4096, -1), sysback(4096, -1);
    rc = unpack_c(out.data(), pos, &upos, back.data() + 1024, 2, ts[i], g_comm);
    int sp = 0;
    PMPI_Unpack(ref.data(), (int)ref.size(), &sp, sysback.data() + 1024, 2, ts[i], g_comm);
    EXPECT_MSG(rc == MPI_SUCCESS && upos == pos && back == sysback, "%s: MPI_Unpack_c", name);
    MPI_Count es = -1, epos = 0;
    ext_size_c("external32", 2, ts[i], &es);
    std::vector<unsigned char> ext((size_t)es + 1);
    EXPECT_MSG(ext_c("external32", v.data() + 1024, 2, ts[i], ext.data(), es, &epos) ==
                       MPI_SUCCESS && epos == es,
               "%s: MPI_Pack_external_c", name);
  }
  for (MPI_Datatype &x : ts) D.free(&x);
}
#endif

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
  MPI_Comm_set_errhandler(g_comm, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  // Before Loom exists in the process.
  if (provider("MPI_Pack").find("libloom-mpi") != std::string::npos)
    failf("the drop-in is already loaded; this test needs it absent at start");
  MPI_Datatype pre_vec, pre_struct, pre_dup, pre_child, pre_parent, pre_uncommitted;
  MPI_Type_vector(5, 2, 3, MPI_INT, &pre_vec);
  MPI_Type_commit(&pre_vec);
  {
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(CS, c), offsetof(CS, d), offsetof(CS, i)};
    MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(3, bl, disp, ty, &pre_struct);
    MPI_Type_commit(&pre_struct);
  }
  MPI_Type_dup(pre_vec, &pre_dup);
  MPI_Type_contiguous(2, MPI_INT, &pre_child);
  MPI_Type_vector(3, 1, 2, pre_child, &pre_parent);
  MPI_Type_free(&pre_child);
  MPI_Type_commit(&pre_parent);
  MPI_Type_vector(2, 1, 2, MPI_INT, &pre_uncommitted);

  void *h = dlopen(LOOM_DROPIN_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    failf("dlopen(%s): %s", LOOM_DROPIN_PATH, dlerror());
    return finish("lifecycle");
  }
  sym(h, "MPI_Pack", &D.pack);
  sym(h, "MPI_Unpack", &D.unpack);
  sym(h, "MPI_Pack_size", &D.pack_size);
  sym(h, "MPI_Type_commit", &D.commit);
  sym(h, "MPI_Type_free", &D.free);
  sym(h, "MPI_Type_dup", &D.dup);
  sym(h, "MPI_Pack_external", &D.pack_ext);
  sym(h, "MPI_Unpack_external", &D.unpack_ext);
  sym(h, "MPI_Pack_external_size", &D.ext_size);
  if (failures()) return finish("lifecycle");

  before_load_then_lazy(pre_vec, pre_struct, pre_dup, pre_parent, pre_uncommitted);
  freed_children();
  bottom();
  external32();
  named_and_markers();
#if MPI_VERSION >= 4
  large_count();
#endif

  for (MPI_Datatype *t : {&pre_vec, &pre_struct, &pre_dup, &pre_parent, &pre_uncommitted})
    D.free(t);
  MPI_Comm_free(&g_comm);
  return finish("lifecycle");
}
