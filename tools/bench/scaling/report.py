#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turns a make bench-scaling run into scaling.{json,md,png}.

Reads WORK (OUT/scaling, written by tools/bench/scaling/run.py):
  run.json                   the host, the thread counts, each part's
                             budget, wall time, and the counts skipped or
                             failed;
  user/tT-KEYSET/user.json   bench_user's own JSON, one per thread count
                             and key set;
  native/alloc-native.json   tools/bench/kernel/report.py's, over every
                             thread count;
  iommu/jT/iommu.json        tools/bench/iommu/report.py's, one per job
                             count.
Writes, into OUTDIR:
  scaling.json  {"host", "threads", "parts", "series": [one record per
                part, workload, implementation and thread count], "ratios":
                [each part's own implementation over each peer at each
                count], "missing", "complete"};
  scaling.md    the host, each part's time, and per workload a table of
                throughput at each count with the ratios to the peers,
                then each implementation's throughput over its own at one
                thread;
  scaling.png   throughput against threads, one line per implementation,
                a panel per workload (log scales).
With --readme, a complete run on a host of 16 or more CPUs that reached
16 threads also rewrites README.md's BENCH-SCALING section; any other run
leaves it alone and says why.  Exits 1 if the run is incomplete (a count
skipped, failed or missing a figure), after writing everything.

Usage: report.py WORK [--out OUTDIR] [--readme README.md]
"""

import argparse
import glob
import json
import os
import platform
import re
import subprocess
import sys

# The project's own implementation in each part, the one the ratios are of.
BASE = {"user": "skiplist", "native": "skiplist-cache", "iommu": "skiplist"}
UNIT = {"user": "Mops/s", "native": "M alloc+free/s", "iommu": "MB/s"}
# Panels in this order; workloads of a part not listed come after.
ORDER = [("user", "lookup"), ("user", "mix50"), ("user", "insert_hole"),
         ("native", "churn"), ("iommu", "randread"), ("iommu", "randwrite")]
README_MIN_CPUS = 16


def host_info():
    """What the host is, for the report: CPU, cores, memory, kernel,
    distribution, compiler, and whether it is itself a virtual machine."""
    info = {"cpu": "unknown", "cpus": os.cpu_count(), "cores": None,
            "sockets": None, "threads_per_core": None, "hypervisor": None,
            "memory_gib": None, "kernel": platform.release(), "os": None,
            "gcc": None}
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        out = subprocess.run(["lscpu"], stdout=subprocess.PIPE, text=True,
                             env=dict(os.environ, LC_ALL="C")).stdout
        f = dict(ln.split(":", 1) for ln in out.splitlines() if ":" in ln)
        f = {k.strip(): v.strip() for k, v in f.items()}
        per_socket = int(f.get("Core(s) per socket", 0)) or None
        info["sockets"] = int(f.get("Socket(s)", 0)) or None
        info["threads_per_core"] = int(f.get("Thread(s) per core", 0)) or None
        if per_socket and info["sockets"]:
            info["cores"] = per_socket * info["sockets"]
        info["hypervisor"] = f.get("Hypervisor vendor")
    except (OSError, ValueError):
        pass
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                info["memory_gib"] = round(int(line.split()[1]) / 2 ** 20, 1)
    except OSError:
        pass
    try:
        for line in open("/etc/os-release"):
            if line.startswith("PRETTY_NAME="):
                info["os"] = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    try:
        info["gcc"] = subprocess.run(["gcc", "--version"], stdout=subprocess.PIPE,
                                     text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        pass
    return info


def loadavg():
    """The 1, 5 and 15 minute load averages: a busy host's figures are
    not an idle one's."""
    try:
        return [float(x) for x in open("/proc/loadavg").read().split()[:3]]
    except (OSError, ValueError):
        return None


def host_line(h, vm):
    cores = (f"{h['cores']} cores in {h['sockets']} socket(s), "
             f"{h['threads_per_core']} thread(s) per core" if h.get("cores")
             else "cores unknown")
    virt = (f"itself a virtual machine ({h['hypervisor']})" if h.get("hypervisor")
            else "not a virtual machine (no hypervisor in lscpu)")
    s = (f"{h['cpu']}, {h['cpus']} CPUs ({cores}), {h['memory_gib']} GiB, "
         f"Linux {h['kernel']}, {h['os']}, {h['gcc']}; the host is {virt}")
    if h.get("loadavg_start") and h.get("loadavg_end"):
        s += (f"; load average (1 min) {h['loadavg_start'][0]:g} at the start, "
              f"{h['loadavg_end'][0]:g} at the end")
    if vm:
        s += (f"; the IOMMU part's VM: guest kernel {vm.get('kernel')}, "
              f"{vm.get('vcpus')} vCPUs, QEMU "
              + ("KVM" if vm.get("accel") == "kvm" else
                 "TCG (software emulation)" if vm.get("accel") == "tcg"
                 else str(vm.get("accel"))))
    return s


