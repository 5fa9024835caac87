// SPDX-License-Identifier: GPL-2.0
/*
 * A full check of a list's invariants (see list.c), for tests and the
 * consistency check of the character device.  Meaningful only while no
 * writer runs on the list.
 */
#include <linux/export.h>
#include "leaf.h"

#define sl_fail(leaf, fmt, ...) ({					\
	const struct sl_leaf *__leaf = (leaf);				\
	pr_err("skiplist: check failed at leaf %p [%lx, %lx]: " fmt "\n", \
	       __leaf, __leaf->lo, __leaf->hi, ##__VA_ARGS__);		\
	-EUCLEAN;							\
})

static int sl_check_leaf(struct sl_list *list, struct sl_leaf *leaf,
			 struct sl_leaf *prev, bool *have_last,
			 unsigned long *last)
{
	const unsigned long *keys = leaf->keys;
	struct sl_slot **slots = leaf->slots;
	struct sl_leaf *next = rcu_dereference(leaf->next);
	int i;

	if (leaf->dead)
		return sl_fail(leaf, "dead leaf linked at level 0");
	/* The layout searches count on (leaf.h, struct sl_leaf). */
	if (((unsigned long)leaf & (SL_LEAF_ALIGN - 1)) !=
	    (leaf->height > 1 ? SL_HEADER_OFFSET : 0))
		return sl_fail(leaf, "header at %lu bytes into a line",
			       (unsigned long)leaf & (SL_LEAF_ALIGN - 1));
	if (rcu_dereference(leaf->prev) != prev)
		return sl_fail(leaf, "back pointer %p, expected %p",
			       rcu_dereference(leaf->prev), prev);
	if (leaf->nr > SL_LEAF_KEYS || (leaf != list->head && !leaf->nr))
		return sl_fail(leaf, "%u slots", leaf->nr);
	if (leaf->linked != leaf->height)
		return sl_fail(leaf, "%u of %u levels linked", leaf->linked,
			       leaf->height);
	if (leaf->lo > leaf->hi)
		return sl_fail(leaf, "fences inverted");
	if (next ? next->lo != leaf->hi + 1 : leaf->hi != ULONG_MAX)
		return sl_fail(leaf, "upper fence does not meet the next leaf");
	for (i = 0; i < leaf->nr; i++) {
		struct sl_slot *slot = slots[i];

		if (!slot)
			return sl_fail(leaf, "slot %d missing", i);
		if (slot->key != keys[i])
			return sl_fail(leaf, "slot %d key %lx, leaf says %lx",
				       i, slot->key, keys[i]);
		if (!slot->size || sl_slot_last(slot) < slot->key)
			return sl_fail(leaf, "slot %d has bad size %lx", i,
				       slot->size);
		if (keys[i] < leaf->lo || keys[i] > leaf->hi)
			return sl_fail(leaf, "key %lx outside fences", keys[i]);
		if (*have_last && keys[i] <= *last)
			return sl_fail(leaf, "key %lx overlaps or precedes %lx",
				       keys[i], *last);
		*have_last = true;
		*last = sl_slot_last(slot);
	}
	for (; i < SL_LEAF_KEYS; i++)
		if (slots[i])
			return sl_fail(leaf, "stale slot pointer at %d", i);
	return 0;
}

/**
 * sl_check() - verify every invariant of a list
 * @list: the list; no writer may run on it meanwhile
 *
 * Checks level 0 (order, fences, back pointers, sorted non-overlapping
 * slots, no empty leaf but the head, no stale slot pointers, each header
 * where the layout puts it in its cache line) and every
 * level above it (only live leaves, in order, each exactly the leaves
 * whose towers reach that level), and the leaf directory (sl_dir_check()).
 *
 * Context: Any context; takes rcu_read_lock() itself.
 * Return: 0 if the list is consistent, -EUCLEAN after printing the first
 * violation.
 */
int sl_check(struct sl_list *list)
{
	unsigned long tall[SL_MAX_HEIGHT] = { 0 }, last = 0;
	struct sl_leaf *leaf, *prev = NULL;
	bool have_last = false;
	int level, ret = 0;

	rcu_read_lock();
	if (list->head->lo != 0)
		ret = sl_fail(list->head, "head does not start at 0");
	for (leaf = list->head; leaf && !ret;
	     prev = leaf, leaf = rcu_dereference(leaf->next)) {
		ret = sl_check_leaf(list, leaf, prev, &have_last, &last);
		for (level = 1; level < leaf->height; level++)
			tall[level]++;
	}
	for (level = 1; level < SL_MAX_HEIGHT && !ret; level++) {
		unsigned long seen = 0;

		prev = list->head;
		leaf = rcu_dereference(sl_up(prev, level)->next);
		if (leaf && level >= READ_ONCE(list->level))
			ret = sl_fail(leaf, "linked above the list level %u",
				      list->level);
		for (; leaf && !ret; prev = leaf,
		     leaf = rcu_dereference(sl_up(leaf, level)->next)) {
			seen++;
			if (leaf->dead || leaf->height <= level ||
			    leaf->lo <= prev->lo)
				ret = sl_fail(leaf, "bad link at level %d",
					      level);
			else if (sl_up(prev, level)->lo != leaf->lo)
				ret = sl_fail(prev, "link at level %d caches fence %lx, not %lx",
					      level, sl_up(prev, level)->lo,
					      leaf->lo);
		}
		/* The head is counted in tall[] but is not its own successor. */
		if (!ret && seen != tall[level] - 1)
			ret = sl_fail(list->head,
				      "level %d links %lu leaves of %lu", level,
				      seen, tall[level] - 1);
		if (!ret && level < READ_ONCE(list->level))
			ret = sl_gap_check_level(list, level);
	}
	if (!ret)
		ret = sl_dir_check(list);
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(sl_check);
