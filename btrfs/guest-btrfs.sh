#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In the VM (make check-btrfs): Debian's btrfs.ko out, ours in, its sanity
# tests at load, then a real file system on a virtio disk:
#  1. a file of BTRFS_EXTENTS extents (4 KiB written, 4 KiB hole), read
#     back and verified (crc32c) by two fio jobs while a third splits the
#     extents of another file with random overwrites and fsync, and caches
#     are dropped beside them (pages of files over 16 MiB take their extent
#     maps with them, and evicted inodes all of theirs);
#  2. a stress of BTRFS_STRESS_SECONDS: several processes creating,
#     writing, punching holes, truncating, reflinking, renaming and
#     unlinking, first plain and then mounted with compress=zstd, in a
#     memory cgroup over its memory.high (a reader of the file of phase 1
#     beside them) and under proactive reclaim;
#  3. checksums of every file, unmount, btrfs check, mount, scrub, drop
#     caches, checksums again;
#  4. on a kernel with failslab, random 4 KiB writes with fsync while the
#     index's non-sleeping leaf allocations fail at random: the preloaded
#     reserve stands in, so every write succeeds and reads back, and
#     btrfs check passes;
#  5. on a kernel with kmemleak, a scan once both modules are unloaded.
#
#   BTRFS_KO=... SKIPLIST_KO=... btrfs/guest-btrfs.sh
. "$(dirname "$0")/../tools/vm/guest-lib.sh"
. "$(dirname "$0")/guest-modules.sh"

: "${BTRFS_KO:?}" "${SKIPLIST_KO:?}"
: "${BTRFS_EXTENTS:=10000}"
: "${BTRFS_STRESS_SECONDS:=60}"
: "${BTRFS_STRESS_PROCS:=4}"
mnt=/tmp/btrfs-mnt

dev=$(disk_by_serial slbtrfs) || { echo "guest: no disk slbtrfs"; exit 1; }
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
leaks_start
dmesg -C
btrfs_use ours || exit 1
dmesg | grep -q 'running extent_map tests' ||
	fail "btrfs's extent map sanity tests did not run"
took "load and sanity tests"

mkfs.btrfs -q -f "$dev" > /dev/null || exit 1
mkdir -p $mnt
mount -t btrfs "$dev" $mnt || exit 1

# 1. Many extents, read while others are split and caches dropped.
# fio's write:4k writes a block, skips one, and wraps at --size: every
# block written once, each an extent of its own between holes; the file
# ends with its last block, so that the reads find it as long as they
# expect (fio lays out a shorter one again, over what it holds).  (A
# preallocated file would cost FIEMAP time that grows with the square of
# the extents: each unwritten extent's sharing check walks every file
# extent item of the preallocation; make btrfs-layout-cost.)
frag=(--filename=$mnt/frag --size=$(( BTRFS_EXTENTS * 8 - 4 ))k
      --io_size=$(( BTRFS_EXTENTS * 4 ))k --fallocate=none --bs=4k
      --ioengine=psync --verify=crc32c --verify_state_save=0)
fio --name=frag "${frag[@]}" --rw=write:4k --end_fsync=1 --do_verify=0 \
	--output=/tmp/fio-frag.txt || { cat /tmp/fio-frag.txt; fail "fio frag"; }
extents=$(/usr/bin/python3 btrfs/fragment.py count $mnt/frag | sed -n 's/^extents=//p')
echo "guest: frag has $extents extents"
[ "${extents:-0}" -ge "$BTRFS_EXTENTS" ] ||
	fail "frag has ${extents:-no} extents, wanted $BTRFS_EXTENTS"
fio --name=split --filename=$mnt/split --size=32M --rw=write --bs=1M \
	--ioengine=psync --end_fsync=1 --output=/tmp/fio-split0.txt ||
	fail "fio split layout"
took "layout"
fio --name=verify "${frag[@]}" --rw=read:4k --verify_only --numjobs=2 \
	--output=/tmp/fio-verify.txt &
reader=$!
(
	for _ in 1 2 3 4 5 6; do
		sleep 5
		echo 3 > /proc/sys/vm/drop_caches
	done
) &
dropper=$!
fio --name=split --filename=$mnt/split --size=32M --rw=randwrite --bs=4k \
	--fsync=8 --ioengine=psync --runtime=30 --time_based \
	--output=/tmp/fio-split.txt || fail "fio split"
wait $reader || { cat /tmp/fio-verify.txt; fail "fio verify"; }
wait $dropper
grep -E 'err=|verify' /tmp/fio-verify.txt | grep -v 'err= 0' | head -5
took "reads beside splits"

