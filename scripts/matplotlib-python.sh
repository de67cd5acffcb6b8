#!/bin/sh
# Prints the first python3 that can import matplotlib (what
# scripts/plot_bench.py needs) and exits 0, or exits 1 when there is none.
# The Debian interpreter is tried second: a python3 earlier on PATH (pyenv,
# a virtual environment) may lack Debian's python3-matplotlib.
for py in python3 /usr/bin/python3; do
  if "$py" -c 'import matplotlib' >/dev/null 2>&1; then
    echo "$py"
    exit 0
  fi
done
exit 1
