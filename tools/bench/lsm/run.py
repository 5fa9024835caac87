#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The store (lsm_bench on the userspace library) against RocksDB's
db_bench, on the same file system, with rounds interleaved.

Each round runs every cell (a workload at a thread count) once per
implementation, alternating which goes first, so that both see the same
machine state; a cell's figure is the median over the rounds.  Both
drivers take the same db_bench flags (8-byte keys, 100-byte values, the
same memtable size and number of memtables, the same seed) and print the
same report lines, which this script parses.

Workloads (db_bench's names where they exist):
  fillseq, fillrandom  WAL on, sync off, a fresh database each;
  fillrandom-nowal-v0  seed 001's workload: fillrandom with empty values
                       and no WAL, every key staying in the memtable;
                       "memstats" afterwards gives memtable bytes per
                       record (each thread writes num / threads keys, so
                       that both thread counts fit the memtable);
  readrandom, readseq  on a database made by fillseq and flush on one
                       thread (so the data is in runs / SST files), opened
                       again for each cell;
  fillsync             every write synchronous (db_bench's fillsync: its
                       keys come from num / 1000, --writes of them).

Batched writes (only with --workloads):
  fillseq-batch100, fillrandom-batch100
                       --batch_size=100 for both drivers: one atomic
                       write of 100 puts per call (a WriteBatch for
                       db_bench, one SL_LSM_IOC_BATCH through /dev/sl_lsm)

In a VM (--vm, as tools/bench/lsm/guest-bench-lsm-vm.sh runs it for
"make bench-lsm-vm"): the store is sl_lsm.ko through /dev/sl_lsm on a raw
virtio disk (--lsm-backend dev), RocksDB on ext4 on another, and the
reports are named NAME (--name lsm-vm) with issue 19's VM goal.

Writes, into OUT (default build/bench): lsm.json (machine, configuration
of both, RocksDB's OPTIONS file, results, ratios, goals), lsm.md, lsm.rst
(the tables Documentation/lsm-bench.rst shows), lsm.png, the drivers'
raw output under lsm-raw/, and with --doc rewrites the generated part of
that page (full runs only).

Usage: run.py [--quick] [--num N] [--rounds R] [--threads 1,2] [--out DIR]
              [--workloads LIST] [--memtable-bytes B] [--name NAME] [--vm]
              [--lsm-bench PATH | --rocksdb-only] [--doc FILE]
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from rst_table import rst_table  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
OURS = "lsm"
PEER = "rocksdb"
MEMTABLE_BYTES = 64 << 20
# Seed 001's workload keeps everything in the memtable, for both drivers:
# the store's memtable holds about 144 bytes per live key (record and
# index, lsm_mem_bytes()), 91 MB for the 632K distinct keys of 1M random
# puts, so at 64 MiB it switched memtables and wrote a run in the middle
# of the measured run.  Both get 256 bytes per key (at least the common
# size) for that workload alone.
NOWAL_MEMTABLE_BYTES_PER_KEY = 256
# One active memtable and two immutable ones waiting (the store's default
# max_immutables); RocksDB counts the active one in the same flag.
WRITE_BUFFERS = 3
# The store's Bloom filters hold about 10 bits per key (issue 19).
BLOOM_BITS = 10

# (name, db_bench benchmark, extra flags, prepared database, about)
WORKLOADS = [
    ("fillseq", "fillseq", {}, False, "sequential keys, WAL on, sync off"),
    ("fillrandom", "fillrandom", {}, False,
     "uniform random keys, WAL on, sync off"),
    ("fillrandom-nowal-v0", "fillrandom",
     {"value_size": 0, "disable_wal": 1}, False,
     "seed 001's workload: random keys, empty values, no WAL, all in the memtable"),
    ("readrandom", "readrandom", {}, True,
     "random point reads of a flushed database (every key present)"),
    ("readseq", "readseq", {}, True,
     "a full scan of a flushed database per thread"),
    ("fillsync", "fillsync", {}, False,
     "random keys, every write synchronous (durable on return)"),
]

# Run only when --workloads names them: db_bench's default is one put
# per write, and so is the table of the native run.
BATCH = 100
EXTRA_WORKLOADS = [
    ("fillseq-batch100", "fillseq", {"batch_size": BATCH}, False,
     f"fillseq, {BATCH} puts per write call"),
    ("fillrandom-batch100", "fillrandom", {"batch_size": BATCH}, False,
     f"fillrandom, {BATCH} puts per write call"),
]
# What the VM run measures (issue 19: fillrandom in the VM, with
# fillseq, readrandom and readseq beside it).
VM_WORKLOADS = "fillseq,fillrandom,fillseq-batch100,fillrandom-batch100," \
    "readrandom,readseq"

# The reads whose block cache counters the report shows.
CACHE_WORKLOADS = ("readrandom", "readseq")

# (workload, target ratio to RocksDB) for each thread count; the last
# native goal is the store's own 2-thread fillsync against its 1-thread
# rate.
GOALS = [
    ("fillseq", 1.5), ("fillrandom", 1.5), ("fillrandom-nowal-v0", 3.0),
    ("readrandom", 1.0), ("readseq", 1.0), ("fillsync", 1.0),
]
GROUP_COMMIT_GOAL = 1.6
# In the VM through ioctls: fillrandom at least RocksDB's in the same VM.
VM_GOALS = [("fillrandom", 1.0)]
# Chart labels short enough to sit side by side.
SHORT = {"fillrandom-nowal-v0": "seed 001\n(v0, no WAL)",
         "fillseq-batch100": f"fillseq\nbatch {BATCH}",
         "fillrandom-batch100": f"fillrandom\nbatch {BATCH}"}


def workloads(doc):
    """The workloads a run measured, in table order."""
    names = doc["config"].get("workload_names")
    every = WORKLOADS + EXTRA_WORKLOADS
    return [w for w in every if names is None or w[0] in names]


def goals_of(doc):
    return VM_GOALS if doc["machine"].get("vm") else GOALS

REPORT_RE = re.compile(
    r"^(?P<name>\S+)\s*:\s*(?P<us>[\d.]+) micros/op (?P<ops_s>\d+) ops/sec\s+"
    r"(?P<secs>[\d.]+) seconds (?P<ops>\d+) operations;(?P<rest>.*)$")
PCT_RE = re.compile(r"^Percentiles: P50: (?P<p50>[\d.]+) P75: [\d.]+ "
                    r"P99: (?P<p99>[\d.]+) P99\.9: (?P<p999>[\d.]+)")
COUNT_RE = re.compile(r"^Count: (?P<count>\d+) ")
FOUND_RE = re.compile(r"\((?P<found>\d+) of (?P<of>\d+) found\)")
STAT_RE = re.compile(r"^(?P<key>(?:rocksdb|lsm)\.[\w.-]+): (?P<val>\d+)\s*$")


def die(msg):
    sys.exit(f"run.py: {msg}")


class CellFailed(Exception):
    """A driver failed, or printed what no correct run prints."""


def parse_report(text, benchmark):
    """The figures db_bench (or lsm_bench) printed for one benchmark."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = REPORT_RE.match(line.strip())
        if not m or m["name"] != benchmark:
            continue
        rec = {"ops_per_sec": float(m["ops_s"]),
               "micros_per_op": float(m["us"]), "seconds": float(m["secs"]),
               "operations": int(m["ops"])}
        f = FOUND_RE.search(m["rest"])
        if f:
            rec["found"], rec["reads"] = int(f["found"]), int(f["of"])
        for later in lines[i + 1:i + 8]:
            c = COUNT_RE.match(later)
            if c:
                rec["latency_samples"] = int(c["count"])
            p = PCT_RE.match(later)
            if p:
                rec.update(p50_us=float(p["p50"]), p99_us=float(p["p99"]),
                           p999_us=float(p["p999"]))
                break
        return rec
    return None


def disk_stat(dev):
    """Reads, writes and their KiB so far on /sys/block/DEV, or None."""
    try:
        f = [int(x) for x in open(f"/sys/block/{dev}/stat").read().split()]
    except (OSError, TypeError, ValueError):
        return None
    return {"reads": f[0], "read_kib": f[2] // 2, "writes": f[4],
            "write_kib": f[6] // 2, "flushes": f[15] if len(f) > 15 else 0}


def parse_stats(text):
    return {m["key"]: int(m["val"]) for m in
            (STAT_RE.match(line.strip()) for line in text.splitlines()) if m}


class Runner:
    def __init__(self, args):
        self.args = args
        self.raw = os.path.join(args.out, f"{args.name}-raw")
        os.makedirs(self.raw, exist_ok=True)
        self.dbdir = os.path.abspath(args.db_dir)
        os.makedirs(self.dbdir, exist_ok=True)
        self.log = []

    def common(self, threads, extra):
        a = self.args
        flags = {"num": a.num, "key_size": 8, "value_size": 100,
                 "threads": threads, "batch_size": 1,
                 "write_buffer_size": a.memtable_bytes,
                 "max_write_buffer_number": WRITE_BUFFERS,
                 "seed": a.seed, "histogram": 1, "sync": 0, "disable_wal": 0,
                 # The block cache: db_bench's flag, the store's too.
                 "cache_size": a.cache_bytes}
        flags.update(extra)
        return flags

    def peer_flags(self):
        """RocksDB's flags beyond the common ones: no compression (the
        store has none), Bloom filters of the store's size."""
        return {"compression_type": "none", "bloom_bits": BLOOM_BITS,
                "statistics": 0, "stats_per_interval": 0}

    def command(self, impl, benchmarks, flags):
        if impl == PEER:
            flags = dict(flags, **self.peer_flags())
            flags["db"] = os.path.join(self.dbdir, "rocksdb")
            exe = [self.args.db_bench]
        else:
            flags = dict(flags)
            flags["db"] = self.args.lsm_db or os.path.join(self.dbdir, "lsm.img")
            flags["backend"] = self.args.lsm_backend
            if self.args.lsm_backend == "dev":
                flags["device"] = self.args.device
            exe = [self.args.lsm_bench]
        flags["benchmarks"] = benchmarks
        return exe + [f"--{k}={v}" for k, v in flags.items()]

    def run(self, impl, benchmarks, flags, tag):
        cmd = self.command(impl, benchmarks, flags)
        res = subprocess.run(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        with open(os.path.join(self.raw, f"{tag}--{impl}.txt"), "w") as f:
            f.write("$ " + " ".join(cmd) + "\n" + res.stdout +
                    "\n--- stderr ---\n" + res.stderr[-4000:])
        if res.returncode:
            raise CellFailed(f"{' '.join(cmd)} exited {res.returncode}: "
                             f"{res.stderr.strip()[-500:]}")
        return res.stdout

    def cell(self, impl, wl, threads, rnd):
        name, bench, extra, prepared, _ = wl
        extra = dict(extra)
        if name == "fillsync":
            extra["writes"] = self.args.fillsync_writes
        if name == "readrandom" and self.args.reads:
            extra["reads"] = self.args.reads
        if name == "fillrandom-nowal-v0":
            extra["num"] = self.args.num // threads
            extra["write_buffer_size"] = max(
                MEMTABLE_BYTES, NOWAL_MEMTABLE_BYTES_PER_KEY * self.args.num)
        flags = self.common(threads, extra)
        benchmarks = bench
        if prepared:
            flags["use_existing_db"] = 1
        if name == "fillrandom-nowal-v0":
            benchmarks += ",memstats"
        if name == "fillsync" and impl == OURS:
            benchmarks += ",stats"    # writers per flush (group commit)
        if name in CACHE_WORKLOADS and impl == OURS:
            benchmarks += ",stats"    # the block cache's hits and misses
        disk = self.disk_of(impl)
        before = disk_stat(disk)
        out = self.run(impl, benchmarks, flags, f"r{rnd}-{name}-t{threads}")
        after = disk_stat(disk)
        rec = parse_report(out, bench)
        if rec is None:
            raise CellFailed(f"{impl}: no report line for {bench} "
                             f"(lsm-raw/r{rnd}-{name}-t{threads}--{impl}.txt)")
        if prepared and rec.get("found") is not None and \
                name == "readrandom" and rec["found"] != rec["reads"]:
            raise CellFailed(f"{impl}: readrandom found {rec['found']} of "
                             f"{rec['reads']} keys of a database filled with every key")
        rec["stats"] = parse_stats(out)
        if before and after:
            # Everything the cell's process did to its disk, from open
            # to close (the database's opening and its last writes too).
            rec["disk"] = {"device": disk, **{k: after[k] - before[k] for k in after}}
        return rec

    def disk_of(self, impl):
        """The block device under an implementation's database, if the
        run has one per implementation (--vm): its I/O is counted."""
        if not self.args.vm:
            return None
        if impl == OURS:
            return os.path.basename(os.path.realpath(self.args.lsm_db))
        src = subprocess.run(["findmnt", "-n", "-o", "SOURCE", "-T", self.dbdir],
                             stdout=subprocess.PIPE, text=True).stdout.strip()
        return os.path.basename(src) if src.startswith("/dev/") else None

    def prepare(self, impl, rnd):
        """A database with keys 0..num-1 written in order and flushed."""
        flags = self.common(1, {})
        self.run(impl, "fillseq,flush", flags, f"r{rnd}-prepare")


def machine(args):
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    fs = subprocess.run(["findmnt", "-n", "-o", "SOURCE,FSTYPE,OPTIONS", "-T",
                         args.db_dir], stdout=subprocess.PIPE, text=True).stdout.strip()
    ver = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "rocksdb-tools"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True).stdout.strip()
    return {"cpu": cpu, "nproc": os.cpu_count(), "kernel": platform.release(),
            "filesystem": fs, "db_dir": os.path.abspath(args.db_dir),
            "rocksdb_tools": ver or "unknown",
            "lsm_backend": args.lsm_backend,
            "lsm_db": args.lsm_db or os.path.join(os.path.abspath(args.db_dir), "lsm.img"),
            "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
            "rounds": args.rounds, "num": args.num,
            "fillsync_writes": args.fillsync_writes, "reads": args.reads,
            "vm": vm_machine(args, fs) if args.vm else None}


def vm_machine(args, fs):
    """What a VM run adds: how the guest runs and its two disks."""
    mem = 0
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal:"):
            mem = int(line.split()[1]) // 1024
    dev = os.path.basename(os.path.realpath(args.lsm_db))
    try:
        disk = int(open(f"/sys/block/{dev}/size").read()) * 512 >> 20
    except OSError:
        disk = None
    return {"accel": os.environ.get("SL_VM_ACCEL", "unknown"),
            "memory_mib": mem, "lsm_disk": args.lsm_db,
            "rocksdb_disk": fs.split()[0] if fs else "?", "disk_mib": disk}


def median_record(samples):
    """The round whose throughput is the median; all throughputs kept."""
    ordered = sorted(samples, key=lambda r: r["ops_per_sec"])
    mid = dict(ordered[(len(ordered) - 1) // 2])
    mid["ops_per_sec"] = statistics.median(r["ops_per_sec"] for r in samples)
    mid["samples"] = [r["ops_per_sec"] for r in samples]
    return mid


def memtable_rows(results, num):
    """Memtable bytes per record after seed 001's workload."""
    rows = []
    for r in results:
        if r["workload"] != "fillrandom-nowal-v0":
            continue
        s = r.get("stats", {})
        if r["impl"] == PEER:
            b = s.get("rocksdb.cur-size-active-mem-table")
            n = s.get("rocksdb.num-entries-active-mem-table")
            live = None
            if s.get("rocksdb.num-immutable-mem-table"):
                b = None  # some of it was flushed: not one memtable's worth
        else:
            b = s.get("lsm.memtable-bytes")
            n = s.get("lsm.memtable-puts")
            live = s.get("lsm.memtable-keys")
            if s.get("lsm.flushes") or s.get("lsm.immutables"):
                b = None  # not all of it in the active memtable
        rows.append({"impl": r["impl"], "threads": r["threads"],
                     "bytes": b, "records": n, "live_keys": live,
                     "bytes_per_record": b / n if b and n else None,
                     "bytes_per_live_key": b / live if b and live else None})
    return rows


def find(results, wl, impl, threads):
    for r in results:
        if (r["workload"], r["impl"], r["threads"]) == (wl, impl, threads):
            return r
    return None


def per_round(a, b):
    """a's throughput over b's in each round both completed."""
    ra, rb = a.get("rounds"), b.get("rounds")
    if ra is None or rb is None:  # lsm.json of an older run.py
        ra, rb = a.get("samples", []), b.get("samples", [])
        if len(ra) != len(rb):
            return []
    return [x / y for x, y in zip(ra, rb) if x is not None and y]


def evaluate(results, threads, vm=False):
    ratios, goals = [], []
    for name, *_ in WORKLOADS + EXTRA_WORKLOADS:
        for t in threads:
            ours, theirs = find(results, name, OURS, t), find(results, name, PEER, t)
            if not (ours and theirs):
                continue
            # The ratio within each round (both ran back to back there),
            # then the median of those: the load of the machine changes
            # between rounds more than within one.
            pairs = per_round(ours, theirs)
            ratios.append({"workload": name, "threads": t,
                           "ratio": statistics.median(pairs) if pairs else
                           ours["ops_per_sec"] / theirs["ops_per_sec"],
                           "per_round": pairs})
            ours["ratio"] = ratios[-1]["ratio"]
    for name, target in VM_GOALS if vm else GOALS:
        for t in threads:
            r = next((x["ratio"] for x in ratios
                      if (x["workload"], x["threads"]) == (name, t)), None)
            goals.append({"goal": f"{name}, {t} thread{'s' if t > 1 else ''}, "
                          "vs RocksDB", "target": target, "measured": r,
                          "met": None if r is None else r >= target})
    if vm:
        return ratios, goals
    one, two = find(results, "fillsync", OURS, 1), find(results, "fillsync", OURS, 2)
    pairs = per_round(two, one) if one and two else []
    r = statistics.median(pairs) if pairs else None
    goals.append({"goal": "fillsync, 2 threads against 1 (group commit)",
                  "target": GROUP_COMMIT_GOAL, "measured": r,
                  "met": None if r is None else r >= GROUP_COMMIT_GOAL})
    return ratios, goals


def fmt_rate(v):
    return "n/a" if v is None else f"{v / 1e3:,.0f}K" if v >= 1e4 else f"{v:,.0f}"


def fmt_us(v):
    return "n/a" if v is None else f"{v:.2f}" if v < 100 else f"{v:.0f}"


def tables(doc):
    """Throughput and latency, goals, memtable: rows for rst and md."""
    res, threads = doc["results"], doc["config"]["threads"]
    impls = [i for i in (OURS, PEER) if any(r["impl"] == i for r in res)]
    head = ["workload", "threads"]
    for i in impls:
        head += [f"{i} ops/s", f"{i} p50/p99/p99.9 us"]
    if len(impls) == 2:
        head.append("ratio")
    rows = []
    for name, *_ in workloads(doc):
        for t in threads:
            row = [name, str(t)]
            cells = [find(res, name, i, t) for i in impls]
            if not any(cells):
                continue
            for c in cells:
                row += [fmt_rate(c["ops_per_sec"]) if c else "n/a",
                        "/".join(fmt_us(c.get(k)) for k in
                                 ("p50_us", "p99_us", "p999_us")) if c else "n/a"]
            if len(impls) == 2:
                r = next((x["ratio"] for x in doc["ratios"]
                          if (x["workload"], x["threads"]) == (name, t)), None)
                row.append(f"{r:.2f}x" if r else "n/a")
            rows.append(row)
    goal_rows = [[g["goal"], f">= {g['target']:g}x",
                  f"{g['measured']:.2f}x" if g["measured"] else "not measured",
                  "n/a" if g["met"] is None else "met" if g["met"] else "**not met**"]
                 for g in doc["goals"]]
    mem_rows = [[m["impl"], str(m["threads"]),
                 str(m["bytes"]) if m["bytes"] else "n/a",
                 str(m["records"]) if m["records"] else "n/a",
                 f"{m['bytes_per_record']:.1f}" if m["bytes_per_record"] else "n/a",
                 f"{m['bytes_per_live_key']:.1f}" if m["bytes_per_live_key"] else "n/a"]
                for m in doc["memtable"]]
    return (head, rows), (["goal", "target", "measured", "met"], goal_rows), \
        (["impl", "threads", "memtable bytes", "puts", "bytes per put",
          "bytes per live key"], mem_rows)


def disk_rows(doc):
    """Disk requests per operation in the VM, from each cell's median
    round: where a read goes to the disk rather than a cache."""
    res, threads = doc["results"], doc["config"]["threads"]
    rows = []
    for name, *_ in workloads(doc):
        for t in threads:
            row = [name, str(t)]
            for impl in (OURS, PEER):
                c = find(res, name, impl, t)
                d = (c or {}).get("disk")
                ops = (c or {}).get("operations")
                row += [f"{d['reads'] / ops:.2f}" if d and ops else "n/a",
                        f"{d['writes'] / ops:.3f}" if d and ops else "n/a",
                        f"{d['write_kib'] * 1024 / ops:.0f}" if d and ops else "n/a"]
            rows.append(row)
    head = ["workload", "threads", "lsm reads/op", "lsm writes/op",
            "lsm bytes/op", "rocksdb reads/op", "rocksdb writes/op",
            "rocksdb bytes/op"]
    return head, rows if any(r[2] != "n/a" for r in rows) else []


def cache_rows(doc):
    """The store's block cache in each read cell's median round: blocks
    found there and blocks read from the device, per operation."""
    res, threads = doc["results"], doc["config"]["threads"]
    rows = []
    for name in CACHE_WORKLOADS:
        for t in threads:
            c = find(res, name, OURS, t)
            s = (c or {}).get("stats", {})
            ops = (c or {}).get("operations")
            if "lsm.cache-hits" not in s or not ops:
                continue
            hits, misses = s["lsm.cache-hits"], s["lsm.cache-misses"]
            rows.append([name, str(t), f"{hits / ops:.3f}",
                         f"{misses / ops:.3f}",
                         f"{100 * hits / (hits + misses):.1f}%"
                         if hits + misses else "n/a",
                         f"{s['lsm.cache-bytes'] / 2**20:.1f}"])
    head = ["workload", "threads", "cache hits/op", "device block reads/op",
            "hit rate", "cache MiB at the end"]
    return head, rows


def md_table(head, rows):
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + \
        ["| " + " | ".join(r) + " |" for r in rows]


def describe(doc):
    m, c = doc["machine"], doc["config"]
    alone = c.get("rocksdb_only", False)
    vm = m.get("vm")
    if vm:
        return (f"Measured by ``make bench-lsm-vm`` in a QEMU VM ({vm['accel']}), "
                f"{m['nproc']} vCPUs ({m['cpu']}), {vm['memory_mib']} MiB, kernel "
                f"{m['kernel']} ({m['date']}): the store is sl_lsm.ko "
                f"through /dev/sl_lsm on {vm['lsm_disk']}, RocksDB "
                f"{m['rocksdb_tools']} (Debian's db_bench) on ext4 on "
                f"{vm['rocksdb_disk']}, two raw images of {vm['disk_mib']} MiB "
                f"as virtio-blk disks; {c['num']} keys of 8 bytes per thread"
                f"{', readrandom %d reads per thread' % c['reads'] if c.get('reads') else ''}, "
                f"100-byte values, memtables of {c['memtable_bytes'] >> 20} MiB; "
                f"ops/s are the median of {m['rounds']} interleaved rounds, a "
                "ratio the median of its rounds' ratios.")
    return (("RocksDB alone (``run.py --rocksdb-only``: the store's library "
             "was not built yet), measured" if alone else
             "Measured by ``make bench-lsm``") +
            f" on {m['cpu']}, {m['nproc']} CPUs, "
            f"kernel {m['kernel']}, on {m['filesystem'].split()[1] if m['filesystem'] else '?'} "
            f"({m['date']}); RocksDB {m['rocksdb_tools']} (Debian's db_bench); "
            f"{c['num']} keys of 8 bytes, 100-byte values, "
            f"fillsync {c['fillsync_writes']} writes per thread; ops/s are the "
            f"median of {m['rounds']} interleaved rounds, a ratio the median of "
            "its rounds' ratios.")


def write_reports(doc, out, rst_doc, name="lsm"):
    """NAME.md and NAME.rst into OUT, and the NAME section of RST_DOC
    (between the markers BENCH-NAME:BEGIN and BENCH-NAME:END)."""
    (h, rows), (gh, grows), (mh, mrows) = tables(doc)
    marker = "BENCH-" + name.upper()
    failed = [f"- round {f['round']}, {f['cell']}: {f['error']}"
              for f in doc.get("failures", [])]
    dh, drows = disk_rows(doc)
    ch, crows = cache_rows(doc)
    cache_text = ("The store's block cache (its counters after each read "
                  "cell's median round, from the store's opening on; "
                  f"{doc['config'].get('cache_bytes', 8 << 20) >> 20} MiB, as "
                  "RocksDB's --cache_size): blocks found in it and blocks "
                  "read from the device (each checked) per operation:")
    disk_text = ("Disk requests per operation (each cell's median round, "
                 "from /sys/block/DEV/stat around the driver's process, its "
                 "opening of the database included; bytes/op are bytes "
                 "written; what ext4 holds in the page cache when the "
                 "process ends is written later and not counted):")
    md = ["# lsm_bench against RocksDB's db_bench" +
          (" in a VM" if doc["machine"].get("vm") else ""), "",
          describe(doc).replace("``", "`"), ""] + \
        (["**Failed cells** (not in the figures):", ""] + failed + [""] if failed else []) + \
        md_table(h, rows) + \
        ["", "## Goals (issue 19)", ""] + md_table(gh, grows) + \
        (["", "## Memtable bytes per record (seed 001's workload)", ""] +
         md_table(mh, mrows) if mrows else []) + \
        (["", "## Block cache", "", cache_text, ""] + md_table(ch, crows)
         if crows else []) + \
        (["", "## Disk I/O", "", disk_text, ""] + md_table(dh, drows)
         if drows else []) + \
        ["", "## RocksDB's configuration", "", "db_bench flags:", "", "```",
         " ".join(doc["config"]["rocksdb_command"]), "```", "",
         "lsm_bench flags:", "", "```", " ".join(doc["config"]["lsm_command"]),
         "```", "", "RocksDB's OPTIONS file (from its database directory):", "",
         "```ini", doc["config"].get("rocksdb_options_file", "(none)").rstrip(),
         "```", ""]
    open(os.path.join(out, f"{name}.md"), "w").write("\n".join(md))
    rst = [f".. {marker}:BEGIN (generated by tools/bench/lsm/run.py; do not edit)", ""]
    rst += textwrap.wrap(describe(doc), 75) + [""]
    rst += rst_table(h, rows) + ["", "Goals of issue 19:", ""]
    rst += rst_table(gh, [[x.replace("**", "") if x == "**not met**" else x
                           for x in r] for r in grows])
    if not doc["machine"].get("vm"):
        rst += [""] + textwrap.wrap(
            "Memtable bytes per record after seed 001's workload (RocksDB keeps "
            "every put; the store keeps one record per key):", 75) + [""]
        rst += rst_table(mh, mrows) if mrows else ["(not measured)"]
    if crows:
        rst += [""] + textwrap.wrap(cache_text.replace("--cache_size",
                                                       "``--cache_size``"), 75) + [""]
        rst += rst_table(ch, crows)
    if drows:
        rst += [""] + textwrap.wrap(disk_text.replace("/sys", "``/sys")
                                    .replace("stat ", "stat`` "), 75) + [""]
        rst += rst_table(dh, drows)
    cmd = [a.replace(TOP + "/", "") for a in doc["config"]["rocksdb_command"]]
    rst += ["", "db_bench's flags::", "",
            "   " + " \\\n     ".join(cmd), "",
            f".. {marker}:END"]
    open(os.path.join(out, f"{name}.rst"), "w").write("\n".join(rst) + "\n")
    if rst_doc:
        text = open(rst_doc).read()
        pat = re.compile(r"\.\. " + re.escape(marker) + r":BEGIN.*?\.\. " +
                         re.escape(marker) + r":END", re.S)
        if not pat.search(text):
            die(f"{rst_doc} has no {marker} markers")
        open(rst_doc, "w").write(pat.sub(lambda _: "\n".join(rst), text))
    return "\n".join(md_table(h, rows) + [""] + md_table(gh, grows))


def plot(doc, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("run.py: python3-matplotlib missing, no lsm.png ('make setup')",
              file=sys.stderr)
        return False
    res, threads = doc["results"], doc["config"]["threads"]
    cells = [(name, t) for name, *_ in workloads(doc) for t in threads
             if find(res, name, PEER, t) or find(res, name, OURS, t)]
    impls = [i for i in (OURS, PEER) if any(r["impl"] == i for r in res)]
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(11, 7.5),
                                  gridspec_kw={"height_ratios": [3, 2]})
    width = 0.8 / len(impls)
    for k, impl in enumerate(impls):
        ys = [(find(res, n, impl, t) or {}).get("ops_per_sec", 0) for n, t in cells]
        ax.bar([x + k * width for x in range(len(cells))], ys, width, label=impl)
    ax.set_yscale("log")
    ax.set_ylabel("ops/s (log)")
    ax.set_xticks([x + width * (len(impls) - 1) / 2 for x in range(len(cells))])
    labels = [f"{SHORT.get(n, n)}\n{t}t" for n, t in cells]
    ax.set_xticklabels(labels, fontsize=8)
    ax.legend()
    ax.set_title(f"lsm_bench vs RocksDB db_bench"
                 f"{' in a VM (sl_lsm.ko, ext4)' if doc['machine'].get('vm') else ''}, "
                 f"{doc['config']['num']} keys, "
                 f"median of {doc['machine']['rounds']} rounds")
    ratio = {(x["workload"], x["threads"]): x["ratio"] for x in doc["ratios"]}
    target = dict(goals_of(doc))
    xs = range(len(cells))
    ax2.bar(xs, [ratio.get(c, 0) for c in cells], 0.6, color="tab:green")
    goal_x = [x for x, (n, _) in zip(xs, cells) if n in target]
    ax2.scatter(goal_x, [target[cells[x][0]] for x in goal_x], marker="_",
                s=400, color="red", label="goal", zorder=3)
    ax2.axhline(1.0, color="grey", lw=0.8)
    ax2.set_ylabel("lsm / RocksDB")
    ax2.set_xticks(list(xs))
    ax2.set_xticklabels(labels, fontsize=8)
    ax2.legend()
    if not ratio:
        ax2.text(0.5, 0.5, "lsm not measured: no ratios", ha="center",
                 transform=ax2.transAxes)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="100K keys, one round, 200 synchronous writes: a smoke run")
    ap.add_argument("--big", action="store_true", help="10M keys")
    ap.add_argument("--num", type=int, help="keys (default 1M)")
    ap.add_argument("--rounds", type=int, help="rounds (default 3)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--fillsync-writes", type=int,
                    help="synchronous writes per thread (default 10000)")
    ap.add_argument("--reads", type=int,
                    help="readrandom's reads per thread (default --num)")
    ap.add_argument("--seed", type=int, default=301)
    ap.add_argument("--cache-bytes", type=int, default=8 << 20,
                    help="the block cache of both, RocksDB's and the store's (default %(default)s)")
    ap.add_argument("--out", default=os.path.join(TOP, "build", "bench"))
    ap.add_argument("--db-dir", help="where both databases go "
                    "(default OUT/lsm-db: the same file system for both)")
    ap.add_argument("--lsm-bench", default=os.path.join(
        TOP, "build", "bench-obj", "lsm", "lsm_bench"))
    ap.add_argument("--db-bench", default=shutil.which("db_bench") or "/usr/bin/db_bench")
    ap.add_argument("--lsm-backend", choices=["lib", "dev"], default="lib",
                    help="lib: the store's library on a file (default); dev: "
                    "sl_lsm.ko through --device, on the block device --lsm-db")
    ap.add_argument("--lsm-db", help="the store's file or block device "
                    "(default DB_DIR/lsm.img; a block device for dev)")
    ap.add_argument("--device", default="/dev/sl_lsm")
    ap.add_argument("--rocksdb-only", action="store_true",
                    help="measure RocksDB alone (while the store is not built)")
    ap.add_argument("--doc", help="rewrite the BENCH-LSM section of this page "
                    "(full runs only)")
    ap.add_argument("--workloads", help="comma list of workloads to run "
                    "(default: every one but the batched ones; with --vm "
                    f"{VM_WORKLOADS}); a partial run leaves --doc alone")
    ap.add_argument("--memtable-bytes", type=int, default=MEMTABLE_BYTES,
                    help="--write_buffer_size of both (default %(default)s)")
    ap.add_argument("--name", default="lsm",
                    help="reports NAME.json, .md, .rst, .png, raw output "
                    "under NAME-raw/, and the BENCH-NAME section of --doc "
                    "(default %(default)s)")
    ap.add_argument("--vm", action="store_true",
                    help="in a VM: record the guest and its disks, and "
                    "judge by issue 19's VM goal (fillrandom >= 1.0x)")
    ap.add_argument("--from-json", metavar="LSM_JSON",
                    help="measure nothing: write the reports (and --doc) from "
                    "an earlier run's lsm.json")
    args = ap.parse_args()
    name = args.name
    if args.from_json:
        doc = json.load(open(args.from_json))
        doc["ratios"], doc["goals"] = evaluate(
            doc["results"], doc["config"]["threads"],
            vm=bool(doc["machine"].get("vm")))
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, f"{name}.json"), "w") as f:
            json.dump(doc, f, indent=1)
        print(write_reports(doc, args.out, args.doc, name))
        plot(doc, os.path.join(args.out, f"{name}.png"))
        return
    args.num = args.num or (100000 if args.quick else 10000000 if args.big else 1000000)
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.fillsync_writes = args.fillsync_writes or (200 if args.quick else 10000)
    args.db_dir = args.db_dir or os.path.join(args.out, "lsm-db")
    threads = [int(t) for t in args.threads.split(",")]
    every = WORKLOADS + EXTRA_WORKLOADS
    names = (args.workloads or (VM_WORKLOADS if args.vm else
                                ",".join(w[0] for w in WORKLOADS))).split(",")
    unknown = [n for n in names if n not in [w[0] for w in every]]
    if unknown:
        die(f"unknown workloads {', '.join(unknown)}: "
            f"{', '.join(w[0] for w in every)}")
    chosen = [w for w in every if w[0] in names]
    if args.lsm_backend == "dev" and not args.lsm_db:
        die("--lsm-backend dev needs --lsm-db, the block device to attach")
    if not os.access(args.db_bench, os.X_OK):
        die(f"{args.db_bench}: RocksDB's db_bench is missing; install Debian's "
            "rocksdb-tools ('make setup' does)")
    impls = [PEER] if args.rocksdb_only else [PEER, OURS]
    if OURS in impls and not os.access(args.lsm_bench, os.X_OK):
        die(f"{args.lsm_bench} is missing: build it with 'make -C tools/bench/lsm'")
    os.makedirs(args.out, exist_ok=True)
    runner = Runner(args)
    samples, failures = {}, []

    def attempt(what, fn, *a):
        try:
            return fn(*a)
        except CellFailed as e:
            failures.append({"round": rnd, "cell": what, "error": str(e)})
            print(f"round {rnd}: {what}: FAILED: {e}", file=sys.stderr)
            return None

    for rnd in range(1, args.rounds + 1):
        order = impls if rnd % 2 else impls[::-1]
        for wl in chosen:
            if wl[3]:
                if not any(w[3] for w in chosen[:chosen.index(wl)]):
                    for impl in order:
                        attempt(f"prepare {impl}", runner.prepare, impl, rnd)
            for t in threads:
                for impl in order:
                    rec = attempt(f"{wl[0]} {t}t {impl}", runner.cell, impl, wl, t, rnd)
                    if rec is None:
                        continue
                    rec["round"] = rnd
                    samples.setdefault((wl[0], impl, t), []).append(rec)
                    st = rec["stats"]
                    per_flush = (f"  {st['lsm.group-writers'] / st['lsm.group-commits']:.2f} "
                                 "writers per flush"
                                 if st.get("lsm.group-commits") else "")
                    print(f"round {rnd}: {wl[0]:20} {t}t {impl:8} "
                          f"{rec['ops_per_sec']:12,.0f} ops/s{per_flush}", file=sys.stderr)
    results = []
    for (wname, impl, t), recs in samples.items():
        by_round = {x["round"]: x["ops_per_sec"] for x in recs}
        r = median_record(recs)
        r["rounds"] = [by_round.get(n) for n in range(1, args.rounds + 1)]
        r.update(workload=wname, impl=impl, threads=t,
                 num=args.num // t if wname == "fillrandom-nowal-v0" else args.num,
                 kernel=platform.release())
        results.append(r)
    opts = sorted((f for f in os.listdir(os.path.join(runner.dbdir, PEER))
                   if f.startswith("OPTIONS-")),
                  key=lambda f: int(f.split("-")[1]))
    options_text = open(os.path.join(runner.dbdir, PEER, opts[-1])).read() if opts else ""
    ratios, goals = evaluate(results, threads, vm=args.vm)
    sample_flags = runner.common(1, {})
    doc = {"machine": machine(args),
           "config": {"num": args.num, "threads": threads, "seed": args.seed,
                      "fillsync_writes": args.fillsync_writes,
                      "reads": args.reads,
                      "memtable_bytes": args.memtable_bytes,
                      "cache_bytes": args.cache_bytes,
                      "write_buffers": WRITE_BUFFERS,
                      "workload_names": [w[0] for w in chosen],
                      "workloads": [{"name": w[0], "benchmark": w[1], "flags": w[2],
                                     "prepared": w[3], "about": w[4]} for w in chosen],
                      "rocksdb_command": runner.command(PEER, "fillrandom", sample_flags),
                      "lsm_command": runner.command(OURS, "fillrandom", sample_flags),
                      "rocksdb_options_file": options_text},
           "results": results, "ratios": ratios, "goals": goals,
           "failures": failures,
           "memtable": memtable_rows(results, args.num)}
    doc["config"]["rocksdb_only"] = args.rocksdb_only
    if args.rocksdb_only:
        doc["config"]["lsm_command"] = ["(not run: --rocksdb-only)"]
    with open(os.path.join(args.out, f"{name}.json"), "w") as f:
        json.dump(doc, f, indent=1)
    if options_text:
        open(os.path.join(args.out, f"{name}-rocksdb-OPTIONS.ini"), "w").write(options_text)
    doc_path = args.doc if args.doc and not args.quick and \
        not args.workloads else None
    print(write_reports(doc, args.out, doc_path, name))
    png = plot(doc, os.path.join(args.out, f"{name}.png"))
    print(f"wrote {args.out}/{name}.json, {name}.md, {name}.rst"
          f"{f', {name}.png' if png else ''}", file=sys.stderr)
    if failures:
        die(f"{len(failures)} cells failed ({name}.json's \"failures\"; {name}-raw/)")


if __name__ == "__main__":
    main()