def user_series(work):
    out, about = [], {}
    for path in sorted(glob.glob(os.path.join(work, "user", "t*", "user.json"))):
        doc = json.load(open(path))
        m = doc.get("machine", {})
        about["compiler"] = m.get("compiler")
        about["seconds"], about["rounds"] = m.get("seconds"), m.get("rounds")
        for r in doc["results"]:
            # An index that cannot remove concurrently runs those
            # workloads on one thread only: not a point on a curve.
            if r.get("comparable", True) is False:
                continue
            out.append({"part": "user", "workload": r["workload"],
                        "impl": r["impl"], "threads": r["threads"],
                        "value": r["ops_per_sec"] / 1e6,
                        "keyset": r.get("keyset"), "items": r["items"],
                        "partial": bool(r.get("partial"))})
    return out, about


def native_series(work):
    path = os.path.join(work, "native", "alloc-native.json")
    if not os.path.exists(path):
        return [], {}
    doc = json.load(open(path))
    out = [{"part": "native", "workload": r["workload"], "impl": r["impl"],
            "threads": r["threads"], "value": r["ops_per_sec"] / 1e6}
           for r in doc["results"] if r["workload"] == "churn"]
    m = doc["machine"]
    return out, {"cell_ms": m.get("cell_ms"), "rounds": m.get("rounds")}


def iommu_series(work, missing):
    out, vm = [], {}
    for path in glob.glob(os.path.join(work, "iommu", "j*", "iommu.json")):
        jobs = int(re.search(r"/j(\d+)/iommu\.json$", path).group(1))
        doc = json.load(open(path))
        vm = {k: doc["machine"].get(k) for k in
              ("kernel", "vcpus", "accel", "runtime_s", "rounds", "boot")}
        for r in doc["results"]:
            if "error" in r:
                missing.append(f"iommu {r['workload']} {r['backend']} at {jobs} "
                               f"jobs: {r['error']}")
                continue
            if r["jobs"] != jobs:
                missing.append(f"iommu {r['workload']} {r['backend']}: fio ran "
                               f"{r['jobs']} jobs where {jobs} were asked")
                continue
            out.append({"part": "iommu", "workload": r["workload"],
                        "impl": r["backend"], "threads": jobs,
                        "value": r["mb_per_sec"], "iops": r["iops"],
                        "p99_us": r["p99_us"]})
    return out, vm


def ordered_panels(series):
    seen = []
    for s in series:
        if (s["part"], s["workload"]) not in seen:
            seen.append((s["part"], s["workload"]))
    return [p for p in ORDER if p in seen] + [p for p in seen if p not in ORDER]


def impls_of(series, part, workload):
    out = []
    base = BASE[part]
    for s in series:
        if s["part"] == part and s["workload"] == workload and s["impl"] not in out:
            out.append(s["impl"])
    return ([base] if base in out else []) + [i for i in out if i != base]


def fmt(v):
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:.0f}"
    return f"{v:.3g}"


def plot(series, panels, title, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    # One colour per implementation in all of a part's panels.
    colour = {}
    for part, wl in panels:
        for impl in impls_of(series, part, wl):
            colour.setdefault((part, impl), f"C{len([k for k in colour if k[0] == part]) % 10}")
    cols = 2 if len(panels) > 1 else 1
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 4.2 * rows),
                             squeeze=False)
    for ax, (part, wl) in zip(axes.flat, panels):
        threads = sorted({s["threads"] for s in series if s["part"] == part})
        values = [s["value"] for s in series
                  if (s["part"], s["workload"]) == (part, wl) and s["value"] > 0]
        for impl in impls_of(series, part, wl):
            pts = sorted((s["threads"], s["value"]) for s in series
                         if (s["part"], s["workload"], s["impl"]) == (part, wl, impl)
                         and s["value"] > 0)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                        color=colour[(part, impl)],
                        linewidth=2.5 if impl == BASE[part] else 1.2, label=impl)
        ax.set_xscale("log", base=2)
        ax.set_xticks(threads)
        ax.set_xticklabels([str(t) for t in threads])
        ax.set_yscale("log")
        # Labels at 1, 2 and 5 of each decade where the panel spans few
        # decades, at each decade where it spans many; none between.
        few = values and max(values) / min(values) < 100
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)
                                              if few else (1.0,)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("fio jobs" if part == "iommu" else "threads")
        ax.set_ylabel(UNIT[part] + " (log)")
        ax.set_title(f"{part}: {wl}", fontsize=10)
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=8, wrap=True)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(path, dpi=100)
    plt.close(fig)


