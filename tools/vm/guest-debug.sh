#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in a debug kernel's guest (make check-debug): the in-kernel tests as
# a KUnit suite, then the rest of the kernel suite
# (tools/vm/guest-selftests.sh) under lockdep, PROVE_RCU and KASAN (kernel
# a) or KCSAN (kernel b), with a kmemleak scan at the end; on kernel a
# also a failslab run that fails allocations from the index's own slab
# caches at random, where the selftests must keep their invariants (every
# failure surfaces as -ENOMEM, the index stays consistent) and nothing may
# leak.  Then the store's suite (guest-lsm.sh), and on kernel a the store
# under failing allocations.  With BTRFS_KO in the environment (kernel a
# in make check-debug), btrfs on the skiplist last (btrfs/guest-btrfs.sh,
# which scans for leaks of its own).
variant=${1:-a}
kmod=build/kmod-$(uname -r)/skiplist
ekmod=build/kmod-$(uname -r)/extent
lkmod=build/kmod-$(uname -r)/lsm
tests=build/selftests
. "$(dirname "$0")/guest-lib.sh"

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
leaks_start

# The in-kernel tests, as a KUnit suite (KTAP in the log), in place of
# test_skiplist.ko: the same tests, and twice the time would be spent.
if [ -f "$kmod/skiplist_kunit.ko" ]; then
	echo "guest: KUnit suite skiplist"
	# sl_extent.ko first: the suite tests the extent map and allocator too.
	insmod "$kmod/skiplist.ko" && insmod "$ekmod/sl_extent.ko" &&
		insmod "$kmod/skiplist_kunit.ko" || fail "loading the KUnit suite"
	results=/sys/kernel/debug/kunit/skiplist/results
	if [ -r $results ]; then
		cat $results
		grep -q '^ok [0-9]* skiplist' $results &&
			! grep -q 'not ok' $results || fail "KUnit suite skiplist"
	else
		fail "no KUnit results in $results"
	fi
	rmmod skiplist_kunit && rmmod sl_extent && rmmod skiplist ||
		fail "unloading the KUnit suite"
else
	fail "$kmod/skiplist_kunit.ko missing (a debug kernel has KUnit)"
fi
took "the KUnit suite"

# The IOMMU test: on kernel a (System V IPC, so fio) only the mixed job
# of reads and writes on each backend, not the sequential and random
# writes before it (make check-vm runs all three on Debian's kernels);
# each process started costs about half a second here, and the three took
# 270 of the test's 374 s.  On kernel b (no System V IPC) dd's writers
# move a sixteenth of what they move on Debian's kernels (16 blocks of
# 4 KiB each, eight writers and readers at once on every backend).
# Either way the same concurrent maps and unmaps, each path met many
# times over (make check's log shows the test's time: "took").
SL_LOAD_TESTS=no SLB_FIO_JOBS=mixed SLB_DD_BLOCKS=16 tools/vm/guest-selftests.sh ||
	fail "kernel suite"
took "the kernel suite"

if [ "$variant" = a ]; then
	fs=/sys/kernel/debug/failslab
	echo "guest: failslab on the skiplist_leaf caches, 10% of allocations"
	insmod "$kmod/skiplist.ko" && insmod "$kmod/skiplist_dev.ko" || exit 1
	leaf_caches_failslab
	# Our allocations may sleep (GFP_KERNEL): failslab skips those unless
	# told otherwise.
	fault_attrs $fs cache-filter=Y ignore-gfp-wait=N probability=10 \
		interval=1 times=-1 space=0 verbose=0
	SL_ALLOW_ENOMEM=1 "$tests/concurrency_test" || fail "concurrency under failslab"
	SL_ALLOW_ENOMEM=1 SL_FUZZ_IOCTLS=${SL_FUZZ_IOCTLS:-100000} \
		"$tests/fuzz_test" || fail "fuzzer under failslab"
	echo 0 > $fs/probability
	rmmod skiplist_dev && rmmod skiplist || fail "unload after failslab"
	took "the failslab run"
fi
# The store's suite (tools/vm/guest-lsm.sh) on the disks make debug-run
# attaches, with two threads for two seconds: the debug kernels run it
# ~5x slower, and the checks at the end, which read every run from the
# disk (no block cache until compaction's issue), took 443 s with four
# threads for three.
# lsm_bench_dev (the benchmark's driver, there so that a change to the
# ioctls that breaks it fails) runs on kernel a only: KCSAN on kernel b
# meets the store's concurrent paths in lsm_concurrency_test, and the
# driver's own check, on Debian's kernels, is make check-vm-lsm's.
if [ "$variant" = b ]; then
	export SL_LSM_NO_BENCH="kernel b: make check-vm-lsm and kernel a run it"
fi
SL_LSM_THREADS=2 SL_LSM_SECONDS=2 tools/vm/guest-lsm.sh || fail "store suite"
took "the store suite"

# The store when allocations fail (selftests/lsm/lsm_nomem_test.c): for
# the test's own task only (task-filter; it sets make-it-fail around its
# calls), every slab allocation (failslab, no cache filter) and every page
# allocation of order 1 or more (fail_page_alloc: the memtable's 1 MiB
# slabs, large buffers, new slabs) fails with 3% probability.  Order 0 is
# left alone so that the test's own page faults do not meet the OOM path.
if [ "$variant" = a ]; then
	fs=/sys/kernel/debug/failslab
	fp=/sys/kernel/debug/fail_page_alloc
	disk=$(disk_by_serial sllsm) || fail "no virtio disk with serial sllsm"
	insmod "$lkmod/sl_lsm.ko" || fail "insmod sl_lsm.ko"
	fault_attrs $fs cache-filter=N
	for f in $fs $fp; do
		fault_attrs $f task-filter=Y ignore-gfp-wait=N probability=3 \
			interval=1 times=-1 space=0 verbose=0
	done
	fault_attrs $fp ignore-gfp-highmem=N min-order=1
	SL_LSM_DISK=$disk SL_LSM_ROUNDS=${SL_LSM_ROUNDS:-20} \
		build/selftests/lsm/lsm_nomem_test || fail "lsm/lsm_nomem_test"
	for f in $fs $fp; do
		echo 0 > $f/probability
		echo N > $f/task-filter
	done
	rmmod sl_lsm || fail "rmmod sl_lsm after lsm_nomem_test"
	took "the store under failing allocations"
fi
rmmod sl_extent && rmmod skiplist || fail "unloading after the store"

leaks "after every part and unload"
took "the kmemleak scan"

if [ -n "${BTRFS_KO:-}" ]; then
	echo "guest: btrfs on the skiplist (btrfs/guest-btrfs.sh)"
	btrfs/guest-btrfs.sh || fail "btrfs on the skiplist"
	took "btrfs on the skiplist"
fi
[ $status -eq 0 ] && echo "guest: debug suite passed on $(uname -r)"
exit $status
