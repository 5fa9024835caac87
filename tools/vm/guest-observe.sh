#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by tools/vm/guest-selftests.sh, with skiplist.ko, sl_extent.ko,
# skiplist_dev.ko and sl_extent_dev.ko loaded: what the modules show of
# themselves (Documentation/tracing.rst).
#  1. The skiplist's and the allocator's events, enabled through tracefs,
#     while slctl drives one list (ascending inserts that split leaves,
#     lookups inside and between the extents, holes, deletes that merge
#     leaves) and sl_iommu.ko's skiplist backend maps I/O: every event of
#     the list is checked against what was done to it (keys, sizes,
#     results, holes inside their window and aligned, splits and merges
#     seen, no event lost), and the allocator's cache hits are seen.  The
#     trace goes to $SL_OBSERVE_OUT/trace.txt, for the host's pictures
#     (tools/trace/trace_plot.py).
#  2. slctl top --once, while the list and an extent map are open, shows
#     them with their counts; and the IOMMU demo's allocator with its
#     cache hits.
#  3. trace-cmd records and reports the same events of a short run, and
#     perf stat counts them.
#  4. Reads of every stats file in a loop while 25 slctl processes make,
#     clear and close lists (50 lists' ends): a read racing a list's end
#     must never touch it (debugfs_remove() waits for reads;
#     skiplist/debugfs.c).
obs_out=${SL_OBSERVE_OUT:-/tmp/observe}
mkdir -p "$obs_out"
tracing=/sys/kernel/tracing
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
[ -d "$tracing/events" ] || mount -t tracefs none "$tracing"
if [ ! -d "$tracing/events/skiplist" ]; then
	fail "observe: no skiplist events in $tracing/events"
	return 0
fi
obs_n=2000
obs_holes=5
obs_ko=$(ko iommu_demo/sl_iommu)

# The workload's commands: extents of 8 units every 16, lookups at every
# eighth unit (half inside an extent, half between: those fail with
# ENOENT), holes of 4 units aligned to 4 in [1000000, 1000100), then
# every extent but the holes deleted.
awk -v n=$obs_n -v h=$obs_holes 'BEGIN {
	for (i = 0; i < n; i++) print "insert", i * 16, 8, i
	for (i = 0; i < n * 2; i++) print "lookup", i * 8
	for (i = 0; i < h; i++) print "hole 4 --align 4 --min 1000000 --max 1000100"
	print "stats"
}' > /tmp/obs-fill.txt
awk -v n=$obs_n 'BEGIN { for (i = 0; i < n; i++) print "delete", i * 16
	print "stats" }' > /tmp/obs-drain.txt

echo 0 > "$tracing/tracing_on"
echo > "$tracing/trace"
echo 8192 > "$tracing/buffer_size_kb"
# Addresses hashed as debugfs's "id" lines print them, where the kernel
# has the option (both do): then a list's events carry its id.
obs_hash=0
[ -f "$tracing/options/hash-ptr" ] && echo 1 > "$tracing/options/hash-ptr" &&
	obs_hash=1
echo 1 > "$tracing/events/skiplist/enable"
echo 1 > "$tracing/events/sl_extent/enable"
echo 1 > "$tracing/tracing_on"

# The list stays open between the fill and the drain, for slctl top.
rm -f /tmp/obs.fifo
mkfifo /tmp/obs.fifo
"$slctl" batch < /tmp/obs.fifo > /tmp/obs-out.txt 2>&1 &
obs_pid=$!
exec 7> /tmp/obs.fifo
exec 8<> /dev/sl_extent
cat /tmp/obs-fill.txt >&7
# Its list, named after its thread group (skiplist/dev.c).
obs_stats=/sys/kernel/debug/skiplist/skiplist_dev/$obs_pid-
obs_stats=$(ls -d "$obs_stats"*/stats 2>/dev/null)
obs_items=$((obs_n + obs_holes))
# The fill's "stats" line says it is done; then debugfs must agree.
for i in $(seq 300); do
	grep -q '^items' /tmp/obs-out.txt && break
	sleep 1
done
if [ -z "$obs_stats" ] || ! grep -qx "items $obs_items" "$obs_stats"; then
	fail "observe: no list of $obs_items items in debugfs for slctl ($obs_pid)"
	ls -R /sys/kernel/debug/skiplist 2>&1 | head -20
