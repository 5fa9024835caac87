#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Proves vm-run's judgement can fail: every complaint it must catch, planted
# in an otherwise clean boot log, fails the run; the clean log, with the
# boot lines that merely mention bugs, passes; so do the allowed taints.
set -u
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
vmrun=$(dirname "$0")/vm-run
clean='[    1.79] PCI: Using host bridge windows from ACPI; if necessary, use "pci=nocrs" and report a bug
[    0.11] ** If you see this message and you are not debugging    **
[    0.00] 	RCU CPU stall warnings timeout set to 3 (rcu_cpu_stall_timeout).
[    0.00] Kernel command line: preempt=full watchdog_thresh=1 rcupdate.rcu_cpu_stall_timeout=3
[   37.67] skiplist: loading out-of-tree module taints kernel.
[   47.09] test_skiplist: 359 of 359 tests passed'
judge() {
	printf '%s\n%s\n' "$clean" "$1" > "$dir/dmesg.txt"
	echo "$2" > "$dir/taint"
	echo "$3" > "$dir/rc"
	"$vmrun" --scan-only "$dir" >/dev/null 2>&1
}
fails=0
check() {	# expect, log line, taint, rc, what
	if judge "$2" "$3" "$4"; then got=pass; else got=fail; fi
	if [ "$got" != "$1" ]; then
		echo "test-scan: $5: expected $1, got $got"
		fails=$((fails + 1))
	fi
}
check pass "" 12288 0 "clean log, out-of-tree and unsigned taint"
check fail "" 12288 1 "command failed"
check fail "" 512 0 "warning taint"
check fail "" 128 0 "die taint"
check pass "" $((12288 | 1 << 18)) 0 "test taint from the KUnit suite"
while IFS= read -r line; do
	check fail "[ 40.0] $line" 12288 0 "$line"
done <<'LINES'
BUG: unable to handle page fault for address: ffff888000000000
WARNING: CPU: 1 PID: 300 at skiplist/delete.c:60 sl_leaf_merge+0x1/0x2
Oops: 0000 [#1] PREEMPT SMP NOPTI
general protection fault, probably for non-canonical address 0xdead000000000100
refcount_t: underflow; use-after-free.
list_add corruption. prev->next should be next (ffff888003c0e0b8)
list_del corruption, ffff888003c0e0b8->next is LIST_POISON1
BUG skiplist_leaf_1 (Tainted: G O E): Poison overwritten
BUG skiplist_leaf_2: Redzone overwritten
INFO: Object padding overwritten
INFO: task insmod:301 blocked for more than 120 seconds.
rcu: INFO: rcu_sched self-detected stall on CPU
rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { P301 } 3001 jiffies s: 73 root: 0x0/T
watchdog: BUG: soft lockup - CPU#1 stuck for 3s! [whole_index:301]
kmem_cache_destroy skiplist_leaf_1: Slab cache still has objects when called from sl_caches_exit
UBSAN: array-index-out-of-bounds in skiplist/search.c:501:10
Kernel panic - not syncing: Fatal exception
CPU: 0 PID: 1 Comm: init Tainted: G        W  O E      6.1.0-56-amd64 #1
WARNING: possible circular locking dependency detected
WARNING: suspicious RCU usage
BUG: KASAN: slab-use-after-free in sl_descend+0x1e/0x1a0 [skiplist]
kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)
LINES
# KCSAN: a race in our modules fails; one elsewhere in the kernel does not.
kcsan() {	# module name in the report
	printf '%s\n' '==================================================================' \
		"BUG: KCSAN: data-race in sl_descend $1 / sl_leaf_split $1" '' \
		"read to 0xffff888004c0 of 8 bytes by task 301 on cpu 1:" \
		" sl_descend+0x1e/0x1a0 $1" \
		'CPU: 1 PID: 301 Comm: stress Tainted: G           O       6.1.192-skiplist-debug-b #1' \
		'=================================================================='
}
check fail "$(kcsan '[skiplist]')" 12288 0 "KCSAN race in skiplist.ko"
check fail "$(kcsan '[skiplist_dev]')" 12288 0 "KCSAN race in skiplist_dev.ko"
check fail "$(kcsan '[skiplist_kunit]')" 12288 0 "KCSAN race in skiplist_kunit.ko"
check pass "$(kcsan '')" 12288 0 "KCSAN race elsewhere in the kernel"
# As the kernel prints them, with timestamps: a report elsewhere must not
# hide what follows it, and an unterminated one is still judged.
stamped() {
	sed 's/^/[   82.35] /'
}
check pass "$(kcsan '' | stamped)" 12288 0 "timestamped KCSAN race elsewhere"
check fail "$(kcsan '[skiplist]' | stamped)" 12288 0 "timestamped KCSAN race in skiplist.ko"
check fail "$( { kcsan '' | stamped; echo '[   90.00] BUG: KASAN: use-after-free in sl_descend'; } )" \
	12288 0 "a complaint after a KCSAN race elsewhere"
