#!/usr/bin/env python3
"""Instruction counts of `loom bench pack`'s operations, under callgrind.

Times on a shared 2-core VM move by a tenth between runs; instruction
counts do not, so a kernel change can be judged by them.  This runs
`loom bench pack --icount N` under valgrind's callgrind once per instruction
set, reads one dump per operation (case, direction, contender) and prints
instructions per operation, Loom's against the hand loop's.

Valgrind runs neither AVX-512 nor a build's -march=native code: the counts
come from a build of its own (build-icount: hand loops at -O3, no -march),
and Loom's kernels run the sets valgrind reports (AVX2 and the baseline).

    scripts/icount.py                        # every case, avx2 and baseline
    scripts/icount.py --case 'Indexed|LU y' --isa avx2 --json ic.json
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build(dirname):
    cli = os.path.join(dirname, "mpich", "loom")
    subprocess.run(["cmake", "-S", ROOT, "-B", dirname, "-G", "Ninja",
                    "-DCMAKE_BUILD_TYPE=Release", "-DLOOM_MPI=mpich",
                    "-DLOOM_NATIVE_HAND_LOOPS=OFF", "-DLOOM_BUILD_TESTS=OFF",
                    "-DLOOM_BUILD_EXAMPLES=OFF"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", dirname, "--target", "loom_cli_mpich"], check=True,
                   stdout=subprocess.DEVNULL)
    return cli


def counts(cli, isa, case, reps):
    """{(case, dir, contender): (instructions per operation, packed bytes)}"""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, LOOM_ISA=isa)
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
               "--callgrind-out-file=" + os.path.join(tmp, "cg.%p"), cli, "bench", "pack",
               "--icount", str(reps), "--case", case, "--quiet"]
        r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        if r.returncode != 0:
            sys.exit("icount: %s failed:\n%s" % (" ".join(cmd), r.stderr[-2000:]))
        for f in glob.glob(os.path.join(tmp, "cg.*")):
            desc, total = None, None
            with open(f) as fh:
                for line in fh:
                    m = re.match(r"desc: Trigger: Client Request: (loom-icount\|.*)", line)
                    if m:
                        desc = m.group(1).strip()
                    m = re.match(r"(?:summary|totals): (\d+)", line)
                    if m:
                        total = int(m.group(1))
            if not desc or total is None:
                continue
            _, name, direction, who, n, nbytes = desc.split("|")
            out[(name, direction, who)] = (total / int(n), int(nbytes))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", default=".*", help="cases (regex, as loom bench pack --case)")
    ap.add_argument("--isa", default="avx2,baseline", help="sets to count, comma-separated")
    ap.add_argument("--reps", type=int, default=3, help="operations counted per contender")
    ap.add_argument("--build", default=os.path.join(ROOT, "build-icount"),
                    help="build directory for the counting build")
    ap.add_argument("--json", help="also write the counts to this JSON file")
    a = ap.parse_args()
    cli = build(a.build)
    isas = a.isa.split(",")
    per_isa = {isa: counts(cli, isa, a.case, a.reps) for isa in isas}
    keys = sorted({(k[0], k[1]) for c in per_isa.values() for k in c},
                  key=lambda k: (k[1] != "pack", k[0]))
    head = "%-24s %-6s %10s" % ("case", "dir", "hand")
    for isa in isas:
        head += " | %10s %6s" % ("Loom " + isa, "L/hand")
    print("instructions per operation (callgrind); L/hand = Loom's count over the hand "
          "loop's (-O3, no -march)")
    print(head)
    rows = []
    for name, direction in keys:
        hand = per_isa[isas[0]].get((name, direction, "hand"), (0, 0))[0]
        line = "%-24s %-6s %10.0f" % (name[:24], direction, hand)
        row = {"case": name, "dir": direction, "hand": hand}
        for isa in isas:
            loom = per_isa[isa].get((name, direction, "Loom"), (0, 0))[0]
            line += " | %10.0f %6.2f" % (loom, loom / hand if hand else 0)
            row["loom_" + isa] = loom
        rows.append(row)
        print(line)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"isas": isas, "reps": a.reps, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
