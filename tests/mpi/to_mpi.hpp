// TypeSpec -> system MPI datatype, and where the system's bounds disagree
// with the reference interpreter (the standard).
#pragma once

#include <mpi.h>

#include <random>
#include <string>
#include <vector>

#include "type_spec.hpp"

namespace loomtest {

// The MPI named type of a Loom primitive.
MPI_Datatype mpi_prim(loom_prim p);

// Options for how to_mpi() treats intermediate types.  Random choices come
// from the rng, so they are reproducible per seed.
struct ToMpiOptions {
  std::mt19937_64 *rng = nullptr;  // null: never commit/free children early
  double commit_child = 0.25;      // commit a child before its parent
  double free_child_early = 0.5;   // free a child before the parent commits
};

struct MpiType {
  MPI_Datatype type = MPI_DATATYPE_NULL;  // built, not committed
  std::string error;                      // a constructor the system refused
  // The spec with nodes wrapped in resized(system lb, system extent) where
  // the drop-in adopts the system's bounds (see bounds_adopted): the layout
  // the drop-in promises.
  TypeSpecPtr reconciled;
  bool struct_differs = false;  // some struct was reconciled
  // A non-struct node has the system's bounds although its data sit where
  // the standard puts them: Open MPI 4.1.4 rounds h-type extents up to the
  // alignment (hvector(2,4,30,MPI_FLOAT): extent 48, the standard's
  // computation and MPICH give 46); the drop-in adopts them.
  bool bounds_adopted = false;
  // Both MPIs give types without data (size 0) bounds of their own (e.g.
  // MPICH: hvector(2,0,4,MPI_INT) has extent 4, the standard's is 0).  Only
  // a struct can combine such a type with data, and struct bounds are
  // taken from the system, so this changes no packed byte.
  bool empty_differs = false;
  // A struct has an empty member (size 0).  MPICH 4.0.2 counts it in the
  // struct's true bounds and may divide by zero (SIGFPE) packing it when
  // its bounds are not (0,0); Open MPI 4.1.4 counts it in the extent but
  // packs count > 1 at the stride of the data alone (struct([7,2],[-6,-61],
  // [contig(4,byte),vector(0,1,2,real16)]) has extent 83, yet count 2 is
  // packed as 56 contiguous bytes).
  bool empty_member = false;
  // Open MPI 4.1.4: a (h)vector with a stride of -1 byte (e.g.
  // hvector(12,1,-1,MPI_CHAR)) reports lb 0 and packs bytes +0..+11.
  bool ompi_negbyte = false;
  // Any other disagreement of a non-struct node with the standard (a
  // finding, not a documented skip), described in `where`.
  bool other_differs = false;
  std::string where;
  // Children kept alive until release(): the drop-in then finds them in its
  // cache when the parent is committed, instead of decoding them again.
  std::vector<MPI_Datatype> deferred;
};

// Builds the type bottom-up with the system constructors.  Children are
// freed (MPI_Type_free) once their parent exists, sometimes before the
// parent is committed, so decoders must cope with freed children.
MpiType to_mpi(const TypeSpecPtr &t, const ToMpiOptions &opt = ToMpiOptions());

// Frees the deferred children and the type itself.
void release(MpiType &t);

// "mpich" or "openmpi", from the header this was compiled against.
const char *mpi_flavor();

}  // namespace loomtest
