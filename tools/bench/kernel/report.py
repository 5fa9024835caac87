#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turns sl_bench.ko's result lines into the in-kernel benchmark report.

Reads the lines the guest collected (tools/bench/kernel/guest-bench-kernel.sh
writes them to results.txt) and writes, into OUTDIR:
  kernel.json  {"machine": {...}, "results": [...], "ratios": [...],
               "frag_scaling": [...]}: every result line as a record, and
               every ratio the tables show;
  kernel.md    the tables: each index workload with the skiplist's ratio to
               each peer, the allocators' churn and fragmented figures with
               ratios against the rbtree allocator and alloc_iova_fast, and
               the 1M/1K fragmented ratio of each allocator;
  kernel.rst   the churn table in the form Documentation/extent.rst shows;
  kernel.png   grouped bars of the same (log scale).

The native build of the allocator workloads (native/sl_bench_native)
prints the same lines; --name alloc-native writes its report under that
name, headed as a native run.

Usage: report.py RESULTS.txt [--out DIR] [--name NAME] [--wall-seconds S]
"""

import argparse
import datetime
import json
import os
import platform
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from rst_table import rst_table  # noqa: E402

INDEXES = ["skiplist", "rbtree-spin", "rbtree-rw", "maple", "xarray"]
INDEX_WORKLOADS = ["lookup", "overlap", "range16", "scan", "mix50", "insdel",
                   "fill"]
ALLOCATORS = ["skiplist", "skiplist-cache", "rbtree", "maple", "iova",
              "iova-fast"]
OURS = ["skiplist", "skiplist-cache"]
ALLOC_WORKLOADS = ["churn", "frag"]
FRAG_TARGET = 3.0  # skiplist: ns per op at the largest size / at the smallest

UNITS = {"scan": "M extents/s", "fill": "M inserts/s"}


def parse(path):
    """Result records, the machine line and error lines of a results file."""
    results, errors, machine, done = [], [], {}, []
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
    return {(r["workload"], r["impl"], r["items"], r["threads"]): r
            for r in results}


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
              "faster).\n")
    head = ["workload", "items", "threads"] + [f"{p} Mops/s" for p in present]
    head += [f"vs {p}" for p in peers]
    md.append("| " + " | ".join(head) + " |")
    md.append("|" + "---|" * 3 + "---:|" * (len(head) - 3))
    for w in INDEX_WORKLOADS:
        for n in sizes_of(results, [w]):
            for t in threads_of(results, [w]):
                row = [idx.get((w, p, n, t)) for p in present]
                if not any(row):
                    continue
                ours = mops(idx.get((w, "skiplist", n, t)))
                cells = [w, str(n), str(t)] + [fmt(mops(r)) for r in row]
                for p in peers:
                    v = ratio(ours, mops(idx.get((w, p, n, t))))
                    cells.append(fmt_ratio(v))
                    if v is not None:
                        ratios.append({"kind": "index", "workload": w,
                                       "items": n, "threads": t,
                                       "impl": "skiplist", "peer": p,
                                       "ratio": v})
                md.append("| " + " | ".join(cells) + " |")
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
                ours = mops(idx.get(("churn", base, 0, t)))
                cells = [str(t), base]
                cells += [fmt(mops(idx.get(("churn", a, 0, t))))
                          for a in present]
                for p in peers:
                    v = ratio(ours, mops(idx.get(("churn", p, 0, t))))
                    cells.append(fmt_ratio(v))
                    if v is not None:
                        ratios.append({"kind": "churn", "workload": "churn",
                                       "items": 0, "threads": t,
                                       "impl": base, "peer": p, "ratio": v})
                md.append("| " + " | ".join(cells) + " |")
        md.append("")

    frag = [r for r in results if r["workload"] == "frag"]
    if not frag:
        return
    # Allocators left out of this workload (churn_only) get no column.
    present = [a for a in present if any(r["impl"] == a for r in frag)]
    md.append("## Allocators: fragmented space\n")
    md.append("N live one-page ranges with one-page holes, and the only gap "
              "that fits a two-page request at the far end of each "
              "allocator's search direction.  One operation: allocate the "
              "two pages and free them, free the range at the near end and "
              "reserve it again.  Microseconds per operation (in brackets: "
              "inside the allocation), and the skiplist allocator's speed-up "
              "over each peer (its time divided by ours).\n")
    head = ["items"] + [f"{a} us/op" for a in present]
    head += [f"vs {p}" for p in peers]
    md.append("| " + " | ".join(head) + " |")
    md.append("|---:|" + "---:|" * (len(head) - 1))
    sizes = sizes_of(results, ["frag"])
    for n in sizes:
        cells = [str(n)]
        for a in present:
            r = idx.get(("frag", a, n, 1))
            cells.append("n/a" if not r else
                         f"{r['ns_per_op'] / 1e3:.1f} ({r['alloc_ns'] / 1e3:.1f})")
        ours = idx.get(("frag", "skiplist", n, 1))
        for p in peers:
            theirs = idx.get(("frag", p, n, 1))
            v = ratio(theirs and theirs["ns_per_op"],
                      ours and ours["ns_per_op"])
            cells.append(fmt_ratio(v))
            if v is not None:
                ratios.append({"kind": "frag", "workload": "frag", "items": n,
                               "threads": 1, "impl": "skiplist", "peer": p,
                               "ratio": v, "meaning": "peer ns/op over ours"})
        md.append("| " + " | ".join(cells) + " |")
    md.append("")
    if len(sizes) < 2:
        return
    lo, hi = sizes[0], sizes[-1]
    md.append(f"Growth of the time per operation from {lo} to {hi} live "
              f"ranges ({hi // lo}x more); the skiplist allocator's target is "
              f"at most {FRAG_TARGET:g}x:\n")
    md.append("| allocator | us/op at %d | us/op at %d | ratio | target met |"
              % (lo, hi))
    md.append("|---|---:|---:|---:|---|")
    for a in present:
        a_lo, a_hi = idx.get(("frag", a, lo, 1)), idx.get(("frag", a, hi, 1))
        if not a_lo or not a_hi:
            continue
        v = a_hi["ns_per_op"] / a_lo["ns_per_op"]
        met = None
        if a == "skiplist":
            met = v <= FRAG_TARGET
        scaling.append({"impl": a, "items_low": lo, "items_high": hi,
                        "ns_per_op_low": a_lo["ns_per_op"],
                        "ns_per_op_high": a_hi["ns_per_op"], "ratio": v,
                        "target": FRAG_TARGET if a == "skiplist" else None,
                        "met": met})
        md.append(f"| {a} | {a_lo['ns_per_op'] / 1e3:.1f} | "
                  f"{a_hi['ns_per_op'] / 1e3:.1f} | {v:.2f}x | "
                  f"{'n/a' if met is None else ('yes' if met else '**no**')} |")
    md.append("")


def rst(results, idx, machine):
    """The churn table as Documentation/extent.rst shows it (Mops/s per
    allocator and kthread count): pasted from here, not retyped."""
    out = [f".. guest kernel {machine.get('kernel', '?')}, "
           f"{machine.get('vcpus', '?')} vCPUs, {machine.get('cell_ms', '?')}"
           f" ms x {machine.get('rounds', '?')} rounds per cell, medians", ""]
    present = [a for a in ALLOCATORS if any(r["impl"] == a and
               r["workload"] == "churn" for r in results)]
    if present:
        rows = [[str(t)] + [fmt(mops(idx.get(("churn", a, 0, t))))
                            for a in present]
                for t in threads_of(results, ["churn"])]
        out += rst_table(["kthreads"] + present, rows)
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
        panels.append(("index", iw, n, t))
    if any(r["workload"] == "churn" for r in results):
        panels.append(("churn", None, 0, None))
    if any(r["workload"] == "frag" for r in results):
        panels.append(("frag", None, None, 1))
    if not panels:
        return
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, 4.2 * len(panels)))
    if len(panels) == 1:
        axes = [axes]
    for ax, (kind, workloads, n, t) in zip(axes, panels):
        if kind == "index":
            groups, impls = workloads, INDEXES
            value = lambda g, i: mops(idx.get((g, i, n, t)))  # noqa: E731
            ax.set_title(f"Indexes, {n} items, {t} threads")
            ax.set_ylabel("Mops/s (log)")
        elif kind == "churn":
            groups = [str(x) for x in threads_of(results, ["churn"])]
            impls = ALLOCATORS
            value = lambda g, i: mops(idx.get(("churn", i, 0, int(g))))  # noqa: E731
            ax.set_title("Allocators, churn (groups: threads)")
            ax.set_ylabel("M alloc+free/s (log)")
        else:
            groups = [str(x) for x in sizes_of(results, ["frag"])]
            impls = ALLOCATORS

            def value(g, i):
                r = idx.get(("frag", i, int(g), 1))
                return r["ns_per_op"] / 1e3 if r else None
            ax.set_title("Allocators, fragmented space (groups: live ranges; lower is better)")
            ax.set_ylabel("us per operation (log)")
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
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="results.txt from the guest")
    ap.add_argument("--out", default="build/bench",
                    help="directory for kernel.{json,md,rst,png} (default %(default)s)")
    ap.add_argument("--name", default="kernel",
                    help="base name of the files written (default %(default)s)")
    ap.add_argument("--wall-seconds", type=float,
                    help="how long the VM run took, for the record")
    args = ap.parse_args()

    results, errors, machine, done = parse(args.results)
    if not results:
        sys.exit(f"report.py: no result lines in {args.results}")
    idx = index_of(results)
    ratios, scaling, md = [], [], []
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    host = host_info()
    module_s = sum(int(d.get("seconds", 0)) for d in done)
    native = machine.get("native") == "1"
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
    index_tables(results, idx, ratios, md)
    alloc_tables(results, idx, ratios, scaling, md)

    os.makedirs(args.out, exist_ok=True)
    doc = {"machine": {"kernel": machine.get("kernel"), "native": native,
                       "vcpus": int(machine.get("vcpus", 0)),
                       "host": host, "cell_ms": int(machine.get("cell_ms", 0)),
                       "rounds": int(machine.get("rounds", 1)),
                       "seed": int(machine.get("seed", 0)), "date": when,
                       "module_seconds": module_s,
                       "wall_seconds": args.wall_seconds},
           "results": results, "ratios": ratios, "frag_scaling": scaling,
           "failures": errors}
    with open(os.path.join(args.out, f"{args.name}.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with open(os.path.join(args.out, f"{args.name}.md"), "w") as f:
        f.write("\n".join(md))
    with open(os.path.join(args.out, f"{args.name}.rst"), "w") as f:
        f.write(rst(results, idx, machine))
    plot(results, idx, os.path.join(args.out, f"{args.name}.png"))
    if errors or bad:
        sys.exit(f"report.py: the run had errors (see {args.name}.md)")


if __name__ == "__main__":
    main()
