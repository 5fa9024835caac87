#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turns sl_bench.ko's result lines into the in-kernel benchmark report.

Reads the lines the guest collected (tools/bench/kernel/guest-bench-kernel.sh
writes them to results.txt) and writes, into OUTDIR:
  kernel.json  {"machine": {...}, "results": [...], "ratios": [...],
               "frag_scaling": [...], "goals": [...]}: every result line as
               a record, every ratio the tables show, and each goal with
               its figure on every key set and its verdict on the worst
               realistic set (every set but the evenly spaced one);
  kernel.md    the tables: the goals, each index workload on each key set
               with the skiplist's ratio to each peer, the allocators'
               churn and fragmented figures (frag and frag-align) with
               ratios against the rbtree allocator and alloc_iova_fast, and
               the 1M/1K growth of one allocation in each fragmented space;
  kernel.rst   the churn table in the form Documentation/extent.rst shows;
  kernel.png   grouped bars of the same (log scale).
With --readme and --doc it also rewrites the BENCH-KERNEL sections of
README.md and of a Documentation page (the goals, and the churn and
fragmented tables), so that they are never typed by hand.

The native build of the allocator workloads (native/sl_bench_native)
prints the same lines; --name alloc-native writes its report under that
name, headed as a native run, and --doc rewrites the page's
BENCH-ALLOC-NATIVE section (the README has none).

Usage: report.py RESULTS.txt [--out DIR] [--name NAME] [--wall-seconds S]
                 [--readme README.md] [--doc Documentation/extent.rst]
