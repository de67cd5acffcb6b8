#!/bin/sh
# The benchmark JSON schema end to end, on a small `loom bench pack` run:
# its JSON read back by `loom bench summary`, its CSV header and rows, and
# `loom bench summary` on bad input (a missing file, a directory, not JSON,
# another document, an old file without a schema version, an unknown
# version, fields of the wrong shape): exit code 2, the file and what is
# wrong on stderr, no table, never an abort.
#   summary_test.sh LOOM_EXE
set -u
loom=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# ------------------------------------------------------------- round trip
"$loom" bench pack --quick --quiet --case '^Vector' --json "$tmp/pack.json" \
  --csv "$tmp/pack.csv" >"$tmp/run.out" 2>&1 || fail "bench pack exited $?: $(cat "$tmp/run.out")"
"$loom" bench summary "$tmp/pack.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "summary of a fresh pack JSON exited $rc: $(cat "$tmp/err")"
grep -Eq '^pack \(Loom engine\) +(mpich|openmpi) +4 \|.* ok +loom_pack/unpack$' "$tmp/out" ||
  fail "summary line of the pack JSON: $(cat "$tmp/out")"
grep -q '"schema": 1' "$tmp/pack.json" || fail "no schema version in the JSON"
grep -q '"samples_s"' "$tmp/pack.json" || fail "no samples in the JSON"

# ------------------------------------------------------------------- CSV
header='suite,flavor,mpi,host,date,git_commit,table,group,case,bytes,contender,reps,sample,seconds'
[ "$(head -n 1 "$tmp/pack.csv")" = "$header" ] || fail "CSV header: $(head -n 1 "$tmp/pack.csv")"
# 2 cases x (4 pack + 4 unpack contenders) x 2 rounds (--quick) = 32 rows.
rows=$(($(wc -l <"$tmp/pack.csv") - 1))
[ "$rows" -eq 32 ] || fail "CSV has $rows sample rows, expected 32"
bad=$(awk -F, 'NR > 1 && (NF != 14 || $1 != "pack" || $14 !~ /^[0-9.e+-]+$/)' "$tmp/pack.csv" | head -n 1)
[ -z "$bad" ] || fail "CSV row of the wrong shape: $bad"

# ------------------------------------------------------------- bad input
# expect_bad FILE TEXT: summary exits 2, names FILE and TEXT on stderr,
# prints no table.
expect_bad() {
  "$loom" bench summary "$1" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] || fail "$1: exit code $rc, expected 2 ($(cat "$tmp/err"))"
  grep -qF "loom bench summary: $1: $2" "$tmp/err" || fail "$1: stderr lacks '$2': $(cat "$tmp/err")"
  [ -s "$tmp/out" ] && fail "$1: printed a table"
  return 0
}
expect_bad "$tmp/missing.json" "cannot open: No such file or directory"
expect_bad "$tmp" "cannot read: Is a directory"
printf 'nope' >"$tmp/text.json"
expect_bad "$tmp/text.json" "not JSON: parse error at line 1"
: >"$tmp/empty.json"
expect_bad "$tmp/empty.json" "not JSON: parse error at line 1, column 1"
printf '[1, 2]' >"$tmp/array.json"
expect_bad "$tmp/array.json" "not a loom bench JSON file"
printf '{"tool": "loom bench pack", "cases": []}' >"$tmp/old.json"
expect_bad "$tmp/old.json" 'no "schema" field: written by a loom bench older than schema version 1'
printf '{"schema": 99, "suite": "pack"}' >"$tmp/v99.json"
expect_bad "$tmp/v99.json" "schema version 99 is not supported (this loom reads version 1)"
sed 's/"suite": "pack"/"suite": "fft"/' "$tmp/pack.json" >"$tmp/suite.json"
expect_bad "$tmp/suite.json" 'suite: expected one of pack, p2p, coll, engine, found "fft"'
# The first "verified" is tables[0].rows[0]'s; the first "median_s" is that
# row's Loom contender's (keys are written in alphabetical order).
sed '0,/"verified": true/s//"verified": "yes"/' "$tmp/pack.json" >"$tmp/verified.json"
expect_bad "$tmp/verified.json" \
  "wrong shape: tables[0].rows[0].verified: expected true or false, found a string"
sed '0,/"median_s":/s//"median_s": "fast", "was":/' "$tmp/pack.json" >"$tmp/median.json"
expect_bad "$tmp/median.json" \
  "wrong shape: tables[0].rows[0].contenders.Loom.median_s: expected a number or null, found a string"
sed 's/"tables":/"tablez":/' "$tmp/pack.json" >"$tmp/tables.json"
expect_bad "$tmp/tables.json" "wrong shape: tables: missing"
sed 's/"rows":/"rows": {}, "was":/' "$tmp/pack.json" >"$tmp/rows.json"
expect_bad "$tmp/rows.json" "wrong shape: tables[0].rows: expected an array, found an object"

# One bad file among good ones: no table either.
"$loom" bench summary "$tmp/pack.json" "$tmp/missing.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "good + missing file: exit code $rc, expected 2"
[ -s "$tmp/out" ] && fail "good + missing file: printed a table"
grep -q "1 of 2 file(s) unusable" "$tmp/err" || fail "good + missing file: $(cat "$tmp/err")"

[ $failures -eq 0 ] || exit 1
echo "summary: OK"
