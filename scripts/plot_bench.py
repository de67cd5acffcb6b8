#!/usr/bin/env python3
"""Plots of `loom bench` results: reads the JSON of `loom bench pack`, `p2p`
and `coll` (--json, schema 1, docs/benchmarks.md) and writes PNG files.

  scripts/plot_bench.py [-o OUTDIR] FILE.json...

For each file:
  pack  bench-pack-<flavor>.png: MB/s of packed bytes per case, Loom against
        the hand loop and the system MPI (memcpy of the same bytes marked),
        pack and unpack side by side;
  p2p   bench-p2p-rtt-<flavor>.png (and bench-p2p-bw-<flavor>.png): each
        contender's time per case over the contiguous transfer of the same
        bytes (the bound, 1 = as fast as contiguous data);
  coll  bench-coll-<flavor>.png: the same for the collectives.
Bars are medians, whiskers the interquartile range of the samples.  Engine
results are skipped.  Needs matplotlib (Debian: python3-matplotlib).

Exit status: 0 on success, 2 when a file is unusable (missing, not JSON,
another schema version or shape; nothing is written for it), 3 when
matplotlib is missing.
"""

import argparse
import json
import os
import sys

try:
    import matplotlib
    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt
    import matplotlib.ticker as ticker
except ImportError:
    matplotlib = None

SCHEMA_VERSION = 1
PROG = "plot_bench.py"

# Bar colours per contender, the same in every figure.
COLOURS = {"Loom": "#1f77b4", "hand": "#ff7f0e", "MPI": "#2ca02c", "staged": "#8c564b",
           "single_copy": "#9467bd", "per_block": "#d62728", "pipelined": "#17becf",
           "system": "#7f7f7f"}


class Unusable(Exception):
    """A file that cannot be plotted; str() says why."""


