#!/bin/sh
# scripts/plot_bench.py on small JSON files: a `loom bench pack --quick` run
# of two cases (and the p2p smoke test's JSON when given) become PNG files;
# a missing file and a file without a schema version are refused with exit
# code 2.  Skipped (exit 77) when no python3 with matplotlib is installed.
#   plot_test.sh LOOM_EXE PLOT_SCRIPT [P2P_JSON]
set -u
loom=$1 script=$2 p2p=${3:-}
. "$(dirname "$0")/plot_common.sh"

"$loom" bench pack --quick --quiet --case '^Vector' --json "$tmp/pack.json" >/dev/null 2>&1 ||
  fail "bench pack exited $?"
flavor=$(sed -n 's/^ *"flavor": "\(.*\)",*$/\1/p' "$tmp/pack.json" | head -n 1)
"$python" "$script" -o "$tmp/png" "$tmp/pack.json" $p2p >"$tmp/out" 2>"$tmp/err" ||
  fail "plot_bench.py exited $?: $(cat "$tmp/err")"
is_png "$tmp/png/bench-pack-$flavor.png" || fail "no bench-pack-$flavor.png: $(cat "$tmp/out" "$tmp/err")"
if [ -n "$p2p" ]; then
  ls "$tmp"/png/bench-p2p-rtt-*.png >/dev/null 2>&1 || fail "no p2p round-trip plot"
  for f in "$tmp"/png/bench-p2p-*.png; do is_png "$f" || fail "$f is not a PNG"; done
fi

"$python" "$script" -o "$tmp/png" "$tmp/missing.json" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "missing file: exit code $rc, expected 2"
grep -q "missing.json: cannot open" "$tmp/err" || fail "missing file: $(cat "$tmp/err")"
printf '{"tool": "loom bench pack", "cases": []}' >"$tmp/old.json"
"$python" "$script" -o "$tmp/png" "$tmp/old.json" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "file without a schema: exit code $rc, expected 2"
grep -q 'old.json: no "schema" field' "$tmp/err" || fail "file without a schema: $(cat "$tmp/err")"

[ $failures -eq 0 ] || exit 1
echo "plot: OK"
