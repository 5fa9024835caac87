// SPDX-License-Identifier: GPL-2.0
/*
 * A range allocator in the design of the kernel's IOVA allocator as it was
 * in 2013, before its per-CPU caches (2016) and later fixes: the peer the
 * 2013 skiplist RFC measured against.  Written here from that description.
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
 *
 * So the cache makes repeated allocations from one shrinking free area
 * cheap, and makes a request that only fits far below cost a walk over
 * every range in between, whenever the cache sits high: after any free
 * near the top.  The fragmented workload does exactly that.
 *
 * One departure: when nothing fits below the cached node, the 2013 code
 * failed the request; this one searches once more from the top (as the
 * kernel's allocator has since 2017), so a churning workload never fails
 * spuriously.
 */
#include <linux/err.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "bench.h"

struct bench_rb_range {
	struct rb_node node;
	unsigned long lo;	/* first unit */
	unsigned long hi;	/* last unit */
};

struct bench_rb_alloc {
	struct bench_alloc ba;
	spinlock_t lock;	/* guards the tree and the cache */
	struct rb_root root;
	struct rb_node *cached;	/* search starts below it; NULL: the top */
	unsigned long start;
	unsigned long end;	/* exclusive */
};

static struct bench_rb_alloc *bench_rba(struct bench_alloc *ba)
{
	return container_of(ba, struct bench_rb_alloc, ba);
}

static struct bench_rb_range *bench_rba_range(struct rb_node *node)
{
	return rb_entry(node, struct bench_rb_range, node);
}

static struct bench_alloc *bench_rba_init(unsigned long start,
					  unsigned long end)
{
	struct bench_rb_alloc *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&a->lock);
	a->root = RB_ROOT;
	a->start = start;
	a->end = end;
	a->ba.ops = &bench_alloc_rbtree;
	return &a->ba;
}

static void bench_rba_destroy(struct bench_alloc *ba)
{
	struct bench_rb_alloc *a = bench_rba(ba);
	struct bench_rb_range *r, *next;

	rbtree_postorder_for_each_entry_safe(r, next, &a->root, node)
		kfree(r);
	kfree(a);
}

/*
 * Walk down from @node, the highest range below @limit (NULL: there is
 * none), for the highest aligned place for @size units in a gap.  @limit
 * is the first unit above the free space just above @node.
 */
static bool bench_rba_search(struct bench_rb_alloc *a, struct rb_node *node,
			     unsigned long limit, unsigned long size,
			     unsigned long align, unsigned long *out)
{
	for (;;) {
		unsigned long floor = node ? bench_rba_range(node)->hi + 1 :
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
		limit = bench_rba_range(node)->lo;
		node = rb_prev(node);
	}
}

/* Link @new into the tree unless it overlaps a range there. */
static int bench_rba_link(struct bench_rb_alloc *a, struct bench_rb_range *new)
{
	struct rb_node **link = &a->root.rb_node, *parent = NULL;

	while (*link) {
		struct bench_rb_range *r = bench_rba_range(*link);

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

static int bench_rba_alloc(struct bench_alloc *ba, unsigned long size,
			   unsigned long align, struct bench_range *out)
{
	struct bench_rb_alloc *a = bench_rba(ba);
	struct bench_rb_range *new;
	unsigned long flags, lo;
	bool found;

	if (!size || !is_power_of_2(align))
		return -EINVAL;
	/* As the IOVA allocator did: allocate before taking the lock. */
	new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	spin_lock_irqsave(&a->lock, flags);
	if (a->cached)
		found = bench_rba_search(a, rb_prev(a->cached),
					 bench_rba_range(a->cached)->lo,
					 size, align, &lo);
	else
		found = false;
	if (!found)
		found = bench_rba_search(a, rb_last(&a->root), a->end, size,
					 align, &lo);
	if (found) {
		new->lo = lo;
		new->hi = lo + size - 1;
		/* The search found a gap: linking cannot collide. */
		bench_rba_link(a, new);
		a->cached = &new->node;
	}
	spin_unlock_irqrestore(&a->lock, flags);
	if (!found) {
		kfree(new);
		return -ENOSPC;
	}
	out->start = lo;
	out->size = size;
	out->cookie = new;
	return 0;
}

static int bench_rba_free(struct bench_alloc *ba, struct bench_range *r)
{
	struct bench_rb_alloc *a = bench_rba(ba);
	struct bench_rb_range *range = r->cookie;
	unsigned long flags;

	if (!range || range->lo != r->start || range->hi != r->start + r->size - 1)
		return -EINVAL;
	spin_lock_irqsave(&a->lock, flags);
	if (a->cached && range->lo >= bench_rba_range(a->cached)->lo)
		a->cached = rb_next(&range->node);
	rb_erase(&range->node, &a->root);
	spin_unlock_irqrestore(&a->lock, flags);
	kfree(range);
	return 0;
}

static int bench_rba_reserve(struct bench_alloc *ba, unsigned long start,
			     unsigned long size, struct bench_range *r)
{
	struct bench_rb_alloc *a = bench_rba(ba);
	struct bench_rb_range *new;
	unsigned long flags;
	int ret;

	if (!size || start < a->start || start + size > a->end ||
	    start + size < start)
		return -ERANGE;
	new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->lo = start;
	new->hi = start + size - 1;
	spin_lock_irqsave(&a->lock, flags);
	ret = bench_rba_link(a, new);
	spin_unlock_irqrestore(&a->lock, flags);
	if (ret) {
		kfree(new);
		return ret;
	}
	r->start = start;
	r->size = size;
	r->cookie = new;
	return 0;
}

const struct bench_alloc_ops bench_alloc_rbtree = {
	.name = "rbtree",
	.top_down = true,
	.init = bench_rba_init,
	.destroy = bench_rba_destroy,
	.alloc = bench_rba_alloc,
	.free = bench_rba_free,
	.reserve = bench_rba_reserve,
};
