// Commit through the drop-in costs O(size of the description), checked
// without a clock:
//  * a struct of 131072 blocks of one derived type: the drop-in must not
//    walk get_contents per child (Open MPI duplicates every child handle
//    there, which made this commit quadratic): it makes O(1) get_contents
//    calls, counted by interposing PMPI_Type_get_contents, and so do
//    duplicates of it used once each;
//  * a vector of 2^31-1 blocks of contiguous(10^6, struct{int, double}):
//    2*10^15 elements, which any per-element work at commit (the external32
//    size used to be walked) could not finish before the test's timeout;
//    MPI_Pack_external_size must answer it too.
// Both types must then pack as the system packs them.
#include <mpi.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "mpi_test.hpp"

namespace {

long g_contents_calls = 0;

template <class F>
F next(const char *name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

// The drop-in's calls resolve to these (the program is searched first).
extern "C" int PMPI_Type_get_contents(MPI_Datatype t, int ni, int na, int nd, int *is,
                                      MPI_Aint *as, MPI_Datatype *ds) {
  static auto real = next<decltype(&PMPI_Type_get_contents)>("PMPI_Type_get_contents");
  ++g_contents_calls;
  return real(t, ni, na, nd, is, as, ds);
}
#if defined(MPICH)
extern "C" int PMPI_Type_get_contents_c(MPI_Datatype t, MPI_Count ni, MPI_Count na, MPI_Count nc,
                                        MPI_Count nd, int *is, MPI_Aint *as, MPI_Count *cs,
                                        MPI_Datatype *ds) {
  static auto real = next<decltype(&PMPI_Type_get_contents_c)>("PMPI_Type_get_contents_c");
  ++g_contents_calls;
  return real(t, ni, na, nc, nd, is, as, cs, ds);
}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  // Struct of 131072 blocks of contiguous(2, MPI_INT), 16 bytes apart.
  const int n = 131072;
  MPI_Datatype c2, st;
  MPI_Type_contiguous(2, MPI_INT, &c2);
  std::vector<int> bl(n, 1);
  std::vector<MPI_Aint> d(n);
  std::vector<MPI_Datatype> ty(n, c2);
  for (int i = 0; i < n; i++) d[i] = 16 * (MPI_Aint)i;
  MPI_Type_create_struct(n, bl.data(), d.data(), ty.data(), &st);
  long before = g_contents_calls;
  EXPECT_MSG(MPI_Type_commit(&st) == MPI_SUCCESS, "commit of the struct");
  long calls = g_contents_calls - before;
  EXPECT_MSG(calls <= 4, "commit of a %d-block struct made %ld get_contents calls (want O(1))", n,
        calls);
  std::vector<int> in(4 * (size_t)n), a(2 * (size_t)n), b(2 * (size_t)n);
  for (size_t i = 0; i < in.size(); i++) in[i] = (int)(i * 7 + 1);
  int pa = 0, pb = 0;
  EXPECT_MSG(MPI_Pack(in.data(), 1, st, a.data(), (int)(a.size() * 4), &pa, MPI_COMM_WORLD) ==
            MPI_SUCCESS,
        "MPI_Pack of the struct");
  PMPI_Pack(in.data(), 1, st, b.data(), (int)(b.size() * 4), &pb, MPI_COMM_WORLD);
  EXPECT_MSG(pa == pb && std::memcmp(a.data(), b.data(), (size_t)pa) == 0,
        "the struct packs differently from the system (%d vs %d bytes)", pa, pb);

  // Duplicates of it, each used once: the drop-in records a dup when it is
  // made and never decodes it (on Open MPI, decoding it met a new duplicate
  // of the struct in get_contents and walked all of it for every dup).
  before = g_contents_calls;
  for (int i = 0; i < 8; i++) {
    MPI_Datatype dup;
    EXPECT_MSG(MPI_Type_dup(st, &dup) == MPI_SUCCESS, "dup %d of the struct", i);
    pa = 0;
    MPI_Pack(in.data(), 1, dup, a.data(), (int)(a.size() * 4), &pa, MPI_COMM_WORLD);
    EXPECT_MSG(pa == pb && std::memcmp(a.data(), b.data(), (size_t)pa) == 0,
               "dup %d of the struct packs differently from the system", i);
    MPI_Type_free(&dup);
  }
  calls = g_contents_calls - before;
  EXPECT_MSG(calls <= 4, "8 dups of the struct, each packed once, made %ld get_contents calls", calls);
  MPI_Type_free(&st);

  // 2 * 10^15 mixed elements.
  MPI_Datatype pair, row, huge;
  int b2[2] = {1, 1};
  MPI_Aint d2[2] = {0, 8};
  MPI_Datatype t2[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, b2, d2, t2, &pair);
  MPI_Type_contiguous(1000000, pair, &row);
  MPI_Type_vector(2147483647, 1, 2, row, &huge);
  EXPECT_MSG(MPI_Type_commit(&huge) == MPI_SUCCESS, "commit of the huge vector");
  MPI_Aint ext32 = -1;
  EXPECT_MSG(MPI_Pack_external_size("external32", 1, huge, &ext32) == MPI_SUCCESS,
        "MPI_Pack_external_size of the huge vector");
  const MPI_Aint want = (MPI_Aint)2147483647 * 1000000 * 12;
  EXPECT_MSG(ext32 == want, "external32 size %lld, want %lld", (long long)ext32, (long long)want);
  // A small count of the same element type still packs as the system does.
  MPI_Datatype small;
  MPI_Type_vector(100, 1, 2, pair, &small);
  MPI_Type_commit(&small);
  std::vector<char> sin(200 * 16), sa(100 * 12), sb(100 * 12);
  for (size_t i = 0; i < sin.size(); i++) sin[i] = (char)(i * 13);
  pa = pb = 0;
  MPI_Pack(sin.data(), 1, small, sa.data(), (int)sa.size(), &pa, MPI_COMM_WORLD);
  PMPI_Pack(sin.data(), 1, small, sb.data(), (int)sb.size(), &pb, MPI_COMM_WORLD);
  EXPECT_MSG(pa == pb && std::memcmp(sa.data(), sb.data(), (size_t)pa) == 0,
        "vector of struct{int,double} packs differently from the system");
  MPI_Type_free(&small);
  MPI_Type_free(&huge);
  MPI_Type_free(&row);
  MPI_Type_free(&pair);
  MPI_Type_free(&c2);
  return loomtest::finish("commit_cost");
}
