// Decoding a system MPI datatype into a loom type through
// PMPI_Type_get_envelope / PMPI_Type_get_contents.
#pragma once
#include "compat.hpp"
#include "loom.h"

#include <cstdint>
#include <vector>

namespace loom_mpi {

// Constructor arguments in the classic (MPI-3 get_contents) layout, whatever
// call made the type: integers and addresses widened to 64 bits.
struct Contents {
  int combiner = 0;
  std::vector<int64_t> I, A;
  std::vector<MPI_Datatype> D;
};

// One level: a new reference to the uncommitted loom type of @p t, which the
// system built from @p c over children whose loom types are @p kids (null
// for MPI_LB/MPI_UB), with the system's bounds adopted where the standard
// leaves room, and its size checked against the system's; nullptr (with
// *why set) if Loom cannot represent it.  Costs O(size of c).
loom_type build_level(MPI_Datatype t, const Contents &c, const std::vector<loom_type> &kids,
                      const char **why);

// A new reference to a loom type with the typemap of @p t, or nullptr
// (with *why set) if Loom cannot represent it faithfully.  Derived
// children already in the mirror cache are reused, not decoded again.
// @p sys: system_facts(t) when the caller has them.
loom_type decode(MPI_Datatype t, const char **why, const int64_t *sys = nullptr);

// The system's size, lb, extent, true lb and true extent of t: what a
// cached loom type is checked against before it is trusted for a handle.
void system_facts(MPI_Datatype t, int64_t out[5]);

// The Loom primitive for a named MPI type, if there is one.
bool named_prim(MPI_Datatype t, loom_prim *p);
// MPI_LB / MPI_UB (only where the header still has them).
bool is_bound_marker(MPI_Datatype t);

}  // namespace loom_mpi
