#!/bin/sh
# Runs Loom's benchmark suites for each MPI flavour and prints one summary
# table at the end:
#   pack  `loom bench pack`: Loom's native engine against a hand loop, the
#         system MPI's MPI_Pack/MPI_Unpack (through PMPI) and memcpy;
#   p2p   `loom bench p2p` on 2 ranks with libloom-mpi.so preloaded: round
#         trips and bandwidth of the DDTBench layouts and a vector sweep;
#   coll  `loom bench coll` on 2 ranks, preloaded: FFT2D transposes
#         (Alltoall, Alltoallw) and 3D halos (Neighbor_alltoallw).
#
#   scripts/bench.sh [BUILD_DIR] [options for every suite...]
#
# BUILD_DIR defaults to ./build (what `make build` produces).  Options go to
# each `loom bench` run (--quick, --stat min, --reps N, --budget S, ...).
# LOOM_BENCH_SUITES (default "pack p2p coll") and LOOM_BENCH_FLAVORS
# (default "openmpi mpich") choose what runs.  LOOM_BENCH_SCHEMES=1 runs p2p
# and coll with --schemes (the drop-in's transfer schemes as contenders: one
# launch per forced scheme and repeat, merged; docs/benchmarks.md), about six
# times as long.  Results go to
# BUILD_DIR/bench-<suite>-<flavor>.json and .csv (every sample; format in
# docs/benchmarks.md); the summary is also written to
# BUILD_DIR/bench-summary.txt, and, when python3-matplotlib is installed,
# scripts/plot_bench.py draws PNGs into LOOM_BENCH_PLOT_DIR (default
# BUILD_DIR/bench-plots).  Each suite reports its progress on stderr.  About
# 4 minutes in all on a quiet 2-core machine (pack 2 x 30 s, p2p 2 x 45 s,
# coll 2 x 15 s).
set -eu

build=${1:-build}
[ $# -gt 0 ] && shift

# Open MPI refuses to run as root without these (harmless for MPICH).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Containers often forbid the ptrace-based single-copy mechanism.
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
# Each rank is bound to a core of its own (MPI ranks poll: two that share a
# core wait for each other's time slices).  Two ranks on a one-core machine
# still run (slowly).
if [ "$(nproc 2>/dev/null || echo 2)" -lt 2 ]; then
  export OMPI_MCA_rmaps_base_oversubscribe=1
fi

suites=${LOOM_BENCH_SUITES:-pack p2p coll}
flavors=${LOOM_BENCH_FLAVORS:-openmpi mpich}
plot_dir=${LOOM_BENCH_PLOT_DIR:-$build/bench-plots}

status=0
jsons=""
summary_exe=""
for suite in $suites; do
  for flavor in $flavors; do
    exe="$build/$flavor/loom"
    lib="$(cd "$build/$flavor" 2>/dev/null && pwd)/libloom-mpi.so"
    json="$build/bench-$suite-$flavor.json"
    csv="$build/bench-$suite-$flavor.csv"
    if [ ! -x "$exe" ]; then
      echo "bench.sh: $exe not found; run 'make build' first" >&2
      status=1
      continue
    fi
    summary_exe=$exe
    echo "================================ $suite: $flavor ================================"
    rm -f "$json" "$csv"
    case $suite in
      pack)
        "$exe" bench pack --json "$json" --csv "$csv" "$@" || status=1
        ;;
      p2p|coll)
        if [ ! -f "$lib" ]; then
          echo "bench.sh: $lib not found; run 'make build' first" >&2
          status=1
          continue
        fi
        if [ "${LOOM_BENCH_SCHEMES:-0}" = 1 ]; then
          # The tool launches its runs itself.
          "$exe" bench "$suite" --schemes --json "$json" --csv "$csv" "$@" || status=1
        else case $flavor in
          openmpi)
            mpiexec.openmpi --bind-to core -n 2 -x LD_PRELOAD="$lib" \
              "$exe" bench "$suite" --json "$json" --csv "$csv" "$@" || status=1
            ;;
          *)
            "mpiexec.$flavor" -bind-to core -n 2 env LD_PRELOAD="$lib" \
              "$exe" bench "$suite" --json "$json" --csv "$csv" "$@" || status=1
            ;;
        esac; fi
        ;;
      *)
        echo "bench.sh: unknown suite '$suite' (pack, p2p, coll)" >&2
        status=1
        continue
        ;;
    esac
    [ -f "$json" ] && jsons="$jsons $json"
    echo
  done
done

[ -n "$jsons" ] || exit 1
echo "================================ summary ================================"
# shellcheck disable=SC2086
"$summary_exe" bench summary $jsons | tee "$build/bench-summary.txt"

# Plots, when a python3 with matplotlib is installed.
if python=$(sh "$(dirname "$0")/python-with.sh" matplotlib); then
  echo "plots (scripts/plot_bench.py) in $plot_dir:"
  # shellcheck disable=SC2086
  "$python" "$(dirname "$0")/plot_bench.py" -o "$plot_dir" $jsons || status=1
else
  echo "bench.sh: no plots: python3-matplotlib is not installed (scripts/install-deps.sh)" >&2
fi
exit $status
