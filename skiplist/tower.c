// SPDX-License-Identifier: GPL-2.0
/*
 * The towers: linking a new leaf into the levels above 0, and unlinking a
 * dead one.
 *
 * Level 0 and the fences are the truth; the levels above only speed up the
 * descent, so they may lag behind it.  A leaf is published at level 0 by the
 * split that creates it, then linked one level at a time, bottom up, each
 * step under the lock of its predecessor at that level and its own.  A leaf
 * dies at level 0 by a merge, then is unlinked top down, each step under the
 * lock of its predecessor.  The two never cross:
 *  - a leaf's tower pointers change only under its lock and only while it is
 *    alive, so a dead leaf's tower is frozen and still leads forward;
 *  - @linked, the levels linked so far, changes under the leaf's lock while
 *    it is alive, so once dead it says exactly which levels to unlink.
 * Freeing waits for a grace period after the last level is unlinked.
 *
 * Two steps wait for another writer, holding no lock while they wait: a
 * linker whose predecessor at a level is dead retries until the dead leaf
 * is gone from that level, and an unlinker whose predecessor is dead too
 * retries until that one is unlinked first (its links are frozen).  Both
 * wait for the killer of the dead leaf, the one context that unlinks it.
 * So no context that may wait for a killer may run on the killer's CPU
 * before the killer is done: an interrupt handler that inserts or deletes
 * there (the IOMMU demo allocates with GFP_ATOMIC from the block layer)
 * would spin forever.  The killer keeps interrupts off from the merge
 * that kills the leaf until the leaf is out of every level: sl_delete()
 * drops its locks with sl_unlock_all_irqs_off(), and sl_tower_unlink()
 * turns interrupts back on when it is done.  Nothing, not even preemption,
 * runs on that CPU meanwhile, so every waiter waits for a killer running
 * on another CPU.  The killers' own waits end: a leaf's predecessor at a
 * level has a lower fence, or the same fence and a later birth (two leaves
 * share a fence only when the older is dead, and a linker stops before the
 * first leaf whose fence is not below its own); so a chain of killers
 * waiting on each other moves strictly left and ends at a live leaf, the
 * head at worst.  Nobody waits while holding a lock, except for a write
 * section on a leaf to its right to close, which waits for nothing.
 * Nothing waits for a linker, on the other hand: a killer unlinks the
 * levels @linked names, and a linker that finds its leaf dead stops; so a
 * split links its new leaf with interrupts on, and a handler may run
 * between its levels.
 *
 * The price is interrupts off for the unlink: per level above 0, one
 * lockless descent (O(log n)) and one lock; half the leaves have no tower
 * and a quarter one level (Documentation/skiplist.rst, "Locking and RCU
 * lifetimes", has the figures).  Not chosen:
 *  - a waiter that finishes the unlink itself: it would have to unlink top
 *    down too, or a leaf after the dead one could leave a level while the
 *    dead leaf's higher link still leads down to it, and be freed under a
 *    reader coming from above; sharing one unlink between contexts means
 *    claiming levels, for a wait that is short once nobody can nest in it;
 *  - a linker that gives up a level (towers are only hints): that leaves
 *    the unlinker, which cannot give up, since a leaf is freed only once
 *    no level reaches it.
 * On PREEMPT_RT, where spinlock_t sleeps and is never taken in hard
 * interrupt context, interrupts cannot stay off across the unlink's locks;
 * the list is not built for it.
 */
#include "leaf.h"

/*
 * The leaf after which @leaf belongs at @level, or, when @target is given,
 * the leaf that links to @target at @level (NULL if none does).  Lockless;
 * the caller checks the answer under the predecessor's lock.
 */
static struct sl_leaf *sl_find_pred(struct sl_list *list, unsigned long lo,
				    unsigned int level,
				    const struct sl_leaf *target)
{
	struct sl_leaf *leaf = list->head, *next;
	int l = max(READ_ONCE(list->level), level + 1) - 1;
	unsigned int loads = 0;

	for (; l >= (int)level; l--) {
		for (;;) {
			/* The real fence, not the cached one: no torn hints. */
			next = rcu_dereference(*sl_next_ptr(leaf, l));
			if (!next || next == target)
				break;
			sl_count(loads);
			/*
			 * A dead leaf may share its lower fence with a live
			 * one; at the target's own level, walk past any such
			 * neighbour until the target itself comes up.
			 */
			if (next->lo > lo ||
			    (next->lo == lo && !(target && l == (int)level)))
				break;
			leaf = next;
		}
	}
	sl_count_flush(loads);
	if (target && rcu_access_pointer(*sl_next_ptr(leaf, level)) != target)
		return NULL;
	return leaf;
}

