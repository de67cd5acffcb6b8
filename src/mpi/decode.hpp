// Decoding a system MPI datatype into a loom type through
// PMPI_Type_get_envelope / PMPI_Type_get_contents.
#pragma once
#include "compat.hpp"
#include "loom.h"

namespace loom_mpi {

// A new reference to an uncommitted loom type with the typemap of @p t, or
// nullptr (with *why set) if Loom cannot represent it faithfully.  Derived
// children already in the mirror cache are reused, not decoded again.
loom_type decode(MPI_Datatype t, const char **why);

// The Loom primitive for a named MPI type, if there is one.
bool named_prim(MPI_Datatype t, loom_prim *p);
// MPI_LB / MPI_UB (only where the header still has them).
bool is_bound_marker(MPI_Datatype t);

}  // namespace loom_mpi
