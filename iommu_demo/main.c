// SPDX-License-Identifier: GPL-2.0
/*
 * sl_iommu.ko: module parameters and the life of the devices.  Every
 * device is /dev/slblkN, a RAM disk whose store is allocated at load, with
 * its own emulated IOMMU and IOVA allocator backend (sl_iommu.h).
 */
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include "sl_iommu.h"
#include "skiplist.h"		/* sl_debugfs_dir() */

/*
 * skiplist/sl_iommu in debugfs: each device's allocator, where its
 * backend has something to show (the skiplist's), as slbN; NULL or an
 * error pointer without debugfs.
 */
static struct dentry *slb_debugfs;

static unsigned int nr_devices;
module_param(nr_devices, uint, 0444);
MODULE_PARM_DESC(nr_devices,
		 "devices /dev/slblk0 on, 1-16 (default: one per backend= entry, at least 1)");

static char *backend[SLB_MAX_DEVICES];
static int nr_backend;
module_param_array(backend, charp, &nr_backend, 0444);
MODULE_PARM_DESC(backend,
		 "IOVA allocator of each device: none (IOMMU off), rbtree, iova, maple, skiplist or skiplist-nocache (default skiplist; a short list repeats its last entry)");

static unsigned int size_mb[SLB_MAX_DEVICES];
static int nr_size_mb;
module_param_array(size_mb, uint, &nr_size_mb, 0444);
MODULE_PARM_DESC(size_mb,
		 "size of each device in MiB, 1-4096, allocated at load (default 64; a short list repeats its last entry)");

static unsigned int iova_pages = 1U << 18;
module_param(iova_pages, uint, 0444);
MODULE_PARM_DESC(iova_pages,
		 "pages of IOVA space per device, 4096-16777216 (default 262144)");

static unsigned int queue_depth = 128;
module_param(queue_depth, uint, 0444);
MODULE_PARM_DESC(queue_depth, "requests per hardware queue, 1-1024 (default 128)");

static bool debug;
module_param(debug, bool, 0444);
MODULE_PARM_DESC(debug,
		 "check every IOVA allocation and free against a shadow bitmap and report leaks at unload (default off)");

static int slb_major;
static struct slb_dev *slb_devs[SLB_MAX_DEVICES];

static const struct block_device_operations slb_fops = {
	.owner = THIS_MODULE,
};

static void slb_store_free(struct slb_dev *dev)
{
	unsigned long i;

	for (i = 0; i < dev->pages && dev->store[i]; i++)
		__free_page(dev->store[i]);
	kvfree(dev->store);
}

static int slb_store_alloc(struct slb_dev *dev)
{
	unsigned long i;

	dev->store = kvcalloc(dev->pages, sizeof(*dev->store), SLB_LOAD_GFP);
	if (!dev->store)
		return -ENOMEM;
	for (i = 0; i < dev->pages; i++) {
		/* Zeroed: a read before any write returns zeroes. */
		dev->store[i] = alloc_page(SLB_LOAD_GFP | __GFP_ZERO);
		if (!dev->store[i]) {
			slb_store_free(dev);
			return -ENOMEM;
		}
		/* A load of gigabytes may be interrupted. */
		if (fatal_signal_pending(current)) {
			slb_store_free(dev);
			return -EINTR;
		}
		cond_resched();
	}
	return 0;
}

static struct gendisk *slb_alloc_disk(struct slb_dev *dev)
{
#ifdef SLB_ALLOC_DISK_TAKES_LIMITS
	struct queue_limits lim = { };

	/* Not rotational: no I/O scheduler heuristics for a seeking disk. */
	return blk_mq_alloc_disk(&dev->tag_set, &lim, dev);
#else
	struct gendisk *disk = blk_mq_alloc_disk(&dev->tag_set, dev);

	if (!IS_ERR(disk))
		blk_queue_flag_set(QUEUE_FLAG_NONROT, disk->queue);
	return disk;
#endif
}

