// SPDX-License-Identifier: GPL-2.0
/*
 * insert_hole: find a free, aligned range and claim it.
 *
 * The search is the gap index's (gap.c), lockless and O(log n) when its
 * bounds are tight; the claim is an ordinary insert, which rechecks overlap
 * under the leaf locks, so two writers can never take the same gap: the
 * loser sees -EEXIST and searches on from there.
 */
#include <linux/export.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include "leaf.h"
#include <trace/events/skiplist.h>

/**
 * sl_insert_hole() - find a free aligned range and insert a slot there
 * @list:  the list
 * @slot:  the slot to insert; its key and size are set on success
 * @size:  units to claim, at least 1
 * @align: alignment of the start, a power of two
 * @min:   lowest start allowed
 * @max:   end of the allowed window, exclusive: the range must end before
 *         @max (0 means no limit below ULONG_MAX + 1)
 * @hint:  where to start looking, inside [@min, @max); the search wraps to
 *         @min if nothing fits above it.  Pass @min for plain first fit.
 * @start: set to the start claimed, on success, or NULL.  A caller that
 *         does not own @slot exclusively must read the start here: once
 *         @slot is in the list, another context may remove it and free it
 *         after a grace period, before this function has returned.
 * @gfp:   allocation flags, used if a leaf must be split
 *
 * The lowest fitting start at or above @hint is taken, else the lowest
 * at or above @min.  The claim is atomic: no two callers get overlapping
 * ranges.
 *
 * Context: as sl_insert().
 * Return: 0 with @slot inserted; -EINVAL if @size is 0, @align is not a
 * power of two or the window is empty; -ENOSPC if no gap fits; -ENOMEM.
 */
int sl_insert_hole(struct sl_list *list, struct sl_slot *slot,
		   unsigned long size, unsigned long align,
		   unsigned long min, unsigned long max, unsigned long hint,
		   unsigned long *start, gfp_t gfp)
{
	unsigned long from, at = 0, room = max ? max - 1 : ULONG_MAX;
	unsigned long visits = 0;
	unsigned int tries = 0, levels = 0;
	bool found, traced;
	u64 t0 = 0;
	int ret;

	if (!size || !is_power_of_2(align) || (max && min >= max))
		return -EINVAL;
	/*
	 * A disabled event costs its static branch (and two counts) alone.
	 * Tested once: an event enabled while this runs would report the
	 * time since 0 and no levels.
	 */
	traced = trace_sl_insert_hole_enabled();
	if (traced) {
		levels = READ_ONCE(list->level);
		t0 = ktime_get_ns();
	}
	if (hint < min || (max && hint >= max))
		hint = min;
	from = hint;
	for (;;) {
		rcu_read_lock();
		found = sl_gap_find(list, from, room, size, align, &at, &visits);
		rcu_read_unlock();
		tries++;
		if (!found) {
			ret = -ENOSPC;
			if (from == min)
				break;
			/* Nothing above the hint: wrap around to @min. */
			from = min;
			continue;
		}
		slot->key = at;
		slot->size = size;
		ret = sl_insert_slot(list, slot, gfp);
		if (ret != -EEXIST)
			break;
		/* Another writer took it first; look on from there. */
		rcu_read_lock();
		sl_gap_retried(list, 0, SL_TRACE_GAP_HOLE_TAKEN);
		rcu_read_unlock();
		from = at;
	}
	if (!ret && start)
		*start = at;
	if (traced)
		trace_sl_insert_hole(list, size, align, min, max, hint,
				     ret ? 0 : at, ret, levels, visits, tries,
				     ktime_get_ns() - t0);
	return ret;
}
EXPORT_SYMBOL_GPL(sl_insert_hole);
