// SPDX-License-Identifier: GPL-2.0
/*
 * Inserting a slot: lock the leaf that covers its key, check the slots on
 * either side for overlap, and add it, splitting the leaf if it is full.
 *
 * Overlap with the slot before the new one may cross a leaf boundary, so an
 * insert that would become the first slot of its leaf also locks the leaf
 * before (left to right).  The slot after it needs no second lock: while a
 * writer holds a leaf, the first key of the next leaf can only grow, since
 * only an insert holding both leaves could put a smaller key there.
 */
#include <linux/export.h>
#include <linux/ktime.h>
#include <linux/sched/mm.h>
#include "leaf.h"
#include <trace/events/skiplist.h>

/* First index whose key is above @key.  Caller holds the lock. */
static int sl_upper_locked(const struct sl_leaf *leaf, unsigned long key)
{
	return sl_floor_locked(leaf, key) + 1;
}

/*
 * First key of the leaf after @leaf, from a stable snapshot.  That leaf is
 * never empty: only a delete holding @leaf's lock could empty it.
 */
static bool sl_next_first_key(struct sl_leaf *leaf, unsigned long *key)
{
	struct sl_leaf *next = sl_next_locked(leaf, 0);
	unsigned int seq;

	if (!next)
		return false;
	do {
		seq = read_seqcount_begin(&next->seq);
		WARN_ON_ONCE(!READ_ONCE(next->nr));
		*key = READ_ONCE(next->keys[0]);
	} while (read_seqcount_retry(&next->seq, seq));
	return true;
}

/*
 * Whether [@key, @last] overlaps a slot next to insertion point @pos of
 * @leaf.  @prev is the locked leaf before @leaf when @pos is 0, else NULL.
 */
static bool sl_overlaps(const struct sl_leaf *prev, struct sl_leaf *leaf,
			int pos, unsigned long key, unsigned long last)
{
	unsigned long next_key;

	lockdep_assert_held(&leaf->lock);
	if (pos > 0) {
		/* A duplicate start needs no look at the slot itself. */
		if (leaf->keys[pos - 1] == key ||
		    sl_slot_last(leaf->slots[pos - 1]) >= key)
			return true;
	} else if (prev && prev->nr) {
		lockdep_assert_held(&prev->lock);
		if (sl_slot_last(prev->slots[prev->nr - 1]) >= key)
			return true;
	}
	if (pos < leaf->nr)
		return leaf->keys[pos] <= last;
	return sl_next_first_key(leaf, &next_key) && next_key <= last;
}

/*
 * The gap a slot about to go in at @pos of @leaf will own: from the end of
 * the slot before it (@prev is the locked leaf before @leaf when @pos is
 * 0) or from 0.
 */
static unsigned long sl_new_gap(const struct sl_leaf *prev,
				const struct sl_leaf *leaf, int pos,
				unsigned long key)
{
	const struct sl_slot *before = NULL;

	if (pos > 0)
		before = leaf->slots[pos - 1];
	else if (prev && prev->nr)
		before = prev->slots[prev->nr - 1];
	return before ? key - (sl_slot_last(before) + 1) : key;
}

/* Put @slot at @pos, shifting the rest right; inside a write section. */
static void sl_leaf_put(struct sl_leaf *leaf, int pos, struct sl_slot *slot)
{
	ASSERT_EXCLUSIVE_WRITER_SCOPED(leaf->nr);
	unsigned long *keys = leaf->keys;
	struct sl_slot **slots = leaf->slots;
	int i;

	for (i = leaf->nr; i > pos; i--) {
		WRITE_ONCE(keys[i], keys[i - 1]);
		WRITE_ONCE(slots[i], slots[i - 1]);
	}
	WRITE_ONCE(keys[pos], slot->key);
	WRITE_ONCE(slots[pos], slot);
	WRITE_ONCE(leaf->nr, leaf->nr + 1);
}

/*
 * Split the full leaf @leaf, adding @slot at @pos, into @leaf and the new
 * leaf @right, and publish @right at level 0.  An insert at either end of
 * the leaf moves as little as it can, so that an ascending or descending
 * run leaves full leaves behind it; any other insert splits in the middle.
 */
