#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In the VM (make btrfs-layout-cost): what it costs btrfs to fragment one
# file into N extents, with Debian's btrfs.ko and with ours, by layout
# method and size, so that a cost per extent that grows with N is traced
# to btrfs or to our index.  Each cell: mkfs on the virtio disk, mount, the
# layout (fio's writes, timed apart from the fsync after them), the
# extents counted with filefrag, unmount.  The modules take turns within
# each (size, method), in an order that alternates, so that a drift in the
# emulator's speed does not favour one.
#
# Methods (fio, 4 KiB blocks, psync, crc32c verify headers as check-btrfs
# writes them; N extents each, counted as FIEMAP lists them):
#   prealloc2  check-btrfs's layout: fio preallocates N * 4 KiB, writes
#              every other block, wraps and writes them again (the second
#              pass copies each block on write); written and unwritten
#              extents alternate; one fsync at the end
#   prealloc   the same in one pass (each block written once, into the
#              preallocated extent)
#   sparse     no preallocation: every other block of N * 8 KiB written
#              once, holes between; one fsync at the end
#   direct     as sparse, with O_DIRECT (each write allocates its extent)
#   sparse-fsync
#              as sparse, with an fsync every LAYOUT_FSYNC_EVERY writes
#
#   LAYOUT_OUT=DIR LAYOUT_SIZES="5000 10000" LAYOUT_METHODS="prealloc"
#   LAYOUT_MODULES="debian ours" BTRFS_KO=... SKIPLIST_KO=...
#   btrfs/guest-layout-cost.sh
#
# Writes DIR/machine.txt (kernel, vcpus, accel, boot, date) and
# DIR/layout.txt: one line per cell, "key=value" fields: module,
# method, extents_asked, extents (filefrag's count), write_s, fsync_s,
# total_s, sys_s (system CPU seconds of the whole VM over the cell),
# us_per_extent (total over extents), mkfs_s (mkfs and mount), fiemap_s (counting the extents),
# umount_s, slab_mb and available_mb (from
# /proc/meminfo, with the file still mounted).  With LAYOUT_PERF=1 it also
# profiles (perf, cpu-clock) the largest size of each method once per
# module afterwards: DIR/profile--METHOD--MODULE.txt.
. "$(dirname "$0")/../tools/vm/guest-lib.sh"
. "$(dirname "$0")/guest-modules.sh"

: "${LAYOUT_OUT:?}"
: "${LAYOUT_SIZES:=5000 10000 20000}"
: "${LAYOUT_METHODS:=prealloc}"
: "${LAYOUT_MODULES:=debian ours}"
: "${LAYOUT_FSYNC_EVERY:=256}"
mnt=/tmp/btrfs-layout
results=$LAYOUT_OUT/layout.txt

dev=$(disk_by_serial slbtrfs) || { echo "guest: no disk slbtrfs"; exit 1; }
mkdir -p "$mnt" "$LAYOUT_OUT" || exit 1
: > "$results"
rm -f "$LAYOUT_OUT"/profile--*.txt
{
	echo "kernel=$(uname -r)"
	echo "vcpus=$(nproc)"
	echo "accel=${SL_VM_ACCEL:-unknown}"
	echo "boot=$(tr ' ' '\n' < /proc/cmdline | grep -E '^(slub_debug|slab_nomerge)' | tr '\n' ' ')"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$LAYOUT_OUT/machine.txt"

# System CPU seconds of the whole machine so far (USER_HZ ticks).
sys_ticks() {
	awk '/^cpu / { print $4 + $7 + $8 }' /proc/stat
}

# fio's options for METHOD and N extents.  fio's write:4k skips 4 KiB
# after each write and wraps at --size until it has written --io_size.
layout_args() {
	local n=$2
	case $1 in
	prealloc2) echo "--size=$(( n * 4 ))k" ;;
	prealloc) echo "--size=$(( n * 4 ))k --io_size=$(( n * 2 ))k" ;;
	sparse) echo "--size=$(( n * 8 ))k --io_size=$(( n * 4 ))k --fallocate=none" ;;
	direct) echo "--size=$(( n * 8 ))k --io_size=$(( n * 4 ))k --fallocate=none --direct=1" ;;
	sparse-fsync) echo "--size=$(( n * 8 ))k --io_size=$(( n * 4 ))k --fallocate=none --fsync=$LAYOUT_FSYNC_EVERY" ;;
	*) return 1 ;;
	esac
}

# The file's extents as FIEMAP lists them (filefrag's own count merges
# extents that are contiguous on disk).
file_extents() {
	filefrag -v "$1" | grep -cE '^ *[0-9]+: '
}

