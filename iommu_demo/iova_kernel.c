// SPDX-License-Identifier: GPL-2.0
/*
 * Backend "iova": the kernel's own IOVA allocator (drivers/iommu/iova.c)
 * used as the DMA API uses it: alloc_iova_fast() and free_iova_fast(),
 * per-CPU magazines of recently freed ranges (up to 32 pages, by power
 * of two) in front of an rbtree under one spinlock.  Requests up to the
 * cached sizes are rounded up to a power of two and aligned to it, inside
 * alloc_iova_fast() itself.
 */
#include <linux/err.h>
#include <linux/iova.h>
#include <linux/slab.h>
#include "sl_iommu.h"

struct slb_kernel_iova {
	struct slb_iova iova;
	struct iova_domain domain;
	unsigned long limit;	/* last page of the space */
};

static struct slb_kernel_iova *slb_kiova(struct slb_iova *iova)
{
	return container_of(iova, struct slb_kernel_iova, iova);
}

static struct slb_iova *slb_kiova_create(unsigned long start,
					 unsigned long end)
{
	struct slb_kernel_iova *k;
	int ret;

	/* alloc_iova_fast() returns 0 for a failure: page 0 is not usable. */
	if (!start)
		return ERR_PTR(-EINVAL);
	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return ERR_PTR(-ENOMEM);
	ret = iova_cache_get();
	if (ret)
		goto out_free;
	init_iova_domain(&k->domain, PAGE_SIZE, start);
	ret = iova_domain_init_rcaches(&k->domain);
	if (ret)
		goto out_domain;
	k->limit = end - 1;
	k->iova.ops = &slb_iova_kernel;
	return &k->iova;

out_domain:
	put_iova_domain(&k->domain);
	iova_cache_put();
out_free:
	kfree(k);
	return ERR_PTR(ret);
}

/* Frees every range still allocated, and the per-CPU caches. */
static void slb_kiova_destroy(struct slb_iova *iova)
{
	struct slb_kernel_iova *k = slb_kiova(iova);

	put_iova_domain(&k->domain);
	iova_cache_put();
	kfree(k);
}

static int slb_kiova_alloc(struct slb_iova *iova, unsigned long pages,
			   unsigned long *pfn)
{
	struct slb_kernel_iova *k = slb_kiova(iova);

	/* Flush the caches and retry once before failing, as the DMA API. */
	*pfn = alloc_iova_fast(&k->domain, pages, k->limit, true);
	return *pfn ? 0 : -ENOSPC;
}

static void slb_kiova_free(struct slb_iova *iova, unsigned long pfn,
			   unsigned long pages)
{
	free_iova_fast(&slb_kiova(iova)->domain, pfn, pages);
}

const struct slb_iova_ops slb_iova_kernel = {
	.name = "iova",
	.create = slb_kiova_create,
	.destroy = slb_kiova_destroy,
	.alloc = slb_kiova_alloc,
	.free = slb_kiova_free,
};