static void sl_leaf_split(struct sl_list *list, struct sl_locked *held,
			  struct sl_leaf *leaf, struct sl_leaf *right,
			  int pos, struct sl_slot *slot)
{
	unsigned long *keys = leaf->keys, *rkeys = right->keys;
	struct sl_slot **slots = leaf->slots, **rslots = right->slots;
	struct sl_leaf *after = sl_next_locked(leaf, 0);
	bool to_right;
	int keep, i, n = 0;

	if (pos == SL_LEAF_KEYS)
		keep = SL_LEAF_KEYS;
	else if (pos == 0)
		keep = 0;
	else
		keep = SL_LEAF_KEYS / 2;
	to_right = keep == SL_LEAF_KEYS || pos > keep;

	/* Fill @right while nobody can see it. */
	for (i = keep; i <= SL_LEAF_KEYS; i++) {
		if (to_right && i == pos) {
			rkeys[n] = slot->key;
			rslots[n++] = slot;
		}
		if (i < SL_LEAF_KEYS) {
			rkeys[n] = keys[i];
			rslots[n++] = slots[i];
		}
	}
	right->nr = n;
	right->lo = rkeys[0];
	right->hi = leaf->hi;
	right->linked = 1;
	RCU_INIT_POINTER(right->prev, leaf);
	RCU_INIT_POINTER(right->next, after);
	/* Nobody else can hold it yet; taken so the finger rule holds. */
	sl_lock_leaf(held, right);

	sl_write_begin(held, leaf);
	ASSERT_EXCLUSIVE_WRITER(leaf->hi);
	WRITE_ONCE(leaf->hi, right->lo - 1);
	for (i = keep; i < SL_LEAF_KEYS; i++)
		WRITE_ONCE(slots[i], NULL);
	WRITE_ONCE(leaf->nr, keep);
	if (!to_right)
		sl_leaf_put(leaf, pos, slot);
	if (after)
		rcu_assign_pointer(after->prev, right);
	ASSERT_EXCLUSIVE_WRITER(leaf->next);
	rcu_assign_pointer(leaf->next, right);
	sl_write_end(leaf);

	if (pos == SL_LEAF_KEYS)
		sl_finger_set(list, right);
	trace_sl_leaf_split(list, leaf->lo, right->lo, leaf->nr, right->nr,
			    right->height);
}

/**
 * sl_insert_slot() - insert a checked slot
 * @list: the list
 * @slot: a slot whose extent is valid
 * @gfp:  allocation flags for a leaf split
 *
 * Context: as sl_insert(); the caller must not hold rcu_read_lock() if
 * @gfp allows sleeping.  A caller that cannot sleep and preloaded
 * (sl_preload()) splits with a reserve leaf when a fresh one fails.
 * Return: 0, -EEXIST if the extent overlaps one in the list, or -ENOMEM.
 */
