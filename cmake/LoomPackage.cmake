# Installation (cmake --install build --prefix DIR; make install PREFIX=DIR):
#
#   include/loom.h                      the C API
#   lib/libloom.so.X.Y.Z, .so.SOVERSION, .so
#   lib/loom/<flavor>/libloom-mpi.so    the drop-in for that MPI (mpich, openmpi)
#   bin/loom-<flavor>                   the CLI built against that MPI
#   lib/cmake/Loom/                     find_package(Loom [COMPONENTS <flavor>...]):
#                                       Loom::loom, Loom::mpi_<flavor>
#   lib/pkgconfig/loom.pc               the C API
#   lib/pkgconfig/loom-mpi-<flavor>.pc  the drop-in, ahead of that MPI
#
# The drop-ins share one file name (what LD_PRELOAD and -lloom-mpi expect)
# in a directory per MPI; the CLIs, one directory, get the MPI in the name.
# Everything is relocatable: the CMake package and the .pc files find the
# prefix from their own location.
include(CMakePackageConfigHelpers)
set(LOOM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Loom)
set(LOOM_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(TARGETS loom EXPORT LoomTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/loom.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

foreach(flavor IN LISTS LOOM_MPI_FLAVORS)
  set(dropin loom_mpi_${flavor})
  # An MPI outside the loader's default path (Debian's Open MPI) stays
  # reachable from the installed files.
  set_target_properties(${dropin} PROPERTIES
    EXPORT_NAME mpi_${flavor} INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS ${dropin} EXPORT LoomTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/loom/${flavor})
  if(TARGET loom_cli_${flavor})
    # Renamed on the way (the build tree keeps build/<flavor>/loom).  Its
    # build RPATH names only the MPI's library directory (the Loom
    # libraries it links are static), which is what the copy needs too.
    install(PROGRAMS $<TARGET_FILE:loom_cli_${flavor}>
            DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME loom-${flavor})
  endif()
endforeach()

install(EXPORT LoomTargets NAMESPACE Loom:: DESTINATION ${LOOM_CMAKE_DIR})
# LoomConfig.cmake finds each flavour's MPI again through pkg-config.
set(LOOM_MPI_PCS "")
foreach(flavor IN LISTS LOOM_MPI_FLAVORS)
  list(APPEND LOOM_MPI_PCS ${LOOM_MPI_PC_${flavor}})
endforeach()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/LoomConfig.cmake.in
  ${PROJECT_BINARY_DIR}/LoomConfig.cmake INSTALL_DESTINATION ${LOOM_CMAKE_DIR})
# 0.x minor versions may break the API (as the SOVERSION says).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(compat SameMinorVersion)
else()
  set(compat SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/LoomConfigVersion.cmake
  COMPATIBILITY ${compat})
install(FILES ${PROJECT_BINARY_DIR}/LoomConfig.cmake
              ${PROJECT_BINARY_DIR}/LoomConfigVersion.cmake
        DESTINATION ${LOOM_CMAKE_DIR})

# pkg-config: prefix relative to the .pc file (${pcfiledir}), unless the
# install directories were given as absolute paths.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(LOOM_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH rel /prefix/${LOOM_PC_DIR} /prefix)
  string(REGEX REPLACE "/$" "" rel "${rel}")
  set(LOOM_PC_PREFIX "\${pcfiledir}/${rel}")
endif()
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(LOOM_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(LOOM_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/loom.pc.in
               ${PROJECT_BINARY_DIR}/pkgconfig/loom.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/loom.pc DESTINATION ${LOOM_PC_DIR})
foreach(flavor IN LISTS LOOM_MPI_FLAVORS)
  set(LOOM_PC_FLAVOR ${flavor})
  set(LOOM_PC_MPI ${LOOM_MPI_PC_${flavor}})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/loom-mpi.pc.in
                 ${PROJECT_BINARY_DIR}/pkgconfig/loom-mpi-${flavor}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/loom-mpi-${flavor}.pc
          DESTINATION ${LOOM_PC_DIR})
endforeach()
