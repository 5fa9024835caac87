// SPDX-License-Identifier: GPL-2.0
/*
 * The emulated IOMMU: an IO page table, one flat level of entries indexed
 * by IOVA page, filled and cleared per request in strict mode, and the
 * translation the "device" does for every byte it moves.
 *
 * What is real: the allocator calls, the page table stores and loads, the
 * copy through translated addresses.  What is not: there is no IOTLB, so
 * no invalidation cost on unmap, and no multi-level table walk.
 *
 * Debug mode keeps a shadow bitmap of IOVA space, one bit per page set
 * from allocation to free, whatever the backend: a page handed out twice
 * is an overlap, a page freed while clear a bad free, and a bit still set
 * at unload a leak.
 */
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "sl_iommu.h"

/* An entry: the physical frame above PAGE_SHIFT, permissions below. */
#define SLB_PTE_VALID	BIT(0)
#define SLB_PTE_READ	BIT(1)	/* the device may read the page */
#define SLB_PTE_WRITE	BIT(2)	/* the device may write the page */

static const struct slb_iova_ops *const slb_backends[] = {
	&slb_iova_rbtree,
	&slb_iova_kernel,
	&slb_iova_maple,
	&slb_iova_skiplist,
	&slb_iova_skiplist_nocache,
};

/**
 * slb_backend_find() - the backend of a name
 * @name: as given to the backend= parameter
 *
 * Context: Any context.
 * Return: the backend; NULL for "none"; ERR_PTR(-EINVAL) for an unknown
 * name.
 */
const struct slb_iova_ops *slb_backend_find(const char *name)
{
	unsigned int i;

	if (!strcmp(name, "none"))
		return NULL;
	for (i = 0; i < ARRAY_SIZE(slb_backends); i++)
		if (!strcmp(name, slb_backends[i]->name))
			return slb_backends[i];
	return ERR_PTR(-EINVAL);
}

/**
 * slb_iommu_init() - an emulated IOMMU with an empty page table
 * @mmu:   to initialise
 * @ops:   the IOVA allocator; NULL for the IOMMU off
 * @pages: pages of IOVA space
 * @debug: keep a shadow bitmap and check every allocation and free on it
 *
 * Context: Process context; may sleep.
 * Return: 0, -ENOMEM, or the backend's error.
 */
int slb_iommu_init(struct slb_iommu *mmu, const struct slb_iova_ops *ops,
		   unsigned long pages, bool debug)
{
	memset(mmu, 0, sizeof(*mmu));
	mmu->ops = ops;
	if (!ops)
		return 0;
	/* Page 0 is never handed out: the kernel's IOVA allocator needs that. */
	mmu->start = 1;
	mmu->pages = pages;
	mmu->table = kvzalloc(array_size(pages, sizeof(*mmu->table)),
			      SLB_LOAD_GFP);
	if (!mmu->table)
		return -ENOMEM;
	mmu->counts = alloc_percpu(struct slb_iommu_counts);
	if (!mmu->counts)
		goto nomem;
	if (debug) {
		mmu->shadow = bitmap_zalloc(pages, SLB_LOAD_GFP);
		if (!mmu->shadow)
			goto nomem;
	}
	mmu->iova = ops->create(mmu->start, mmu->start + pages);
	if (IS_ERR(mmu->iova)) {
		int ret = PTR_ERR(mmu->iova);

		bitmap_free(mmu->shadow);
		free_percpu(mmu->counts);
		kvfree(mmu->table);
		return ret;
	}
	return 0;

nomem:
	free_percpu(mmu->counts);
	kvfree(mmu->table);
	return -ENOMEM;
}

/**
 * slb_iommu_counts() - add up the per-CPU counts
 * @mmu: the device's IOMMU
 * @sum: filled in; all zero when the IOMMU is off
 *
 * Context: Any context.  A snapshot: requests in flight may be counted in
 * @sum->maps and not yet in @sum->unmaps.
 */
void slb_iommu_counts(struct slb_iommu *mmu, struct slb_iommu_counts *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	if (!mmu->counts)
		return;
	for_each_possible_cpu(cpu) {
		const struct slb_iommu_counts *c = per_cpu_ptr(mmu->counts, cpu);

		sum->maps += READ_ONCE(c->maps);
		sum->unmaps += READ_ONCE(c->unmaps);
		sum->map_fails += READ_ONCE(c->map_fails);
	}
}

/**
 * slb_iommu_destroy() - tear down an emulated IOMMU
 * @mmu: with no request in flight
 *
 * Reports on the kernel log every range never freed and, in debug mode,
 * every overlap, bad free and page still allocated.
 *
 * Context: Process context.
 */
void slb_iommu_destroy(struct slb_iommu *mmu)
{
	struct slb_iommu_counts sum;
	long leaked;

	if (!mmu->ops)
		return;
	slb_iommu_counts(mmu, &sum);
	leaked = sum.maps - sum.unmaps;
	if (mmu->shadow)
		leaked += bitmap_weight(mmu->shadow, mmu->pages);
	if (leaked || atomic_long_read(&mmu->overlaps) ||
	    atomic_long_read(&mmu->bad_frees))
		pr_err("sl_iommu: %s: %ld leaked, %ld overlapping and %ld bad frees\n",
		       mmu->ops->name, leaked, atomic_long_read(&mmu->overlaps),
		       atomic_long_read(&mmu->bad_frees));
	mmu->ops->destroy(mmu->iova);
	bitmap_free(mmu->shadow);
	free_percpu(mmu->counts);
	kvfree(mmu->table);
}

