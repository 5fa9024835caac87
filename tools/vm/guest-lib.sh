# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest scripts (guest-selftests.sh, guest-debug.sh,
# guest-lsm.sh): how a part fails the run, how each part says how long it
# took, to show where the suite's time goes, and how a script finds the
# disks vm-run --drive gave it.
status=0

fail() {
	echo "guest: FAIL: $*"
	status=1
}

t0=$(date +%s)
took() {
	echo "guest: $1 took $(( $(date +%s) - t0 )) s"
	t0=$(date +%s)
}

# The virtio disk with serial $1, as /dev/NAME.
disk_by_serial() {
	for d in /sys/block/vd*; do
		[ "$(cat "$d/serial" 2> /dev/null)" = "$1" ] &&
			{ echo "/dev/${d##*/}"; return 0; }
	done
	return 1
}
