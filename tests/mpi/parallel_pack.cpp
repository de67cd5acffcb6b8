// LOOM_THREADS through the drop-in: MPI_Pack and MPI_Unpack of 4 MiB
// messages, and a staged message to self, on several threads (ctest runs
// this with LOOM_THREADS=2, forced, and 0, Loom's measured choice, whose
// first calls alternate one thread and several).  The oracle is the
// system's PMPI_Pack and PMPI_Unpack; every unpack starts from a guard
// pattern, which must survive in the receive type's gaps.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "mpi_test.hpp"
#include "to_mpi.hpp"

using namespace loomtest;

namespace {

constexpr int kCalls = 30;  // past the automatic choice's trials
constexpr unsigned char kGuard = 0xA5;

struct Case {
  const char *name;
  MPI_Datatype type;
  int count;
};

void check(const Case &c, MPI_Comm comm) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(c.type, &lb, &extent);
  const size_t span = (size_t)(extent * c.count);
  int bytes = 0;
  MPI_Pack_size(c.count, c.type, comm, &bytes);
  std::vector<unsigned char> src(span), want((size_t)bytes), got((size_t)bytes);
  for (size_t i = 0; i < span; ++i) src[i] = (unsigned char)(i * 131 + (i >> 11));
  int pos = 0;
  PMPI_Pack(src.data(), c.count, c.type, want.data(), bytes, &pos, comm);
  const int packed = pos;
  std::vector<unsigned char> out_want(span, kGuard), out(span);
  pos = 0;
  PMPI_Unpack(want.data(), packed, &pos, out_want.data(), c.count, c.type, comm);
  for (int call = 0; call < kCalls; ++call) {
    std::memset(got.data(), 0, got.size());
    pos = 0;
    EXPECT_MSG(MPI_Pack(src.data(), c.count, c.type, got.data(), bytes, &pos, comm) ==
                   MPI_SUCCESS, "%s: MPI_Pack, call %d", c.name, call);
    EXPECT_MSG(pos == packed && std::memcmp(got.data(), want.data(), (size_t)packed) == 0,
               "%s: MPI_Pack differs from PMPI_Pack, call %d (position %d, want %d)", c.name,
               call, pos, packed);
    std::memset(out.data(), kGuard, span);
    pos = 0;
    EXPECT_MSG(MPI_Unpack(want.data(), packed, &pos, out.data(), c.count, c.type, comm) ==
                   MPI_SUCCESS, "%s: MPI_Unpack, call %d", c.name, call);
    EXPECT_MSG(pos == packed && out == out_want,
               "%s: MPI_Unpack differs from PMPI_Unpack, call %d", c.name, call);
  }
  // A message to self: staged, packed and unpacked on the drop-in's threads.
  std::fill(out.begin(), out.end(), kGuard);
  MPI_Status st;
  EXPECT_MSG(MPI_Sendrecv(src.data(), c.count, c.type, 0, 7, out.data(), c.count, c.type, 0, 7,
                          comm, &st) == MPI_SUCCESS, "%s: MPI_Sendrecv", c.name);
  int n = -1;
  MPI_Get_count(&st, c.type, &n);
  EXPECT_MSG(n == c.count && out == out_want, "%s: MPI_Sendrecv to self (count %d)", c.name, n);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (!dropin_active()) {
    failf("the drop-in is not in front of the system MPI");
    return finish("parallel_pack");
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_SELF, &comm);
  // Every other double of 8 MiB: 4 MiB packed.
  MPI_Datatype column;
  MPI_Type_vector(1 << 19, 1, 2, MPI_DOUBLE, &column);
  // Elements {0, 2, 3, 6} of every 8 floats (a small repeating pattern).
  const int lens[] = {1, 2, 1}, displs[] = {0, 2, 6};
  MPI_Datatype pattern, pattern8, patterns;
  MPI_Type_indexed(3, lens, displs, MPI_FLOAT, &pattern);
  MPI_Type_create_resized(pattern, 0, 8 * sizeof(float), &pattern8);
  MPI_Type_contiguous(1 << 18, pattern8, &patterns);
  // A particle record of which 20 of 32 bytes travel.
  const int blens[] = {1, 2};
  const MPI_Aint bdispls[] = {0, 8};
  const MPI_Datatype btypes[] = {MPI_INT, MPI_DOUBLE};
  MPI_Datatype rec, rec32;
  MPI_Type_create_struct(2, blens, bdispls, btypes, &rec);
  MPI_Type_create_resized(rec, 0, 32, &rec32);
  for (MPI_Datatype *t : {&column, &patterns, &rec32}) MPI_Type_commit(t);
  const Case cases[] = {{"column", column, 1}, {"pattern", patterns, 1},
                        {"records", rec32, 1 << 18}};
  for (const Case &c : cases) check(c, comm);
  for (MPI_Datatype *t : {&column, &pattern, &pattern8, &patterns, &rec, &rec32})
    MPI_Type_free(t);
  MPI_Comm_free(&comm);
  const char *threads = std::getenv("LOOM_THREADS");
  std::printf("parallel_pack[%s]: LOOM_THREADS=%s, 3 types x %d calls, 4-5 MiB each\n",
              mpi_flavor(), threads ? threads : "(unset)", kCalls);
  return finish("parallel_pack");
}
