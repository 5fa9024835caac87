#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (tools/vm/vm-run): load skiplist.ko and test_skiplist.ko,
# whose tests run at load and fail it on any failure, unload both, and check
# that the per-height slab caches went away with the module.
set -e
kmod=build/kmod-$(uname -r)/skiplist
if [ ! -f "$kmod/skiplist.ko" ]; then
	echo "guest: no modules for $(uname -r) in $kmod: run 'make check-kernel'"
	exit 1
fi
insmod "$kmod/skiplist.ko"
if ! insmod "$kmod/test_skiplist.ko"; then
	dmesg | grep test_skiplist | tail -20
	exit 1
fi
dmesg | grep 'test_skiplist: .* tests passed' | tail -1
rmmod test_skiplist
rmmod skiplist
if grep -q '^skiplist_leaf' /proc/slabinfo; then
	echo "guest: skiplist slab caches survived rmmod"
	exit 1
fi
echo "guest: load, self-test, unload: ok on $(uname -r)"
