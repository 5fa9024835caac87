#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Plot bench_user's user.json as grouped bars: one panel per key set, in
it one group per workload and one bar per index, at one item count and
thread count (by default the largest of each), on a log scale so that
indexes orders of magnitude apart (linear first-fit search, tbb's O(n)
unsafe_erase) still show."""

import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed; we only write a file
import matplotlib.pyplot as plt  # noqa: E402

WORKLOADS = ["insert", "lookup", "mix90", "mix50", "delete", "insert_hole"]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("json", nargs="?", default="build/bench/user.json",
                    help="user.json from bench_user (default %(default)s)")
    ap.add_argument("-o", "--output",
                    help="output image (default: user.png next to the json)")
    ap.add_argument("--items", type=int,
                    help="item count to plot (default: the largest)")
    ap.add_argument("--threads", type=int,
                    help="thread count to plot (default: the largest)")
    args = ap.parse_args()

    with open(args.json) as f:
        data = json.load(f)
    results = data["results"]
    if not results:
        sys.exit("no results in " + args.json)

    items = args.items or max(r["items"] for r in results)
    threads = args.threads or max(r["threads"] for r in results)

    # Keep the driver's order, whose first index is the ratio baseline.
    impls = []
    for r in results:
        if r["impl"] not in impls:
            impls.append(r["impl"])
    keysets = []
    for r in results:
        if r.get("keyset", "even") not in keysets:
            keysets.append(r.get("keyset", "even"))
    fig, axes = plt.subplots(len(keysets), 1,
                             figsize=(11, 3.6 * len(keysets)), squeeze=False)
    m = data.get("machine", {})
    for ax, ks in zip(axes[:, 0], keysets):
        cell = {(r["workload"], r["impl"]): r for r in results
                if r["items"] == items and r["threads"] == threads and
                r.get("keyset", "even") == ks}
        panel(ax, ks, cell, impls, items, threads, m)
    fig.tight_layout()

    out = args.output or os.path.join(os.path.dirname(args.json) or ".",
                                      "user.png")
    fig.savefig(out, dpi=110)
    print("wrote", out)


def panel(ax, ks, cell, impls, items, threads, m):
    workloads = [w for w in WORKLOADS
                 if any((w, i) in cell for i in impls)]
    if not workloads:
        sys.exit(f"no results for items={items} threads={threads}")
    width = 0.8 / len(impls)
    for k, impl in enumerate(impls):
        xs, ys = [], []
        for x, w in enumerate(workloads):
            r = cell.get((w, impl))
            if r and r["ops_per_sec"] > 0:
                xs.append(x + (k - (len(impls) - 1) / 2) * width)
                ys.append(r["ops_per_sec"] / 1e6)
        bars = ax.bar(xs, ys, width, label=impl)
        for bar, x in zip(bars, xs):
            w = workloads[round(x)]
            if cell[(w, impl)].get("partial"):
                bar.set_hatch("//")  # stopped at the time cap

    ax.set_yscale("log")
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels(workloads)
    ax.set_ylabel("Mops/s (log scale)")
    ax.set_title(f"key set {ks}: {items} items, {threads} threads; missing bar = n/a, "
                 f"hatched = partial; {m.get('cpu', '?')}, "
                 f"{m.get('nproc', '?')} CPUs, {m.get('seconds', '?')} s/cell",
                 fontsize=9)
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=len(impls))


if __name__ == "__main__":
    main()
