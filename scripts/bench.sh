#!/bin/sh
# Runs `loom bench pack` for each MPI flavour, one after the other, and prints
# their tables: Loom's native engine against a hand loop, the system MPI's own
# MPI_Pack/MPI_Unpack (through PMPI) and memcpy.
#
#   scripts/bench.sh [BUILD_DIR] [extra `loom bench pack` options...]
#
# BUILD_DIR defaults to ./build (what `make build` produces).  JSON results go
# to BUILD_DIR/bench-<flavor>.json.  Two flavours at about 30 s each.
set -eu

build=${1:-build}
[ $# -gt 0 ] && shift

# Open MPI refuses to run as root without these (harmless for MPICH).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A singleton needs no shared-memory single-copy mechanism (and containers
# often forbid the ptrace-based one).
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}

status=0
ran=0
for flavor in openmpi mpich; do
  exe="$build/$flavor/loom"
  if [ ! -x "$exe" ]; then
    echo "bench.sh: $exe not found; run 'make build' first" >&2
    status=1
    continue
  fi
  echo "================================ $flavor ================================"
  if ! "$exe" bench pack --json "$build/bench-$flavor.json" "$@"; then
    status=1
  fi
  ran=$((ran + 1))
  echo
done
[ "$ran" -gt 0 ] || exit 1
exit $status
