# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest scripts (guest-selftests.sh, guest-debug.sh): how a
# part fails the run, and how each part says how long it took, to show
# where the suite's time goes.
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
