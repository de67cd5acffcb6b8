// (d) A plain MPI program, unaware of Loom, run as two ranks through
// mpiexec with LD_PRELOAD=libloom-mpi.so.  It checks that the preloaded
// drop-in is what MPI_Pack resolves to, that its packed streams are
// byte-identical to PMPI_Pack, and that they interoperate with the system's
// own datatype engine across processes in both directions.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "mpi_test.hpp"

using namespace loomtest;

namespace {

struct Particle {
  double x[3];
  int id;
  char tag;
  float w;
};

MPI_Datatype particle_type() {
  int bl[4] = {3, 1, 1, 1};
  MPI_Aint d[4] = {offsetof(Particle, x), offsetof(Particle, id), offsetof(Particle, tag),
                   offsetof(Particle, w)};
  MPI_Datatype ty[4] = {MPI_DOUBLE, MPI_INT, MPI_CHAR, MPI_FLOAT}, t, every_other;
  MPI_Type_create_struct(4, bl, d, ty, &t);
  // Every other particle, as a halo exchange might pick them.
  MPI_Type_vector(50, 1, 2, t, &every_other);
  MPI_Type_free(&t);
  MPI_Type_commit(&every_other);
  return every_other;
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) failf("needs 2 ranks, got %d", size);
  if (!dropin_active()) failf("rank %d: MPI_Pack resolves to %s", rank, provider("MPI_Pack").c_str());

  MPI_Datatype col;  // a column of a 200x300 double matrix
  MPI_Type_vector(200, 1, 300, MPI_DOUBLE, &col);
  MPI_Type_commit(&col);
  MPI_Datatype parts = particle_type();
  std::vector<double> m(200 * 300);
  std::vector<Particle> p(100);
  auto fill = [&](int salt) {
    for (size_t i = 0; i < m.size(); ++i) m[i] = (double)i * 0.5 + salt;
    std::memset(p.data(), 0, p.size() * sizeof(Particle));
    for (int i = 0; i < 100; ++i) p[i] = Particle{{i + 0.1, i + 0.2, i + 0.3 + salt}, i * 11 + salt, (char)('A' + i % 26), i * 0.25f};
  };

  int peer = 1 - rank;
  for (int dir = 0; dir < 2 && size == 2; ++dir) {
    bool sender = rank == dir;
    for (MPI_Datatype t : {col, parts}) {
      void *buf = t == col ? (void *)&m[7] : (void *)p.data();
      int psize;
      MPI_Pack_size(1, t, MPI_COMM_WORLD, &psize);
      std::vector<unsigned char> packed((size_t)psize), sys((size_t)psize);
      if (sender) {
        fill(dir);
        // 1. Loom's stream is the system's stream, byte for byte.
        int pos = 0, spos = 0;
        MPI_Pack(buf, 1, t, packed.data(), psize, &pos, MPI_COMM_WORLD);
        PMPI_Pack(buf, 1, t, sys.data(), psize, &spos, MPI_COMM_WORLD);
        EXPECT_MSG(pos == spos && packed == sys, "rank %d: packed stream differs from PMPI_Pack", rank);
        // 2. Loom-packed -> system receive with the datatype.
        MPI_Send(packed.data(), pos, MPI_PACKED, peer, 1, MPI_COMM_WORLD);
        // 3. System send with the datatype -> Loom unpack.
        MPI_Send(buf, 1, t, peer, 2, MPI_COMM_WORLD);
      } else {
        fill(dir);  // what the sender has
        std::vector<double> m_expect = m;
        std::vector<Particle> p_expect = p;
        fill(1000);  // scribble
        MPI_Recv(buf, 1, t, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        bool ok = t == col ? m[7 + 300 * 5] == m_expect[7 + 300 * 5] && m[7 + 300 * 199] == m_expect[7 + 300 * 199]
                           : p[2].x[2] == p_expect[2].x[2] && p[98].id == p_expect[98].id &&
                                 p[1].id == 1 * 11 + 1000;
        EXPECT_MSG(ok, "rank %d: system receive of a Loom-packed message", rank);
        fill(1000);
        MPI_Status st;
        MPI_Recv(packed.data(), psize, MPI_PACKED, peer, 2, MPI_COMM_WORLD, &st);
        int n, pos = 0;
        MPI_Get_count(&st, MPI_PACKED, &n);
        MPI_Unpack(packed.data(), n, &pos, buf, 1, t, MPI_COMM_WORLD);
        ok = pos == n && (t == col ? m[7 + 300 * 100] == m_expect[7 + 300 * 100] && m[8] == 8 * 0.5 + 1000
                                   : p[50].x[0] == p_expect[50].x[0] && p[50].tag == p_expect[50].tag &&
                                         p[51].id == 51 * 11 + 1000);
        EXPECT_MSG(ok, "rank %d: Loom unpack of a system-packed message", rank);
      }
    }
  }
  int mine = failures(), all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  failures() = all;
  MPI_Type_free(&col);
  MPI_Type_free(&parts);
  if (rank != 0) {
    MPI_Finalize();
    return all ? 1 : 0;
  }
  return finish("preload np2");
}
