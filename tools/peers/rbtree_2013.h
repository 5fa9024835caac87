/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A range allocator in the design of the kernel's IOVA allocator as it was
 * in 2013, before its per-CPU caches (2016) and later fixes: the peer the
 * 2013 skiplist RFC measured against, written here from that description.
 * The IOMMU demo's "rbtree" backend (iommu_demo/iova_rbtree.c) and the
 * in-kernel benchmark's "rbtree" allocator (tools/bench/kernel/
 * alloc_rbtree.c) are both this code; each module compiles its own copy.
 *
 *  - One spinlock, taken with interrupts off, over one rbtree of the
 *    allocated ranges sorted by start.
 *  - Allocation is top-down: a request goes as high as it fits.
 *  - The search starts at a cached node and walks down the tree one node
 *    at a time (rb_prev()), checking the gap below each node, until a gap
 *    holds the request: linear in the ranges it passes over.
 *  - The cached node is the range allocated last; the next search starts
 *    just below it.  Freeing a range at or above the cached node moves the
 *    cache to the freed range's successor (none: the top of the space), so
 *    that space freed above the cache is found again.  Reserving a fixed
 *    range leaves the cache alone.
 *  - The caller allocates the range's node before the lock is taken, as
 *    the IOVA allocator's callers did.
 *
 * So the cache makes repeated allocations from one shrinking free area
 * cheap, and makes a request that only fits far below cost a walk over
 * every range in between, whenever the cache sits high: after any free
 * near the top.
 *
 * One departure: when nothing fits below the cached node, the 2013 code
 * failed the request; this one searches once more from the top (as the
 * kernel's allocator has since 2017), so a busy space never fails
 * spuriously.
 */
#ifndef _PEERS_RBTREE_2013_H
#define _PEERS_RBTREE_2013_H

#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

struct rb2013_range {
	struct rb_node node;
	unsigned long lo;	/* first unit */
	unsigned long hi;	/* last unit */
};

struct rb2013 {
	spinlock_t lock;	/* guards the tree and the cache */
	struct rb_root root;
	struct rb_node *cached;	/* search starts below it; NULL: the top */
	unsigned long start;
	unsigned long end;	/* exclusive */
};

static inline struct rb2013_range *rb2013_range(struct rb_node *node)
{
	return rb_entry(node, struct rb2013_range, node);
}

static inline void rb2013_init(struct rb2013 *a, unsigned long start,
			       unsigned long end)
{
	spin_lock_init(&a->lock);
	a->root = RB_ROOT;
	a->cached = NULL;
	a->start = start;
	a->end = end;
}

/* Frees every range left in the space (they were kmalloc()ed). */
static inline void rb2013_destroy(struct rb2013 *a)
{
	struct rb2013_range *r, *next;

	rbtree_postorder_for_each_entry_safe(r, next, &a->root, node)
		kfree(r);
	a->root = RB_ROOT;
	a->cached = NULL;
}

/*
 * Walk down from @node, the highest range below @limit (NULL: there is
 * none), for the highest aligned place for @size units in a gap.  @limit
 * is the first unit above the free space just above @node.
 */
static inline bool rb2013_search(struct rb2013 *a, struct rb_node *node,
				 unsigned long limit, unsigned long size,
				 unsigned long align, unsigned long *out)
{
	lockdep_assert_held(&a->lock);
	for (;;) {
		unsigned long floor = node ? rb2013_range(node)->hi + 1 :
			a->start;

		if (limit - floor >= size) {
			unsigned long lo = (limit - size) & ~(align - 1);

			if (lo >= floor) {
				*out = lo;
				return true;
			}
		}
		if (!node)
			return false;
		limit = rb2013_range(node)->lo;
		node = rb_prev(node);
	}
}

/* Link @new into the tree unless it overlaps a range there. */
static inline int rb2013_link(struct rb2013 *a, struct rb2013_range *new)
{
	struct rb_node **link = &a->root.rb_node, *parent = NULL;

	lockdep_assert_held(&a->lock);
	while (*link) {
		struct rb2013_range *r = rb2013_range(*link);

		parent = *link;
		if (new->hi < r->lo)
			link = &(*link)->rb_left;
		else if (new->lo > r->hi)
			link = &(*link)->rb_right;
		else
			return -EEXIST;
	}
	rb_link_node(&new->node, parent, link);
	rb_insert_color(&new->node, &a->root);
	return 0;
}

/*
 * Place @new: @size units aligned to @align (a power of two), as high as
 * they fit.  Returns false if nothing fits; @new is then not linked.
 */
static inline bool rb2013_alloc(struct rb2013 *a, struct rb2013_range *new,
				unsigned long size, unsigned long align)
{
	unsigned long flags, lo;
	bool found = false;

	spin_lock_irqsave(&a->lock, flags);
	if (a->cached)
		found = rb2013_search(a, rb_prev(a->cached),
				      rb2013_range(a->cached)->lo, size, align,
				      &lo);
	if (!found)
		found = rb2013_search(a, rb_last(&a->root), a->end, size,
				      align, &lo);
	if (found) {
		new->lo = lo;
		new->hi = lo + size - 1;
		/* The search found a gap: linking cannot collide. */
		rb2013_link(a, new);
		a->cached = &new->node;
	}
	spin_unlock_irqrestore(&a->lock, flags);
	return found;
}

/* Link @new as [@lo, +@size); -EEXIST if it overlaps an allocated range. */
static inline int rb2013_reserve(struct rb2013 *a, struct rb2013_range *new,
				 unsigned long lo, unsigned long size)
{
	unsigned long flags;
	int ret;

	new->lo = lo;
	new->hi = lo + size - 1;
	spin_lock_irqsave(&a->lock, flags);
	ret = rb2013_link(a, new);
	spin_unlock_irqrestore(&a->lock, flags);
	return ret;
}

static inline void rb2013_erase_locked(struct rb2013 *a,
				       struct rb2013_range *range)
{
	lockdep_assert_held(&a->lock);
	if (a->cached && range->lo >= rb2013_range(a->cached)->lo)
		a->cached = rb_next(&range->node);
	rb_erase(&range->node, &a->root);
}

/* Unlink @range, which the caller knows is linked; the caller frees it. */
static inline void rb2013_erase(struct rb2013 *a, struct rb2013_range *range)
{
	unsigned long flags;

	spin_lock_irqsave(&a->lock, flags);
	rb2013_erase_locked(a, range);
	spin_unlock_irqrestore(&a->lock, flags);
}

/*
 * Look up the range starting at @lo and unlink it if it has @size units,
 * as the 2013 callers freed (find_iova() and __free_iova()).  Returns the
 * range, for the caller to free, or NULL if no such range is allocated.
 */
static inline struct rb2013_range *rb2013_remove(struct rb2013 *a,
						 unsigned long lo,
						 unsigned long size)
{
	struct rb_node *node;
	struct rb2013_range *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&a->lock, flags);
	node = a->root.rb_node;
	while (node) {
		struct rb2013_range *r = rb2013_range(node);

		if (lo < r->lo) {
			node = node->rb_left;
		} else if (lo > r->lo) {
			node = node->rb_right;
		} else {
			if (r->hi - r->lo + 1 == size) {
				rb2013_erase_locked(a, r);
				found = r;
			}
			break;
		}
	}
	spin_unlock_irqrestore(&a->lock, flags);
	return found;
}

#endif /* _PEERS_RBTREE_2013_H */
