// The datatypes staged collective blocks travel as.
#pragma once
#include <mpi.h>

#include <cstdint>

namespace loom_mpi {
namespace coll {

// `size` contiguous bytes (MPI_BYTE for 1): a staged block of count
// instances of a type of that size goes as count of these.  The system then
// sees the counts and element size it would see for the program's own type,
// so everything it derives from them is what it would be natively, on every
// rank, with or without Loom: algorithm choices (Open MPI 4.1.4 sizes
// Allgatherv by the send type's size times the receive counts), pipeline
// segments (a whole number of elements each), truncation checks.
// Committed once per size and freed at MPI_Finalize; MPI_DATATYPE_NULL if
// the system refuses one (the caller then leaves the call to the system).
MPI_Datatype unit_type(int64_t size);

}  // namespace coll
}  // namespace loom_mpi
