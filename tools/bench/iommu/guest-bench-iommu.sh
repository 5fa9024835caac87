#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (tools/vm/vm-run) for "make bench-iommu" and the demo:
# loads sl_iommu.ko with one 64 MiB device per backend, runs every fio
# workload of tools/fio/ on every device for RUNTIME seconds each, in
# SLB_ROUNDS rounds (default 1), and leaves per cell the fio JSON and
# /proc/stat before and after in OUTDIR/rROUND, for
# tools/bench/iommu/report.py.
#
#   guest-bench-iommu.sh OUTDIR RUNTIME [WORKLOADS [BACKENDS]]
#
# WORKLOADS (default seqwrite,randread,randwrite,randread-1job,mixed) name
# job files in tools/fio/; BACKENDS default to none,rbtree,iova,maple,skiplist.
# Within a workload the backends take turns in a rotating order, so that
# drift in the emulator's speed does not always favour the same one.
# SLB_PROFILE lists backends to profile on random reads afterwards.
# SLB_FIO_DIR is where the job files are (default tools/fio; make
# bench-scaling gives copies with numjobs scaled to the vCPUs).
out=${1:?usage: guest-bench-iommu.sh OUTDIR RUNTIME [WORKLOADS [BACKENDS]]}
runtime=${2:?usage: guest-bench-iommu.sh OUTDIR RUNTIME [WORKLOADS [BACKENDS]]}
workloads=$(echo "${3:-seqwrite,randread,randwrite,randread-1job,mixed}" | tr , " ")
backends=${4:-none,rbtree,iova,maple,skiplist,skiplist-nocache}
kmod=build/kmod-$(uname -r)
status=0

command -v fio >/dev/null || { echo "guest: fio missing: run 'make setup'"; exit 1; }
for f in skiplist/skiplist.ko extent/sl_extent.ko iommu_demo/sl_iommu.ko; do
	[ -f "$kmod/$f" ] || { echo "guest: $kmod/$f missing: run 'make modules'"; exit 1; }
done
fio_dir=${SLB_FIO_DIR:-tools/fio}
for w in $workloads; do
	[ -f "$fio_dir/$w.fio" ] || { echo "guest: no job file $fio_dir/$w.fio"; exit 1; }
done
rounds=${SLB_ROUNDS:-1}
mkdir -p "$out" || exit 1
rm -rf "$out"/r[0-9]*

insmod "$kmod/skiplist/skiplist.ko" || exit 1
insmod "$kmod/extent/sl_extent.ko" || exit 1
insmod "$kmod/iommu_demo/sl_iommu.ko" backend="$backends" || exit 1
{
	echo "kernel=$(uname -r)"
	echo "vcpus=$(nproc)"
	echo "accel=${SL_VM_ACCEL:-unknown}"
	echo "runtime_s=$runtime"
	echo "boot=$(tr ' ' '\n' < /proc/cmdline | grep -E '^(clocksource|tsc|slub_debug)=' | tr '\n' ' ')"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$out/machine.txt"

# Device N has the Nth backend.
set -- $(echo "$backends" | tr , " ")
nr=$#
turn=0

# One round: every workload on every backend, into OUTDIR/rROUND.
run_round() {
	mkdir -p "$out/r$1" || exit 1
	for w in $workloads; do
		i=0
		while [ $i -lt $nr ]; do
			n=$(((i + turn) % nr))
			b=$(cat /sys/block/slblk$n/sl_iommu/backend)
			cell=$out/r$1/$w--$b
			head -1 /proc/stat > "$cell.cpu"
			SLB_DEV=/dev/slblk$n fio --output-format=json --time_based \
				--runtime="$runtime" "$fio_dir/$w.fio" \
				> "$cell.json" 2> "$cell.err" || {
				echo "guest: FAIL: fio $w on $b:"
				head -5 "$cell.err"
				status=1
			}
			head -1 /proc/stat >> "$cell.cpu"
			echo "guest: round $1: $w on $b done"
			i=$((i + 1))
		done
		turn=$((turn + 1))
	done
}

r=1
while [ $r -le "$rounds" ]; do
	run_round $r
	r=$((r + 1))
done

# Where the time goes: random reads once more on each backend named in
# SLB_PROFILE, under perf (cpu-clock: the emulated guest has no PMU),
# system-wide; the modules, and the symbols over 0.2%, go to
# OUTDIR/profile--BACKEND.txt.
for b in $(echo "${SLB_PROFILE:-}" | tr , " "); do
	n=0
	for x in "$@"; do
		[ "$x" = "$b" ] && break
		n=$((n + 1))
	done
	[ $n -lt $nr ] || { echo "guest: no $b device to profile"; status=1; continue; }
	command -v perf >/dev/null || { echo "guest: perf missing, no profile"; break; }
	SLB_DEV=/dev/slblk$n perf record -q -e cpu-clock -F 499 -a \
		-o /tmp/slb-perf.data -- fio --output-format=terse --time_based \
		--runtime="$runtime" tools/fio/randread.fio > /dev/null 2>&1
	{
		perf report -i /tmp/slb-perf.data --stdio --sort dso \
			--percent-limit 0.1 2>/dev/null | grep -v '^#' | grep -v '^$'
		echo
		perf report -i /tmp/slb-perf.data --stdio --sort sym \
			--percent-limit 0.2 2>/dev/null | grep -v '^#' | grep -v '^$'
	} > "$out/profile--$b.txt"
	echo "guest: randread on $b profiled"
done

# Every range must be back, none handed out twice, no request failed.
for d in /sys/block/slblk*/sl_iommu; do
	b=$(cat $d/backend)
	for c in live faults overlaps bad_frees io_errors; do
		v=$(cat $d/$c)
		[ "$v" = 0 ] || { echo "guest: FAIL: $b: $c is $v"; status=1; }
	done
	echo "guest: $b: $(cat $d/maps) ranges mapped, $(cat $d/map_fails) retried"
done
rmmod sl_iommu || status=1
rmmod sl_extent || status=1
rmmod skiplist || status=1
exit $status
