#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In the VM (make bench-btrfs): Debian's btrfs.ko against ours on the same
# file system, for tools/bench/btrfs/report.py.
#
#  1. A RAM disk (brd) of BENCH_DISK_MB, made btrfs once with Debian's
#     module, holding a file of BENCH_EXTENTS extents (btrfs/fragment.py:
#     BENCH_BASE blocks written so that none merges, then cloned until the
#     file has them all).  A RAM disk, so that the emulated disk's cost
#     does not hide the extent map's: each read is a copy in the guest.
#  2. BENCH_ROUNDS rounds; in each, both modules in turn (the first one
#     alternating): load it, mount, read the whole file once with O_DIRECT
#     (every extent's map is then cached: slabinfo before and after), then
#     each workload for BENCH_SECONDS (fio's jobs as threads of one
#     process, which start sooner than processes), then unmount.  O_DIRECT, so that
#     every read looks its extent up in the extent map cache (a read the
#     page cache serves never reaches btrfs):
#       randread-1, randread-2, randread-16
#                  random 4 KiB reads from 1, 2 and 16 jobs
#       seqread    sequential 128 KiB reads (32 extents each), one job
#       splitwrite random 4 KiB writes from one job into a file of
#                  BENCH_SPLIT_MB written beforehand in large extents
#                  (each write splits an extent map in three); the file
#                  is made afresh for each module and round
#  3. Each module once more, caching the maps of the file's first
#     BENCH_RANDOM_EXTENTS blocks in random order instead (slabinfo before
#     and after, into OUTDIR/random/): 4 KiB reads cost a million extents
#     some ten minutes a module under emulation.
#  4. Each workload of BENCH_PROFILE (a list) once more on each module
#     under perf (cpu-clock: the emulated guest has no PMU), system-wide.
#
#   guest-bench-btrfs.sh OUTDIR   (BTRFS_KO=... SKIPLIST_KO=... in the
#                                  environment, as for guest-btrfs.sh)
#
# OUTDIR gets machine.txt (key=value), layout.txt (fragment.py's output),
# and per round rROUND/: MODULE.slab-before, MODULE.slab-after (slabinfo
# around the warm read), MODULE.warm (its seconds), and per cell
# WORKLOAD--MODULE.json (fio), .cpu (/proc/stat's cpu line before and
# after) and .err; random/MODULE.slab-{before,after} and .warm from step
# 3; profile--WORKLOAD--MODULE.txt from step 4.
. "$(dirname "$0")/../tools/vm/guest-lib.sh"
. "$(dirname "$0")/guest-modules.sh"

out=${1:?usage: guest-bench-btrfs.sh OUTDIR}
: "${BENCH_EXTENTS:=1048576}"
: "${BENCH_BASE:=16384}"
: "${BENCH_ROUNDS:=3}"
: "${BENCH_SECONDS:=10}"
: "${BENCH_DISK_MB:=2048}"
: "${BENCH_SPLIT_MB:=256}"
: "${BENCH_RANDOM_EXTENTS:=131072}"
[ "$BENCH_RANDOM_EXTENTS" -le "$BENCH_EXTENTS" ] || BENCH_RANDOM_EXTENTS=$BENCH_EXTENTS
: "${BENCH_MODULES:=debian ours}"
: "${BENCH_WORKLOADS:=randread-1 randread-2 randread-16 seqread splitwrite}"
mnt=/tmp/btrfs-bench
frag=$mnt/frag
split=$mnt/split
py=/usr/bin/python3

command -v fio > /dev/null || { echo "guest: fio missing: run 'make setup'"; exit 1; }
mkdir -p "$out" "$mnt" || exit 1
rm -rf "$out"/r[0-9]* "$out"/profile--*.txt

modprobe brd rd_nr=1 rd_size=$(( BENCH_DISK_MB * 1024 )) ||
	{ echo "guest: modprobe brd failed"; exit 1; }
