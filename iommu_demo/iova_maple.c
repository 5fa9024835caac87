// SPDX-License-Identifier: GPL-2.0
/*
 * Backend "maple": the maple tree's gap search (MT_FLAGS_ALLOC_RANGE, in
 * RCU mode, as the mm uses it for mappings).  mas_empty_area() finds the
 * lowest free gap big enough under the tree lock, then
 * mtree_insert_range() claims it, again if another CPU took it first
 * (-EEXIST).  The two steps are separate because in 6.1
 * mtree_alloc_range() is broken and mas_store_gfp() may drop the lock to
 * allocate.
 */
#include <linux/err.h>
#include <linux/maple_tree.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include "sl_iommu.h"

/* Searches before a request that keeps colliding gives up (and retries). */
#define SLB_MT_TRIES	16

struct slb_mt_iova {
	struct slb_iova iova;
	struct maple_tree mt;
	unsigned long start;
	unsigned long end;	/* exclusive */
};

static struct slb_mt_iova *slb_mt(struct slb_iova *iova)
{
	return container_of(iova, struct slb_mt_iova, iova);
}

static struct slb_iova *slb_mt_create(unsigned long start, unsigned long end)
{
	struct slb_mt_iova *m = kzalloc(sizeof(*m), GFP_KERNEL);

	if (!m)
		return ERR_PTR(-ENOMEM);
	mt_init_flags(&m->mt, MT_FLAGS_ALLOC_RANGE | MT_FLAGS_USE_RCU);
	m->start = start;
	m->end = end;
	m->iova.ops = &slb_iova_maple;
	return &m->iova;
}

static void slb_mt_destroy(struct slb_iova *iova)
{
	struct slb_mt_iova *m = slb_mt(iova);

	/* No reader is left: no grace period needed for the nodes. */
	mt_clear_in_rcu(&m->mt);
	mtree_destroy(&m->mt);
	kfree(m);
}

static int slb_mt_alloc(struct slb_iova *iova, unsigned long pages,
			unsigned long *pfn)
{
	struct slb_mt_iova *m = slb_mt(iova);
	unsigned int tries;
	int ret;

	for (tries = 0; tries < SLB_MT_TRIES; tries++) {
		MA_STATE(mas, &m->mt, 0, 0);

		mtree_lock(&m->mt);
		ret = mas_empty_area(&mas, m->start, m->end - 1, pages);
		mtree_unlock(&m->mt);
		if (ret)
			return -ENOSPC;
		ret = mtree_insert_range(&m->mt, mas.index,
					 mas.index + pages - 1,
					 xa_mk_value(pages), GFP_ATOMIC);
		if (!ret) {
			*pfn = mas.index;
			return 0;
		}
		if (ret != -EEXIST)
			return ret;
	}
	return -ENOSPC;
}

static void slb_mt_free(struct slb_iova *iova, unsigned long pfn,
			unsigned long pages)
{
	if (mtree_erase(&slb_mt(iova)->mt, pfn) != xa_mk_value(pages))
		pr_err_ratelimited("sl_iommu: maple: freeing [%lx, +%lx), not allocated\n",
				   pfn, pages);
}

const struct slb_iova_ops slb_iova_maple = {
	.name = "maple",
	.create = slb_mt_create,
	.destroy = slb_mt_destroy,
	.alloc = slb_mt_alloc,
	.free = slb_mt_free,
};