def read_json(path):
    """The JSON document in `path` (also for scripts/plot_tune.py)."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise Unusable(f"cannot open: {e.strerror}") from e
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise Unusable(f"not JSON: {e}") from e


def load(path):
    """The document in `path`, checked for the fields the plots read."""
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise Unusable("not a loom bench JSON file (the document is not an object)")
    if "schema" not in doc:
        raise Unusable('no "schema" field: not a loom bench JSON file of schema '
                       f"version {SCHEMA_VERSION} (run the suite again)")
    if doc["schema"] != SCHEMA_VERSION:
        raise Unusable(f"schema version {doc['schema']!r} is not supported "
                       f"(this script reads version {SCHEMA_VERSION})")
    for t, table in enumerate(doc.get("tables") or []):
        for r, row in enumerate(table.get("rows") or []):
            for name, c in (row.get("contenders") or {}).items():
                samples = None if c is None else c.get("samples_s")
                if c is not None and not (
                        isinstance(samples, list) and samples and
                        all(isinstance(x, (int, float)) for x in samples)):
                    raise Unusable(f"wrong shape: tables[{t}].rows[{r}].contenders."
                                   f"{name}.samples_s: expected a list of numbers")
    return doc


def quartiles(values):
    """(25th percentile, median, 75th percentile) of a non-empty list."""
    v = sorted(values)

    def q(p):
        x = p * (len(v) - 1)
        i = int(x)
        return v[i] if i + 1 >= len(v) else v[i] + (x - i) * (v[i + 1] - v[i])

    return q(0.25), q(0.5), q(0.75)


def subtitle(doc):
    run = doc["run"]
    machine = run.get("machine", {})
    git = run.get("git", {})
    commit = str(git.get("commit", "?"))[:7] + ("-dirty" if git.get("dirty") else "")
    load = machine.get("load_start") or []
    load_text = " ".join("?" if x is None else f"{x:.2f}" for x in load)
    return (f"{run['mpi']['name']}  |  {machine.get('hostname', '?')}, "
            f"{machine.get('cpu_model', '?')}, {machine.get('cores', '?')} cores, "
            f"load {load_text} at the start  |  {run.get('date', '?')}  |  commit {commit}"
            + ("  |  --quick" if run.get("quick") else ""))


def grouped_barh(ax, names, series, base=None):
    """Horizontal grouped bars on a log scale, one group per case (top to
    bottom); with `base`, each bar runs from base to its value (left of base
    = below it).

    series: [(label, [(low, mid, high) or None per case])]."""
    n = len(series)
    height = 0.8 / n
    for k, (label, values) in enumerate(series):
        ys, mids, lo, hi = [], [], [], []
        for i, v in enumerate(values):
            if v is None:
                continue
            ys.append(i - 0.4 + height * (k + 0.5))
            mids.append(v[1])
            lo.append(v[1] - v[0])
            hi.append(v[2] - v[1])
        widths = [m - base for m in mids] if base else mids
        ax.barh(ys, widths, left=base, height=height, label=label,
                color=COLOURS.get(label))
        ax.errorbar(mids, ys, xerr=[lo, hi], fmt="none", ecolor="black", elinewidth=0.6)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names, fontsize=7)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.set_xscale("log")
    ax.grid(axis="x", which="both", alpha=0.3)
    label = ticker.FuncFormatter(lambda x, _: f"{x:g}")
    ax.xaxis.set_major_formatter(label)
    low, high = ax.get_xlim()
    if high / low < 30:  # less than about a decade and a half: label minor ticks too
        ax.xaxis.set_minor_formatter(label)
        ax.tick_params(axis="x", which="minor", labelsize=7)


def plot_pack(doc, path):
    tables = {t["key"]: t for t in doc["tables"]}
    first = doc["tables"][0]["rows"]
    names = [r["name"] for r in first]
    fig, axes = plt.subplots(1, len(tables), sharey=True, layout="constrained",
                             figsize=(6 * len(tables), 1.8 + 0.22 * len(names)))
    axes = axes if len(tables) > 1 else [axes]
    for ax, key in zip(axes, tables):
        rows = tables[key]["rows"]

        def mbs(row, who):
            c = row["contenders"].get(who)
            if c is None:
                return None
            # Throughput: the fastest sample gives the highest MB/s.
            q1, med, q3 = quartiles(c["samples_s"])
            return (row["bytes"] / q3 / 1e6, row["bytes"] / med / 1e6,
                    row["bytes"] / q1 / 1e6)

        grouped_barh(ax, names, [(who, [mbs(r, who) for r in rows])
                                 for who in ("Loom", "hand", "MPI")])
        bound = doc["bound"]
        for i, r in enumerate(rows):
            b = mbs(r, bound)
            if b is not None:
                ax.plot([b[1], b[1]], [i - 0.45, i + 0.45], color="black", lw=1,
                        label=f"{bound} (same bytes)" if i == 0 else None)
        ax.set_title(tables[key]["title"].lower(), fontsize=10)
        ax.set_xlabel("MB/s of packed bytes (log scale; higher is faster)")
    axes[-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.suptitle(f"loom bench pack: Loom's engine against a hand loop and the system "
                 f"MPI's MPI_Pack/MPI_Unpack\n{subtitle(doc)}\nbars: medians; whiskers: "
                 f"interquartile range of the samples", fontsize=8)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_comm(doc, table, path):
    rows = [r for r in table["rows"] if r["contenders"].get(doc["bound"])]
    names = [f"{r['name']}" for r in rows]
    fig, ax = plt.subplots(layout="constrained", figsize=(9, 1.8 + 0.22 * len(names)))

    def over_bound(row, who):
        c = row["contenders"].get(who)
        if c is None:
            return None
        bound = quartiles(row["contenders"][doc["bound"]]["samples_s"])[1]
        return tuple(x / bound for x in quartiles(c["samples_s"]))

    # Every contender but the bound: Loom, MPI, hand, and the forced schemes
    # of a --schemes document.
    grouped_barh(ax, names, [(who, [over_bound(r, who) for r in rows])
                             for who in table["contenders"] if who != doc["bound"]], base=1.0)
    ax.axvline(1.0, color="black", lw=1, label="contiguous transfer (bound)")
    ax.set_xlabel("time / contiguous transfer of the same bytes "
                  "(log scale; 1 = contiguous speed; lower is faster)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    what = {"rtt": "round trips", "bw": "bandwidth windows"}.get(table["key"],
                                                                  "collectives")
    fig.suptitle(f"loom bench {doc['suite']} {what}: Loom (the drop-in), the system "
                 f"MPI's datatype path and hand packing\n{subtitle(doc)}\nbars: medians; "
                 f"whiskers: interquartile range of the samples", fontsize=8)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_file(doc, outdir):
    """Writes the figures of one document; returns their paths."""
    suite, flavor = doc["suite"], doc["run"]["flavor"]
    out = []
    if suite == "pack":
        out.append(os.path.join(outdir, f"bench-pack-{flavor}.png"))
        plot_pack(doc, out[-1])
    elif suite in ("p2p", "coll"):
        for table in doc["tables"]:
            name = suite if table["key"] == suite else f"{suite}-{table['key']}"
            out.append(os.path.join(outdir, f"bench-{name}-{flavor}.png"))
            plot_comm(doc, table, out[-1])
    else:
        raise KeyError(f"suite {suite!r}")
    return out


def main_for(prog, usage, suite, plot):
    """The command line of a one-suite plot script: each JSON argument of
    suite `suite` becomes a PNG next to it (plot(doc, png)); its path is
    printed.  Exit status: 0, 2 for an unusable input, 3 without
    matplotlib."""
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(usage.strip())
        return 0 if len(sys.argv) > 1 else 2
    if matplotlib is None:
        print(f"{prog}: matplotlib is missing (Debian: apt-get install python3-matplotlib)",
              file=sys.stderr)
        return 3
    status = 0
    for path in sys.argv[1:]:
        try:
            doc = load(path)
            if doc.get("suite") != suite:
                raise Unusable(f"suite {doc.get('suite')!r}, not {suite}")
            png = os.path.splitext(path)[0] + ".png"
            try:
                plot(doc, png)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
                raise Unusable(f"wrong shape: {type(e).__name__}: {e}") from e
            print(png)
        except Unusable as e:
            print(f"{prog}: {path}: {e}", file=sys.stderr)
            status = 2
    return status


def main():
    parser = argparse.ArgumentParser(
        prog=PROG, description="PNG plots of loom bench JSON files (schema 1).")
    parser.add_argument("-o", "--outdir", default=".", help="where the PNGs go (default: .)")
    parser.add_argument("files", nargs="+", help="JSON files of loom bench pack/p2p/coll")
    args = parser.parse_args()
    if matplotlib is None:
        print(f"{PROG}: matplotlib is missing (Debian: apt-get install python3-matplotlib)",
              file=sys.stderr)
        return 3
    os.makedirs(args.outdir, exist_ok=True)
    status = 0
    for path in args.files:
        try:
            doc = load(path)
            if doc.get("suite") == "engine":
                print(f"{PROG}: {path}: engine results have no plot", file=sys.stderr)
                continue
            try:
                for png in plot_file(doc, args.outdir):
                    print(png)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
                raise Unusable(f"wrong shape: {type(e).__name__}: {e}") from e
        except Unusable as e:
            print(f"{PROG}: {path}: {e}", file=sys.stderr)
            status = 2
    return status


if __name__ == "__main__":
    sys.exit(main())
