#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (tools/vm/vm-run) for "make bench-kernel": loads
# skiplist.ko and sl_extent.ko, then sl_bench.ko once per pass (one pass per
# item count, then one for the churn workload, which has none), and
# appends each pass's result lines to OUTDIR/results.txt.
#
#   guest-bench-kernel.sh OUTDIR [PARAM=VALUE ...]
#
# The PARAMs go to every load of sl_bench.ko (cell_ms=, threads=,
# indexes=, allocators=, keysets=, keyset_workloads=, seed=).  SL_BENCH_ITEMS (default
# 1024,65536,1048576) lists the item counts, one pass each;
# SL_BENCH_CHURN=0 leaves out the churn pass.
out=${1:?usage: guest-bench-kernel.sh OUTDIR [PARAM=VALUE ...]}
shift
kmod=build/kmod-$(uname -r)
items=$(echo "${SL_BENCH_ITEMS:-1024,65536,1048576}" | tr , " ")
index_work=lookup,overlap,range16,scan,mix50,insdel,frag,frag-align
results=$out/results.txt
debugfs=/sys/kernel/debug
status=0

for f in skiplist/skiplist.ko extent/sl_extent.ko tools/bench/kernel/sl_bench.ko; do
	[ -f "$kmod/$f" ] || { echo "guest: $kmod/$f missing: run 'make modules'"; exit 1; }
done
mkdir -p "$out" || exit 1
: > "$results"
[ -d "$debugfs/sl_bench" ] || [ -n "$(ls -A $debugfs 2>/dev/null)" ] ||
	mount -t debugfs none "$debugfs" 2>/dev/null

insmod "$kmod/skiplist/skiplist.ko" || exit 1
insmod "$kmod/extent/sl_extent.ko" || exit 1

# One load of sl_bench.ko: its lines go to the results, from debugfs, or
# from the kernel log (the lines after the load's "machine" line).
pass() {
	start=$(date +%s)
	echo "guest: sl_bench $*"
	if ! insmod "$kmod/tools/bench/kernel/sl_bench.ko" "$@"; then
		echo "guest: FAIL: insmod sl_bench.ko $*"
		dmesg | grep 'sl_bench' | tail -20
		status=1
		return
	fi
	if [ -r "$debugfs/sl_bench/results" ]; then
		cat "$debugfs/sl_bench/results" > "$out/pass.txt"
	else
		dmesg | sed -n 's/^\[[^]]*\] sl_bench: //p' |
			awk '/^machine / { n = 0 } { line[n++] = $0 }
			     END { for (i = 0; i < n; i++) print line[i] }' > "$out/pass.txt"
	fi
	rmmod sl_bench || status=1
	cat "$out/pass.txt" >> "$results"
	done_line=$(grep '^done ' "$out/pass.txt")
	echo "guest:   $(grep -c '^result ' "$out/pass.txt") results, ${done_line:-no done line}, $(($(date +%s) - start)) s"
	case "$done_line" in
	"done failures=0 errors=0 "*) ;;
	*)
		echo "guest: FAIL: sl_bench $*:"
		grep -E '^error |errors=[1-9]' "$out/pass.txt" | head -20
		status=1
		;;
	esac
}

begin=$(date +%s)
slab_debug=off
[ "$(cat /sys/kernel/slab/kmalloc-64/sanity_checks 2>/dev/null)" = 1 ] && slab_debug=on
echo "guest: $(uname -r), $(nproc) vCPUs, $(awk '/MemTotal/ { print int($2 / 1024) " MiB" }' /proc/meminfo), slab debugging $slab_debug"
for n in $items; do
	pass items="$n" workloads=$index_work "$@"
done
[ "${SL_BENCH_CHURN:-1}" = 0 ] || pass workloads=churn "$@"
rm -f "$out/pass.txt"
rmmod sl_extent || status=1
rmmod skiplist || status=1
echo "guest: sl_bench done in $(($(date +%s) - begin)) s; results in $results"
exit $status
