// The datatypes Loom's staged streams travel as.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace loom_mpi {

// `size` contiguous bytes as one committed datatype (MPI_BYTE for 1): a
// staged collective block of count instances of a type of that size goes as
// count of these.  The system then sees the counts and element size it
// would see for the program's own type, so everything it derives from them
// is what it would be natively, on every rank, with or without Loom:
// algorithm choices (Open MPI 4.1.4 sizes Allgatherv by the send type's
// size times the receive counts), pipeline segments (a whole number of
// elements each), truncation checks.  Sizes past INT_MAX are built from
// 1 GiB blocks.  Committed once per size and freed at MPI_Finalize;
// MPI_DATATYPE_NULL if the system refuses one (the caller then leaves the
// call to the system).
MPI_Datatype unit_type(int64_t size);

// `count` copies of t as one new, uncommitted datatype with
// contiguous(count, t)'s typemap: contiguous(count, t) where count fits an
// int, else built from blocks of 2^30 copies.  MPI_SUCCESS, or the
// system's error (MPI_ERR_COUNT past 2^61 copies or an extent that
// overflows).
int repeat_type(int64_t count, MPI_Datatype t, MPI_Datatype *out);

// How a point-to-point stream of `bytes` staged bytes travels as one system
// message: `count` MPI_PACKED bytes, or past INT_MAX (which an int count
// cannot say) one instance of unit_type(bytes).  type MPI_DATATYPE_NULL:
// no such type could be had.
struct Wire {
  int count;
  MPI_Datatype type;
};
inline Wire wire_for(size_t bytes) {
  if (bytes <= (size_t)INT32_MAX) return {(int)bytes, MPI_PACKED};
  return {1, unit_type((int64_t)bytes)};
}

}  // namespace loom_mpi
