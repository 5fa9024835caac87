#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Random 4 KiB writes, each followed by fsync, with a record of which the
file system acknowledged; then a check that every acknowledged block reads
back as written.

Usage:
  acked_writes.py layout FILE                write every block, then fsync
  acked_writes.py write FILE SECONDS STATE   write until SECONDS pass
  acked_writes.py verify FILE STATE          read every acknowledged block
  acked_writes.py no-errors STATE            fail if any write or fsync failed

The file is BLOCKS blocks of 4 KiB, laid out first (before any failure
is injected) with one write and an fsync.  Each write puts a block of a pattern (its number, offset and a
sequence number, repeated) at a random block and fsyncs the file; a write
or fsync that fails makes that block's content unknown (either the old
pattern or the new one may be there) until a later write to the same
block is acknowledged.  Errors are counted by errno and printed, so that
a test under failure injection (btrfs/guest-btrfs.sh, failslab) sees
what the file system reported; verify fails on any acknowledged block
that reads back different, or that cannot be read.
"""
import errno
import json
import os
import random
import sys
import time

BLOCK = 4096
BLOCKS = 4096


def pattern(block, seq):
    head = f"block {block} seq {seq} ".encode()
    return (head * (BLOCK // len(head) + 1))[:BLOCK]


def layout(path):
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, b"".join(pattern(b, 0) for b in range(BLOCKS)))
    os.fsync(fd)
    os.close(fd)


def write(path, seconds, state):
    fd = os.open(path, os.O_RDWR)
    # Every block as layout() left it.
    known = {b: 0 for b in range(BLOCKS)}
    errors = {}
    rng = random.Random(1)
    seq = acked = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        seq += 1
        block = rng.randrange(BLOCKS)
        try:
            os.pwrite(fd, pattern(block, seq), block * BLOCK)
            os.fsync(fd)
        except OSError as e:
            name = errno.errorcode.get(e.errno, str(e.errno))
            errors[name] = errors.get(name, 0) + 1
            known.pop(block, None)
            if e.errno == errno.EROFS:
                break
            continue
        known[block] = seq
        acked += 1
    os.close(fd)
    with open(state, "w") as f:
        json.dump({"known": known, "errors": errors}, f)
    print(f"acked_writes: {seq} writes, {acked} acknowledged, errors "
          f"{errors or 'none'}, {len(known)} of {BLOCKS} blocks known")


def verify(path, state):
    with open(state) as f:
        known = json.load(f)["known"]
    bad = unreadable = 0
    fd = os.open(path, os.O_RDONLY)
    for block, seq in known.items():
        block = int(block)
        try:
            data = os.pread(fd, BLOCK, block * BLOCK)
        except OSError as e:
            unreadable += 1
            print(f"acked_writes: block {block}: {os.strerror(e.errno)}")
            continue
        if data != pattern(block, seq):
            bad += 1
            if bad <= 5:
                print(f"acked_writes: block {block} is not the acknowledged "
                      f"write {seq}: {data[:40]!r}")
    os.close(fd)
    print(f"acked_writes: {len(known)} acknowledged blocks read, {bad} "
          f"different, {unreadable} unreadable")
    return 1 if bad or unreadable else 0


def no_errors(state):
    with open(state) as f:
        errors = json.load(f)["errors"]
    if errors:
        print(f"acked_writes: writes or fsyncs failed: {errors}")
    return 1 if errors else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "layout":
        layout(sys.argv[2])
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "write":
        write(sys.argv[2], float(sys.argv[3]), sys.argv[4])
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "verify":
        return verify(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 3 and sys.argv[1] == "no-errors":
        return no_errors(sys.argv[2])
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
