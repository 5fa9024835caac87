#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kselftest-style (TAP) tests of sl_iommu.ko, run in the guest as root
# with skiplist.ko and sl_extent.ko loaded and sl_iommu.ko not loaded:
#  - bad module parameters refuse the load, each with its own message;
#  - devices larger than memory refuse the load with ENOMEM and a message
#    naming size_mb, without waking the OOM killer;
#  - with the shadow bitmap on, every backend passes fio verify (crc32c)
#    on sequential and random writes and a 70/30 mix, 16 jobs at queue
#    depth 10 (on kernels without System V IPC, which fio needs, eight
#    concurrent dd writers and readers with the data compared; SLB_NO_FIO=1
#    forces that), and afterwards holds no range, saw no overlap, no bad
#    free, no IOMMU fault and no failed request;
#  - a write past the end is refused, a read there finds the end;
#  - rmmod is refused while a device is open;
#  - load and unload cycles leave no leak report in the kernel log.
#
#   sl_iommu_test.sh MODULE.ko
# SLB_IO_SIZE (default 1M) is what each fio job moves per check;
# SLB_FIO_JOBS (default "seqwrite randwrite mixed") the job files of
# tools/fio each backend runs (debug kernel a runs only mixed: each
# process it starts costs about half a second);
# SLB_DD_BLOCKS (default 256) the 4 KiB blocks each dd writer moves where
# dd stands in for fio.
ko=${1:?usage: sl_iommu_test.sh path/to/sl_iommu.ko}
io_size=${SLB_IO_SIZE:-1M}
fio_jobs=${SLB_FIO_JOBS:-seqwrite randwrite mixed}
dd_blocks=${SLB_DD_BLOCKS:-256}
backends=none,rbtree,iova,maple,skiplist,skiplist-nocache
fio_dir=$(dirname "$0")/../../tools/fio
n=0
failed=0

ok() {
	n=$((n + 1))
	echo "ok $n $*"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n $*"
}

# A check of 2 s or more says how long it took (a TAP comment), so that
# a slow one shows in make check's log.  /proc/uptime, read by the shell:
# each process started costs the debug kernels a good part of a second.
check() {
	local what=$1 t0 t1 _

	shift
	read -r t0 _ < /proc/uptime
	if "$@"; then ok "$what"; else not_ok "$what"; fi
	read -r t1 _ < /proc/uptime
	t0=${t0%.*} t1=${t1%.*}
	[ $((t1 - t0)) -lt 2 ] || echo "# $what: $((t1 - t0)) s"
}

# udev's workers probe a new disk (blkid) and hold it open meanwhile,
# which makes an rmmod right after the load fail with "in use".
settle() {
	command -v udevadm >/dev/null && udevadm settle --timeout=30
	return 0
}

# insmod must fail and the kernel log must name the parameter.
refused() {
	msg=$1
	shift
	dmesg -C
	if insmod "$ko" "$@" 2>/dev/null; then
		rmmod sl_iommu
		return 1
	fi
	dmesg | grep -q "sl_iommu: .*$msg"
}

echo "TAP version 13"
command -v fio >/dev/null || { echo "Bail out! fio missing: run 'make setup'"; exit 1; }
no_fio=${SLB_NO_FIO:-}
if [ ! -d /proc/sysvipc ]; then
	no_fio=1
	echo "# no System V IPC in this kernel, which fio needs: dd verifies instead"
fi
[ -f "$ko" ] || { echo "Bail out! $ko missing"; exit 1; }
# Eight regions of it must fit in the 64 MiB device.
case $dd_blocks in
''|*[!0-9]*) echo "Bail out! SLB_DD_BLOCKS=$dd_blocks is not a number"; exit 1 ;;
esac
if [ "$dd_blocks" -lt 1 ] || [ "$dd_blocks" -gt 2048 ]; then
	echo "Bail out! SLB_DD_BLOCKS=$dd_blocks is not in 1..2048"
	exit 1
fi

check "backend=bogus refused" refused "backend=bogus" backend=bogus
check "nr_devices=17 refused" refused "nr_devices=17" nr_devices=17
check "more backends than nr_devices refused" refused "more devices than" \
	nr_devices=1 backend=none,rbtree
check "size_mb=0 refused" refused "size_mb=0" size_mb=0
check "size_mb=5000 refused" refused "size_mb=5000" size_mb=5000
check "iova_pages=10 refused" refused "iova_pages=10" iova_pages=10
check "queue_depth=0 refused" refused "queue_depth=0" queue_depth=0

# More memory than the machine has: refused up front with ENOMEM and a
# message naming size_mb, and never by the OOM killer.
too_big() {
	local err

	dmesg -C
	if err=$(insmod "$ko" "$@" 2>&1); then
		rmmod sl_iommu
		echo "# insmod $* succeeded"
		return 1
	fi
	echo "$err" | grep -q "Cannot allocate memory" ||
		{ echo "# insmod $*: $err"; return 1; }
	dmesg | grep -q "sl_iommu: size_mb" ||
		{ echo "# no message naming size_mb"; return 1; }
	! dmesg | grep -iE "invoked oom-killer|Out of memory"
}
check "size_mb=4096 nr_devices=16 refused with ENOMEM, no OOM kill" \
	too_big size_mb=4096 nr_devices=16
check "one device of all the memory refused with ENOMEM, no OOM kill" \
	too_big size_mb=$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)

