// MPI_Get_elements and MPI_Get_elements_x (and MPI_Get_elements_c where the
// header has it) for whole instances, answered from the mirror: the byte
// count in the status divided by the type size, times the basic elements
// per instance.  The statuses Loom's receives leave carry the system's own
// byte count, so the system could answer too, except that MPICH 4.0.2
// crashes on many derived types doing so, with its own statuses as much as
// with Loom's (SIGFPE for struct{int[10] @4; indexed_block(5,[2],float) @36},
// an assertion in get_elements_x.c for resized darrays).  A byte count that
// ends inside an instance (a partial message) still goes to the system.
// MPI_Get_count needs no help: both systems divide the byte count.
#include "engine.hpp"
#include "progress.hpp"

#include <limits>

using namespace loom_mpi;

namespace {

// Elements of (status, dt) if the mirror can tell: true and *n set.
bool mirror_elements(const MPI_Status *st, MPI_Datatype dt, int64_t *n) {
  if (!st || st == MPI_STATUS_IGNORE || dt == MPI_DATATYPE_NULL) return false;
  const Mirror *m = find(dt);
  if (!m && resolve(dt, &m) != Resolved::ok) return false;
  if (!m || !m->type || m->size <= 0) return false;
  MPI_Count bytes = 0;
  if (PMPI_Get_elements_x(st, MPI_BYTE, &bytes) != MPI_SUCCESS || bytes < 0 ||
      bytes == MPI_UNDEFINED || bytes % m->size != 0)
    return false;
  return !__builtin_mul_overflow((int64_t)(bytes / m->size),
                                 loom_type_num_elements(m->type), n);
}

template <class C>
int elements(const MPI_Status *st, MPI_Datatype dt, C *count,
             int (*sys)(const MPI_Status *, MPI_Datatype, C *)) {
  int64_t n;
  if (count && mirror_elements(st, dt, &n) &&
      n <= (int64_t)std::numeric_limits<C>::max()) {
    *count = (C)n;
    return MPI_SUCCESS;
  }
  return sys(st, dt, count);
}

}  // namespace

LOOM_MPI_EXPORT int MPI_Get_elements(const MPI_Status *st, MPI_Datatype dt, int *count) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    return elements<int>(st, dt, count, PMPI_Get_elements);
  });
}

LOOM_MPI_EXPORT int MPI_Get_elements_x(const MPI_Status *st, MPI_Datatype dt,
                                       MPI_Count *count) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    return elements<MPI_Count>(st, dt, count, PMPI_Get_elements_x);
  });
}

#if LOOM_MPI_HAVE_LARGE_COUNT
LOOM_MPI_EXPORT int MPI_Get_elements_c(const MPI_Status *st, MPI_Datatype dt,
                                       MPI_Count *count) {
  return entry(MPI_COMM_WORLD, [&]() -> int {
    return elements<MPI_Count>(st, dt, count, PMPI_Get_elements_c);
  });
}
#endif