def workload_tables(series, part, wl, cpus, growth=True):
    """The markdown tables of one workload: throughput and ratios, then
    (with growth) each one's throughput over its own at one thread."""
    impls = impls_of(series, part, wl)
    base = BASE[part]
    peers = [i for i in impls if i != base] if base in impls else []
    cell = {(s["impl"], s["threads"]): s for s in series
            if (s["part"], s["workload"]) == (part, wl)}
    threads = sorted({t for _, t in cell})
    label = "jobs" if part == "iommu" else "threads"
    first = next(iter(cell.values()))
    where = (f", {first['items']} items, key set {first['keyset']}"
             if part == "user" else "")
    md = ["", f"### {part}: {wl} ({UNIT[part]}{where})", "",
          f"| {label} | " + " | ".join(impls) +
          "".join(f" | {base} vs {p}" for p in peers) + " |",
          "|---:|" + "---:|" * (len(impls) + len(peers))]
    ratios = []
    for t in threads:
        vals = [cell.get((i, t)) for i in impls]
        cells = [fmt(v["value"]) + (" (partial)" if v.get("partial") else "")
                 if v else "-" for v in vals]
        for p in peers:
            a, b = cell.get((base, t)), cell.get((p, t))
            r = a["value"] / b["value"] if a and b and b["value"] else None
            ratios.append({"part": part, "workload": wl, "threads": t,
                           "impl": base, "peer": p, "ratio": r})
            cells.append("-" if r is None else f"{r:.2f}x")
        note = " (oversubscribed)" if t > cpus else ""
        md.append(f"| {t}{note} | " + " | ".join(cells) + " |")
    if growth and 1 in threads and len(threads) > 1:
        md += ["", f"Throughput over its own at one {label[:-1]}:", "",
               f"| {label} | " + " | ".join(impls) + " |",
               "|---:|" + "---:|" * len(impls)]
        for t in threads[1:]:
            cells = []
            for i in impls:
                a, b = cell.get((i, t)), cell.get((i, 1))
                cells.append(f"{a['value'] / b['value']:.2f}x"
                             if a and b and b["value"] else "-")
            md.append(f"| {t} | " + " | ".join(cells) + " |")
    return md, ratios


def missing_points(series, run):
    """Every implementation of a workload should have a figure at every
    count its part ran; the counts a part skipped or failed are listed as
    such, not as missing figures."""
    out = []
    for part, wl in ordered_panels(series):
        rec = run["parts"].get(part, {})
        gone = set(rec.get("skipped", [])) | {int(t) for t in rec.get("failed", {})
                                              if t.isdigit()}
        want = [t for t in run["threads"] if t not in gone]
        for impl in impls_of(series, part, wl):
            have = {s["threads"] for s in series
                    if (s["part"], s["workload"], s["impl"]) == (part, wl, impl)}
            for t in want:
                if t not in have:
                    out.append(f"{part} {wl} {impl}: no figure at {t}")
    return out


