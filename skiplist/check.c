// SPDX-License-Identifier: GPL-2.0
/*
 * A full check of a list's invariants (see list.c), for tests and the
 * consistency check of the character device.  Meaningful only while no
 * writer runs on the list, and safe only then: the check walks level 0
 * once, in chunks of SL_ATOMIC_LEAVES leaves, each in a read-side section
 * of its own, and keeps its place between them, which only the absence of
 * writers makes safe (no leaf it holds can die).  The same walk checks the
 * towers and the gap bounds, so that the work is one pass over the slots
 * and the leaves times their levels, and never a pass per level.
 */
#include <linux/export.h>
#include <linux/sched.h>
#include "leaf.h"

#define sl_fail(leaf, fmt, ...) ({					\
	const struct sl_leaf *__leaf = (leaf);				\
	pr_err("skiplist: check failed at leaf %p [%lx, %lx]: " fmt "\n", \
	       __leaf, __leaf->lo, __leaf->hi, ##__VA_ARGS__);		\
	-EUCLEAN;							\
})

/*
 * The walk's state: where it is at level 0, and at each tower level the
 * last leaf met of at least that height, whose link there must name the
 * next such leaf, and the bound (gap.c) of the gaps owned by a key in its
 * span so far.
 */
struct sl_check_walk {
	struct sl_leaf *prev;
	bool have_last;
	unsigned long last;	/* the last unit of the last slot met */
	unsigned int level;	/* the list's */
	struct sl_leaf *tower[SL_MAX_HEIGHT];
	unsigned long gap[SL_MAX_HEIGHT];
};

/*
 * Level 0 at @leaf; in *@largest, the bound (gap.c) of the gaps owned by
 * its keys (a slot's gap runs from the end of the slot before it, or from
 * 0).
 */
static int sl_check_leaf(struct sl_list *list, struct sl_leaf *leaf,
			 struct sl_check_walk *w, unsigned long *largest)
{
	const unsigned long *keys = leaf->keys;
	struct sl_slot **slots = leaf->slots;
	struct sl_leaf *next = rcu_dereference(leaf->next);
	unsigned long first;
	int i;

	if (leaf->dead)
		return sl_fail(leaf, "dead leaf linked at level 0");
	/* The layout searches count on (leaf.h, struct sl_leaf). */
	if (((unsigned long)leaf & (SL_LEAF_ALIGN - 1)) !=
	    (leaf->height > 1 ? SL_HEADER_OFFSET : 0))
		return sl_fail(leaf, "header at %lu bytes into a line",
			       (unsigned long)leaf & (SL_LEAF_ALIGN - 1));
	if (rcu_dereference(leaf->prev) != w->prev)
		return sl_fail(leaf, "back pointer %p, expected %p",
			       rcu_dereference(leaf->prev), w->prev);
	if (leaf->nr > SL_LEAF_KEYS || (leaf != list->head && !leaf->nr))
		return sl_fail(leaf, "%u slots", leaf->nr);
	if (leaf->linked != leaf->height)
		return sl_fail(leaf, "%u of %u levels linked", leaf->linked,
			       leaf->height);
	if (leaf->lo > leaf->hi)
		return sl_fail(leaf, "fences inverted");
	if (next ? next->lo != leaf->hi + 1 : leaf->hi != ULONG_MAX)
		return sl_fail(leaf, "upper fence does not meet the next leaf");
	*largest = 0;
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
		if (w->have_last && keys[i] <= w->last)
			return sl_fail(leaf, "key %lx overlaps or precedes %lx",
				       keys[i], w->last);
		first = w->have_last ? w->last + 1 : 0;
		if (keys[i] > first)
			*largest = sl_gap_check_join(*largest,
						     sl_gap_check_run(first,
								      keys[i] - 1));
		w->have_last = true;
		w->last = sl_slot_last(slot);
	}
	for (; i < SL_LEAF_KEYS; i++)
		if (slots[i])
			return sl_fail(leaf, "stale slot pointer at %d", i);
	return 0;
}

/*
 * The towers at @leaf, met at level 0 after every leaf before it: at each
 * of its levels, the last leaf met that reaches there must link to it,
 * caching its fence; that link's span ends here, and its gap bound must
 * allow every gap owned in it.
 */
