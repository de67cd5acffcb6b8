// Types recorded at construction.
//
// The drop-in intercepts the type constructors and builds each new type's
// loom type right away from the arguments the program passed, over the
// loom types of the children it named.  Commit then costs O(1) beyond the
// plan, and decoding never has to walk get_contents, which costs a
// system call (on Open MPI a full duplicate of the child) per child
// handle: a struct of n blocks of one derived type is O(n), not O(n) calls.
//
// Entries are keyed by handle and checked against the system's size and
// bounds when used, so a handle freed behind Loom's back (PMPI_Type_free)
// and reused is never mistaken for the type recorded under it.  Types the
// drop-in did not see being built (created before it loaded, through the
// large-count or Fortran constructors) are decoded as before.
#pragma once
#include "decode.hpp"

namespace loom_mpi {

// A new reference to the loom type recorded for @p t, or nullptr when none
// is or the system now describes @p t otherwise (a handle freed through
// PMPI and reused).  @p sys: system_facts(t) when the caller has them.
loom_type recorded(MPI_Datatype t, const int64_t *sys = nullptr);
// Records @p lt (a reference the table takes over) for @p t, unless the
// system gives @p t another size.  @p sys: system_facts(t) when the caller
// has them.
void record(MPI_Datatype t, loom_type lt, const int64_t *sys = nullptr);
// Forgets what is recorded under a handle (it was freed).
void forget_recorded(uintptr_t key);

}  // namespace loom_mpi
