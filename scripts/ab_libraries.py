#!/usr/bin/env python3
"""Two builds of libloom in one process, on random small repeating patterns.

`pattern_sweep.py --against` runs the two libraries in alternating
processes; a pattern's speed there moves by up to a third between
processes (where the buffers land in the physically indexed caches: one
pattern packed 1.15x or 1.49x the hand loop, unpacked 1.26x or 0.97x, by
process, in either library), so a change of a few percent needs many
processes to show.  This loads both libraries into one process (dlopen,
RTLD_LOCAL: each keeps its own types, plans and caches), builds each
pattern (the patterns of pattern_sweep.py, same seed, same pattern) in
both, checks that they pack the same bytes, and times them interleaved on
the same buffers, alternating which goes first: 201 rounds, medians, at
four placements of the buffers within a cache line (their geometric
mean).  One library against itself reads 1.00x (patterns within 2%).  Prints one line per pattern whose
pack or unpack moved by more than 2% (old time -> new time, old over new:
above 1 the new build is faster) and the geometric means.

    scripts/ab_libraries.py /tmp/old/build build                # a fresh seed
    scripts/ab_libraries.py OLD NEW --seed 11 --size 2048 --patterns 40 --elem 8
    LOOM_ISA=avx2 scripts/ab_libraries.py OLD NEW               # one instruction set

OLD and NEW are build directories (their src/core/libloom.so) or library
files.  Exit status 1 when the two libraries pack different bytes.
"""
import argparse
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from pattern_sweep import pattern  # noqa: E402  (the same patterns, seed for seed)

DRIVER = r"""
#include <loom.h>
#include <dlfcn.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>
static double now() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
static std::vector<int64_t> ints(const char *s) {
  std::vector<int64_t> v;
  std::stringstream in(s);
  for (int64_t x; in >> x;) v.push_back(x);
  return v;
}
struct Lib {
  decltype(&loom_type_primitive) primitive;
  decltype(&loom_type_indexed) indexed;
  decltype(&loom_type_resized) resized;
  decltype(&loom_type_contiguous) contiguous;
  decltype(&loom_type_commit) commit;
  decltype(&loom_pack) pack;
  decltype(&loom_unpack) unpack;
  template <class F> void get(void *h, F &f, const char *name) {
    f = (F)dlsym(h, name);
    if (!f) std::fprintf(stderr, "%s: %s\n", name, dlerror()), std::exit(2);
  }
  explicit Lib(const char *path) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) std::fprintf(stderr, "%s\n", dlerror()), std::exit(2);
    get(h, primitive, "loom_type_primitive"), get(h, indexed, "loom_type_indexed");
    get(h, resized, "loom_type_resized"), get(h, contiguous, "loom_type_contiguous");
    get(h, commit, "loom_type_commit"), get(h, pack, "loom_pack"), get(h, unpack, "loom_unpack");
  }
};
// argv: old new es "offsets" "lengths" extent(elements) count user-shift stream-shift
int main(int argc, char **argv) {
  if (argc != 10) return 2;
  Lib lib[2] = {Lib(argv[1]), Lib(argv[2])};
  const int es = std::atoi(argv[3]);
  const std::vector<int64_t> off = ints(argv[4]), bl = ints(argv[5]);
  const int64_t ext = std::atoll(argv[6]), n = std::atoll(argv[7]);
  const loom_prim prim = es == 1 ? LOOM_BYTE : es == 2 ? LOOM_SHORT : es == 4 ? LOOM_FLOAT : LOOM_DOUBLE;
  loom_type t[2];
  for (int k = 0; k < 2; k++) {
    loom_type e, idx, res;
    lib[k].primitive(prim, &e);
    lib[k].indexed((int64_t)off.size(), bl.data(), off.data(), e, &idx);
    lib[k].resized(idx, 0, ext * es, &res);
    lib[k].contiguous(n, res, &t[k]);
    lib[k].commit(t[k]);
  }
  int64_t per = 0;
  for (int64_t b : bl) per += b;
  const size_t ub = n * ext * es, pb = n * per * es;
  // The buffers start `shift` bytes past a page: where a pattern's windows
  // fall in cache lines decides between kernels as much as the kernels.
  auto buf = [](size_t b) { return (char *)aligned_alloc(4096, (b + 64 + 4095) / 4096 * 4096); };
  char *u = buf(ub) + std::atoi(argv[8]), *p0 = buf(pb) + std::atoi(argv[9]), *p1 = buf(pb);
  for (size_t i = 0; i < ub; i++) u[i] = (char)(i * 131 + 7);
  size_t q = 0;
  lib[0].pack(u, 1, t[0], p0, pb, &q);
  q = 0;
  lib[1].pack(u, 1, t[1], p1, pb, &q);
  const bool same = !std::memcmp(p0, p1, pb);
  // A sample is `reps` calls, 64 KiB moved: the clock ticks in 10-20 ns.
  const int reps = (int)std::max<size_t>(1, (64 << 10) / pb);
  std::vector<double> T[2][2];  // [library][unpack]
  for (int r = 0; r < 201; r++)
    for (int o = 0; o < 2; o++)
      for (int d = 0; d < 2; d++) {
        const int k = r % 2 ? 1 - o : o;
        const double a = now();
        for (int j = 0; j < reps; j++) {
          size_t pos = 0;
          if (d) lib[k].unpack(p0, pb, &pos, u, 1, t[k]);
          else lib[k].pack(u, 1, t[k], p0, pb, &pos);
        }
        T[k][d].push_back((now() - a) / reps);
      }
  for (auto &a : T)
    for (auto &b : a) std::sort(b.begin(), b.end());
  std::printf("%.1f %.1f %.1f %.1f %d\n", T[0][0][100], T[1][0][100], T[0][1][100], T[1][1][100],
              same ? 1 : 0);
  return same ? 0 : 1;
}
"""


