#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (tools/vm/vm-run) for "make bench-scaling": the IOMMU
# demo's fio comparison (tools/bench/iommu/guest-bench-iommu.sh, which
# loads the modules, runs the cells and checks every device's counters)
# once per job count, in the order given (run.py puts the largest
# first), each with the job files run.py wrote for it (numjobs = that
# count) in FIODIR/jJOBS and its cells in OUTDIR/jJOBS.  A job count that
# would end after SL_SCALING_BUDGET seconds of the guest's uptime, judged
# by the slowest count so far and a quarter more, is not started: it goes
# to OUTDIR/skipped.
#
#   guest-scaling-iommu.sh OUTDIR FIODIR RUNTIME WORKLOADS BACKENDS JOBS,...
usage="usage: guest-scaling-iommu.sh OUTDIR FIODIR RUNTIME WORKLOADS BACKENDS JOBS,..."
out=${1:?$usage}
fio=${2:?$usage}
runtime=${3:?$usage}
workloads=${4:?$usage}
backends=${5:?$usage}
jobs=${6:?$usage}
budget=${SL_SCALING_BUDGET:?guest: SL_SCALING_BUDGET (seconds of uptime) not set}
status=0
slowest=0

uptime_s() {
	cut -d. -f1 /proc/uptime
}

mkdir -p "$out" || exit 1
rm -f "$out/skipped"
for j in $(echo "$jobs" | tr , " "); do
	start=$(uptime_s)
	if [ $((start + slowest + slowest / 4)) -gt "$budget" ]; then
		echo "guest: $j jobs skipped: at ${start} s of uptime, the slowest count took ${slowest} s and the budget ends at ${budget} s"
		echo "$j" >> "$out/skipped"
		continue
	fi
	[ -d "$fio/j$j" ] || { echo "guest: no job files in $fio/j$j"; exit 1; }
	echo "guest: fio with $j jobs on every backend"
	SLB_FIO_DIR="$fio/j$j" tools/bench/iommu/guest-bench-iommu.sh "$out/j$j" \
		"$runtime" "$workloads" "$backends" || status=1
	took=$(($(uptime_s) - start))
	[ "$took" -le "$slowest" ] || slowest=$took
	echo "$took" > "$out/j$j/seconds"
done
exit $status