int sl_insert_slot(struct sl_list *list, struct sl_slot *slot, gfp_t gfp)
{
	unsigned long key = slot->key, last = sl_slot_last(slot), gap = 0;
	struct sl_leaf *leaf, *prev, *spare = NULL;
	struct sl_locked held = {};
	unsigned int height;
	int pos, ret;

	might_alloc(gfp);
retry:
	rcu_read_lock();
	leaf = sl_lock_covering(list, key, &held);
	pos = sl_upper_locked(leaf, key);
	prev = NULL;
	if (pos == 0 && leaf != list->head) {
		if (!sl_lock_with_prev(&held, key)) {
			rcu_read_unlock();
			goto retry;
		}
		prev = held.leaf[0];
		pos = sl_upper_locked(leaf, key);
	}
	ret = -EEXIST;
	if (sl_overlaps(pos ? NULL : prev, leaf, pos, key, last))
		goto out_unlock;
	ret = 0;
	gap = sl_new_gap(pos ? NULL : prev, leaf, pos, key);
	if (leaf->nr < SL_LEAF_KEYS) {
		sl_write_begin(&held, leaf);
		sl_leaf_put(leaf, pos, slot);
		sl_write_end(leaf);
		goto out_unlock;
	}
	if (!spare) {
		/* Allocate outside the locks and RCU, then look again. */
		sl_unlock_all(&held);
		rcu_read_unlock();
		height = sl_random_height(READ_ONCE(list->level));
		spare = sl_split_leaf_alloc(height, gfp);
		if (!spare)
			return -ENOMEM;
		sl_window(list, SL_WIN_SPLIT_ALLOCATED, .key = key, .leaf = spare);
		goto retry;
	}
	sl_leaf_split(list, &held, leaf, spare, pos, slot);
	sl_unlock_all(&held);
	sl_window(list, SL_WIN_SPLIT_PUBLISHED, .key = key, .leaf = spare);
	sl_tower_link(list, spare);
	sl_dir_changed(list);
	if (gap)
		sl_gap_raise(list, key, gap);
	rcu_read_unlock();
	return 0;

out_unlock:
	sl_unlock_all(&held);
	/* The slot owns the free run before it now (gap.c). */
	if (!ret && gap)
		sl_gap_raise(list, key, gap);
	rcu_read_unlock();
	if (spare)
		sl_split_leaf_unused(spare);
	return ret;
}

/*
 * The slot at @key gave up the units [@key + @size, @key + @old): raise
 * the gap bounds over them.
 */
static void sl_gap_shrunk(struct sl_list *list, unsigned long key,
			  unsigned long old, unsigned long size)
{
	rcu_read_lock();
	sl_gap_note(list, key + size);
	/* As in sl_delete(): the run may have been cut since. */
	if (old - size > 1)
		sl_gap_note(list, key + old - 1);
	rcu_read_unlock();
}

/**
 * sl_resize() - change the size of a slot in the list
 * @list: the list
 * @slot: a slot in @list
 * @size: the new size, at least 1; @slot->key + @size - 1 must not wrap
 *
 * Readers see the old size or the new one.  Growing is the caller's to make
 * safe: the units added must be free, and no other writer may insert over
 * them meanwhile (the extent map holds its map lock).  Shrinking frees the
 * units given up, and the gap index learns of them.
 *
 * Context: Any context that may take a spinlock.
 * Return: 0, or -EINVAL for a size of 0 or one that wraps (nothing
 * changes).
 */
int sl_resize(struct sl_list *list, struct sl_slot *slot, unsigned long size)
{
	unsigned long old = slot->size;

	if (!size || slot->key + (size - 1) < slot->key)
		return -EINVAL;
	WRITE_ONCE(slot->size, size);
	if (size < old)
		sl_gap_shrunk(list, slot->key, old, size);
	return 0;
}
EXPORT_SYMBOL_GPL(sl_resize);

/**
 * sl_replace() - put a slot in the place of the one with the same extent
 * @list: the list
 * @slot: the new slot, with its key and size set, in no list
 *
 * The slot that starts at @slot->key with @slot->size units, if there is
 * one, leaves the list and @slot takes its place in the same step: a
 * reader finds one or the other, never neither, and the gap index has
 * nothing to learn, since the units taken stay the same.  An overwrite
 * costs one descent, where removing and inserting again cost two, each
 * with a shift of the leaf.  The old slot's size is read under its
 * leaf's lock; the caller keeps it from changing meanwhile, as for
 * sl_resize().
 *
 * Context: Any context that may take a spinlock.
 * Return: the slot replaced, whose object the caller may free after a
 * grace period; NULL if no slot has exactly @slot's extent (the list is
 * unchanged).
 */
struct sl_slot *sl_replace(struct sl_list *list, struct sl_slot *slot)
{
	struct sl_locked held = {};
	struct sl_slot *old = NULL;
	struct sl_leaf *leaf;
	int idx;

