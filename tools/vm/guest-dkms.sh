# SPDX-License-Identifier: GPL-2.0
# Sourced (bash) by tools/vm/guest-selftests.sh when check-vm gives it
# SL_DKMS_DIR: the suite then runs on the modules as DKMS installed them.
#
# tools/install/check-dkms.sh ran the real make install on the host, in a
# mount namespace whose writes vanish: DKMS built the modules for both
# kernels, installed them in /lib/modules/KERNEL/updates/dkms and ran
# depmod; it saved what that changed in /lib/modules in
# SL_DKMS_DIR/lib-modules, and checked that make uninstall (dkms remove)
# leaves nothing behind.  Here that layer goes over the guest's
# /lib/modules (an overlay, with a tmpfs for what the guest writes), so
# that modprobe finds the modules through DKMS's modules.dep and loads
# DKMS's files, signed, stripped and, on 6.12, xz-compressed, into the
# kernel they were built for.
#
# Why the guest does not run dkms itself: every dkms install and remove
# runs depmod, which reads every one of the kernel's 4,000 modules, and
# the guest's root is 9p, which under software emulation read about 0.5
# MB/s here: a depmod would take most of an hour.  DKMS's build of the
# modules had not finished after 20 minutes (Documentation/install.rst).
# shellcheck shell=bash

dkms_version=$(cat VERSION)
dkms_tmp=/run/sl-dkms

# The path of module $1 as the suite loads it.
dkms_ko() {
	modinfo -n "$1"
}

dkms_guest_install() {
	local k m path layer

	k=$(uname -r)
	layer=$PWD/$SL_DKMS_DIR/lib-modules
	[ -d "$layer/$k/updates/dkms" ] ||
		{ echo "guest: no DKMS install for $k in $layer: run 'make check-dkms'"; return 1; }
	mkdir -p "$dkms_tmp" && mount -t tmpfs sl-dkms "$dkms_tmp" &&
		mkdir "$dkms_tmp/upper" "$dkms_tmp/work" &&
		mount -t overlay -o "lowerdir=$layer:/usr/lib/modules,upperdir=$dkms_tmp/upper,workdir=$dkms_tmp/work" \
			sl-dkms /usr/lib/modules || return 1
	for m in skiplist skiplist_dev test_skiplist sl_extent sl_extent_dev sl_iommu sl_lsm sl_bench; do
		path=$(modinfo -n "$m" 2>/dev/null)
		case "$path" in
		/lib/modules/$k/updates/dkms/$m.ko*) ;;
		*) echo "guest: modprobe would load $m from '$path', not from DKMS's updates/dkms"; return 1 ;;
		esac
		[ "$(modinfo -F version "$m")" = "$dkms_version" ] ||
			{ echo "guest: $path is not version $dkms_version"; return 1; }
	done
	echo "guest: the modules DKMS installed for $k, version $dkms_version, from updates/dkms"
}

# The dependencies modules.dep gives modprobe, both ways.
dkms_guest_modprobe() {
	local m

	modprobe skiplist_dev || { fail "modprobe skiplist_dev"; return; }
	[ -e /sys/module/skiplist/holders/skiplist_dev ] ||
		fail "modprobe skiplist_dev did not load skiplist under it"
	[ "$(cat /sys/module/skiplist/version)" = "$dkms_version" ] ||
		fail "/sys/module/skiplist/version is not $dkms_version"
	modprobe -r skiplist_dev || fail "modprobe -r skiplist_dev"
	for m in skiplist_dev skiplist; do
		[ ! -e /sys/module/$m ] || fail "modprobe -r skiplist_dev left $m loaded"
	done
	modprobe sl_lsm || { fail "modprobe sl_lsm"; return; }
	for m in libcrc32c skiplist sl_extent; do
		[ -e /sys/module/$m ] || fail "modprobe sl_lsm did not load $m"
	done
	modprobe -r sl_lsm || fail "modprobe -r sl_lsm"
	for m in sl_lsm sl_extent; do
		[ ! -e /sys/module/$m ] || fail "modprobe -r sl_lsm left $m loaded"
	done
	# Debian 12's modprobe (kmod 30) tries a module's dependencies once,
	# in the order it loaded them: it comes to skiplist while sl_extent
	# still holds it, and leaves it.  A second modprobe -r takes it out.
	if [ -e /sys/module/skiplist ]; then
		modprobe -r skiplist || fail "modprobe -r skiplist after sl_lsm"
	fi
	[ ! -e /sys/module/skiplist ] || fail "skiplist still loaded after modprobe -r"
	echo "guest: modprobe: skiplist_dev pulls in skiplist, sl_lsm libcrc32c, sl_extent and skiplist; modprobe -r takes them out"
}

# Lazily: udevd keeps modules.*.bin mapped once it has read the new ones.
dkms_guest_end() {
	umount -l /usr/lib/modules && umount -l "$dkms_tmp" ||
		fail "could not take DKMS's layer off /lib/modules"
}
