// SPDX-License-Identifier: GPL-2.0
/*
 * insert_hole: find a free, aligned range and claim it.
 *
 * This version walks the slots in order from where the search starts, so
 * it costs O(slots passed).  The search is lockless; the claim is an
 * ordinary insert, which rechecks overlap under the leaf locks, so two
 * writers can never take the same gap: the loser sees -EEXIST and searches
 * on from there.
 */
#include <linux/export.h>
#include <linux/log2.h>
#include "leaf.h"

/* Round @x up to @align (a power of two); false if that wraps. */
static bool sl_align_up(unsigned long x, unsigned long align,
			unsigned long *out)
{
	unsigned long up = (x + align - 1) & ~(align - 1);

	if (up < x)
		return false;
	*out = up;
	return true;
}

/*
 * First aligned start in [@from, @limit) where @size units fit before
 * @limit without touching a slot, found by walking the list.  @limit is
 * exclusive and may be 0 to mean "up to and including ULONG_MAX".
 */
static bool sl_find_gap(struct sl_list *list, unsigned long from,
			unsigned long limit, unsigned long size,
			unsigned long align, unsigned long *found)
{
	unsigned long start, last, room = limit - 1;
	struct sl_slot *slot;
	struct sl_iter iter;
	bool ok = false;

	if (!sl_align_up(from, align, &start))
		return false;
	rcu_read_lock();
	sl_iter_start(&iter, list, start);
	/* Begin with the slot before @start: it may reach into the gap. */
	sl_iter_prev(&iter);
	for (;;) {
		/* The candidate must end at or before room. */
		if (start > room || room - start < size - 1)
			break;
		last = start + (size - 1);
		slot = sl_iter_next(&iter);
		if (!slot || slot->key > last) {
			*found = start;
			ok = true;
			break;
		}
		/* Entirely below the candidate (alignment may skip past it). */
		if (sl_slot_last(slot) < start)
			continue;
		if (sl_slot_last(slot) == ULONG_MAX ||
		    !sl_align_up(sl_slot_last(slot) + 1, align, &start))
			break;
	}
	rcu_read_unlock();
	return ok;
}

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
		   gfp_t gfp)
{
	unsigned long from, start;
	int ret;

	if (!size || !is_power_of_2(align) || (max && min >= max))
		return -EINVAL;
	if (hint < min || (max && hint >= max))
		hint = min;
	from = hint;
	for (;;) {
		if (!sl_find_gap(list, from, max, size, align, &start)) {
			if (from == min)
				return -ENOSPC;
			/* Nothing above the hint: wrap around to @min. */
			from = min;
			continue;
		}
		slot->key = start;
		slot->size = size;
		ret = sl_insert_slot(list, slot, gfp);
		if (ret != -EEXIST)
			return ret;
		/* Another writer took it first; look on from there. */
		from = start;
	}
}
EXPORT_SYMBOL_GPL(sl_insert_hole);
