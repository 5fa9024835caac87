// SPDX-License-Identifier: GPL-2.0
/*
 * Backend "rbtree": an IOVA allocator in the kernel's 2013 design, the one
 * the 2013 skiplist RFC measured against, written here from its
 * description (Documentation/iommu_demo.rst):
 *
 *  - one spinlock, taken with interrupts off, over one rbtree of the
 *    allocated ranges sorted by start;
 *  - allocation is top-down from a cached node: the search walks down the
 *    tree one node at a time (rb_prev()) until a gap below a node holds
 *    the request, so it is linear in the ranges it passes;
 *  - the cached node is the range allocated last; freeing a range at or
 *    above it moves the cache to the freed range's successor (none: the
 *    top of the space), so space freed above the cache is found again;
 *  - freeing looks the range up by its first page under the lock.
 *
 * One departure: when nothing fits below the cached node, the 2013 code
 * failed the request; this one searches once more from the top, as the
 * kernel has since 2017, so a busy device never fails spuriously.
 */
#include <linux/err.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "sl_iommu.h"

struct slb_rb_range {
	struct rb_node node;
	unsigned long lo;	/* first page */
	unsigned long hi;	/* last page */
};

struct slb_rb_iova {
	struct slb_iova iova;
	spinlock_t lock;	/* guards the tree and the cache */
	struct rb_root root;
	struct rb_node *cached;	/* search starts below it; NULL: the top */
	unsigned long start;
	unsigned long end;	/* exclusive */
};

static struct slb_rb_iova *slb_rb(struct slb_iova *iova)
{
	return container_of(iova, struct slb_rb_iova, iova);
}

static struct slb_rb_range *slb_rb_range(struct rb_node *node)
{
	return rb_entry(node, struct slb_rb_range, node);
}

static struct slb_iova *slb_rb_create(unsigned long start, unsigned long end)
{
	struct slb_rb_iova *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&a->lock);
	a->root = RB_ROOT;
	a->start = start;
	a->end = end;
	a->iova.ops = &slb_iova_rbtree;
	return &a->iova;
}

static void slb_rb_destroy(struct slb_iova *iova)
{
	struct slb_rb_iova *a = slb_rb(iova);
	struct slb_rb_range *r, *next;

	rbtree_postorder_for_each_entry_safe(r, next, &a->root, node)
		kfree(r);
	kfree(a);
}

/*
 * Walk down from @node, the highest range below @limit (NULL: none), for
 * the highest place for @pages in a gap.  @limit is the first page above
 * the free space just above @node.
 */
static bool slb_rb_search(struct slb_rb_iova *a, struct rb_node *node,
			  unsigned long limit, unsigned long pages,
			  unsigned long *out)
{
	for (;;) {
		unsigned long floor = node ? slb_rb_range(node)->hi + 1 :
			a->start;

		if (limit - floor >= pages) {
			*out = limit - pages;
			return true;
		}
		if (!node)
			return false;
		limit = slb_rb_range(node)->lo;
		node = rb_prev(node);
	}
}

static void slb_rb_link(struct slb_rb_iova *a, struct slb_rb_range *new)
{
	struct rb_node **link = &a->root.rb_node, *parent = NULL;

	while (*link) {
		parent = *link;
		if (new->lo < slb_rb_range(parent)->lo)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&new->node, parent, link);
	rb_insert_color(&new->node, &a->root);
}

static int slb_rb_alloc(struct slb_iova *iova, unsigned long pages,
			unsigned long *pfn)
{
	struct slb_rb_iova *a = slb_rb(iova);
	struct slb_rb_range *new;
	unsigned long flags, lo;
	bool found = false;

	/* As the 2013 allocator did: the node before the lock. */
	new = kmalloc(sizeof(*new), GFP_ATOMIC);
	if (!new)
		return -ENOMEM;
	spin_lock_irqsave(&a->lock, flags);
	if (a->cached)
		found = slb_rb_search(a, rb_prev(a->cached),
				      slb_rb_range(a->cached)->lo, pages, &lo);
	if (!found)
		found = slb_rb_search(a, rb_last(&a->root), a->end, pages,
				      &lo);
	if (found) {
		new->lo = lo;
		new->hi = lo + pages - 1;
		slb_rb_link(a, new);
		a->cached = &new->node;
	}
	spin_unlock_irqrestore(&a->lock, flags);
	if (!found) {
		kfree(new);
		return -ENOSPC;
	}
	*pfn = lo;
	return 0;
}

static struct slb_rb_range *slb_rb_find(struct slb_rb_iova *a,
					unsigned long pfn)
{
	struct rb_node *node = a->root.rb_node;

	while (node) {
		struct slb_rb_range *r = slb_rb_range(node);

		if (pfn < r->lo)
			node = node->rb_left;
		else if (pfn > r->lo)
			node = node->rb_right;
		else
			return r;
	}
	return NULL;
}

static void slb_rb_free(struct slb_iova *iova, unsigned long pfn,
			unsigned long pages)
{
	struct slb_rb_iova *a = slb_rb(iova);
	struct slb_rb_range *range;
	unsigned long flags;

	spin_lock_irqsave(&a->lock, flags);
	range = slb_rb_find(a, pfn);
	if (range && range->hi - range->lo + 1 == pages) {
		if (a->cached && range->lo >= slb_rb_range(a->cached)->lo)
			a->cached = rb_next(&range->node);
		rb_erase(&range->node, &a->root);
	} else {
		range = NULL;
	}
	spin_unlock_irqrestore(&a->lock, flags);
	if (!range)
		pr_err_ratelimited("sl_iommu: rbtree: freeing [%lx, +%lx), not allocated\n",
				   pfn, pages);
	kfree(range);
}

const struct slb_iova_ops slb_iova_rbtree = {
	.name = "rbtree",
	.create = slb_rb_create,
	.destroy = slb_rb_destroy,
	.alloc = slb_rb_alloc,
	.free = slb_rb_free,
};
