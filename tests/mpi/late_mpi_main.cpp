// A program without MPI that loads it late: dlopen(argv[1], RTLD_LOCAL), a
// library linked against an MPI (late_mpi.cpp), then runs its
// late_mpi_run().  With a drop-in of the other MPI preloaded, only the
// drop-in's MPI_Init can see the mismatch.
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s LIBRARY\n", argv[0]);
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  auto run = (int (*)())dlsym(lib, "late_mpi_run");
  if (!run) {
    std::fprintf(stderr, "dlsym: %s\n", dlerror());
    return 2;
  }
  int rc = run();
  std::printf("late_mpi_run: %d\n", rc);
  return rc;
}
