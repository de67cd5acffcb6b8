#!/bin/sh
# `loom bench pack --progress` prints a line per case on stderr and nothing
# of it on stdout (the result tables); `--quiet` prints nothing on stderr.
#   progress_test.sh LOOM_EXE
set -u
loom=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$loom" bench pack --quick --case '^Vector' --progress >"$tmp/out" 2>"$tmp/err" ||
  fail "bench pack --progress exited $?"
grep -q 'loom bench pack: case 1/2 Vector (FLOAT)' "$tmp/err" || fail "no line for case 1 on stderr"
grep -q 'loom bench pack: case 2/2 Vector (DOUBLE)' "$tmp/err" || fail "no line for case 2 on stderr"
grep -q 'loom bench pack: 2 cases in' "$tmp/err" || fail "no closing line on stderr"
grep -q 'elapsed' "$tmp/out" && fail "progress on stdout"
grep -q 'verification: all 2 cases' "$tmp/out" || fail "no result table on stdout"

"$loom" bench pack --quick --case '^Vector' --quiet >"$tmp/out" 2>"$tmp/err" ||
  fail "bench pack --quiet exited $?"
[ -s "$tmp/err" ] && fail "--quiet printed on stderr: $(cat "$tmp/err")"

"$loom" bench pack --quiet --progress >"$tmp/out" 2>&1 && fail "--quiet --progress accepted"
echo "progress: OK"
