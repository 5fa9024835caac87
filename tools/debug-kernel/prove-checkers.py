#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Proves the debug kernels' checkers see our code: breaks the modules on
purpose, one way at a time, builds the broken copy against the debug
kernel that should catch it, runs the part of the suite that exercises it
in a VM, and checks that the run fails with the named checker's report.
A break that no checker reports, or whose target text no longer exists,
fails the whole run.

Usage: prove-checkers.py [NAME ...]     (default: all but UNPROVEN)
Needs the debug kernels built (make check-debug builds them).
"""

import os
import re
import shutil
import subprocess
import sys
import time
from typing import NamedTuple

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(TOP, "build", "debug-mutants")

LOAD_TESTS = ("insmod {k}/skiplist.ko && insmod {k}/test_skiplist.ko; "
              "rmmod test_skiplist; rmmod skiplist")
CONCURRENCY = ("insmod {k}/skiplist.ko && insmod {k}/skiplist_dev.ko && "
               "export SL_STRESS_SECONDS={s} && build/selftests/concurrency_test; "
               "rmmod skiplist_dev; rmmod skiplist")
# KCSAN watches one access in 4000 by default; a race the concurrency test
# makes a few times a second needs it to watch far more often.
KCSAN_EAGER = "echo 20 > /sys/module/kcsan/parameters/skip_watch; "
IOCTL_THEN_SCAN = ("insmod {k}/skiplist.ko && insmod {k}/skiplist_dev.ko && "
                   "build/selftests/ioctl_test; rmmod skiplist_dev; "
                   "rmmod skiplist; mount -t debugfs none /sys/kernel/debug; "
                   "echo scan > /sys/kernel/debug/kmemleak; sleep 6; "
                   "echo scan > /sys/kernel/debug/kmemleak; "
                   "cat /sys/kernel/debug/kmemleak")


class Mutant(NamedTuple):
    name: str
    variant: str          # the debug kernel that must catch it
    path: str             # the file it breaks
    edits: list           # (text, replacement) pairs, each text found once
    guest: str            # what runs in the guest
    report: str           # regex of the report that must appear
    what: str
    kcflags: str = ""     # extra compiler flags for the broken modules


# The race-heavy shape of the userspace tests: 4 keys per leaf, so that
# nearly every insert splits and every delete merges.
RACE_HEAVY = "-DSL_LEAF_KEYS=4"

MUTANTS = [
    Mutant("lockdep-lock-inside-write-section", "a", "skiplist/insert.c",
           [("\tsl_lock_leaf(held, right);\n\n\tsl_write_begin(held, leaf);\n",
             "\tsl_write_begin(held, leaf);\n\tsl_lock_leaf(held, right);\n")],
           LOAD_TESTS, r"possible circular locking dependency",
           "a split locks the new leaf inside the old leaf's write section, "
           "while a merge opens a write section inside the second leaf's lock"),
    Mutant("kasan-leaf-freed-before-unlink", "a", "skiplist/delete.c",
           [("\t\tsl_tower_unlink(list, victim);\n\t\tsl_leaf_free_rcu(victim);\n",
             "\t\tsl_leaf_free(victim);\n\t\tsl_tower_unlink(list, victim);\n")],
           LOAD_TESTS, r"KASAN: .*use-after-free",
           "a merged-away leaf goes back to the slab at once, before its "
           "tower is unlinked and without a grace period"),
    Mutant("kcsan-plain-link-fence-read", "b", "skiplist/search.c",
           [("\t\t\tlo = READ_ONCE(link->lo);\n", "\t\t\tlo = link->lo;\n")],
           KCSAN_EAGER + CONCURRENCY, r"KCSAN: data-race",
           "the lockless descent reads the fence cached in a tower link "
           "without READ_ONCE while tower links and unlinks rewrite it (4 keys "
           "per leaf, so that nearly every update changes a tower)",
           RACE_HEAVY),
    Mutant("kcsan-plain-upper-fence-read", "b", "skiplist/search.c",
           [("\t\tif (key <= READ_ONCE(leaf->hi))\n\t\t\treturn leaf;",
             "\t\tif (key <= leaf->hi)\n\t\t\treturn leaf;")],
           KCSAN_EAGER + "export SL_CELLS=24; " + CONCURRENCY,
           r"KCSAN: data-race",
           "the lockless descent reads a leaf's upper fence without READ_ONCE "
           "while splits and merges rewrite it (4 keys per leaf and 24 keys "
           "in all, so that the threads meet on a handful of leaves)",
           RACE_HEAVY),
    Mutant("kmemleak-extent-leaked-on-eexist", "a", "skiplist/dev.c",
           [("\tret = sl_insert(&dev->list, &ext->slot, GFP_KERNEL_ACCOUNT);\n"
             "\tif (ret)\n\t\tkfree(ext);\n",
             "\tret = sl_insert(&dev->list, &ext->slot, GFP_KERNEL_ACCOUNT);\n")],
           IOCTL_THEN_SCAN, r"suspected memory leak",
           "the insert ioctl forgets to free its extent when the insert fails"),
    Mutant("prove-rcu-gap-search-outside-read-section", "a", "skiplist/hole.c",
           [("\trcu_read_lock();\n", ""), ("\trcu_read_unlock();\n", "")],
           LOAD_TESTS, r"suspicious RCU usage",
           "insert_hole's gap search walks the list without rcu_read_lock()"),
]

# Breaks no checker has caught yet: they run only when named.  KCSAN treats
# every access inside a seqcount section as atomic (the retry discards
# what it read), and nearly all of the index's racy accesses sit inside
# one; the few outside (the descent's link fences) race with tower updates
# too rarely for KCSAN's watchpoints in a 2-vCPU emulated guest, even
# watching every 20th access, with 4 keys per leaf and with the threads
# confined to 24 keys.  See Documentation/testing.rst.
UNPROVEN = {"kcsan-plain-link-fence-read", "kcsan-plain-upper-fence-read"}


def debug_kernel(variant):
    out = subprocess.run([os.path.join(TOP, "tools/debug-kernel/build.sh"),
                          variant], stdout=subprocess.PIPE, check=True,
                         text=True).stdout.split()
    kdir = out[-1]
    with open(os.path.join(kdir, "include/config/kernel.release")) as f:
        return kdir, f.read().strip()


def build(m, kdir):
    work = os.path.join(BUILD, m.name)
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(os.path.join(TOP, "skiplist"), os.path.join(work, "skiplist"))
    shutil.copy(os.path.join(TOP, "Kbuild"), work)
    target = os.path.join(work, m.path)
    with open(target) as f:
        text = f.read()
    for old, new in m.edits:
        if text.count(old) != 1:
            return None, "target text not found once: update the mutant"
        text = text.replace(old, new)
    with open(target, "w") as f:
        f.write(text)
    extra = ["KCFLAGS=" + m.kcflags] if m.kcflags else []
    r = subprocess.run(["make", "-C", kdir, "M=" + work, "modules"] + extra,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode:
        return None, "does not build:\n" + r.stdout[-2000:]
    return work, None


def main():
    names = sys.argv[1:]
    unknown = set(names) - {m.name for m in MUTANTS}
    if unknown:
        sys.exit("prove-checkers: unknown mutant(s): " + " ".join(sorted(unknown)))
    seconds = os.environ.get("SL_STRESS_SECONDS", "30")
    failed = 0
    for m in MUTANTS:
        if (names and m.name not in names) or (not names and m.name in UNPROVEN):
            continue
        kdir, release = debug_kernel(m.variant)
        work, err = build(m, kdir)
        if err:
            print(f"prove-checkers: {m.name}: {err}")
            failed += 1
            continue
        out = os.path.join(work, "vm")
        # After its first report a broken tree may loop on freed memory:
        # the guest panics at the first KASAN report instead.
        append = ["--append", "kasan.fault=panic"] if m.variant == "a" else []
        guest = m.guest.format(k=os.path.relpath(work, TOP) + "/skiplist",
                               s=seconds)
        start = time.time()
        r = subprocess.run([os.path.join(TOP, "tools/vm/vm-run"),
                            "--kernel", os.path.join(kdir, "arch/x86/boot/bzImage"),
                            "--timeout", "1200", "--out", out] + append +
                           ["--", guest],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        took = time.time() - start
        log = r.stdout
        for kept in ("dmesg.txt", "console.txt"):
            if os.path.exists(os.path.join(out, kept)):
                with open(os.path.join(out, kept), errors="replace") as f:
                    log += f.read()
        hit = re.search(".*" + m.report + ".*", log)
        if r.returncode and hit:
            print(f"prove-checkers: {m.name}: caught on {release} in "
                  f"{took:.0f} s ({m.what}): {hit.group(0).strip()}")
        else:
            print(f"prove-checkers: {m.name}: NOT caught on {release} "
                  f"(vm-run exit {r.returncode}, '{m.report}' "
                  f"{'found' if hit else 'not found'}); log in {out}")
            failed += 1
    if failed:
        sys.exit(f"prove-checkers: {failed} mutant(s) not caught")
    print("prove-checkers: every checker caught its mutant")


if __name__ == "__main__":
    main()