else
	obs_id=$(awk '$1 == "id" { print $2 }' "$obs_stats")
	obs_name=${obs_stats#/sys/kernel/debug/}
	obs_name=${obs_name%/stats}
	"$slctl" top --once > "$obs_out/top.txt" 2>&1 ||
		fail "observe: slctl top --once: $(cat "$obs_out/top.txt")"
	# The list's row shows its items; the extent map's, its 0 extents.
	awk -v name="$obs_name" -v n=$obs_items '$1 == name && $2 == n { ok = 1 }
		END { exit !ok }' "$obs_out/top.txt" ||
		fail "observe: slctl top does not show $obs_name with $obs_items items"
	grep -Eq '^skiplist/sl_extent_dev/[0-9]+-[0-9]+/map +0 ' "$obs_out/top.txt" ||
		fail "observe: slctl top does not show the open extent map"
	for k in leaves bytes levels height_1 dir_entries read_retries; do
		grep -q "^$k [0-9]" "$obs_stats" ||
			fail "observe: $obs_stats has no $k line"
	done
	[ "$(awk '$1 == "leaves" { print $2 }' "$obs_stats")" -gt 1 ] ||
		fail "observe: $obs_n items in one leaf"
fi
cat /tmp/obs-drain.txt >&7
exec 7>&-
# Its only failures: the lookups between the extents.
wait $obs_pid
[ "$(grep -c 'lookup: No such file or directory (ENOENT)' /tmp/obs-out.txt)" -eq $obs_n ] &&
	[ "$(grep -c '^slctl: ' /tmp/obs-out.txt)" -eq $obs_n ] &&
	grep -qx "items $obs_holes" /tmp/obs-out.txt ||
	fail "observe: the workload's slctl batch: $(grep '^slctl: ' /tmp/obs-out.txt | grep -v ENOENT | head -3)"
exec 8>&-

# The IOMMU demo's skiplist backend, with its per-CPU caches: its
# allocator in debugfs, and its cache events.
if insmod "$obs_ko" backend=skiplist size_mb=16; then
	command -v udevadm > /dev/null && udevadm settle --timeout=30
	dd if=/dev/zero of=/dev/slblk0 bs=64k count=64 oflag=direct 2>/dev/null ||
		fail "observe: dd to /dev/slblk0"
	dd if=/dev/slblk0 of=/dev/null bs=64k count=64 iflag=direct 2>/dev/null
	alloc=/sys/kernel/debug/skiplist/sl_iommu/slblk0/alloc
	if [ -f "$alloc" ]; then
		hits=$(awk '$1 == "cache_hits" { print $2 }' "$alloc")
		[ "${hits:-0}" -gt 0 ] || fail "observe: $alloc: no cache hits after 128 I/Os"
		"$slctl" top --once > "$obs_out/top-iommu.txt" 2>&1
		grep -q '^skiplist/sl_iommu/slblk0 ' "$obs_out/top-iommu.txt" ||
			fail "observe: slctl top does not show slblk0's allocator"
	else
		fail "observe: $alloc missing"
	fi
	# dd's close for writing makes udev probe the disk again (blkid), and
	# the probe holds it open: an rmmod before it ends fails "in use".
	command -v udevadm > /dev/null && udevadm settle --timeout=30
	rmmod sl_iommu || fail "observe: rmmod sl_iommu"
else
	fail "observe: insmod sl_iommu.ko backend=skiplist"
fi
[ -d /sys/kernel/debug/skiplist/sl_iommu/slblk0 ] &&
	fail "observe: slblk0's allocator still in debugfs after rmmod"

echo 0 > "$tracing/tracing_on"
[ $obs_hash = 1 ] && echo 0 > "$tracing/options/hash-ptr"
cat "$tracing/trace" > "$obs_out/trace.txt"
echo 0 > "$tracing/events/skiplist/enable"
echo 0 > "$tracing/events/sl_extent/enable"
grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' "$obs_out/trace.txt" ||
	fail "observe: the trace buffer lost events: $(grep entries-in-buffer "$obs_out/trace.txt")"

# Every event of the workload's slctl, against what it did; with hashed
# addresses, every one of its list's events names the list as its
# debugfs "id" line does.
if ! awk -v pid="$obs_pid" -v n=$obs_n -v h=$obs_holes \
	-v id="${obs_id:-}" -v hashed=$obs_hash '
	function v(name,   i) {
		for (i = 1; i <= NF; i++)
			if (index($i, name "=") == 1)
				return substr($i, length(name) + 2)
		return ""
	}
	# mawk has no strtonum(): hex by hand.
	function num(s,   i, r) {
		if (s !~ /^0x/)
			return s + 0
		r = 0
		for (i = 3; i <= length(s); i++)
			r = r * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return r
	}
	function bad(what) { if (++errors <= 10) print "observe: " what ": " $0 }
	$1 ~ ("-" pid "$") && / sl_[a-z_]+: / {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^sl_[a-z_]+:$/)
				ev = substr($i, 1, length($i) - 1)
		count[ev]++
		if (ev == "sl_insert") {
			k = num(v("key"))
			if (k % 16 || k >= n * 16 || v("size") != "0x8" || v("ret") != 0)
				bad("an insert that was not done")
		} else if (ev == "sl_lookup") {
			k = num(v("key"))
			if (v("found") != (k % 16 < 8 && k < n * 16))
				bad("a lookup with the wrong answer")
			if (!lists[v("list")]++)
				nlists++
			if (hashed && v("list") != id)
				bad("a lookup on list " v("list") ", not " id)
		} else if (ev == "sl_insert_hole") {
			s = num(v("start"))
			if (v("ret") != 0 || s < 1000000 || s + 4 > 1000100 || s % 4 ||
			    v("size") != "0x4" || v("levels") + 0 < 1 ||
			    v("tries") + 0 < 1)
				bad("a hole outside its window")
			if (!(s in holes))
				starts++
			holes[s]++
		} else if (ev == "sl_erase") {
			k = num(v("key"))
			if (v("found") != 1 || k % 16 || v("size") != "0x8")
				bad("an erase that was not done")
		} else if (ev == "sl_leaf_split" || ev == "sl_leaf_merge") {
			if (num(v("right_lo")) <= num(v("lo")))
				bad("a leaf change out of order")
		}
	}
	END {
		if (count["sl_insert"] != n + 0) bad("inserts: " count["sl_insert"] + 0 " events")
		if (count["sl_lookup"] != n * 2) bad("lookups: " count["sl_lookup"] + 0 " events")
		if (count["sl_insert_hole"] != h) bad("holes: " count["sl_insert_hole"] + 0 " events")
		if (starts != h) bad("holes: " starts + 0 " distinct starts, not " h)
		if (nlists != 1) bad("lookups on " nlists + 0 " lists, not one")
		if (count["sl_erase"] != n + 0) bad("erases: " count["sl_erase"] + 0 " events")
		if (!count["sl_leaf_split"] || !count["sl_leaf_merge"])
			bad("no split or no merge")
		printf "observe: slctl %s: %d inserts, %d lookups, %d holes, %d erases, %d splits, %d merges\n",
		       pid, count["sl_insert"], count["sl_lookup"], count["sl_insert_hole"],
		       count["sl_erase"], count["sl_leaf_split"], count["sl_leaf_merge"]
		exit errors > 0
	}' "$obs_out/trace.txt"; then
	fail "observe: the trace does not match the workload"
