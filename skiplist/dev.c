// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/skiplist: one skiplist per open file, driven by the ioctls in
 * uapi/skiplist_dev.h.  A module of its own (skiplist_dev.ko), so that
 * skiplist.ko carries no userspace interface.
 *
 * Every command but CLEAR and CHECK takes the file's semaphore shared, so
 * concurrent ioctls on one descriptor reach the index concurrently; CLEAR
 * and CHECK take it exclusive, because they need the index quiescent.
 * Extents are freed with kfree_rcu() after their removal, since a lookup
 * on another thread may still be reading them.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/rwsem.h>
#include "skiplist.h"
#include "uapi/skiplist_dev.h"

struct sl_dev_extent {
	struct sl_slot slot;
	u64 value;
	struct rcu_head rcu;
};

/*
 * The list is allocated apart from the file's state so that CLEAR can
 * build an empty one before giving up the old: a list cannot be copied,
 * since its directory's work item points into it.
 */
struct sl_dev {
	struct sl_list *list;
	struct rw_semaphore sem;
};

static struct sl_dev_extent *sl_dev_extent(struct sl_slot *slot)
{
	return container_of(slot, struct sl_dev_extent, slot);
}

static void sl_dev_export(struct sl_slot *slot, struct sl_ioc_extent *out)
{
	out->key = slot->key;
	out->size = slot->size;
	out->value = sl_dev_extent(slot)->value;
}

static void sl_dev_free_slot(struct sl_slot *slot, void *arg)
{
	kfree_rcu(sl_dev_extent(slot), rcu);
}

/* A new empty list, or NULL. */
static struct sl_list *sl_dev_new_list(void)
{
	struct sl_list *list = kmalloc(sizeof(*list), GFP_KERNEL_ACCOUNT);

	if (list && sl_init(list, GFP_KERNEL_ACCOUNT)) {
		kfree(list);
		list = NULL;
	}
	return list;
}

/*
 * For CLEAR and the last close.  sl_destroy() walks in chunks of leaves
 * and reschedules between them, so millions of extents hold no CPU for
 * long; the other commands on the file wait on its semaphore, asleep.
 */
static void sl_dev_free_list(struct sl_list *list)
{
	sl_destroy(list, sl_dev_free_slot, NULL);
	kfree(list);
}

static int sl_dev_open(struct inode *inode, struct file *file)
{
	struct sl_dev *dev = kzalloc(sizeof(*dev), GFP_KERNEL_ACCOUNT);

	if (!dev)
		return -ENOMEM;
	dev->list = sl_dev_new_list();
	if (!dev->list) {
		kfree(dev);
		return -ENOMEM;
	}
	init_rwsem(&dev->sem);
	file->private_data = dev;
	return 0;
}

static int sl_dev_release(struct inode *inode, struct file *file)
{
	struct sl_dev *dev = file->private_data;

	sl_dev_free_list(dev->list);
	kfree(dev);
	return 0;
}

static long sl_dev_insert(struct sl_dev *dev, void __user *uarg)
{
	struct sl_dev_extent *ext;
	struct sl_ioc_insert req;
	int ret;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.reserved)
		return -EINVAL;
	ext = kmalloc(sizeof(*ext), GFP_KERNEL_ACCOUNT);
	if (!ext)
		return -ENOMEM;
	ext->slot.key = req.key;
	ext->slot.size = req.size;
	ext->value = req.value;
	ret = sl_insert(dev->list, &ext->slot, GFP_KERNEL_ACCOUNT);
	if (ret)
		kfree(ext);
	return ret;
}

static long sl_dev_insert_hole(struct sl_dev *dev, void __user *uarg)
{
	struct sl_ioc_insert_hole req;
	struct sl_dev_extent *ext;
	unsigned long start;
	int ret;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.reserved)
		return -EINVAL;
	ext = kmalloc(sizeof(*ext), GFP_KERNEL_ACCOUNT);
	if (!ext)
		return -ENOMEM;
	ext->value = req.value;
	ret = sl_insert_hole(dev->list, &ext->slot, req.size, req.align,
			     req.min, req.max, req.hint, &start,
			     GFP_KERNEL_ACCOUNT);
	if (ret) {
		kfree(ext);
		return ret;
	}
	/*
	 * Not ext->slot.key: another thread on this file may have deleted
	 * the extent, and its grace period ended, since it went in.
	 */
	req.key = start;
	if (copy_to_user(uarg, &req, sizeof(req)))
		return -EFAULT;
	return 0;
}

static long sl_dev_lookup(struct sl_dev *dev, void __user *uarg)
{
	struct sl_ioc_lookup req;
	struct sl_slot *slot;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.reserved)
		return -EINVAL;
	rcu_read_lock();
	slot = sl_lookup(dev->list, req.key);
	if (slot)
		sl_dev_export(slot, &req.extent);
	rcu_read_unlock();
	if (!slot)
		return -ENOENT;
	return copy_to_user(uarg, &req, sizeof(req)) ? -EFAULT : 0;
}

static long sl_dev_overlap(struct sl_dev *dev, void __user *uarg)
{
	struct sl_ioc_overlap req;
	struct sl_slot *slot;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.reserved || req.end <= req.start)
		return -EINVAL;
	rcu_read_lock();
	slot = sl_first_overlap(dev->list, req.start, req.end);
	if (slot)
		sl_dev_export(slot, &req.extent);
	rcu_read_unlock();
	if (!slot)
		return -ENOENT;
	return copy_to_user(uarg, &req, sizeof(req)) ? -EFAULT : 0;
}

