# Extra runs of existing point-to-point and collective tests with the
# Loom-to-Loom protocol (docs/protocol.md) forced on for every size or
# turned off, labelled `l2l` (and `l2l_<variant>`) so they can be picked
# out: `ctest -L l2l`.  The default runs already use the protocol's own
# thresholds; these make its rarely reached paths (tiny messages, single
# copy and pipelined pulls) the common case.  Variants:
#   single     LOOM_L2L_MIN=0, LOOM_L2L_COLL_MIN=0, LOOM_SCHEME=single_copy
#   pipelined  LOOM_L2L_MIN=0, LOOM_L2L_COLL_MIN=0, LOOM_SCHEME=pipelined
#   off        LOOM_L2L=0 (the staged/system paths only)
#   arena_small  pipelined with a 256 KiB shared arena: larger packed copies
#                go to staging (read with cross-memory attach), smaller ones
#                to the arena (unpacked in place), mixed within one run
#   arena_off    pipelined without the arena (every copy read with CMA)
# LOOM_PROFILE=none keeps a user's profile from overriding the rules.
set(LOOM_L2L_VARIANT_single
    "LOOM_L2L=1;LOOM_L2L_MIN=0;LOOM_L2L_COLL_MIN=0;LOOM_SCHEME=single_copy;LOOM_PROFILE=none")
set(LOOM_L2L_VARIANT_pipelined
    "LOOM_L2L=1;LOOM_L2L_MIN=0;LOOM_L2L_COLL_MIN=0;LOOM_SCHEME=pipelined;LOOM_PROFILE=none")
set(LOOM_L2L_VARIANT_off "LOOM_L2L=0;LOOM_PROFILE=none")
set(LOOM_L2L_VARIANT_arena_small "${LOOM_L2L_VARIANT_pipelined};LOOM_L2L_ARENA=256K")
set(LOOM_L2L_VARIANT_arena_off "${LOOM_L2L_VARIANT_pipelined};LOOM_L2L_ARENA=0")

# loom_l2l_variant(<base test name> <variant> LABELS <labels...>
#                  ENV <environment...> TIMEOUT <s> COMMAND <command...>)
# adds test <base>_l2l_<variant>: the command under the base environment
# plus the variant's settings (mpiexec passes the environment to the ranks).
function(loom_l2l_variant base variant)
  cmake_parse_arguments(V "" "TIMEOUT" "LABELS;ENV;COMMAND" ${ARGN})
  if(NOT DEFINED LOOM_L2L_VARIANT_${variant})
    message(FATAL_ERROR "unknown Loom-to-Loom test variant ${variant}")
  endif()
  set(name ${base}_l2l_${variant})
  set(labels ${V_LABELS} l2l l2l_${variant})
  add_test(NAME ${name} COMMAND ${V_COMMAND})
  set_tests_properties(${name} PROPERTIES
    LABELS "${labels}"
    ENVIRONMENT "${V_ENV};${LOOM_L2L_VARIANT_${variant}}"
    TIMEOUT ${V_TIMEOUT})
endfunction()