# 2. Metadata and data stress from several processes.
stress() {
	local dir=$mnt/stress/$1 end=$(( $(date +%s) + $2 )) i=0 f g
	mkdir -p "$dir"
	while [ "$(date +%s)" -lt $end ]; do
		i=$(( i + 1 ))
		f=$dir/f$(( RANDOM % 16 )) g=$dir/f$(( RANDOM % 16 ))
		case $(( RANDOM % 8 )) in
		0|1) dd if=/dev/urandom of="$f" bs=4k count=$(( RANDOM % 64 + 1 )) \
			seek=$(( RANDOM % 256 )) conv=notrunc status=none ;;
		2) [ -f "$f" ] && fallocate -p -o $(( RANDOM % 128 * 4096 )) \
			-l $(( RANDOM % 32 * 4096 + 4096 )) "$f" ;;
		3) [ -f "$f" ] && truncate -s $(( RANDOM % 512 * 4096 )) "$f" ;;
		4) [ -f "$f" ] && cp --reflink=always "$f" "$g" 2> /dev/null ;;
		5) [ -f "$f" ] && mv "$f" "$g" 2> /dev/null ;;
		6) rm -f "$f" ;;
		7) [ -f "$f" ] && sync -d "$f" ;;
		esac
	done
	echo "$i"
}
# The stress runs in a memory cgroup whose memory.high is BTRFS_MEMCG_MB,
# beside a reader in the same cgroup that reads phase 1's file (over
# 16 MiB) again and again: its page cache goes over memory.high, so that
# the cgroup's own tasks reclaim as they go, and btrfs drops the extent
# maps of every page it releases from a file that large (and all of an
# inode's when it evicts one), while the reader looks them up and adds
# them again and the stress inserts, splits and merges its own.  Beside
# them, proactive reclaim (memory.reclaim) every second once the cgroup
# has gone over memory.high, and the kernel's dentries and inodes dropped
# every 10 s.  Not all the page cache: the
# guest's programs come from its 9p root, and dropping their pages every
# few seconds slowed the stress fourfold.  memory.max, 8 times higher,
# only keeps a runaway in bounds; memory.high never kills.
cg=/sys/fs/cgroup/btrfs-stress
memcg_setup() {
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup ||
		{ fail "cannot mount cgroup2"; return 1; }
	grep -qw memory /sys/fs/cgroup/cgroup.controllers ||
		{ fail "no memory controller in cgroup2"; return 1; }
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p $cg
	echo $(( BTRFS_MEMCG_MB << 20 )) > $cg/memory.high &&
		echo $(( BTRFS_MEMCG_MB << 23 )) > $cg/memory.max ||
		{ fail "cannot limit $cg"; return 1; }
}
reclaimer() {
	local i=0 calls=0 n lo hi
	lo=$(em_objects) hi=$lo
	while :; do
		sleep 1
		i=$(( i + 1 ))
		# EAGAIN when the cgroup has less to give: counted only when it gave.
		# Not before the cgroup has gone over memory.high once: on a slow
		# host (a loaded debug kernel read frag once in 30 s) reclaiming
		# 1 MiB a second kept it under memory.high all along.
		if ! grep -q '^high 0$' $cg/memory.events; then
			echo 1M > $cg/memory.reclaim 2> /dev/null &&
				calls=$(( calls + 1 ))
		fi
		[ $(( i % 10 )) -eq 0 ] && echo 2 > /proc/sys/vm/drop_caches
		n=$(em_objects)
		[ "$n" -lt "$lo" ] && lo=$n
		[ "$n" -gt "$hi" ] && hi=$n
		echo "$calls proactive reclaims that freed memory;" \
			"extent map slab objects between $lo and $hi" > /tmp/reclaim.txt
	done
}
em_objects() {
	awk '$1 == "btrfs_extent_map" { print $2 }' /proc/slabinfo
}
run_stress() {
	local pids=() n ops=0 p reclaim
	reclaimer &
	reclaim=$!
	for n in $(seq "$BTRFS_STRESS_PROCS"); do
		( echo $BASHPID > $cg/cgroup.procs && stress "$1-$n" "$2" ) \
			> "/tmp/stress-$1-$n.txt" &
		pids+=($!)
	done
	(
		echo $BASHPID > $cg/cgroup.procs || exit 1
		end=$(( $(date +%s) + $2 )) reads=0
		while [ "$(date +%s)" -lt $end ]; do
			# Its cached pages may be charged elsewhere (phase 1
			# wrote them).  Evicting its inode first (nothing holds
			# it between reads) makes every read charge the cgroup
			# with all 20 MiB, whatever the host's load.  Not
			# fadvise(DONTNEED) (dd iflag=nocache): with it, five
			# reads here never took the cgroup over memory.high.
			echo 2 > /proc/sys/vm/drop_caches
			cat $mnt/frag > /dev/null || exit 1
			reads=$(( reads + 1 ))
		done
		echo "$reads"
	) > "/tmp/stress-$1-reader.txt" &
	pids+=($!)
	for p in "${pids[@]}"; do
		wait "$p" || fail "stress process $p"
	done
	kill $reclaim
	wait $reclaim 2> /dev/null
	for n in $(seq "$BTRFS_STRESS_PROCS"); do
		ops=$(( ops + $(cat "/tmp/stress-$1-$n.txt") ))
	done
	echo "guest: stress $1: $ops operations, $(cat "/tmp/stress-$1-reader.txt")" \
		"reads of frag; $(cat /tmp/reclaim.txt)"
}
: "${BTRFS_MEMCG_MB:=8}"
memcg_setup
echo "guest: extent maps before the stress: $(em_objects) (slab objects)"
half=$(( BTRFS_STRESS_SECONDS / 2 ))
run_stress plain $half
mount -o remount,compress=zstd $mnt || fail "remount with compress=zstd"
run_stress zstd $half
# Every reclaim of the cgroup's pages and inodes: pgscan and pgsteal.
echo "guest: memory cgroup, memory.high ${BTRFS_MEMCG_MB} MiB:" \
	"$(grep -E '^(pgscan|pgsteal|workingset_refault_file) ' $cg/memory.stat | tr '\n' ' ')"
