#!/usr/bin/env python3
"""Loom against hand loops on random small repeating patterns.

`loom bench pack` measures named layouts.  This measures unpublished ones,
as a user who hand-packs writes them: each pattern (k <= 16 runs of one to
four elements of 1, 2, 4 or 8 bytes, rising offsets, an extent a few
elements wider, repeated to about --size packed bytes) gets a pack and an
unpack loop with its offsets compiled in, built -O3 -march=native (and
-falign-loops=64, as Loom's kernels).  One driver builds the same layout
with loom_type_indexed/resized/contiguous, checks that Loom and the hand
loop give the same bytes (the stream, and the user buffer with its gaps
after unpacking), and times both, interleaved, 61 times with Loom first and
61 with the hand loop first (the second of a pair finds in cache what the
first read: at 64 KiB packed from a 1 MiB span, the hand loop packed
3.5x faster going second, 1.1x going first); per order medians, and the
geometric mean of the two orders' ratios.  Each unpacks its own packed
bytes, so that both pack into a buffer as recently read.  Below 64 KiB a
timing covers several calls in a row, 64 KiB in all: the clock of the VMs
here ticks in 10-20 ns, a fifth of a 2 KiB call.

    scripts/pattern_sweep.py                       # a fresh seed, 24 patterns, 1 MiB
    scripts/pattern_sweep.py --seed 7 --size 65536 --patterns 40
    scripts/pattern_sweep.py --shape blocks        # MPI_Type_vector's blocks
    scripts/pattern_sweep.py --seed 7 --runs 3 --alone --against /tmp/old/build   # a change
    LOOM_ISA=avx2 scripts/pattern_sweep.py --march x86-64-v3   # as on an AVX2-only CPU

Forcing a kernel set (LOOM_ISA) on a machine with more, give the hand loops
the same ISA (--march): against -march=native they would use instructions
that the forced set's CPU lacks.

A pattern's speed moves by up to a third between processes (where its
buffers land in the physically indexed caches) and with the patterns run
before it in the same process, so a comparison of two libraries
(--against) runs both in alternating processes, --runs times each, takes
each pattern's median, and with --alone gives each pattern a process of
its own.

Prints one line per pattern (hand time over Loom time: above 1, Loom is
faster), the geometric means and how many fall below 0.9.  Exit status 1
when any pattern's bytes differ.  Needs `make build` (build/src/core/libloom.so).
"""
import argparse
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TYPES = {1: ("uint8_t", "LOOM_BYTE"), 2: ("uint16_t", "LOOM_SHORT"),
         4: ("float", "LOOM_FLOAT"), 8: ("double", "LOOM_DOUBLE")}

