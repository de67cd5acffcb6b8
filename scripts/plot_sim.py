#!/usr/bin/env python3
"""Plots of `loom sim --figures DIR` (DIR/sim.json, schema 1, docs/sim.md).

  scripts/plot_sim.py DIR [-o OUTDIR]
  scripts/plot_sim.py DIR --table      (the README's results table, Markdown)

Writes into OUTDIR (default DIR):
  sim-fig8.png    unpack throughput of a 4 MiB vector against block size, every
                  strategy and the host baseline (solid: catch-ups walked block by
                  block as MPITypes does; dotted: one loom_cursor_seek)
  sim-fig12.png   payload handler time, init / setup / blocks, per strategy and
                  blocks per packet
  sim-fig13.png   throughput against HPUs; NIC memory against block size (16 HPUs)
                  and against HPUs (128 B blocks)
  sim-fig16.png   speedup over host unpack of the DDTBench layouts (RW-CP and the
                  iovec NIC), annotated with blocks per packet, host time, size and
                  the data copied to the NIC
  sim-fig17.png   bytes to and from main memory per message, RW-CP against host unpack
  sim-fig18.png   checkpoint creation (RW-CP) in messages' savings, and the reuses
                  that amortize it
Needs matplotlib (Debian: python3-matplotlib).  Exit status: 0, 2 for an
unusable input, 3 without matplotlib.
"""

import argparse
import math
import os
import sys

from plot_bench import Unusable, read_json, matplotlib

if matplotlib is not None:
    import matplotlib.pyplot as plt

SCHEMA_VERSION = 1
PROG = "plot_sim.py"

# One colour per strategy, the same in every figure.
COLOURS = {"specialized": "#2ca02c", "hpu-local": "#9467bd", "ro-cp": "#ff7f0e",
           "rw-cp": "#1f77b4", "iovec": "#8c564b", "host": "#7f7f7f"}
OFFLOAD = ["specialized", "hpu-local", "ro-cp", "rw-cp"]


def load(path):
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("tool") != "loom sim":
        raise Unusable("not a loom sim JSON file")
    if doc.get("schema") != SCHEMA_VERSION:
        raise Unusable(f"schema version {doc.get('schema')!r} is not supported "
                       f"(this script reads version {SCHEMA_VERSION})")
    return doc


def rows(doc, figure):
    return sorted((r for r in doc["results"] if r["figure"] == figure), key=lambda r: r["x"])


def run(result, strategy):
    return next((x for x in result["runs"] if x["strategy"] == strategy), None)


def param(doc, key):
    return next(p["value"] for p in doc["params"] if p["key"] == key)


def line_rate(doc):
    """Payload Gbit/s the link delivers (headers take the rest)."""
    payload, header = param(doc, "payload_bytes"), param(doc, "header_bytes")
    return param(doc, "link_gbit_s") * payload / (payload + header)


def series(results, strategy, field):
    xs, ys = [], []
    for r in results:
        x = run(r, strategy)
        if x is not None:
            xs.append(r["x"])
            ys.append(field(r, x))
    return xs, ys


def log2_block_axis(ax, label="block size (bytes)"):
    ax.set_xscale("log", base=2)
    ax.set_xlabel(label)
    ax.grid(which="both", alpha=0.3)


def fig8(doc, out):
    walk, seek = rows(doc, "fig8"), rows(doc, "fig8-seek")
    fig, ax = plt.subplots(layout="constrained", figsize=(7.5, 4.5))
    for s in OFFLOAD + ["iovec", "host"]:
        xs, ys = series(walk, s, lambda r, x: x["gbit_s"])
        ax.plot(xs, ys, marker="o", ms=4, color=COLOURS[s], label=s)
        xs, ys = series(seek, s, lambda r, x: x["gbit_s"])
        if xs and s in OFFLOAD:
            ax.plot(xs, ys, ls=":", marker=".", color=COLOURS[s], label=f"{s} (seek)")
    ax.axhline(line_rate(doc), color="k", ls="--", lw=0.8, label="line rate")
    log2_block_axis(ax)
    ax.set_yscale("log")
    ax.set_ylabel("unpack throughput (Gbit/s)")
    ax.set_title(f"4 MiB vector, stride 2 x block, {int(walk[0]['hpus'])} HPUs ({doc['preset']})")
    ax.legend(fontsize=7, ncol=2)
    fig.savefig(out, dpi=110)


