#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest for "make demo": load the modules, drive one index
# through slctl, and print what it holds; then a store on a disk image:
# format, write, detach, attach, read back.
kmod=build/kmod-$(uname -r)/skiplist
ekmod=build/kmod-$(uname -r)/extent
lkmod=build/kmod-$(uname -r)/lsm
slctl=build/tools/slctl
insmod "$kmod/skiplist.ko" && insmod "$kmod/skiplist_dev.ko" || exit 1
echo "== /dev/skiplist on $(uname -r): one index, driven by 'slctl batch'"
sed 's/^/   > /' <<'CMDS'
insert 0x1000 0x100 1      # [0x1000, 0x1100), value 1
insert 0x2000 0x80 2
insert 0x1080 0x10 3       # overlaps the first: EEXIST
lookup 0x10ff              # the extent holding 0x10ff
overlap 0x1100 0x3000      # the first extent meeting [0x1100, 0x3000)
hole 0x200 --align 0x1000 --min 0x1000   # a free, aligned range
iterate
stats
check
CMDS
{
	echo 'insert 0x1000 0x100 1'
	echo 'insert 0x2000 0x80 2'
	echo 'insert 0x1080 0x10 3'
	echo 'lookup 0x10ff'
	echo 'overlap 0x1100 0x3000'
	echo 'hole 0x200 --align 0x1000 --min 0x1000'
	echo 'iterate'
	echo 'stats'
	echo 'check'
} | "$slctl" batch 2>&1
echo "== 100000 random extents, then the stats again"
awk 'BEGIN { srand(1); for (i = 0; i < 100000; i++)
	printf "insert %.0f 8 %d\n", int(rand() * 2^40) * 16, i; print "stats" }' |
	"$slctl" batch 2>/dev/null | tail -6
rmmod skiplist_dev && rmmod skiplist || exit 1

# The store: a disk image make demo attaches (serial "sldemo").
. "$(dirname "$0")/guest-lib.sh"
disk=$(disk_by_serial sldemo) || { echo "guest: no disk sldemo"; exit 1; }
insmod "$kmod/skiplist.ko" && insmod "$ekmod/sl_extent.ko" || exit 1
grep -qw crc32c /proc/kallsyms || modprobe libcrc32c || exit 1
insmod "$lkmod/sl_lsm.ko" || exit 1
echo "== /dev/sl_lsm: a store on $disk, a 64 MiB disk image, driven by 'slctl lsm'"
lsm() {
	echo "   \$ slctl lsm $*"
	"$slctl" lsm "$@" 2>&1 | sed 's/^/     /'
}
lsm format "$disk"
cmds='put 0x1000 0x100 hello
put 0x1040 0x10 patch
delete 0x10f0 0x10
put 7 1 seven --sync
get 0x1000 0x1045 0x10f5 7'
echo "   one attach, five commands (a range put, a put inside it, a punch, a durable point put, lookups):"
echo "$cmds" | sed 's/^/   > /'
echo "$cmds" | "$slctl" lsm --disk "$disk" batch 2>&1 | sed 's/^/     /'
echo "   detached (slctl exited); attached again by the next command:"
lsm --disk "$disk" scan
lsm --disk "$disk" get 0x1000 0x1045 0x10f5 7
rmmod sl_lsm && rmmod sl_extent && rmmod skiplist
