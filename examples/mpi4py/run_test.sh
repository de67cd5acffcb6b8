#!/bin/sh
# ctest driver for exchange.py, an unmodified mpi4py program.
#
#   run_test.sh exchange FLAVOR MPIEXEC NPROCS [LIBLOOM_MPI]
#     runs exchange.py on NPROCS ranks (it checks its own data).  With
#     LIBLOOM_MPI (the drop-in for FLAVOR) preloaded in every rank and
#     LOOM_VERBOSE=1, also checks that Loom mirrored every derived type the
#     program committed (a "loom[R]: datatype ...: size S extent E plan"
#     note matching each "rank R: type NAME size S extent E" line of
#     --show-types) and fell back to the system MPI for none.
#   run_test.sh wrong-mpi FLAVOR LIBLOOM_MPI
#     preloads the drop-in for FLAVOR into exchange.py when mpi4py is built
#     for the other MPI: the process must stop with Loom's one-line error
#     naming the right library, exit status 1, no crash.
#
# Skipped (exit 77) when no python3 has mpi4py and numpy (Debian:
# python3-mpi4py python3-numpy), or when mpi4py is built for another MPI
# than the mode needs (Debian's is built for its default MPI only).
set -u
mode=$1 flavor=$2
here=$(dirname "$0")
program=$here/exchange.py

if ! python=$(sh "$here/../../scripts/python-with.sh" mpi4py numpy); then
  echo "SKIP: no python3 with mpi4py and numpy (Debian: python3-mpi4py python3-numpy)"
  exit 77
fi
# The MPI that mpi4py's extension module links (importing mpi4py alone does
# not start MPI).
module=$("$python" -c 'import importlib.util as u; print(u.find_spec("mpi4py.MPI").origin)')
case $(ldd "$module") in
  *libmpi.so.40*) built_for=openmpi ;;
  *libmpich.so*|*libmpi.so.12*) built_for=mpich ;;
  *) built_for=unknown ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

case $mode in
exchange)
  mpiexec=$3 nprocs=$4 lib=${5:-}
  if [ "$built_for" != "$flavor" ]; then
    echo "SKIP: $python's mpi4py is built for $built_for, not $flavor ($module)"
    exit 77
  fi
  if [ -n "$lib" ]; then
    "$mpiexec" -n "$nprocs" env LD_PRELOAD="$lib" LOOM_VERBOSE=1 \
      "$python" "$program" --show-types >"$tmp/out" 2>"$tmp/err"
  else
    "$mpiexec" -n "$nprocs" "$python" "$program" --show-types >"$tmp/out" 2>"$tmp/err"
  fi
  rc=$?
  [ $rc -eq 0 ] || fail "exit status $rc"
  oks=$(grep -ac "^rank [0-9]* of $nprocs: ok" "$tmp/out")
  [ "$oks" -eq "$nprocs" ] || fail "$oks of $nprocs ranks say ok"
  types=$(grep -ac "^rank [0-9]*: type " "$tmp/out")
  # 4 types of the point-to-point parts, 2 per peer in Alltoallw, per rank.
  [ "$types" -eq $((nprocs * (4 + 2 * nprocs))) ] || fail "$types type lines"
  if [ -n "$lib" ]; then
    mirrored=0
    sed -n 's/^rank \([0-9]*\): type \(.*\) size \([0-9]*\) extent \([0-9]*\)$/\1 \3 \4 \2/p' \
      "$tmp/out" >"$tmp/types"
    while read -r r size extent name; do
      if grep -aq "^loom\[$r\]: datatype 0x[0-9a-f]*: size $size extent $extent plan " "$tmp/err"; then
        mirrored=$((mirrored + 1))
      else
        fail "rank $r: no Loom note for type $name (size $size extent $extent)"
      fi
    done <"$tmp/types"
    echo "Loom mirrored $mirrored derived types in $nprocs ranks"
    complaints=$(grep -a "^loom" "$tmp/err" | grep "falling back\|no staging\|failed\|warning\|error")
    [ -z "$complaints" ] || fail "Loom fell back or complained: $complaints"
  fi
  ;;
wrong-mpi)
  lib=$3
  if [ "$built_for" = "$flavor" ] || [ "$built_for" = unknown ]; then
    echo "SKIP: $python's mpi4py is built for $built_for, the drop-in's own MPI or an unknown one"
    exit 77
  fi
  # No launcher needed: Loom stops the process at MPI_Init, before any
  # launcher would be contacted.
  env LD_PRELOAD="$lib" "$python" "$program" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 1 ] || fail "exit status $rc, expected 1"
  expected="^loom: error: this program uses .*, but $(realpath "$lib") is Loom's drop-in for .*; use .* instead$"
  [ "$(grep -ac "$expected" "$tmp/err")" -eq 1 ] || fail "no single Loom error line"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "stderr is not just that line"
  [ ! -s "$tmp/out" ] || fail "the program went on"
  ;;
*)
  echo "usage: run_test.sh exchange|wrong-mpi ..." >&2
  exit 2
  ;;
esac

if [ $failures -ne 0 ]; then
  echo "--- stdout"; cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"
  exit 1
fi
cat "$tmp/out" "$tmp/err" | grep -av ": type \|: datatype "
echo "mpi4py $mode ($flavor${lib:+, drop-in preloaded}): OK"
