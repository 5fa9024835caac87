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

Workloads (db_bench's names where they exist; Documentation/lsm-bench.rst
has the table):
  fillseq, fillrandom  WAL on, sync off, a fresh database each;
  fillrandom-nowal-v0  seed 001's workload: fillrandom with empty values
                       and no WAL, every key staying in the memtable;
                       "memstats" afterwards gives memtable bytes per
                       record (each thread writes num / threads keys, so
                       that both thread counts fit the memtable);
  readrandom, readseq, seekrandom
                       on a database made by fillseq and flush on one
                       thread (so the data is in runs / SST files), opened
                       again for each cell;
  readwhilewriting     readers on such a database (a copy per cell) and
                       one more thread writing random keys; the readers'
                       rate is reported;
  overwrite            random keys over such a database (a copy per
                       cell), at least OVERWRITE_MEMTABLES memtables of
                       data, so that compaction runs; then until both
                       stores are idle (waitforcompaction), for write and
                       space amplification;
  fillsync             every write synchronous (db_bench's fillsync: its
                       keys come from num / 1000, --writes of them);
  rangeoverwrite       random ranges of 1 to 256 units over num units:
                       one extent per put for the store; DeleteRange + Put
                       in one WriteBatch for RocksDB (rocksdb_extent_bench)
  rangelookup          the extent covering a random unit, after
                       rangeoverwrite on one thread and a flush; the found
                       counts are checked against the ranges written
  attach-clean, attach-crash
                       the time to open a store whose log holds two
                       memtables of writes, after a clean close and after
                       a kill -9 (one thread).

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

Usage: run.py [--quick | --big] [--num N] [--rounds R] [--threads 1,2]
              [--out DIR] [--workloads LIST] [--memtable-bytes B]
              [--name NAME] [--vm] [--lsm-bench PATH | --rocksdb-only]
              [--doc FILE]
"""

import argparse
import datetime
import glob
import json
import math
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
KEY_BYTES, VALUE_BYTES = 8, 100
# overwrite writes at least this many memtables of user data (keys and
# values), so that memtables are written out and merged while it runs.
OVERWRITE_MEMTABLES = 5
# fillsync puts the store (library backend) on a file written through
# once per run, formatted in place each cell as a block device is: a sync
# write to a fresh sparse file allocates its block, and ext4 commits its
# journal for that in the fdatasync, a cost a block device never has
# (RocksDB's log is a file on the same file system, as it always is).
# Each synchronous write takes a log block of its own, so the file holds
# SYNC_IMAGE_BASE plus a few blocks per write.
SYNC_IMAGE_BASE = 256 << 20
SYNC_IMAGE_BLOCKS_PER_WRITE = 3
# seekrandom reads this many keys after each seek (RocksDB's
# benchmark.sh uses 10).
SEEK_NEXTS = 10
# Range overwrites: lengths 1..MAX_RANGE units (issue: 1 to 256).
MAX_RANGE = 256
# attach-*: the log holds this many memtables of user data; the fill
# runs with memtables ATTACH_FILL_MEMTABLES times the size, so that
# neither store writes any of it out before the close or the crash.
ATTACH_MEMTABLES = 2
ATTACH_FILL_MEMTABLES = 4


class Workload:
    """A row of the tables: what both drivers run, and on what.

    bench: the benchmark name both drivers take; extra: flags of both;
    prepared: None (a fresh database), "seq" (fillseq and flush on one
    thread) or "ranges" (rangeoverwrite and flush on one thread);
    private: the cell changes its database, so it gets its own copy of
    the prepared one; peer: RocksDB's driver, "db_bench" or "extent"
    (rocksdb_extent_bench: the extent workloads, the attach fills);
    writes: report write amplification and stalls (RocksDB's statistics
    on: the other cells run with db_bench's default, off, as issue 19's
    did); settle: wait for
    both to be idle (waitforcompaction) before the counters are read;
    attach: "clean" or "crash" (one thread only)."""

    def __init__(self, name, bench, about, extra=None, prepared=None,
                 private=False, peer="db_bench", writes=False, settle=False,
                 attach=None):
        self.name, self.bench, self.about = name, bench, about
        self.extra = extra or {}
        self.prepared, self.private, self.peer = prepared, private, peer
        self.writes, self.settle, self.attach = writes, settle, attach


WORKLOADS = [
    Workload("fillseq", "fillseq", "sequential keys, WAL on, sync off"),
    Workload("fillrandom", "fillrandom",
             "uniform random keys, WAL on, sync off"),
    Workload("fillrandom-nowal-v0", "fillrandom",
             "seed 001's workload: random keys, empty values, no WAL, all "
             "in the memtable", extra={"value_size": 0, "disable_wal": 1}),
    Workload("readrandom", "readrandom",
             "random point reads of a flushed database (every key present)",
             prepared="seq"),
    Workload("readseq", "readseq",
             "a full scan of a flushed database per thread", prepared="seq"),
    Workload("seekrandom", "seekrandom",
             f"a seek to a random key of a flushed database, then "
             f"{SEEK_NEXTS} more keys", extra={"seek_nexts": SEEK_NEXTS},
             prepared="seq"),
    Workload("readwhilewriting", "readwhilewriting",
             "random point reads of a flushed database while one more "
             "thread writes random keys; the readers' rate", prepared="seq",
             private=True),
    Workload("overwrite", "overwrite",
             f"random keys over a flushed database, {OVERWRITE_MEMTABLES} "
             "memtables of data; counters read once both are idle",
             prepared="seq", private=True, writes=True, settle=True),
    Workload("fillsync", "fillsync",
             "random keys, every write synchronous (durable on return)"),
    Workload("rangeoverwrite", "rangeoverwrite",
             f"random ranges of 1..{MAX_RANGE} units over num units: one "
             "put (RocksDB: DeleteRange + Put)", peer="extent", writes=True,
             settle=True),
    Workload("rangelookup", "rangelookup",
             "the extent covering a random unit, after rangeoverwrite "
             "(RocksDB: SeekForPrev)", prepared="ranges", peer="extent"),
    Workload("attach-clean", "attach",
             f"open after a clean close, the log holding {ATTACH_MEMTABLES} "
             "memtables of writes", peer="extent", attach="clean"),
    Workload("attach-crash", "attach",
             f"open after a kill -9, the log holding {ATTACH_MEMTABLES} "
             "memtables of writes", peer="extent", attach="crash"),
]

# Run only when --workloads names them: db_bench's default is one put
# per write, and so is the table of the native run.
BATCH = 100
EXTRA_WORKLOADS = [
    Workload("fillseq-batch100", "fillseq", f"fillseq, {BATCH} puts per "
             "write call", extra={"batch_size": BATCH}),
    Workload("fillrandom-batch100", "fillrandom", f"fillrandom, {BATCH} puts "
             "per write call", extra={"batch_size": BATCH}),
]
EVERY = WORKLOADS + EXTRA_WORKLOADS
BY_NAME = {w.name: w for w in EVERY}
# What the VM run measures: issue 19's fillrandom with fillseq,
# readrandom and readseq beside it, and the standard set of the next
# issue.  No attach-crash: killing lsm_bench_dev does not crash the
# kernel's store (the device detaches it cleanly); a crash of the kernel
# is a reboot.
VM_WORKLOADS = "fillseq,fillrandom,fillseq-batch100,fillrandom-batch100," \
    "readrandom,readseq,seekrandom,readwhilewriting,overwrite," \
    "rangeoverwrite,rangelookup,attach-clean"

# The reads whose block cache counters the report shows.
CACHE_WORKLOADS = ("readrandom", "readseq")

# (workload, target ratio to RocksDB's ops/s) at each thread count.
# Issue 19's goals (part 1), then part 2's.
GOALS = [
    ("fillseq", 1.5), ("fillrandom", 1.5), ("fillrandom-nowal-v0", 3.0),
    ("readrandom", 1.0), ("readseq", 1.0), ("fillsync", 1.0),
]
GROUP_COMMIT_GOAL = 1.6
GOALS_2 = [
    ("overwrite", 1.2), ("readwhilewriting", 1.0), ("seekrandom", 1.0),
    ("rangeoverwrite", 3.0), ("rangelookup", 2.0),
]
# Under overwrite: the store's p99.9 put latency at most this many times
# its p50; attach after a crash within this many seconds.
TAIL_GOAL = 10.0
ATTACH_GOAL_S = 5.0
# In the VM through ioctls: fillrandom at least RocksDB's in the same VM.
VM_GOALS = [("fillrandom", 1.0)]
# Chart labels short enough to sit side by side.
SHORT = {"fillrandom-nowal-v0": "seed 001\n(v0, no WAL)",
         "fillseq-batch100": f"fillseq\nbatch {BATCH}",
         "fillrandom-batch100": f"fillrandom\nbatch {BATCH}",
         "readwhilewriting": "readwhile\nwriting",
         "rangeoverwrite": "range\noverwrite", "rangelookup": "range\nlookup"}


def workloads(doc):
    """The workloads a run measured, in table order."""
    names = doc["config"].get("workload_names")
    return [w for w in EVERY if names is None or w.name in names]


def ratio_goals(doc):
    if doc["machine"].get("vm"):
        return VM_GOALS
    return GOALS + GOALS_2


REPORT_RE = re.compile(
    r"^(?P<name>\S+)\s*:\s*(?P<us>[\d.]+) micros/op (?P<ops_s>\d+) ops/sec\s+"
    r"(?P<secs>[\d.]+) seconds (?P<ops>\d+) operations;(?P<rest>.*)$")
PCT_RE = re.compile(r"^Percentiles: P50: (?P<p50>[\d.]+) P75: [\d.]+ "
                    r"P99: (?P<p99>[\d.]+) P99\.9: (?P<p999>[\d.]+)")
COUNT_RE = re.compile(r"^Count: (?P<count>\d+) ")
FOUND_RE = re.compile(r"\((?P<found>\d+) of (?P<of>\d+) found\)")
STAT_RE = re.compile(r"^(?P<key>(?:rocksdb|lsm)\.[\w.-]+): (?P<val>\d+)\s*$")
# RocksDB's statistics, as db_bench --statistics and rocksdb_extent_bench
# print them: "rocksdb.wal.bytes COUNT : 53940420".
TICKER_RE = re.compile(r"^(?P<key>rocksdb\.[\w.-]+) COUNT : (?P<val>\d+)\s*$")


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
    """lsm_bench's "lsm.NAME: N", db_bench's "rocksdb.NAME: N" and
    RocksDB's statistics ("rocksdb.NAME COUNT : N")."""
    out = {}
    for line in text.splitlines():
        m = STAT_RE.match(line.strip()) or TICKER_RE.match(line.strip())
        if m:
            out[m["key"]] = int(m["val"])
    return out


