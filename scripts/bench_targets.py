#!/usr/bin/env python3
"""The Loom-to-Loom issue's speed targets, from the JSON of
`loom bench p2p --schemes` and `loom bench coll --schemes` (schema 1,
docs/benchmarks.md; plain `loom bench p2p|coll` files work too, without the
scheme columns).  Round trips and collective calls, medians:

  DDTBench       geometric mean of Loom / contiguous bound       (target <= 1.4)
  DDTBench       per layout Loom / min(hand, MPI)                (target <= 1.05)
  vector sweep   Loom / bound, blocks >= 512 B, messages >= 32 KiB (target <= 1.2)
  FFT2D, halo    Loom / the contiguous collective                (reported)

For each, the best forced scheme (the fastest scheme column of each case)
is shown beside Loom as selected: what a perfect selection would reach.

  scripts/bench_targets.py FILE.json...

Prints a Markdown table per file.  Exit status 0, 2 when a file is unusable.
"""

import json
import math
import re
import sys

BASE = ["Loom", "MPI", "hand", "bound"]


def med(row, who):
    c = row["contenders"].get(who)
    return None if c is None else c["median_s"]


def gm(v):
    v = [x for x in v if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")


def best_scheme(row, schemes):
    """(time, name) of the fastest forced scheme, or (None, None)."""
    t = [(med(row, s), s) for s in schemes if med(row, s)]
    return min(t) if t else (None, None)


def block_and_message(row):
    """Block bytes and message bytes of a vector-sweep or SGRS case, else None."""
    m = re.match(r"vec (\d+)(B|KiB|MiB) ", row["name"])
    if m:
        return int(m.group(1)) * {"B": 1, "KiB": 1024, "MiB": 1 << 20}[m.group(2)], row["bytes"]
    m = re.match(r"sgrs M=\d+ (\d+) cols", row["name"])
    if m:
        return int(m.group(1)) * 4, row["bytes"]
    return None


def report(doc, name):
    run = doc["run"]
    schemes = [c for c in doc["tables"][0]["contenders"] if c not in BASE]
    load = run["machine"]["load_start"], run["machine"]["load_end"]
    print(f"### {doc['tool']} ({run['mpi']['name']}, {run['date']}, load {load[0]} -> {load[1]})\n")
    print(f"file {name}; forced schemes: {', '.join(schemes) or 'none'}\n")
    print("| target | cases | Loom (selected) | best scheme per case | target | met |")
    print("|---|---|---|---|---|---|")
    rows = [r for t in doc["tables"] if t["key"] in ("rtt", "coll") for r in t["rows"]
            if "error" not in r and med(r, "Loom") and med(r, "bound")]

    def line(label, sel, target, agg, cmp_to="bound"):
        if not sel:
            return
        lo = [med(r, "Loom") / med(r, cmp_to) for r in sel]
        bs = [best_scheme(r, schemes)[0] for r in sel]
        bo = [b / med(r, cmp_to) for b, r in zip(bs, sel) if b]
        a, b = agg(lo), (agg(bo) if bo else float("nan"))
        met = "" if target is None else ("yes" if a <= target else "no")
        print(f"| {label} | {len(sel)} | {a:.2f} | {b:.2f} | "
              f"{'' if target is None else f'<= {target}'} | {met} |")

    ddt = [r for r in rows if r["group"] == "DDTBench"]
    line("DDTBench: geomean Loom / bound", ddt, 1.4, gm)
    if ddt:
        worst = []
        for r in ddt:
            ref = min(x for x in (med(r, "hand"), med(r, "MPI")) if x)
            worst.append((med(r, "Loom") / ref, r["name"]))
        above = [f"{n} {v:.2f}" for v, n in sorted(worst, reverse=True) if v > 1.05]
        print(f"| DDTBench: per layout Loom / min(hand, MPI), worst | {len(ddt)} | "
              f"{max(worst)[0]:.2f} ({max(worst)[1]}) | | <= 1.05 | "
              f"{'yes' if not above else 'no: ' + ', '.join(above)} |")
    vec = [r for r in rows if block_and_message(r) and block_and_message(r)[0] >= 512
           and block_and_message(r)[1] >= 32768]
    if vec:
        line("vectors >= 512 B blocks, >= 32 KiB: max Loom / bound", vec, 1.2, max)
        line("vectors >= 512 B blocks, >= 32 KiB: geomean Loom / bound", vec, None, gm)
    for group in ("FFT2D transpose", "3D halo"):
        line(f"{group}: geomean Loom / contiguous collective", [r for r in rows if r["group"] == group],
             None, gm)
    print()


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) > 1 else 2
    status = 0
    for path in sys.argv[1:]:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            if doc.get("schema") != 1 or doc.get("suite") not in ("p2p", "coll"):
                raise ValueError("not a schema-1 p2p or coll document")
            report(doc, path)
        except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
            print(f"bench_targets.py: {path}: {type(e).__name__}: {e}", file=sys.stderr)
            status = 2
    return status


if __name__ == "__main__":
    sys.exit(main())
