#!/usr/bin/env python3
"""Plot of `loom bench cma` results (--json, schema 1, docs/benchmarks.md):
bandwidth against block size, one line per scheme, one panel per message
size (the figures of the SGRS paper, with process_vm_readv for the NIC).

  scripts/plot_cma.py FILE.json...

Writes FILE.png next to each FILE.json and prints its path.  Points are
medians, error bars the interquartile range of the samples; memcpy of the
same bytes within one process is the bound.  Needs matplotlib (Debian:
python3-matplotlib; run it with `$(scripts/python-with.sh matplotlib)`).

Exit status: 0 on success, 2 when a file is unusable (missing, not JSON,
another schema version, suite or shape; nothing is written for it), 3 when
matplotlib is missing.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_bench  # noqa: E402  (load, quartiles, subtitle, Unusable)

PROG = "plot_cma.py"
STYLE = {"memcpy": ("black", "--"), "single_copy": ("#1f77b4", "-"),
         "per_block": ("#d62728", "-"), "staged": ("#2ca02c", "-"),
         "from_packed": ("#ff7f0e", "-")}


def bandwidth(row, who):
    """(GB/s at the third quartile of time, at the median, at the first), or
    None when the scheme was not measured."""
    c = row["contenders"].get(who)
    if c is None:
        return None
    q1, med, q3 = plot_bench.quartiles(c["samples_s"])
    return tuple(row["bytes"] / t / 1e9 for t in (q3, med, q1))


def plot(doc, path):
    plt = plot_bench.plt
    table = doc["tables"][0]
    sizes = sorted({r["bytes"] for r in table["rows"]})
    fig, axes = plt.subplots(1, len(sizes), sharey=True, layout="constrained",
                             figsize=(3.6 * len(sizes), 3.8), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        rows = sorted((r for r in table["rows"] if r["bytes"] == size),
                      key=lambda r: r["block_bytes"])
        for who in table["contenders"]:
            pts = [(r["block_bytes"], bandwidth(r, who)) for r in rows]
            pts = [(b, v) for b, v in pts if v is not None]
            if not pts:
                continue
            colour, line = STYLE.get(who, (None, "-"))
            ax.errorbar([b for b, _ in pts], [v[1] for _, v in pts],
                        yerr=[[v[1] - v[0] for _, v in pts], [v[2] - v[1] for _, v in pts]],
                        label=who, color=colour, linestyle=line, marker="o", markersize=3,
                        capsize=2, linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"message {rows[0]['name'].split(' / ')[1]}", fontsize=9)
        ax.set_xlabel("block size (bytes, log scale)")
        ax.grid(which="both", alpha=0.3)
    axes[0][0].set_ylabel("GB/s (log scale; higher is faster)")
    axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.suptitle("loom bench cma: a vector layout moved between two processes "
                 f"(process_vm_readv)\n{plot_bench.subtitle(doc)}\npoints: medians; "
                 "bars: interquartile range of the samples", fontsize=8)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    return plot_bench.main_for(PROG, __doc__, "cma", plot)


if __name__ == "__main__":
    sys.exit(main())
