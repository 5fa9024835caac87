# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest scripts (tools/vm/guest-*.sh, btrfs/guest-*.sh,
# tools/bench/lsm/guest-bench-lsm-vm.sh):
# how a part fails the run, how each part says how long it took, to show
# where the suite's time goes, how the store's module and disks are found,
# and the kmemleak scan.
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

# kmemleak, on the kernels that have it (debug kernel a): leaks_start
# forgets what boot left behind and switches the automatic scans off
# (every 10 minutes, on a vCPU the tests need; each scan of the guest's
# memory takes half a minute under KASAN), so that one scan, at the end,
# when every module has been unloaded, reports what the run leaked, with
# a backtrace that names the part.  An object must stay unreferenced for
# 5 s before a scan reports it.  leaks WHEN fails the run on a report.
kml=/sys/kernel/debug/kmemleak
leaks_start() {
	[ -w $kml ] || return 0
	echo scan=off > $kml
	echo clear > $kml
}
leaks() {
	[ -w $kml ] || return 0
	echo scan > $kml
	sleep 6
	echo scan > $kml
	if [ -s $kml ]; then
		echo "guest: kmemleak reports, $1:"
		cat $kml
		fail "kmemleak, $1"
	fi
	echo clear > $kml
}

# Fault injection (debug kernel a).  fault_attrs DIR NAME=VALUE...: set
# attributes of one of its debugfs directories (failslab, fail_page_alloc).
fault_attrs() {
	fa_dir=$1
	shift
	for fa_kv in "$@"; do
		echo "${fa_kv#*=}" > "$fa_dir/${fa_kv%%=*}" ||
			fail "cannot set $fa_dir/${fa_kv%%=*}"
	done
}

# The index's leaf caches must carry failslab's flag for its cache
# filter: the flag is read-only in sysfs, and the boot line sets it
# (slub_debug=FZPU;FZPUA,skiplist_leaf_*, see make debug-run).
leaf_caches_failslab() {
	for fa_c in /sys/kernel/slab/skiplist_leaf_*/failslab; do
		[ "$(cat "$fa_c")" = 1 ] ||
			fail "$fa_c is not set: boot with slub_debug=FZPU;FZPUA,skiplist_leaf_*"
	done
}
