#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-scaling: the project's comparisons at 1 to N threads.

Three parts, each within its own time budget (--budget seconds), each
measured at every thread count of --threads, the largest first and then
the rest from the smallest up (run_order()):
  user    bench_user (tools/bench/user): the skiplist against the rbtree
          (spinlock and rwlock), tbb::concurrent_map, libcds's skiplist
          and the maple tree; lookups and a 50/50 mix on one key set
          (--user-keyset), insert_hole (which runs on the evenly spaced
          set only); one process per thread count, so that a count cut
          short by the budget loses only its own figures;
  native  sl_bench_native (tools/bench/kernel/native): the churn workload
          of the range allocators against the kernel's IOVA allocator,
          one process per thread count;
  iommu   the IOMMU demo's fio comparison in one VM (tools/vm/vm-run:
          KVM where it works, else TCG) with --vm-cpus vCPUs (default:
          the host's CPUs), the multi-job workloads of tools/fio/ with
          numjobs set to each thread count in turn (guest-scaling-iommu.sh).
A thread count whose predicted time (the slowest count before it, and a
quarter more) would end past the part's budget is skipped; a process
still running at the end of the budget is killed.  Either makes the run
incomplete: the report says so and this script exits 1 after writing
it.  Since the largest count, the slowest, runs first, a budget too short
loses counts from the middle of the curve, never the comparison at the
host's CPUs or the one-thread baseline.

The default thread counts are the powers of two up to the host's CPUs,
and the CPU count itself when it is not one (a 24-CPU host runs 1, 2, 4,
8, 16 and 24): counts past the CPUs measure the scheduler's time slices
more than the index.  --threads takes any list from 1 to 64 (the
userspace shim's NR_CPUS and sl_bench_native's BENCH_MAX_THREADS); the
report marks counts past the CPUs as oversubscribed.

Raw outputs go to OUT/scaling/ (each part's own reports: user.json per
thread count, alloc-native.{json,md} from tools/bench/kernel/report.py,
iommu.{json,md} per job count from tools/bench/iommu/report.py); then
tools/bench/scaling/report.py writes OUT/scaling.{json,md,png}.

Usage: run.py [--out build/bench] [--threads 1,2,4] [--parts user,native,iommu]
              [--budget 540] [--readme README.md] [part options, see --help]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "../../.."))
sys.path.insert(0, HERE)
import report  # noqa: E402

PARTS = ["user", "native", "iommu"]
MAX_THREADS = 64
# sl_iommu.ko's default device size (iommu_demo/main.c, size_mb=), which
# guest-bench-iommu.sh does not change: the jobs' regions must fit in it.
DEVICE_KIB = 64 * 1024
# How much longer than the slowest count so far the next one may take.
GROWTH = 1.25
# The guest stops starting job counts this long before the budget ends:
# time to unload the modules, shut down and write the reports.
GUEST_MARGIN_S = 20
# vm-run's KVM probe, on the first VM run of a machine (tools/vm/vm-run).
KVM_PROBE_S = 30


def log(msg):
    print(f"bench-scaling: {msg}", flush=True)


def thread_list(arg, cpus):
    if not arg:
        top = min(cpus, MAX_THREADS)
        out, t = [], 1
        while t <= top:
            out.append(t)
            t *= 2
        if out[-1] != top:
            out.append(top)
        return out
    try:
        vals = sorted({int(v) for v in arg.split(",")})
    except ValueError:
        sys.exit(f"bench-scaling: --threads '{arg}': not a list of numbers")
    if not vals or vals[0] < 1 or vals[-1] > MAX_THREADS:
        sys.exit(f"bench-scaling: --threads '{arg}': each must be 1 to {MAX_THREADS}")
    return vals


