#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (tools/vm/vm-run, "make check-vm-stall"): every
# whole-index command of /dev/skiplist and /dev/sl_extent on an index of
# SL_STALL_N extents (selftests/stall/whole_index), timed, with the soft
# lockup and RCU stall detectors at the lowest thresholds the kernel takes.
#
# The kernel is booted with preempt=full watchdog_thresh=1 (a soft lockup
# is reported after 2 s with preemption off) and
# rcupdate.rcu_cpu_stall_timeout=3 (the kernel's floor: it raises anything
# lower to 3 s).  Each device's run goes once per preemption model in
# SL_STALL_MODES, switched at run time through debugfs (Debian's kernels
# have PREEMPT_DYNAMIC): under "full", a preemptible RCU reader held too
# long stalls the grace period and preemption-off sections show up as soft
# lockups; under "none", a loop that never reaches cond_resched() does too.
#
# Any soft lockup or RCU stall report fails the run (here, naming the
# command that was running, and again in vm-run's judgement of the log).
#   SL_STALL_N      extents per index (default 1000000)
#   SL_STALL_MODES  preemption models to run under (default "full none")
#   SL_STALL_PARTS  which runs (default "skiplist extent alloc")
#   SL_STALL_KMOD   the modules' build directory (default that of the
#                   running kernel), to time another build of them
kdir=${SL_STALL_KMOD:-build/kmod-$(uname -r)}
kmod=$kdir/skiplist
ekmod=$kdir/extent
prog=build/selftests/stall/whole_index
n=${SL_STALL_N:-1000000}
modes=${SL_STALL_MODES:-full none}
parts=${SL_STALL_PARTS:-skiplist extent alloc}
. "$(dirname "$0")/guest-lib.sh"

for f in $kmod/skiplist.ko $kmod/skiplist_dev.ko $ekmod/sl_extent.ko \
	 $ekmod/sl_extent_dev.ko $prog; do
	[ -f "$f" ] || { echo "guest: $f missing: run 'make check-vm-stall'"; exit 1; }
done

# The thresholds must really be in force, or a clean run proves nothing.
thresh=$(cat /proc/sys/kernel/watchdog_thresh)
stall=$(cat /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout)
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
preempt=/sys/kernel/debug/sched/preempt
echo "guest: watchdog_thresh=$thresh rcu_cpu_stall_timeout=$stall preempt: $(cat $preempt 2>/dev/null)"
[ "$thresh" = 1 ] || fail "watchdog_thresh is $thresh, not 1: boot with watchdog_thresh=1"
[ "$stall" = 3 ] || fail "rcu_cpu_stall_timeout is $stall, not 3"
[ "$(cat /proc/sys/kernel/soft_watchdog 2>/dev/null)" = 1 ] ||
	fail "the soft lockup detector is off"
[ -w "$preempt" ] || fail "no $preempt: cannot switch the preemption model"
[ $status -eq 0 ] || exit 1

insmod "$kmod/skiplist.ko" && insmod "$kmod/skiplist_dev.ko" &&
	insmod "$ekmod/sl_extent.ko" && insmod "$ekmod/sl_extent_dev.ko" || exit 1

# What the kernel says about a CPU held too long (the lines vm-run judges;
# not the boot line that states the timeout).
reports='soft lockup|rcu: INFO:|detected stall|RCU stall|blocked for more than'
stalls=/tmp/stall-reports.txt
: > $stalls
seen=0
# Fail on each report since the last call, naming the command that was
# running when it came (whole_index marks each one in the kernel log).
stall_check() {	# preemption model, or what else ran
	local lines
	lines=$(dmesg | grep -cE "$reports")
	[ "$lines" -gt "$seen" ] || return 0
	dmesg | awk -v seen="$seen" -v re="$reports" -v mode="$1" '
		{ sub(/^\[[^]]*\] /, "") }
		/^whole_index: [a-z]+ [A-Za-z_-]+ begins$/ { cmd = $2 " " $3 }
		$0 ~ re && ++n > seen { print mode, (cmd ? cmd : "-"), $0 }' >> $stalls
	tail -n $((lines - seen)) $stalls | while read -r m d c line; do
		fail "preempt=$m, $d $c: $line"
	done
	status=1
	seen=$lines
}
stall_check boot

results=/tmp/stall-times.txt
: > $results
for mode in $modes; do
	echo "$mode" > $preempt || { fail "preempt=$mode refused"; continue; }
	echo "guest: preemption model $(cat $preempt), $n extents per index"
	for part in $parts; do
		"$prog" "$part" "$n" > /tmp/stall-$part.txt
		rc=$?
		cat /tmp/stall-$part.txt
		[ $rc -eq 0 ] || fail "whole_index $part $n (exit $rc)"
		sed -n "s/^whole_index: \([a-z]*\) \([A-Za-z_-]*\) \([0-9.]*\)$/$mode \1 \2 \3/p" \
			/tmp/stall-$part.txt >> $results
		stall_check "$mode"
		took "whole_index $part ($mode)"
	done
done

# One line per command: its time under each model, and "(stall)" where
# the kernel reported one while it ran.
echo "guest: seconds per command, $n extents ($(uname -r), ${SL_VM_ACCEL:-?}):"
awk 'FILENAME == ARGV[1] { bad[$1 " " $2 " " $3] = 1; next }
     { k = $2 " " $3; mark = bad[$1 " " k] ? " (stall)" : ""
       t[k] = t[k] sprintf("  %s %s%s", $1, $4, mark)
       if (!(k in order)) order[k] = ++nk }
     END { for (k in order) printf "%d guest:   %-22s%s\n", order[k], k, t[k] }' \
	$stalls $results | sort -n | cut -d' ' -f2-

rmmod sl_extent_dev && rmmod sl_extent && rmmod skiplist_dev && rmmod skiplist ||
	fail "rmmod"
stall_check rmmod
[ $status -eq 0 ] && echo "guest: no stall in any whole-index command ($n extents)"
exit $status
