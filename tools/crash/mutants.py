#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Break the store's durability on purpose, one way at a time, and check
that the crash test catches each break ("make check-crash-mutants";
"Crash testing"), and which part catches it: crash_check on the log of
the crash workload, or the guest (lsm_fault_test, the workload's own
checks, the kernel's recovery at sampled points).

Each mutant is one edit of lsm/ in a copy of the module tree, built for
the kernel of CRASH_KERNEL (6.12) into build/kmod-crash-mutant; the guest
then runs tools/vm/guest-crash.sh on it (SL_KMOD_ROOT) and crash_check
judges the log.  The run fails if a mutant survives both.

    tools/crash/mutants.py [--kernel 6.12] [--ops 1500] [--only NAME]
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# name: (file, exact text, replacement, what a crash would lose)
MUTANTS = {
    "commit-no-flush": (
        "lsm/store.c",
        "\t\terr = st->bdev->ops->flush(st->bdev);",
        "\t\terr = 0;",
        "a SYNC write or sync returns without flushing the log block"),
    "commit-no-seal": (
        "lsm/store.c",
        "\tif (!err)\n\t\terr = lsm_wal_seal(&st->wal);\n\tmutex_unlock(&st->write_mutex);",
        "\tmutex_unlock(&st->write_mutex);",
        "a commit flushes without writing the open log block"),
    "edit-no-preflush": (
        "lsm/manifest.c",
        "\t\t\t\t  m->next_block, buf, 1,\n\t\t\t\t  LSM_IO_PREFLUSH | LSM_IO_FUA);",
        "\t\t\t\t  m->next_block, buf, 1,\n\t\t\t\t  LSM_IO_FUA);",
        "a manifest edit can be durable before the run it records"),
    "super-no-preflush": (
        "lsm/super.c",
        "\terr = lsm_bdev_write_sync(bdev, id.blocknr, s, 1,\n\t\t\t\t  LSM_IO_PREFLUSH | LSM_IO_FUA);",
        "\terr = lsm_bdev_write_sync(bdev, id.blocknr, s, 1,\n\t\t\t\t  LSM_IO_FUA);",
        "a superblock can be durable before the manifest it points at"),
}


def run(cmd, **kw):
    print("+", " ".join(cmd) if isinstance(cmd, list) else cmd, flush=True)
    return subprocess.run(cmd, cwd=TOP, **kw)


def release_of(kernel):
    pat = {"6.1": "vmlinuz-6.1.*-amd64", "6.12": "vmlinuz-6.12.*+deb12-amd64"}
    imgs = sorted(glob.glob("/boot/" + pat.get(kernel, "vmlinuz-" + kernel)))
    if not imgs:
        sys.exit(f"mutants: no kernel {kernel} in /boot")
    return os.path.basename(imgs[-1])[len("vmlinuz-"):]


def build(release, name):
    """The module tree with mutant @name applied, as the top Makefile's
    kmod macro lays it out, with lsm/ copied instead of linked."""
    out = os.path.join(TOP, "build", "kmod-crash-mutant")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "tools", "bench"))
    shutil.copy(os.path.join(TOP, "Kbuild"), out)
    shutil.copy(os.path.join(TOP, "VERSION"), out)
    for d in ("skiplist", "extent", "iommu_demo"):
        run(["cp", "-rsf", os.path.join(TOP, d), out + "/"], check=True)
    run(["cp", "-rsf", os.path.join(TOP, "tools/bench/kernel"),
         os.path.join(out, "tools/bench/")], check=True)
    run(["cp", "-rsf", os.path.join(TOP, "tools/peers"),
         os.path.join(out, "tools/")], check=True)
    shutil.copytree(os.path.join(TOP, "lsm"), os.path.join(out, "lsm"))
    path, old, new, _ = MUTANTS[name]
    src = os.path.join(out, path)
    text = open(src).read()
    if text.count(old) != 1:
        sys.exit(f"mutants: {name}: the text to change is not in {path} once "
                 "(the source moved on: update tools/crash/mutants.py)")
    open(src, "w").write(text.replace(old, new))
    r = run(["make", "-C", f"/lib/modules/{release}/build", f"M={out}",
             "modules"], stdout=subprocess.DEVNULL)
    if r.returncode:
        sys.exit(f"mutants: {name}: the module does not build")
    return os.path.relpath(out, TOP)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="6.12")
    ap.add_argument("--ops", type=int, default=1500)
    ap.add_argument("--only")
    args = ap.parse_args()
    release = release_of(args.kernel)
    out = os.path.join(TOP, "build", "vm", "crash-mutant")
    crash = os.path.join(TOP, "build", "crash")
    survived = []
    for name, (_, _, _, what) in MUTANTS.items():
        if args.only and name != args.only:
            continue
        print(f"mutants: {name}: {what}", flush=True)
        kroot = build(release, name)
        os.makedirs(out, exist_ok=True)
        drives = []
        for img, size, serial in (("data", 64, "slcrdata"),
                                  ("log", 4096, "slcrlog"),
                                  ("base", 64, "slcrbase"),
                                  ("cow", 64, "slcrcow"),
                                  ("fault", 64, "slfault")):
            p = os.path.join(out, img + ".img")
            if os.path.exists(p):
                os.unlink(p)
            with open(p, "wb") as f:
                f.truncate(size << 20)
            drives += ["--drive", f"{p}:{serial}"]
        guest = run([os.path.join(TOP, "tools/vm/vm-run"), "--kernel",
                     args.kernel, "--timeout", "1200", "--cache", "unsafe",
                     "--out", out] + drives +
                    ["--", f"SL_KMOD_ROOT={kroot} SL_CRASH_OUT={out} "
                     f"SL_CRASH_OPS={args.ops} SL_CRASH_SAMPLES=1 "
                     "SL_CRASH_SEED=7 tools/vm/guest-crash.sh"],
                    capture_output=True, text=True)
        fails = [line for line in guest.stdout.splitlines()
                 if "FAIL" in line or line.startswith("not ok")]
        caught = []
        if guest.returncode:
            caught.append("in the guest: " + "; ".join(fails[:3]))
        if os.path.exists(os.path.join(out, "journal.txt")):
            check = run([os.path.join(crash, "crash_check"), "--log",
                         os.path.join(out, "log.img"), "--journal",
                         os.path.join(out, "journal.txt"), "--flush-trace",
                         os.path.join(out, "flush-trace.txt"), "--dumps",
                         os.path.join(out, "dumps"), "--variants", "2"],
                        capture_output=True, text=True)
            first = [line for line in check.stderr.splitlines()
                     if "FAIL" in line]
            if check.returncode:
                caught.append("by crash_check: " +
                              (first[0] if first else "?"))
            else:
                print(f"mutants: {name}: crash_check passes it: "
                      f"{check.stdout.strip()}", flush=True)
        if caught:
            for c in caught:
                print(f"mutants: {name}: caught {c}", flush=True)
        else:
            print(f"mutants: {name}: SURVIVED", flush=True)
            survived.append(name)
    for img in glob.glob(os.path.join(out, "*.img")):
        os.unlink(img)
    if survived:
        sys.exit(f"mutants: survived: {', '.join(survived)}")
    print("mutants: every mutant caught")


if __name__ == "__main__":
    main()