def replace_block(path, lines):
    text = open(path).read()
    pat = re.compile(r"<!-- BENCH-SCALING:BEGIN.*?<!-- BENCH-SCALING:END -->", re.S)
    if not pat.search(text):
        print(f"report.py: no BENCH-SCALING markers in {path}", file=sys.stderr)
        return
    with open(path, "w") as f:
        f.write(pat.sub(lambda _: "\n".join(lines), text))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("work", help="the run's directory (OUT/scaling)")
    ap.add_argument("--out", help="where scaling.* go (default: WORK/..)")
    ap.add_argument("--readme", help="README.md with a BENCH-SCALING section")
    args = ap.parse_args()
    out = args.out or os.path.dirname(os.path.abspath(args.work))

    run = json.load(open(os.path.join(args.work, "run.json")))
    host, cpus = run["host"], run["host"]["cpus"]
    missing = []
    user, user_about = user_series(args.work)
    native, native_about = native_series(args.work)
    iommu, vm = iommu_series(args.work, missing)
    series = user + native + iommu
    panels = ordered_panels(series)
    for p in run["parts"]:
        if not any(s["part"] == p for s in series):
            missing.append(f"{p}: no figures at all")
    missing += missing_points(series, run)
    problems = []
    for p, rec in run["parts"].items():
        if rec["skipped"]:
            problems.append(f"{p}: {', '.join(map(str, rec['skipped']))} skipped "
                            f"(over the {rec['budget_s']:.0f} s budget)")
        for t, why in rec["failed"].items():
            problems.append(f"{p}: {t}: {why}")
    complete = not missing and not problems
    hline = host_line(host, vm)

    parts_md = ["| part | what | seconds | budget | counts skipped or failed |",
                "|---|---|---:|---:|---|"]
    def rounds(n):
        return "one round" if n == 1 else f"the median of {n} rounds"
    what = {"user": f"bench_user, {user_about.get('seconds')} s per cell, "
                    f"{rounds(user_about.get('rounds'))}, {user_about.get('compiler')}",
            "native": f"sl_bench_native churn, {native_about.get('cell_ms')} ms per "
                      f"round, {rounds(native_about.get('rounds'))}",
            "iommu": f"fio in the VM, {vm.get('runtime_s')} s per cell, "
                     f"{rounds(vm.get('rounds'))}"}
    for p, rec in run["parts"].items():
        bad = [f"{t} skipped" for t in rec["skipped"]] + \
              [f"{t}: {why}" for t, why in rec["failed"].items()]
        parts_md.append(f"| {p} | {what[p]} | {rec['wall_s']:.0f} | "
                        f"{rec['budget_s']:.0f} | {'; '.join(bad) or 'none'} |")
    md = ["# make bench-scaling", "",
          f"Host: {hline}.", "",
          f"Thread counts {', '.join(map(str, run['threads']))}"
          + (f" (past the {cpus} CPUs: oversubscribed)"
             if run["threads"][-1] > cpus else "") + ".", ""] + parts_md
    if any(s["part"] == "user" for s in series):
        md += ["", "tbb-map cannot remove while other threads run: it is not in "
               "the mix and insert_hole tables (make bench-user runs it there on "
               "one thread, as not comparable)."]
    ratios = []
    for part, wl in panels:
        lines, r = workload_tables(series, part, wl, cpus)
        md += lines
        ratios += r
    if missing or problems:
        md += ["", "**Incomplete:**", ""] + [f"- {x}" for x in problems + missing]
    md.append("")

    os.makedirs(out, exist_ok=True)
    doc = {"host": host, "vm": vm or None, "threads": run["threads"],
           "parts": run["parts"], "config": run.get("config"),
           "user": user_about, "native": native_about,
           "series": series, "ratios": ratios, "missing": missing,
           "problems": problems, "complete": complete}
    with open(os.path.join(out, "scaling.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with open(os.path.join(out, "scaling.md"), "w") as f:
        f.write("\n".join(md))
    if panels:
        plot(series, panels, f"make bench-scaling: {hline}",
             os.path.join(out, "scaling.png"))
    print(f"report.py: wrote {out}/scaling.{{json,md{',png' if panels else ''}}}")

    if args.readme:
        top = max(run["threads"])
        every = set(run["parts"]) == set(BASE)
        if not complete or not every or cpus < README_MIN_CPUS or \
                top < README_MIN_CPUS:
            print(f"report.py: {args.readme} left alone: only a complete run of "
                  f"every part on a host of {README_MIN_CPUS} or more CPUs that "
                  f"reaches {README_MIN_CPUS} threads replaces its figures (this "
                  f"one: {cpus} CPUs, up to {top} threads, parts "
                  f"{','.join(run['parts'])}, "
                  f"{'complete' if complete else 'incomplete'})")
        else:
            block = ["<!-- BENCH-SCALING:BEGIN (generated by tools/bench/scaling/report.py; do not edit) -->",
                     f"Measured by `make bench-scaling` on {hline}.  All tables "
                     "and the plot are in `build/bench/scaling.{md,png}`.", ""]
            block += parts_md
            for part, wl in panels:
                block += workload_tables(series, part, wl, cpus, growth=False)[0]
            block.append("<!-- BENCH-SCALING:END -->")
            replace_block(args.readme, block)
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main())