echo "guest: its events: $(tr '\n' ' ' < $cg/memory.events)"
grep -q '^oom_kill 0$' $cg/memory.events || fail "the memory cgroup killed a stress process"
grep -qE '^pgsteal [1-9]' $cg/memory.stat || fail "nothing was reclaimed from the memory cgroup"
grep -qE '^high [1-9]' $cg/memory.events || fail "the stress never went over memory.high"
echo "guest: extent maps after the stress: $(em_objects) (slab objects)"
took "stress"

# 3. Checksums across an unmount, check and scrub.
(cd $mnt && find . -type f -print0 | sort -z | xargs -0 sha256sum) > /tmp/sums
umount $mnt || exit 1
btrfs check --readonly "$dev" > /tmp/btrfs-check.txt 2>&1 ||
	{ cat /tmp/btrfs-check.txt; fail "btrfs check"; }
mount -t btrfs "$dev" $mnt || exit 1
btrfs scrub start -B $mnt > /tmp/scrub.txt 2>&1 ||
	{ cat /tmp/scrub.txt; fail "scrub"; }
grep -E 'Error summary' /tmp/scrub.txt
echo 3 > /proc/sys/vm/drop_caches
(cd $mnt && sha256sum --quiet -c /tmp/sums) || fail "contents changed across unmount"
echo "guest: $(wc -l < /tmp/sums) files the same after unmount, check and scrub"
took "check and scrub"

# 4. On a kernel with failslab (debug kernel a): an insert that must split
# a leaf does so under the tree's write lock, where it cannot sleep, so
# its allocation may fail where btrfs's rbtree never allocated; the
# leaves extent_map_write_lock() preloaded must then take its place.
# Fail every one of the index's non-sleeping leaf allocations (at 10%,
# a run of 215 writes split too few leaves to meet one failure) while a
# writer fsyncs random 4 KiB writes: failslab must have failed some, every
# write and fsync must succeed with no extent map left uncached, every
# write must read back after the failures stop and the caches are
# dropped, and the file system must pass btrfs check.
fsl=/sys/kernel/debug/failslab
if [ -d $fsl ]; then
	leaf_caches_failslab
	/usr/bin/python3 btrfs/acked_writes.py layout $mnt/acked || fail "acked writes layout"
	# ignore-gfp-wait: only the allocations that cannot sleep fail.
	# times counts down once per failure injected.
	fsl_times=100000000
	fault_attrs $fsl cache-filter=Y ignore-gfp-wait=Y task-filter=N space=0 \
		verbose=0 interval=1 times=$fsl_times probability=100
	/usr/bin/python3 btrfs/acked_writes.py write $mnt/acked \
		"${BTRFS_FAILSLAB_SECONDS:-20}" /tmp/acked.json || fail "acked writes"
	echo 0 > $fsl/probability
	fsl_failed=$((fsl_times - $(cat $fsl/times)))
	# A lower bound: the message is ratelimited.
	fsl_uncached=$(dmesg | grep -c 'extent map .* not cached: out of memory')
	echo "guest: failslab: $fsl_failed leaf allocations failed," \
		"$fsl_uncached extent maps reported not cached"
	[ "$fsl_failed" -gt 0 ] ||
		fail "failslab failed no leaf allocation: the split path went untested"
	[ "$fsl_uncached" -eq 0 ] ||
		fail "extent maps went uncached under failslab despite the preload"
	/usr/bin/python3 btrfs/acked_writes.py no-errors /tmp/acked.json ||
		fail "a write or fsync failed under failslab despite the preload"
	echo 3 > /proc/sys/vm/drop_caches
	/usr/bin/python3 btrfs/acked_writes.py verify $mnt/acked /tmp/acked.json ||
		fail "an acknowledged write was lost under failslab"
	umount $mnt || exit 1
	btrfs check --readonly "$dev" > /tmp/btrfs-check.txt 2>&1 ||
		{ cat /tmp/btrfs-check.txt; fail "btrfs check after failslab"; }
	mount -t btrfs "$dev" $mnt || exit 1
	/usr/bin/python3 btrfs/acked_writes.py verify $mnt/acked /tmp/acked.json ||
		fail "an acknowledged write was lost across the remount after failslab"
	took "failslab on the index's leaves"
fi
umount $mnt
rmmod btrfs || fail "rmmod btrfs"
rmmod skiplist || fail "rmmod skiplist"
leaks "after btrfs's run and unload"
exit $status
