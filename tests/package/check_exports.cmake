# cmake -DLIB=<shared library> -DPATTERN=<regex> -DNM=<nm>
#       [-DHEADER=<header>] [-DREADELF=<readelf> -DSONAME=<name>]
#       -P check_exports.cmake
#
# Fails when LIB exports (nm -D --defined-only) a symbol PATTERN does not
# match, or exports none; with HEADER, also unless the exported symbols are
# exactly the functions the header declares (declarations start at column 0:
# "<type> name(" ); with SONAME, unless that is the library's DT_SONAME.
foreach(v LIB PATTERN NM)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check_exports.cmake: -D${v}= is required")
  endif()
endforeach()

execute_process(COMMAND ${NM} -D --defined-only ${LIB}
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${LIB} failed (${rc})")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${out}")
set(exported "")
set(stray "")
foreach(line IN LISTS lines)
  string(REGEX MATCH "[^ ]+$" sym "${line}")
  list(APPEND exported ${sym})
  if(NOT sym MATCHES "${PATTERN}")
    list(APPEND stray ${sym})
  endif()
endforeach()
list(LENGTH exported n)
message(STATUS "${LIB}: ${n} exported symbols")
if(n EQUAL 0)
  message(FATAL_ERROR "${LIB} exports nothing")
endif()
if(stray)
  list(JOIN stray "\n  " stray)
  message(FATAL_ERROR "${LIB} exports symbols outside ${PATTERN}:\n  ${stray}")
endif()

if(DEFINED HEADER)
  file(STRINGS ${HEADER} decls REGEX "^[A-Za-z_][^(;{]*[ *][A-Za-z_][A-Za-z0-9_]*\\(")
  set(declared "")
  foreach(d IN LISTS decls)
    string(REGEX MATCH "([A-Za-z_][A-Za-z0-9_]*)\\(" _ "${d}")
    list(APPEND declared ${CMAKE_MATCH_1})
  endforeach()
  set(missing ${declared})
  list(REMOVE_ITEM missing ${exported})
  set(undeclared ${exported})
  list(REMOVE_ITEM undeclared ${declared})
  if(missing OR undeclared)
    message(FATAL_ERROR "${LIB} against ${HEADER}:\n"
                        "  declared, not exported: ${missing}\n"
                        "  exported, not declared: ${undeclared}")
  endif()
  list(LENGTH declared nd)
  message(STATUS "all ${nd} functions of ${HEADER} exported, nothing else")
endif()

if(DEFINED SONAME)
  execute_process(COMMAND ${READELF} -d ${LIB} OUTPUT_VARIABLE dyn RESULT_VARIABLE rc)
  string(REGEX MATCH "\\(SONAME\\)[^[]*\\[([^]]*)\\]" _ "${dyn}")
  if(NOT rc EQUAL 0 OR NOT CMAKE_MATCH_1 STREQUAL SONAME)
    message(FATAL_ERROR "${LIB}: SONAME '${CMAKE_MATCH_1}', expected '${SONAME}'")
  endif()
  message(STATUS "SONAME ${CMAKE_MATCH_1}")
endif()
