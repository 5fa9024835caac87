#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In the VM (make check-btrfs): Debian's btrfs.ko out, ours in, its sanity
# tests at load, then a real file system on a virtio disk:
#  1. a file of BTRFS_EXTENTS extents (4 KiB written, 4 KiB skipped), read
#     back and verified (crc32c) by two fio jobs while a third splits the
#     extents of another file with random overwrites and fsync, and caches
#     are dropped beside them (pages of files over 16 MiB take their extent
#     maps with them, and evicted inodes all of theirs);
#  2. a stress of BTRFS_STRESS_SECONDS: several processes creating,
#     writing, punching holes, truncating, reflinking, renaming and
#     unlinking, first plain and then mounted with compress=zstd;
#  3. checksums of every file, unmount, btrfs check, mount, scrub, drop
#     caches, checksums again.
#
#   BTRFS_KO=... SKIPLIST_KO=... btrfs/guest-btrfs.sh
. "$(dirname "$0")/../tools/vm/guest-lib.sh"

: "${BTRFS_KO:?}" "${SKIPLIST_KO:?}"
: "${BTRFS_EXTENTS:=10000}"
: "${BTRFS_STRESS_SECONDS:=60}"
: "${BTRFS_STRESS_PROCS:=4}"
mnt=/tmp/btrfs-mnt

dev=$(disk_by_serial slbtrfs) || { echo "guest: no disk slbtrfs"; exit 1; }
if [ -d /sys/module/btrfs ]; then
	rmmod btrfs || { echo "guest: cannot remove Debian's btrfs"; exit 1; }
fi
for m in zstd_compress raid6_pq xor libcrc32c; do
	modprobe "$m" || { echo "guest: modprobe $m failed"; exit 1; }
done
[ -d /sys/module/skiplist ] || insmod "$SKIPLIST_KO" || exit 1
dmesg -C
if ! insmod "$BTRFS_KO"; then
	dmesg | tail -40
	echo "guest: insmod btrfs.ko failed (a sanity test?)"
	exit 1
fi
dmesg | grep -q 'running extent_map tests' ||
	fail "btrfs's extent map sanity tests did not run"
took "load and sanity tests"

mkfs.btrfs -q -f "$dev" > /dev/null || exit 1
mkdir -p $mnt
mount -t btrfs "$dev" $mnt || exit 1

# 1. Many extents, read while others are split and caches dropped.
# fio's size counts the skipped blocks too: one extent per 4 KiB of it.
size=$(( BTRFS_EXTENTS * 4 ))k
fio --name=frag --filename=$mnt/frag --size="$size" --rw=write:4k --bs=4k \
	--ioengine=psync --end_fsync=1 --verify=crc32c --do_verify=0 \
	--output=/tmp/fio-frag.txt || { cat /tmp/fio-frag.txt; fail "fio frag"; }
extents=$(filefrag $mnt/frag | awk '{print $2}')
echo "guest: frag has $extents extents"
[ "$extents" -ge "$BTRFS_EXTENTS" ] ||
	fail "frag has $extents extents, wanted $BTRFS_EXTENTS"
fio --name=split --filename=$mnt/split --size=32M --rw=write --bs=1M \
	--ioengine=psync --end_fsync=1 --output=/tmp/fio-split0.txt ||
	fail "fio split layout"
took "layout"
fio --name=verify --filename=$mnt/frag --size="$size" --rw=read:4k --bs=4k \
	--ioengine=psync --verify=crc32c --verify_only --numjobs=2 \
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
run_stress() {
	local pids=() n ops=0 p
	for n in $(seq "$BTRFS_STRESS_PROCS"); do
		stress "$1-$n" "$2" > "/tmp/stress-$1-$n.txt" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || fail "stress process $p"
	done
	for n in $(seq "$BTRFS_STRESS_PROCS"); do
		ops=$(( ops + $(cat "/tmp/stress-$1-$n.txt") ))
	done
	echo "guest: stress $1: $ops operations"
}
half=$(( BTRFS_STRESS_SECONDS / 2 ))
run_stress plain $half
mount -o remount,compress=zstd $mnt || fail "remount with compress=zstd"
run_stress zstd $half
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
umount $mnt
rmmod btrfs || fail "rmmod btrfs"
took "check and scrub"
exit $status