class Part:
    """A part's clock, its budget, and what became of each thread count."""

    def __init__(self, name, budget):
        self.name, self.budget = name, budget
        self.t0 = time.monotonic()
        self.durations = {}
        self.skipped, self.failed = [], {}

    def elapsed(self):
        return time.monotonic() - self.t0

    def remaining(self):
        return self.budget - self.elapsed()

    def fits_next(self):
        predicted = GROWTH * max(self.durations.values(), default=0)
        return self.elapsed() + predicted <= self.budget

    def run(self, cmd, stdout, threads):
        """Run cmd (stdout to the file stdout) within what is left of the
        budget; False, with the reason recorded, if it failed."""
        left = self.remaining()
        if left <= 0:
            self.failed[threads] = "no time left in the budget"
            return False
        with open(stdout, "w") as f:
            try:
                rc = subprocess.run(cmd, stdout=f, timeout=left).returncode
            except subprocess.TimeoutExpired:
                self.failed[threads] = (f"killed at the end of the {self.budget:.0f} s "
                                        "budget")
                return False
        if rc:
            self.failed[threads] = f"{os.path.basename(cmd[0])} exited {rc}"
            return False
        return True

    def record(self):
        return {"budget_s": self.budget, "wall_s": round(self.elapsed(), 1),
                "seconds_per_count": {str(t): round(d, 1)
                                      for t, d in self.durations.items()},
                "skipped": self.skipped,
                "failed": {str(t): why for t, why in self.failed.items()}}


def run_order(threads):
    """The largest count first (the comparison at the host's CPUs, and
    the slowest, so that it sets the prediction for the rest), then the
    others from one thread up."""
    return threads[-1:] + threads[:-1]


def per_count(part, threads, body):
    """body(t) for each thread count while the budget allows."""
    for t in run_order(threads):
        if not part.fits_next():
            log(f"{part.name}: {t} threads skipped: {part.elapsed():.0f} s of "
                f"the {part.budget:.0f} s budget gone, the slowest count so "
                f"far took {max(part.durations.values()):.0f} s")
            part.skipped.append(t)
            continue
        start = time.monotonic()
        log(f"{part.name}: {t} threads")
        ok = body(t)
        part.durations[t] = time.monotonic() - start
        if not ok:
            log(f"{part.name}: {t} threads: {part.failed.get(t)}")


def user_groups(args):
    """(key set, workloads) per bench_user run: insert_hole runs on the
    evenly spaced set only (bench_user.c), the rest on --user-keyset."""
    wl = args.user_workloads.split(",")
    hole = [w for w in wl if w == "insert_hole"]
    rest = [w for w in wl if w != "insert_hole"]
    if args.user_keyset == "even":
        return [("even", wl)]
    return ([(args.user_keyset, rest)] if rest else []) + \
        ([("even", hole)] if hole else [])


def run_user(args, work, threads):
    part = Part("user", args.budget)

    def body(t):
        for ks, wl in user_groups(args):
            out = os.path.join(work, "user", f"t{t}-{ks}")
            os.makedirs(out, exist_ok=True)
            cmd = [args.user_bin, "--items", str(args.user_items),
                   "--keysets", ks, "--workloads", ",".join(wl),
                   "--threads", str(t), "--seconds", str(args.user_seconds),
                   "--rounds", str(args.user_rounds), "--out", out]
            if args.user_impls:
                cmd += ["--impls", args.user_impls]
            if not part.run(cmd, os.path.join(out, "stdout.md"), t):
                return False
        return True

    per_count(part, threads, body)
    return part


def run_native(args, work, threads):
    part = Part("native", args.budget)
    out = os.path.join(work, "native")
    os.makedirs(out, exist_ok=True)

    def body(t):
        cmd = [args.native_bin, "--workloads", "churn", "--threads", str(t),
               "--cell-ms", str(args.native_cell_ms),
               "--rounds", str(args.native_rounds)]
        if args.native_allocators:
            cmd += ["--allocators", args.native_allocators]
        return part.run(cmd, os.path.join(out, f"t{t}.txt"), t)

    per_count(part, threads, body)
    # One results file for the allocator benchmark's own reporter.
    done = [t for t in threads if t in part.durations and t not in part.failed]
    if done:
        with open(os.path.join(out, "results.txt"), "w") as f:
            for t in done:
                f.write(open(os.path.join(out, f"t{t}.txt")).read())
        rc = subprocess.run([sys.executable, os.path.join(TOP, "tools/bench/kernel/report.py"),
                             os.path.join(out, "results.txt"), "--out", out,
                             "--name", "alloc-native"],
                            stdout=subprocess.DEVNULL).returncode
        if rc:
            part.failed["report"] = f"tools/bench/kernel/report.py exited {rc}"
    return part


def size_kib(text):
    m = re.fullmatch(r"(\d+)([kKmMgG]?)", text.strip())
    if not m:
        raise ValueError(f"size '{text}' not understood")
    return int(m.group(1)) * {"": 1 / 1024, "k": 1, "m": 1024, "g": 1024 ** 2}[
        m.group(2).lower()]


