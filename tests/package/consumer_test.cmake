# Installs the build tree into a fresh prefix and builds examples/consumer
# against it twice, through the CMake package and through pkg-config, then
# runs what each built.  Run by ctest (tests/package/CMakeLists.txt):
#
#   cmake -DBUILD_DIR= -DWORK_DIR= -DCONSUMER= -DVERSION= -DLIBDIR= -DINCLUDEDIR=
#         -DFLAVORS=a,b -DTOOLS=a,b -DGENERATOR= -DC_COMPILER= -DMAKE=
#         -DPKG_CONFIG= -DMPIEXEC_<flavor>= -P consumer_test.cmake
#
# FLAVORS: the drop-ins built; TOOLS: the flavours whose CLI was built.
string(REPLACE "," ";" FLAVORS "${FLAVORS}")
string(REPLACE "," ";" TOOLS "${TOOLS}")
set(prefix ${WORK_DIR}/prefix)
string(REPLACE "." "\\." version_re "${VERSION}")
# Open MPI as root in a container, two ranks on any machine.
set(mpi_env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
            OMPI_MCA_btl_vader_single_copy_mechanism=none
            OMPI_MCA_rmaps_base_oversubscribe=1)

# Runs a command; fails the test unless it exits 0 and (with EXPECT) its
# output matches the regex.
function(run what)
  cmake_parse_arguments(R "" "EXPECT" "COMMAND" ${ARGN})
  execute_process(COMMAND ${R_COMMAND} OUTPUT_VARIABLE out ERROR_VARIABLE out
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${R_COMMAND}\n${out}")
  endif()
  if(R_EXPECT AND NOT out MATCHES "${R_EXPECT}")
    message(FATAL_ERROR "${what}: output does not match '${R_EXPECT}':\n${out}")
  endif()
  message(STATUS "ok: ${what}")
endfunction()

# The consumer's programs in DIR, as NAME-flavor for the MPI ones.
function(run_consumer how dir)
  run("${how}: matrix_column" COMMAND ${dir}/matrix_column EXPECT "column")
  foreach(flavor IN LISTS FLAVORS)
    # LOOM_VERBOSE makes the drop-in say it handled the vector type: proof
    # that the program's MPI calls reach Loom (linked, not preloaded).
    run("${how}: mpi_column_exchange-${flavor} under ${MPIEXEC_${flavor}}"
        COMMAND ${CMAKE_COMMAND} -E env ${mpi_env} LOOM_VERBOSE=1
                ${MPIEXEC_${flavor}} -n 2 ${dir}/mpi_column_exchange-${flavor}
        EXPECT "loom\\[[0-9]+\\]: datatype")
  endforeach()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
run("install into ${prefix}" COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# The installed tree.
set(expected ${INCLUDEDIR}/loom.h ${LIBDIR}/libloom.so ${LIBDIR}/libloom.so.${VERSION}
             ${LIBDIR}/cmake/Loom/LoomConfig.cmake
             ${LIBDIR}/cmake/Loom/LoomConfigVersion.cmake
             ${LIBDIR}/pkgconfig/loom.pc)
foreach(flavor IN LISTS FLAVORS)
  list(APPEND expected ${LIBDIR}/loom/${flavor}/libloom-mpi.so
                       ${LIBDIR}/pkgconfig/loom-mpi-${flavor}.pc)
endforeach()
foreach(flavor IN LISTS TOOLS)
  list(APPEND expected bin/loom-${flavor})
endforeach()
foreach(f IN LISTS expected)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${prefix}/${f}")
  endif()
endforeach()
list(LENGTH expected n)
message(STATUS "ok: ${n} expected files installed")
foreach(flavor IN LISTS TOOLS)
  run("bin/loom-${flavor} --version" COMMAND ${prefix}/bin/loom-${flavor} --version
      EXPECT "^loom ${version_re} \\(${flavor}\\)")
endforeach()

# Through the CMake package.
set(cm ${WORK_DIR}/cmake)
run("configure the consumer (find_package)"
    COMMAND ${CMAKE_COMMAND} -S ${CONSUMER} -B ${cm} -G ${GENERATOR}
            -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${prefix}
    EXPECT "Found Loom ${version_re} ")
run("build the consumer (find_package)" COMMAND ${CMAKE_COMMAND} --build ${cm})
run_consumer("find_package" ${cm})

# Through pkg-config.
set(pc ${WORK_DIR}/pkg-config)
file(MAKE_DIRECTORY ${pc})
set(pc_env PKG_CONFIG_PATH=${prefix}/${LIBDIR}/pkgconfig)
run("pkg-config --modversion loom"
    COMMAND ${CMAKE_COMMAND} -E env ${pc_env} ${PKG_CONFIG} --modversion loom
    EXPECT "^${version_re}\n")
run("build the consumer (pkg-config)"
    COMMAND ${CMAKE_COMMAND} -E env ${pc_env} CC=${C_COMPILER}
            ${MAKE} -C ${pc} -f ${CONSUMER}/Makefile)
run_consumer("pkg-config" ${pc})