	rcu_read_lock();
	leaf = sl_lock_covering(list, slot->key, &held);
	idx = sl_floor_locked(leaf, slot->key);
	if (idx >= 0 && leaf->keys[idx] == slot->key &&
	    READ_ONCE(leaf->slots[idx]->size) == slot->size) {
		old = leaf->slots[idx];
		/* Its fields before the pointer, as sl_leaf_put() has them. */
		sl_write_begin(&held, leaf);
		WRITE_ONCE(leaf->slots[idx], slot);
		sl_write_end(leaf);
	}
	sl_unlock_all(&held);
	rcu_read_unlock();
	return old;
}
EXPORT_SYMBOL_GPL(sl_replace);

/**
 * sl_replace_resized() - put a slot of another size in the place of one
 * @list: the list
 * @old:  a slot in @list
 * @new:  the slot taking its place, in no list, with @old's key and a size
 *        of its own: at least 1, and @new->key + @new->size - 1 must not
 *        wrap
 *
 * @old leaves the list and @new takes its place in the same step, as in
 * sl_replace(): a reader finds one or the other, never neither.  Neither
 * slot is written, so a reader that found @old goes on seeing all of its
 * extent, as do callers that keep @old's object after it left the list;
 * shrinking @old with sl_resize() before replacing it would change its
 * size under them.  Growing is the caller's to make safe, as for
 * sl_resize(): the units @new adds must be free, and no other writer may
 * insert over them meanwhile.  Units @new gives up are free when this
 * returns, and the gap index learns of them.  @old's size is read under
 * its leaf's lock; the caller keeps it from changing meanwhile.
 *
 * Context: Any context that may take a spinlock.
 * Return: 0, after which the caller may free @old's object after a grace
 * period; -EINVAL if @new's key is not @old's, or its size is 0 or wraps;
 * -ENOENT if @old is not in @list.  On error the list is unchanged.
 */
int sl_replace_resized(struct sl_list *list, struct sl_slot *old,
		       struct sl_slot *new)
{
	unsigned long key = new->key, size = new->size, old_size = 0;
	struct sl_locked held = {};
	struct sl_leaf *leaf;
	int idx, ret = -ENOENT;

	if (key != old->key || !size || key + (size - 1) < key)
		return -EINVAL;
	rcu_read_lock();
	leaf = sl_lock_covering(list, key, &held);
	idx = sl_floor_locked(leaf, key);
	if (idx >= 0 && leaf->keys[idx] == key && leaf->slots[idx] == old) {
		old_size = old->size;
		sl_write_begin(&held, leaf);
		WRITE_ONCE(leaf->slots[idx], new);
		sl_write_end(leaf);
		ret = 0;
	}
	sl_unlock_all(&held);
	rcu_read_unlock();
	if (size < old_size)
		sl_gap_shrunk(list, key, old_size, size);
	return ret;
}
EXPORT_SYMBOL_GPL(sl_replace_resized);

/**
 * sl_insert() - insert a slot
 * @list: the list
 * @slot: the slot, with its key and size set
 * @gfp:  allocation flags, used if a leaf must be split
 *
 * The slot is visible to readers once this returns 0.  On any error the
 * list is unchanged.
 *
 * Context: Any context; may sleep if @gfp allows, and then must not be
 * called under rcu_read_lock() or a spinlock.
 * Return: 0; -EINVAL if the size is 0 or the extent wraps past ULONG_MAX;
 * -EEXIST if it overlaps a slot in the list; -ENOMEM if a split could not
 * allocate a leaf.
 */
int sl_insert(struct sl_list *list, struct sl_slot *slot, gfp_t gfp)
{
	/* Read first: once in the list, the slot may go at any time. */
	unsigned long key = slot->key, size = slot->size;
	/*
	 * A disabled event costs its static branch alone.  Tested once: an
	 * event enabled while this runs would report the time since 0.
	 */
	bool traced = trace_sl_insert_enabled();
	u64 t0 = traced ? ktime_get_ns() : 0;
	int ret;

	if (!size || sl_slot_last(slot) < key)
		ret = -EINVAL;
	else
		ret = sl_insert_slot(list, slot, gfp);
	if (traced)
		trace_sl_insert(list, key, size, ret, ktime_get_ns() - t0);
	return ret;
}
EXPORT_SYMBOL_GPL(sl_insert);