def scaled_job(src, jobs):
    """tools/fio/W.fio with numjobs=jobs; each job keeps its own region
    (size= and offset_increment=), shrunk when jobs of that size would
    not fit in the device."""
    lines = open(src).read().splitlines()
    opts = {}
    for ln in lines:
        m = re.match(r"\s*(numjobs|size|offset_increment)\s*=\s*(\S+)", ln)
        if m:
            opts[m.group(1)] = m.group(2)
    if int(opts.get("numjobs", "1")) < 2:
        raise ValueError(f"{os.path.basename(src)} runs one job by design: "
                         "only the multi-job workloads scale")
    region = None
    if "offset_increment" in opts:
        region = min(size_kib(opts["size"]), DEVICE_KIB // jobs // 4 * 4)
    out = [f"; Generated by tools/bench/scaling/run.py from {os.path.relpath(src, TOP)}:",
           f"; numjobs={jobs}" + (f", {region} KiB per job" if region else "") + "."]
    for ln in lines:
        key = re.match(r"\s*(\w+)\s*=", ln)
        key = key.group(1) if key else None
        if key == "numjobs":
            ln = f"numjobs={jobs}"
        elif key in ("size", "offset_increment") and region:
            ln = f"{key}={region}k"
        out.append(ln)
    return "\n".join(out) + "\n"


def job_file(workload):
    return os.path.join(TOP, "tools/fio", f"{workload}.fio")


def check_job_files(workloads):
    for w in workloads.split(","):
        try:
            scaled_job(job_file(w), 2)
        except OSError:
            sys.exit(f"bench-scaling: iommu workload {w}: no job file "
                     f"{os.path.relpath(job_file(w), TOP)}")
        except ValueError as e:
            sys.exit(f"bench-scaling: iommu workload {w}: {e}")


def run_iommu(args, work, threads):
    part = Part("iommu", args.budget)
    fio_dir = os.path.join(work, "fio")
    vm_out = os.path.join(work, "iommu-vm")
    workloads = args.iommu_workloads.split(",")
    for t in threads:
        os.makedirs(os.path.join(fio_dir, f"j{t}"), exist_ok=True)
        for w in workloads:
            with open(os.path.join(fio_dir, f"j{t}", f"{w}.fio"), "w") as f:
                f.write(scaled_job(job_file(w), t))
    os.makedirs(vm_out, exist_ok=True)
    # The guest's clock is its uptime: the time before it boots (and
    # vm-run's KVM probe, the first time on a machine) is taken off here.
    probe = 0 if os.path.exists(os.path.join(TOP, "build/vm/kvm")) else KVM_PROBE_S
    guest_budget = int(part.remaining() - GUEST_MARGIN_S - probe)
    cmd = [os.path.join(TOP, "tools/vm/vm-run"), "--kernel", "6.1",
           "--cpus", str(args.vm_cpus), "--memory", args.vm_memory,
           "--timeout", str(int(part.remaining()) + 30),
           "--append", "slub_debug=- clocksource=tsc tsc=reliable",
           "--out", vm_out, "--",
           f"SL_SCALING_BUDGET={guest_budget}", f"SLB_ROUNDS={args.iommu_rounds}",
           "tools/bench/scaling/guest-scaling-iommu.sh", vm_out, fio_dir,
           str(args.iommu_seconds), args.iommu_workloads, args.iommu_backends,
           ",".join(map(str, run_order(threads)))]
    log(f"iommu: one VM, {args.vm_cpus} vCPUs, fio with "
        f"{','.join(map(str, run_order(threads)))} jobs")
    rc = subprocess.run(cmd).returncode
    skipped = set()
    try:
        skipped = {int(x) for x in open(os.path.join(vm_out, "skipped")).read().split()}
    except OSError:
        pass
    for t in threads:
        cells = os.path.join(vm_out, f"j{t}")
        if t in skipped:
            part.skipped.append(t)
            continue
        if not os.path.isdir(cells):
            part.failed[t] = "the guest did not get to it"
            continue
        try:
            part.durations[t] = float(open(os.path.join(cells, "seconds")).read())
        except (OSError, ValueError):
            part.failed[t] = "the guest did not finish it"
        out = os.path.join(work, "iommu", f"j{t}")
        r = subprocess.run([sys.executable, os.path.join(TOP, "tools/bench/iommu/report.py"),
                            cells, "--out", out], stdout=subprocess.DEVNULL).returncode
        if r and t not in part.failed:
            part.failed[t] = f"tools/bench/iommu/report.py exited {r} (a failed fio cell)"
    if rc and not part.failed:
        part.failed["vm"] = f"tools/vm/vm-run exited {rc} (its output says why)"
    return part


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("--out", default=os.path.join(TOP, "build/bench"))
    ap.add_argument("--threads", help="thread counts (default: powers of two up "
                    "to the host's CPUs, and the CPU count)")
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--budget", type=float, default=540,
                    help="seconds per part (default %(default)s)")
    ap.add_argument("--readme", help="README.md whose BENCH-SCALING section a "
                    "complete run on 16 or more CPUs rewrites")
    ob = os.path.join(TOP, "build/bench-obj")
    g = ap.add_argument_group("user part (bench_user)")
    g.add_argument("--user-bin", default=os.path.join(ob, "driver/bench_user"))
    g.add_argument("--user-items", type=int, default=1048576)
    g.add_argument("--user-keyset", default="uniform")
    g.add_argument("--user-workloads", default="lookup,mix50,insert_hole")
    g.add_argument("--user-impls", help="bench_user's --impls (default all)")
    g.add_argument("--user-seconds", type=float, default=1.0)
    g.add_argument("--user-rounds", type=int, default=1)
    g = ap.add_argument_group("native part (sl_bench_native)")
    g.add_argument("--native-bin", default=os.path.join(ob, "native/sl_bench_native"))
    g.add_argument("--native-allocators", help="sl_bench_native's --allocators "
                   "(default all)")
    g.add_argument("--native-cell-ms", type=int, default=500)
    g.add_argument("--native-rounds", type=int, default=5)
    g = ap.add_argument_group("iommu part (fio in a VM)")
    g.add_argument("--vm-cpus", type=int, default=os.cpu_count(),
                   help="the VM's vCPUs (default: the host's CPUs)")
    g.add_argument("--vm-memory", default="4G")
    g.add_argument("--iommu-seconds", type=int, default=3)
    g.add_argument("--iommu-rounds", type=int, default=1)
    g.add_argument("--iommu-workloads", default="randread,randwrite")
    g.add_argument("--iommu-backends",
                   default="none,rbtree,iova,maple,skiplist,skiplist-nocache")
    args = ap.parse_args()

    parts = args.parts.split(",")
    bad = [p for p in parts if p not in PARTS]
    if bad:
        sys.exit(f"bench-scaling: --parts: unknown part '{bad[0]}' "
                 f"(parts: {', '.join(PARTS)})")
    if args.budget <= 0:
        sys.exit("bench-scaling: --budget must be positive")
    host = report.host_info()
    host["loadavg_start"] = report.loadavg()
    threads = thread_list(args.threads, host["cpus"])
    for p, exe in (("user", args.user_bin), ("native", args.native_bin)):
        if p in parts and not os.access(exe, os.X_OK):
            sys.exit(f"bench-scaling: {exe} missing: run 'make bench-build "
                     "bench-native-build'")
    if "iommu" in parts:
        check_job_files(args.iommu_workloads)

    work = os.path.join(args.out, "scaling")
    # Nothing of an earlier run may mix into this one's report.
    shutil.rmtree(work, ignore_errors=True)
    for ext in ("json", "md", "png"):
        try:
            os.remove(os.path.join(args.out, f"scaling.{ext}"))
        except FileNotFoundError:
            pass
    os.makedirs(work)
    log(f"{host['cpu']}, {host['cpus']} CPUs; threads {','.join(map(str, threads))}; "
        f"parts {','.join(parts)}; {args.budget:.0f} s each at most")
    record = {"host": host, "threads": threads, "parts": {},
              "config": {k: v for k, v in vars(args).items()
                         if k not in ("out", "readme")}}
    for p, fn in (("user", run_user), ("native", run_native), ("iommu", run_iommu)):
        if p not in parts:
            continue
        part = fn(args, work, threads)
        record["parts"][p] = part.record()
        log(f"{p}: {part.elapsed():.0f} s of {part.budget:.0f}")
    host["loadavg_end"] = report.loadavg()
    with open(os.path.join(work, "run.json"), "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    cmd = [sys.executable, os.path.join(HERE, "report.py"), work, "--out", args.out]
    if args.readme:
        cmd += ["--readme", args.readme]
    return subprocess.run(cmd).returncode


if __name__ == "__main__":
    sys.exit(main())
