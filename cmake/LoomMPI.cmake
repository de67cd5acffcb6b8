# The MPI flavours the drop-in and the CLI are built for, found through
# pkg-config.  Sets LOOM_MPI_FLAVORS (those found, or those LOOM_MPI names)
# and, for each flavour:
#   LOOM_MPI_TARGET_<flavor>  the imported target of its C library
#   LOOM_MPI_PC_<flavor>      its pkg-config module (loom-mpi-<flavor>.pc requires it)
#   LOOM_MPIEXEC_<flavor>     its launcher
set(LOOM_MPI_KNOWN mpich openmpi)
set(LOOM_MPI_PC_mpich mpich)
set(LOOM_MPI_PC_openmpi ompi-c)
set(LOOM_MPIEXEC_mpich mpiexec.mpich)
set(LOOM_MPIEXEC_openmpi mpiexec.openmpi)

set(LOOM_MPI_FLAVORS "")
if(NOT LOOM_BUILD_MPI)
  return()
endif()

if(LOOM_MPI STREQUAL "auto")
  set(wanted ${LOOM_MPI_KNOWN})
  set(required FALSE)
else()
  set(wanted ${LOOM_MPI})
  set(required TRUE)
endif()

find_package(PkgConfig QUIET)
foreach(flavor IN LISTS wanted)
  if(NOT flavor IN_LIST LOOM_MPI_KNOWN)
    message(FATAL_ERROR "LOOM_MPI: unknown MPI flavour '${flavor}' (known: ${LOOM_MPI_KNOWN})")
  endif()
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(LOOM_PC_${flavor} QUIET IMPORTED_TARGET ${LOOM_MPI_PC_${flavor}})
  endif()
  if(LOOM_PC_${flavor}_FOUND)
    list(APPEND LOOM_MPI_FLAVORS ${flavor})
    set(LOOM_MPI_TARGET_${flavor} PkgConfig::LOOM_PC_${flavor})
  elseif(required)
    message(FATAL_ERROR "LOOM_MPI names ${flavor}, but pkg-config finds no "
                        "'${LOOM_MPI_PC_${flavor}}' module (install its -dev package)")
  endif()
endforeach()

if(LOOM_MPI_FLAVORS)
  message(STATUS "Loom: drop-in for ${LOOM_MPI_FLAVORS}")
else()
  message(WARNING "Loom: no MPI found through pkg-config (mpich, ompi-c); "
                  "building the C API only (LOOM_BUILD_MPI=OFF silences this)")
endif()
