#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Completes the userspace benchmark report.

Reads DIR/user.json (bench_user), DIR/extras-dir.json (skiplist_extras
as shipped, with the leaf directory) and DIR/extras-skip.json,
DIR/extras-noskip.json (without the directory, with and without the
seed-001 skip in the descent), each measured on every key set
(tools/bench/kernel/keyset.h), and:
  - adds to user.json: "key_loads", "skiplist_memory", "leaf_alloc_free_ns"
    and "goals": each goal's target, its figure on every key set, and its
    verdict on the worst realistic set (every set but the evenly spaced
    one, which is the one distribution where the skiplist's interpolated
    guesses are exact), all computed from the measurements;
  - appends the same as tables to user.md;
  - rewrites the part of README.md between the BENCH-USER markers with the
    goals and a summary table, and the part of the Documentation page
    given with --doc between the BENCH-USER-GOALS markers with the goals,
    so that neither is ever typed by hand.

Usage: report.py DIR [--readme README.md] [--doc Documentation/skiplist.rst]
"""

import argparse
import json
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from rst_table import rst_table  # noqa: E402

BASE = "skiplist"
KEYSETS = ["even", "uniform", "extents", "clustered", "geometric"]
REMOVING = {"delete", "mix90", "mix50", "insert_hole"}
N_BIG = 1048576
N_MID = 65536


def result(doc, keyset, workload, impl, items, threads):
    for r in doc["results"]:
        if (r.get("keyset", "even"), r["workload"], r["impl"], r["items"],
                r["threads"]) == (keyset, workload, impl, items, threads):
            return r["ops_per_sec"]
    return None


def judge(per_set, op, target):
    """The worst realistic figure and whether it meets the target."""
    real = {k: v for k, v in per_set.items() if k != "even" and v is not None}
    if not real:
        return None, None, False
    pick = min if op == ">=" else max
    ks = pick(real, key=real.get)
    v = real[ks]
    return ks, v, (v >= target if op == ">=" else v <= target)


def goal(name, op, target, unit, per_set):
    ks, v, met = judge(per_set, op, target)
    return {"goal": name, "target": f"{op} {target:g}{'x' if unit == 'x' else ''}"
            + (" %" if unit == "%" else "") + (" B" if unit == "B" else ""),
            "op": op, "value": target, "unit": unit, "per_keyset": per_set,
            "worst_realistic": {"keyset": ks, "measured": v}, "met": met}


def fmt(v, unit):
    if v is None:
        return "n/a"
    if unit == "x":
        return f"{v:.2f}x"
    if unit == "%":
        return f"{v:.1f} %"
    return f"{v:.1f} B"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--readme", help="README.md whose BENCH-USER section to rewrite "
                    "(full runs only; quick runs leave it alone)")
    ap.add_argument("--doc", help="a Documentation page whose BENCH-USER-GOALS "
                    "section to rewrite (full runs only)")
    args = ap.parse_args()

    doc = json.load(open(os.path.join(args.dir, "user.json")))
    shipped = json.load(open(os.path.join(args.dir, "extras-dir.json")))
    skip = json.load(open(os.path.join(args.dir, "extras-skip.json")))
    noskip = json.load(open(os.path.join(args.dir, "extras-noskip.json")))
    keysets = [k["name"] for k in doc.get("keysets", [])] or ["even"]
    not_comparable = {i["name"] for i in doc.get("impls", [])
                      if not i.get("concurrent_remove", True)}

    loads = []
    for d, a, b in zip(shipped["sizes"], skip["sizes"], noskip["sizes"]):
        with_skip, without = a["key_loads_per_lookup"], b["key_loads_per_lookup"]
        loads.append({"keyset": d.get("keyset", "even"), "items": a["items"],
                      "with_directory": d["key_loads_per_lookup"],
                      "with_skip": with_skip, "without_skip": without,
                      "fewer_pct": 100 * (1 - with_skip / without)})
    # Memory, inserts and leaf costs as shipped: the directory's bytes included.
    memory = [{"keyset": s.get("keyset", "even"), "items": s["items"],
               "ascending": s["bytes_per_item_ascending"],
               "random": s["bytes_per_item_random"],
               "after_delete_90pct": s["bytes_per_item_after_delete_90pct"]}
              for s in shipped["sizes"]]
    appends = [{"keyset": s.get("keyset", "even"), "items": s["items"],
                "ns_per_insert_ascending": s["insert_ns_ascending"],
                "ns_per_insert_random": s["insert_ns_random"],
                "key_loads_per_insert_ascending": s["key_loads_per_insert_ascending"],
                "key_loads_per_insert_random": s["key_loads_per_insert_random"]}
               for s in shipped["sizes"]]
    doc["sequential_inserts"] = appends
    doc["key_loads"] = loads
    doc["skiplist_memory"] = memory
    doc["skiplist_leaf_keys"] = shipped["leaf_keys"]
    doc["leaf_alloc_free_ns"] = shipped["leaf_alloc_free_ns"]

    items = sorted({r["items"] for r in doc["results"]})
    threads = max(r["threads"] for r in doc["results"])
    n_big = N_BIG if N_BIG in items else items[-1]
    n_mid = N_MID if N_MID in items else items[-1]
    big = max(m["items"] for m in memory)

    def ratio_per_set(workload, items_, peer):
        out = {}
        for ks in keysets:
            ours = result(doc, ks, workload, BASE, items_, threads)
            theirs = result(doc, ks, workload, peer, items_, threads)
            out[ks] = ours / theirs if ours and theirs else None
        return out

    def extra_per_set(rows, field):
        return {ks: next((x[field] for x in rows
                          if x["keyset"] == ks and x["items"] == big), None)
                for ks in keysets}

    goals = [
        goal(f"lookups, {n_big} items, {threads} threads, vs maple", ">=", 1.5, "x",
             ratio_per_set("lookup", n_big, "maple")),
        goal(f"lookups, {n_big} items, {threads} threads, vs rbtree-rw", ">=", 2.5, "x",
             ratio_per_set("lookup", n_big, "rbtree-rw")),
        goal(f"50/50 mix, {n_big} items, {threads} threads, vs maple", ">=", 3.0, "x",
             ratio_per_set("mix50", n_big, "maple")),
        goal(f"lookups, {n_big} items, {threads} threads, vs tbb-map", ">=", 1.5, "x",
             ratio_per_set("lookup", n_big, "tbb-map")),
        goal(f"50/50 mix, {n_mid} items, {threads} threads, vs rbtree-spin", ">=", 3.0, "x",
             ratio_per_set("mix50", n_mid, "rbtree-spin")),
        goal(f"key loads per lookup in the descent, {big} items, fewer with the "
             "seed-001 skip", ">=", 15, "%", extra_per_set(loads, "fewer_pct")),
        goal(f"index bytes per item after ascending inserts, {big} items", "<=", 24, "B",
             extra_per_set(memory, "ascending")),
        goal(f"index bytes per item after random inserts, {big} items", "<=", 32, "B",
             extra_per_set(memory, "random")),
        goal(f"index bytes per item after deleting 90% at random, {big} items",
             "<=", 48, "B", extra_per_set(memory, "after_delete_90pct")),
    ]
    doc["goals"] = goals
    json.dump(doc, open(os.path.join(args.dir, "user.json"), "w"), indent=1)

    def goal_cells(g):
        w = g["worst_realistic"]
        return ([g["goal"], g["target"]] +
                [fmt(g["per_keyset"].get(ks), g["unit"]) for ks in keysets] +
                [f"{fmt(w['measured'], g['unit'])} ({w['keyset']})"
                 if w["keyset"] else "n/a",
                 "yes" if g["met"] else "**no**"])

    goal_head = ["goal", "target"] + keysets + ["worst realistic set", "met there"]
    goal_md = ["| " + " | ".join(goal_head) + " |",
               "|---|---|" + "---:|" * (len(keysets) + 1) + "---|"]
    goal_md += ["| " + " | ".join(goal_cells(g)) + " |" for g in goals]

    extra_md = ["", "## skiplist: key loads per lookup (a random unit of a random extent that is there)", "",
                "As shipped, a lookup starts from the leaf directory; the descent through the towers, "
                "where seed 001's skip applies, is measured in builds without it.", "",
                "| key set | items | as shipped (directory) | descent with the seed-001 skip | descent without | fewer |",
                "|---|---:|---:|---:|---:|---:|"]
    extra_md += [f"| {x['keyset']} | {x['items']} | {x['with_directory']:.2f} | {x['with_skip']:.2f} | "
                 f"{x['without_skip']:.2f} | {x['fewer_pct']:.1f} % |"
                 for x in loads]
    extra_md += ["", f"## skiplist: index bytes per item ({shipped['leaf_keys']} keys per leaf; slots not counted)", "",
                 "| key set | items | ascending inserts | random inserts | then 90% deleted at random |",
                 "|---|---:|---:|---:|---:|"]
    extra_md += [f"| {m['keyset']} | {m['items']} | {m['ascending']:.1f} | {m['random']:.1f} | "
                 f"{m['after_delete_90pct']:.1f} |" for m in memory]
    extra_md += ["", "## skiplist: ascending against random inserts (one thread, fill from empty)", "",
                 "The finger makes appends O(1) amortised: their key loads stay flat as the list grows.", "",
                 "| key set | items | ns/insert ascending | ns/insert random | key loads/insert ascending | key loads/insert random |",
                 "|---|---:|---:|---:|---:|---:|"]
    extra_md += [f"| {a['keyset']} | {a['items']} | {a['ns_per_insert_ascending']:.0f} | "
                 f"{a['ns_per_insert_random']:.0f} | "
                 f"{a['key_loads_per_insert_ascending']:.2f} | {a['key_loads_per_insert_random']:.2f} |"
                 for a in appends]
    extra_md += ["", "## skiplist: one leaf alloc+free, ns (userspace: the shim's per-thread free lists stand in for SLUB's per-CPU path)", "",
                 "| tower height | leaf bytes | per-height cache | malloc/free |", "|---:|---:|---:|---:|"]
    extra_md += [f"| {a['height']} | {a['bytes']} | {a['cache']:.1f} | {a['malloc']:.1f} |"
                 for a in shipped["leaf_alloc_free_ns"]]
    extra_md += ["", "## goals", "",
                 "Each goal's figure on every key set; the verdict is the one on the worst "
                 "realistic set (every set but the evenly spaced one).", ""] + goal_md + [""]
    # Replace what an earlier run of this script added, so it can be rerun.
    marker = "<!-- report.py -->"
    md_path = os.path.join(args.dir, "user.md")
    md = open(md_path).read().split(marker)[0].rstrip("\n")
    with open(md_path, "w") as f:
        f.write(md + "\n\n" + marker + "\n" + "\n".join(extra_md))

    # README: machine, goals, and per workload and key set the skiplist
    # against each peer at the largest size and thread count measured.
    m = doc["machine"]
    impls = []
    for r in doc["results"]:
        if r["impl"] not in impls:
            impls.append(r["impl"])
    peers = [i for i in impls if i != BASE]
    summary = ["| workload | key set | skiplist Mops/s | " +
               " | ".join(f"vs {p}" for p in peers) + " |",
               "|---|---|---:|" + "---:|" * len(peers)]
    for wl in ["lookup", "insert", "delete", "mix90", "mix50", "insert_hole"]:
        for ks in keysets:
            ours = result(doc, ks, wl, BASE, n_big, threads)
            if ours is None:
                continue
            cells = []
            for p in peers:
                theirs = result(doc, ks, wl, p, n_big, threads)
                if p in not_comparable and wl in REMOVING:
                    cells.append("not comparable")
                else:
                    cells.append(f"{ours / theirs:.2f}x" if theirs else "n/a")
            summary.append(f"| {wl} | {ks} | {ours / 1e6:.3g} | " +
                           " | ".join(cells) + " |")
    block = [
        "<!-- BENCH-USER:BEGIN (generated by tools/bench/user/report.py; do not edit) -->",
        f"Measured by `make bench-user` on {m['cpu']}, {m['nproc']} CPUs, "
        f"kernel {m['kernel']}, {m['compiler']}, {m['date']}; "
        f"{m['seconds']} s per timed cell, median of {m.get('rounds', 1)} rounds.",
        "",
        "Each goal's figure on every key set (`even`: evenly spaced keys, "
        "the one distribution where the skiplist's interpolated guesses "
        "are exact; `uniform`: random 64-bit keys; `extents`: files of "
        "contiguous 4 KiB to 1 MiB extents; `clustered`: 90% of the keys in "
        "0.1% of the space; `geometric`: gaps spread over every scale), "
        "and the verdict on the worst realistic set (every set but `even`):",
        "",
    ] + goal_md + ["", f"Skiplist throughput at {n_big} items on {threads} threads and its "
                   "ratio to each peer (all sizes and thread counts are in "
                   "`build/bench/user.md`; not comparable: tbb-map cannot remove "
                   "concurrently, so it runs those workloads on one thread only):", ""] + summary + [
        "<!-- BENCH-USER:END -->"]
    if args.readme and os.path.exists(args.readme):
        text = open(args.readme).read()
        pat = re.compile(r"<!-- BENCH-USER:BEGIN.*?<!-- BENCH-USER:END -->", re.S)
        if pat.search(text):
            text = pat.sub(lambda _: "\n".join(block), text)
            open(args.readme, "w").write(text)

    if args.doc and os.path.exists(args.doc):
        rows = []
        for g in goals:
            w = g["worst_realistic"]
            rows.append([g["goal"].replace("*", "\\*"), g["target"]] +
                        [fmt(g["per_keyset"].get(ks), g["unit"]) for ks in keysets] +
                        [f"{fmt(w['measured'], g['unit'])} ({w['keyset']})"
                         if w["keyset"] else "n/a", "yes" if g["met"] else "**no**"])
        rst = [".. BENCH-USER-GOALS:BEGIN (generated by tools/bench/user/report.py; do not edit)",
               ""] + textwrap.wrap(
                   f"Measured by ``make bench-user`` on {m['cpu']}, {m['nproc']} CPUs, "
                   f"{m['date']}; {m['seconds']} s per timed cell, median of "
                   f"{m.get('rounds', 1)} rounds; the verdict is the one on the worst "
                   "realistic set:", 75) + [""]
        rst += rst_table(["goal", "target"] + keysets + ["worst realistic", "met"], rows)
        rst += ["", ".. BENCH-USER-GOALS:END"]
        text = open(args.doc).read()
        pat = re.compile(r"\.\. BENCH-USER-GOALS:BEGIN.*?\.\. BENCH-USER-GOALS:END", re.S)
        if pat.search(text):
            text = pat.sub(lambda _: "\n".join(rst), text)
            open(args.doc, "w").write(text)
    print("\n".join(goal_md))


if __name__ == "__main__":
    main()
