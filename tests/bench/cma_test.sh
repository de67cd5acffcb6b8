#!/bin/sh
# `loom bench cma --quick`: every scheme verified against the reference, a
# JSON document of suite cma, and scripts/plot_cma.py turning it into a PNG
# next to it (the plot part is skipped without a python3 with matplotlib).
#   cma_test.sh LOOM_EXE PLOT_SCRIPT
set -u
loom=$1 script=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$loom" bench cma --quick --json "$tmp/cma.json" >"$tmp/out" 2>&1 || fail "bench cma exited $?"
cat "$tmp/out"
grep -q "verification: all schemes match" "$tmp/out" || fail "no verification line"
grep -q '"suite": "cma"' "$tmp/cma.json" || fail "no cma JSON"
if python=$(sh "$(dirname "$script")/python-with.sh" matplotlib); then
  "$python" "$script" "$tmp/cma.json" >/dev/null || fail "plot_cma.py exited $?"
  [ "$(head -c 4 "$tmp/cma.png" | tail -c 3)" = "PNG" ] || fail "no PNG next to the JSON"
  "$python" "$script" "$tmp/missing.json" 2>/dev/null
  [ $? -eq 2 ] || fail "a missing file is not refused with exit code 2"
else
  echo "no python3 with matplotlib: plot not checked"
fi
[ "$failures" -eq 0 ]
