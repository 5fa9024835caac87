#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest ("make check-crash", tools/vm/vm-run with the drives
# it gives): the store's crash test on the kernel's I/O path, and its
# fault injection (Documentation/lsm.rst, "Crash testing").
#  1. sl_lsm.ko, dm-log-writes, dm-snapshot and dm-flakey.
#  2. The workload (selftests/lsm/lsm_crash_workload run) on a
#     log-writes target over the disk "slcrdata", logging to "slcrlog":
#     its journal goes to $SL_CRASH_OUT/journal.txt, and a mark after
#     every operation into the log.  Meanwhile the kernel's block trace
#     records when each flush of the target's device is queued, passed
#     on to the disk below (remapped, just after the target took its
#     batch of writes) and completes ($SL_CRASH_OUT/flush-trace.txt):
#     dm-log-writes logs two flushes in flight at once wrongly, and the
#     replayer needs their times to put it right
#     (tools/crash/logwrites.h).  The host replays
#     and judges the log afterwards (tools/crash/crash_check).
#  3. The kernel's own recovery at SL_CRASH_SAMPLES replay points spread
#     over the log: lw_replay (tools/crash) replays the log, in the order
#     the flush trace gives, onto "slcrbase" (zeros at boot) up to each
#     point in turn, and sl_lsm.ko attaches
#     the store through a transient dm-snapshot over it, whose writes go
#     to "slcrcow", so the base stays as replayed; the state it recovers
#     goes to $SL_CRASH_OUT/dumps/dump-ENTRY.txt for the host to judge.
#  4. selftests/lsm/lsm_fault_test on a device-mapper device over
#     "slfault" whose table it swaps: failing writes, flushes and reads.
# SL_CRASH_OPS or SL_CRASH_SECONDS size the workload, SL_CRASH_SEED seeds
# it, SL_CRASH_MEMTABLE is its memtable; SL_KMOD_ROOT names another tree
# of modules than make's.
kroot=${SL_KMOD_ROOT:-build/kmod-$(uname -r)}
tests=build/selftests/lsm
replay=build/crash/lw_replay
out=${SL_CRASH_OUT:?}
memtable=${SL_CRASH_MEMTABLE:-65536}
. "$(dirname "$0")/guest-lib.sh"

# A device-mapper device, waited for: udev makes /dev/mapper/NAME.
dm_create() {
	dmsetup create "$1" --table "$2" || return 1
	udevadm settle 2> /dev/null
	[ -b "/dev/mapper/$1" ] || dmsetup mknodes "$1"
	[ -b "/dev/mapper/$1" ] || { echo "guest: /dev/mapper/$1 missing"; return 1; }
}

data=$(disk_by_serial slcrdata) && log=$(disk_by_serial slcrlog) &&
base=$(disk_by_serial slcrbase) && cow=$(disk_by_serial slcrcow) &&
fdisk=$(disk_by_serial slfault) ||
	{ echo "guest: the crash test's disks are missing: run 'make check-crash'"; exit 1; }
lsm_load "$kroot" || { echo "guest: cannot load sl_lsm.ko: run 'make check-crash'"; exit 1; }
for m in dm-log-writes dm-snapshot dm-flakey; do
	modprobe $m || { echo "guest: modprobe $m failed"; exit 1; }
done
[ -x "$replay" ] && [ -x "$tests/lsm_crash_workload" ] ||
	{ echo "guest: $replay or $tests/lsm_crash_workload missing: run 'make check-crash'"; exit 1; }
mkdir -p "$out/dumps"
rm -f "$out"/dumps/dump-*.txt "$out/journal.txt" "$out/flush-trace.txt"
took "loading the modules"

sectors=$(blockdev --getsz "$data")
dm_create slcrash "0 $sectors log-writes $data $log" || exit 1
# The flushes (PREFLUSH, and the FUA that ends a PREFLUSH write) of the
# target's device: when each is issued, remapped to the disk below and
# completes.
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs none $T || exit 1
set -- $(dmsetup info -c --noheadings -o major,minor --separator ' ' slcrash)
echo 0 > $T/tracing_on
# One clock for both vCPUs: the replay compares times across them.
echo global > $T/trace_clock || exit 1
echo > $T/trace
echo 16384 > $T/buffer_size_kb
for ev in block_bio_queue block_bio_complete; do
	echo "dev == $(( ($1 << 20) | $2 )) && rwbs ~ \"*F*\"" > $T/events/block/$ev/filter &&
	echo 1 > $T/events/block/$ev/enable || { echo "guest: cannot trace $ev"; exit 1; }
