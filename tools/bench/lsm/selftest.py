#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""lsm_bench's own test: the driver on its test double (backend_model.c),
its report lines read by run.py's parser, so that what make bench-lsm
reports is counted as db_bench counts it.

Checks, at 1 and 2 threads and with batches: operations per thread as
db_bench does them (--num, --reads, --writes each per thread; fillseq
writes keys 0..num-1 from every thread), every key found after fillseq,
a full scan per thread of readseq, seekrandom finding a key at every
seek, the distinct keys memstats counts by replaying the key generators
against the model's own count, fillsync's key range (num / 1000), latency
percentiles in order, the JSON records, and refusals of bad flags.

Usage: selftest.py PATH/lsm_bench_selftest
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import parse_report, parse_stats  # noqa: E402

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


def main():
    exe = sys.argv[1]
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

    # An empty store unless --use_existing_db; a fill skipped with it.
    out = bench(exe, "--num=100", "--benchmarks=readrandom").stdout
    rr = parse_report(out, "readrandom")
    check(rr and rr["found"] == 0, "a new store is empty")
    out = bench(exe, "--num=100", "--use_existing_db",
                "--benchmarks=fillseq").stdout
    check("skipped" in out, "fillseq skipped with --use_existing_db")

    for bad in (["--benchmarks=nosuch"], ["--key_size=16"], ["--num=0"],
                ["--threads=x"], ["--frobnicate=1"]):
        check(bench(exe, *bad, ok=False).returncode == 1,
              f"{' '.join(bad)} refused")

    if FAILS:
        sys.exit(f"selftest: {len(FAILS)} checks failed")
    print("lsm_bench selftest: all checks passed")


if __name__ == "__main__":
    main()
