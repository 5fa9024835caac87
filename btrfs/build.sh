#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make btrfs: btrfs.ko from Debian's linux-source-6.1 with its extent map
# cache on the skiplist (btrfs/extent_map.[ch]), built out of tree
# against Debian's 6.1 headers, with btrfs's sanity tests compiled in
# (they run when the module loads).
#
# Usage: btrfs/build.sh TOP BUILD KREL [KDIR]
#   TOP:  the project; BUILD: its build directory; KREL: the 6.1 release
#   whose headers to build against (the modules of build/kmod-KREL give
#   the skiplist's symbol versions).  Into BUILD/btrfs.
#   KDIR: instead, the build tree of a kernel of our own (debug kernel a,
#   make btrfs-debug), whose release KREL is; into BUILD/btrfs-KREL, and
#   the vermagic must be that of the skiplist's module built against it.
set -euo pipefail
top=$1 build=$2 krel=$3
src_tar=/usr/src/linux-source-6.1.tar.xz
kdir=${4:-/lib/modules/$krel/build}
symvers=$build/kmod-$krel/Module.symvers
out=$build/btrfs
[ -z "${4:-}" ] || out=$build/btrfs-$krel

die() { echo "make btrfs: $*" >&2; exit 1; }
[ -f "$src_tar" ] || die "$src_tar missing: run 'make setup' (linux-source-6.1)"
[ -f "$kdir/Makefile" ] || die "no headers for $krel: run 'make setup'"
[ -f "$symvers" ] || die "$symvers missing: run 'make modules' first"

rm -rf "$out"
mkdir -p "$out"
tar -xJf "$src_tar" -C "$out" --strip-components=1 linux-source-6.1/fs/btrfs
fs=$out/fs/btrfs
cp "$top/btrfs/extent_map.c" "$top/btrfs/extent_map.h" "$fs/"
cp "$top/btrfs/extent_map_lockless_tests.c" "$fs/tests/extent-map-lockless-tests.c"
"$top/btrfs/edit_callers.py" "$fs" | tee "$out/edits.txt"
# The skiplist's header, and the sanity tests (CONFIG_BTRFS_FS_RUN_SANITY_TESTS
# is off in Debian's config; it is a build option of btrfs alone).
cat >> "$fs/Makefile" <<MK

# Added by btrfs/build.sh (skiplist project)
ccflags-y += -I$top/skiplist -DCONFIG_BTRFS_FS_RUN_SANITY_TESTS=1
MK
echo "btrfs.ko for $krel in $fs"
MAKEFLAGS= make -j"$(nproc)" --no-print-directory -C "$kdir" M="$fs" \
	CONFIG_BTRFS_FS=m CONFIG_BTRFS_FS_RUN_SANITY_TESTS=y \
	KBUILD_EXTRA_SYMBOLS="$symvers" modules 2>&1 | tee "$out/build.log" |
	grep -v '^  [A-Z]' | grep -v 'Skipping BTF' || true
[ "${PIPESTATUS[0]}" -eq 0 ] || die "build failed: $out/build.log"
# The project's own files meet its bar: W=1 and sparse, warnings fatal.
touch "$fs/extent_map.c" "$fs/tests/extent-map-lockless-tests.c"
MAKEFLAGS= make --no-print-directory -C "$kdir" M="$fs" \
	CONFIG_BTRFS_FS=m CONFIG_BTRFS_FS_RUN_SANITY_TESTS=y \
	KBUILD_EXTRA_SYMBOLS="$symvers" W=1 C=1 CF=-Wsparse-error \
	extent_map.o tests/extent-map-lockless-tests.o > "$out/sparse.log" 2>&1 ||
	{ cat "$out/sparse.log"; die "W=1 or sparse found a problem in the project's files"; }
! grep -iE 'warning|error' "$out/sparse.log" ||
	die "W=1 or sparse warned about the project's files"
ours=$(modinfo -F vermagic "$fs/btrfs.ko")
if [ -z "${4:-}" ]; then
	theirs=$(modinfo -F vermagic "$(modinfo -n btrfs -k "$krel")")
	[ "$ours" = "$theirs" ] || die "vermagic '$ours' is not Debian's '$theirs'"
else
	theirs=$(modinfo -F vermagic "$build/kmod-$krel/skiplist/skiplist.ko")
	[ "$ours" = "$theirs" ] || die "vermagic '$ours' is not the skiplist's '$theirs'"
fi
echo "make btrfs: $fs/btrfs.ko (vermagic $ours, depends $(modinfo -F depends "$fs/btrfs.ko"))"
