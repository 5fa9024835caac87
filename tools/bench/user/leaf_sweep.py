#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tabulates `make bench-leaf-sweep`: for each keys-per-leaf size, the
skiplist's throughput, key loads per lookup and bytes per item, with
throughput relative to the first size listed.  Writes DIR/leaf-sweep.md
and DIR/leaf-sweep.json next to the per-size runs.

Usage: leaf_sweep.py DIR K [K ...]
"""

import json
import os
import sys


def main():
    top, keys = sys.argv[1], [int(k) for k in sys.argv[2:]]
    rows, out = [], {"sizes": []}
    cells = None
    for k in keys:
        doc = json.load(open(os.path.join(top, f"k{k}", "user.json")))
        ex = json.load(open(os.path.join(top, f"k{k}", "extras.json")))
        res = {(r["workload"], r["items"], r["threads"]): r["ops_per_sec"]
               for r in doc["results"]}
        if cells is None:
            cells = sorted(res)
            base = res
        mem = ex["sizes"][0]
        out["sizes"].append({"leaf_keys": k, "ops_per_sec": {
            f"{w}/{n}/{t}": v for (w, n, t), v in res.items()},
            "key_loads_per_lookup": mem["key_loads_per_lookup"],
            "bytes_per_item": {p: mem["bytes_per_item_" + p] for p in
                               ("ascending", "random", "after_delete_90pct")}})
        rows.append((k, res, mem))
    md = ["# Keys per leaf: measured side by side", "",
          "Throughput in Mops/s (ratio to %d keys per leaf); memory and key loads "
          "at %d items." % (keys[0], rows[0][2]["items"]), "",
          "| workload | items | threads | " + " | ".join(f"K={k}" for k in keys) + " |",
          "|---|---:|---:|" + "---:|" * len(keys)]
    for cell in cells:
        vals = []
        for k, res, _ in rows:
            v = res.get(cell)
            vals.append(f"{v / 1e6:.3g} ({v / base[cell]:.2f})" if v else "n/a")
        md.append(f"| {cell[0]} | {cell[1]} | {cell[2]} | " + " | ".join(vals) + " |")
    md += ["", "| | " + " | ".join(f"K={k}" for k in keys) + " |",
           "|---|" + "---:|" * len(keys)]
    for label, key in (("key loads per lookup", "key_loads_per_lookup"),
                       ("bytes/item, ascending", "bytes_per_item_ascending"),
                       ("bytes/item, random", "bytes_per_item_random"),
                       ("bytes/item, 90% deleted", "bytes_per_item_after_delete_90pct")):
        md.append(f"| {label} | " + " | ".join(f"{m[key]:.1f}" for _, _, m in rows) + " |")
    open(os.path.join(top, "leaf-sweep.md"), "w").write("\n".join(md) + "\n")
    json.dump(out, open(os.path.join(top, "leaf-sweep.json"), "w"), indent=1)
    print("\n".join(md))


if __name__ == "__main__":
    main()
