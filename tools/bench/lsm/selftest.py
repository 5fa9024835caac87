#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""lsm_bench's own test: the driver on its test double (backend_model.c),
its report lines read by run.py's parser, so that what make bench-lsm
reports is counted as db_bench counts it.

Checks, at 1 and 2 threads and with batches: operations per thread as
db_bench does them (--num, --reads, --writes each per thread; fillseq
writes keys 0..num-1 from every thread), every key found after fillseq,
a full scan per thread of readseq, seekrandom finding a key at every
seek, readwhilewriting reporting its readers only, the distinct keys
memstats counts by replaying the key generators against the model's own
count, fillsync's key range (num / 1000), latency percentiles in order,
the JSON records, attach and crash, and refusals of bad flags.

The extent workloads: rangeoverwrite and rangelookup on the model find
exactly the units run.py computes the ranges to cover (its copy of
keys.h's generators, which the full run's check relies on); and
rocksdb_extent_bench, on a real RocksDB, finds the same with
--exact_ranges, after a crash and reopening too, and no more than that
with the DeleteRange + Put emulation make bench-lsm measures.

Usage: selftest.py PATH/lsm_bench_selftest PATH/rocksdb_extent_bench
"""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import expected_found, parse_report, parse_stats  # noqa: E402

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print(f"selftest: FAIL: {what}", file=sys.stderr)


def bench(exe, *flags, ok=True):
    res = subprocess.run([exe, "--backend=model", "--seed=7", *flags],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if ok and res.returncode:
        sys.exit(f"selftest: {' '.join(flags)} exited {res.returncode}: {res.stderr}")
    return res


def extents(exe, rocks, tmp):
    """Range puts and lookups: the model's and RocksDB's found counts
    against the coverage run.py computes.  Few enough ranges (100 of 1 to
    256 units over 20000) that about half the space is covered, so that a
    generator drawn differently would show."""
    space, writes, reads, seed = 20000, 100, 3000, 12
    for threads in (1, 2):
        want = expected_found(seed, space, writes, 256, reads, threads,
                              started=1)
        check(0.2 * threads * reads < want < 0.8 * threads * reads,
              f"ranges: {want} of {threads * reads} units covered: about half")
        out = bench(exe, f"--seed={seed}", f"--num={space}", f"--writes={writes}",
                    f"--reads={reads}", f"--threads={threads}",
                    "--benchmarks=rangeoverwrite,rangelookup").stdout
        ro, rl = parse_report(out, "rangeoverwrite"), parse_report(out, "rangelookup")
        # rangeoverwrite ran on THREADS threads: their ranges cover the
        # same units only with one; the lookups count on that.
        if threads == 1:
            check(rl and rl["found"] == want,
                  f"model: rangelookup found {rl and rl['found']} units, "
                  f"the ranges cover {want}")
        check(ro and ro["operations"] == threads * writes,
              f"rangeoverwrite, {threads} threads: --writes per thread")
        check(parse_stats(out).get("lsm.bench-user-bytes") ==
              threads * writes * (16 + 100),
              f"rangeoverwrite, {threads} threads: 16 + 100 bytes a range")

    # RocksDB, with the OPTIONS file db_bench writes.
    opt_dir = os.path.join(tmp, "options")
    res = subprocess.run(["db_bench", "--num=1", "--compression_type=none",
                          "--bloom_bits=10", f"--db={opt_dir}",
                          "--benchmarks=fillseq"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    opts = glob.glob(os.path.join(opt_dir, "OPTIONS-*"))
    if res.returncode or not opts:
        sys.exit(f"selftest: db_bench wrote no OPTIONS file ('make setup' "
                 f"installs rocksdb-tools): {res.stdout[-300:]}")
    db = os.path.join(tmp, "rocksdb")

    def rocksdb(*flags, killed=False):
        r = subprocess.run([rocks, f"--options_file={sorted(opts)[-1]}",
                            f"--db={db}", f"--seed={seed}", f"--num={space}",
                            f"--writes={writes}", f"--reads={reads}", *flags],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        if r.returncode != (-9 if killed else 0):
            sys.exit(f"selftest: rocksdb_extent_bench {' '.join(flags)} exited "
                     f"{r.returncode}: {r.stderr[-500:]}")
        return r.stdout

    want = expected_found(seed, space, writes, 256, reads, 1, started=1)
    out = rocksdb("--exact_ranges", "--benchmarks=rangeoverwrite,rangelookup")
    rl = parse_report(out, "rangelookup")
    check(rl and rl["found"] == want,
          f"rocksdb --exact_ranges: found {rl and rl['found']}, the ranges cover {want}")
    out = rocksdb("--benchmarks=rangeoverwrite,rangelookup,stats")
    rl = parse_report(out, "rangelookup")
    check(rl and rl["found"] <= want,
          f"rocksdb DeleteRange + Put: found {rl and rl['found']}, at most {want}")
    check(parse_stats(out).get("rocksdb.wal.bytes", 0) > 0,
          "rocksdb: statistics printed")
    # A crash keeps every write (the log is in the page cache), and the
    # reopening finds them: lookups in a new process, seeds from 0.
    out = rocksdb("--exact_ranges", "--benchmarks=rangeoverwrite,crash", killed=True)
    check("crash" in out, "rocksdb: crash reported before the kill")
    want = expected_found(seed, space, writes, 256, reads, 1, started=0)
    out = rocksdb("--use_existing_db", "--benchmarks=attach,rangelookup")
    rl, at = parse_report(out, "rangelookup"), parse_report(out, "attach")
    check(rl and rl["found"] == want,
          f"rocksdb after a crash: found {rl and rl['found']}, the ranges cover {want}")
    check(at and at["operations"] == 1 and at["micros_per_op"] > 0,
          "rocksdb: attach reports its opening")
    for bad in (["--benchmarks=nosuch"], ["--max_range=0"], ["--frobnicate=1"]):
        r = subprocess.run([rocks, f"--options_file={sorted(opts)[-1]}",
                            f"--db={db}", *bad], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        check(r.returncode == 1, f"rocksdb_extent_bench {' '.join(bad)} refused")
    r = subprocess.run([rocks, f"--db={db}"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    check(r.returncode == 1, "rocksdb_extent_bench without --options_file refused")


def main():
    exe, rocks = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="lsm_bench_selftest.")
    for threads in (1, 2):
        for batch in (1, 7):
            num = 5000
            js = os.path.join(tmp, f"t{threads}b{batch}.json")
            out = bench(exe, f"--threads={threads}", f"--batch_size={batch}",
                        f"--num={num}", f"--json={js}",
                        "--benchmarks=fillseq,readrandom,readseq,seekrandom").stdout
            tag = f"{threads} threads, batches of {batch}"
            fs = parse_report(out, "fillseq")
            check(fs and fs["operations"] == threads * num,
                  f"fillseq, {tag}: {threads * num} puts")
            check(fs and fs["latency_samples"] == threads * -(-num // batch),
                  f"fillseq, {tag}: one latency sample per write call")
            rr = parse_report(out, "readrandom")
            check(rr and rr["found"] == rr["reads"] == threads * num,
                  f"readrandom, {tag}: every key found")
            rs = parse_report(out, "readseq")
            check(rs and rs["operations"] == threads * num,
                  f"readseq, {tag}: a full scan per thread")
            sr = parse_report(out, "seekrandom")
            check(sr and sr["found"] == threads * num,
                  f"seekrandom, {tag}: a key at every seek")
            for r, name in ((fs, "fillseq"), (rr, "readrandom"), (rs, "readseq")):
                check(r and r["p50_us"] <= r["p99_us"] <= r["p999_us"],
                      f"{name}, {tag}: percentiles in order")
            recs = json.load(open(js))["records"]
            check([r["workload"] for r in recs] ==
                  ["fillseq", "readrandom", "readseq", "seekrandom"] and
                  all(r["threads"] == threads and r["ops_per_sec"] > 0 and
                      "p999_us" in r for r in recs),
                  f"JSON records, {tag}")

        # Random keys: the distinct keys memstats replays against the
        # model's own count (its "memtable bytes"), and a scan's length.
        num = 20000
        out = bench(exe, f"--threads={threads}", f"--num={num}",
                    "--benchmarks=fillrandom,memstats,readseq").stdout
        st = parse_stats(out)
        check(st.get("lsm.memtable-keys") == st.get("lsm.memtable-bytes"),
              f"memstats, {threads} threads: distinct keys replayed "
              f"({st.get('lsm.memtable-keys')}) = the model's "
              f"({st.get('lsm.memtable-bytes')})")
        check(st.get("lsm.memtable-puts") == threads * num,
              f"memstats, {threads} threads: puts counted")
        live = st.get("lsm.memtable-bytes") or 0
        check(0.5 * num < live < num, f"fillrandom, {threads} threads: "
              f"{live} distinct keys of {num} drawn looks uniform")
        rs = parse_report(out, "readseq")
        check(rs and rs["operations"] == threads * live,
              f"readseq, {threads} threads: stops at the last key")

        # fillsync: --writes synchronous puts over num / 1000 keys.
        out = bench(exe, f"--threads={threads}", "--num=100000",
                    "--writes=300", "--benchmarks=fillsync,memstats").stdout
        fsync = parse_report(out, "fillsync")
        st = parse_stats(out)
        check(fsync and fsync["operations"] == threads * 300,
              f"fillsync, {threads} threads: --writes per thread")
        check(0 < st.get("lsm.memtable-keys", 0) <= 100,
              f"fillsync, {threads} threads: keys below num / 1000")

        # readwhilewriting: THREADS readers reported, one writer beside.
        out = bench(exe, f"--threads={threads}", "--num=5000", "--reads=4000",
                    "--benchmarks=fillseq,readwhilewriting").stdout
        rw = parse_report(out, "readwhilewriting")
        check(rw and rw["operations"] == threads * 4000 and
              rw["found"] == threads * 4000,
              f"readwhilewriting, {threads} threads: the readers' reads, all found")
        check("readwhilewriting writer :" in out,
              f"readwhilewriting, {threads} threads: the writer's puts printed")
        out = bench(exe, f"--threads={threads}", "--num=5000", "--reads=1000",
                    "--seek_nexts=10", "--benchmarks=fillseq,seekrandom").stdout
        sr = parse_report(out, "seekrandom")
        check(sr and sr["found"] == threads * 1000,
              f"seekrandom --seek_nexts=10, {threads} threads: a key at every seek")

    # attach, waitforcompaction and crash.
    out = bench(exe, "--num=100", "--benchmarks=attach,fillseq,waitforcompaction,"
                "stats,crash,readrandom", ok=False)
    at = parse_report(out.stdout, "attach")
    check(at and at["operations"] == 1, "attach reports the opening")
    check("waitforcompaction : waited" in out.stdout, "waitforcompaction returns")
    check(out.returncode == -9 and "crash" in out.stdout and
          parse_report(out.stdout, "fillseq") and
          not parse_report(out.stdout, "readrandom"),
          f"crash: SIGKILL after the benchmarks before it (exit {out.returncode})")

    extents(exe, rocks, tmp)

    # An empty store unless --use_existing_db; a fill skipped with it.
    out = bench(exe, "--num=100", "--benchmarks=readrandom").stdout
    rr = parse_report(out, "readrandom")
    check(rr and rr["found"] == 0, "a new store is empty")
    out = bench(exe, "--num=100", "--use_existing_db",
                "--benchmarks=fillseq").stdout
    check("skipped" in out, "fillseq skipped with --use_existing_db")

    for bad in (["--benchmarks=nosuch"], ["--key_size=16"], ["--num=0"],
                ["--threads=x"], ["--frobnicate=1"], ["--max_range=0"]):
        check(bench(exe, *bad, ok=False).returncode == 1,
              f"{' '.join(bad)} refused")

    shutil.rmtree(tmp, ignore_errors=True)
    if FAILS:
        sys.exit(f"selftest: {len(FAILS)} checks failed")
    print("lsm_bench selftest: all checks passed")


if __name__ == "__main__":
    main()
