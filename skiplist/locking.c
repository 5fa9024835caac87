// SPDX-License-Identifier: GPL-2.0
/*
 * How writers find and lock the leaves they change.
 *
 * A writer locks the leaf whose fences cover its key, and sometimes the
 * leaf before it or after it.  Locks are always taken left to right, so in
 * order of increasing @lo, which is what rules out deadlock: a writer that
 * holds a leaf and needs the one before it drops its lock and starts again
 * from the left.  Every lookup done before taking a lock is a hint; what a
 * writer acts on is checked again under the lock.
 */
#include "leaf.h"

/*
 * Where a writer should start: the finger when an ascending run is filling
 * it, else wherever a lockless descent leads.
 */
static struct sl_leaf *sl_writer_guess(struct sl_list *list,
				       unsigned long key)
{
	struct sl_leaf *leaf;
	unsigned int loads = 0;

	if (key >= READ_ONCE(list->finger_lo)) {
		leaf = rcu_dereference(list->finger);
		if (leaf && key >= leaf->lo && key <= READ_ONCE(leaf->hi))
			return leaf;
	}
	leaf = sl_descend(list, key, &loads);
	sl_count_flush(loads);
	return leaf;
}

/**
 * sl_lock_covering() - lock the live leaf whose fences cover a key
 * @list: the list
 * @key:  the key
 * @held: an empty lock set; the leaf is added to it
 *
 * Context: rcu_read_lock() held.
 * Return: the locked leaf.
 */
struct sl_leaf *sl_lock_covering(struct sl_list *list, unsigned long key,
				 struct sl_locked *held)
{
	struct sl_leaf *leaf = sl_writer_guess(list, key), *next;
	bool dead;

	for (;;) {
		sl_lock_leaf(held, leaf);
		dead = leaf->dead;
		/* A dead leaf's back pointer may be stale: see search.c. */
		if (dead)
			next = leaf;
		else if (key < leaf->lo)
			next = rcu_dereference(leaf->prev);
		else if (key > leaf->hi)
			next = sl_next_locked(leaf, 0);
		else
			return leaf;
		sl_unlock_all(held);
		leaf = dead ? sl_left_of_dead(list, next) : next;
	}
}

/**
 * sl_lock_with_prev() - also lock the leaf before the one held
 * @held: a lock set holding only a leaf covering @key, not the head
 * @key:  the key the leaf must still cover
 *
 * Drops the held lock, takes the previous leaf's and then the leaf's again,
 * and checks that nothing moved in between.
 *
 * Context: rcu_read_lock() held.
 * Return: true with both locked (previous leaf first); false with nothing
 * locked, and the caller must look the leaf up again.
 */
bool sl_lock_with_prev(struct sl_locked *held, unsigned long key)
{
	struct sl_leaf *leaf = held->leaf[0];
	struct sl_leaf *prev = rcu_dereference(leaf->prev);

	sl_unlock_all(held);
	sl_lock_leaf(held, prev);
	sl_lock_leaf(held, leaf);
	if (!prev->dead && sl_next_locked(prev, 0) == leaf &&
	    !leaf->dead && sl_leaf_covers(leaf, key))
		return true;
	sl_unlock_all(held);
	return false;
}