dev=/dev/ram0
[ -b $dev ] || { echo "guest: no $dev after modprobe brd"; exit 1; }
{
	echo "kernel=$(uname -r)"
	echo "vcpus=$(nproc)"
	echo "accel=${SL_VM_ACCEL:-unknown}"
	echo "memory_mb=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)"
	echo "runtime_s=$BENCH_SECONDS"
	echo "user_hz=$(getconf CLK_TCK)"
	echo "extents=$BENCH_EXTENTS"
	echo "base=$BENCH_BASE"
	echo "disk=brd ${BENCH_DISK_MB} MiB"
	echo "split_mb=$BENCH_SPLIT_MB"
	echo "random_extents=$BENCH_RANDOM_EXTENTS"
	echo "boot=$(tr ' ' '\n' < /proc/cmdline | grep -E '^(clocksource|tsc|slub_debug|slab_nomerge)' | tr '\n' ' ')"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$out/machine.txt"

# 1. The file system and its file, once.
btrfs_use debian || exit 1
mkfs.btrfs -q -f -K $dev > /dev/null || exit 1
mount -t btrfs $dev $mnt || exit 1
$py btrfs/fragment.py make $frag "$BENCH_EXTENTS" --base "$BENCH_BASE" |
	tee "$out/layout.txt" || { fail "fragment.py"; exit 1; }
grep -q "^extents=$BENCH_EXTENTS\$" "$out/layout.txt" || { fail "no file of $BENCH_EXTENTS extents"; exit 1; }
umount $mnt || exit 1
took "the file of $BENCH_EXTENTS extents"

# fio's options for a workload.
workload_args() {
	local common="--ioengine=psync --direct=1 --thread --group_reporting --time_based --runtime=$BENCH_SECONDS"
	case $1 in
	randread-*) echo "--name=$1 --filename=$frag --rw=randread --bs=4k --numjobs=${1#randread-} $common" ;;
	seqread) echo "--name=$1 --filename=$frag --rw=read --bs=128k --numjobs=1 $common" ;;
	splitwrite) echo "--name=$1 --filename=$split --rw=randwrite --bs=4k --numjobs=1 $common" ;;
	*) return 1 ;;
	esac
}
for w in $BENCH_WORKLOADS; do
	workload_args "$w" > /dev/null || { echo "guest: no workload '$w'"; exit 1; }
done

# What a workload needs before it starts: splitwrite, its file of large
# extents (up to 128 MiB each), made durable.
prepare() {
	[ "$1" != splitwrite ] ||
		dd if=/dev/zero of=$split bs=1M count="$BENCH_SPLIT_MB" conv=fsync \
			status=none
}

# One cell: WORKLOAD MODULE DIR
cell() {
	local w=$1 m=$2 dir=$3 stem=$3/$1--$2

	prepare "$w" || { fail "making $split"; return 1; }
	head -1 /proc/stat > "$stem.cpu"
	# shellcheck disable=SC2046
	fio --output-format=json $(workload_args "$w") > "$stem.json" 2> "$stem.err" ||
		{ fail "fio $w on $m"; head -5 "$stem.err"; }
	head -1 /proc/stat >> "$stem.cpu"
	[ "$w" != splitwrite ] || rm -f $split
}

# slabinfo into FILE, after the extent maps' and the skiplist's caches
# have handed their per-CPU slabs back (kmem_cache_shrink()): slabinfo
# counts the free objects of per-CPU slabs as in use, and the last mount's
# freed maps would otherwise be counted as this one's.
slabinfo() {
	local c

	for c in /sys/kernel/slab/btrfs_extent_map /sys/kernel/slab/skiplist_leaf_*; do
		[ ! -w "$c/shrink" ] || echo 1 > "$c/shrink"
	done
	cat /proc/slabinfo > "$1"
}

