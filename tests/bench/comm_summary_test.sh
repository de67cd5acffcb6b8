#!/bin/sh
# The JSON of `loom bench p2p` and `loom bench coll` read back by
# `loom bench summary`, and their CSV headers: the files the --quick smoke
# tests (loom_bench_{p2p,coll}_quick_<flavor>) wrote.
#   comm_summary_test.sh LOOM_EXE P2P_JSON P2P_CSV COLL_JSON COLL_CSV
set -u
loom=$1 p2p=$2 p2p_csv=$3 coll=$4 coll_csv=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$loom" bench summary "$p2p" "$coll" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "summary exited $rc: $(cat "$tmp/err")"
for line in 'p2p round trip: DDTBench' 'p2p round trip: all' 'p2p bandwidth: all' 'coll: all'; do
  grep -Eq "^$line +(mpich|openmpi) .* ok +drop-in$" "$tmp/out" || fail "no line '$line'"
done
header='suite,flavor,mpi,host,date,git_commit,table,group,case,bytes,contender,reps,sample,seconds'
for csv in "$p2p_csv" "$coll_csv"; do
  [ "$(head -n 1 "$csv")" = "$header" ] || fail "$csv: header $(head -n 1 "$csv")"
  [ "$(wc -l <"$csv")" -gt 1 ] || fail "$csv: no samples"
done
cat "$tmp/out"
[ $failures -eq 0 ] || exit 1
echo "comm summary: OK"
