#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turns a trace of the skiplist's events into pictures.

Reads the text of a trace, either tracefs's own (cat
/sys/kernel/tracing/trace) or `trace-cmd report`'s, and writes:
  latency.png       histograms of the latency of lookups, inserts and
                    insert_hole calls (the ns field of sl_lookup, sl_insert
                    and sl_insert_hole), on log scales;
  leaf_changes.png  leaf splits and merges (sl_leaf_split, sl_leaf_merge)
                    over the trace's time, per interval and in total.
It prints what it found: events per name, and the percentiles of each
latency.  Documentation/tracing.rst says how to record such a trace.

Usage: trace_plot.py TRACE [-o DIR] [--list ID] [--summary FILE.json]
"""

import argparse
import json
import math
import re
import sys
from collections import Counter, defaultdict

# task-pid [cpu] (flags) timestamp: event: fields; trace-cmd's report has
# the same columns, with or without the flags.  The task name may hold
# spaces and dashes: the pid is the last "-digits" before the CPU.
LINE = re.compile(r"^\s*(?P<task>.*)-(?P<pid>\d+)\s+(?:\(\s*\S+\)\s+)?"
                  r"\[(?P<cpu>\d+)\]\s+(?:\S+\s+)?(?P<ts>\d+\.\d+):\s+"
                  r"(?P<event>\w+):\s*(?P<fields>.*)$")
FIELD = re.compile(r"(\w+)=(\S+)")
LATENCY_EVENTS = ("sl_lookup", "sl_insert", "sl_insert_hole")
CHANGE_EVENTS = ("sl_leaf_split", "sl_leaf_merge")


def parse(path, list_id=None):
    """Every event line of the trace: (time, event, fields)."""
    events = []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            fields = dict(FIELD.findall(m.group("fields")))
            if list_id and fields.get("list", list_id) != list_id:
                continue
            events.append((float(m.group("ts")), m.group("event"), fields))
    return events


def percentile(sorted_values, p):
    if not sorted_values:
        return None
    i = min(len(sorted_values) - 1, int(round(p / 100 * (len(sorted_values) - 1))))
    return sorted_values[i]


def summarize(events):
    counts = Counter(e for _, e, _ in events)
    latency = defaultdict(list)
    for _, e, f in events:
        if e in LATENCY_EVENTS and "ns" in f:
            latency[e].append(int(f["ns"]))
    lat = {}
    for e, v in latency.items():
        v.sort()
        lat[e] = {"count": len(v), "p50_ns": percentile(v, 50),
                  "p90_ns": percentile(v, 90), "p99_ns": percentile(v, 99),
                  "max_ns": v[-1]}
    t = [ts for ts, _, _ in events]
    return {"events": dict(counts), "latency": lat,
            "seconds": (max(t) - min(t)) if t else 0.0}, latency


def plot_latency(plt, latency, out):
    fig, ax = plt.subplots(figsize=(8, 4.5))
    top = max(max(v) for v in latency.values())
    low = max(1, min(min(v) for v in latency.values()))
    # Ten bins a decade, from the decade of the fastest call.
    edges = [10.0 ** int(math.log10(low))]
    while edges[-1] < top * 1.2:
        edges.append(edges[-1] * 10 ** 0.1)
    for e in LATENCY_EVENTS:
        v = latency.get(e)
        if not v:
            continue
        p50 = percentile(v, 50)
        p99 = percentile(v, 99)
        ax.hist([max(x, 1) for x in v], bins=edges, histtype="step",
                linewidth=1.5,
                label=f"{e}: {len(v)} calls, p50 {p50} ns, p99 {p99} ns")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("latency (ns, the event's ns field)")
    ax.set_ylabel("calls")
    ax.set_title("Latency of lookups and inserts")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_changes(plt, events, out, bins=50):
    t0 = min(ts for ts, _, _ in events)
    t1 = max(ts for ts, _, _ in events)
    span = max(t1 - t0, 1e-6)
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for e in CHANGE_EVENTS:
        times = sorted(ts - t0 for ts, name, _ in events if name == e)
        if not times:
            continue
        counts = [0] * bins
        for x in times:
            counts[min(bins - 1, int(x / span * bins))] += 1
        centres = [(i + 0.5) * span / bins for i in range(bins)]
        ax.plot(centres, [c / (span / bins) for c in counts], label=e)
        ax2.step(times, range(1, len(times) + 1), where="post",
                 label=f"{e}: {len(times)}")
    ax.set_ylabel("per second")
    ax.set_title("Leaf splits and merges over the trace")
    ax.legend(fontsize=8)
    ax2.set_xlabel("seconds since the trace's first event")
    ax2.set_ylabel("in total")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace", help="tracefs trace text or trace-cmd report output")
    ap.add_argument("-o", "--out", default=".", help="directory for the PNGs")
    ap.add_argument("--list", help="only the events of this list (its list= field)")
    ap.add_argument("--summary", help="also write the summary here, as JSON")
    args = ap.parse_args()

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("trace_plot: matplotlib is missing: apt-get install "
              "python3-matplotlib (make setup installs it)", file=sys.stderr)
        return 1
    try:
        events = parse(args.trace, args.list)
    except OSError as e:
        print(f"trace_plot: cannot read {args.trace}: {e.strerror}", file=sys.stderr)
        return 1
    summary, latency = summarize(events)
    for e, n in sorted(summary["events"].items()):
        print(f"trace_plot: {e}: {n} events")
    for e, s in sorted(summary["latency"].items()):
        print(f"trace_plot: {e}: p50 {s['p50_ns']} ns, p90 {s['p90_ns']} ns, "
              f"p99 {s['p99_ns']} ns, max {s['max_ns']} ns")
    wrote = []
    if latency:
        plot_latency(plt, latency, f"{args.out}/latency.png")
        wrote.append("latency.png")
    if any(e in summary["events"] for e in CHANGE_EVENTS):
        plot_changes(plt, events, f"{args.out}/leaf_changes.png")
        wrote.append("leaf_changes.png")
    summary["pictures"] = wrote
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump(summary, f, indent=1, sort_keys=True)
    if not wrote:
        print(f"trace_plot: {args.trace} has no latency, split or merge "
              "event of the skiplist (enable events/skiplist: "
              "Documentation/tracing.rst)", file=sys.stderr)
        return 1
    print(f"trace_plot: wrote {', '.join(wrote)} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
