// The MPI flavour of the <mpi.h> a file is compiled with (include <mpi.h>
// first): the drop-in and the CLI pick their settings' defaults by it.
#pragma once
#include "settings.hpp"

namespace loom {
namespace settings {

#if defined(OPEN_MPI)
inline constexpr Flavor kBuildFlavor = Flavor::openmpi;
#elif defined(MPICH)
inline constexpr Flavor kBuildFlavor = Flavor::mpich;
#else
#error "include <mpi.h> (MPICH or Open MPI) before build_flavor.hpp"
#endif

}  // namespace settings
}  // namespace loom
