#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turns make bench-btrfs's guest output into its report: Debian's
btrfs.ko against ours (btrfs/, the extent map cache on the skiplist).

The input DIR (btrfs/guest-bench-btrfs.sh writes it) holds:
  machine.txt        key=value lines: kernel, vcpus, accel, memory_mb,
                     runtime_s, extents, base, disk, user_hz, boot, date;
  layout.txt         btrfs/fragment.py's output (extents=N last);
  rROUND/            per round: MODULE.slab-before and MODULE.slab-after
                     (/proc/slabinfo around the read that caches every
                     extent map), MODULE.warm (that read's seconds), and
                     per cell WORKLOAD--MODULE.json (fio JSON),
                     WORKLOAD--MODULE.cpu (/proc/stat's cpu line before and
                     after);
  profile--WORKLOAD--MODULE.txt
                     perf report of a workload (optional);
  random/            MODULE.slab-before, MODULE.slab-after and MODULE.warm
                     of one more mount per module that caches the maps in
                     random order instead of file order.

Every figure is the median over the rounds.  The noise of a workload is
the largest spread (max - min over the median) of its IOPS over the rounds
on either module: the measured run-to-run noise against which "no
regression" is judged.

Memory per cached extent: the slab bytes (slabs x pages per slab x page
size) that the warm read added to the extent maps' cache
(btrfs_extent_map) and, for our module, to the skiplist's leaf caches
(skiplist_leaf_*), over the extent maps it added; the guest boots with
slab_nomerge, so no other cache shares them.  Our index's leaf directory
is a kvmalloc() that slabinfo does not show: its bytes are computed from
the leaves added, with the skiplist's own sizing (skiplist/directory.c,
sl_dir_alloc()).