# One cell: MODULE METHOD N [perf-output]
cell() {
	local module=$1 method=$2 n=$3 prof=${4:-} args t0 t1 t2 s0 s1 extents
	local f=$mnt/frag mem t3 t4 t5 mkfs

	args=$(layout_args "$method" "$n") || { fail "no layout method '$method'"; return 1; }
	if [ "$module" != "$loaded" ]; then
		t0=$(now)
		btrfs_use "$module" || return 1
		loaded=$module
		echo "guest: loading $module took $(echo "$(now) - $t0" | bc) s"
	fi
	t0=$(now)
	mkfs.btrfs -q -f -K "$dev" > /dev/null || return 1
	mount -t btrfs "$dev" "$mnt" || return 1
	mkfs=$(echo "$(now) - $t0" | bc)
	local fio=(fio --name=frag --filename="$f" --rw=write:4k --bs=4k
		   --ioengine=psync --verify=crc32c --do_verify=0 --verify_state_save=0
		   --output=/tmp/fio-layout.txt $args)
	if [ -n "$prof" ]; then
		fio+=(--end_fsync=1)
		perf record -q -e cpu-clock -F 499 -a -g -o /tmp/layout-perf.data \
			-- "${fio[@]}" > /dev/null 2>&1 || fail "perf record of $method on $module"
		{
			perf report -i /tmp/layout-perf.data --stdio --no-children \
				--sort dso --percent-limit 0.5 2>/dev/null | grep -v '^#' | grep -v '^$'
			echo
			perf report -i /tmp/layout-perf.data --stdio --no-children -g none \
				--sort sym --percent-limit 0.3 2>/dev/null | grep -v '^#' | grep -v '^$'
			echo
			perf report -i /tmp/layout-perf.data --stdio --children -g none \
				--sort sym --percent-limit 2 2>/dev/null | grep -v '^#' | grep -v '^$'
		} > "$prof"
		rm -f /tmp/layout-perf.data
		umount "$mnt"
		return 0
	fi
	s0=$(sys_ticks)
	t0=$(now)
	"${fio[@]}" || { cat /tmp/fio-layout.txt; fail "fio $method $n on $module"; umount "$mnt"; return 1; }
	t1=$(now)
	sync "$f" || fail "fsync of $method $n on $module"
	t2=$(now)
	s1=$(sys_ticks)
	t3=$(now)
	extents=$(file_extents "$f")
	t4=$(now)
	mem=$(awk '/^Slab:/ { s = $2 } /^MemAvailable:/ { a = $2 }
		END { printf "slab_mb=%d available_mb=%d", s / 1024, a / 1024 }' /proc/meminfo)
	umount "$mnt" || return 1
	t5=$(now)
	awk -v m="$module" -v me="$method" -v n="$n" -v e="$extents" \
		-v t0="$t0" -v t1="$t1" -v t2="$t2" -v s="$(( s1 - s0 ))" \
		-v mkfs="$mkfs" -v fiemap="$(echo "$t4 - $t3" | bc)" -v umount="$(echo "$t5 - $t4" | bc)" \
		-v hz="$(getconf CLK_TCK)" -v mem="$mem" 'BEGIN {
		printf "module=%s method=%s extents_asked=%d extents=%d write_s=%.2f fsync_s=%.2f total_s=%.2f sys_s=%.2f us_per_extent=%.0f mkfs_s=%.2f fiemap_s=%.2f umount_s=%.2f %s\n",
			m, me, n, e, t1 - t0, t2 - t1, t2 - t0, s / hz,
			(t2 - t0) * 1e6 / (e > 0 ? e : 1), mkfs, fiemap, umount, mem }' | tee -a "$results"
	[ "$extents" -ge "$n" ] || fail "$method on $module: $extents extents, wanted $n"
}

# Each size: one module through every method, then the other (a swap
# costs our module's sanity tests), the first module alternating.
loaded=
turn=0
for n in $LAYOUT_SIZES; do
	set -- $LAYOUT_MODULES
	[ $(( turn % 2 )) -eq 0 ] || set -- $(printf '%s\n' "$@" | tac)
	for module in "$@"; do
		for method in $LAYOUT_METHODS; do
			cell "$module" "$method" "$n" || fail "cell $module $method $n"
		done
	done
	turn=$(( turn + 1 ))
	took "layouts of $n extents"
done

if [ "${LAYOUT_PERF:-0}" = 1 ]; then
	command -v perf > /dev/null || { echo "guest: perf missing, no profile"; exit $status; }
	set -- $LAYOUT_SIZES
	n=$(printf '%s\n' "$@" | sort -n | tail -1)
	for module in $LAYOUT_MODULES; do
		for method in $LAYOUT_METHODS; do
			cell "$module" "$method" "$n" "$LAYOUT_OUT/profile--$method--$module.txt" ||
				fail "profile $module $method $n"
		done
	done
	took "profiles"
fi
[ ! -d /sys/module/btrfs ] || rmmod btrfs || fail "rmmod btrfs"
exit $status