static struct slb_dev *slb_dev_create(unsigned int index,
				      const struct slb_iova_ops *ops,
				      unsigned int mb)
{
	struct slb_dev *dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	int ret;

	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev->index = index;
	dev->pages = (unsigned long)mb << (20 - PAGE_SHIFT);
	ret = slb_store_alloc(dev);
	if (ret)
		goto out_dev;
	ret = slb_iommu_init(&dev->mmu, ops, iova_pages, debug);
	if (ret)
		goto out_store;

	dev->tag_set.ops = &slb_mq_ops;
	dev->tag_set.nr_hw_queues = num_online_cpus();
	dev->tag_set.queue_depth = queue_depth;
	dev->tag_set.numa_node = NUMA_NO_NODE;
	dev->tag_set.flags = BLK_MQ_F_SHOULD_MERGE;
	ret = blk_mq_alloc_tag_set(&dev->tag_set);
	if (ret)
		goto out_mmu;
	dev->disk = slb_alloc_disk(dev);
	if (IS_ERR(dev->disk)) {
		ret = PTR_ERR(dev->disk);
		goto out_tags;
	}
	dev->disk->major = slb_major;
	dev->disk->first_minor = index;
	dev->disk->minors = 1;
	dev->disk->fops = &slb_fops;
	dev->disk->private_data = dev;
	snprintf(dev->disk->disk_name, DISK_NAME_LEN, SLB_NAME "%u", index);
	set_capacity(dev->disk, (sector_t)dev->pages << (PAGE_SHIFT - SECTOR_SHIFT));
	ret = device_add_disk(NULL, dev->disk, slb_disk_groups);
	if (ret)
		goto out_disk;
	/* Taken out by the backend's destroy; without it, only less to see. */
	if (ops && ops->debugfs_add && !IS_ERR_OR_NULL(slb_debugfs)) {
		int err = ops->debugfs_add(dev->mmu.iova, slb_debugfs,
					   dev->disk->disk_name);

		if (err)
			pr_warn("sl_iommu: %s: allocator not in debugfs: %d\n",
				dev->disk->disk_name, err);
	}
	pr_info("sl_iommu: %s: %u MiB, backend %s%s\n", dev->disk->disk_name,
		mb, ops ? ops->name : "none", debug ? ", shadow checks" : "");
	return dev;

out_disk:
	put_disk(dev->disk);
out_tags:
	blk_mq_free_tag_set(&dev->tag_set);
out_mmu:
	slb_iommu_destroy(&dev->mmu);
out_store:
	slb_store_free(dev);
out_dev:
	kfree(dev);
	return ERR_PTR(ret);
}

static void slb_dev_destroy(struct slb_dev *dev)
{
	del_gendisk(dev->disk);
	put_disk(dev->disk);
	blk_mq_free_tag_set(&dev->tag_set);
	/* Every request has completed: every range must be back. */
	slb_iommu_destroy(&dev->mmu);
	slb_store_free(dev);
	kfree(dev);
}

static void slb_destroy_all(void)
{
	int i;

	for (i = SLB_MAX_DEVICES - 1; i >= 0; i--) {
		if (slb_devs[i])
			slb_dev_destroy(slb_devs[i]);
		slb_devs[i] = NULL;
	}
}

/* The size of device @i, in MiB. */
static unsigned int slb_size_mb(unsigned int i)
{
	return nr_size_mb ? size_mb[min_t(int, i, nr_size_mb - 1)] : 64;
}

/*
 * Refuse a load whose devices would not fit in memory, before allocating
 * any: they would take all of it, and the allocations, which may fail
 * (SLB_LOAD_GFP), would fail late, after starving everything else.
 * What the devices take: the backing store and its page array, and per
 * IOMMU the IO page table and, with debug=1, the shadow bitmap.  What
 * stays: an eighth of RAM and at least 64 MiB, for the rest of the system.
 */