static void sl_raise_level(struct sl_list *list, unsigned int height)
{
	unsigned int level = READ_ONCE(list->level);

	while (level < height) {
		unsigned int old = cmpxchg(&list->level, level, height);

		if (old == level)
			break;
		level = old;
	}
}

/**
 * sl_tower_link() - link a leaf published at level 0 into its upper levels
 * @list: the list
 * @leaf: the new leaf; nothing held
 *
 * Stops early if the leaf dies meanwhile; its killer unlinks what was
 * linked.
 *
 * Context: rcu_read_lock() held.
 */
void sl_tower_link(struct sl_list *list, struct sl_leaf *leaf)
{
	unsigned int level;

	sl_raise_level(list, leaf->height);
	for (level = 1; level < leaf->height; level++) {
		sl_window(list, SL_WIN_LINK_LEVEL, .key = leaf->lo, .leaf = leaf,
			  .level = level);
		for (;;) {
			struct sl_locked held = {};
			struct sl_leaf *pred, *succ;

			pred = sl_find_pred(list, leaf->lo, level, NULL);
			sl_lock_leaf(&held, pred);
			sl_lock_leaf(&held, leaf);
			if (leaf->dead) {
				sl_unlock_all(&held);
				return;
			}
			succ = sl_next_locked(pred, level);
			if (!pred->dead && pred->lo < leaf->lo &&
			    (!succ || succ->lo >= leaf->lo)) {
				struct sl_link *link = sl_up(leaf, level);
				struct sl_link *plink = sl_up(pred, level);

				link->lo = succ ? succ->lo : 0;
				RCU_INIT_POINTER(link->next, succ);
				/*
				 * Pointer first: until the fence follows, a
				 * search sees @leaf with @succ's fence and
				 * merely declines a shortcut.
				 */
				ASSERT_EXCLUSIVE_WRITER(plink->next);
				rcu_assign_pointer(plink->next, leaf);
				WRITE_ONCE(plink->lo, leaf->lo);
				ASSERT_EXCLUSIVE_WRITER(leaf->linked);
				WRITE_ONCE(leaf->linked, level + 1);
				sl_unlock_all(&held);
				break;
			}
			sl_unlock_all(&held);
			cpu_relax();
		}
	}
}

/*
 * One step of unlinking a dead leaf: at @level, point its predecessor past
 * it.  Returns false if the predecessor was not found or is dying itself,
 * and the caller must try again.
 */
static bool sl_unlink_level(struct sl_list *list, struct sl_leaf *leaf,
			    unsigned int level)
{
	struct sl_link *link = sl_up(leaf, level), *plink;
	struct sl_locked held = {};
	struct sl_leaf *pred, *succ;
	bool done = false;

	pred = sl_find_pred(list, leaf->lo, level, leaf);
	if (!pred)
		return false;
	sl_lock_leaf(&held, pred);
	if (!pred->dead && sl_next_locked(pred, level) == leaf) {
		plink = sl_up(pred, level);
		/* @leaf is dead, so its links no longer change. */
		succ = rcu_dereference_protected(link->next,
						 READ_ONCE(leaf->dead));
		/* Its gaps go to the predecessor before its span does (gap.c). */
		sl_gap_absorb(link, plink);
		sl_window(list, SL_WIN_UNLINK_ABSORBED, .key = leaf->lo,
			  .leaf = leaf, .level = level);
		/*
		 * Fence first: until the pointer follows, a search sees @leaf
		 * with the next leaf's fence and merely declines a shortcut.
		 */
		WRITE_ONCE(plink->lo, link->lo);
		ASSERT_EXCLUSIVE_WRITER(plink->next);
		rcu_assign_pointer(plink->next, succ);
		done = true;
	}
	sl_unlock_all(&held);
	return done;
}

/**
 * sl_tower_unlink() - unlink a dead leaf from its upper levels
 * @list:  the list
 * @leaf:  the leaf, already dead and unlinked from level 0; nothing held
 * @flags: the interrupt state to restore once it is unlinked
 *
 * Top down, so that the leaf is never reachable at a level but not at the
 * ones below it.  A predecessor that is dying too is waited for: its own
 * killer, on another CPU with interrupts off, will soon hand the link to a
 * live predecessor.  Interrupts come back on only when every level is
 * done, so that nothing that waits for this leaf runs on this CPU before.
 *
 * Context: rcu_read_lock() held; interrupts off since the merge that killed
 * @leaf, restored from @flags on return.
 */
void sl_tower_unlink(struct sl_list *list, struct sl_leaf *leaf,
		     unsigned long flags)
{
	int level;

	lockdep_assert_irqs_disabled();
	for (level = READ_ONCE(leaf->linked) - 1; level > 0; level--)
		while (!sl_unlink_level(list, leaf, level))
			cpu_relax();
	local_irq_restore(flags);
}
