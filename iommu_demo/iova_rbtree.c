// SPDX-License-Identifier: GPL-2.0
/*
 * Backend "rbtree": an IOVA allocator in the kernel's 2013 design, the one
 * the 2013 skiplist RFC measured against (tools/peers/rbtree_2013.h, shared
 * with the in-kernel benchmark; Documentation/iommu_demo.rst): one
 * spinlock over one rbtree of the allocated ranges, top-down allocation
 * by a linear walk down from a cached node, and a free that looks the
 * range up by its first page under the lock.
 */
#include <linux/err.h>
#include <linux/slab.h>
#include "rbtree_2013.h"
#include "sl_iommu.h"

struct slb_rb_iova {
	struct slb_iova iova;
	struct rb2013 space;
};

static struct slb_rb_iova *slb_rb(struct slb_iova *iova)
{
	return container_of(iova, struct slb_rb_iova, iova);
}

static struct slb_iova *slb_rb_create(unsigned long start, unsigned long end)
{
	struct slb_rb_iova *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return ERR_PTR(-ENOMEM);
	rb2013_init(&a->space, start, end);
	a->iova.ops = &slb_iova_rbtree;
	return &a->iova;
}

static void slb_rb_destroy(struct slb_iova *iova)
{
	struct slb_rb_iova *a = slb_rb(iova);

	rb2013_destroy(&a->space);
	kfree(a);
}

static int slb_rb_alloc(struct slb_iova *iova, unsigned long pages,
			unsigned long *pfn)
{
	struct rb2013_range *new;

	/* As the 2013 allocator did: the node before the lock. */
	new = kmalloc(sizeof(*new), GFP_ATOMIC);
	if (!new)
		return -ENOMEM;
	if (!rb2013_alloc(&slb_rb(iova)->space, new, pages, 1)) {
		kfree(new);
		return -ENOSPC;
	}
	*pfn = new->lo;
	return 0;
}

static void slb_rb_free(struct slb_iova *iova, unsigned long pfn,
			unsigned long pages)
{
	struct rb2013_range *range;

	range = rb2013_remove(&slb_rb(iova)->space, pfn, pages);
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
