# Shared by the plot tests (sourced): finds a python3 with matplotlib (exit
# 77, skipped, without one), a temporary folder $tmp removed at exit, and
# fail/is_png.  Needs $script, the plotting script in scripts/.
if ! python=$(sh "$(dirname "$script")/python-with.sh" matplotlib); then
  echo "SKIP: no python3 with matplotlib (Debian: python3-matplotlib)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
is_png() { [ -s "$1" ] && [ "$(head -c 4 "$1" | tail -c 3)" = "PNG" ]; }
