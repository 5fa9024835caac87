// SPDX-License-Identifier: GPL-2.0
/*
 * Backends "skiplist" and "skiplist-nocache": the skiplist range allocator
 * (extent/range_alloc.h, in sl_extent.ko).  sl_range_alloc_cpu() searches
 * up from where this CPU's last allocation ended, through the gap index,
 * taking only the per-leaf locks of the leaves it changes; sl_range_free()
 * checks the size it is given against the range it frees.  "skiplist"
 * turns on the allocator's per-CPU caches of freed ranges
 * (SL_RANGE_CACHE), which hand a range freed on a CPU back to the next
 * request of its size there without touching the index; "skiplist-nocache"
 * goes to the index every time.
 */
#include <linux/err.h>
#include <linux/slab.h>
#include "sl_iommu.h"
#include "range_alloc.h"

struct slb_sl_iova {
	struct slb_iova iova;
	struct sl_range_alloc ra;
};

static struct sl_range_alloc *slb_ra(struct slb_iova *iova)
{
	return &container_of(iova, struct slb_sl_iova, iova)->ra;
}

static struct slb_iova *slb_sl_new(unsigned long start, unsigned long end,
				   const struct slb_iova_ops *ops,
				   unsigned int flags)
{
	struct slb_sl_iova *s = kzalloc(sizeof(*s), GFP_KERNEL);
	int ret;

	if (!s)
		return ERR_PTR(-ENOMEM);
	ret = sl_range_init(&s->ra, start, end, flags, GFP_KERNEL);
	if (ret) {
		kfree(s);
		return ERR_PTR(ret);
	}
	s->iova.ops = ops;
	return &s->iova;
}

static struct slb_iova *slb_sl_create(unsigned long start, unsigned long end)
{
	return slb_sl_new(start, end, &slb_iova_skiplist, SL_RANGE_CACHE);
}

static struct slb_iova *slb_sl_nocache_create(unsigned long start,
					      unsigned long end)
{
	return slb_sl_new(start, end, &slb_iova_skiplist_nocache, 0);
}

static void slb_sl_destroy(struct slb_iova *iova)
{
	sl_range_destroy(slb_ra(iova));
	kfree(container_of(iova, struct slb_sl_iova, iova));
}

static int slb_sl_alloc(struct slb_iova *iova, unsigned long pages,
			unsigned long *pfn)
{
	return sl_range_alloc_cpu(slb_ra(iova), pages, 1, pfn, GFP_ATOMIC);
}

static void slb_sl_free(struct slb_iova *iova, unsigned long pfn,
			unsigned long pages)
{
	int ret = sl_range_free(slb_ra(iova), pfn, pages);

	if (ret)
		pr_err_ratelimited("sl_iommu: skiplist: freeing [%lx, +%lx): %d\n",
				   pfn, pages, ret);
}

/* The allocator's free space, caches and index (sl_range_debugfs_add()). */
static int slb_sl_debugfs_add(struct slb_iova *iova, struct dentry *parent,
			      const char *name)
{
	return sl_range_debugfs_add(slb_ra(iova), parent, name);
}

const struct slb_iova_ops slb_iova_skiplist = {
	.name = "skiplist",
	.create = slb_sl_create,
	.destroy = slb_sl_destroy,
	.alloc = slb_sl_alloc,
	.free = slb_sl_free,
	.debugfs_add = slb_sl_debugfs_add,
};

const struct slb_iova_ops slb_iova_skiplist_nocache = {
	.name = "skiplist-nocache",
	.create = slb_sl_nocache_create,
	.destroy = slb_sl_destroy,
	.alloc = slb_sl_alloc,
	.free = slb_sl_free,
	.debugfs_add = slb_sl_debugfs_add,
};
