/* The C half of the Fortran tests: C code in a Fortran program sends and
   receives through the drop-in's C entry points while the Fortran code
   uses the Fortran bindings.  On Open MPI those bindings call PMPI_
   directly unless the drop-in routes them (src/mpi/fortran.hpp), so a
   Fortran receive of a C send that went Loom-to-Loom would get the
   rendezvous instead of the data: these calls make that case happen.

   Messages: kind 0 is N_SMALL blocks and kind 2 N_LARGE blocks of 8
   doubles every 16 (64 KiB and 1 MiB of data), value k + 0.5 for the
   k-th double in the packed order; kind 1 is 1036 bytes, byte k (from 0)
   = k % 100 + 1 (the size of a Loom-to-Loom rendezvous, l2l::kRdvBytes).  The Fortran programs start
   MPI from C (loom_test_c_init) or from Fortran, by their argument. */
#include <mpi.h>
#include <stdlib.h>

enum { BLOCK = 8, STRIDE = 16, N_SMALL = 1024, N_LARGE = 16384, RDV_BYTES = 1036 };

/* MPI_Init from C, as a C main program that calls Fortran code would. */
void loom_test_c_init(void) { MPI_Init(NULL, NULL); }

static int blocks_of(int kind) { return kind == 2 ? N_LARGE : N_SMALL; }

static MPI_Datatype vector_of(int kind) {
  MPI_Datatype t;
  MPI_Type_vector(blocks_of(kind), BLOCK, STRIDE, MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  return t;
}

void loom_test_c_send(int kind, int dest, int tag) {
  if (kind == 1) {
    unsigned char b[RDV_BYTES];
    for (int k = 0; k < RDV_BYTES; ++k) b[k] = (unsigned char)(k % 100 + 1);
    MPI_Send(b, RDV_BYTES, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
    return;
  }
  int n = blocks_of(kind);
  double *a = malloc(sizeof(double) * (size_t)n * STRIDE);
  for (int i = 0; i < n * STRIDE; ++i) a[i] = -1.0;
  for (int k = 0; k < n * BLOCK; ++k) a[(k / BLOCK) * STRIDE + k % BLOCK] = k + 0.5;
  MPI_Datatype t = vector_of(kind);
  MPI_Send(a, 1, t, dest, tag, MPI_COMM_WORLD);
  MPI_Type_free(&t);
  free(a);
}

/* Receives kind 0 or 2 into the vector layout; returns the number of wrong
   doubles (gaps included: they must stay untouched), -1 on a bad count. */
int loom_test_c_recv(int kind, int src, int tag) {
  int n = blocks_of(kind), bad = 0, count = -1;
  double *a = malloc(sizeof(double) * (size_t)n * STRIDE);
  for (int i = 0; i < n * STRIDE; ++i) a[i] = -1.0;
  MPI_Datatype t = vector_of(kind);
  MPI_Status st;
  MPI_Recv(a, 1, t, src, tag, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  for (int i = 0; i < n * STRIDE; ++i) {
    int k = (i / STRIDE) * BLOCK + i % STRIDE;
    double want = i % STRIDE < BLOCK ? k + 0.5 : -1.0;
    bad += a[i] != want;
  }
  MPI_Type_free(&t);
  free(a);
  return count == n * BLOCK ? bad : -1;
}