# Mount with MODULE and cache every extent map of the file: in file order
# (one pass of 1 MiB reads), or with ORDER "random" those of the first
# BENCH_RANDOM_EXTENTS blocks in random order (each block once, fio's
# random map; the same order for both modules).
# slabinfo before and after into PREFIX.slab-{before,after}, the seconds
# into PREFIX.warm.
warm() {
	local m=$1 prefix=$2 order=${3:-file} t0

	btrfs_use "$m" || return 1
	mount -t btrfs $dev $mnt || return 1
	slabinfo "$prefix.slab-before"
	t0=$(now)
	if [ "$order" = random ]; then
		fio --name=fill --filename=$frag --rw=randread --bs=4k --direct=1 \
			--ioengine=psync --size=$(( BENCH_RANDOM_EXTENTS * 4 ))k \
			--output=/tmp/fio-fill.txt || { cat /tmp/fio-fill.txt; return 1; }
	else
		dd if=$frag of=/dev/null bs=1M iflag=direct status=none || return 1
	fi
	echo "$(now) - $t0" | bc > "$prefix.warm"
	slabinfo "$prefix.slab-after"
}

# 2. Rounds.
r=1
while [ $r -le "$BENCH_ROUNDS" ]; do
	mkdir -p "$out/r$r"
	set -- $BENCH_MODULES
	[ $(( r % 2 )) -eq 1 ] || set -- $(printf '%s\n' "$@" | tac)
	for m in "$@"; do
		warm "$m" "$out/r$r/$m" || { fail "mounting and warming with $m"; exit 1; }
		for w in $BENCH_WORKLOADS; do
			cell "$w" "$m" "$out/r$r"
		done
		umount $mnt || { fail "umount with $m"; exit 1; }
		echo "guest: round $r: $m done"
	done
	took "round $r"
	r=$(( r + 1 ))
done

# 3. Memory per cached extent when the maps are cached in random order
# (the rounds cache them in file order, which leaves the skiplist's
# leaves full: an ascending run of inserts splits none in the middle).
mkdir -p "$out/random"
for m in $BENCH_MODULES; do
	warm "$m" "$out/random/$m" random || { fail "caching in random order with $m"; continue; }
	umount $mnt || { fail "umount with $m"; exit 1; }
done
took "caching in random order"

# 4. Where the time goes: each workload of BENCH_PROFILE once more on
# each module, under perf.
if [ -n "${BENCH_PROFILE:-}" ] && ! command -v perf > /dev/null; then
	echo "guest: perf missing, no profile"
elif [ -n "${BENCH_PROFILE:-}" ]; then
	for m in $BENCH_MODULES; do
		warm "$m" /tmp/profile-$m || { fail "warming $m for its profile"; continue; }
		for w in $BENCH_PROFILE; do
			prepare "$w" || { fail "preparing $w"; continue; }
			# shellcheck disable=SC2046
			perf record -q -e cpu-clock -F 999 -a -g -o /tmp/bench-perf.data -- \
				fio --output-format=terse $(workload_args "$w") \
				> /dev/null 2>&1 || fail "perf record of $w on $m"
			{
				echo "## self, by module"
				perf report -i /tmp/bench-perf.data --stdio --no-children -g none \
					--sort dso --percent-limit 0.1 2>/dev/null | grep -v '^#' | grep -v '^$'
				echo "## self, by symbol"
				perf report -i /tmp/bench-perf.data --stdio --no-children -g none \
					--sort sym --percent-limit 0.01 2>/dev/null | grep -v '^#' | grep -v '^$'
				echo "## with children, by symbol"
				perf report -i /tmp/bench-perf.data --stdio --children -g none \
					--sort sym --percent-limit 0.2 2>/dev/null | grep -v '^#' | grep -v '^$'
			} > "$out/profile--$w--$m.txt"
			rm -f /tmp/bench-perf.data $split
			echo "guest: $w on $m profiled"
		done
		umount $mnt || fail "umount after the profile on $m"
	done
fi

[ ! -d /sys/module/btrfs ] || rmmod btrfs || fail "rmmod btrfs"
rmmod brd || fail "rmmod brd"
exit $status
