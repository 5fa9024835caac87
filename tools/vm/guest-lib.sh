# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest scripts (guest-selftests.sh, guest-debug.sh,
# guest-lsm.sh, tools/bench/lsm/guest-bench-lsm-vm.sh): how a part fails
# the run, how each part says how long it took, to show where the suite's
# time goes, and how the store's module and disks are found.
status=0

fail() {
	echo "guest: FAIL: $*"
	status=1
}

t0=$(date +%s)
took() {
	echo "guest: $1 took $(( $(date +%s) - t0 )) s"
	t0=$(date +%s)
}

# The virtio disk with serial $1, as /dev/NAME (vm-run's --drive IMAGE:SERIAL).
disk_by_serial() {
	for d in /sys/block/vd*; do
		[ "$(cat "$d/serial" 2> /dev/null)" = "$1" ] &&
			{ echo "/dev/${d##*/}"; return 0; }
	done
	return 1
}

# sl_lsm.ko from the module tree $1 (build/kmod-RELEASE), with what it
# needs: skiplist.ko and sl_extent.ko unless loaded, libcrc32c (a module
# in Debian's kernels: insmod does not resolve dependencies), and debugfs
# for its counters.  Says which file is missing, or fails as insmod does.
lsm_load() {
	for f in "$1/skiplist/skiplist.ko" "$1/extent/sl_extent.ko" "$1/lsm/sl_lsm.ko"; do
		[ -f "$f" ] || { echo "guest: $f missing"; return 1; }
	done
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	[ -d /sys/module/skiplist ] || insmod "$1/skiplist/skiplist.ko" || return 1
	[ -d /sys/module/sl_extent ] || insmod "$1/extent/sl_extent.ko" || return 1
	# crc32c() is libcrc32c's: built in, already loaded, or a module to load.
	grep -qw crc32c /proc/kallsyms || modprobe libcrc32c || return 1
	insmod "$1/lsm/sl_lsm.ko" || return 1
	[ -c /dev/sl_lsm ] || { echo "guest: /dev/sl_lsm missing after insmod"; return 1; }
}
