/* An ordinary MPI program: each rank owns a block of columns of a matrix,
 * stored row-major with one ghost column on each side, and exchanges its edge
 * columns with its neighbours through MPI_Pack / MPI_Unpack and a vector
 * datatype.  Nothing here knows about Loom; run it as is, or with the drop-in
 * library preloaded to make the datatype work fast:
 *
 *   mpicc mpi_column_exchange.c -o mpi_column_exchange
 *   mpiexec -n 2 ./mpi_column_exchange
 *   mpiexec -n 2 env LD_PRELOAD=/path/to/build/<mpi>/libloom-mpi.so ./mpi_column_exchange
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROWS = 512, OWN = 64, COLS = OWN + 2 }; /* columns 0 and COLS-1: ghosts */

static double value(int rank, int row, int col) { /* col: owned, 1..OWN */
  return rank * 1e6 + row * 1e3 + col;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;

  double *a = malloc(sizeof(double) * ROWS * COLS);
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < COLS; ++j)
      a[i * COLS + j] = (j == 0 || j == COLS - 1) ? -1.0 : value(rank, i, j);

  /* One column: ROWS doubles, COLS apart. */
  MPI_Datatype column;
  MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);

  int bufsize;
  MPI_Pack_size(1, column, MPI_COMM_WORLD, &bufsize);
  char *sendbuf = malloc(bufsize), *recvbuf = malloc(bufsize);
  int errors = 0;

  for (int dir = 0; dir < 2; ++dir) {
    /* dir 0: my last owned column goes right, my left ghost comes from the
     * left; dir 1: the mirror image. */
    const int send_col = dir == 0 ? OWN : 1, recv_col = dir == 0 ? 0 : COLS - 1;
    const int dest = dir == 0 ? right : left, src = dir == 0 ? left : right;
    int pos = 0;
    MPI_Pack(&a[send_col], 1, column, sendbuf, bufsize, &pos, MPI_COMM_WORLD);
    MPI_Sendrecv(sendbuf, pos, MPI_PACKED, dest, dir, recvbuf, bufsize, MPI_PACKED,
                 src, dir, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    pos = 0;
    MPI_Unpack(recvbuf, bufsize, &pos, &a[recv_col], 1, column, MPI_COMM_WORLD);
  }

  /* Ghost columns hold the neighbours' edge columns; nothing else changed. */
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < COLS; ++j) {
      double want = j == 0          ? value(left, i, OWN)
                    : j == COLS - 1 ? value(right, i, 1)
                                    : value(rank, i, j);
      if (a[i * COLS + j] != want && errors++ < 5)
        fprintf(stderr, "rank %d: a[%d][%d] = %.1f, expected %.1f\n", rank, i, j,
                a[i * COLS + j], want);
    }

  int total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%d ranks exchanged %d-row ghost columns: %s\n", size, ROWS,
           total ? "MISMATCH" : "ok");
  MPI_Type_free(&column);
  free(a), free(sendbuf), free(recvbuf);
  MPI_Finalize();
  return total ? 1 : 0;
}
