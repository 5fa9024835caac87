/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sl_iommu.ko: a RAM block device whose every request is mapped through an
 * emulated IOMMU, with the IO virtual address allocator chosen per device.
 *
 * The request path of a driver behind an IOMMU in strict mode, in software:
 *  1. allocate an IOVA range covering the request's pages (the backend);
 *  2. install one translation per page in the device's IO page table;
 *  3. "DMA": copy between the backing store and the request's pages by
 *     translating every device address through that table;
 *  4. clear the translations and free the range, then complete.
 *
 * The backend "none" is the IOMMU switched off: the copy goes straight to
 * the request's pages.  Documentation/iommu_demo.rst has the details.
 */
#ifndef _SL_IOMMU_H
#define _SL_IOMMU_H

#include <linux/blk-mq.h>
#include <linux/types.h>

#define SLB_NAME		"slblk"
#define SLB_MAX_DEVICES		16

/*
 * The big allocations of a load (backing store, IO page table, shadow
 * bitmap) fail instead of calling the OOM killer, and quietly: a load too
 * large for the machine is refused with -ENOMEM and one message naming
 * the parameter (main.c checks the sizes against free memory first).
 */
#define SLB_LOAD_GFP	(GFP_KERNEL | __GFP_NOWARN | __GFP_RETRY_MAYFAIL)

struct slb_iova;
struct dentry;

/**
 * struct slb_iova_ops - an IOVA allocator backend
 * @name:    as in the backend= parameter and the sysfs attribute
 * @create:  an allocator of page frame numbers in [@start, @end), or an
 *           ERR_PTR(); process context
 * @destroy: free it and every range still allocated; nothing runs on it
 * @alloc:   @pages consecutive frames, the first in *@pfn: 0 or -errno
 *           (-ENOMEM, -ENOSPC); called from the request path, so it must
 *           not sleep
 * @free:    give back a range @alloc returned; must not sleep
 * @debugfs_add: publish the allocator in debugfs as @parent/@name, or
 *           NULL for a backend that has nothing to show; 0 or -errno
 *           (@destroy takes it out again); process context
 */
struct slb_iova_ops {
	const char *name;
	struct slb_iova *(*create)(unsigned long start, unsigned long end);
	void (*destroy)(struct slb_iova *iova);
	int (*alloc)(struct slb_iova *iova, unsigned long pages,
		     unsigned long *pfn);
	void (*free)(struct slb_iova *iova, unsigned long pfn,
		     unsigned long pages);
	int (*debugfs_add)(struct slb_iova *iova, struct dentry *parent,
			   const char *name);
};

/* Backends embed this first thing in their own state. */
struct slb_iova {
	const struct slb_iova_ops *ops;
};

extern const struct slb_iova_ops slb_iova_rbtree;
extern const struct slb_iova_ops slb_iova_kernel;
extern const struct slb_iova_ops slb_iova_maple;
extern const struct slb_iova_ops slb_iova_skiplist;
extern const struct slb_iova_ops slb_iova_skiplist_nocache;

/**
 * struct slb_iommu_counts - what one CPU's requests did
 * @maps:      ranges allocated
 * @unmaps:    ranges freed
 * @map_fails: allocations that failed (the request was retried later)
 */
struct slb_iommu_counts {
	unsigned long maps;
	unsigned long unmaps;
	unsigned long map_fails;
};

/**
 * struct slb_iommu - one device's emulated IOMMU
 * @iova:       the allocator; NULL when the IOMMU is off (backend none)
 * @ops:        its backend
 * @table:      the IO page table, one entry per page of IOVA space: the
 *              physical frame and permission bits, 0 when unmapped
 * @start:      first page frame of IOVA space (0 is never handed out)
 * @pages:      pages of IOVA space
 * @shadow:     debug mode: one bit per IOVA page, set while allocated
 * @counts:     per-CPU counts of the request path (shared atomics there
 *              would bounce a cache line between CPUs on every I/O)
 * @faults:     translations of an unmapped address or against permission
 * @overlaps:   debug mode: pages handed out while already allocated
 * @bad_frees:  debug mode: pages freed while not allocated
 */
struct slb_iommu {
	struct slb_iova *iova;
	const struct slb_iova_ops *ops;
	unsigned long *table;
	unsigned long start;
	unsigned long pages;
	unsigned long *shadow;
	struct slb_iommu_counts __percpu *counts;
	atomic_long_t faults;
	atomic_long_t overlaps;
	atomic_long_t bad_frees;
};

/* A request's mapping: where its pages sit in IOVA space. */
struct slb_mapping {
	unsigned long pfn;
	unsigned long pages;
};

const struct slb_iova_ops *slb_backend_find(const char *name);
int slb_iommu_init(struct slb_iommu *mmu, const struct slb_iova_ops *ops,
		   unsigned long pages, bool debug);
void slb_iommu_destroy(struct slb_iommu *mmu);
void slb_iommu_counts(struct slb_iommu *mmu, struct slb_iommu_counts *sum);
int slb_iommu_map(struct slb_iommu *mmu, struct request *rq,
		  struct slb_mapping *map);
void slb_iommu_unmap(struct slb_iommu *mmu, const struct slb_mapping *map);
struct page *slb_iommu_translate(struct slb_iommu *mmu, unsigned long addr,
				 bool write);

/**
 * struct slb_dev - one block device
 * @index:   N in /dev/slblkN
 * @pages:   pages of backing store
 * @store:   the backing store, one page each, allocated at load
 * @mmu:     the emulated IOMMU its requests go through
 * @tag_set: blk-mq tags, one hardware queue per CPU
 * @disk:    the disk
 * @io_errors: requests failed (past the end, unsupported, IOMMU fault)
 */
struct slb_dev {
	unsigned int index;
	unsigned long pages;
	struct page **store;
	struct slb_iommu mmu;
	struct blk_mq_tag_set tag_set;
	struct gendisk *disk;
	atomic_long_t io_errors;
};

extern const struct blk_mq_ops slb_mq_ops;
extern const struct attribute_group *slb_disk_groups[];

#endif /* _SL_IOMMU_H */
