#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (tools/vm/vm-run): the whole kernel-side suite on the
# running kernel.
#  1. skiplist.ko and sl_extent.ko (the extent map and range allocator),
#     then test_skiplist.ko: its tests, which use both, run at load.
#  2. skiplist_dev.ko and the kselftests of /dev/skiplist; sl_extent_dev.ko
#     and the kselftests of /dev/sl_extent (TAP output).
#  3. sl_iommu.ko: selftests/iommu_demo/sl_iommu_test.sh.
#  4. Observability (tools/vm/guest-observe.sh): the events of a workload
#     through tracefs checked against it, slctl top on the open lists and
#     the IOMMU demo's allocator, trace-cmd, and debugfs reads racing the
#     lists' ends; the trace goes to $SL_OBSERVE_OUT for the host.
#  5. slctl: an extent at the last key listed first by iterate --backward.
#     Life cycle: fill an index through slctl and close it; rmmod of either
#     device module refused while its device is open; unload, reload,
#     unload; the per-height slab caches and the extent cache must be gone
#     afterwards.
# SL_STRESS_SECONDS, SL_FUZZ_IOCTLS, SL_FUZZ_SECONDS and SX_THREADS pass
# through to the selftests; SL_LOAD_TESTS=no leaves test_skiplist.ko out (the debug
# kernels run its tests as a KUnit suite instead).
# With SL_DKMS_DIR (check-vm), the modules are the ones DKMS installed
# for this kernel (make check-dkms), loaded with modprobe
# (tools/vm/guest-dkms.sh), and at the end modprobe's dependencies are
# checked both ways.  Without it, insmod loads those of build/kmod-RELEASE.
kmod=build/kmod-$(uname -r)
tests=build/selftests
slctl=build/tools/slctl
. "$(dirname "$0")/guest-lib.sh"

if [ -n "${SL_DKMS_DIR:-}" ]; then
	. "$(dirname "$0")/guest-dkms.sh"
	dkms_guest_install || exit 1
	took "DKMS's modules found"
fi

# The file of module $1 (skiplist/skiplist for skiplist.ko).
ko() {
	if [ -n "${SL_DKMS_DIR:-}" ]; then
		dkms_ko "${1##*/}"
	else
		echo "$kmod/$1.ko"
	fi
}

# Load module $1 with parameters $2...: modprobe, dependencies included,
# or insmod of the build tree's file.
load() {
	local m=$1

	shift
	if [ -n "${SL_DKMS_DIR:-}" ]; then
		modprobe "${m##*/}" "$@"
	else
		insmod "$(ko "$m")" "$@"
	fi
}

if [ -z "${SL_DKMS_DIR:-}" ]; then
	for m in skiplist/skiplist skiplist/test_skiplist skiplist/skiplist_dev \
		 extent/sl_extent extent/sl_extent_dev iommu_demo/sl_iommu; do
		[ -f "$(ko $m)" ] || { echo "guest: $(ko $m) missing: run 'make check-vm'"; exit 1; }
	done
fi

# sl_extent.ko before test_skiplist.ko, whose tests use it.
load skiplist/skiplist || exit 1
load extent/sl_extent || exit 1
if [ "${SL_LOAD_TESTS:-yes}" = no ]; then
	echo "guest: test_skiplist.ko not loaded (SL_LOAD_TESTS=no: its tests run as KUnit)"
elif load skiplist/test_skiplist; then
	dmesg | sed -n 's/^\[[^]]*\] //; /test_skiplist: .* tests passed/p' | tail -1
	rmmod test_skiplist
else
	dmesg | grep test_skiplist | tail -20
	fail "test_skiplist.ko"
fi
took "test_skiplist.ko"

# A kselftest: exit 4 is a skip (a prerequisite missing, such as
# userfaultfd on the debug kernels), anything else but 0 a failure.
selftest() {
	echo "guest: running $1"
	"$tests/$1"
	case $? in
	0) ;;
	4) echo "guest: $1 skipped" ;;
	*) fail "$1" ;;
	esac
	took "$1"
}

load skiplist/skiplist_dev || exit 1
for t in ioctl_test badinput_test concurrency_test fuzz_test uffd_test \
	 memcg_test; do
	selftest $t
done

load extent/sl_extent_dev || exit 1
for t in em_ioctl_test ra_ioctl_test extent_badinput_test \
	 ra_concurrency_test em_concurrency_test extent_fuzz_test \
	 extent_uffd_test extent_memcg_test; do
	selftest extent/$t
done

# The IOMMU demo: fio verify on every backend, shadow checks, bad
# parameters, unload while open, load cycles (its own TAP output).
echo "guest: running iommu_demo/sl_iommu_test.sh"
selftests/iommu_demo/sl_iommu_test.sh "$(ko iommu_demo/sl_iommu)" ||
	fail "iommu_demo/sl_iommu_test.sh"
took "iommu_demo/sl_iommu_test.sh"

. "$(dirname "$0")/guest-observe.sh"

# Life cycle.
seq 0 19999 | awk '{ print "insert", $1 * 16, 8, $1 }' > /tmp/fill.txt
echo stats >> /tmp/fill.txt
echo check >> /tmp/fill.txt
"$slctl" batch < /tmp/fill.txt | grep -q '^items 20000$' ||
	fail "slctl fill of 20000 extents"
# Backward from the end lists an extent at the last key, first.
printf 'insert 5 1 1\ninsert 0xffffffffffffffff 1 7\niterate --backward\n' |
	"$slctl" batch > /tmp/backward.txt
printf '0xffffffffffffffff 0x1 7\n0x5 0x1 1\n' | cmp -s - /tmp/backward.txt ||
	{ cat /tmp/backward.txt; fail "slctl iterate --backward from the end"; }
exec 3<>/dev/skiplist
if rmmod skiplist_dev 2>/dev/null; then
	fail "rmmod succeeded with /dev/skiplist open"
fi
exec 3>&-
rmmod skiplist_dev || fail "rmmod after the last close"
load skiplist/skiplist_dev || fail "reload"
printf 'insert 1 1 1\nlookup 1\n' | "$slctl" batch > /dev/null ||
	fail "slctl after reload"
rmmod skiplist_dev || fail "second rmmod"
exec 4<>/dev/sl_extent
if rmmod sl_extent_dev 2>/dev/null; then
	fail "rmmod succeeded with /dev/sl_extent open"
fi
if rmmod sl_extent 2>/dev/null; then
	fail "rmmod sl_extent succeeded under sl_extent_dev"
fi
exec 4>&-
rmmod sl_extent_dev || fail "rmmod sl_extent_dev after the last close"
load extent/sl_extent_dev || fail "reload of sl_extent_dev"
[ -c /dev/sl_extent ] || fail "/dev/sl_extent missing after reload"
rmmod sl_extent_dev || fail "second rmmod of sl_extent_dev"
rmmod sl_extent || fail "rmmod sl_extent"
rmmod skiplist || fail "rmmod skiplist"
if grep -qE '^(skiplist_leaf|sl_extent )' /proc/slabinfo; then
	fail "skiplist or extent slab caches survived rmmod"
fi
if [ -n "${SL_DKMS_DIR:-}" ]; then
	dkms_guest_modprobe
	dkms_guest_end
	took "modprobe and modprobe -r"
fi
[ $status -eq 0 ] && echo "guest: kernel suite passed on $(uname -r)"
exit $status
