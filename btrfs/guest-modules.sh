# SPDX-License-Identifier: GPL-2.0
# Sourced by the btrfs guest scripts (guest-btrfs.sh, guest-layout-cost.sh,
# guest-bench-btrfs.sh): which btrfs.ko is loaded, and swapping it.
#
#   btrfs_use debian|ours
#
# "debian" is the kernel's own module (modprobe btrfs); "ours" is
# $BTRFS_KO, the build of make btrfs, with $SKIPLIST_KO under it.
# Nothing of btrfs may be mounted.  insmod does not resolve dependencies,
# so btrfs's come from modprobe first.  Our module runs btrfs's sanity
# tests at load; it refuses to load if one fails.

btrfs_use() {
	if [ -d /sys/module/btrfs ]; then
		rmmod btrfs || { echo "guest: cannot remove the loaded btrfs.ko"; return 1; }
	fi
	case $1 in
	debian)
		modprobe btrfs || { echo "guest: modprobe btrfs (Debian's) failed"; return 1; }
		[ ! -e /sys/module/skiplist/holders/btrfs ] ||
			{ echo "guest: modprobe btrfs loaded ours, not Debian's"; return 1; }
		;;
	ours)
		: "${BTRFS_KO:?}" "${SKIPLIST_KO:?}"
		# Debian's kernel has them as modules; debug kernel a builds
		# them in and has no module tree (make check-btrfs-debug).
		if [ -d "/lib/modules/$(uname -r)/kernel" ]; then
			for m in zstd_compress raid6_pq xor libcrc32c; do
				modprobe "$m" || { echo "guest: modprobe $m failed"; return 1; }
			done
		fi
		[ -d /sys/module/skiplist ] || insmod "$SKIPLIST_KO" || return 1
		insmod "$BTRFS_KO" || {
			dmesg | tail -40
			echo "guest: insmod $BTRFS_KO failed (a sanity test?)"
			return 1
		}
		[ -e /sys/module/skiplist/holders/btrfs ] ||
			{ echo "guest: the btrfs.ko loaded does not use the skiplist"; return 1; }
		;;
	*)
		echo "guest: btrfs_use: no module '$1' (debian or ours)"
		return 1
		;;
	esac
}

# Seconds since the epoch, to the nanosecond (the parts' timings).
now() {
	date +%s.%N
}
