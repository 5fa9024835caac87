#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns the guest's fio runs on /dev/slblkN into the IOMMU benchmark report.

Each cell is one fio run of one workload (seqwrite, randread, randwrite,
randread-1job, mixed, ...) against one IOVA backend (none, rbtree, iova,
maple, skiplist, ...).  The input DIR, written by the guest benchmark
script, holds:
  machine.txt              key=value lines: kernel, vcpus, accel,
                           runtime_s (seconds per cell), date;
  WORKLOAD--BACKEND.json   fio --output-format=json (group_reporting);
                           any text before the first '{' is skipped;
  WORKLOAD--BACKEND.cpu    the first line of /proc/stat ("cpu  user nice
                           system idle iowait irq softirq steal ...")
                           before and after the run;
  WORKLOAD--BACKEND.err    fio's stderr (not read).

With several rounds, each is a subdirectory r1, r2, ... of DIR holding
the cells above (machine.txt stays in DIR), and every figure is the median
over the rounds.

Every workload seen is expected with every backend seen; a cell whose
json is missing, unparsable or reports a fio error is a failed cell.

Writes, into OUTDIR (default: DIR's parent):
  iommu.json  {"machine": {...}, "results": [...], "ratios": [...],
              "goals": [...]};
  iommu.rst   the MB/s and goals tables as Documentation/iommu_demo.rst
              shows them
  iommu.md    MB/s, IOPS, p99 latency, system and user CPU tables (a row per
              workload, a column per backend), the skiplist's MB/s ratio
              to each other backend, the goals and seed 004's figures;
  iommu.png   grouped bars of MB/s and IOPS (log scale) per workload;
and prints iommu.md.  With --doc it also rewrites the BENCH-IOMMU section
of a Documentation page (Documentation/iommu_demo.rst): the run, the host
it ran on, and the MB/s and goals tables, so that they are never typed by
hand.  Exits 1 if any cell failed (after writing all).

Usage: report.py DIR [--out OUTDIR] [--wall-seconds S] [--doc PAGE]
"""

import argparse
import json
import os
import platform
import re
import statistics
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from rst_table import rst_table  # noqa: E402

BACKENDS = ["none", "rbtree", "iova", "maple", "skiplist", "skiplist-nocache"]
WORKLOADS = ["seqwrite", "randread", "randwrite", "randread-1job", "mixed"]
BASE = "skiplist"
PEERS = ["none", "rbtree", "iova", "maple"]

# (workload, other backend, minimum skiplist/other MB/s ratio)
GOALS = [
    ("randread", "none", 0.90),
    ("randwrite", "none", 0.90),
    ("randread", "rbtree", 5.0),
    ("randwrite", "rbtree", 5.0),
    ("randread", "iova", 1.0),
    ("randwrite", "iova", 1.0),
    ("seqwrite", "none", 0.95),
]

SEED = ("Seed 004 (2013, bare metal, 16 threads, iodepth 10): random reads "
        "none 2861, skiplist 2484, rbtree 99 MB/s; random writes none 2548, "
        "skiplist 1649, rbtree 33 MB/s; streaming writes none 2575, "
        "skiplist 1715, rbtree 1659 MB/s.")


def ordered(names, known):
    """The known names first, in their order, then the rest sorted."""
    names = set(names)
    return [n for n in known if n in names] + \
        sorted(n for n in names if n not in known)


def to_int(v, default=None):
    try:
        return int(str(v).strip())
    except (TypeError, ValueError):
        return default


def read_machine(path):
    """machine.txt as a dict; vcpus and runtime_s as ints."""
    m = {"kernel": None, "vcpus": None, "accel": None, "runtime_s": None,
         "date": None}
    try:
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    m[k.strip()] = v.strip()
    except OSError as e:
        print(f"report.py: {path}: {e.strerror}", file=sys.stderr)
    for k in ("vcpus", "runtime_s"):
        if m[k] is not None:
            m[k] = to_int(m[k], m[k])
    return m


def find_cells(indir):
    """The sorted workloads and backends named by WORKLOAD--BACKEND.* files."""
    workloads, backends = set(), set()
    for name in os.listdir(indir):
        stem, ext = os.path.splitext(name)
        if ext not in (".json", ".cpu", ".err") or "--" not in stem:
            continue
        w, b = stem.rsplit("--", 1)
        if w and b:
            workloads.add(w)
            backends.add(b)
    return ordered(workloads, WORKLOADS), ordered(backends, BACKENDS)


def load_fio(path):
    """The fio document in path; text before the first '{' is skipped."""
    with open(path, errors="replace") as f:
        text = f.read()
    start = text.find("{")
    if start < 0:
        raise ValueError("no JSON object in fio output")
    doc, _ = json.JSONDecoder().raw_decode(text[start:])
    if not isinstance(doc, dict) or not doc.get("jobs"):
        raise ValueError("fio output has no jobs")
    return doc


def option(job, doc, name, default=None):
    """A fio job option, from the job's options or the global ones."""
    for opts in (job.get("job options") or {}, doc.get("global options") or {}):
        if name in opts:
            return opts[name]
    return default


def p99_us(job):
    """The worst p99 completion latency (us) over the directions with I/O."""
    worst = None
    for d in ("read", "write", "trim"):
        st = job.get(d) or {}
        if not st.get("io_bytes"):
            continue
        pct = (st.get("clat_ns") or {}).get("percentile") or {}
        v = pct.get("99.000000")
        if v is not None:
            worst = max(worst or 0.0, v / 1000.0)
    return worst


def fio_figures(doc):
    """MB/s, IOPS, p99, jobs, iodepth and bs of one fio run, over all jobs."""
    jobs = doc["jobs"]
    errs = [j.get("error") for j in jobs if j.get("error")]
    if errs:
        raise ValueError(f"fio job error {errs[0]}")
    rec = {"mb_per_sec": 0.0, "iops": 0.0, "p99_us": None}
    numjobs = {}
    for j in jobs:
        for d in ("read", "write"):
            st = j.get(d) or {}
            rec["mb_per_sec"] += float(st.get("bw_bytes") or 0) / 1e6
            rec["iops"] += float(st.get("iops") or 0)
        p = p99_us(j)
        if p is not None:
            rec["p99_us"] = max(rec["p99_us"] or 0.0, p)
        numjobs[j.get("jobname")] = to_int(option(j, doc, "numjobs", 1), 1)
    rec["jobs"] = sum(numjobs.values())
    rec["iodepth"] = max(to_int(option(j, doc, "iodepth", 1), 1)
                         for j in jobs)
    bs = option(jobs[0], doc, "bs")
    rec["bs"] = str(bs) if bs is not None else None
    return rec


def read_cpu(path):
    """(system %, user %) from two /proc/stat cpu lines, or (None, None)."""
    try:
        with open(path) as f:
            lines = [ln.split() for ln in f if ln.startswith("cpu")]
        a, b = ([int(x) for x in ln[1:9]] for ln in lines[:2])
    except (OSError, ValueError):
        return None, None
    d = [y - x for x, y in zip(a, b)]
    total = sum(d)
    if len(d) < 8 or total <= 0:
        return None, None
    # user nice system idle iowait irq softirq steal
    return 100.0 * (d[2] + d[5] + d[6]) / total, 100.0 * d[0] / total


def read_cell(indir, w, b):
    """One result record; failed cells carry "error"."""
    stem = os.path.join(indir, f"{w}--{b}")
    rec = {"workload": w, "backend": b, "jobs": None, "iodepth": None,
           "bs": None, "mb_per_sec": None, "iops": None, "p99_us": None,
           "sys_cpu_pct": None, "user_cpu_pct": None}
    try:
        rec.update(fio_figures(load_fio(stem + ".json")))
    except OSError as e:
        rec["error"] = f"{os.path.basename(stem)}.json: {e.strerror}"
        return rec
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        rec["error"] = f"{os.path.basename(stem)}.json: {e}"
        return rec
    rec["sys_cpu_pct"], rec["user_cpu_pct"] = read_cpu(stem + ".cpu")
    return rec


MEDIAN_KEYS = ("mb_per_sec", "iops", "p99_us", "sys_cpu_pct", "user_cpu_pct")


def median_cell(recs):
    """The rounds of one cell as one record: the median of each figure,
    and every round's MB/s; a cell failed in any round has failed."""
    for r in recs:
        if "error" in r:
            return r
    rec = dict(recs[0])
    for k in MEDIAN_KEYS:
        vals = sorted(r[k] for r in recs if r[k] is not None)
        rec[k] = statistics.median(vals) if vals else None
    rec["rounds"] = len(recs)
    rec["mb_per_sec_rounds"] = [r["mb_per_sec"] for r in recs]
    return rec


def ratio(idx, w, a, b):
    """MB/s of a over MB/s of b for workload w, or None."""
    ra, rb = idx.get((w, a)), idx.get((w, b))
    if not ra or not rb or "error" in ra or "error" in rb:
        return None
    if not ra["mb_per_sec"] or not rb["mb_per_sec"]:
        return None
    return ra["mb_per_sec"] / rb["mb_per_sec"]


def ratios_of(idx, workloads, backends):
    peers = PEERS + [b for b in backends if b not in PEERS and b != BASE]
    out = []
    for w in workloads:
        r = {"workload": w}
        for p in peers:
            r[f"{BASE}_vs_{p}"] = ratio(idx, w, BASE, p)
        out.append(r)
    return out, peers


def goals_of(idx):
    out = []
    for w, other, target in GOALS:
        g = {"goal": f"{w}: {BASE} vs {other}", "target": target,
             "target_text": f">= {target:.2f}x" if target < 1 else
                            f">= {target:g}x",
             "measured": None, "met": None}
        if (w, BASE) in idx and (w, other) in idx:
            g["measured"] = ratio(idx, w, BASE, other)
            g["met"] = g["measured"] is not None and g["measured"] >= target
        else:
            g["not_run"] = True
        out.append(g)
    return out


def fmt(v, kind):
    if v is None:
        return "-"
    if kind == "iops":
        return f"{v:.0f}"
    if kind == "pct":
        return f"{v:.1f}"
    if v >= 100:
        return f"{v:.0f}"
    return f"{v:.1f}" if v >= 10 else f"{v:.2f}"


def fmt_ratio(v):
    return "-" if v is None else f"{v:.2f}x"


def goal_cells(g, no):
    """The measured and met? cells of a goal; @no is how a miss reads."""
    if g.get("not_run"):
        return "not run", "-"
    if g["measured"] is None:
        return "FAIL", no
    return fmt_ratio(g["measured"]), "yes" if g["met"] else no


def label(idx, w, backends):
    """'randread (16 jobs, iodepth 10)' from the first good cell of w."""
    for b in backends:
        r = idx.get((w, b))
        if r and "error" not in r:
            jobs = r["jobs"]
            return (f"{w} ({jobs} job{'s' if jobs != 1 else ''}, "
                    f"iodepth {r['iodepth']})")
    return w


def machine_line(m):
    wall = ""
    if m.get("wall_seconds") is not None:
        wall = f", {m['wall_seconds']} s wall for the whole run"
    return (f"Machine: kernel {m.get('kernel')}, {m.get('vcpus')} vCPUs, "
            f"accel {m.get('accel')}, {m.get('runtime_s')} s per cell, "
            f"median of {m.get('rounds', 1)} round(s){wall}, "
            f"boot options: {m.get('boot') or 'none'}, {m.get('date')}.")


def table(md, title, key, kind, idx, workloads, backends):
    md += ["", f"### {title}", ""]
    md.append("| workload | " + " | ".join(backends) + " |")
    md.append("|---|" + "---:|" * len(backends))
    for w in workloads:
        cells = [label(idx, w, backends)]
        for b in backends:
            r = idx[(w, b)]
            cells.append("FAIL" if "error" in r else fmt(r.get(key), kind))
        md.append("| " + " | ".join(cells) + " |")


def markdown(machine, idx, workloads, backends, ratios, peers, goals):
    md = ["# IOMMU benchmark: fio on /dev/slblkN", "", machine_line(machine)]
    table(md, "MB/s", "mb_per_sec", "mb", idx, workloads, backends)
    table(md, "IOPS", "iops", "iops", idx, workloads, backends)
    table(md, "p99 completion latency (us)", "p99_us", "mb", idx, workloads,
          backends)
    table(md, "System CPU %", "sys_cpu_pct", "pct", idx, workloads,
          backends)
    table(md, "User CPU %", "user_cpu_pct", "pct", idx, workloads,
          backends)
    md += ["", f"### {BASE} MB/s ratio", ""]
    md.append("| workload | " +
              " | ".join(f"{BASE} vs {p}" for p in peers) + " |")
    md.append("|---|" + "---:|" * len(peers))
    for r in ratios:
        md.append(f"| {r['workload']} | " +
                  " | ".join(fmt_ratio(r[f'{BASE}_vs_{p}']) for p in peers)
                  + " |")
    md += ["", "### Goals", "", "| goal | target | measured | met? |",
           "|---|---|---:|---|"]
    for g in goals:
        measured, met = goal_cells(g, "NO")
        md.append(f"| {g['goal']} | {g['target_text']} | {measured} | "
                  f"{met} |")
    failed = [r for r in idx.values() if "error" in r]
    if failed:
        md += ["", "Failed cells:", ""]
        md += [f"- {r['workload']} / {r['backend']}: {r['error']}"
               for r in failed]
    md += ["", SEED]
    return "\n".join(md) + "\n"


def rst_tables(idx, workloads, backends, goals):
    """The MB/s table and the goals table, as RST lines."""
    rows = []
    for w in workloads:
        rows.append([label(idx, w, backends)] +
                    ["FAIL" if "error" in idx[(w, b)] else
                     fmt(idx[(w, b)].get("mb_per_sec"), "mb")
                     for b in backends])
    mbs = rst_table(["workload"] + backends, rows)
    rows = []
    for g in goals:
        rows.append([g["goal"], g["target_text"], *goal_cells(g, "**no**")])
    return mbs, rst_table(["goal", "target", "measured", "met"], rows)


def rst(machine, idx, workloads, backends, goals):
    """The MB/s and goals tables, as Documentation/iommu_demo.rst shows
    them."""
    mbs, goal_lines = rst_tables(idx, workloads, backends, goals)
    out = [f".. {machine_line(machine)}", ""] + mbs + [""] + goal_lines
    return "\n".join(out) + "\n"


def host_line():
    """The host this report is made on (make bench-iommu makes it right
    after the VM run, on the host that ran it)."""
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}"


def doc_section(machine, idx, workloads, backends, goals):
    """The BENCH-IOMMU section of Documentation/iommu_demo.rst."""
    mbs, goal_lines = rst_tables(idx, workloads, backends, goals)
    accel = {"tcg": "QEMU TCG (software emulation)",
             "kvm": "KVM"}.get(machine.get("accel"), machine.get("accel"))
    wall = ""
    if machine.get("wall_seconds") is not None:
        wall = f", {machine['wall_seconds']} s in all"
    boot = (machine.get("boot") or "").strip()
    rounds = machine.get("rounds", 1)
    intro = (f"Latest run of ``make bench-iommu``: guest kernel "
             f"{machine.get('kernel')} with {machine.get('vcpus')} vCPUs under "
             f"{accel}, on {host_line()}; {machine.get('runtime_s')} s per "
             f"cell, the median of {rounds} round{'s' if rounds != 1 else ''}"
             f"{wall}; boot options {boot or 'none'}; {machine.get('date')}.  "
             "MB/s (``build/bench/iommu.md`` also has IOPS, p99 latency and "
             "CPU):")
    out = [".. BENCH-IOMMU:BEGIN (generated by tools/bench/iommu/report.py; "
           "do not edit)", ""]
    out += textwrap.wrap(intro, 75) + [""] + mbs + [""]
    out += ["The goals, the skiplist backend's MB/s over another's:", ""]
    out += goal_lines + ["", ".. BENCH-IOMMU:END"]
    return out


def replace_block(path, lines):
    """Rewrite the BENCH-IOMMU section of @path, if it has one."""
    with open(path) as f:
        text = f.read()
    pat = re.compile(r"\.\. BENCH-IOMMU:BEGIN.*?\.\. BENCH-IOMMU:END", re.S)
    if not pat.search(text):
        print(f"report.py: {path}: no BENCH-IOMMU section", file=sys.stderr)
        return
    with open(path, "w") as f:
        f.write(pat.sub(lambda _: "\n".join(lines), text))


def plot(machine, idx, workloads, backends, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 5))
    width = 0.8 / max(len(backends), 1)
    for ax, key, ylabel, log in ((axes[0], "mb_per_sec", "MB/s", False),
                                 (axes[1], "iops", "IOPS (log)", True)):
        for i, b in enumerate(backends):
            xs, ys = [], []
            for x, w in enumerate(workloads):
                r = idx[(w, b)]
                v = None if "error" in r else r.get(key)
                if v and v > 0:
                    xs.append(x + (i - (len(backends) - 1) / 2) * width)
                    ys.append(v)
            ax.bar(xs, ys, width, label=b)
        ax.set_xticks(range(len(workloads)))
        ax.set_xticklabels(workloads, rotation=20, ha="right")
        ax.set_ylabel(ylabel)
        if log:
            ax.set_yscale("log")
        ax.grid(axis="y", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(backends),
               fontsize="small", bbox_to_anchor=(0.5, 0.94), frameon=False)
    fig.suptitle(f"fio on /dev/slblkN: kernel {machine.get('kernel')}, "
                 f"{machine.get('vcpus')} vCPUs ({machine.get('accel')})")
    fig.tight_layout(rect=(0, 0, 1, 0.90))
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", help="directory the guest benchmark wrote")
    ap.add_argument("--out", help="output directory (default: DIR/..)")
    ap.add_argument("--wall-seconds", type=int,
                    help="wall time of the whole run, for the header")
    ap.add_argument("--doc", help="a Documentation page whose BENCH-IOMMU "
                    "section to rewrite")
    args = ap.parse_args()

    indir = os.path.abspath(args.dir)
    out = args.out or os.path.dirname(indir)
    if not os.path.isdir(indir):
        sys.exit(f"report.py: {args.dir}: not a directory")
    os.makedirs(out, exist_ok=True)

    machine = read_machine(os.path.join(indir, "machine.txt"))
    if args.wall_seconds is not None:
        machine["wall_seconds"] = args.wall_seconds
    # Rounds in subdirectories r1, r2, ...; or one round in DIR itself.
    dirs = sorted((os.path.join(indir, d) for d in os.listdir(indir)
                   if re.fullmatch(r"r[0-9]+", d)
                   and os.path.isdir(os.path.join(indir, d))),
                  key=lambda d: int(os.path.basename(d)[1:])) or [indir]
    machine["rounds"] = len(dirs)
    workloads, backends = set(), set()
    for d in dirs:
        ws, bs = find_cells(d)
        workloads.update(ws)
        backends.update(bs)
    workloads = ordered(workloads, WORKLOADS)
    backends = ordered(backends, BACKENDS)
    if not workloads:
        sys.exit(f"report.py: no WORKLOAD--BACKEND.json in {args.dir}")

    results = [median_cell([read_cell(d, w, b) for d in dirs])
               for w in workloads for b in backends]
    idx = {(r["workload"], r["backend"]): r for r in results}
    ratios, peers = ratios_of(idx, workloads, backends)
    goals = goals_of(idx)

    with open(os.path.join(out, "iommu.json"), "w") as f:
        json.dump({"machine": machine, "results": results, "ratios": ratios,
                   "goals": goals}, f, indent=1)
        f.write("\n")
    md = markdown(machine, idx, workloads, backends, ratios, peers, goals)
    with open(os.path.join(out, "iommu.md"), "w") as f:
        f.write(md)
    with open(os.path.join(out, "iommu.rst"), "w") as f:
        f.write(rst(machine, idx, workloads, backends, goals))
    plot(machine, idx, workloads, backends, os.path.join(out, "iommu.png"))
    failed = [r for r in results if "error" in r]
    # A run with failed cells leaves the page's latest run in place.
    if args.doc and not failed:
        replace_block(args.doc,
                      doc_section(machine, idx, workloads, backends, goals))
    sys.stdout.write(md)

    for r in failed:
        print(f"report.py: {r['workload']}--{r['backend']}: {r['error']}",
              file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
