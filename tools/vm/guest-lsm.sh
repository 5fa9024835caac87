#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (tools/vm/vm-run with the drives "make check-vm-lsm"
# gives it): the store's kernel suite on the running kernel.
#  1. sl_lsm.ko and what it needs (guest-lib.sh's lsm_load).
#  2. The kselftests of /dev/sl_lsm (selftests/lsm) on the scratch disk
#     whose virtio serial is "sllsm", and the too-small refusal on the one
#     whose serial is "sllsmsmall"; lsm_corrupt_test damages blocks of
#     each kind of a detached store there and attaches again.
#  3. lsm_bench_dev (make bench-lsm-vm's driver) on a few thousand keys:
#     each workload must report its ops/s, readrandom, readwhilewriting
#     and seekrandom find every key, and rangelookup find the units that
#     rangeoverwrite's ranges cover (run.py computes them).
#  4. What the store shows of itself (Documentation/tracing.rst): its
#     events (sl_lsm) through tracefs while slctl lsm fills a store of
#     small memtables, each flush's fields checked and their number
#     against the store's counters in debugfs, and slctl top --once on the
#     attached store and its device space.
#  5. selftests/lsm/lsm_lifecycle.sh: slctl lsm, the module reference of
#     an attached store, rmmod and insmod with the data read back.
#  6. sl_lsm.ko unloaded (vm-run's log check catches what it leaves).
# Given a disk whose serial is "sllsmprev", it first reads back
# (lsm_lifecycle.sh --after-reboot) what an earlier boot's lifecycle left
# there: make check-vm-lsm passes 6.1's disk to the 6.12 boot.
# SL_LSM_SECONDS and SL_LSM_THREADS pass through to the concurrency test;
# SL_LSM_NO_BENCH (its value says why) skips step 3;
# SL_KMOD_ROOT names another tree of modules than make's.
kroot=${SL_KMOD_ROOT:-build/kmod-$(uname -r)}
lkmod=$kroot/lsm
tests=build/selftests/lsm
bench=build/bench-obj/lsm/lsm_bench_dev
. "$(dirname "$0")/guest-lib.sh"

disk=$(disk_by_serial sllsm) ||
	{ echo "guest: no virtio disk with serial sllsm: run 'make check-vm-lsm'"; exit 1; }
small=$(disk_by_serial sllsmsmall) || small=
lsm_load "$kroot" || { echo "guest: cannot load sl_lsm.ko: run 'make check-vm-lsm'"; exit 1; }
[ "$(stat -c %a /dev/sl_lsm)" = 600 ] || fail "/dev/sl_lsm is not 0600"
took "loading sl_lsm.ko"

if prev=$(disk_by_serial sllsmprev); then
	echo "guest: reading back on $prev what an earlier boot left there"
	selftests/lsm/lsm_lifecycle.sh "$lkmod/sl_lsm.ko" "$prev" --after-reboot ||
		fail "lsm/lsm_lifecycle.sh --after-reboot"
	took "the read back after a reboot"
fi

for t in lsm_ioctl_test lsm_badinput_test lsm_concurrency_test lsm_cache_test lsm_corrupt_test; do
	echo "guest: running lsm/$t on $disk"
	SL_LSM_DISK=$disk SL_LSM_SMALL_DISK=$small "$tests/$t"
	case $? in
	0) ;;
	4) fail "lsm/$t skipped" ;;
	*) fail "lsm/$t" ;;
	esac
	took "lsm/$t"
done

# The benchmark's driver through /dev/sl_lsm (make bench-lsm-vm), briefly,
# so that a change to the ioctls that breaks it fails here: a few thousand
# puts, one per ioctl and in batches, read back.  Before the lifecycle
# test, whose store the next boot reads.
echo "guest: running lsm_bench_dev on $disk"
if [ -n "${SL_LSM_NO_BENCH:-}" ]; then
	echo "guest: lsm_bench_dev skipped (SL_LSM_NO_BENCH: $SL_LSM_NO_BENCH)"