def allocated_bytes(path, skip=()):
    """The bytes the file system has allocated to PATH (a file, or every
    file of a directory whose name does not start with one of SKIP)."""
    if os.path.isfile(path):
        return os.stat(path).st_blocks * 512
    total = 0
    for name in os.listdir(path):
        p = os.path.join(path, name)
        if os.path.isfile(p) and not name.startswith(tuple(skip)):
            total += os.stat(p).st_blocks * 512
    return total


def fsync_tree(path):
    """Everything under PATH on the disk, so that a copy's write-back
    does not run into the measured cell."""
    if not os.path.isfile(path) and not os.path.isdir(path):
        return      # a block device: the kernel's store has flushed it
    files = [path] if os.path.isfile(path) else \
        [os.path.join(path, n) for n in os.listdir(path)]
    for p in files + ([path] if os.path.isdir(path) else []):
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def splitmix_stream(state, n):
    """keys.h's next_rand() from STATE, N times: (new state, values).
    splitmix64's state only counts, so the values come at once with
    numpy; a plain loop without it."""
    golden, mask = 0x9e3779b97f4a7c15, (1 << 64) - 1
    try:
        import numpy as np
    except ImportError:
        out = []
        for i in range(1, n + 1):
            z = (state + golden * i) & mask
            z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & mask
            z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & mask
            out.append(z ^ (z >> 31))
        return (state + golden * n) & mask, out
    with np.errstate(over="ignore"):
        z = np.uint64(state) + np.uint64(golden) * np.arange(1, n + 1, dtype=np.uint64)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xbf58476d1ce4e5b9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94d049bb133111eb)
        z = z ^ (z >> np.uint64(31))
    return (state + golden * n) & mask, z


def expected_found(seed, space, writes, max_range, reads, threads, started=0):
    """How many of rangelookup's units a correct store finds after
    rangeoverwrite on one thread, the first of its process (keys.h's
    generators, drawn as both drivers draw them): the units any range
    covered.  STARTED: the threads the lookups' process started before
    them."""
    _, r = splitmix_stream(seed + 1, 3 * writes)
    covered = bytearray(space + 1)
    try:
        import numpy as np
        r = np.asarray(r, dtype=np.uint64)
        keys = (r[0::3] % np.uint64(space)).astype(np.int64)
        lens = (np.uint64(1) + r[1::3] % np.uint64(max_range)).astype(np.int64)
        ends = np.minimum(keys + lens, space)
        diff = np.zeros(space + 1, dtype=np.int64)
        np.add.at(diff, keys, 1)
        np.add.at(diff, ends, -1)
        cov = np.cumsum(diff)[:space] > 0
        found = 0
        for tid in range(threads):
            _, u = splitmix_stream(seed + started + tid + 1, reads)
            found += int(cov[(np.asarray(u, dtype=np.uint64) %
                              np.uint64(space)).astype(np.int64)].sum())
        return found
    except ImportError:
        pass
    for i in range(writes):
        k = r[3 * i] % space
        n = min(1 + r[3 * i + 1] % max_range, space - k)
        covered[k:k + n] = b"\x01" * n
    found = 0
    for tid in range(threads):
        _, u = splitmix_stream(seed + started + tid + 1, reads)
        found += sum(covered[x % space] for x in u)
    return found


