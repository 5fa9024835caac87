#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest for "make demo": load the modules, drive one index
# through slctl, and print what it holds.
kmod=build/kmod-$(uname -r)/skiplist
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
rmmod skiplist_dev && rmmod skiplist
