#!/bin/sh
# Prints the first python3 that can import every module named on the
# command line and exits 0, or exits 1 when there is none:
#   python-with.sh matplotlib        (scripts/plot_bench.py)
#   python-with.sh mpi4py numpy      (examples/mpi4py/)
# The Debian interpreter is tried second: a python3 earlier on PATH (pyenv,
# a virtual environment) may lack Debian's python3-* packages.
# Importing mpi4py does not start MPI (mpi4py.MPI would).
[ $# -gt 0 ] || { echo "usage: python-with.sh MODULE..." >&2; exit 2; }
imports=$(printf 'import %s;' "$@")
for py in python3 /usr/bin/python3; do
  if "$py" -c "$imports" >/dev/null 2>&1; then
    echo "$py"
    exit 0
  fi
done
exit 1