fi
grep -q ' sl_range_cache_hit: ' "$obs_out/trace.txt" ||
	fail "observe: no sl_range_cache_hit event from slblk0's allocator"
took "observe: events, debugfs and slctl top"

# trace-cmd (Debian's trace-cmd), if the host has it, on a short run.
printf 'insert 0 1\ninsert 64 1\nlookup 64\ndelete 0\n' > /tmp/obs-short.txt
if command -v trace-cmd > /dev/null; then
	if trace-cmd record -q -o /tmp/obs-trace.dat -e skiplist \
		"$slctl" batch < /tmp/obs-short.txt > /dev/null 2>&1 &&
	   trace-cmd report -i /tmp/obs-trace.dat > "$obs_out/report.txt" 2>/dev/null; then
		[ "$(grep -c ' sl_insert: ' "$obs_out/report.txt")" -ge 2 ] &&
		grep -q ' sl_lookup: .*key=0x40 found=1' "$obs_out/report.txt" &&
		grep -q ' sl_erase: .*key=0 size=0x1 found=1' "$obs_out/report.txt" ||
			fail "observe: trace-cmd report lacks the short run's events"
	else
		fail "observe: trace-cmd record or report failed"
	fi
	took "observe: trace-cmd"
else
	echo "guest: observe: trace-cmd not installed: skipped (make setup installs it)"
fi

# perf stat (Debian's linux-perf) counts the same events.  perf trace
# works too, but takes minutes to start under emulation: not run here.
if command -v perf > /dev/null; then
	perf stat -x, -e skiplist:sl_insert -e skiplist:sl_lookup -- \
		"$slctl" batch < /tmp/obs-short.txt > /dev/null 2> /tmp/obs-perf.txt
	[ "$(awk -F, '$3 == "skiplist:sl_insert" { print $1 }' /tmp/obs-perf.txt)" = 2 ] &&
	[ "$(awk -F, '$3 == "skiplist:sl_lookup" { print $1 }' /tmp/obs-perf.txt)" = 1 ] ||
		fail "observe: perf stat counts: $(cat /tmp/obs-perf.txt)"
	took "observe: perf stat"
fi

# Reads racing the lists' ends.
(
	end=$(($(date +%s) + 20))
	while [ "$(date +%s)" -lt "$end" ] && [ ! -f /tmp/obs-race-done ]; do
		cat /sys/kernel/debug/skiplist/*/*/stats > /dev/null 2>&1
	done
) &
obs_reader=$!
rm -f /tmp/obs-race-done
printf 'insert 1 1\ninsert 2 1\nclear\ninsert 3 1\n' > /tmp/obs-race.txt
for i in $(seq 25); do
	"$slctl" batch < /tmp/obs-race.txt > /dev/null || fail "observe: race run $i"
done
touch /tmp/obs-race-done
wait $obs_reader
took "observe: stats reads racing 25 lists' ends"
