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

# test_skiplist.ko runs the extent map's tests too: sl_extent.ko first.
LOAD_TESTS = ("insmod {k}/skiplist.ko && insmod {e}/sl_extent.ko && "
              "insmod {k}/test_skiplist.ko; "
              "rmmod test_skiplist; rmmod sl_extent; rmmod skiplist")
CONCURRENCY = ("insmod {k}/skiplist.ko && insmod {k}/skiplist_dev.ko && "
               "export SL_STRESS_SECONDS={s} && build/selftests/concurrency_test; "
               "rmmod skiplist_dev; rmmod skiplist")
# The concurrency test, repeated until KCSAN reports a race in our modules
# or {h} seconds have passed (a script: the guest's command rides on the
# kernel's command line, which has room for 2048 bytes).
KCSAN_HUNT = "tools/debug-kernel/kcsan-hunt.sh {k} {h}"
# How long a KCSAN hunt may go on; a guest boot takes up to ~12 minutes
# on a loaded 2-core host with 4 emulated CPUs.
HUNT_SECONDS = 600
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
    cpus: int = 2         # the guest's vCPUs


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
           [("\t\tsl_tower_unlink(list, victim, flags);\n",
             "\t\tsl_leaf_free(victim);\n\t\tsl_tower_unlink(list, victim, flags);\n")],
           LOAD_TESTS, r"KASAN: .*use-after-free",
           "a merged-away leaf goes back to the slab at once, before its "
           "tower is unlinked and without a grace period"),
    Mutant("kcsan-plain-descent-fence-reads", "b", "skiplist/search.c",
           [("\t\t\tlo = READ_ONCE(link->lo);\n", "\t\t\tlo = link->lo;\n"),
            ("\t\tif (key <= READ_ONCE(leaf->hi))\n\t\t\treturn leaf;\n"
             "\t\tsl_window(list, SL_WIN_SEARCH_HOP, .key = key, .leaf = leaf);\n"
             "\t\t/*\n\t\t * A tower may",
             "\t\tif (key <= leaf->hi)\n\t\t\treturn leaf;\n"
             "\t\tsl_window(list, SL_WIN_SEARCH_HOP, .key = key, .leaf = leaf);\n"
             "\t\t/*\n\t\t * A tower may"),
            ("\tif (leaf) {\n\t\tsl_count(*loads);\n"
             "\t\tif (key <= READ_ONCE(leaf->hi))\n\t\t\treturn leaf;\n",
             "\tif (leaf) {\n\t\tsl_count(*loads);\n"
             "\t\tif (key <= leaf->hi)\n\t\t\treturn leaf;\n")],
           "export SL_CELLS=24; " + KCSAN_HUNT,
           r"BUG: KCSAN: data-race in sl_.*\[skiplist\]",
           "the lockless descent reads the fences (a tower link's cached "
           "lower fence, a leaf's upper fence) without READ_ONCE while "
           "splits, merges and tower updates rewrite them; 4 keys per leaf "
           "and 24 keys in all, so that the eight threads meet on a handful "
           "of leaves, and 4 vCPUs",
           RACE_HEAVY, cpus=4),
    Mutant("kcsan-insert-outside-leaf-lock", "b", "skiplist/insert.c",
           [("\t\tsl_write_begin(&held, leaf);\n\t\tsl_leaf_put(leaf, pos, slot);\n"
             "\t\tsl_write_end(leaf);\n",
             "\t\tsl_unlock_all(&held);\n\t\tsl_leaf_put(leaf, pos, slot);\n")],
           "export SL_CELLS=24; " + KCSAN_HUNT,
           r"BUG: KCSAN: .*\[skiplist\]",
           "an insert that needs no split drops the leaf's lock before "
           "putting the slot, so that writers shift the same leaf at once "
           "(24 keys in all: every writer works on the head leaf); the "
           "assertions on the leaf's count must see it",
           cpus=4),
    Mutant("kmemleak-extent-leaked-on-eexist", "a", "skiplist/dev.c",
           [("\tret = sl_insert(dev->list, &call->ext->slot, GFP_KERNEL_ACCOUNT);\n"
             "\tif (!ret)\n\t\tcall->ext = NULL;\n",
             "\tret = sl_insert(dev->list, &call->ext->slot, GFP_KERNEL_ACCOUNT);\n"
             "\tcall->ext = NULL;\n")],
           IOCTL_THEN_SCAN, r"suspected memory leak",
           "the insert ioctl forgets to free its extent when the insert fails"),
    Mutant("prove-rcu-gap-search-outside-read-section", "a", "skiplist/hole.c",
           [("\trcu_read_lock();\n", ""), ("\trcu_read_unlock();\n", "")],
           LOAD_TESTS, r"suspicious RCU usage",
           "insert_hole's gap search walks the list without rcu_read_lock()"),
]

# Breaks no checker has caught yet: they run only when named.  A writer
# that drops the leaf lock corrupts the leaf (a NULL slot inside the count)
# and the kernel oopses before KCSAN sees two writers at once: most often
# the insert computed its position under the lock and a delete moved the
# slots between its unlock and its put, which no race detector can see,
# since the two never overlap.  See Documentation/testing.rst.
UNPROVEN = {"kcsan-insert-outside-leaf-lock"}


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
    for part in ("skiplist", "extent"):
        shutil.copytree(os.path.join(TOP, part), os.path.join(work, part))
    with open(os.path.join(work, "Kbuild"), "w") as f:
        # The version is the top-level Kbuild's, which this tree leaves out.
        f.write("obj-m += skiplist/ extent/\n"
                "subdir-ccflags-y += -DSL_VERSION='\"mutant\"'\n")
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
                               e=os.path.relpath(work, TOP) + "/extent",
                               s=seconds, h=HUNT_SECONDS)
        start = time.time()
        r = subprocess.run([os.path.join(TOP, "tools/vm/vm-run"), "--no-udev",
                            "--kernel", os.path.join(kdir, "arch/x86/boot/bzImage"),
                            "--timeout", str(1200 + HUNT_SECONDS),
                            "--cpus", str(m.cpus), "--out", out] + append +
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
        hunt = re.search(r"hunt: stopped after \d+ s of concurrency_test", log)
        if r.returncode and hit:
            print(f"prove-checkers: {m.name}: caught on {release} in "
                  f"{took:.0f} s{', ' + hunt.group(0)[6:] if hunt else ''} "
                  f"({m.what}): {hit.group(0).strip()}")
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
