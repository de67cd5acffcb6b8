#!/usr/bin/env python3
"""Figures 5 and 6 of the SGRS paper (vector latency and bandwidth) from
`loom bench p2p --sgrs --schemes --json FILE.json` (schema 1,
docs/benchmarks.md): the first columns of an M x 4096 int array sent as a
vector datatype, one panel per M, latency (half a round trip) and bandwidth
against the message size, one line per contender: the drop-in's schemes
(staged = the paper's Generic, per_block = Multi-W, single_copy = SGRS,
pipelined), Loom as selected, the system MPI's datatype path, the hand
loop, and the contiguous transfer of the same bytes (the bound).

  scripts/plot_sgrs.py FILE.json...

Writes FILE.png next to each FILE.json and prints its path.  Points are
medians, error bars the interquartile range of the samples.  Needs
matplotlib (Debian: python3-matplotlib; run it with
`$(scripts/python-with.sh matplotlib)`).

Exit status: 0 on success, 2 when a file is unusable (missing, not JSON,
another schema version, suite or shape; nothing is written for it), 3 when
matplotlib is missing.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_bench  # noqa: E402  (load, quartiles, subtitle, Unusable)

PROG = "plot_sgrs.py"
# Label and style per contender; the paper's names in parentheses.
STYLE = {
    "bound": ("contiguous (bound)", "black", "--"),
    "single_copy": ("single_copy (SGRS)", "#1f77b4", "-"),
    "per_block": ("per_block (Multi-W)", "#d62728", "-"),
    "staged": ("staged (Generic)", "#2ca02c", "-"),
    "pipelined": ("pipelined", "#9467bd", "-"),
    "MPI": ("system MPI datatype path", "#ff7f0e", "-"),
    "system": ("system (forced in the drop-in)", "#8c564b", "-"),
    "Loom": ("Loom as selected", "#17becf", ":"),
    "hand": ("hand pack + contiguous", "grey", ":"),
}


def series(table, group, who, per_message):
    """[(bytes, (low, median, high))] of one contender in one group; values
    are per_message(row, seconds)."""
    pts = []
    for r in sorted((r for r in table["rows"] if r["group"] == group), key=lambda r: r["bytes"]):
        c = r["contenders"].get(who)
        if c is None or "error" in r:
            continue
        q1, med, q3 = plot_bench.quartiles(c["samples_s"])
        vals = sorted(per_message(r, t) for t in (q1, med, q3))
        pts.append((r["bytes"], tuple(vals)))
    return pts


def latency_us(row, seconds):
    return seconds / 2 * 1e6  # half a round trip


def bandwidth_mbs(row, seconds):
    return row["moved_bytes"] / seconds / 1e6


def plot(doc, path):
    plt = plot_bench.plt
    tables = {t["key"]: t for t in doc["tables"]}
    panels = [("rtt", "latency (µs, half a round trip)", latency_us),
              ("bw", "bandwidth (MB/s)", bandwidth_mbs)]
    panels = [p for p in panels if p[0] in tables]
    groups = []
    for r in tables[panels[0][0]]["rows"]:
        if r["group"] not in groups:
            groups.append(r["group"])
    fig, axes = plt.subplots(len(panels), len(groups), layout="constrained",
                             figsize=(4.2 * len(groups), 3.6 * len(panels)), squeeze=False)
    for i, (key, ylabel, per_message) in enumerate(panels):
        table = tables[key]
        for j, group in enumerate(groups):
            ax = axes[i][j]
            for who in table["contenders"]:
                pts = series(table, group, who, per_message)
                if not pts:
                    continue
                label, colour, line = STYLE.get(who, (who, None, "-"))
                ax.errorbar([b for b, _ in pts], [v[1] for _, v in pts],
                            yerr=[[v[1] - v[0] for _, v in pts], [v[2] - v[1] for _, v in pts]],
                            label=label, color=colour, linestyle=line, marker="o",
                            markersize=3, capsize=2, linewidth=1)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(f"{group} ({'latency' if key == 'rtt' else 'bandwidth'})", fontsize=9)
            ax.set_xlabel("message size (bytes)")
            ax.grid(which="both", alpha=0.3)
            if j == 0:
                ax.set_ylabel(ylabel)
    axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.suptitle("SGRS figures 5/6 on one node: columns of an M x 4096 int array "
                 f"(vector datatype)\n{plot_bench.subtitle(doc)}\npoints: medians; bars: "
                 "interquartile range of the samples", fontsize=8)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    return plot_bench.main_for(PROG, __doc__, "p2p", plot)


if __name__ == "__main__":
    sys.exit(main())
