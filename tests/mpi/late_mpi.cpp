// A library that runs MPI, for late_mpi_main.cpp to dlopen (as Python
// loads mpi4py): MPI_Init, a barrier, MPI_Finalize.
#include <mpi.h>

extern "C" int late_mpi_run() {
  int argc = 0;
  char **argv = nullptr;
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  int rc = MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return rc == MPI_SUCCESS ? 0 : 1;
}
