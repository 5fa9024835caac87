#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest ("make bench-lsm-vm" boots it with tools/vm/vm-run):
# the store through /dev/sl_lsm against RocksDB's db_bench in one VM, on
# the same kind of disk.
#
#   guest-bench-lsm-vm.sh OUT [run.py options...]
#
#  1. sl_lsm.ko and what it needs (guest-lib.sh's lsm_load).
#  2. The virtio disk with serial "slbenchlsm" is the store's, raw; the
#     one with serial "slbenchext4", of the same size, gets a fresh ext4
#     (mkfs.ext4 here, in the guest) mounted for db_bench's --db.
#  3. tools/bench/lsm/run.py --vm with lsm_bench_dev (--lsm-backend dev)
#     on the first disk and db_bench (and rocksdb_extent_bench, for the
#     range and attach workloads) on the second, rounds interleaved;
#     its reports (lsm-vm.json, ...) and raw output go to OUT, the
#     directory vm-run shares with the host.  The host regenerates the
#     reports and the page's section from that JSON afterwards.
#  4. Everything unmounted and unloaded (vm-run checks the kernel log).
kroot=${SL_KMOD_ROOT:-build/kmod-$(uname -r)}
bench=build/bench-obj/lsm/lsm_bench_dev
extent=build/bench-obj/lsm/rocksdb_extent_bench
. tools/vm/guest-lib.sh

out=${1:?usage: guest-bench-lsm-vm.sh OUT [run.py options]}
shift
store=$(disk_by_serial slbenchlsm) ||
	{ echo "guest: no virtio disk with serial slbenchlsm: run 'make bench-lsm-vm'"; exit 1; }
ext=$(disk_by_serial slbenchext4) ||
	{ echo "guest: no virtio disk with serial slbenchext4: run 'make bench-lsm-vm'"; exit 1; }
for exe in "$bench" "$extent"; do
	[ -x "$exe" ] || { echo "guest: $exe missing: run 'make bench-lsm-vm'"; exit 1; }
done
lsm_load "$kroot" || { echo "guest: cannot load sl_lsm.ko: run 'make bench-lsm-vm'"; exit 1; }
took "loading sl_lsm.ko"

# /tmp is the guest's own (an overlay that goes with the VM).
mnt=/tmp/slbench-ext4
mkdir -p "$mnt"
mkfs.ext4 -q -F "$ext" && mount -t ext4 "$ext" "$mnt" || {
	rmmod sl_lsm
	echo "guest: cannot make and mount ext4 on $ext"
	exit 1
}
took "mkfs.ext4 on $ext"
echo "guest: $(nproc) vCPUs, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB," \
	"the store on $store, RocksDB on ext4 on $ext ($(findmnt -n -o OPTIONS "$mnt"))"

python3 tools/bench/lsm/run.py --vm --name lsm-vm --out "$out" \
	--lsm-backend dev --lsm-bench "$bench" --extent-bench "$extent" --lsm-db "$store" \
	--db-dir "$mnt" "$@" || fail "run.py"
took "run.py"

umount "$mnt" || fail "umount $mnt"
rmmod sl_lsm || fail "rmmod sl_lsm"
exit $status