done
echo "old_dev == $(( ($1 << 20) | $2 )) && rwbs ~ \"*F*\"" > $T/events/block/block_bio_remap/filter &&
echo 1 > $T/events/block/block_bio_remap/enable || { echo "guest: cannot trace block_bio_remap"; exit 1; }
echo 1 > $T/tracing_on
if [ -n "${SL_CRASH_SECONDS:-}" ]; then
	size="--seconds $SL_CRASH_SECONDS"
else
	size="--ops ${SL_CRASH_OPS:-1500}"
fi
echo "guest: the crash workload on /dev/mapper/slcrash ($data, logged to $log): $size"
SL_LSM_DISK=/dev/mapper/slcrash "$tests/lsm_crash_workload" run \
	--journal "$out/journal.txt" --dm slcrash $size \
	--seed "${SL_CRASH_SEED:-1}" --memtable "$memtable" ||
	fail "lsm_crash_workload run"
echo 0 > $T/tracing_on
for ev in block_bio_queue block_bio_complete block_bio_remap; do
	echo 0 > $T/events/block/$ev/enable
done
grep -v '^#' $T/trace > "$out/flush-trace.txt"
if grep -q 'overrun: [1-9]' $T/per_cpu/cpu*/stats; then
	fail "the flush trace overran its buffer"
fi
echo "guest: $(wc -l < "$out/flush-trace.txt") flush events traced"
st=$(dmsetup status slcrash)
echo "guest: log-writes status: $st"
case "$st" in
*logging_disabled*) fail "dm-log-writes stopped logging (its log disk is too small?)" ;;
esac
dmsetup remove --retry slcrash || fail "dmsetup remove slcrash"
took "the crash workload"

# The kernel's recovery at replay points spread over the log: flush and
# FUA entries and marks, the last entry (the end mark) always among them.
if [ $status -eq 0 ]; then
	trace="--flush-trace $out/flush-trace.txt"
	"$replay" --log "$log" --list $trace > /tmp/entries.txt || fail "lw_replay --list"
	points=$(awk '!/^#/ && $2 ~ /FLUSH|FUA|MARK/ { print $1 }' /tmp/entries.txt)
	n=$(echo "$points" | wc -l)
	k=${SL_CRASH_SAMPLES:-6}
	samples=$(echo "$points" | awk -v n="$n" -v k="$k" \
		'NR == n || (k > 1 && (NR - 1) % int(n / k + 1) == int(n / k / 2)) { print }')
	echo "guest: $n replay points in the log; the kernel recovers at entries" $samples
	resume=
	for e in $samples; do
		"$replay" --log "$log" $trace --replay "$base" $resume --to "$e" > /dev/null ||
			{ fail "lw_replay to entry $e"; break; }
		resume="--resume-after $e"
		dm_create slsnap "0 $sectors snapshot $base $cow N 8" || { fail "dm-snapshot"; break; }
		SL_LSM_DISK=/dev/mapper/slsnap "$tests/lsm_crash_workload" dump \
			--out "$out/dumps/dump-$e.txt" --memtable "$memtable" ||
			fail "sl_lsm.ko's recovery at log entry $e"
		dmsetup remove slsnap || { fail "dmsetup remove slsnap"; break; }
	done
	took "the kernel's recovery at $(echo $samples | wc -w) replay points"
fi

fsectors=$(blockdev --getsz "$fdisk")
dm_create slfault "0 $fsectors linear $fdisk 0" || exit 1
echo "guest: running lsm/lsm_fault_test on /dev/mapper/slfault ($fdisk)"
SL_LSM_DISK=/dev/mapper/slfault SL_LSM_FAULT_DM=slfault \
	SL_LSM_FAULT_UNDER="$fdisk" "$tests/lsm_fault_test"
case $? in
0) ;;
4) fail "lsm/lsm_fault_test skipped" ;;
*) fail "lsm/lsm_fault_test" ;;
esac
dmsetup remove slfault || fail "dmsetup remove slfault"
took "lsm/lsm_fault_test"

rmmod sl_lsm || fail "rmmod sl_lsm"
[ $status -eq 0 ] && echo "guest: crash test passed on $(uname -r)"
exit $status
