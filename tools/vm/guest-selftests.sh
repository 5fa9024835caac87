#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (tools/vm/vm-run): the whole kernel-side suite on the
# running kernel.
#  1. skiplist.ko, then test_skiplist.ko: its tests run at load.
#  2. skiplist_dev.ko and the kselftests of /dev/skiplist (TAP output).
#  3. Life cycle: fill an index through slctl and close it; rmmod refused
#     while a descriptor is open; unload, reload, unload; the per-height
#     slab caches must be gone afterwards.
# SL_STRESS_SECONDS and SL_FUZZ_IOCTLS pass through to the selftests;
# SL_LOAD_TESTS=no leaves test_skiplist.ko out (the debug kernels run its
# tests as a KUnit suite instead).
kmod=build/kmod-$(uname -r)/skiplist
tests=build/selftests
slctl=build/tools/slctl
status=0

fail() {
	echo "guest: FAIL: $*"
	status=1
}

for f in skiplist.ko test_skiplist.ko skiplist_dev.ko; do
	[ -f "$kmod/$f" ] || { echo "guest: $kmod/$f missing: run 'make check-vm'"; exit 1; }
done

insmod "$kmod/skiplist.ko" || exit 1
if [ "${SL_LOAD_TESTS:-yes}" = no ]; then
	echo "guest: test_skiplist.ko not loaded (SL_LOAD_TESTS=no: its tests run as KUnit)"
elif insmod "$kmod/test_skiplist.ko"; then
	dmesg | sed -n 's/^\[[^]]*\] //; /test_skiplist: .* tests passed/p' | tail -1
	rmmod test_skiplist
else
	dmesg | grep test_skiplist | tail -20
	fail "test_skiplist.ko"
fi

insmod "$kmod/skiplist_dev.ko" || exit 1
for t in ioctl_test badinput_test concurrency_test fuzz_test; do
	echo "guest: running $t"
	"$tests/$t" || fail "$t"
done

# Life cycle.
seq 0 19999 | awk '{ print "insert", $1 * 16, 8, $1 }' > /tmp/fill.txt
echo stats >> /tmp/fill.txt
echo check >> /tmp/fill.txt
"$slctl" batch < /tmp/fill.txt | grep -q '^items 20000$' ||
	fail "slctl fill of 20000 extents"
exec 3<>/dev/skiplist
if rmmod skiplist_dev 2>/dev/null; then
	fail "rmmod succeeded with /dev/skiplist open"
fi
exec 3>&-
rmmod skiplist_dev || fail "rmmod after the last close"
insmod "$kmod/skiplist_dev.ko" || fail "reload"
printf 'insert 1 1 1\nlookup 1\n' | "$slctl" batch > /dev/null ||
	fail "slctl after reload"
rmmod skiplist_dev || fail "second rmmod"
rmmod skiplist || fail "rmmod skiplist"
if grep -q '^skiplist_leaf' /proc/slabinfo; then
	fail "skiplist slab caches survived rmmod"
fi
[ $status -eq 0 ] && echo "guest: kernel suite passed on $(uname -r)"
exit $status