"""

import argparse
import datetime
import json
import os
import platform
import re
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from rst_table import rst_table  # noqa: E402

INDEXES = ["skiplist", "rbtree-spin", "rbtree-rw", "maple", "xarray"]
INDEX_WORKLOADS = ["lookup", "overlap", "range16", "scan", "mix50", "insdel",
                   "fill"]
ALLOCATORS = ["skiplist", "skiplist-cache", "rbtree", "maple", "iova",
              "iova-fast"]
OURS = ["skiplist", "skiplist-cache"]
ALLOC_WORKLOADS = ["churn", "frag", "frag-align"]
FRAG_TARGET = 3.0  # skiplist: one allocation at the largest size / smallest
KEYSETS = ["even", "uniform", "extents", "clustered", "geometric"]
KEYSET_ABOUT = {
    "even": "[16i, 16i + 8), every key a multiple of one stride, the one "
            "distribution where the skiplist's interpolated guesses are exact",
    "uniform": "8-unit extents at uniformly random 64-bit keys",
    "extents": "files 1-2 TiB apart, each a contiguous run of 4 KiB to 1 MiB "
               "extents, lookups at a random byte of an extent",
    "clustered": "90% of the keys in 0.1% of the space",
    "geometric": "gaps spread over every scale (2^k plus up to 2^k, k from 3 "
                 "to 40)",
}

UNITS = {"scan": "M extents/s", "fill": "M inserts/s"}


def parse(path):
    """Result records, the machine line and error lines of a results file.
    "load before=L" and "load after=L" lines (the host's load average
    around a native run) join the machine's fields as load_before and
    load_after."""
    results, errors, machine, done, load = [], [], {}, [], {}
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            if words[0] == "machine":
                machine = fields
            elif words[0] == "error":
                errors.append(fields)
            elif words[0] == "done":
                done.append(fields)
            elif words[0] == "load":
                load.update(fields)
            elif words[0] == "result":
                rec = {}
                names = {"min": "ops_per_sec_min", "max": "ops_per_sec_max"}
                for k, v in fields.items():
                    k = names.get(k, k)
                    try:
                        rec[k] = int(v)
                    except ValueError:
                        rec[k] = v
                results.append(rec)
    machine.update({f"load_{k}": v for k, v in load.items()})
    return results, errors, machine, done


def host_info(native=False):
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    if native:
        return f"{cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}"
    accel = "tcg"
    kvm = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "../../../build/vm/kvm")
    try:
        with open(kvm) as f:
            accel = "kvm" if f.read().strip() == "yes" else "tcg"
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}, "
            f"QEMU {'KVM' if accel == 'kvm' else 'TCG (software emulation)'}")


def index_of(results):
    return {(r["workload"], r["impl"], r["items"], r["threads"],
             r.get("keyset")): r for r in results}


def mops(r):
    return r["ops_per_sec"] / 1e6 if r else None


def fmt(v, digits=3):
    if v is None:
        return "n/a"
    if v >= 100:
        return f"{v:.0f}"
    return f"{v:.{digits}g}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_ratio(v):
    return "n/a" if v is None else f"{v:.2f}x"


def sizes_of(results, workloads):
    return sorted({r["items"] for r in results if r["workload"] in workloads})


def threads_of(results, workloads):
    return sorted({r["threads"] for r in results if r["workload"] in workloads})


def keysets_of(results):
    present = {r.get("keyset") for r in results
               if r["workload"] in INDEX_WORKLOADS}
    return [k for k in KEYSETS if k in present]


def index_tables(results, idx, ratios, md):
    present = [i for i in INDEXES if any(r["impl"] == i and
               r["workload"] in INDEX_WORKLOADS for r in results)]
    peers = [p for p in present if p != "skiplist"]
    if not present:
        return
    md.append("## Indexes\n")
    md.append("Throughput in millions of operations per second (scan: extents "
              "visited; fill: the random-order preload, one thread), and the "
              "skiplist's ratio to each peer (above 1: the skiplist is "
              "faster), on each key set (tools/bench/kernel/keyset.h): "
              + "; ".join(f"{k}: {KEYSET_ABOUT[k]}" for k in keysets_of(results))
              + ".  The XArray runs on the even set only (random 64-bit keys "
              "would each need a chain of nodes of their own).\n")
    for ks in keysets_of(results):
        md.append(f"### Key set: {ks}\n")
        head = ["workload", "items", "threads"] + [f"{p} Mops/s" for p in present]
        head += [f"vs {p}" for p in peers]
        md.append("| " + " | ".join(head) + " |")
        md.append("|" + "---|" * 3 + "---:|" * (len(head) - 3))
        for w in INDEX_WORKLOADS:
            for n in sizes_of(results, [w]):
                for t in threads_of(results, [w]):
                    row = [idx.get((w, p, n, t, ks)) for p in present]
                    if not any(row):
                        continue
                    ours = mops(idx.get((w, "skiplist", n, t, ks)))
                    cells = [w, str(n), str(t)] + [fmt(mops(r)) for r in row]
                    for p in peers:
                        v = ratio(ours, mops(idx.get((w, p, n, t, ks))))
                        cells.append(fmt_ratio(v))
                        if v is not None:
                            ratios.append({"kind": "index", "keyset": ks,
                                           "workload": w, "items": n,
                                           "threads": t, "impl": "skiplist",
                                           "peer": p, "ratio": v})
                    md.append("| " + " | ".join(cells) + " |")
        md.append("")


def frag_table(results, idx, ratios, scaling, md, workload):
    frag = [r for r in results if r["workload"] == workload]
    if not frag:
        return
    present = [a for a in ALLOCATORS if any(r["impl"] == a for r in frag)]
    peers = [p for p in ("rbtree", "iova-fast", "iova", "maple")
             if p in present]
    if workload == "frag":
        md.append("## Allocators: fragmented space\n")
        md.append("N live one-page ranges with one-page holes, and the only gap "
                  "that fits a two-page request at the far end of each "
                  "allocator's search direction.  One operation: allocate the "
                  "two pages and free them, free the range at the near end and "
                  "reserve it again.  Microseconds per operation (in brackets: "
                  "inside the allocation), and the skiplist allocator's speed-up "
                  "over each peer (its time divided by ours).\n")
    else:
        md.append("## Allocators: fragmented space, every hole misaligned\n")
        md.append("N live one-page ranges at every even page, one-page holes at "
                  "the odd ones, and a request of one page aligned to two, which "
                  "only the far end holds: every hole fits the size and none the "
                  "alignment (the IOVA allocator aligns only to the size and "
                  "sits this out).  The same operation and columns as above.\n")
    head = ["items"] + [f"{a} us/op" for a in present]
    head += [f"vs {p}" for p in peers]
    md.append("| " + " | ".join(head) + " |")
    md.append("|---:|" + "---:|" * (len(head) - 1))
    sizes = sizes_of(results, [workload])
    for n in sizes:
        cells = [str(n)]
        for a in present:
            r = idx.get((workload, a, n, 1, None))
            cells.append("n/a" if not r else
                         f"{r['ns_per_op'] / 1e3:.1f} ({r['alloc_ns'] / 1e3:.1f})")
        ours = idx.get((workload, "skiplist", n, 1, None))
        for p in peers:
            theirs = idx.get((workload, p, n, 1, None))
            v = ratio(theirs and theirs["ns_per_op"],
                      ours and ours["ns_per_op"])
            cells.append(fmt_ratio(v))
            if v is not None:
                ratios.append({"kind": workload, "workload": workload,
                               "items": n, "threads": 1, "impl": "skiplist",
                               "peer": p, "ratio": v,
                               "meaning": "peer ns/op over ours"})
        md.append("| " + " | ".join(cells) + " |")
    md.append("")
    if len(sizes) < 2:
        return
    lo, hi = sizes[0], sizes[-1]
    md.append(f"Growth of the time of one allocation from {lo} to {hi} live "
              f"ranges ({hi // lo}x more), and of the whole operation; the "
              f"skiplist allocator's target is at most {FRAG_TARGET:g}x for the "
              "allocation:\n")
    md.append("| allocator | alloc us at %d | alloc us at %d | alloc ratio | op ratio | "
              "rounds' spread at %d | target met |" % (lo, hi, hi))
    md.append("|---|---:|---:|---:|---:|---:|---|")
    for a in present:
        a_lo = idx.get((workload, a, lo, 1, None))
        a_hi = idx.get((workload, a, hi, 1, None))
        if not a_lo or not a_hi:
            continue
        v = a_hi["alloc_ns"] / a_lo["alloc_ns"]
        v_op = a_hi["ns_per_op"] / a_lo["ns_per_op"]
        met = None
        if a == "skiplist":
            met = v <= FRAG_TARGET
        scaling.append({"workload": workload, "impl": a, "items_low": lo,
                        "items_high": hi, "alloc_ns_low": a_lo["alloc_ns"],
                        "alloc_ns_high": a_hi["alloc_ns"], "ratio": v,
                        "ns_per_op_low": a_lo["ns_per_op"],
                        "ns_per_op_high": a_hi["ns_per_op"], "op_ratio": v_op,
                        "spread_high": (a_hi["ops_per_sec_max"] /
                                        max(1, a_hi["ops_per_sec_min"])),
                        "target": FRAG_TARGET if a == "skiplist" else None,
                        "met": met})
        md.append(f"| {a} | {a_lo['alloc_ns'] / 1e3:.1f} | "
                  f"{a_hi['alloc_ns'] / 1e3:.1f} | {v:.2f}x | {v_op:.2f}x | "
                  f"{a_hi['ops_per_sec_max'] / max(1, a_hi['ops_per_sec_min']):.1f}x | "
                  f"{'n/a' if met is None else ('yes' if met else '**no**')} |")
    md.append("")


def alloc_tables(results, idx, ratios, scaling, md):
    present = [a for a in ALLOCATORS if any(r["impl"] == a and
               r["workload"] in ALLOC_WORKLOADS for r in results)]
    peers = [p for p in ("rbtree", "iova-fast", "iova", "maple")
             if p in present]
    churn = [r for r in results if r["workload"] == "churn"]
    if churn:
        md.append("## Allocators: churn\n")
        md.append("Each thread frees its oldest of 64 live ranges and "
                  "allocates one of 1-32 pages (size-aligned); millions of "
                  "free+alloc pairs per second, and the skiplist allocator's "
                  "ratio to each peer, without (skiplist) and with "
                  "(skiplist-cache) its per-CPU caches of freed ranges.\n")
        head = ["threads", "ours"] + [f"{a} Mops/s" for a in present]
        head += [f"vs {p}" for p in peers]
        md.append("| " + " | ".join(head) + " |")
        md.append("|---|---|" + "---:|" * (len(head) - 2))
        for t in threads_of(results, ["churn"]):
            for base in [a for a in OURS if a in present]:
                ours = mops(idx.get(("churn", base, 0, t, None)))
                cells = [str(t), base]
                cells += [fmt(mops(idx.get(("churn", a, 0, t, None))))
                          for a in present]
                for p in peers:
                    v = ratio(ours, mops(idx.get(("churn", p, 0, t, None))))
                    cells.append(fmt_ratio(v))
                    if v is not None:
                        ratios.append({"kind": "churn", "workload": "churn",
                                       "items": 0, "threads": t,
                                       "impl": base, "peer": p, "ratio": v})
                md.append("| " + " | ".join(cells) + " |")
        md.append("")
    frag_table(results, idx, ratios, scaling, md, "frag")
    frag_table(results, idx, ratios, scaling, md, "frag-align")


def goals_of(results, idx, scaling, native=False):
    """Each goal's figure on each key set, judged on the worst realistic
    set (every set but even); allocator goals have one figure."""
    goals = []
    keysets = keysets_of(results)
    iw = [r for r in results if r["workload"] in ("lookup", "mix50")]
    if iw:
        n = max(r["items"] for r in iw)
        t = max(r["threads"] for r in iw)
        for w, peer, target, what in [
                ("lookup", "maple", 1.5, "lookups"),
                ("lookup", "rbtree-rw", 2.5, "lookups"),
                ("mix50", "maple", 3.0, "50/50 lookup/update mix")]:
            per = {}
            for ks in keysets:
                per[ks] = ratio(mops(idx.get((w, "skiplist", n, t, ks))),
                                mops(idx.get((w, peer, n, t, ks))))
            real = {k: v for k, v in per.items() if k != "even" and v is not None}
            worst = min(real, key=real.get) if real else None
            goals.append({"goal": f"{what}, {n} items, {t} kthreads, vs {peer}",
                          "target": f">= {target:g}x", "per_keyset": per,
                          "worst_realistic": {"keyset": worst,
                                              "measured": real.get(worst)},
                          "met": bool(real) and real[worst] >= target})
    for sc in scaling:
        if sc["impl"] != "skiplist":
            continue
        layout = ("fragmented space" if sc["workload"] == "frag" else
                  "fragmented space, every hole misaligned (frag-align)")
        goals.append({"goal": f"{layout}: one allocation at {sc['items_high']} "
                      f"live ranges / at {sc['items_low']}",
                      "target": f"<= {FRAG_TARGET:g}x", "per_keyset": None,
                      "worst_realistic": {"keyset": None, "measured": sc["ratio"]},
                      "met": sc["met"]})
    if any(r["workload"] == "churn" for r in results):
        t = max(threads_of(results, ["churn"]))
        for base in OURS:
            for peer, target in [("rbtree", 2.0), ("iova-fast", 1.0)]:
                v = ratio(mops(idx.get(("churn", base, 0, t, None))),
                          mops(idx.get(("churn", peer, 0, t, None))))
                if v is None:
                    continue
                goals.append({"goal": f"alloc/free churn, {t} {'threads' if native else 'kthreads'}, {base} vs {peer}",
                              "target": f">= {target:g}x", "per_keyset": None,
                              "worst_realistic": {"keyset": None, "measured": v},
                              "met": v >= target})
    return goals


def goal_rows(goals, keysets):
    rows = []
    for g in goals:
        w = g["worst_realistic"]
        per = g["per_keyset"]
        cells = [g["goal"], g["target"]]
        cells += [fmt_ratio(per.get(k)) if per else "" for k in keysets]
        cells.append(f"{fmt_ratio(w['measured'])}" +
                     (f" ({w['keyset']})" if w["keyset"] else ""))
        cells.append("yes" if g["met"] else "**no**")
        rows.append(cells)
    return rows


def rst(results, idx, machine, threads="kthreads"):
    """The churn table as Documentation/extent.rst shows it (Mops/s per
    allocator and @threads count)."""
    out = [f".. guest kernel {machine.get('kernel', '?')}, "
           f"{machine.get('vcpus', '?')} vCPUs, {machine.get('cell_ms', '?')}"
           f" ms x {machine.get('rounds', '?')} rounds per cell, medians", ""]
    present = [a for a in ALLOCATORS if any(r["impl"] == a and
               r["workload"] == "churn" for r in results)]
    if present:
        rows = [[str(t)] + [fmt(mops(idx.get(("churn", a, 0, t, None))))
                            for a in present]
                for t in threads_of(results, ["churn"])]
        out += rst_table([threads] + present, rows)
    else:
        out.append(".. no churn results in this run")
    return "\n".join(out) + "\n"


def plot(results, idx, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = []
    # fill runs with one thread only: it is in the tables, not here.
    iw = [w for w in INDEX_WORKLOADS if w != "fill" and
          any(r["workload"] == w for r in results)]
    if iw:
        n = max(sizes_of(results, iw))
        t = max(threads_of(results, iw))
        for ks in keysets_of(results):
            panels.append(("index", iw, n, t, ks))
    if any(r["workload"] == "churn" for r in results):
        panels.append(("churn", None, 0, None, None))
    for fw in ("frag", "frag-align"):
        if any(r["workload"] == fw for r in results):
            panels.append((fw, None, None, 1, None))
    if not panels:
        return
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, 3.8 * len(panels)))
    if len(panels) == 1:
        axes = [axes]
    for ax, (kind, workloads, n, t, ks) in zip(axes, panels):
        if kind == "index":
            groups = [w for w in workloads
                      if any(idx.get((w, i, n, t, ks)) for i in INDEXES)]
            impls = INDEXES
            value = lambda g, i: mops(idx.get((g, i, n, t, ks)))  # noqa: E731
            ax.set_title(f"Indexes, key set {ks}, {n} items, {t} threads")
            ax.set_ylabel("Mops/s (log)")
        elif kind == "churn":
            groups = [str(x) for x in threads_of(results, ["churn"])]
            impls = ALLOCATORS
            value = lambda g, i: mops(idx.get(("churn", i, 0, int(g), None)))  # noqa: E731
            ax.set_title("Allocators, churn (groups: threads)")
            ax.set_ylabel("M alloc+free/s (log)")
        else:
            groups = [str(x) for x in sizes_of(results, [kind])]
            impls = ALLOCATORS

            def value(g, i, kind=kind):
                r = idx.get((kind, i, int(g), 1, None))
                return r["alloc_ns"] / 1e3 if r else None
            ax.set_title(f"Allocators, {kind} (groups: live ranges; "
                         "lower is better)")
            ax.set_ylabel("us per allocation (log)")
        impls = [i for i in impls if any(value(g, i) for g in groups)]
        width = 0.8 / max(1, len(impls))
        for k, impl in enumerate(impls):
            xs, ys = [], []
            for j, g in enumerate(groups):
                v = value(g, impl)
                if v:
                    xs.append(j + (k - (len(impls) - 1) / 2) * width)
                    ys.append(v)
            ax.bar(xs, ys, width, label=impl)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(groups)
        ax.set_yscale("log")
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.legend(fontsize="small", ncol=len(impls))
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def replace_block(path, begin, end, lines):
    """Rewrite the text between the markers @begin and @end of @path."""
    if not path or not os.path.exists(path):
        return
    text = open(path).read()
    pat = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if pat.search(text):
        text = pat.sub(lambda _: "\n".join(lines), text)
        with open(path, "w") as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="results.txt from the guest")
    ap.add_argument("--out", default="build/bench",
                    help="directory for kernel.{json,md,rst,png} (default %(default)s)")
    ap.add_argument("--name", default="kernel",
                    help="base name of the files written (default %(default)s)")
    ap.add_argument("--wall-seconds", type=float,
                    help="how long the VM run took, for the record")
    ap.add_argument("--readme", help="README.md whose BENCH-KERNEL section to rewrite")
    ap.add_argument("--doc", help="a Documentation page whose BENCH-KERNEL "
                    "section to rewrite")
    args = ap.parse_args()

    results, errors, machine, done = parse(args.results)
    if not results:
        sys.exit(f"report.py: no result lines in {args.results}")
    idx = index_of(results)
    ratios, scaling, md = [], [], []
    # When the results were written, so that a report rerun later says so.
    when = datetime.datetime.fromtimestamp(
        os.path.getmtime(args.results),
        datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    module_s = sum(int(d.get("seconds", 0)) for d in done)
    native = machine.get("native") == "1"
    host = host_info(native)
    if native:
        md.append("# Allocator workloads of sl_bench.ko, built natively\n")
        md.append(f"Measured by `make bench-alloc-native` on {host_info(native=True)}: "
                  "the module's churn and frag workloads and allocator files as one "
                  "userspace program, the skiplist's allocator and the kernel's IOVA "
                  "allocator (drivers/iommu/iova.c) on the same userspace shim; "
                  f"{machine.get('cell_ms', '?')} ms per round, the median of "
                  f"{machine.get('rounds', '?')} rounds per cell; {when}.  "
                  f"Time: {module_s} s.\n")
    else:
        md.append("# In-kernel benchmark (sl_bench.ko)\n")
        md.append(f"Measured by `make bench-kernel` on {host}; guest kernel "
                  f"{machine.get('kernel', '?')} with {machine.get('vcpus', '?')} "
                  f"vCPUs; {machine.get('cell_ms', '?')} ms per round, the median "
                  f"of {machine.get('rounds', '?')} rounds per cell; {when}.  Time inside the module: {module_s} s"
                  + (f"; whole VM run: {args.wall_seconds:.0f} s" if args.wall_seconds
                     else "") + ".  Software emulation distorts absolute figures: "
                  "compare peers within this run only.\n")
    bad = [r for r in results if r.get("errors")]
    if errors or bad:
        md.append("**Errors:** " + "; ".join(
            [f"{e.get('workload')} {e.get('impl')} items={e.get('items')}: "
             f"failed ({e.get('ret')})" for e in errors] +
            [f"{r['workload']} {r['impl']} items={r['items']} "
             f"threads={r['threads']}: {r['errors']} wrong answers"
             for r in bad]) + "\n")
    body = []
    index_tables(results, idx, ratios, body)
    alloc_tables(results, idx, ratios, scaling, body)
    goals = goals_of(results, idx, scaling, native)
    keysets = keysets_of(results)
    goal_head = ["goal", "target"] + keysets + ["on the worst realistic set", "met there"]
    goal_md = ["| " + " | ".join(goal_head) + " |",
               "|---|---|" + "---:|" * (len(keysets) + 1) + "---|"]
    goal_md += ["| " + " | ".join(row) + " |" for row in goal_rows(goals, keysets)]
    if goals:
        md += ["## Goals\n",
               "Each goal's figure on every key set, and the verdict on the worst "
               "realistic set (every set but even); the allocator goals have one "
               "figure each.\n"] + goal_md + [""]
    md += body

    os.makedirs(args.out, exist_ok=True)
    doc = {"machine": {"kernel": machine.get("kernel"), "native": native,
                       "vcpus": int(machine.get("vcpus", 0)),
                       "host": host, "cell_ms": int(machine.get("cell_ms", 0)),
                       "rounds": int(machine.get("rounds", 1)),
                       "seed": int(machine.get("seed", 0)), "date": when,
                       "module_seconds": module_s,
                       "wall_seconds": args.wall_seconds},
           "results": results, "ratios": ratios, "frag_scaling": scaling,
           "goals": goals, "failures": errors}
    doc["machine"].update({k: float(v) for k, v in machine.items()
                           if k.startswith("load_")})
    with open(os.path.join(args.out, f"{args.name}.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with open(os.path.join(args.out, f"{args.name}.md"), "w") as f:
        f.write("\n".join(md))
    with open(os.path.join(args.out, f"{args.name}.rst"), "w") as f:
        f.write(rst(results, idx, machine))
    plot(results, idx, os.path.join(args.out, f"{args.name}.png"))

    if native:
        load = ""
        if "load_before" in machine and "load_after" in machine:
            load = (f" (load average {machine['load_before']} at the start, "
                    f"{machine['load_after']} at the end)")
        stamp = (f"on {host_info(native=True)}{load}; {machine.get('cell_ms', '?')} ms "
                 f"per round, the median of {machine.get('rounds', '?')} rounds "
                 f"per cell; {when}")
    else:
        stamp = (f"guest kernel {machine.get('kernel', '?')}, {machine.get('vcpus', '?')} "
                 f"vCPUs, on {host}; {machine.get('cell_ms', '?')} ms per round, the "
                 f"median of {machine.get('rounds', '?')} rounds per cell; {when}")
    churn_rst = rst(results, idx, machine,
                    "threads" if native else "kthreads").splitlines()[2:]
    frag_rows = [[sc["workload"], sc["impl"], f"{sc['alloc_ns_low'] / 1e3:.1f}",
                  f"{sc['alloc_ns_high'] / 1e3:.1f}", f"{sc['ratio']:.2f}x",
                  f"{sc['op_ratio']:.2f}x", f"{sc['spread_high']:.1f}x"]
                 for sc in scaling]
    if not native:
        readme = ["<!-- BENCH-KERNEL:BEGIN (generated by tools/bench/kernel/report.py; do not edit) -->",
                  f"Measured by `make bench-kernel`: {stamp}.  Each goal's figure on "
                  "every key set, and the verdict on the worst realistic set (every "
                  "set but `even`); all tables are in `build/bench/kernel.md`:", ""]
        readme += goal_md + ["<!-- BENCH-KERNEL:END -->"]
        replace_block(args.readme, "<!-- BENCH-KERNEL:BEGIN", "<!-- BENCH-KERNEL:END -->",
                      readme)
    # The Documentation page's section is named for the run: BENCH-KERNEL,
    # BENCH-ALLOC-NATIVE.
    marker = f"BENCH-{args.name.upper()}"
    if native:
        intro = (f"Latest run of ``make bench-alloc-native``: {stamp}.  The "
                 "allocator goals of ``make bench-kernel``, measured natively "
                 "(all tables are in ``build/bench/alloc-native.md``):")
    else:
        intro = (f"Latest run of ``make bench-kernel``: {stamp}.  Each goal's "
                 "figure on every key set (``tools/bench/kernel/keyset.h``), and "
                 "the verdict on the worst realistic set (every set but even); "
                 "the allocator goals have one figure each:")
    doc_rst = [f".. {marker}:BEGIN (generated by tools/bench/kernel/report.py; do not edit)",
               ""] + textwrap.wrap(intro, 75) + [""]
    doc_rst += rst_table(goal_head[:-2] + ["worst realistic set", "met"],
                         [[c.replace("**", "") if c == "**no**" else c for c in row]
                          for row in goal_rows(goals, keysets)])
    if frag_rows:
        doc_rst += [""] + textwrap.wrap(
            "Growth from the fewest to the most live ranges in the fragmented "
            "spaces, microseconds per allocation (spread: the fastest round's "
            "rate over the slowest's at the most ranges; a cell of a few "
            "operations per round carries whatever else the host did):", 75) + [""]
        doc_rst += rst_table(["layout", "allocator", "alloc us, fewest",
                              "alloc us, most", "alloc ratio", "op ratio",
                              "spread"], frag_rows)
    if churn_rst and not churn_rst[0].startswith(".. no churn"):
        doc_rst += ["", "Churn, millions of free+alloc pairs per second:", ""] + churn_rst
    doc_rst += ["", f".. {marker}:END"]
    replace_block(args.doc, f".. {marker}:BEGIN", f".. {marker}:END", doc_rst)
    if errors or bad:
        sys.exit(f"report.py: the run had errors (see {args.name}.md)")


if __name__ == "__main__":
    main()
