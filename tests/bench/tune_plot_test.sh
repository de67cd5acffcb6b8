#!/bin/sh
# scripts/plot_tune.py on the profile of the `loom tune --quick` smoke test:
# a PNG appears next to the JSON; a missing file and a file that is not a
# profile are refused with exit code 2.  Skipped (exit 77) without a python3
# with matplotlib.
#   tune_plot_test.sh PLOT_SCRIPT PROFILE_JSON
set -u
script=$1 profile=$2
. "$(dirname "$0")/plot_common.sh"

cp "$profile" "$tmp/profile.json"
"$python" "$script" "$tmp/profile.json" >"$tmp/out" 2>"$tmp/err" ||
  fail "plot_tune.py exited $?: $(cat "$tmp/err")"
is_png "$tmp/profile.png" || fail "no profile.png: $(cat "$tmp/out" "$tmp/err")"

"$python" "$script" "$tmp/missing.json" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "missing file: exit code $rc, expected 2"
grep -q "missing.json: cannot open" "$tmp/err" || fail "missing file: $(cat "$tmp/err")"
printf '{"schema": 1, "grid": {"mean_run": [8], "bytes": [4096]}, "schemes": {"fast": [[1]]}}' \
  >"$tmp/bad.json"
"$python" "$script" "$tmp/bad.json" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "unknown scheme: exit code $rc, expected 2"
grep -q "bad.json: scheme 'fast'" "$tmp/err" || fail "unknown scheme: $(cat "$tmp/err")"

[ $failures -eq 0 ] || exit 1
echo "plot_tune: OK"