static int sl_check_towers(struct sl_leaf *leaf, struct sl_check_walk *w)
{
	unsigned int level;
	int ret;

	for (level = 1; level < leaf->height; level++) {
		struct sl_leaf *owner = w->tower[level];
		struct sl_link *link = sl_up(owner, level);

		if (level >= w->level)
			return sl_fail(leaf, "linked above the list level %u",
				       w->level);
		if (rcu_dereference(link->next) != leaf)
			return sl_fail(owner,
				       "bad link at level %u: %p, the next leaf that tall is %p",
				       level, rcu_dereference(link->next), leaf);
		if (link->lo != leaf->lo)
			return sl_fail(owner, "link at level %u caches fence %lx, not %lx",
				       level, link->lo, leaf->lo);
		ret = sl_gap_check_link(owner, level, w->gap[level]);
		if (ret)
			return ret;
		w->tower[level] = leaf;
		w->gap[level] = 0;
	}
	return 0;
}

/*
 * After the last leaf: no link at any level goes further, and the spans
 * that reach the end own the free run after the last slot (all of the
 * space if there is none).
 */
static int sl_check_ends(struct sl_check_walk *w)
{
	unsigned long run = 0;
	unsigned int level;
	int ret;

	if (!w->have_last || w->last != ULONG_MAX)
		run = sl_gap_check_run(w->have_last ? w->last + 1 : 0, ULONG_MAX);
	for (level = 1; level < SL_MAX_HEIGHT; level++) {
		struct sl_leaf *owner = w->tower[level];
		struct sl_leaf *next = rcu_dereference(sl_up(owner, level)->next);

		if (next)
			return sl_fail(owner,
				       "bad link at level %u: %p, past the last leaf that tall",
				       level, next);
		if (level >= w->level)
			continue;
		ret = sl_gap_check_link(owner, level,
					sl_gap_check_join(w->gap[level], run));
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * sl_check() - verify every invariant of a list
 * @list: the list; no writer may run on it meanwhile
 *
 * Checks level 0 (order, fences, back pointers, sorted non-overlapping
 * slots, no empty leaf but the head, no stale slot pointers, each header
 * where the layout puts it in its cache line), every level above it (each
 * exactly the leaves whose towers reach that level, in order, caching
 * their fences, none above the list's level), every gap bound (at least
 * the largest gap its span owns), and the leaf directory (sl_dir_check()).
 * One walk along level 0, SL_ATOMIC_LEAVES leaves per read-side section,
 * keeping its place between sections: the caller must keep every writer
 * away for the whole call, not only for a moment.
 *
 * Context: Process context, outside any read-side section; sleeps.
 * Return: 0 if the list is consistent, -EUCLEAN after printing the first
 * violation.
 */
int sl_check(struct sl_list *list)
{
	struct sl_check_walk w = { .level = READ_ONCE(list->level) };
	struct sl_leaf *leaf = list->head;
	unsigned long largest = 0, n = 0;
	unsigned int level;
	int ret = 0;

	might_sleep();
	for (level = 1; level < SL_MAX_HEIGHT; level++)
		w.tower[level] = list->head;
	rcu_read_lock();
	if (list->head->lo != 0)
		ret = sl_fail(list->head, "head does not start at 0");
	for (; leaf && !ret; w.prev = leaf, leaf = rcu_dereference(leaf->next)) {
		if (++n % SL_ATOMIC_LEAVES == 0) {
			/* No writer runs: @leaf stays as it is meanwhile. */
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
		ret = sl_check_leaf(list, leaf, &w, &largest);
		if (!ret && leaf != list->head)
			ret = sl_check_towers(leaf, &w);
		for (level = 1; !ret && level < w.level; level++)
			w.gap[level] = sl_gap_check_join(w.gap[level],
							 largest);
	}
	if (!ret)
		ret = sl_check_ends(&w);
	rcu_read_unlock();
	if (!ret)
		ret = sl_dir_check(list);
	return ret;
}
EXPORT_SYMBOL_GPL(sl_check);
