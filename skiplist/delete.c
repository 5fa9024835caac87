// SPDX-License-Identifier: GPL-2.0
/*
 * Removing a slot, and merging leaves that deletes have left sparse.
 *
 * A leaf other than the head is never empty outside its writer's critical
 * section: the delete that takes its last slot merges it into the leaf
 * before it in the same write sections.  A leaf that drops below
 * SL_MERGE_LOW slots is merged with a neighbour when both fit in
 * SL_MERGE_MAX, so memory per slot stays bounded after mass deletes.  The
 * left leaf always absorbs the right one, so the head is never merged away
 * and every leaf's lower fence stays fixed for its whole life.
 */
#include <linux/export.h>
#include "leaf.h"
#include <trace/events/skiplist.h>

/* Remove the slot at @idx; inside a write section. */
static void sl_leaf_take(struct sl_leaf *leaf, int idx)
{
	ASSERT_EXCLUSIVE_WRITER_SCOPED(leaf->nr);
	unsigned long *keys = leaf->keys;
	struct sl_slot **slots = leaf->slots;
	int i, nr = leaf->nr;

	for (i = idx; i < nr - 1; i++) {
		WRITE_ONCE(keys[i], keys[i + 1]);
		WRITE_ONCE(slots[i], slots[i + 1]);
	}
	/* No pointer to a removed slot may stay behind for a reader. */
	WRITE_ONCE(slots[nr - 1], NULL);
	WRITE_ONCE(leaf->nr, nr - 1);
}

/*
 * Move every slot of @right into @left, its predecessor, give @left the
 * range of @right, and unlink @right from level 0.  Both are locked and
 * the slots fit.  The caller unlinks @right's tower and frees it.
 */
static void sl_leaf_merge(struct sl_list *list, struct sl_locked *held,
			  struct sl_leaf *left, struct sl_leaf *right)
{
	unsigned long *lkeys = left->keys, *rkeys = right->keys;
	struct sl_slot **lslots = left->slots, **rslots = right->slots;
	struct sl_leaf *after = sl_next_locked(right, 0);
	int i, lnr = left->nr, rnr = right->nr;

	lockdep_assert_held(&left->lock);
	lockdep_assert_held(&right->lock);
	WARN_ON_ONCE(lnr + rnr > SL_LEAF_KEYS);

	sl_write_begin(held, left);
	sl_write_begin(held, right);
	ASSERT_EXCLUSIVE_WRITER(left->hi);
	for (i = 0; i < rnr; i++) {
		WRITE_ONCE(lkeys[lnr + i], rkeys[i]);
		WRITE_ONCE(lslots[lnr + i], rslots[i]);
		WRITE_ONCE(rslots[i], NULL);
	}
	WRITE_ONCE(right->nr, 0);
	WRITE_ONCE(left->nr, lnr + rnr);
	WRITE_ONCE(left->hi, right->hi);
	/* @after's back pointer is guarded by the lock of the leaf it names. */
	if (after)
		rcu_assign_pointer(after->prev, left);
	rcu_assign_pointer(left->next, after);
	ASSERT_EXCLUSIVE_WRITER(right->dead);
	WRITE_ONCE(right->dead, 1);
	sl_write_end(right);
	sl_write_end(left);
	sl_finger_forget(list, right);
	trace_sl_leaf_merge(list, left->lo, right->lo, lnr, rnr, right->height);
}

/*
 * Remove the slot starting at @key (and only if it is @expect, when that
 * is given).  Returns the slot removed, or NULL.
 */
static struct sl_slot *sl_delete(struct sl_list *list, unsigned long key,
				 const struct sl_slot *expect)
{
	struct sl_leaf *leaf, *prev, *next, *victim = NULL;
	struct sl_locked held = {};
	unsigned long owner = 0, gap = 0, last = 0;
	struct sl_slot *slot;
	unsigned long flags;
	int idx;

	rcu_read_lock();
retry:
	leaf = sl_lock_covering(list, key, &held);
	prev = NULL;
	/* It may end up sparse: lock the leaf before first, it may absorb it. */
	if (leaf != list->head && leaf->nr - 1 < SL_MERGE_LOW) {
		if (!sl_lock_with_prev(&held, key))
			goto retry;
		prev = held.leaf[0];
	}
	idx = sl_floor_locked(leaf, key);
	if (idx < 0 || leaf->keys[idx] != key ||
	    (expect && leaf->slots[idx] != expect)) {
		slot = NULL;
		goto out;
	}
	slot = leaf->slots[idx];
	last = sl_slot_last(slot);
	sl_write_begin(&held, leaf);
	sl_leaf_take(leaf, idx);
	sl_write_end(leaf);
	/* Both neighbours here and locked: the merged free run is known. */
	if (idx > 0 && idx < leaf->nr) {
		owner = leaf->keys[idx];
		gap = owner - (sl_slot_last(leaf->slots[idx - 1]) + 1);
	}

	if (prev && (!leaf->nr || prev->nr + leaf->nr <= SL_MERGE_MAX)) {
		sl_leaf_merge(list, &held, prev, leaf);
		victim = leaf;
	} else if (leaf->nr < SL_MERGE_LOW) {
		next = sl_next_locked(leaf, 0);
		if (next && leaf->nr + READ_ONCE(next->nr) <= SL_MERGE_MAX) {
			sl_lock_leaf(&held, next);
			if (leaf->nr + next->nr <= SL_MERGE_MAX) {
				sl_leaf_merge(list, &held, leaf, next);
				victim = next;
			}
		}
	}
out:
	if (victim) {
		/*
		 * Interrupts stay off until @victim is out of its tower:
		 * writers that link or unlink next to it wait for that, and
		 * none of them may run on this CPU meanwhile (tower.c).
		 */
		flags = sl_unlock_all_irqs_off(&held);
		sl_window(list, SL_WIN_DELETE_UNLOCKED, .key = key,
			  .leaf = victim);
		sl_tower_unlink(list, victim, flags);
		sl_window(list, SL_WIN_DELETE_UNLINKED, .key = key,
			  .leaf = victim);
		sl_dir_retire(list, victim);
	} else {
		sl_unlock_all(&held);
	}
	if (gap) {
		sl_gap_raise(list, owner, gap);
	} else if (slot) {
		sl_window(list, SL_WIN_DELETE_NOTE, .key = key);
		sl_gap_note(list, key);
		/*
		 * A slot inserted at @key since the unlock takes that note for
		 * its own gap, and the run after it, up to the slot after the
		 * one removed, has grown all the same: note it from the last
		 * unit the removed slot held.
		 */
		if (last != key)
			sl_gap_note(list, last);
	}
	rcu_read_unlock();
	trace_sl_erase(list, key, slot ? last - key + 1 : 0, !!slot);
	return slot;
}

/**
 * sl_remove() - remove the slot starting at a key
 * @list: the list
 * @key:  the key of the slot, exactly
 *
 * The caller may free the slot's object after a grace period.
 *
 * Context: Any context that may take a spinlock.
 * Return: the slot removed, or NULL if no slot starts at @key.
 */
struct sl_slot *sl_remove(struct sl_list *list, unsigned long key)
{
	return sl_delete(list, key, NULL);
}
EXPORT_SYMBOL_GPL(sl_remove);

/**
 * sl_erase() - remove a given slot
 * @list: the list
 * @slot: the slot to remove
 *
 * Context: Any context that may take a spinlock.
 * Return: 0, or -ENOENT if @slot is not in the list.
 */
int sl_erase(struct sl_list *list, struct sl_slot *slot)
{
	return sl_delete(list, slot->key, slot) ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(sl_erase);
