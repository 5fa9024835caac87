#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (tools/vm/vm-run with the drives "make check-vm-lsm"
# gives it): the store's kernel suite on the running kernel.
#  1. skiplist.ko and sl_extent.ko unless loaded, libcrc32c (a module in
#     Debian's kernels: insmod does not resolve dependencies), sl_lsm.ko.
#  2. The kselftests of /dev/sl_lsm (selftests/lsm) on the scratch disk
#     whose virtio serial is "sllsm", and the too-small refusal on the one
#     whose serial is "sllsmsmall".
#  3. selftests/lsm/lsm_lifecycle.sh: slctl lsm, the module reference of
#     an attached store, rmmod and insmod with the data read back.
#  4. sl_lsm.ko unloaded (vm-run's log check catches what it leaves).
# Given a disk whose serial is "sllsmprev", it first reads back
# (lsm_lifecycle.sh --after-reboot) what an earlier boot's lifecycle left
# there: make check-vm-lsm passes 6.1's disk to the 6.12 boot.
# SL_LSM_SECONDS and SL_LSM_THREADS pass through to the concurrency test;
# SL_KMOD_ROOT names another tree of modules than make's.
kroot=${SL_KMOD_ROOT:-build/kmod-$(uname -r)}
kmod=$kroot/skiplist
ekmod=$kroot/extent
lkmod=$kroot/lsm
tests=build/selftests/lsm
. "$(dirname "$0")/guest-lib.sh"

disk=$(disk_by_serial sllsm) ||
	{ echo "guest: no virtio disk with serial sllsm: run 'make check-vm-lsm'"; exit 1; }
small=$(disk_by_serial sllsmsmall) || small=
for f in "$kmod/skiplist.ko" "$ekmod/sl_extent.ko" "$lkmod/sl_lsm.ko"; do
	[ -f "$f" ] || { echo "guest: $f missing: run 'make check-vm-lsm'"; exit 1; }
done

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
[ -d /sys/module/skiplist ] || insmod "$kmod/skiplist.ko" || exit 1
[ -d /sys/module/sl_extent ] || insmod "$ekmod/sl_extent.ko" || exit 1
# crc32c() is libcrc32c's: built in, already loaded, or a module to load.
grep -qw crc32c /proc/kallsyms || modprobe libcrc32c || exit 1
insmod "$lkmod/sl_lsm.ko" || exit 1
[ -c /dev/sl_lsm ] || fail "/dev/sl_lsm missing after insmod"
[ "$(stat -c %a /dev/sl_lsm)" = 600 ] || fail "/dev/sl_lsm is not 0600"
took "loading sl_lsm.ko"

if prev=$(disk_by_serial sllsmprev); then
	echo "guest: reading back on $prev what an earlier boot left there"
	selftests/lsm/lsm_lifecycle.sh "$lkmod/sl_lsm.ko" "$prev" --after-reboot ||
		fail "lsm/lsm_lifecycle.sh --after-reboot"
	took "the read back after a reboot"
fi

for t in lsm_ioctl_test lsm_badinput_test lsm_concurrency_test; do
	echo "guest: running lsm/$t on $disk"
	SL_LSM_DISK=$disk SL_LSM_SMALL_DISK=$small "$tests/$t"
	case $? in
	0) ;;
	4) fail "lsm/$t skipped" ;;
	*) fail "lsm/$t" ;;
	esac
	took "lsm/$t"
done

echo "guest: running lsm/lsm_lifecycle.sh on $disk"
selftests/lsm/lsm_lifecycle.sh "$lkmod/sl_lsm.ko" "$disk" ||
	fail "lsm/lsm_lifecycle.sh"
took "lsm/lsm_lifecycle.sh"

rmmod sl_lsm || fail "rmmod sl_lsm"
[ -e /dev/sl_lsm ] && fail "/dev/sl_lsm survived rmmod"
[ $status -eq 0 ] && echo "guest: store suite passed on $(uname -r)"
exit $status
