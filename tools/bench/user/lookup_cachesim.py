#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions, data reads and cache misses per lookup, from callgrind.

Runs bench_user's lookup workload under valgrind's callgrind with its
cache model, once per index, collecting only inside that index's lookup
function (skiplist: sl_lookup, maple: mtree_load, rbtree-rw: the peer's
lookup), and divides the events by the number of calls.  Unlike a timed
run, the counts repeat exactly for the same binary and inputs, so they
show what a change to the search costs even on a noisy machine.  The cache
model is one L1 (D1) and one last level (LL) of the sizes given; it
ignores prefetch instructions and hardware prefetchers.

The lookups are bench_user's: a random unit of a random extent of one key
set (tools/bench/kernel/keyset.h; --keyset, default even).

Writes DIR/lookup-cachesim.{json,md} (DIR/lookup-cachesim-KEYSET.* for a
key set other than even) and prints the table.

Usage: lookup_cachesim.py BENCH_USER [--items N] [--out DIR] [--keyset K]
       [--impls skiplist,maple] [--d1 49152,12,64] [--ll 16777216,16,64]
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

LOOKUP_FN = {"skiplist": "sl_lookup", "maple": "mtree_load",
             "rbtree-rw": "rbt_lookup", "rbtree-spin": "rbt_lookup"}


def parse(path, fn):
    """Event names, totals and calls into @fn from a callgrind output file."""
    events, totals, calls, names = [], None, 0, {}
    cfn = None
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("totals:") or line.startswith("summary:"):
                totals = [int(x) for x in line.split()[1:]]
            m = re.match(r"(c?)fn=\((\d+)\)(?: (.*))?", line)
            if m:
                if m.group(3):
                    names[m.group(2)] = m.group(3).strip()
                cfn = names.get(m.group(2)) if m.group(1) else None
                continue
            if line.startswith("calls=") and cfn == fn:
                calls += int(line.split("=")[1].split()[0])
    return events, totals, calls


def run(bench, impl, items, d1, ll, keyset):
    fn = LOOKUP_FN[impl]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
               "--cache-sim=yes", f"--D1={d1}", f"--LL={ll}",
               f"--toggle-collect={fn}", bench, "--items", str(items),
               "--threads", "1", "--seconds", "1", "--rounds", "1",
               "--impls", impl, "--workloads", "lookup", "--keysets", keyset,
               "--out", tmp]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        events, totals, calls = parse(out, fn)
    if not calls or not totals:
        sys.exit(f"lookup_cachesim: no calls of {fn} recorded for {impl}")
    per = {e: t / calls for e, t in zip(events, totals)}
    return {"impl": impl, "keyset": keyset, "items": items, "function": fn,
            "lookups": calls,
            "instructions": per.get("Ir"), "data_reads": per.get("Dr"),
            "l1_misses": per.get("D1mr", 0) + per.get("D1mw", 0),
            "ll_misses": per.get("DLmr", 0) + per.get("DLmw", 0)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", help="bench_user binary")
    ap.add_argument("--items", type=int, default=1048576)
    ap.add_argument("--impls", default="skiplist,maple")
    ap.add_argument("--d1", default="49152,12,64", help="L1 size,assoc,line")
    ap.add_argument("--ll", default="16777216,16,64", help="LL size,assoc,line")
    ap.add_argument("--out", default="build/bench")
    ap.add_argument("--keyset", default="even")
    args = ap.parse_args()

    rows = [run(args.bench, impl, args.items, args.d1, args.ll, args.keyset)
            for impl in args.impls.split(",")]
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    doc = {"date": when, "cache_model": {"d1": args.d1, "ll": args.ll},
           "results": rows}
    md = [f"Per lookup at {args.items} items of key set {args.keyset}, callgrind's cache model "
          f"(D1 {args.d1}, LL {args.ll}), {when}:", "",
          "| index | instructions | data reads | L1 misses | LL misses | lookups |",
          "|---|---:|---:|---:|---:|---:|"]
    md += [f"| {r['impl']} | {r['instructions']:.0f} | {r['data_reads']:.1f} | "
           f"{r['l1_misses']:.1f} | {r['ll_misses']:.2f} | {r['lookups']} |"
           for r in rows]
    os.makedirs(args.out, exist_ok=True)
    name = "lookup-cachesim" + ("" if args.keyset == "even" else f"-{args.keyset}")
    with open(os.path.join(args.out, f"{name}.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with open(os.path.join(args.out, f"{name}.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
