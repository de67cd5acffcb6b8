#!/usr/bin/env python3
"""Heat maps of a `loom tune` profile (docs/tune.md): for each cell of the
grid (mean contiguous run = block length x message size), the fastest
scheme measured, and staging's time over the fastest (the crossover of the
LAH paper's Figure 3: 1 where staging wins, above 1 where another scheme
beats it by that factor).

  scripts/plot_tune.py PROFILE.json...

Writes PROFILE.png next to each PROFILE.json.  Needs matplotlib (Debian:
python3-matplotlib; scripts/python-with.sh finds a python3 that has it).

Exit status: 0 on success, 2 when a file is unusable (missing, not JSON,
not a profile of schema 1; nothing is written for it), 3 when matplotlib is
missing.
"""

import math
import os
import sys

# The JSON reading and matplotlib set-up of the benchmark plots (same folder).
import plot_bench
from plot_bench import Unusable, matplotlib, read_json

if matplotlib is not None:
    import matplotlib.colors as mcolors
    plt = plot_bench.plt

SCHEMA_VERSION = 1
PROG = "plot_tune.py"
# One colour per scheme, the same in every figure (src/xfer/scheme_id.hpp).
SCHEMES = ["system", "staged", "single_copy", "per_block", "pipelined"]
COLOURS = ["#2ca02c", "#1f77b4", "#d62728", "#9467bd", "#ff7f0e"]


def size_label(b):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale and b % scale == 0:
            return f"{b // scale} {unit}"
    return f"{b} B"


def load(path):
    """The profile in `path`, checked for the fields the plots read."""
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA_VERSION:
        raise Unusable(f"not a loom tune profile of schema {SCHEMA_VERSION}")
    try:
        runs, sizes = doc["grid"]["mean_run"], doc["grid"]["bytes"]
        schemes = doc["schemes"]
        for name, rows in schemes.items():
            if name not in SCHEMES or len(rows) != len(runs) or \
                    any(len(r) != len(sizes) for r in rows):
                raise Unusable(f"scheme {name!r}: unknown, or rows do not match the grid")
    except (KeyError, TypeError) as e:
        raise Unusable(f"no grid or schemes ({e})") from e
    return doc


def best_cells(doc):
    """Per cell: (index of the fastest scheme, its time, staged/fastest)."""
    runs, sizes = doc["grid"]["mean_run"], doc["grid"]["bytes"]
    out = [[None] * len(sizes) for _ in runs]
    for i in range(len(runs)):
        for j in range(len(sizes)):
            times = {n: rows[i][j] for n, rows in doc["schemes"].items()
                     if rows[i][j] is not None}
            if not times:
                continue
            name = min(times, key=times.get)
            staged = times.get("staged")
            out[i][j] = (SCHEMES.index(name), times[name],
                         staged / times[name] if staged else None)
    return out


def plot(doc, png):
    runs, sizes = doc["grid"]["mean_run"], doc["grid"]["bytes"]
    cells = best_cells(doc)
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2))
    nan = float("nan")
    best = [[c[0] if c else nan for c in row] for row in cells]
    ratio = [[c[2] if c and c[2] else nan for c in row] for row in cells]
    cmap = mcolors.ListedColormap(COLOURS)
    axes[0].imshow(best, cmap=cmap, vmin=-0.5, vmax=len(SCHEMES) - 0.5, origin="lower",
                   aspect="auto")
    axes[0].set_title("fastest scheme (time per message)")
    top = max([r for row in ratio for r in row if not math.isnan(r)] + [2.0])
    im = axes[1].imshow(ratio, cmap="viridis", origin="lower", aspect="auto",
                        norm=mcolors.LogNorm(vmin=1.0, vmax=top))
    axes[1].set_title("staged / fastest (1: staging is the fastest)")
    fig.colorbar(im, ax=axes[1])
    for ax in axes:
        ax.set_xticks(range(len(sizes)), [size_label(int(b)) for b in sizes])
        ax.set_yticks(range(len(runs)), [size_label(int(r)) for r in runs])
        ax.set_xlabel("message size")
        ax.set_ylabel("block length (mean contiguous run)")
    for i, row in enumerate(cells):
        for j, c in enumerate(row):
            if not c:
                continue
            axes[0].text(j, i, f"{SCHEMES[c[0]]}\n{c[1] * 1e6:.3g} us", ha="center",
                         va="center", fontsize=7, color="white")
            if c[2]:
                axes[1].text(j, i, f"{c[2]:.2f}", ha="center", va="center", fontsize=8,
                             color="white" if c[2] < top ** 0.5 else "black")
    mpi = doc.get("mpi", {})
    machine = doc.get("machine", {})
    library = " ".join(str(mpi.get('library') or mpi.get('flavor', '?')).split())
    fig.suptitle(f"loom tune: {library} on "
                 f"{machine.get('cpu', '?')} ({doc.get('date', '?')})", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    if matplotlib is None:
        print(f"{PROG}: matplotlib is not installed (Debian: python3-matplotlib)",
              file=sys.stderr)
        return 3
    status = 0
    for path in argv[1:]:
        try:
            doc = load(path)
        except Unusable as e:
            print(f"{PROG}: {path}: {e}", file=sys.stderr)
            status = 2
            continue
        png = os.path.splitext(path)[0] + ".png"
        plot(doc, png)
        print(png)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
