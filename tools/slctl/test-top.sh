#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# slctl top against what the modules' own code shows in debugfs: DUMP
# (tools/testing/skiplist/debugfs_dump, the code on the userspace shims)
# writes a copy of debugfs and says what it made; slctl top --once --root
# on that copy must show the same figures, and must fail, saying why, on
# a tree with nothing published.  The guest scripts check it on the real
# debugfs (tools/vm/guest-selftests.sh).
#   test-top.sh DUMP SLCTL
set -u
dump=$1 slctl=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
status=0
fail() {
	echo "test-top: FAIL: $*"
	status=1
}

"$dump" "$dir/debugfs" > "$dir/expect" || { echo "test-top: $dump failed"; exit 1; }
"$slctl" top --once --root "$dir/debugfs" > "$dir/top" || fail "slctl top --once exited $?"
exp() { awk -v k="$1" '$1 == k { print $2 }' "$dir/expect"; }
# A row's column, by the header's name, from the section of its kind.
col() {
	awk -v sect="$1" -v row="$2" -v name="$3" '
		$1 == sect { for (i = 1; i <= NF; i++) if ($i == name) c = i; on = 1; next }
		NF == 0 { on = 0 }
		on && $1 == row { print $c; exit }' "$dir/top"
}
check() {
	got=$(col "$1" "$2" "$3")
	[ "$got" = "$4" ] || fail "$1 $2 $3: slctl top shows '$got', expected '$4'"
}
check LIST skiplist/dump-list ITEMS "$(exp items)"
check LIST skiplist/dump-alloc/index ITEMS "$(exp ranges)"
check ALLOCATOR skiplist/dump-alloc RANGES "$(exp ranges)"
check ALLOCATOR skiplist/dump-alloc FREE "$(exp free)"
check ALLOCATOR skiplist/dump-alloc HITS "$(exp cache_hits)"
check ALLOCATOR skiplist/dump-alloc MISSES "$(exp cache_misses)"
[ "$(exp cache_hits)" -gt 0 ] || fail "the dump's allocator had no cache hits"

# Nothing published: exit 1 and a reason, not an empty table.
mkdir -p "$dir/empty/skiplist"
if "$slctl" top --once --root "$dir/empty" > /dev/null 2> "$dir/err"; then
	fail "slctl top --once succeeded with nothing published"
fi
grep -q "nothing published" "$dir/err" || fail "no reason given: $(cat "$dir/err")"
if "$slctl" top --once --root "$dir/nowhere" > /dev/null 2> "$dir/err"; then
	fail "slctl top --once succeeded on a missing directory"
fi
grep -q "cannot read" "$dir/err" || fail "no reason given: $(cat "$dir/err")"
[ $status -eq 0 ] && echo "test-top: slctl top shows what debugfs_dump published"
[ $status -ne 0 ] && cat "$dir/top"
exit $status
