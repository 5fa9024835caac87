#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The RST tables of Documentation/lsm-memory.rst from lsm_pool_bench's
JSON (build/bench/lsm-pool.json): ns per operation per thread for each
allocator, the ratios to the pool, and the memtable's bytes per record.

Usage: report.py build/bench/lsm-pool.json [-o build/bench/lsm-pool.rst]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from rst_table import rst_table  # noqa: E402

IMPLS = ("pool", "malloc", "arena")
WORKLOADS = ("fillrandom", "overwrite", "destroy", "alloc-free")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("json")
    ap.add_argument("-o", "--out")
    args = ap.parse_args()
    with open(args.json) as f:
        doc = json.load(f)
    cell = {}
    for r in doc["results"]:
        cell[(r["workload"], r["value_size"], r["threads"], r["impl"])] = r
    values = sorted({k[1] for k in cell}, key=lambda v: (v != 100, v))
    threads = sorted({k[2] for k in cell})

    def ns(w, v, t, i):
        r = cell.get((w, v, t, i))
        return r["ns_per_op"] if r else None

    rows = []
    for w in WORKLOADS:
        for v in values:
            for t in threads:
                m = [ns(w, v, t, i) for i in IMPLS]
                if m[0] is None:
                    continue
                rows.append([w, v, t] + ["%.0f" % x if x else "-" for x in m]
                            + ["%.2f" % (x / m[0]) if x else "-"
                               for x in m[1:]])
    lines = rst_table(["workload", "value B", "threads", "pool ns",
                       "malloc ns", "arena ns", "malloc/pool",
                       "arena/pool"], rows)
    rows = []
    for w in ("fillrandom", "overwrite"):
        for v in values:
            b = [cell.get((w, v, threads[0], i), {}).get("bytes_per_record")
                 for i in IMPLS]
            rows.append([w, v] + ["%.0f" % x if x else "-" for x in b])
    lines += [""] + rst_table(["after", "value B", "pool B/rec",
                               "malloc B/rec", "arena B/rec"], rows)
    m = doc.get("machine", {})
    lines += ["", "Machine: %s CPUs, kernel %s, gcc %s; load average %s at "
              "the end of the run; %s rounds, median." % (
                  m.get("nproc"), m.get("kernel"), m.get("compiler"),
                  m.get("loadavg", "not recorded"), m.get("rounds"))]
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