DRIVER = r"""
#include <loom.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
static bool mismatch = false;
template <class T>
void run(int id, int es, loom_prim prim, std::vector<int64_t> off, std::vector<int64_t> bl,
         int64_t ext, int64_t per, int64_t n, void (*hp)(const T *, T *, int64_t),
         void (*hu)(const T *, T *, int64_t)) {
  loom_type pr, idx, res, t;
  loom_type_primitive(prim, &pr);
  loom_type_indexed((int64_t)off.size(), bl.data(), off.data(), pr, &idx);
  loom_type_resized(idx, 0, ext * es, &res);
  loom_type_contiguous(n, res, &t);
  loom_type_commit(t);
  const size_t ub = n * ext * es, pb = n * per * es;
  auto buf = [](size_t b) { return (char *)aligned_alloc(4096, (b + 4095) / 4096 * 4096); };
  char *u = buf(ub), *ul = buf(ub), *uh = buf(ub), *pl = buf(pb), *ph = buf(pb);
  for (size_t i = 0; i < ub; i++) u[i] = (char)(i * 131 + 7);
  std::memset(ul, 0x5A, ub);
  std::memset(uh, 0x5A, ub);
  size_t q = 0;
  loom_pack(u, 1, t, pl, pb, &q);
  hp((const T *)u, (T *)ph, n);
  q = 0;
  loom_unpack(ph, pb, &q, ul, 1, t);
  hu((const T *)ph, (T *)uh, n);
  const bool same = !std::memcmp(pl, ph, pb) && !std::memcmp(ul, uh, ub);
  if (!same) mismatch = true;
  // Per direction and order: the second of a pair reads what the first left
  // in cache (the user buffer when packing, the packed one when unpacking),
  // so Loom and the hand loop take turns going first and each order gets
  // its own medians; a pattern's ratio is the geometric mean of the two.
  // Each unpacks its own packed bytes (the same bytes, checked above), so
  // that both pack into a buffer as recently read.
  std::vector<double> L[2][2], H[2][2];
  auto timed = [](auto f) {
    const double t0 = now();
    f();
    return now() - t0;
  };
  // A sample is `reps` calls, 64 KiB moved (see the module's comment).
  const int reps = (int)std::max<size_t>(1, (64 << 10) / pb);
  auto lp = [&] { for (int k = 0; k < reps; k++) q = 0, loom_pack(u, 1, t, pl, pb, &q); };
  auto hpk = [&] { for (int k = 0; k < reps; k++) hp((const T *)u, (T *)ph, n); };
  auto lu = [&] { for (int k = 0; k < reps; k++) q = 0, loom_unpack(pl, pb, &q, ul, 1, t); };
  auto huk = [&] { for (int k = 0; k < reps; k++) hu((const T *)ph, (T *)uh, n); };
  for (int r = 0; r < 122; r++) {
    const int o = r % 2;  // 0: Loom first
    if (o == 0) L[0][o].push_back(timed(lp)), H[0][o].push_back(timed(hpk));
    else H[0][o].push_back(timed(hpk)), L[0][o].push_back(timed(lp));
    if (o == 0) L[1][o].push_back(timed(lu)), H[1][o].push_back(timed(huk));
    else H[1][o].push_back(timed(huk)), L[1][o].push_back(timed(lu));
  }
  double ratio[2];
  for (int d = 0; d < 2; d++) {
    ratio[d] = 1;
    for (int o = 0; o < 2; o++) {
      std::sort(L[d][o].begin(), L[d][o].end()), std::sort(H[d][o].begin(), H[d][o].end());
      ratio[d] *= H[d][o][30] / L[d][o][30];
    }
    ratio[d] = std::sqrt(ratio[d]);
  }
  char plan[200];
  loom_type_plan_string(t, 1, plan, sizeof plan);
  std::printf("%3d  %2d B  %2zu runs  extent %4ld  pack %5.2f  unpack %5.2f  %s%s\n", id, es,
              off.size(), (long)(ext * es), ratio[0], ratio[1], plan,
              same ? "" : "  BYTES DIFFER");
  std::fflush(stdout);
  free(u), free(ul), free(uh), free(pl), free(ph);
  loom_type_free(t), loom_type_free(res), loom_type_free(idx), loom_type_free(pr);
}
"""


