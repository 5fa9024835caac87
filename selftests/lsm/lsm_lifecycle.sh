#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The store's life cycle through slctl lsm (TAP output):
#   lsm_lifecycle.sh SL_LSM_KO DISK [--after-reboot]
# Format DISK and write to it; an attached store holds a reference to
# sl_lsm.ko of its own (refcnt 2 while attached, 1 once detached with
# /dev/sl_lsm still open), so rmmod is refused; after the last close
# rmmod succeeds, insmod again, and every write is read back.  sl_lsm.ko
# must be loaded, with nothing attached, and stays loaded.  With
# --after-reboot it only reads back, in a new boot on the same disk, what
# an earlier run left there.
ko=$1
disk=$2
slctl=${SLCTL:-build/tools/slctl}
tmp=${TMPDIR:-/tmp}/lsm-lifecycle.$$
n=0
status=0

[ -f "$ko" ] && [ -b "$disk" ] || {
	echo "usage: $0 SL_LSM_KO DISK (a block device the test may erase)" >&2
	exit 2
}
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT

result() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		status=1
	fi
}

# "KEY EXTENT WINDOW VALUE" per key looked up, "KEY none" where none.
lookup() {
	"$slctl" lsm --disk "$disk" get "$@" |
		awk '$2 == "not" { print $1, "none"; next }
		     { print $1, $3, $5, $10 }'
}

refcnt() {
	cat /sys/module/sl_lsm/refcnt
}

cat > "$tmp/expected" <<EOF
0x3 0x1+0xa 0x1+0x4 one
0x5 none
0x8 0x1+0xa 0x7+0x4 one
0x64 0x64+0x1 0x64+0x1 hundred
0xffffffffffffffff 0xffffffffffffffff+0x1 0xffffffffffffffff+0x1 last
EOF

echo "TAP version 13"
if [ "${3:-}" = --after-reboot ]; then
	echo "1..1"
	lookup 3 5 8 100 0xffffffffffffffff > "$tmp/got"
	cmp -s "$tmp/expected" "$tmp/got" ||
		diff "$tmp/expected" "$tmp/got" | sed 's/^/# /'
	result $? "every write read back after a reboot"
	exit $status
fi
echo "1..8"

"$slctl" lsm format "$disk" > /dev/null &&
printf '%s\n' begin 'put 1 10 one' 'put 100 1 hundred' 'delete 5 2' \
	'commit --sync' 'put 0xffffffffffffffff 1 last' |
	"$slctl" lsm --disk "$disk" batch
result $? "format, an atomic batch and a put through slctl"

lookup 3 5 8 100 0xffffffffffffffff > "$tmp/got"
cmp -s "$tmp/expected" "$tmp/got"
result $? "read back after detach and attach"

# Hold a store attached: slctl reads its commands from a fifo.
mkfifo "$tmp/cmds"
"$slctl" lsm --disk "$disk" batch < "$tmp/cmds" > "$tmp/held" &
held=$!
exec 3> "$tmp/cmds"
echo stats >&3
i=0
while ! grep -q '^seq ' "$tmp/held" && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$(refcnt)" -eq 2 ]
result $? "an attached store holds a reference to the module (refcnt $(refcnt))"

! rmmod sl_lsm 2> /dev/null
result $? "rmmod refused while a store is attached"

echo detach >&3
i=0
while [ "$(refcnt)" -ne 1 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$(refcnt)" -eq 1 ]
result $? "detach gives the store's reference back (refcnt $(refcnt) with the file open)"
exec 3>&-
wait $held

rmmod sl_lsm && insmod "$ko"
result $? "rmmod after the last close, insmod again"

lookup 3 5 8 100 0xffffffffffffffff > "$tmp/got"
cmp -s "$tmp/expected" "$tmp/got" || diff "$tmp/expected" "$tmp/got" | sed 's/^/# /'
result $? "every write read back after rmmod and insmod"

# --json: one object per command, each one parses, with what was written.
printf '%s\n' 'get 3 5' 'scan --max 3' stats 'delete 0 0' |
	"$slctl" --json lsm --disk "$disk" batch > "$tmp/json" 2> /dev/null
python3 -c '
import json, sys
objs = [json.loads(line) for line in open(sys.argv[1])]
assert [o["op"] for o in objs] == ["lsm get", "lsm scan", "lsm stats", "lsm delete"], objs
get, scan, stats, bad = objs
assert get["ok"] and get["found"] == 1 and get["results"][0]["value"] == "one"
assert not get["results"][1]["found"]
assert [p["start"] for p in scan["pieces"]] == [1, 7, 100]
assert stats["ok"] and stats["nr_blocks"] > 0 and stats["read_only"] is False
assert not bad["ok"] and bad["errno"] == "EINVAL"
' "$tmp/json" || sed 's/^/# /' "$tmp/json"
result $? "slctl --json lsm: get, scan, stats and an error parse"
exit $status
