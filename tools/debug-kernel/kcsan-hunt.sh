#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs in a kernel b guest (prove-checkers.py): loads the skiplist modules
# from DIR and repeats concurrency_test until KCSAN reports a race in them
# or SECONDS have passed, then says after how long it stopped.
#
#   tools/debug-kernel/kcsan-hunt.sh DIR SECONDS
#
# KCSAN watches one access in 4000 by default (randomised), each for up to
# 80 us; one in 40 here, so that a race between a hot plain read and a
# rarer write is seen within minutes.  The kernel judges the run: a report
# naming our modules fails it (tools/vm/vm-run).
dir=$1
seconds=$2
insmod "$dir/skiplist.ko" && insmod "$dir/skiplist_dev.ko" || exit 1
echo 40 > /sys/module/kcsan/parameters/skip_watch
start=$(date +%s)
until dmesg | grep -q 'BUG: KCSAN: .*\[skiplist'; do
	[ $(($(date +%s) - start)) -lt "$seconds" ] || break
	SL_STRESS_SECONDS=10 build/selftests/concurrency_test > /dev/null 2>&1
done
echo "hunt: stopped after $(($(date +%s) - start)) s of concurrency_test"
