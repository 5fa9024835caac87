#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Make a file of N extents on btrfs cheaply, for make bench-btrfs.

Usage: fragment.py make FILE N [--base K]
       fragment.py count FILE

Writing one extent per 4 KiB costs btrfs about 1.4 ms an extent under
emulation (make btrfs-layout-cost), so a million written extents would
take some 25 minutes per run.  Instead:

 1. the first K blocks (K = --base, 16384 by default) are written with
    every other block first and fsync, then the blocks between and fsync:
    each block is its own extent, and no block is next to its neighbours
    on disk, so btrfs never merges two of them (not in its extent map
    cache either, which merges only maps that are adjacent on disk too);
 2. the file then doubles with FICLONERANGE, [0, L) cloned to [L, 2L),
    until it holds N blocks (the last clone may be partial).  A clone
    shares the data and copies the file extent items, so the new blocks
    are extents of their own, and the block at L (the file's first) is
    not next on disk to the one before it (the base's last).

The file's FIEMAP then lists N extents, which this checks (FIEMAP
reports extents that are adjacent both in the file and on disk as one, so
the count is the number of extents btrfs can never merge).  "count"
only counts the extents of an existing FILE (make check-btrfs uses it).
Prints one line per step with its time, then "extents=N", and exits 1
with a message if any step fails.
"""
import argparse
import fcntl
import os
import struct
import sys
import time

BLOCK = 4096
# _IOW(0x94, 13, struct file_clone_range): linux/fs.h
FICLONERANGE = 0x4020940D
# _IOWR('f', 11, struct fiemap): linux/fs.h
FS_IOC_FIEMAP = 0xC020660B
FIEMAP_FLAG_SYNC = 0x1
FIEMAP_EXTENT_LAST = 0x1
FIEMAP_HEAD = struct.Struct("=QQIIII")  # start length flags mapped count reserved
FIEMAP_EXTENT = struct.Struct("=QQQQQIIII")  # logical physical length r r flags r r r
FIEMAP_BATCH = 1024


def count_extents(fd):
    """The extents FIEMAP lists for the whole file, and their bytes."""
    start, extents, total = 0, 0, 0
    while True:
        buf = bytearray(FIEMAP_HEAD.size + FIEMAP_BATCH * FIEMAP_EXTENT.size)
        FIEMAP_HEAD.pack_into(buf, 0, start, (1 << 64) - 1 - start,
                              FIEMAP_FLAG_SYNC, 0, FIEMAP_BATCH, 0)
        fcntl.ioctl(fd, FS_IOC_FIEMAP, buf)
        mapped = FIEMAP_HEAD.unpack_from(buf, 0)[3]
        if mapped == 0:
            return extents, total
        last = False
        for i in range(mapped):
            e = FIEMAP_EXTENT.unpack_from(buf, FIEMAP_HEAD.size +
                                          i * FIEMAP_EXTENT.size)
            extents += 1
            total += e[2]
            start = e[0] + e[2]
            last = bool(e[5] & FIEMAP_EXTENT_LAST)
        if last:
            return extents, total


def step(what, t0):
    print(f"fragment: {what} in {time.monotonic() - t0:.1f} s", flush=True)
    return time.monotonic()


def write_base(fd, k):
    """Blocks 0, 2, 4, ... then 1, 3, 5, ..., each pass made durable."""
    data = os.urandom(BLOCK * 64)
    for first in (0, 1):
        for b in range(first, k, 2):
            off = (b % 64) * BLOCK
            if os.pwrite(fd, data[off:off + BLOCK], b * BLOCK) != BLOCK:
                raise OSError(f"short write at block {b}")
        os.fsync(fd)


def clone(fd, src, length, dst):
    fcntl.ioctl(fd, FICLONERANGE, struct.pack("=qQQQ", fd, src, length, dst))


def make(path, n, base):
    """The file of @n extents; returns its FIEMAP count and bytes."""
    t0 = time.monotonic()
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        write_base(fd, base)
        t0 = step(f"{base} blocks written", t0)
        have = base
        while have < n:
            more = min(have, n - have)
            clone(fd, 0, more * BLOCK, have * BLOCK)
            have += more
            t0 = step(f"cloned to {have} blocks", t0)
        os.fsync(fd)
        t0 = step("fsync", t0)
        return count_extents(fd)
    finally:
        os.close(fd)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make", help="make FILE with N extents")
    mk.add_argument("file")
    mk.add_argument("n", type=int, help="extents wanted")
    mk.add_argument("--base", type=int, default=16384,
                    help="blocks written before the clones (default 16384)")
    cnt = sub.add_parser("count", help="count the extents of FILE")
    cnt.add_argument("file")
    args = ap.parse_args()
    t0 = time.monotonic()
    try:
        if args.cmd == "count":
            fd = os.open(args.file, os.O_RDONLY)
            try:
                extents, total = count_extents(fd)
            finally:
                os.close(fd)
        else:
            if args.n < 2 or args.base < 2:
                sys.exit("fragment.py: N and --base must be at least 2")
            extents, total = make(args.file, args.n, min(args.base, args.n))
    except OSError as e:
        sys.exit(f"fragment.py: {args.file}: {e}")
    step(f"{extents} extents of {total} bytes counted", t0)
    if args.cmd == "make" and (extents != args.n or total != args.n * BLOCK):
        sys.exit(f"fragment.py: {args.file}: {extents} extents of {total} "
                 f"bytes, wanted {args.n} of {args.n * BLOCK}")
    print(f"extents={extents}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