Writes, into OUT (default: DIR's parent): btrfs.json, btrfs.md,
btrfs.png, and with --doc rewrites the BENCH-BTRFS section of a page
(Documentation/btrfs.rst).  Exits 1 if a cell failed (after writing all;
the page is then left alone).

Usage: report.py DIR [--out OUT] [--wall-seconds S] [--doc PAGE]
"""

import argparse
import importlib.util
import json
import os
import re
import statistics
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from rst_table import replace_rst_section, rst_table  # noqa: E402


def _iommu_report():
    """tools/bench/iommu/report.py, for its fio and host helpers."""
    path = os.path.join(HERE, "..", "iommu", "report.py")
    spec = importlib.util.spec_from_file_location("iommu_report", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


IOMMU = _iommu_report()
load_fio, host_line, read_machine = (IOMMU.load_fio, IOMMU.host_line,
                                     IOMMU.read_machine)

MODULES = ["debian", "ours"]
BASE, PEER = "ours", "debian"
WORKLOADS = ["randread-1", "randread-2", "randread-16", "seqread",
             "splitwrite"]
ABOUT = {
    "randread-1": "random 4 KiB O_DIRECT reads, 1 job",
    "randread-2": "random 4 KiB O_DIRECT reads, 2 jobs",
    "randread-16": "random 4 KiB O_DIRECT reads, 16 jobs",
    "seqread": "sequential 128 KiB O_DIRECT reads, 1 job",
    "splitwrite": "random 4 KiB O_DIRECT writes splitting large extents, 1 job",
}
EM_CACHE = "btrfs_extent_map"
LEAF_CACHE = re.compile(r"skiplist_leaf_\d+$")
PAGE = 4096
GOAL_RANDREAD16 = 1.2
# Symbols of the extent map lookup and its lock, for the profile table.
PROFILE_SYMS = re.compile(
    r"(_raw_read_(un)?lock|queued_read_lock_slowpath|"
    r"lookup_extent_mapping|search_extent_mapping|__tree_search|tree_search|"
    r"^sl_|rb_next|rb_prev|btrfs_get_extent$|btrfs_get_chunk_map|"
    r"_raw_spin_lock$|_raw_spin_unlock$|lock_extent|native_queued_spin_lock_slowpath|"
    r"native_safe_halt|btrfs_dio_iomap_begin)")


def read_cpu_ticks(path):
    """(system + irq + softirq, user + nice, total) ticks between the two
    /proc/stat cpu lines of @path, or None."""
    try:
        with open(path) as f:
            lines = [ln.split() for ln in f if ln.startswith("cpu")]
        a, b = ([int(x) for x in ln[1:9]] for ln in lines[:2])
    except (OSError, ValueError):
        return None
    d = [y - x for x, y in zip(a, b)]
    return d[2] + d[5] + d[6], d[0] + d[1], sum(d)


def fio_cell(doc):
    """IOPS, MB/s and I/Os of one fio run (group_reporting: one job)."""
    rec = {"iops": 0.0, "mb_per_sec": 0.0, "ios": 0}
    for j in doc["jobs"]:
        if j.get("error"):
            raise ValueError(f"fio job error {j['error']}")
        for d in ("read", "write"):
            st = j.get(d) or {}
            rec["iops"] += float(st.get("iops") or 0)
            rec["mb_per_sec"] += float(st.get("bw_bytes") or 0) / 1e6
            rec["ios"] += int(st.get("total_ios") or 0)
    if not rec["ios"]:
        raise ValueError("fio did no I/O")
    return rec


def read_cell(rdir, w, m, hz):
    stem = os.path.join(rdir, f"{w}--{m}")
    rec = {"workload": w, "module": m}
    try:
        rec.update(fio_cell(load_fio(stem + ".json")))
    except OSError as e:
        rec["error"] = f"{os.path.basename(stem)}.json: {e.strerror}"
        return rec
    except (ValueError, KeyError, TypeError) as e:
        rec["error"] = f"{os.path.basename(stem)}.json: {e}"
        return rec
    ticks = read_cpu_ticks(stem + ".cpu")
    if ticks:
        sys_t, user_t, total = ticks
        rec["sys_us_per_io"] = sys_t * 1e6 / hz / rec["ios"]
        rec["user_us_per_io"] = user_t * 1e6 / hz / rec["ios"]
        rec["sys_cpu_pct"] = 100.0 * sys_t / total if total else None
    return rec


def read_slabinfo(path):
    """{cache: (active_objs, objsize, bytes of its slabs)}."""
    caches = {}
    with open(path) as f:
        for line in f:
            if line.startswith(("slabinfo", "#")):
                continue
            p = line.split()
            # name active num objsize perslab pagesperslab : tunables a b c
            # : slabdata active_slabs num_slabs shared
            try:
                name, active, objsize, pps = p[0], int(p[1]), int(p[3]), int(p[5])
                num_slabs = int(p[p.index("slabdata") + 2])
            except (ValueError, IndexError):
                continue
            caches[name] = (active, objsize, num_slabs * pps * PAGE)
    return caches


def dir_bytes(leaves):
    """The leaf directory's kvmalloc() for @leaves (sl_dir_alloc(): room
    for an eighth more plus 16, a 16-byte entry each, a u32 per bucket,
    a power of two of them, and one more; a 64-byte header)."""
    if leaves <= 0:
        return 0
    cap = leaves + leaves // 8 + 16
    buckets = 1 << (cap.bit_length() - 1)
    words = -(-(cap * 16 + (buckets + 1) * 4) // 8)
    return 64 + words * 8


def memory_of(prefix):
    """What caching every extent map of the file cost: maps added, slab
    bytes and object bytes of the extent map and leaf caches, leaves
    added, the directory's computed bytes."""
    before = read_slabinfo(prefix + ".slab-before")
    after = read_slabinfo(prefix + ".slab-after")
    rec = {"maps": 0, "map_slab_bytes": 0, "map_object_bytes": 0,
           "leaves": 0, "leaf_slab_bytes": 0, "leaf_object_bytes": 0}
    for name, (act, size, slab) in after.items():
        act0, _, slab0 = before.get(name, (0, size, 0))
        if name == EM_CACHE:
            rec["maps"] = act - act0
            rec["map_object_bytes"] = (act - act0) * size
            rec["map_slab_bytes"] = slab - slab0
            rec["map_object_size"] = size
        elif LEAF_CACHE.match(name):
            rec["leaves"] += act - act0
            rec["leaf_object_bytes"] += (act - act0) * size
            rec["leaf_slab_bytes"] += slab - slab0
    rec["dir_bytes"] = dir_bytes(rec["leaves"])
    total = rec["map_slab_bytes"] + rec["leaf_slab_bytes"] + rec["dir_bytes"]
    rec["bytes_per_extent"] = total / rec["maps"] if rec["maps"] > 0 else None
    rec["object_bytes_per_extent"] = (
        (rec["map_object_bytes"] + rec["leaf_object_bytes"] + rec["dir_bytes"])
        / rec["maps"] if rec["maps"] > 0 else None)
    try:
        with open(prefix + ".warm") as f:
            rec["warm_s"] = float(f.read().strip())
    except (OSError, ValueError):
        rec["warm_s"] = None
    return rec