static void slb_shadow_take(struct slb_iommu *mmu, const struct slb_mapping *map)
{
	unsigned long i, first = map->pfn - mmu->start;

	for (i = 0; i < map->pages; i++)
		if (test_and_set_bit(first + i, mmu->shadow)) {
			atomic_long_inc(&mmu->overlaps);
			pr_err_ratelimited("sl_iommu: %s handed out IOVA page %lx twice\n",
					   mmu->ops->name, map->pfn + i);
		}
}

static void slb_shadow_give(struct slb_iommu *mmu, const struct slb_mapping *map)
{
	unsigned long i, first = map->pfn - mmu->start;

	for (i = 0; i < map->pages; i++)
		if (!test_and_clear_bit(first + i, mmu->shadow)) {
			atomic_long_inc(&mmu->bad_frees);
			pr_err_ratelimited("sl_iommu: %s: IOVA page %lx freed while free\n",
					   mmu->ops->name, map->pfn + i);
		}
}

/**
 * slb_iommu_map() - map a request's pages into IOVA space
 * @mmu: the device's IOMMU, not off
 * @rq:  the request; each of its segments lies within one page
 * @map: where they went, for slb_iommu_unmap()
 *
 * Segment i's address on the device side is ((@map->pfn + i) <<
 * PAGE_SHIFT) plus its offset in its page.  The device may read the pages
 * of a write and write the pages of a read, nothing else.
 *
 * Context: The request path; does not sleep.
 * Return: 0; -ENOMEM or -ENOSPC from the allocator (try again later);
 * -EFAULT if the allocator answered outside IOVA space.
 */
int slb_iommu_map(struct slb_iommu *mmu, struct request *rq,
		  struct slb_mapping *map)
{
	unsigned long perm = SLB_PTE_VALID | (rq_data_dir(rq) == WRITE ?
					       SLB_PTE_READ : SLB_PTE_WRITE);
	struct req_iterator iter;
	struct bio_vec bvec;
	unsigned long i = 0;
	int ret;

	map->pages = 0;
	rq_for_each_segment(bvec, rq, iter)
		map->pages++;
	if (!map->pages)
		return 0;
	ret = mmu->ops->alloc(mmu->iova, map->pages, &map->pfn);
	if (ret) {
		this_cpu_inc(mmu->counts->map_fails);
		return ret;
	}
	if (map->pfn < mmu->start || map->pfn - mmu->start > mmu->pages ||
	    map->pages > mmu->pages - (map->pfn - mmu->start)) {
		pr_err_ratelimited("sl_iommu: %s answered [%lx, +%lx), outside IOVA space\n",
				   mmu->ops->name, map->pfn, map->pages);
		atomic_long_inc(&mmu->faults);
		/* Its own answer: give it back, so that nothing leaks. */
		mmu->ops->free(mmu->iova, map->pfn, map->pages);
		return -EFAULT;
	}
	this_cpu_inc(mmu->counts->maps);
	if (mmu->shadow)
		slb_shadow_take(mmu, map);
	rq_for_each_segment(bvec, rq, iter) {
		unsigned long pte = (page_to_pfn(bvec.bv_page) << PAGE_SHIFT) |
			perm;

		WRITE_ONCE(mmu->table[map->pfn - mmu->start + i++], pte);
	}
	return 0;
}

/**
 * slb_iommu_unmap() - clear a request's translations and free its range
 * @mmu: the device's IOMMU, not off
 * @map: from slb_iommu_map()
 *
 * Context: The request path; does not sleep.
 */
void slb_iommu_unmap(struct slb_iommu *mmu, const struct slb_mapping *map)
{
	unsigned long i;

	if (!map->pages)
		return;
	for (i = 0; i < map->pages; i++)
		WRITE_ONCE(mmu->table[map->pfn - mmu->start + i], 0);
	/* Clear the shadow first: once freed, the range may be handed out. */
	if (mmu->shadow)
		slb_shadow_give(mmu, map);
	mmu->ops->free(mmu->iova, map->pfn, map->pages);
	this_cpu_inc(mmu->counts->unmaps);
}

/**
 * slb_iommu_translate() - the page behind a device address
 * @mmu:   the device's IOMMU, not off
 * @addr:  device address
 * @write: the device writes there (else it reads)
 *
 * Context: The request path; does not sleep.
 * Return: the page, or NULL for a fault: an address outside IOVA space,
 * unmapped, or without the permission asked for.
 */
struct page *slb_iommu_translate(struct slb_iommu *mmu, unsigned long addr,
				 bool write)
{
	unsigned long pfn = addr >> PAGE_SHIFT, pte;

	if (pfn < mmu->start || pfn - mmu->start >= mmu->pages)
		goto fault;
	pte = READ_ONCE(mmu->table[pfn - mmu->start]);
	if (!(pte & SLB_PTE_VALID) ||
	    !(pte & (write ? SLB_PTE_WRITE : SLB_PTE_READ)))
		goto fault;
	return pfn_to_page(pte >> PAGE_SHIFT);

fault:
	atomic_long_inc(&mmu->faults);
	pr_err_ratelimited("sl_iommu: %s: IOMMU fault: device %s at %lx\n",
			   mmu->ops->name, write ? "write" : "read", addr);
	return NULL;
}
