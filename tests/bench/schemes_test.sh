#!/bin/sh
# `loom bench p2p --sgrs --schemes` and `loom bench coll --schemes` (one
# repeat, quick): every run verified, one merged schema-1 document whose
# rows carry every forced scheme as a measured contender beside Loom, MPI,
# hand and bound, and scripts/plot_sgrs.py drawing the p2p document (the
# plot part is skipped without a python3 with matplotlib), and
# scripts/bench_targets.py reading both.
#   schemes_test.sh LOOM_EXE PLOT_SGRS_SCRIPT (bench_targets.py beside it)
set -u
loom=$1 script=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Every row of FILE has the contenders Loom MPI hand bound and $2..., measured.
check_json() {
  python3 - "$@" <<'PY' || fail "$1: merged JSON"
import json, sys
doc = json.load(open(sys.argv[1]))
want = ["Loom", "MPI", "hand", "bound"] + sys.argv[2:]
assert doc["schema"] == 1, doc.get("schema")
assert doc["run"]["schemes"]["forced"] == sys.argv[2:], doc["run"]["schemes"]
for t in doc["tables"]:
    assert t["contenders"] == want, t["contenders"]
    assert t["rows"], t["key"]
    for r in t["rows"]:
        assert r["verified"], r["name"]
        for w in want:
            c = r["contenders"][w]
            assert c is not None and c["median_s"] > 0, (r["name"], w)
assert len(doc["summary"]) == len(doc["tables"])
print(sys.argv[1], "ok:", len(doc["tables"]), "tables,", want)
PY
}

"$loom" bench p2p --sgrs --quick --schemes --repeats 1 --json "$tmp/sgrs.json" >"$tmp/out" 2>&1 ||
  fail "bench p2p --schemes exited $?"
cat "$tmp/out"
grep -q "verification: all contenders of all runs matched" "$tmp/out" || fail "p2p: no verification line"
grep -q "single/b" "$tmp/out" || fail "p2p: no single_copy/bound column"
check_json "$tmp/sgrs.json" staged single_copy per_block pipelined

"$loom" bench coll --quick --schemes --repeats 1 --case 'halo.*x' --json "$tmp/coll.json" >"$tmp/out" 2>&1 ||
  fail "bench coll --schemes exited $?"
cat "$tmp/out"
check_json "$tmp/coll.json" staged system

# The issue's targets from both documents (scripts/bench_targets.py).
targets=$(dirname "$script")/bench_targets.py
python3 "$targets" "$tmp/sgrs.json" "$tmp/coll.json" >"$tmp/targets" || fail "bench_targets.py exited $?"
cat "$tmp/targets"
grep -q "vectors >= 512 B blocks" "$tmp/targets" || fail "bench_targets.py: no vector line"
grep -q "3D halo: geomean" "$tmp/targets" || fail "bench_targets.py: no halo line"
python3 "$targets" "$tmp/missing.json" 2>/dev/null
[ $? -eq 2 ] || fail "bench_targets.py: a missing file is not refused with exit code 2"

if python=$(sh "$(dirname "$script")/python-with.sh" matplotlib); then
  "$python" "$script" "$tmp/sgrs.json" >/dev/null || fail "plot_sgrs.py exited $?"
  [ "$(head -c 4 "$tmp/sgrs.png" | tail -c 3)" = "PNG" ] || fail "no PNG next to the JSON"
  "$python" "$script" "$tmp/coll.json" 2>/dev/null
  [ $? -eq 2 ] || fail "a coll document is not refused with exit code 2"
else
  echo "no python3 with matplotlib: plot not checked"
fi
[ "$failures" -eq 0 ]
