#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in a debug kernel's guest (make check-debug): the whole kernel suite
# (tools/vm/guest-selftests.sh) under lockdep, PROVE_RCU and KASAN (kernel
# a) or KCSAN (kernel b), then kmemleak scans; on kernel a also a failslab
# run that fails allocations from the index's own slab caches at random,
# where the selftests must keep their invariants (every failure surfaces as
# -ENOMEM, the index stays consistent) and nothing may leak.
variant=${1:-a}
kmod=build/kmod-$(uname -r)/skiplist
tests=build/selftests
kml=/sys/kernel/debug/kmemleak
status=0

fail() {
	echo "guest: FAIL: $*"
	status=1
}

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# kmemleak: forget what boot left behind, then scan after each part.
leaks() {
	[ -w $kml ] || return 0
	echo scan > $kml
	sleep 2
	echo scan > $kml
	if [ -s $kml ]; then
		echo "guest: kmemleak reports, $1:"
		cat $kml
		fail "kmemleak, $1"
	fi
	echo clear > $kml
}
[ -w $kml ] && echo clear > $kml

tools/vm/guest-selftests.sh || fail "kernel suite"
leaks "after the kernel suite and unload"

if [ "$variant" = a ]; then
	fs=/sys/kernel/debug/failslab
	echo "guest: failslab on the skiplist_leaf caches, 5% of allocations"
	insmod "$kmod/skiplist.ko" && insmod "$kmod/skiplist_dev.ko" || exit 1
	echo Y > $fs/cache-filter
	for c in /sys/kernel/slab/skiplist_leaf_*/failslab; do
		echo 1 > "$c"
	done
	echo 5 > $fs/probability
	echo 1 > $fs/interval
	echo -1 > $fs/times
	echo 0 > $fs/space
	echo 0 > $fs/verbose
	SL_ALLOW_ENOMEM=1 "$tests/concurrency_test" || fail "concurrency under failslab"
	SL_FUZZ_IOCTLS=${SL_FUZZ_IOCTLS:-100000} "$tests/fuzz_test" ||
		fail "fuzzer under failslab"
	echo 0 > $fs/probability
	rmmod skiplist_dev && rmmod skiplist || fail "unload after failslab"
	leaks "after the failslab run and unload"
fi
[ $status -eq 0 ] && echo "guest: debug suite passed on $(uname -r)"
exit $status