static int slb_check_memory(const struct slb_iova_ops **ops)
{
	u64 need = 0, avail, margin;
	unsigned int i;

	for (i = 0; i < nr_devices; i++) {
		u64 pages = (u64)slb_size_mb(i) << (20 - PAGE_SHIFT);

		need += pages * (PAGE_SIZE + sizeof(struct page *));
		if (!ops[i])
			continue;
		need += (u64)iova_pages * sizeof(unsigned long);
		if (debug)
			need += BITS_TO_LONGS(iova_pages) * sizeof(long);
	}
	avail = (u64)si_mem_available() << PAGE_SHIFT;
	margin = max_t(u64, ((u64)totalram_pages() << PAGE_SHIFT) / 8, SZ_64M);
	if (need + margin <= avail)
		return 0;
	pr_err("sl_iommu: size_mb and nr_devices=%u: the devices need %llu MiB, %llu MiB is available, of which %llu MiB must stay free\n",
	       nr_devices, need >> 20, avail >> 20, margin >> 20);
	return -ENOMEM;
}

/* Refuse a load whose parameters make no sense, naming the first wrong. */
static int slb_check_params(const struct slb_iova_ops **ops)
{
	unsigned int i;

	if (!nr_devices)
		nr_devices = max3(nr_backend, nr_size_mb, 1);
	if (nr_devices > SLB_MAX_DEVICES) {
		pr_err("sl_iommu: nr_devices=%u: at most %d\n", nr_devices,
		       SLB_MAX_DEVICES);
		return -EINVAL;
	}
	if (nr_backend > nr_devices || nr_size_mb > nr_devices) {
		pr_err("sl_iommu: backend= or size_mb= lists more devices than nr_devices=%u\n",
		       nr_devices);
		return -EINVAL;
	}
	if (iova_pages < 4096 || iova_pages > (1U << 24)) {
		pr_err("sl_iommu: iova_pages=%u: must be 4096-16777216\n",
		       iova_pages);
		return -EINVAL;
	}
	if (!queue_depth || queue_depth > 1024) {
		pr_err("sl_iommu: queue_depth=%u: must be 1-1024\n", queue_depth);
		return -EINVAL;
	}
	for (i = 0; i < nr_devices; i++) {
		const char *name = nr_backend ?
			backend[min_t(int, i, nr_backend - 1)] : "skiplist";
		unsigned int mb = slb_size_mb(i);

		ops[i] = slb_backend_find(name);
		if (IS_ERR(ops[i])) {
			pr_err("sl_iommu: backend=%s: not none, rbtree, iova, maple, skiplist or skiplist-nocache\n",
			       name);
			return -EINVAL;
		}
		if (!mb || mb > 4096) {
			pr_err("sl_iommu: size_mb=%u: must be 1-4096\n", mb);
			return -EINVAL;
		}
	}
	return slb_check_memory(ops);
}

static int __init slb_init(void)
{
	const struct slb_iova_ops *ops[SLB_MAX_DEVICES];
	unsigned int i;
	int ret;

	ret = slb_check_params(ops);
	if (ret)
		return ret;
	slb_major = register_blkdev(0, SLB_NAME);
	if (slb_major < 0)
		return slb_major;
	slb_debugfs = debugfs_create_dir("sl_iommu", sl_debugfs_dir());
	for (i = 0; i < nr_devices; i++) {
		slb_devs[i] = slb_dev_create(i, ops[i], slb_size_mb(i));
		if (IS_ERR(slb_devs[i])) {
			ret = PTR_ERR(slb_devs[i]);
			slb_devs[i] = NULL;
			pr_err("sl_iommu: cannot create %s%u (size_mb=%u): %d\n",
			       SLB_NAME, i, slb_size_mb(i), ret);
			slb_destroy_all();
			debugfs_remove(slb_debugfs);
			unregister_blkdev(slb_major, SLB_NAME);
			return ret;
		}
	}
	return 0;
}

static void __exit slb_exit(void)
{
	slb_destroy_all();
	debugfs_remove(slb_debugfs);
	unregister_blkdev(slb_major, SLB_NAME);
}

module_init(slb_init);
module_exit(slb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("RAM block devices mapping every I/O through an emulated IOMMU, with a choice of IOVA allocator");
MODULE_AUTHOR("Seed 86df1db9 maintainers <maintainers@users.noreply.a-seed-86df1db9.example>");
MODULE_VERSION(SL_VERSION);