# (user, stream) buffer starts past a page boundary, in bytes: a pattern's
# kernels are timed at each and its times are their geometric means (one
# pattern of doubles packed 1.2x faster by one library at one placement
# and 0.92x at another).
PLACEMENTS = [(0, 0), (24, 8), (40, 48), (56, 16)]


def geo(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def library(path):
    if os.path.isdir(path):
        path = os.path.join(path, "src", "core", "libloom.so")
    if not os.path.exists(path):
        sys.exit(f"{path} not found")
    return os.path.abspath(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--seed", type=int, help="pattern seed (default: fresh, printed)")
    ap.add_argument("--patterns", type=int, default=30)
    ap.add_argument("--size", type=int, default=1 << 16, help="packed bytes per pattern")
    ap.add_argument("--shape", choices=["runs", "blocks", "wide", "nested", "rows"], default="runs",
                    help="the shapes of pattern_sweep.py (its --help)")
    ap.add_argument("--elem", type=int, choices=[1, 2, 4, 8],
                    help="only patterns of elements of this many bytes")
    a = ap.parse_args()
    old, new = library(a.old), library(a.new)
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 32)
    rng = random.Random(seed)
    print(f"seed {seed} (rerun: --seed {seed}), {a.patterns} {a.shape} patterns of about {a.size} packed "
          f"bytes{f' of {a.elem}-byte elements' if a.elem else ''}, load {os.getloadavg()[0]:.2f}; "
          f"{old} -> {new}, a process per pattern and placement, medians of 201 interleaved rounds")
    ratios, differ = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "ab.cpp"), os.path.join(tmp, "ab")
        with open(src, "w") as f:
            f.write(DRIVER)
        subprocess.run(["c++", "-std=c++17", "-O2", "-I", os.path.join(ROOT, "include"), src,
                        "-o", exe, "-ldl"], check=True)
        # Copies under names of their own: one library given twice is then
        # two copies in the process, not one (dlopen returns the first).
        for i, lib in enumerate([old, new]):
            shutil.copy(lib, os.path.join(tmp, f"lib{i}.so"))
        old, new = os.path.join(tmp, "lib0.so"), os.path.join(tmp, "lib1.so")
        while len(ratios) < a.patterns:
            es, off, bl, ext, per, n = pattern(rng, a.size, a.shape)
            if a.elem and es != a.elem:
                continue
            t, same = [], True  # per placement: old pack, new pack, old unpack, new unpack
            for shifts in PLACEMENTS:
                r = subprocess.run([exe, old, new, str(es), " ".join(map(str, off)),
                                    " ".join(map(str, bl)), str(ext), str(n)]
                                   + [str(x) for x in shifts],
                                   stdout=subprocess.PIPE, text=True)
                m = re.match(r"(\S+) (\S+) (\S+) (\S+) (\d)", r.stdout)
                if not m:
                    sys.exit(f"driver failed on pattern {len(ratios)}: {r.stdout}")
                t.append(list(map(float, m.groups()[:4])))
                same = same and m[5] == "1"
            po, pn, uo, un = (geo([x[i] for x in t]) for i in range(4))
            ratios.append((po / pn, uo / un))
            differ += not same
            if abs(po / pn - 1) > 0.02 or abs(uo / un - 1) > 0.02 or not same:
                print(f"{len(ratios) - 1:3d}  {es} B  {len(off):2d} runs  extent {ext * es:4d}  "
                      f"pack {po:8.1f} -> {pn:8.1f} ns ({po / pn:.3f}x)  "
                      f"unpack {uo:8.1f} -> {un:8.1f} ns ({uo / un:.3f}x)"
                      + ("" if same else "  BYTES DIFFER"))
    moved = sum(abs(p - 1) > 0.02 or abs(u - 1) > 0.02 for p, u in ratios)
    print(f"new over old (above 1: faster): pack {geo([p for p, _ in ratios]):.3f}  "
          f"unpack {geo([u for _, u in ratios]):.3f}; {moved} of {len(ratios)} patterns moved "
          f"more than 2%")
    if differ:
        print(f"BYTES DIFFER on {differ} patterns")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
