#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In the VM (make check-btrfs): Debian's btrfs.ko out, ours in, its sanity
# tests at load, then a real file system on a virtio disk: fio writes that
# fragment a file into many extents while two jobs read and verify it,
# unmount, btrfs check, mount again, scrub, and the checksums compared.
#
#   BTRFS_KO=... SKIPLIST_KO=... btrfs/guest-btrfs.sh
. "$(dirname "$0")/../tools/vm/guest-lib.sh"

: "${BTRFS_KO:?}" "${SKIPLIST_KO:?}"
: "${BTRFS_FILE_MB:=64}"
mnt=/tmp/btrfs-mnt

dev=$(disk_by_serial slbtrfs) || { echo "guest: no disk slbtrfs"; exit 1; }
[ -d /sys/module/btrfs ] && { rmmod btrfs || { echo "guest: cannot remove Debian's btrfs"; exit 1; }; }
for m in zstd_compress raid6_pq xor libcrc32c; do
	modprobe "$m" || { echo "guest: modprobe $m failed"; exit 1; }
done
[ -d /sys/module/skiplist ] || insmod "$SKIPLIST_KO" || exit 1
dmesg -C
insmod "$BTRFS_KO" || { dmesg | tail -40; echo "guest: insmod btrfs.ko failed (sanity tests?)"; exit 1; }
dmesg | grep -E 'BTRFS: selftest|running extent_map' | tail -5
dmesg | grep -q 'running extent_map tests' || fail "the extent map sanity tests did not run"
took "load and sanity tests"

mkfs.btrfs -q -f "$dev" || exit 1
mkdir -p $mnt
mount -t btrfs "$dev" $mnt || exit 1
# Random 4 KiB writes with fsync fragment the file: an extent each.
fio --name=frag --filename=$mnt/data --size=${BTRFS_FILE_MB}M --rw=randwrite \
	--bs=4k --fsync=16 --ioengine=psync --verify=crc32c --do_verify=0 \
	--randrepeat=1 --output=/tmp/fio-frag.txt || fail "fio write"
extents=$(filefrag $mnt/data | awk '{print $2}')
echo "guest: $mnt/data has $extents extents"
# Two readers verify while a writer keeps splitting extents elsewhere.
fio --name=verify --filename=$mnt/data --size=${BTRFS_FILE_MB}M --rw=randread \
	--bs=4k --ioengine=psync --verify=crc32c --verify_only --numjobs=2 \
	--randrepeat=1 --output=/tmp/fio-verify.txt &
reader=$!
fio --name=split --filename=$mnt/other --size=16M --rw=randwrite --bs=4k \
	--fsync=8 --ioengine=psync --output=/tmp/fio-split.txt || fail "fio split"
wait $reader || { cat /tmp/fio-verify.txt; fail "fio verify"; }
sum_before=$(sha256sum $mnt/data $mnt/other | awk '{print $1}')
took "fio"
umount $mnt || exit 1
btrfs check --readonly "$dev" > /tmp/btrfs-check.txt 2>&1 ||
	{ cat /tmp/btrfs-check.txt; fail "btrfs check"; }
mount -t btrfs "$dev" $mnt || exit 1
btrfs scrub start -B $mnt > /tmp/scrub.txt 2>&1 || { cat /tmp/scrub.txt; fail "scrub"; }
grep -E 'Error summary' /tmp/scrub.txt
echo 3 > /proc/sys/vm/drop_caches
sum_after=$(sha256sum $mnt/data $mnt/other | awk '{print $1}')
[ "$sum_before" = "$sum_after" ] || fail "contents changed across unmount"
umount $mnt
rmmod btrfs || fail "rmmod btrfs"
took "check and scrub"
exit $status