dmesg -C
if ! insmod "$ko" debug=1 backend=$backends; then
	echo "Bail out! insmod $ko debug=1 backend=$backends"
	exit 1
fi

# Waits for every process named, so that none outlives a failed check;
# fails if any of them failed.
wait_all() {
	local pid bad=0

	for pid in "$@"; do
		wait "$pid" || bad=1
	done
	return $bad
}

# fio needs System V shared memory; the debug kernels are built without
# it.  There, eight dd processes write random data to their own regions of
# the device at once (4 KiB direct writes), read it back at once, and each
# region must match: concurrent maps and unmaps with the data checked, but
# not fio's mix of jobs.
dd_verify() {
	local i pids b=$dd_blocks

	head -c $((8 * b * 4096)) /dev/urandom > /tmp/slb-pattern || return 1
	pids=
	for i in 0 1 2 3 4 5 6 7; do
		dd if=/tmp/slb-pattern of="$1" bs=4k skip=$((i * b)) \
			seek=$((i * b)) count=$b oflag=direct conv=notrunc \
			2>/dev/null &
		pids="$pids $!"
	done
	wait_all $pids || return 1
	pids=
	for i in 0 1 2 3 4 5 6 7; do
		dd if="$1" of=/tmp/slb-back.$i bs=4k skip=$((i * b)) \
			count=$b iflag=direct 2>/dev/null &
		pids="$pids $!"
	done
	wait_all $pids || return 1
	for i in 0 1 2 3 4 5 6 7; do
		dd if=/tmp/slb-pattern bs=4k skip=$((i * b)) count=$b \
			2>/dev/null | cmp -s - /tmp/slb-back.$i ||
			{ echo "# $1: region $i read back wrong"; return 1; }
	done
}

# Writes, then reads back and checks every block (no state files left).
# The jobs are threads of one fio process, which start sooner than
# processes.
verify() {
	[ -n "$no_fio" ] && { dd_verify "$1"; return; }
	SLB_DEV=$1 fio --thread --output-format=terse --verify=crc32c \
		--verify_state_save=0 --io_size="$io_size" "$fio_dir/$2.fio" \
		> /tmp/sl_iommu_fio.out 2>&1 ||
		{ grep -v '^3;' /tmp/sl_iommu_fio.out | tail -5; return 1; }
	# Field 5 of a terse line is the job's error number.
	awk -F';' '/^3;/ && $5 != 0 { bad = 1 } END { exit bad }' /tmp/sl_iommu_fio.out
}

counters_clean() {
	local d=/sys/block/$1/sl_iommu c v

	for c in live overlaps bad_frees faults io_errors; do
		v=$(cat $d/$c)
		[ "$v" = 0 ] || { echo "# $1: $c is $v"; return 1; }
	done
	# With the IOMMU off there is nothing to map or check.
	[ "$(cat $d/backend)" = none ] && return 0
	[ "$(cat $d/debug)" = 1 ] || { echo "# $1: shadow checks off"; return 1; }
	[ "$(cat $d/maps)" -gt 0 ] || { echo "# $1: nothing was mapped"; return 1; }
}

for sys in /sys/block/slblk*; do
	disk=${sys##*/}
	b=$(cat $sys/sl_iommu/backend)
	if [ -n "$no_fio" ]; then
		check "$b: 8 dd writers and readers at once, data verified" \
			verify /dev/$disk
	else
		for job in $fio_jobs; do
			check "$b: fio verify $job" verify /dev/$disk $job
		done
	fi
	check "$b: no range held, no overlap, bad free, fault or I/O error" \
		counters_clean $disk
done

# The end of the device: 64 MiB.
check "write past the end refused" sh -c \
	'! dd if=/dev/zero of=/dev/slblk0 bs=4k seek=16384 count=1 oflag=direct 2>/dev/null'
check "read at the end finds the end" sh -c \
	'[ "$(dd if=/dev/slblk0 bs=4k skip=16384 count=1 iflag=direct 2>/dev/null | wc -c)" = 0 ]'
check "last block readable" sh -c \
	'[ "$(dd if=/dev/slblk0 bs=4k skip=16383 count=1 iflag=direct 2>/dev/null | wc -c)" = 4096 ]'

exec 3</dev/slblk4
check "rmmod refused while a device is open" sh -c '! rmmod sl_iommu 2>/dev/null'
exec 3<&-
settle
check "rmmod after the last close" rmmod sl_iommu
check "no leak or overlap reported at unload" sh -c \
	'! dmesg | grep -E "sl_iommu: .*(leaked|twice|freed while free|IOMMU fault)"'

cycle() {
	for i in 1 2 3; do
		insmod "$ko" debug=1 backend=skiplist,iova size_mb=8 || return 1
		dd if=/dev/urandom of=/dev/slblk0 bs=64k count=16 oflag=direct 2>/dev/null || return 1
		dd if=/dev/slblk1 of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null || return 1
		settle
		rmmod sl_iommu || return 1
	done
	! dmesg | grep -E "sl_iommu: .*(leaked|twice|freed while free)"
}
check "three load, I/O and unload cycles" cycle
check "devices gone after unload" sh -c '! ls /dev/slblk* 2>/dev/null'

echo "1..$n"
[ $failed -eq 0 ] && echo "# all $n passed" || echo "# $failed of $n failed"
[ $failed -eq 0 ]
