// What scheme selection needs to know about a committed Loom type (no MPI
// in here): the facts the drop-in's type mirror records (src/mpi/mirror.cpp)
// and `loom tune` records for each layout it measures.
#pragma once

#include <cstdint>

#include "loom.h"

namespace loom {
namespace xfer {

/// One instance of a type, as selection sees it.
struct LayoutFacts {
  int64_t size = 0;       ///< packed bytes
  int64_t mean_run = 0;   ///< mean contiguous run in bytes (0: no runs)
  /// The element size when every element is one primitive other than a
  /// long double (MPICH moves 10 of their 16 bytes), 0 otherwise: only such
  /// types may take the system MPI's datatype path.
  int64_t elem_size = 0;
};

/// The facts of committed type @p t.
LayoutFacts layout_facts(loom_type t);

}  // namespace xfer
}  // namespace loom