def fig12(doc, out):
    results = [r for r in rows(doc, "fig8") if r["x"] >= 128][::-1]  # gamma 1, 2, ... 16
    fig, axes = plt.subplots(1, 4, layout="constrained", figsize=(12, 3.6))
    parts = [("init", "#c7c7c7"), ("setup", "#ff9896"), ("blocks", "#1f77b4")]
    for ax, s in zip(axes, OFFLOAD):
        labels = [f"{r['gamma']:.0f}" for r in results]
        bottom = [0.0] * len(results)
        for part, colour in parts:
            vals = [run(r, s)["handler_ns"][part] if run(r, s) else 0 for r in results]
            ax.bar(labels, vals, bottom=bottom, color=colour, label=part)
            bottom = [b + v for b, v in zip(bottom, vals)]
        for i, total in enumerate(bottom):
            ax.annotate(f"{total:.0f}", (i, total), ha="center", va="bottom", fontsize=7)
        ax.set_title(s)
        ax.set_xlabel("blocks per packet (γ)")
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("payload handler time (ns on the HPU)")
    axes[0].legend(fontsize=8)
    fig.savefig(out, dpi=110)


def fig13(doc, out):
    fig, axes = plt.subplots(1, 3, layout="constrained", figsize=(14, 4))
    a, b, c = axes
    for s in OFFLOAD:
        xs, ys = series(rows(doc, "fig13a"), s, lambda r, x: x["gbit_s"])
        a.plot(xs, ys, marker="o", ms=4, color=COLOURS[s], label=s)
        for ax, fig_name in ((b, "fig13b"), (c, "fig13c")):
            xs, ys = series(rows(doc, fig_name), s, lambda r, x: x["nic_memory"] / 1024)
            ax.plot(xs, ys, marker="o", ms=4, color=COLOURS[s], label=s)
    a.axhline(line_rate(doc), color="k", ls="--", lw=0.8, label="line rate")
    log2_block_axis(a, "HPUs")
    a.set_ylabel("unpack throughput (Gbit/s)")
    a.set_title("2 KiB blocks (γ = 1)")
    log2_block_axis(b)
    b.set_title("16 HPUs")
    log2_block_axis(c, "HPUs")
    c.set_title("128 B blocks (γ = 16)")
    for ax in (b, c):
        ax.set_yscale("log")
        ax.set_ylabel("NIC memory (KiB)")
    a.legend(fontsize=8)
    fig.savefig(out, dpi=110)