class Runner:
    def __init__(self, args):
        self.args = args
        self.raw = os.path.join(args.out, f"{args.name}-raw")
        os.makedirs(self.raw, exist_ok=True)
        self.dbdir = os.path.abspath(args.db_dir)
        os.makedirs(self.dbdir, exist_ok=True)
        self.options_file = None
        # What each implementation's working database holds now, and the
        # prepared databases of this round, kept to be copied.
        self.content = {OURS: None, PEER: None}
        self.masters = {}
        self.expected = {}
        self.sync_image_bytes = None

    def db_path(self, impl):
        if impl == PEER:
            return os.path.join(self.dbdir, "rocksdb")
        return self.args.lsm_db or os.path.join(self.dbdir, "lsm.img")

    def sync_image(self):
        """The flags that put a fillsync cell's store on this run's
        written-through image (made on first use)."""
        a = self.args
        if a.lsm_backend != "lib" or a.lsm_db:
            return {}
        size = SYNC_IMAGE_BASE + SYNC_IMAGE_BLOCKS_PER_WRITE * 4096 * \
            a.fillsync_writes * max(int(t) for t in a.threads.split(","))
        path = os.path.join(self.dbdir, "lsm-sync.img")
        if self.sync_image_bytes != size:
            chunk = bytes(8 << 20)
            with open(path, "wb") as f:
                for _ in range(-(-size // len(chunk))):
                    f.write(chunk)
                os.fsync(f.fileno())
            self.sync_image_bytes = size
        return {"db": path, "db_bytes": os.path.getsize(path),
                "db_in_place": 1}

    def copyable(self, impl):
        """A database that is a file or a directory: prepared once per
        round and copied (the kernel's store is on a block device)."""
        return impl == PEER or self.args.lsm_backend == "lib"

    def common(self, threads, extra):
        a = self.args
        flags = {"num": a.num, "key_size": KEY_BYTES, "value_size": VALUE_BYTES,
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

    def command(self, impl, benchmarks, flags, peer="db_bench"):
        flags = dict(flags)
        if impl == PEER and peer == "extent":
            # Options from db_bench's OPTIONS file of this run; the
            # flags that are not options go as they go to db_bench.
            stats = flags.pop("statistics", 0)
            flags = {k: v for k, v in flags.items() if k != "batch_size"}
            flags.update(options_file=self.options_file,
                         cache_size=self.args.cache_bytes, statistics=stats)
            exe = [self.args.extent_bench]
        elif impl == PEER:
            flags = dict(self.peer_flags(), **flags)
            exe = [self.args.db_bench]
        else:
            flags.pop("statistics", None)
            flags["backend"] = self.args.lsm_backend
            if self.args.lsm_backend == "dev":
                flags["device"] = self.args.device
            exe = [self.args.lsm_bench]
        flags.setdefault("db", self.db_path(impl))
        flags["benchmarks"] = benchmarks
        return exe + [f"--{k}={v}" for k, v in flags.items()]

    def run(self, impl, benchmarks, flags, tag, peer="db_bench", killed=False):
        """One driver process; its output, and the bytes the kernel
        counted it writing (getrusage's ru_oublock: dirtied page cache
        and direct writes, at the time they were made)."""
        cmd = self.command(impl, benchmarks, flags, peer)
        path = os.path.join(self.raw, f"{tag}--{impl}.txt")
        with open(path + ".out", "w+") as fo, open(path + ".err", "w+") as fe:
            p = subprocess.Popen(cmd, stdout=fo, stderr=fe)
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = rc = os.waitstatus_to_exitcode(status)
            fo.seek(0)
            fe.seek(0)
            out, err = fo.read(), fe.read()
        os.unlink(path + ".out")
        os.unlink(path + ".err")
        with open(path, "w") as f:
            f.write("$ " + " ".join(cmd) + "\n" + out +
                    "\n--- stderr ---\n" + err[-4000:])
        if rc != (-9 if killed else 0):
            raise CellFailed(f"{' '.join(cmd)} exited {rc}"
                             f"{' (expected SIGKILL)' if killed else ''}: "
                             f"{err.strip()[-500:]}")
        return out, ru.ru_oublock * 512

    def make_options_file(self):
        """db_bench's OPTIONS file for rocksdb_extent_bench: db_bench run
        with this run's flags on one key, in a directory of its own."""
        d = os.path.join(self.dbdir, "rocksdb-options")
        shutil.rmtree(d, ignore_errors=True)
        cmd = [self.args.db_bench, *[f"--{k}={v}" for k, v in dict(
            self.peer_flags(), **self.common(1, {"num": 1})).items()],
            f"--db={d}", "--benchmarks=fillseq"]
        res = subprocess.run(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        opts = sorted(glob.glob(os.path.join(d, "OPTIONS-*")),
                      key=lambda f: int(f.rsplit("-", 1)[1]))
        if res.returncode or not opts:
            die(f"{' '.join(cmd)} made no OPTIONS file: {res.stdout[-500:]}")
        self.options_file = opts[-1]

    def cell_flags(self, wl, threads):
        """The flags of a workload's cell at a thread count."""
        a = self.args
        extra = dict(wl.extra)
        reads = a.reads or a.num
        if wl.name == "fillsync":
            extra["writes"] = a.fillsync_writes
        elif wl.name in ("readrandom", "readwhilewriting") and a.reads:
            extra["reads"] = a.reads
        elif wl.name in ("seekrandom", "rangelookup"):
            extra["reads"] = max(1, reads // 10)
        elif wl.name == "fillrandom-nowal-v0":
            extra["num"] = a.num // threads
            extra["write_buffer_size"] = max(
                MEMTABLE_BYTES, NOWAL_MEMTABLE_BYTES_PER_KEY * a.num)
        elif wl.name == "overwrite":
            extra["writes"] = -(-a.overwrite_writes // threads)
        elif wl.name == "rangeoverwrite":
            extra["writes"] = a.range_writes
        if wl.name.startswith("range"):
            extra["max_range"] = MAX_RANGE
        if wl.prepared:
            extra["use_existing_db"] = 1
        return self.common(threads, extra)

    def restore(self, impl, kind, rnd):
        """The working database of IMPL holds the prepared KIND: a copy
        of this round's, or prepared again."""
        db, master = self.db_path(impl), self.masters.get((impl, kind))
        if master and self.copyable(impl):
            if os.path.isdir(db):
                shutil.rmtree(db)
            if os.path.isdir(master):
                shutil.copytree(master, db)
            else:
                subprocess.run(["cp", "--sparse=always", master, db], check=True)
            fsync_tree(db)
        else:
            self.prepare(impl, kind, rnd)
        self.content[impl] = kind

    def prepare(self, impl, kind, rnd):
        """A database with keys 0..num-1 written in order and flushed
        ("seq"), or with rangeoverwrite's ranges on one thread
        ("ranges"), once its store is idle, as this round's master."""
        db = self.db_path(impl)
        # Idle before any cell reads it: a merge still running would be
        # measured by the first cell and not by the next (RocksDB's range
        # lookups ran 20 times faster once it had compacted its tombstones).
        if kind == "seq":
            self.run(impl, "fillseq,flush,waitforcompaction", self.common(1, {}),
                     f"r{rnd}-prepare-seq")
        else:
            flags = self.common(1, {"writes": self.args.range_writes,
                                    "max_range": MAX_RANGE})
            self.run(impl, "rangeoverwrite,flush,waitforcompaction", flags,
                     f"r{rnd}-prepare-ranges", peer="extent")
        if self.copyable(impl):
            master = os.path.join(self.dbdir, f"master-{kind}-" +
                                  os.path.basename(db))
            if os.path.isdir(master):
                shutil.rmtree(master)
            elif os.path.exists(master):
                os.unlink(master)
            if os.path.isdir(db):
                shutil.copytree(db, master)
            else:
                subprocess.run(["cp", "--sparse=always", db, master], check=True)
            self.masters[(impl, kind)] = master
            fsync_tree(db)

    def new_round(self):
        self.masters = {}
        self.content = {OURS: None, PEER: None}

    def cell(self, impl, wl, threads, rnd):
        if wl.attach:
            return self.attach_cell(impl, wl, rnd)
        flags = self.cell_flags(wl, threads)
        if wl.name == "fillsync" and impl == OURS:
            flags.update(self.sync_image())
        tag = f"r{rnd}-{wl.name}-t{threads}"
        if wl.prepared and (wl.private or self.content[impl] != wl.prepared):
            self.restore(impl, wl.prepared, rnd)
        benchmarks = wl.bench
        if wl.name == "fillrandom-nowal-v0":
            benchmarks += ",memstats"
        if wl.settle:
            benchmarks += ",waitforcompaction"
        if wl.writes and impl == PEER:
            # The bytes each part of the database was written, and the
            # stall time (RocksDB's statistics; the store always counts).
            flags["statistics"] = 1
        if wl.writes or (impl == OURS and (wl.name == "fillsync" or
                                           wl.name in CACHE_WORKLOADS)):
            benchmarks += ",stats"    # group commit, cache, merges, stalls
        disk = self.disk_of(impl)
        before = disk_stat(disk)
        out, os_bytes = self.run(impl, benchmarks, flags, tag, peer=wl.peer)
        after = disk_stat(disk)
        if wl.private or not wl.prepared:
            self.content[impl] = None
        rec = parse_report(out, wl.bench)
        if rec is None:
            raise CellFailed(f"{impl}: no report line for {wl.bench} "
                             f"({self.args.name}-raw/{tag}--{impl}.txt)")
        if wl.prepared == "seq" and rec.get("found") is not None and \
                rec["found"] != rec["reads"]:
            raise CellFailed(f"{impl}: {wl.name} found {rec['found']} of "
                             f"{rec['reads']} keys of a database filled with every key")
        rec["stats"] = parse_stats(out)
        rec["os_write_bytes"] = os_bytes
        if wl.name == "rangelookup":
            self.check_ranges(impl, rec, flags, threads)
        if wl.writes:
            rec["io"] = self.io(impl, wl, rec, flags, threads)
        if before and after:
            # Everything the cell's process did to its disk, from open
            # to close (the database's opening and its last writes too).
            rec["disk"] = {"device": disk, **{k: after[k] - before[k] for k in after}}
        return rec

    def check_ranges(self, impl, rec, flags, threads):
        """rangelookup's found count against the ranges written: the
        store must find exactly the covered units; RocksDB's emulation
        loses the tails of the extents a range splits, and the count
        shows how many lookups that cost."""
        key = (flags["reads"], threads)
        if key not in self.expected:
            self.expected[key] = expected_found(
                self.args.seed, self.args.num, self.args.range_writes,
                MAX_RANGE, flags["reads"], threads)
        rec["expected_found"] = want = self.expected[key]
        if impl == OURS and rec.get("found") != want:
            raise CellFailed(f"lsm: rangelookup found {rec.get('found')} of "
                             f"{rec.get('reads')} units, where the ranges "
                             f"written cover {want}")
        if impl == PEER and rec.get("found", 0) > want:
            raise CellFailed(f"rocksdb: rangelookup found {rec['found']} units, "
                             f"more than the {want} the ranges cover")

    def io(self, impl, wl, rec, flags, threads):
        """Write amplification (bytes written to tables and manifest over
        the bytes the callers handed over; the log apart), space
        amplification (after overwrite: space in use over the live
        data) and the share of the writers' time spent stalled."""
        s, db = rec["stats"], self.db_path(impl)
        user = s.get(f"{impl}.bench-user-bytes")
        if user is None:    # db_bench: keys and values of every put
            user = rec["operations"] * (KEY_BYTES + flags["value_size"])
        if impl == OURS:
            wal, table = s.get("lsm.wal-bytes"), s.get("lsm.run-bytes")
            manifest = s.get("lsm.manifest-bytes")
            compact = s.get("lsm.compact-write-bytes")
            stall_ns = None if "lsm.stall-ns" not in s else \
                s["lsm.stall-ns"] + s.get("lsm.slowdown-ns", 0)
            # Every writer counts its own wait: the share of the
            # writers' time.
            stall_div = threads
            space = s.get("lsm.space-used-bytes") or None
            space_source = "space_used_bytes"
            if not space and self.args.lsm_backend == "lib":
                space, space_source = allocated_bytes(db), "file allocated"
        else:
            wal = s.get("rocksdb.wal.bytes")
            flush = s.get("rocksdb.flush.write.bytes")
            compact = s.get("rocksdb.compact.write.bytes")
            table = None if flush is None else flush + (compact or 0)
            mf = sorted(glob.glob(os.path.join(db, "MANIFEST-*")))
            # A new MANIFEST at every opening: its size is this process's.
            manifest = os.path.getsize(mf[-1]) if mf else None
            # The write group's leader counts a stall once for every
            # writer waiting behind it: the share of the wall time.
            stall_ns = None if "rocksdb.stall.micros" not in s else \
                s["rocksdb.stall.micros"] * 1000
            stall_div = 1
            space = allocated_bytes(db, skip=("LOG",))
            space_source = "database directory allocated, LOG files aside"
        live = None
        if wl.name == "overwrite":
            live = self.args.num * (KEY_BYTES + flags["value_size"])
        secs = rec["seconds"]

        def ratio(a, b):
            return a / b if a is not None and b else None
        return {"user_bytes": user, "wal_bytes": wal, "table_bytes": table,
                "compact_write_bytes": compact, "manifest_bytes": manifest,
                "write_amp": ratio(None if table is None else
                                   table + (manifest or 0), user),
                "wal_amp": ratio(wal, user),
                "os_write_amp": ratio(rec["os_write_bytes"], user),
                "space_bytes": space, "space_source": space_source,
                "live_bytes": live, "space_amp": ratio(space, live),
                "stall_ns": stall_ns,
                "stall_share": None if stall_ns is None or secs <= 0 else
                stall_ns / (secs * 1e9 * stall_div)}

    def attach_cell(self, impl, wl, rnd):
        """Fill the log with ATTACH_MEMTABLES memtables of random puts in
        a store whose memtable holds all of them, close it or kill the
        process, then time the next opening."""
        a = self.args
        tag = f"r{rnd}-{wl.name}"
        fill = self.common(1, {
            "writes": a.attach_writes,
            "write_buffer_size": ATTACH_FILL_MEMTABLES * a.memtable_bytes})
        if impl == PEER:
            fill["statistics"] = 1
        crash = wl.attach == "crash"
        out, _ = self.run(impl, "fillrandom,stats" + (",crash" if crash else ""),
                          fill, tag + "-fill", peer="extent", killed=crash)
        self.content[impl] = None
        st = parse_stats(out)
        flushed = st.get("lsm.flushes") if impl == OURS else \
            st.get("rocksdb.flush.write.bytes")
        if flushed:
            raise CellFailed(f"{impl}: the fill of {wl.name} wrote a memtable "
                             "out: the log does not hold all of it")
        wal = st.get("lsm.wal-bytes" if impl == OURS else "rocksdb.wal.bytes")
        out, _ = self.run(impl, "attach", self.common(1, {"use_existing_db": 1}),
                          tag, peer="extent")
        rec = parse_report(out, "attach")
        if rec is None:
            raise CellFailed(f"{impl}: no report line for attach "
                             f"({a.name}-raw/{tag}--{impl}.txt)")
        rec["attach_seconds"] = rec["micros_per_op"] / 1e6
        rec["stats"] = st     # the fill's counters
        # The report line's ops/sec is an integer: 0 for a second or more.
        rec["ops_per_sec"] = 1 / rec["attach_seconds"]
        rec["wal_bytes"] = wal
        rec["fill_puts"] = a.attach_writes
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


def loadavg():
    try:
        return open("/proc/loadavg").read().split()[:3]
    except OSError:
        return None


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
            "loadavg_start": loadavg(),
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


def goal(text, op, limit, value, shown, unit="x"):
    """A goal's row: met when VALUE OP LIMIT; the margin is how far from
    the limit, as a share of it (positive: met with room to spare)."""
    if value is None:
        return {"goal": text, "op": op, "target": limit, "unit": unit,
                "measured": None, "shown": "not measured", "met": None,
                "margin": None}
    met = value >= limit if op == ">=" else value <= limit
    if limit:
        margin = (value / limit - 1) if op == ">=" else (1 - value / limit)
    else:
        margin = 0.0 if value == 0 else -math.inf
    return {"goal": text, "op": op, "target": limit, "unit": unit,
            "measured": value, "shown": shown, "met": met, "margin": margin}


def io_of(results, wl, impl, t):
    return (find(results, wl, impl, t) or {}).get("io") or {}


def evaluate(results, threads, vm=False):
    ratios, goals = [], []
    for w in EVERY:
        for t in threads:
            ours, theirs = find(results, w.name, OURS, t), find(results, w.name, PEER, t)
            if not (ours and theirs):
                continue
            # The ratio within each round (both ran back to back there),
            # then the median of those: the load of the machine changes
            # between rounds more than within one.
            pairs = per_round(ours, theirs)
            ratios.append({"workload": w.name, "threads": t,
                           "ratio": statistics.median(pairs) if pairs else
                           ours["ops_per_sec"] / theirs["ops_per_sec"],
                           "per_round": pairs})
            ours["ratio"] = ratios[-1]["ratio"]

    def ratio_of(name, t):
        return next((x["ratio"] for x in ratios
                     if (x["workload"], x["threads"]) == (name, t)), None)

    def plural(t):
        return f"{t} thread{'s' if t > 1 else ''}"

    for name, target in VM_GOALS if vm else GOALS:
        for t in threads:
            r = ratio_of(name, t)
            goals.append(goal(f"{name}, {plural(t)}, vs RocksDB", ">=", target,
                              r, f"{r:.2f}x" if r else None))
    if vm:
        return ratios, goals
    one, two = find(results, "fillsync", OURS, 1), find(results, "fillsync", OURS, 2)
    pairs = per_round(two, one) if one and two else []
    r = statistics.median(pairs) if pairs else None
    goals.append(goal("fillsync, 2 threads against 1 (group commit)", ">=",
                      GROUP_COMMIT_GOAL, r, f"{r:.2f}x" if r else None))
    for name, target in GOALS_2:
        for t in threads:
            r = ratio_of(name, t)
            goals.append(goal(f"{name}, {plural(t)}, vs RocksDB", ">=", target,
                              r, f"{r:.2f}x" if r else None))
    for t in threads:
        ours, theirs = io_of(results, "overwrite", OURS, t), \
            io_of(results, "overwrite", PEER, t)
        a, b = ours.get("write_amp"), theirs.get("write_amp")
        # Before either has written a memtable out (a quick run), only
        # the manifests count: nothing to compare.
        ok = a is not None and b and ours.get("table_bytes") and \
            theirs.get("table_bytes")
        goals.append(goal(f"overwrite, {plural(t)}, write amplification "
                          "against RocksDB's", "<=", 1.0, a / b if ok else None,
                          f"{a:.2f} vs {b:.2f}" if ok else None))
    for t in threads:
        o = find(results, "overwrite", OURS, t) or {}
        p50, p999 = o.get("p50_us"), o.get("p999_us")
        v = p999 / p50 if p50 and p999 is not None else None
        goals.append(goal(f"overwrite, {plural(t)}, p99.9 put latency over p50",
                          "<=", TAIL_GOAL, v,
                          f"{v:.1f}x ({p999:.1f} / {p50:.2f} us)" if v else None))
    for t in threads:
        a = io_of(results, "overwrite", OURS, t).get("stall_share")
        b = io_of(results, "overwrite", PEER, t).get("stall_share")
        ok = a is not None and b is not None
        g = goal(f"overwrite, {plural(t)}, stall share against RocksDB's",
                 "<=", b if ok else None, a if ok else None,
                 f"{a:.1%} vs {b:.1%}" if ok else None, unit="share")
        goals.append(g)
    c = find(results, "attach-crash", OURS, 1)
    v = c.get("attach_seconds") if c else None
    goals.append(goal(f"attach after a crash with {ATTACH_MEMTABLES} memtables "
                      "of log", "<=", ATTACH_GOAL_S, v,
                      f"{v:.2f} s" if v is not None else None, unit="s"))
    return ratios, goals


def fmt_rate(v):
    return "n/a" if v is None else f"{v / 1e3:,.0f}K" if v >= 1e4 else f"{v:,.0f}"


def fmt_us(v):
    return "n/a" if v is None else f"{v:.2f}" if v < 100 else f"{v:.0f}"


def fmt_target(g):
    if g["unit"] == "share":
        return f"{g['op']} RocksDB's"
    if g["unit"] == "s":
        return f"{g['op']} {g['target']:g} s"
    return f"{g['op']} {g['target']:g}x"


def fmt_margin(g):
    """How far from the target: a share of it, or for a "<=" goal missed
    by more than the target, how many times the target it reached."""
    m = g.get("margin")
    if m is None:
        return "n/a"
    if g["unit"] == "share":
        # Stall shares are compared in points, not as a share of a share.
        return f"{(g['target'] - g['measured']) * 100:+.1f} pts"
    if math.isinf(m) or m < -1:
        return ("inf" if math.isinf(m) else f"{g['measured'] / g['target']:.1f}x") + \
            " the target"
    return f"{m * 100:+.0f}%"


def fmt_x(v, digits=2):
    return "n/a" if v is None else f"{v:.{digits}f}"


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
    for w in workloads(doc):
        if w.attach:
            continue
        for t in threads:
            row = [w.name, str(t)]
            cells = [find(res, w.name, i, t) for i in impls]
            if not any(cells):
                continue
            for c in cells:
                row += [fmt_rate(c["ops_per_sec"]) if c else "n/a",
                        "/".join(fmt_us(c.get(k)) for k in
                                 ("p50_us", "p99_us", "p999_us")) if c else "n/a"]
            if len(impls) == 2:
                r = next((x["ratio"] for x in doc["ratios"]
                          if (x["workload"], x["threads"]) == (w.name, t)), None)
                row.append(f"{r:.2f}x" if r else "n/a")
            rows.append(row)
    goal_rows = []
    for g in doc["goals"]:
        if "shown" not in g:    # lsm.json of an older run.py
            g = goal(g["goal"], ">=", g["target"], g["measured"],
                     f"{g['measured']:.2f}x" if g["measured"] else None)
        goal_rows.append([g["goal"], fmt_target(g) if g["target"] is not None
                          else g["op"] + " RocksDB's", g["shown"],
                          "n/a" if g["met"] is None else
                          "met" if g["met"] else "**not met**", fmt_margin(g)])
    mem_rows = [[m["impl"], str(m["threads"]),
                 str(m["bytes"]) if m["bytes"] else "n/a",
                 str(m["records"]) if m["records"] else "n/a",
                 f"{m['bytes_per_record']:.1f}" if m["bytes_per_record"] else "n/a",
                 f"{m['bytes_per_live_key']:.1f}" if m["bytes_per_live_key"] else "n/a"]
                for m in doc["memtable"]]
    return (head, rows), (["goal", "target", "measured", "met", "margin"],
                          goal_rows), \
        (["impl", "threads", "memtable bytes", "puts", "bytes per put",
          "bytes per live key"], mem_rows)


def io_rows(doc):
    """Write amplification (tables and manifest; the log apart), space
    amplification and stall share of each write cell's median round."""
    res, threads = doc["results"], doc["config"]["threads"]
    rows = []
    for w in workloads(doc):
        if not w.writes:
            continue
        for t in threads:
            ios = [io_of(res, w.name, i, t) for i in (OURS, PEER)]
            if not any(ios):
                continue
            row = [w.name, str(t)]
            for key, fmt in (("write_amp", fmt_x), ("wal_amp", fmt_x),
                             ("space_amp", fmt_x),
                             ("stall_share", lambda v: "n/a" if v is None
                              else f"{v:.1%}")):
                row += [fmt(x.get(key)) for x in ios]
            rows.append(row)
    head = ["workload", "threads", "lsm write amp", "rocksdb write amp",
            "lsm log/user", "rocksdb log/user", "lsm space amp",
            "rocksdb space amp", "lsm stall", "rocksdb stall"]
    return head, rows


def attach_rows(doc):
    res = doc["results"]
    rows = []
    for impl in (OURS, PEER):
        row = [impl]
        for name in ("attach-clean", "attach-crash"):
            c = find(res, name, impl, 1)
            row.append(f"{c['attach_seconds']:.3f}" if c else "n/a")
        c = find(res, "attach-crash", impl, 1) or find(res, "attach-clean", impl, 1)
        row.append(f"{c['wal_bytes'] / 1e6:.0f}" if c and c.get("wal_bytes")
                   else "n/a")
        rows.append(row)
    head = ["impl", "after a clean close (s)", "after a crash (s)",
            "log written by the fill (MB)"]
    return head, rows if any(r[1] != "n/a" or r[2] != "n/a" for r in rows) else []


def range_rows(doc):
    res, threads = doc["results"], doc["config"]["threads"]
    rows = []
    for t in threads:
        o, p = find(res, "rangelookup", OURS, t), find(res, "rangelookup", PEER, t)
        c = o or p
        if not c or c.get("expected_found") is None:
            continue
        want = c["expected_found"]
        rows.append([str(t), str(c.get("reads")), str(want),
                     str(o["found"]) if o else "n/a",
                     f"{p['found']} ({(want - p['found']) / want:.1%} lost)"
                     if p and want else "n/a"])
    head = ["threads", "lookups", "units covered", "lsm found", "rocksdb found"]
    return head, rows


def disk_rows(doc):
    """Disk requests per operation in the VM, from each cell's median
    round: where a read goes to the disk rather than a cache."""
    res, threads = doc["results"], doc["config"]["threads"]
    rows = []
    for w in workloads(doc):
        if w.attach:
            continue
        for t in threads:
            row = [w.name, str(t)]
            for impl in (OURS, PEER):
                c = find(res, w.name, impl, t)
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
    load = ""
    if m.get("loadavg_start") and m.get("loadavg_end"):
        load = (f" The {'guest' if vm else 'host'}'s load average (1/5/15 min) was "
                f"{'/'.join(m['loadavg_start'])} at the start and "
                f"{'/'.join(m['loadavg_end'])} at the end.")
    sizes = ""
    if c.get("overwrite_writes"):
        sizes = (f" overwrite writes {c['overwrite_writes']} puts in all, "
                 f"rangeoverwrite {c['range_writes']} ranges per thread, the "
                 f"attach fills {c['attach_writes']} puts.")
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
                "ratio the median of its rounds' ratios." + sizes + load)
    return (("RocksDB alone (``run.py --rocksdb-only``: the store's library "
             "was not built yet), measured" if alone else
             "Measured by ``make bench-lsm``") +
            f" on {m['cpu']}, {m['nproc']} CPUs, "
            f"kernel {m['kernel']}, on {m['filesystem'].split()[1] if m['filesystem'] else '?'} "
            f"({m['date']}); RocksDB {m['rocksdb_tools']} (Debian's db_bench); "
            f"{c['num']} keys of 8 bytes, 100-byte values, "
            f"fillsync {c['fillsync_writes']} writes per thread; ops/s are the "
            f"median of {m['rounds']} interleaved rounds, a ratio the median of "
            "its rounds' ratios." + sizes + load)


IO_TEXT = ("Write amplification is the bytes written to runs (SST files: "
           "flushes and compactions) and to the manifest over the bytes the "
           "callers handed over (keys and values; a range's 16 bytes of key "
           "and length); the log is apart (log/user).  Space amplification "
           "(after overwrite) is the space in use once both are idle over "
           "the live data.  Stall is the share of the writers' time spent "
           "stopped or slowed by the store.  Each cell's median round:")
ATTACH_TEXT = ("Time to open (attach) a store whose log holds "
               f"{ATTACH_MEMTABLES} memtables of random puts, after a clean "
               "close and after a kill -9 of the process that wrote them "
               "(median of the rounds):")
RANGE_TEXT = ("rangelookup's lookups, and how many a correct store finds "
              "(the units the ranges written cover, computed from the same "
              "generators); RocksDB's DeleteRange + Put loses the tail of an "
              "extent a range splits:")


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
    ih, irows = io_rows(doc)
    ah, arows = attach_rows(doc)
    rh, rrows = range_rows(doc)
    disk_text = ("Disk requests per operation (each cell's median round, "
                 "from /sys/block/DEV/stat around the driver's process, its "
                 "opening of the database included; bytes/op are bytes "
                 "written; what ext4 holds in the page cache when the "
                 "process ends is written later and not counted):")
    vm = doc["machine"].get("vm")
    goal_title = "Goals (issue 19 and its part 2)" if not vm else "Goals (issue 19)"
    md = ["# lsm_bench against RocksDB's db_bench" + (" in a VM" if vm else ""), "",
          describe(doc).replace("``", "`"), ""] + \
        (["**Failed cells** (not in the figures):", ""] + failed + [""] if failed else []) + \
        md_table(h, rows) + \
        ["", f"## {goal_title}", ""] + md_table(gh, grows) + \
        (["", "## Write and space amplification, stalls", "", IO_TEXT, ""] +
         md_table(ih, irows) if irows else []) + \
        (["", "## Attach", "", ATTACH_TEXT, ""] + md_table(ah, arows)
         if arows else []) + \
        (["", "## Range lookups", "", RANGE_TEXT, ""] + md_table(rh, rrows)
         if rrows else []) + \
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
    if failed:
        rst += ["Failed cells (not in the figures):", ""] + \
            [textwrap.shorten(f, 300) for f in failed] + [""]
    rst += rst_table(h, rows) + ["", goal_title.replace("Goals", "Goals of") + ":", ""]
    rst += rst_table(gh, [[x.replace("**", "") if x == "**not met**" else x
                           for x in r] for r in grows])
    for text, (th, trows) in ((IO_TEXT, (ih, irows)), (ATTACH_TEXT, (ah, arows)),
                              (RANGE_TEXT, (rh, rrows))):
        if trows:
            rst += [""] + textwrap.wrap(text, 75) + [""] + rst_table(th, trows)
    if not vm:
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
    cells = [(w.name, t) for w in workloads(doc) if not w.attach for t in threads
             if find(res, w.name, PEER, t) or find(res, w.name, OURS, t)]
    impls = [i for i in (OURS, PEER) if any(r["impl"] == i for r in res)]
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(max(11, 0.6 * len(cells)), 7.5),
                                  gridspec_kw={"height_ratios": [3, 2]})
    width = 0.8 / len(impls)
    for k, impl in enumerate(impls):
        ys = [(find(res, n, impl, t) or {}).get("ops_per_sec", 0) for n, t in cells]
        ax.bar([x + k * width for x in range(len(cells))], ys, width, label=impl)
    ax.set_yscale("log")
    ax.set_ylabel("ops/s (log)")
    ax.set_xticks([x + width * (len(impls) - 1) / 2 for x in range(len(cells))])
    labels = [f"{SHORT.get(n, n)}\n{t}t" for n, t in cells]
    ax.set_xticklabels(labels, fontsize=7)
    ax.legend()
    ax.set_title(f"lsm_bench vs RocksDB db_bench"
                 f"{' in a VM (sl_lsm.ko, ext4)' if doc['machine'].get('vm') else ''}, "
                 f"{doc['config']['num']} keys, "
                 f"median of {doc['machine']['rounds']} rounds")
    ratio = {(x["workload"], x["threads"]): x["ratio"] for x in doc["ratios"]}
    target = dict(ratio_goals(doc))
    xs = range(len(cells))
    ax2.bar(xs, [ratio.get(c, 0) for c in cells], 0.6, color="tab:green")
    goal_x = [x for x, (n, _) in zip(xs, cells) if n in target]
    ax2.scatter(goal_x, [target[cells[x][0]] for x in goal_x], marker="_",
                s=400, color="red", label="goal", zorder=3)
    ax2.axhline(1.0, color="grey", lw=0.8)
    ax2.set_ylabel("lsm / RocksDB")
    ax2.set_xticks(list(xs))
    ax2.set_xticklabels(labels, fontsize=7)
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
                    help="100K keys, one round, 200 synchronous writes, short "
                    "overwrite and attach fills: a smoke run")
    ap.add_argument("--big", action="store_true", help="10M keys")
    ap.add_argument("--num", type=int, help="keys (default 1M)")
    ap.add_argument("--rounds", type=int, help="rounds (default 3)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--fillsync-writes", type=int,
                    help="synchronous writes per thread (default 10000)")
    ap.add_argument("--reads", type=int,
                    help="readrandom's and readwhilewriting's reads per thread; "
                    "seekrandom and rangelookup do a tenth (default --num)")
    ap.add_argument("--overwrite-writes", type=int,
                    help="overwrite's puts in all, shared by the threads "
                    f"(default {OVERWRITE_MEMTABLES} memtables of keys and values)")
    ap.add_argument("--range-writes", type=int,
                    help="rangeoverwrite's ranges per thread (default --num)")
    ap.add_argument("--attach-writes", type=int,
                    help=f"puts the attach workloads' log holds (default "
                    f"{ATTACH_MEMTABLES} memtables of keys and values)")
    ap.add_argument("--seed", type=int, default=301)
    ap.add_argument("--cache-bytes", type=int, default=8 << 20,
                    help="the block cache of both, RocksDB's and the store's (default %(default)s)")
    ap.add_argument("--out", default=os.path.join(TOP, "build", "bench"))
    ap.add_argument("--db-dir", help="where both databases go "
                    "(default OUT/lsm-db: the same file system for both)")
    ap.add_argument("--lsm-bench", default=os.path.join(
        TOP, "build", "bench-obj", "lsm", "lsm_bench"))
    ap.add_argument("--extent-bench", default=os.path.join(
        TOP, "build", "bench-obj", "lsm", "rocksdb_extent_bench"),
        help="RocksDB's driver of the extent and attach workloads")
    ap.add_argument("--db-bench", default=shutil.which("db_bench") or "/usr/bin/db_bench")
    ap.add_argument("--lsm-backend", choices=["lib", "dev"], default="lib",
                    help="lib: the store's library on a file (default); dev: "
                    "sl_lsm.ko through --device, on the block device --lsm-db")
    ap.add_argument("--lsm-db", help="the store's file or block device "
                    "(default DB_DIR/lsm.img; a block device for dev); "
                    "given, fillsync uses it too (else DB_DIR/lsm-sync.img, "
                    "written through once and formatted in place)")
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
    put_bytes = KEY_BYTES + VALUE_BYTES
    args.overwrite_writes = args.overwrite_writes or (
        2 * args.num if args.quick else
        -(-OVERWRITE_MEMTABLES * args.memtable_bytes // put_bytes))
    args.range_writes = args.range_writes or args.num
    args.attach_writes = args.attach_writes or (
        args.num if args.quick else
        -(-ATTACH_MEMTABLES * args.memtable_bytes // put_bytes))
    args.db_dir = args.db_dir or os.path.join(args.out, "lsm-db")
    threads = [int(t) for t in args.threads.split(",")]
    names = (args.workloads or (VM_WORKLOADS if args.vm else
                                ",".join(w.name for w in WORKLOADS))).split(",")
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        die(f"unknown workloads {', '.join(unknown)}: "
            f"{', '.join(w.name for w in EVERY)}")
    chosen = [w for w in EVERY if w.name in names]
    if args.lsm_backend == "dev" and not args.lsm_db:
        die("--lsm-backend dev needs --lsm-db, the block device to attach")
    if args.lsm_backend == "dev" and "attach-crash" in names:
        die("attach-crash needs --lsm-backend lib: killing lsm_bench_dev does not "
            "crash the kernel's store")
    if not os.access(args.db_bench, os.X_OK):
        die(f"{args.db_bench}: RocksDB's db_bench is missing; install Debian's "
            "rocksdb-tools ('make setup' does)")
    if any(w.peer == "extent" for w in chosen) and \
            not os.access(args.extent_bench, os.X_OK):
        die(f"{args.extent_bench} is missing: build it with 'make -C "
            "tools/bench/lsm rocksdb' (needs librocksdb-dev: 'make setup')")
    impls = [PEER] if args.rocksdb_only else [PEER, OURS]
    if OURS in impls and not os.access(args.lsm_bench, os.X_OK):
        die(f"{args.lsm_bench} is missing: build it with 'make -C tools/bench/lsm'")
    os.makedirs(args.out, exist_ok=True)
    runner = Runner(args)
    mach = machine(args)
    runner.make_options_file()
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
        runner.new_round()
        for wl in chosen:
            for t in [1] if wl.attach else threads:
                for impl in order:
                    rec = attempt(f"{wl.name} {t}t {impl}", runner.cell, impl, wl, t, rnd)
                    if rec is None:
                        continue
                    rec["round"] = rnd
                    samples.setdefault((wl.name, impl, t), []).append(rec)
                    st = rec["stats"]
                    extra = (f"  {st['lsm.group-writers'] / st['lsm.group-commits']:.2f} "
                             "writers per flush"
                             if wl.name == "fillsync" and st.get("lsm.group-commits")
                             else "")
                    io = rec.get("io") or {}
                    if io.get("write_amp") is not None:
                        extra += f"  write amp {io['write_amp']:.2f}"
                    rate = f"{rec['ops_per_sec']:12,.0f} ops/s" if not wl.attach \
                        else f"{rec['attach_seconds']:10.3f} s to attach"
                    print(f"round {rnd}: {wl.name:20} {t}t {impl:8} {rate}{extra}",
                          file=sys.stderr)
    mach["loadavg_end"] = loadavg()
    results = []
    for (wname, impl, t), recs in samples.items():
        by_round = {x["round"]: x["ops_per_sec"] for x in recs}
        r = median_record(recs)
        r["rounds"] = [by_round.get(n) for n in range(1, args.rounds + 1)]
        r.update(workload=wname, impl=impl, threads=t,
                 num=args.num // t if wname == "fillrandom-nowal-v0" else args.num,
                 kernel=platform.release())
        results.append(r)
    options_text = open(runner.options_file).read()
    ratios, goals = evaluate(results, threads, vm=args.vm)
    sample_flags = runner.common(1, {})
    doc = {"machine": mach,
           "config": {"num": args.num, "threads": threads, "seed": args.seed,
                      "fillsync_writes": args.fillsync_writes,
                      "reads": args.reads,
                      "overwrite_writes": args.overwrite_writes,
                      "range_writes": args.range_writes,
                      "attach_writes": args.attach_writes,
                      "memtable_bytes": args.memtable_bytes,
                      "cache_bytes": args.cache_bytes,
                      "write_buffers": WRITE_BUFFERS,
                      "workload_names": [w.name for w in chosen],
                      "workloads": [{"name": w.name, "benchmark": w.bench,
                                     "flags": w.extra, "prepared": w.prepared,
                                     "private": w.private, "peer": w.peer,
                                     "about": w.about} for w in chosen],
                      "rocksdb_command": runner.command(PEER, "fillrandom", sample_flags),
                      "lsm_command": runner.command(OURS, "fillrandom", sample_flags),
                      "extent_command": runner.command(
                          PEER, "rangeoverwrite", sample_flags, peer="extent"),
                      "rocksdb_options_file": options_text},
           "results": results, "ratios": ratios, "goals": goals,
           "failures": failures,
           "memtable": memtable_rows(results, args.num)}
    doc["config"]["rocksdb_only"] = args.rocksdb_only
    if args.rocksdb_only:
        doc["config"]["lsm_command"] = ["(not run: --rocksdb-only)"]
    with open(os.path.join(args.out, f"{name}.json"), "w") as f:
        json.dump(doc, f, indent=1)
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