check fail "$(kcsan '[skiplist]' | stamped | head -n 5)" 12288 0 "unterminated KCSAN race in skiplist.ko"

# warn_alloc's report of an allocation failure injected into
# lsm_nomem_test's task passes; the same report from any other task fails.
warn_alloc() {	# task
	printf '%s\n' "[  873.25] $1: vmalloc error: size 16224, vm_struct allocation failed, mode:0xcc0(GFP_KERNEL), nodemask=(null)" \
		"[  873.25] CPU: 0 PID: 961 Comm: $1 Tainted: G           O     N 6.1.192-skiplist-debug-a #1" \
		'[  873.25] Call Trace:' '[  873.25]  <TASK>' \
		'[  873.25]  warn_alloc+0x172/0x286' '[  873.25]  kvmalloc_node+0xd3/0xde' \
		'[  873.25]  </TASK>'
}
check pass "$(warn_alloc lsm_nomem_test)" 12288 0 "injected allocation failure in lsm_nomem_test"
check fail "$(warn_alloc kworker/0:1)" 12288 0 "allocation failure in a kworker"
check fail "$(warn_alloc lsm_nomem_test | sed 's/kvmalloc_node.*/BUG: KASAN: use-after-free in lsm_wal_replay/')" \
	12288 0 "a complaint inside an injected allocation failure's trace"

# The emulator's int3 (vm-run boots again for it and for nothing else
# after the command started): an int3 oops in the kernel's text whose
# memory no longer holds the int3, as multi-threaded TCG left one in 6.12's
# __schedule on 2026-11-29.
int3() {	# expect, byte before the trapping address, RIP's function, what
	printf '%s\n' '[   38.460461] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI' \
		"[   38.461521] RIP: 0010:$3" \
		"[   38.462147] Code: 31 d2 41 80 bd d1 00 00 00 00 0f 95 c2 e9 70 03 00 00 $2 <1f> 44 00 00 48 8b 83" \
		> "$dir/console.txt"
	if "$vmrun" --int3-only "$dir/console.txt"; then got=rerun; else got=fail; fi
	if [ "$got" != "$1" ]; then
		echo "test-scan: $4: expected $1, got $got"
		fails=$((fails + 1))
	fi
}
int3 rerun 0f "__schedule+0x339/0xbf0" "int3 gone from the kernel's text"
int3 fail cc "__schedule+0x339/0xbf0" "int3 still in memory"
int3 fail 0f "sl_leaf_split+0x39/0xbf0 [skiplist]" "int3 in one of our modules"
printf '%s\n' '[ 9.1] Oops: general protection fault, probably for non-canonical address' \
	'[ 9.2] RIP: 0010:__schedule+0x339/0xbf0' '[ 9.3] Code: 00 0f <1f> 44 00' > "$dir/console.txt"
if "$vmrun" --int3-only "$dir/console.txt"; then
	echo "test-scan: a general protection fault taken for the emulator's int3"
	fails=$((fails + 1))
fi

if [ $fails -eq 0 ]; then
	echo "test-scan: vm-run's judgement caught every planted complaint and passed the clean log"
fi
exit $((fails > 0))