def pattern(rng, size, shape="runs"):
    """A random pattern of `shape`: "runs" (an index leaf of up to 16 runs),
    "blocks" (one block of 1 to 24 elements at a stride up to twice its
    length or 8 elements more: MPI_Type_vector's sub-matrices and faces) or
    "wide" (one block of 3 to 512 bytes, at a stride of one element more
    to four times its length: rows of sub-arrays, records' leading fields)
    or "nested" (a small tile: c1 rows of c2 blocks of 1 to 4 elements,
    the blocks and the rows at their own strides, up to 24 blocks: a
    sub-block of a 2D or 3D array, pairs of fields in a record) or "rows"
    (a row of 2 to 64 blocks of 1 to 6 elements at one stride: a sub-matrix
    row, the fields of an array of records)."""
    if shape == "blocks":
        es = rng.choice([1, 2, 4, 4, 8, 8])
        b = rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 20, 24])
        ext = b + rng.randint(1, min(b, 8))
        return es, [0], [b], ext, b, max(1, size // (b * es))
    if shape == "nested":
        es = rng.choice([1, 2, 4, 4, 8, 8])
        b = rng.choice([1, 1, 2, 2, 3, 4])
        c2 = rng.randint(2, 6)
        s2 = b + rng.randint(1, 2 * b + 1)
        c1 = rng.randint(2, max(2, min(6, 24 // c2)))
        s1 = (c2 - 1) * s2 + b + rng.randint(1, 3 * b + 2)
        off = [i * s1 + j * s2 for i in range(c1) for j in range(c2)]
        ext = (c1 - 1) * s1 + (c2 - 1) * s2 + b + rng.randint(1, 4)
        per = b * c1 * c2
        return es, off, [b] * len(off), ext, per, max(1, size // (per * es))
    if shape == "rows":
        es = rng.choice([1, 2, 4, 4, 8, 8])
        b = rng.randint(1, 6)
        c = rng.choice([rng.randint(2, 16), rng.randint(17, 64)])
        s2 = b + rng.randint(1, 2 * b + 1)
        off = [j * s2 for j in range(c)]
        ext = (c - 1) * s2 + b + rng.randint(1, 2 * b + 1)
        return es, off, [b] * c, ext, b * c, max(1, size // (b * c * es))
    if shape == "wide":
        es = rng.choice([1, 2, 4, 8])
        b = max(1, rng.choice([3, 5, 6, 7, 10, 12, 17, 20, 24, 28, 34, 40, 44, 48, 56, 64, 72, 80,
                               96, 100, 120, 128, 160, 200, 256, 384, 512]) // es)
        ext = b + rng.randint(1, 3 * b)
        return es, [0], [b], ext, b, max(1, size // (b * es))
    es = rng.choice([1, 2, 4, 4, 8, 8])
    off, bl, pos = [], [], rng.randint(0, 2)
    for j in range(rng.randint(1, 16)):
        if j:
            pos += rng.choice([0, 1, 1, 2, 3])
        b = rng.choice([1, 1, 1, 2, 3, 4])
        off.append(pos), bl.append(b)
        pos += b
    ext = pos + rng.randint(0, 4)
    per = sum(bl)
    return es, off, bl, ext, per, max(1, size // (per * es))


def source(pats):
    out = [DRIVER]
    for i, (es, off, bl, ext, per, n) in enumerate(pats):
        t = TYPES[es][0]
        pk, up, o = [], [], 0
        for d, b in zip(off, bl):
            for e in range(b):
                pk.append(f"out[{o}] = p[{d + e}];")
                up.append(f"p[{d + e}] = in[{o}];")
                o += 1
        out.append(f"__attribute__((noinline)) void hp{i}(const {t} *in, {t} *out, int64_t n) {{\n"
                   f"  for (int64_t i = 0; i < n; i++, out += {per}) {{ const {t} *p = in + i * {ext}; "
                   f"{' '.join(pk)} }}\n}}")
        out.append(f"__attribute__((noinline)) void hu{i}(const {t} *in, {t} *out, int64_t n) {{\n"
                   f"  for (int64_t i = 0; i < n; i++, in += {per}) {{ {t} *p = out + i * {ext}; "
                   f"{' '.join(up)} }}\n}}")
    out.append("int main(int argc, char **argv) {")
    out.append("  const int only = argc > 1 ? std::atoi(argv[1]) : -1;  // one pattern, or all")
    for i, (es, off, bl, ext, per, n) in enumerate(pats):
        t, prim = TYPES[es]
        out.append(f"  if (only < 0 || only == {i}) run<{t}>({i}, {es}, {prim}, {{{', '.join(map(str, off))}}}, "
                   f"{{{', '.join(map(str, bl))}}}, {ext}, {per}, {n}, hp{i}, hu{i});")
    out.append("  return mismatch ? 1 : 0;\n}")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, help="pattern seed (default: fresh, printed)")
    ap.add_argument("--patterns", type=int, default=24)
    ap.add_argument("--size", type=int, default=1 << 20, help="packed bytes per pattern")
    ap.add_argument("--shape", choices=["runs", "blocks", "wide", "nested", "rows"], default="runs",
                    help="runs: index leaves of up to 16 runs; blocks: one block a stride; "
                         "wide: one block of 3-512 bytes; nested: a small tile of blocks; "
                         "rows: a row of 2-64 blocks at one stride")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=1,
                    help="processes per library, medians per pattern: a pattern's speed moves "
                         "by up to a third between processes (where its buffers land in the "
                         "physically indexed caches), so compare libraries with 3 or more")
    ap.add_argument("--alone", action="store_true",
                    help="each pattern in a process of its own: in one process a pattern's "
                         "result also depends on the patterns before it (the pages and heap "
                         "they leave), which differ between libraries")
    ap.add_argument("--march", default="native",
                    help="the hand loops' -march (x86-64-v3 against LOOM_ISA=avx2, x86-64 "
                         "against baseline)")
    ap.add_argument("--against", metavar="BUILD",
                    help="another build directory: its library and --build's run alternately, "
                         "in the same processes' place, and each pattern shows both")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 32)
    rng = random.Random(seed)
    pats = [pattern(rng, a.size, a.shape) for _ in range(a.patterns)]
    libs = [os.path.join(b, "src", "core") for b in [a.build] + ([a.against] if a.against else [])]
    for lib in libs:
        if not os.path.exists(os.path.join(lib, "libloom.so")):
            sys.exit(f"{lib}/libloom.so not found: run `make build` first")
    runs = {lib: [] for lib in libs}  # per library, per run: {pattern: (head, pack, unpack, tail)}
    rc = 0
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "sweep.cpp"), os.path.join(tmp, "sweep")
        with open(src, "w") as f:
            f.write(source(pats))
        subprocess.run(["c++", "-std=c++17", "-O3", "-march=" + a.march, "-falign-loops=64",
                        "-I", os.path.join(ROOT, "include"), src, "-o", exe, "-L", libs[0],
                        "-lloom", "-Wl,-rpath," + libs[0]], check=True)
        print(f"seed {seed} (rerun: --seed {seed}), "
              f"{a.patterns} {a.shape} patterns of about {a.size} packed bytes, load {os.getloadavg()[0]:.2f}, "
              f"hand loops -march={a.march}, kernels {os.environ.get('LOOM_ISA', 'of the CPU')}; "
              f"hand time / Loom time, medians of 61 interleaved runs in each order"
              + (f", then of {a.runs} processes" if a.runs > 1 else "")
              + (", a process per pattern" if a.alone else "")
              + (f"; {a.against} -> {a.build}" if a.against else ""))
        for k in range(max(1, a.runs)):
            for lib in (libs if k % 2 == 0 else libs[::-1]):
                env = dict(os.environ, LD_LIBRARY_PATH=lib)  # ahead of the rpath
                out = ""
                for only in (range(len(pats)) if a.alone else [-1]):
                    r = subprocess.run([exe, str(only)], stdout=subprocess.PIPE, text=True,
                                       env=env)
                    if r.returncode not in (0, 1):  # 1: bytes differ; else it did not run
                        sys.exit(f"the driver failed (exit status {r.returncode}; its errors "
                                 f"are above)")
                    rc |= r.returncode
                    out += r.stdout
                rows = {}
                for line in out.splitlines():
                    m = re.match(r"^(.*?)pack\s+(\S+)\s+unpack\s+(\S+)\s*(.*)$", line)
                    if m:
                        rows[int(line.split()[0])] = (m[1], float(m[2]), float(m[3]), m[4])
                runs[lib].append(rows)
    med = {lib: {i: (rs[0][i][0], statistics.median(r[i][1] for r in rs),
                     statistics.median(r[i][2] for r in rs), rs[0][i][3]) for i in rs[0]}
           for lib, rs in runs.items()}
    new = med[libs[0]]
    old = med[libs[1]] if a.against else None
    for i in sorted(new):
        head, p, u, tail = new[i]
        if old:
            print(f"{head}pack {old[i][1]:5.2f} -> {p:5.2f}  unpack {old[i][2]:5.2f} -> {u:5.2f}  {tail}")
        else:
            print(f"{head}pack {p:5.2f}  unpack {u:5.2f}  {tail}")
    geo = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else 0.0
    for name, m in ([("against", old)] if old else []) + [("", new)]:
        ps, us = [v[1] for v in m.values()], [v[2] for v in m.values()]
        below = sum(x < 0.9 for x in ps + us)
        print(f"geometric mean Loom over hand{' (' + name + ')' if name else ''}: pack {geo(ps):.2f}  "
              f"unpack {geo(us):.2f}; below 0.9: {below} of {len(ps) + len(us)}")
    if old:
        print(f"{a.build} over {a.against}: pack {geo([new[i][1] / old[i][1] for i in new]):.3f}  "
              f"unpack {geo([new[i][2] / old[i][2] for i in new]):.3f}")
    if rc:
        print("BYTES DIFFER: Loom and the hand loop disagree (see above)")
    return 1 if rc else 0


if __name__ == "__main__":
    sys.exit(main())