static long sl_dev_delete(struct sl_dev *dev, void __user *uarg)
{
	struct sl_ioc_delete req;
	struct sl_slot *slot;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.reserved)
		return -EINVAL;
	slot = sl_remove(dev->list, req.key);
	if (!slot)
		return -ENOENT;
	kfree_rcu(sl_dev_extent(slot), rcu);
	return 0;
}

static long sl_dev_iterate(struct sl_dev *dev, void __user *uarg)
{
	bool backward;
	struct sl_ioc_iterate req;
	struct sl_ioc_extent *buf;
	struct sl_slot *slot;
	struct sl_iter iter;
	long ret = 0;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if ((req.flags & ~SL_ITER_BACKWARD) || req.reserved ||
	    req.max > SL_IOC_ITERATE_MAX)
		return -EINVAL;
	backward = req.flags & SL_ITER_BACKWARD;
	/* Gathered under RCU, copied out after: copying may fault. */
	buf = kvmalloc_array(max(req.max, 1U), sizeof(*buf),
			     GFP_KERNEL_ACCOUNT);
	if (!buf)
		return -ENOMEM;
	req.count = 0;
	rcu_read_lock();
	sl_iter_start(&iter, dev->list, req.key);
	while (req.count < req.max) {
		slot = backward ? sl_iter_prev(&iter) : sl_iter_next(&iter);
		if (!slot)
			break;
		sl_dev_export(slot, &buf[req.count++]);
	}
	rcu_read_unlock();
	if (copy_to_user(u64_to_user_ptr(req.records), buf,
			 req.count * sizeof(*buf)) ||
	    copy_to_user(uarg, &req, sizeof(req)))
		ret = -EFAULT;
	kvfree(buf);
	return ret;
}

static long sl_dev_stats(struct sl_dev *dev, void __user *uarg)
{
	struct sl_ioc_stats req;
	struct sl_stats stats;
	int h;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.reserved)
		return -EINVAL;
	/* In chunks that resume by key: writers may run meanwhile. */
	sl_stats(dev->list, &stats);
	req.items = stats.items;
	req.leaves = stats.leaves;
	req.bytes = stats.bytes;
	req.key_loads = stats.key_loads;
	for (h = 0; h < SL_IOC_MAX_HEIGHT; h++)
		req.height[h] = stats.height[h];
	return copy_to_user(uarg, &req, sizeof(req)) ? -EFAULT : 0;
}

/* Replace the index by an empty one; the caller holds the semaphore. */
static long sl_dev_clear(struct sl_dev *dev)
{
	struct sl_list *old = dev->list, *list;

	lockdep_assert_held_write(&dev->sem);
	list = sl_dev_new_list();
	if (!list)
		return -ENOMEM;
	dev->list = list;
	sl_dev_free_list(old);
	return 0;
}

static long sl_dev_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct sl_dev *dev = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	switch (cmd) {
	case SL_IOC_INSERT:
	case SL_IOC_INSERT_HOLE:
	case SL_IOC_LOOKUP:
	case SL_IOC_FIRST_OVERLAP:
	case SL_IOC_DELETE:
	case SL_IOC_ITERATE:
	case SL_IOC_STATS:
	case SL_IOC_CLEAR:
	case SL_IOC_CHECK:
		break;
	default:
		return -ENOTTY;
	}
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	if (cmd == SL_IOC_CLEAR || cmd == SL_IOC_CHECK) {
		down_write(&dev->sem);
		ret = cmd == SL_IOC_CLEAR ? sl_dev_clear(dev) :
					    sl_check(dev->list);
		up_write(&dev->sem);
		return ret;
	}

	down_read(&dev->sem);
	switch (cmd) {
	case SL_IOC_INSERT:
		ret = sl_dev_insert(dev, uarg);
		break;
	case SL_IOC_INSERT_HOLE:
		ret = sl_dev_insert_hole(dev, uarg);
		break;
	case SL_IOC_LOOKUP:
		ret = sl_dev_lookup(dev, uarg);
		break;
	case SL_IOC_FIRST_OVERLAP:
		ret = sl_dev_overlap(dev, uarg);
		break;
	case SL_IOC_DELETE:
		ret = sl_dev_delete(dev, uarg);
		break;
	case SL_IOC_ITERATE:
		ret = sl_dev_iterate(dev, uarg);
		break;
	default:
		ret = sl_dev_stats(dev, uarg);
		break;
	}
	up_read(&dev->sem);
	return ret;
}

static const struct file_operations sl_dev_fops = {
	.owner = THIS_MODULE,
	.open = sl_dev_open,
	.release = sl_dev_release,
	.unlocked_ioctl = sl_dev_ioctl,
	/* The structures have the same layout for 32-bit callers. */
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice sl_dev_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "skiplist",
	.fops = &sl_dev_fops,
	.mode = 0600,
};

static int __init sl_dev_init(void)
{
	/* Keys and sizes travel as __u64 and are stored as unsigned long. */
	BUILD_BUG_ON(sizeof(unsigned long) != sizeof(u64));
	BUILD_BUG_ON(SL_IOC_MAX_HEIGHT != SL_MAX_HEIGHT);
	return misc_register(&sl_dev_misc);
}

static void __exit sl_dev_exit(void)
{
	misc_deregister(&sl_dev_misc);
}

module_init(sl_dev_init);
module_exit(sl_dev_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("/dev/skiplist: the skiplist range index driven by ioctl");