def fig16(doc, out):
    results = rows(doc, "fig16")
    names = [r["layout"] for r in results]
    fig, ax = plt.subplots(layout="constrained", figsize=(12, 5))
    width = 0.38
    for k, s in enumerate(["rw-cp", "iovec"]):
        vals = [run(r, s)["speedup"] if run(r, s) else 0 for r in results]
        pos = [i + (k - 0.5) * width for i in range(len(results))]
        ax.bar(pos, vals, width, color=COLOURS[s], label=s)
        for p, v, r in zip(pos, vals, results):
            x = run(r, s)
            ax.annotate(f"{x['to_nic'] / 1024:.1f}", (p, v), ha="center", va="bottom",
                        fontsize=6, rotation=90)
    ax.axhline(1, color="k", lw=0.8)
    ax.set_xticks(range(len(results)))
    ax.set_xticklabels([f"{n}\nγ={r['gamma']:.0f} T={r['measured_host_ns']['host_unpack'] / 1e6:.3f}ms"
                        f"\nS={r['bytes'] / 1024:.0f}KiB" for n, r in zip(names, results)],
                       fontsize=6.5, rotation=45, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("speedup over host unpack (message processing time)")
    ax.set_title("DDTBench layouts (bar labels: KiB copied to the NIC first)")
    ax.legend()
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.savefig(out, dpi=110)


def geomean(vals):
    vals = [v for v in vals if v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else 0


def fig17(doc, out):
    results = rows(doc, "fig16")
    host = [r["host_memory_traffic"] / 1024 for r in results]
    offload = [r["bytes"] / 1024 for r in results]
    fig, ax = plt.subplots(layout="constrained", figsize=(7, 4))
    top = max(host + offload)
    bins = [2 ** k for k in range(0, int(math.log2(max(top, 2))) + 2)]
    ax.hist([offload, host], bins=bins, color=[COLOURS["rw-cp"], COLOURS["host"]],
            label=["RW-CP", "host unpack"])
    ax.axvline(geomean(offload), color=COLOURS["rw-cp"], label="RW-CP geometric mean")
    ax.axvline(geomean(host), color=COLOURS["host"], ls="--", label="host geometric mean")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("data moved to/from main memory per message (KiB)")
    ax.set_ylabel("layouts")
    ax.set_title(f"host / RW-CP: {geomean(host) / geomean(offload):.2f}x (geometric means)")
    ax.legend(fontsize=8)
    fig.savefig(out, dpi=110)


def fig18(doc, out):
    results = rows(doc, "fig16")
    fig, ax = plt.subplots(layout="constrained", figsize=(10, 4.2))
    names = [r["layout"] for r in results]
    cost = [run(r, "rw-cp")["checkpoint_cost_in_messages"] for r in results]
    ax.bar(names, [c if c > 0 else 0 for c in cost], color=COLOURS["rw-cp"])
    floor = min([c for c in cost if c > 0] or [1e-3])
    for i, c in enumerate(cost):
        label = f"{math.ceil(c)}" if c > 0 else "never"
        ax.annotate(label, (i, c if c > 0 else floor), ha="center", va="bottom", fontsize=7)
    ax.axhline(4, color="k", ls="--", lw=0.8, label="4 messages")
    ax.set_yscale("log")
    ax.set_ylabel("checkpoint cost / time saved per message")
    ax.set_title("RW-CP: making and copying the checkpoints, in messages' savings "
                 "(labels: reuses to amortize)")
    ax.tick_params(axis="x", labelrotation=45, labelsize=7)
    ax.legend()
    fig.savefig(out, dpi=110)


def table(doc):
    """The README's results table (Markdown): the paper's targets next to
    what this run measured."""
    f8 = {r["x"]: r for r in rows(doc, "fig8")}

    def gbit(block, s):
        return run(f8[block], s)["gbit_s"]

    def handler(block, s):
        h = run(f8[block], s)["handler_ns"]
        return h["init"] + h["setup"] + h["blocks"]

    line = line_rate(doc)
    first_line_rate = min((b for b in f8 if gbit(b, "specialized") >= 0.98 * line), default=None)
    ratios = [handler(b, "rw-cp") / handler(b, "specialized") for b in (2048, 1024, 512, 256, 128)]
    host4 = gbit(4, "host")
    slower4 = [s for s in OFFLOAD if gbit(4, s) < host4]
    apps = rows(doc, "fig16")
    few = [r for r in apps if r["gamma"] <= 32 and r["packets"] >= 16]
    oc = [r for r in apps if r["layout"] == "SPECFEM3D oc"]
    costs = [run(r, "rw-cp")["checkpoint_cost_in_messages"] for r in apps]
    amortized = sum(1 for c in costs if 0 < math.ceil(c) <= 4)
    out = ["| target (paper's configuration) | this run | met |", "|---|---|---|"]
    out.append(f"| specialized at line rate from 64 B blocks | from {first_line_rate:.0f} B "
               f"({gbit(64, 'specialized'):.0f} of {line:.0f} Gbit/s at 64 B) | "
               f"{'yes' if first_line_rate and first_line_rate <= 64 else 'no'} |")
    out.append("| RW-CP handler within 2x of specialized | "
               f"{min(ratios):.1f}x to {max(ratios):.1f}x (γ 1 to 16) | "
               f"{'yes' if max(ratios) <= 2 else 'no'} |")
    below = all(gbit(b, s) <= gbit(b, "rw-cp") * 1.001 for b in f8 for s in ("hpu-local", "ro-cp"))
    out.append(f"| HPU-local and RO-CP below RW-CP | {'at every block size' if below else 'not everywhere'} | "
               f"{'yes' if below else 'no'} |")
    out.append(f"| every offload strategy slower than host at 4 B | host {host4:.1f} Gbit/s; "
               + ", ".join(f"{s} {gbit(4, s):.1f}" for s in OFFLOAD)
               + f" | {'yes' if len(slower4) == len(OFFLOAD) else 'no'} |")
    out.append("| RW-CP >= 5x host, few blocks per packet | "
               + ", ".join(f"{r['layout']} (γ {r['gamma']:.0f}) {run(r, 'rw-cp')['speedup']:.1f}x"
                           for r in few)
               + f" | {sum(1 for r in few if run(r, 'rw-cp')['speedup'] >= 5)} of {len(few)} |")
    out.append("| no speedup with hundreds of blocks per packet (SPECFEM3D oc) | "
               + ", ".join(f"γ {r['gamma']:.0f}, {r['packets']} packets: "
                           f"{run(r, 'rw-cp')['speedup']:.2f}x" for r in oc)
               + f" | {'yes' if oc and all(run(r, 'rw-cp')['speedup'] <= 1 for r in oc) else 'no'} |")
    out.append(f"| most layouts amortize checkpoints within 4 reuses | {amortized} of {len(apps)} |"
               f" {'yes' if amortized * 2 > len(apps) else 'no'} |")
    total = sum(len(r["runs"]) for r in doc["results"])
    same = sum(1 for r in doc["results"] for x in r["runs"]
               if x["replay"] in ("identical", "reference", "host fallback"))
    out.append(f"| every simulated message replays identical | {same} of {total} runs | "
               f"{'yes' if same == total else 'no'} |")
    return "\n".join(out)


FIGURES = [("sim-fig8.png", fig8), ("sim-fig12.png", fig12), ("sim-fig13.png", fig13),
           ("sim-fig16.png", fig16), ("sim-fig17.png", fig17), ("sim-fig18.png", fig18)]


def main():
    parser = argparse.ArgumentParser(prog=PROG, description="PNG plots of loom sim --figures.")
    parser.add_argument("dir", help="the directory loom sim --figures wrote (sim.json)")
    parser.add_argument("-o", "--outdir", help="where the PNGs go (default: DIR)")
    parser.add_argument("--table", action="store_true",
                        help="print the README's results table (Markdown) instead of plotting")
    args = parser.parse_args()
    if args.table:
        try:
            print(table(load(os.path.join(args.dir, "sim.json"))))
        except (Unusable, KeyError, TypeError, ValueError, StopIteration) as e:
            print(f"{PROG}: {args.dir}: {e}", file=sys.stderr)
            return 2
        return 0
    if matplotlib is None:
        print(f"{PROG}: matplotlib is missing (Debian: apt-get install python3-matplotlib)",
              file=sys.stderr)
        return 3
    outdir = args.outdir or args.dir
    os.makedirs(outdir, exist_ok=True)
    try:
        doc = load(os.path.join(args.dir, "sim.json"))
        for name, plot in FIGURES:
            path = os.path.join(outdir, name)
            try:
                plot(doc, path)
            except (KeyError, TypeError, ValueError, IndexError, StopIteration) as e:
                raise Unusable(f"wrong shape for {name}: {type(e).__name__}: {e}") from e
            plt.close("all")
            print(path)
    except Unusable as e:
        print(f"{PROG}: {args.dir}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