def median(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def spread(vals):
    """(max - min) / median of @vals, or None for fewer than two."""
    vals = [v for v in vals if v is not None]
    if len(vals) < 2 or not statistics.median(vals):
        return None
    return (max(vals) - min(vals)) / statistics.median(vals)


def combine(cells):
    """The rounds of one (workload, module) as one record."""
    bad = [c for c in cells if "error" in c]
    if bad:
        return dict(bad[0])
    rec = {"workload": cells[0]["workload"], "module": cells[0]["module"],
           "rounds": len(cells)}
    for k in ("iops", "mb_per_sec", "sys_us_per_io", "user_us_per_io",
              "sys_cpu_pct"):
        rec[k] = median(c.get(k) for c in cells)
    rec["iops_rounds"] = [c["iops"] for c in cells]
    rec["iops_spread"] = spread(rec["iops_rounds"])
    return rec


def ratio(a, b):
    return a / b if a is not None and b else None


def parse_profile(path):
    """{symbol: (self %, with children %)} from guest-bench-btrfs.sh's
    perf report, for the symbols of PROFILE_SYMS."""
    out, part = {}, None
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("## "):
                    part = line[3:].strip()
                    continue
                p = line.split()
                if not p or not p[0].endswith("%"):
                    continue
                try:
                    pct = float(p[0].rstrip("%"))
                    if part == "with children, by symbol":
                        # Children  Self  [k]  symbol
                        sym = p[-1]
                        children = pct
                        own = float(p[1].rstrip("%"))
                    else:
                        sym, own, children = p[-1], pct, None
                except (ValueError, IndexError):
                    continue
                if part == "self, by module" or not PROFILE_SYMS.search(sym):
                    continue
                s, c = out.get(sym, (None, None))
                if part == "self, by symbol":
                    s = own
                elif part == "with children, by symbol":
                    s = own if s is None else s
                    c = children
                out[sym] = (s, c)
    except OSError:
        return None
    return out


def fmt(v, digits=1):
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 100:
        return f"{v:.0f}"
    return f"{v:.{digits}f}"


def fmt_ratio(v):
    return "-" if v is None else f"{v:.2f}x"


def fmt_pct(v):
    return "-" if v is None else f"{100 * v:.1f}%"


def build(indir, wall):
    machine = read_machine(os.path.join(indir, "machine.txt"))
    for k in ("memory_mb", "extents", "base", "user_hz", "random_extents"):
        machine[k] = IOMMU.to_int(machine.get(k), machine.get(k))
    hz = machine.get("user_hz") or 100
    if wall is not None:
        machine["wall_seconds"] = wall
    try:
        with open(os.path.join(indir, "layout.txt")) as f:
            machine["layout"] = [ln.rstrip("\n") for ln in f
                                 if ln.startswith("fragment:")]
    except OSError:
        machine["layout"] = []
    rdirs = sorted((d for d in os.listdir(indir)
                    if re.fullmatch(r"r[0-9]+", d)),
                   key=lambda d: int(d[1:]))
    if not rdirs:
        sys.exit(f"report.py: no rounds (r1, r2, ...) in {indir}")
    machine["rounds"] = len(rdirs)
    seen = set()
    for d in rdirs:
        for name in os.listdir(os.path.join(indir, d)):
            stem, ext = os.path.splitext(name)
            if ext == ".json" and "--" in stem:
                seen.add(stem.rsplit("--", 1)[0])
    workloads = [w for w in WORKLOADS if w in seen] + \
        sorted(w for w in seen if w not in WORKLOADS)
    results = []
    for w in workloads:
        for m in MODULES:
            cells = [read_cell(os.path.join(indir, d), w, m, hz) for d in rdirs]
            results.append(combine(cells))
    idx = {(r["workload"], r["module"]): r for r in results}

    memory = []
    orders = [("file", [os.path.join(indir, d) for d in rdirs]),
              ("random", [os.path.join(indir, "random")])]
    for order, dirs in orders:
        for m in MODULES:
            recs = []
            for d in dirs:
                try:
                    recs.append(memory_of(os.path.join(d, m)))
                except OSError:
                    pass
            if not recs:
                continue
            rec = {"module": m, "order": order, "rounds": len(recs)}
            for k in recs[0]:
                rec[k] = median(r.get(k) for r in recs)
            rec["bytes_per_extent_rounds"] = [r["bytes_per_extent"]
                                              for r in recs]
            memory.append(rec)
    midx = {(r["module"], r["order"]): r for r in memory}

    ratios = []
    for w in workloads:
        a, b = idx[(w, BASE)], idx[(w, PEER)]
        ok = "error" not in a and "error" not in b
        noise = max((x for x in (a.get("iops_spread"), b.get("iops_spread"))
                     if x is not None), default=None) if ok else None
        ratios.append({
            "workload": w,
            "iops_ratio": ratio(a.get("iops"), b.get("iops")) if ok else None,
            "sys_per_io_ratio": ratio(a.get("sys_us_per_io"),
                                      b.get("sys_us_per_io")) if ok else None,
            "noise": noise})
    return machine, workloads, results, idx, ratios, memory, midx


def goals_of(ratios, memory_idx):
    goals = []
    worst = None
    for r in ratios:
        if r["iops_ratio"] is None:
            worst = {"workload": r["workload"], "failed": True}
            break
        if r["noise"] is None:
            # One round measures no noise: a floor of 1 would call any
            # difference a regression, a floor of 0 none.
            worst = {"workload": r["workload"], "no_noise": True}
            break
        floor = 1 - r["noise"]
        r["regression"] = r["iops_ratio"] < floor
        if worst is None or (r["iops_ratio"] - floor) < worst["margin"]:
            worst = {"workload": r["workload"], "margin": r["iops_ratio"] - floor,
                     "ratio": r["iops_ratio"], "floor": floor}
    g = {"goal": "no regression beyond the noise (IOPS, every workload)",
         "target": "ours/Debian >= 1 - noise"}
    if worst is None or worst.get("failed"):
        g.update(measured="FAIL", met=False)
    elif worst.get("no_noise"):
        g.update(measured=f"not judged: no noise measured on "
                          f"{worst['workload']} (fewer than two rounds)",
                 met=None)
    else:
        g.update(measured=f"worst {worst['workload']}: {worst['ratio']:.2f}x "
                          f"(floor {worst['floor']:.2f})",
                 met=not any(r["regression"] for r in ratios))
    goals.append(g)
    r16 = next((r for r in ratios if r["workload"] == "randread-16"), None)
    g = {"goal": "randread-16: IOPS and system CPU per I/O",
         "target": f">= {GOAL_RANDREAD16}x IOPS, lower CPU per I/O"}
    if r16 is None or r16["iops_ratio"] is None:
        g.update(measured="not run", met=False)
    else:
        g.update(measured=f"{r16['iops_ratio']:.2f}x IOPS, "
                          f"{fmt_ratio(r16['sys_per_io_ratio'])} CPU per I/O",
                 met=r16["iops_ratio"] >= GOAL_RANDREAD16 and
                 r16["sys_per_io_ratio"] is not None and
                 r16["sys_per_io_ratio"] < 1)
    goals.append(g)
    for order in ("file", "random"):
        ours = memory_idx.get((BASE, order))
        theirs = memory_idx.get((PEER, order))
        g = {"goal": f"memory per cached extent, cached in {order} order",
             "target": "ours <= Debian's"}
        if not ours or not theirs or not ours.get("bytes_per_extent") or \
                not theirs.get("bytes_per_extent"):
            g.update(measured="not measured", met=False)
        else:
            g.update(measured=f"{ours['bytes_per_extent']:.1f} B against "
                              f"{theirs['bytes_per_extent']:.1f} B",
                     met=ours["bytes_per_extent"] <=
                     theirs["bytes_per_extent"])
        goals.append(g)
    return goals


def machine_line(m):
    wall = f", {m['wall_seconds']} s in all" if m.get("wall_seconds") else ""
    return (f"guest kernel {m.get('kernel')}, {m.get('vcpus')} vCPUs, "
            f"{m.get('memory_mb')} MiB, accel {m.get('accel')}, "
            f"disk {m.get('disk')}; a file of {m.get('extents'):,} extents; "
            f"{m.get('runtime_s')} s per cell, median of "
            f"{m.get('rounds')} round{'' if m.get('rounds') == 1 else 's'}"
            f"{wall}; boot options "
            f"{(m.get('boot') or '').strip() or 'none'}; {m.get('date')}")


def perf_rows(indir):
    """{workload: rows of its profile table}: symbol, then self (with
    children) % per module, from profile--WORKLOAD--MODULE.txt."""
    out = {}
    for w in WORKLOADS:
        profs = {m: parse_profile(os.path.join(indir, f"profile--{w}--{m}.txt"))
                 for m in MODULES}
        if not any(profs.values()):
            continue
        syms = sorted({s for p in profs.values() if p for s in p})
        rows = []
        for s in syms:
            row = [s]
            for m in MODULES:
                own, children = (profs[m] or {}).get(s, (None, None))
                cell = "-" if own is None else f"{own:.2f}"
                if children is not None:
                    cell += f" ({children:.2f})"
                row.append(cell)
            rows.append(row)
        out[w] = rows
    return out


def tables(workloads, idx, ratios, memory, goals):
    perf = [["workload"] + [f"{m} IOPS" for m in MODULES] + ["ratio"] +
            [f"{m} sys us/IO" for m in MODULES] + ["ratio", "noise"]]
    for w, r in zip(workloads, ratios):
        row = [w]
        for m in MODULES:
            c = idx[(w, m)]
            row.append("FAIL" if "error" in c else fmt(c.get("iops"), 0))
        row.append(fmt_ratio(r["iops_ratio"]))
        for m in MODULES:
            c = idx[(w, m)]
            row.append("FAIL" if "error" in c else fmt(c.get("sys_us_per_io"), 1))
        row += [fmt_ratio(r["sys_per_io_ratio"]), fmt_pct(r["noise"])]
        perf.append(row)
    mem = [["module", "cached in", "extent maps", "map object B",
            "map slab B", "leaf slab B", "directory B", "B per extent"]]
    for r in memory:
        maps = r["maps"] or 0
        per = (lambda b, maps=maps: f"{b / maps:.1f}" if maps else "-")
        mem.append([r["module"], f"{r['order']} order", f"{maps:,.0f}",
                    fmt(r.get("map_object_size"), 0),
                    per(r["map_slab_bytes"]),
                    per(r["leaf_slab_bytes"]), per(r["dir_bytes"]),
                    fmt(r["bytes_per_extent"], 1)])
    goal = [["goal", "target", "measured", "met"]]
    for g in goals:
        met = "-" if g["met"] is None else "yes" if g["met"] else "no"
        goal.append([g["goal"], g["target"], g["measured"], met])
    return perf, mem, goal


def md_table(rows):
    out = ["| " + " | ".join(rows[0]) + " |",
           "|---|" + "---:|" * (len(rows[0]) - 1)]
    out += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return out


def markdown(machine, workloads, idx, ratios, memory, goals, prof):
    perf, mem, goal = tables(workloads, idx, ratios, memory, goals)
    md = ["# btrfs: Debian's btrfs.ko against ours (extent maps on the "
          "skiplist)", "", "Run: " + machine_line(machine) + ".", "",
          "## Workloads", ""]
    md += [f"- {w}: {ABOUT.get(w, w)}" for w in workloads]
    md += ["", "## IOPS and system CPU per I/O (medians; noise: the widest "
           "spread of IOPS over the rounds)", ""] + md_table(perf)
    md += ["", "IOPS of each round:", ""]
    for w in workloads:
        for m in MODULES:
            c = idx[(w, m)]
            if "error" not in c:
                md.append(f"- {w} {m}: " + ", ".join(
                    f"{v:.0f}" for v in c["iops_rounds"]))
    md += ["", "## Memory per cached extent (slab bytes per extent map; "
           "the directory computed from the leaves)", ""] + md_table(mem)
    md += ["", "## Goals (issue 21)", ""] + md_table(goal)
    for w, rows in prof.items():
        md += ["", f"## Profile of {w} (perf, cpu-clock, % of all samples "
               "on both vCPUs, idle included: self (with children))", ""]
        md += md_table([["symbol"] + MODULES] + rows)
    if machine.get("layout"):
        md += ["", "## Making the file", ""] + \
            [f"    {ln}" for ln in machine["layout"]]
    failed = [c for c in idx.values() if "error" in c]
    if failed:
        md += ["", "Failed cells:", ""] + \
            [f"- {c['workload']} / {c['module']}: {c['error']}" for c in failed]
    return "\n".join(md) + "\n"


def doc_section(machine, workloads, idx, ratios, memory, goals, prof):
    perf, mem, goal = tables(workloads, idx, ratios, memory, goals)
    intro = ("Latest run of ``make bench-btrfs``: " + machine_line(machine) +
             f"; host {host_line()}.  ``build/bench/btrfs.md`` has every "
             "round's figures.")
    out = [".. BENCH-BTRFS:BEGIN (generated by tools/bench/btrfs/report.py; "
           "do not edit)", ""]
    out += textwrap.wrap(intro, 75) + [""]
    out += ["IOPS and system CPU per I/O (medians); noise is the widest "
            "spread of IOPS", "over the rounds on either module:", ""]
    out += rst_table(perf[0], perf[1:]) + [""]
    out += ["Memory per cached extent (slab bytes per extent map; the "
            "directory", "computed from the leaves added):", ""]
    out += rst_table(mem[0], mem[1:]) + [""]
    out += ["The goals of issue 21:", ""]
    out += rst_table(goal[0], goal[1:]) + [""]
    for w, rows in prof.items():
        out += [f"Profile of {w} (``perf record -e cpu-clock -a``), % of all "
                "samples on", "both vCPUs, idle included, self (with "
                "children):", ""]
        out += rst_table(["symbol"] + MODULES, rows) + [""]
    out += [".. BENCH-BTRFS:END"]
    return out


def plot(machine, workloads, idx, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
    width = 0.38
    for ax, key, label in ((axes[0], "iops", "IOPS (median)"),
                           (axes[1], "sys_us_per_io",
                            "system CPU us per I/O (median)")):
        for i, m in enumerate(MODULES):
            xs, ys, lo, hi = [], [], [], []
            for x, w in enumerate(workloads):
                c = idx[(w, m)]
                if "error" in c or c.get(key) is None:
                    continue
                xs.append(x + (i - 0.5) * width)
                ys.append(c[key])
                if key == "iops":
                    lo.append(c[key] - min(c["iops_rounds"]))
                    hi.append(max(c["iops_rounds"]) - c[key])
            ax.bar(xs, ys, width, label=m,
                   yerr=[lo, hi] if key == "iops" and xs else None,
                   capsize=3)
        ax.set_xticks(range(len(workloads)))
        ax.set_xticklabels(workloads, rotation=20, ha="right")
        ax.set_ylabel(label)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize="small")
    fig.suptitle(f"btrfs on a file of {machine.get('extents'):,} extents: "
                 f"Debian's module and ours ({machine.get('vcpus')} vCPUs, "
                 f"{machine.get('accel')}); bars: rounds' range")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", help="the directory the guest wrote")
    ap.add_argument("--out", help="output directory (default: DIR/..)")
    ap.add_argument("--wall-seconds", type=int)
    ap.add_argument("--doc", help="a page whose BENCH-BTRFS section to rewrite")
    args = ap.parse_args()
    indir = os.path.abspath(args.dir)
    if not os.path.isdir(indir):
        sys.exit(f"report.py: {args.dir}: not a directory")
    out = args.out or os.path.dirname(indir)
    os.makedirs(out, exist_ok=True)

    machine, workloads, results, idx, ratios, memory, midx = \
        build(indir, args.wall_seconds)
    goals = goals_of(ratios, midx)
    prof = perf_rows(indir)
    with open(os.path.join(out, "btrfs.json"), "w") as f:
        json.dump({"machine": machine, "results": results, "ratios": ratios,
                   "memory": memory, "goals": goals,
                   "profile": prof}, f, indent=1)
        f.write("\n")
    md = markdown(machine, workloads, idx, ratios, memory, goals, prof)
    with open(os.path.join(out, "btrfs.md"), "w") as f:
        f.write(md)
    plot(machine, workloads, idx, os.path.join(out, "btrfs.png"))
    failed = [r for r in results if "error" in r]
    if args.doc and not failed:
        replace_rst_section(args.doc, "BENCH-BTRFS",
                            doc_section(machine, workloads, idx, ratios,
                                        memory, goals, prof))
    sys.stdout.write(md)
    for r in failed:
        print(f"report.py: {r['workload']}--{r['module']}: {r['error']}",
              file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