elif [ -x "$bench" ]; then
	"$bench" --db="$disk" --num=3000 --seed=19 \
		--benchmarks=fillrandom,fillseq,flush,readrandom > /tmp/lsm_bench_dev.txt 2>&1 &&
	"$bench" --db="$disk" --num=3000 --seed=19 --batch_size=100 \
		--benchmarks=fillrandom,readseq >> /tmp/lsm_bench_dev.txt 2>&1 &&
	"$bench" --db="$disk" --num=3000 --seed=19 --threads=2 --reads=500 \
		--seek_nexts=10 --benchmarks=fillseq,readwhilewriting,seekrandom \
		>> /tmp/lsm_bench_dev.txt 2>&1 &&
	"$bench" --db="$disk" --num=3000 --seed=19 --writes=20 --reads=1000 \
		--benchmarks=rangeoverwrite,flush,rangelookup \
		>> /tmp/lsm_bench_dev.txt 2>&1 &&
	"$bench" --db="$disk" --num=3000 --use_existing_db \
		--benchmarks=attach >> /tmp/lsm_bench_dev.txt 2>&1
	rc=$?
	for b in fillrandom readrandom fillseq readseq readwhilewriting \
		seekrandom rangeoverwrite rangelookup; do
		grep -Eq "^$b +: +[0-9.]+ micros/op [1-9][0-9]* ops/sec" \
			/tmp/lsm_bench_dev.txt || rc=1
	done
	grep -Eq "^attach +: +[0-9.]+ micros/op" /tmp/lsm_bench_dev.txt || rc=1
	grep -q "(3000 of 3000 found)" /tmp/lsm_bench_dev.txt || rc=1
	[ "$(grep -c "(1000 of 1000 found)" /tmp/lsm_bench_dev.txt)" = 2 ] || rc=1
	covered=$(cd tools/bench/lsm && python3 -c 'from run import expected_found
print(expected_found(19, 3000, 20, 256, 1000, 1, started=1))') || rc=1
	grep -q "^rangelookup .*($covered of 1000 found)" /tmp/lsm_bench_dev.txt || rc=1
	[ $rc -eq 0 ] || { cat /tmp/lsm_bench_dev.txt; fail "lsm_bench_dev"; }
else
	fail "$bench missing: run 'make check-vm-lsm'"
fi
took "lsm_bench_dev"

# The store's events and debugfs, on a store kept attached (a fifo holds
# the batch open) with 64 KiB memtables, so that 4000 puts flush several
# and level 0 fills enough to merge.
tracing=/sys/kernel/tracing
[ -d "$tracing/events" ] || mount -t tracefs none "$tracing"
dname=${disk#/dev/}
if [ -d "$tracing/events/sl_lsm" ]; then
	echo 0 > "$tracing/tracing_on"
	echo > "$tracing/trace"
	echo 1 > "$tracing/events/sl_lsm/enable"
	echo 1 > "$tracing/tracing_on"
	{ echo "format $disk --memtable 65536"
	  awk 'BEGIN { for (i = 0; i < 4000; i++)
		printf "put %d 1 value-%d-0123456789abcdef0123456789abcdef\n", i * 2, i }'
	  echo flush
	  echo stats; } > /tmp/lsm-obs.txt
	rm -f /tmp/lsm-obs.fifo
	mkfifo /tmp/lsm-obs.fifo
	build/tools/slctl lsm batch < /tmp/lsm-obs.fifo > /tmp/lsm-obs-out.txt 2>&1 &
	obs_pid=$!
	exec 7> /tmp/lsm-obs.fifo
	cat /tmp/lsm-obs.txt >&7
	for i in $(seq 300); do
		grep -q '^flushes' /tmp/lsm-obs-out.txt && break
		sleep 1
	done
	flushes=$(awk '$1 == "flushes" { print $2 }' "/sys/kernel/debug/sl_lsm/$dname/stats" 2>/dev/null)
	echo 0 > "$tracing/tracing_on"
	build/tools/slctl top --once > /tmp/lsm-obs-top.txt 2>&1 ||
		fail "slctl top --once with a store attached: $(cat /tmp/lsm-obs-top.txt)"
	awk -v s="sl_lsm/$dname" -v f="${flushes:-x}" '$1 == s && $4 == f { ok++ }
		$1 == s "/space" && $4 > 0 { ok++ } $1 == s "/space/index" { ok++ }
		END { exit ok != 3 }' /tmp/lsm-obs-top.txt ||
		{ cat /tmp/lsm-obs-top.txt; fail "slctl top does not show the store, its flushes and its space"; }
	exec 7>&-
	wait $obs_pid || fail "slctl lsm batch of the event workload: $(tail -3 /tmp/lsm-obs-out.txt)"
	echo 0 > "$tracing/events/sl_lsm/enable"
	awk -v want="${flushes:-x}" '
		function v(name,   i) {
			for (i = 1; i <= NF; i++)
				if (index($i, name "=") == 1)
					return substr($i, length(name) + 2)
			return ""
		}
		function bad(what) { if (++errors <= 10) print "guest: " what ": " $0 }
		/ lsm_flush: / && v("err") == 0 {
			flushed++
			if (v("blocks") + 0 < 1 || v("pieces") + 0 < 1 ||
			    v("last_seq") + 0 <= seq)
				bad("a flush of nothing, or out of order")
			seq = v("last_seq") + 0
		}
		/ lsm_compaction: / && v("err") == 0 {
			merged++
			if (v("runs_in") + 0 < 1 || v("to") + 0 < v("from") + 0 ||
			    (v("move") == 0 && v("write_bytes") + 0 < 1))
				bad("a merge of nothing")
		}
		END {
			printf "guest: store events: %d flushes (the store counted %s), %d merges\n",
			       flushed, want, merged
			if (flushed != want + 0 || flushed < 2)
				bad("flush events against the store'"'"'s count")
			exit errors > 0
		}' "$tracing/trace" || fail "the store's events"
else
	fail "no sl_lsm events in $tracing/events"
fi
took "the store's events, debugfs and slctl top"

echo "guest: running lsm/lsm_lifecycle.sh on $disk"
selftests/lsm/lsm_lifecycle.sh "$lkmod/sl_lsm.ko" "$disk" ||
	fail "lsm/lsm_lifecycle.sh"
took "lsm/lsm_lifecycle.sh"

rmmod sl_lsm || fail "rmmod sl_lsm"
[ -e /dev/sl_lsm ] && fail "/dev/sl_lsm survived rmmod"
[ $status -eq 0 ] && echo "guest: store suite passed on $(uname -r)"
exit $status
