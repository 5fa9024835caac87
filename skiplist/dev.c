// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/skiplist: one skiplist per open file, driven by the ioctls in
 * uapi/skiplist_dev.h.  A module of its own (skiplist_dev.ko), so that
 * skiplist.ko carries no userspace interface.
 *
 * Every command but CLEAR and CHECK takes the file's semaphore shared, so
 * concurrent ioctls on one descriptor reach the index concurrently; CLEAR
 * and CHECK take it exclusive, because they need the index quiescent.
 * Nothing touches user memory while the semaphore is held: requests are
 * read before it is taken and results written after it is dropped, and
 * the waits for it are killable, so a user page that never arrives
 * (userfaultfd) stalls only the thread that passed it.  Extents are freed
 * with kfree_rcu() after their removal, since a lookup on another thread
 * may still be reading them.
 *
 * Each file's list is in debugfs as skiplist/skiplist_dev/TGID-N/stats
 * (the opener's thread group and the open's number), for `slctl top`;
 * CLEAR publishes the new list under the same name.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/rwsem.h>
#include <linux/debugfs.h>
#include <linux/sched.h>
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
	char name[32];
};

/* skiplist/skiplist_dev in debugfs; NULL or an error pointer without it. */
static struct dentry *sl_dev_debugfs;
static atomic_t sl_dev_opens = ATOMIC_INIT(0);

/* Put @dev's list in debugfs; its lack only costs the statistics. */
static void sl_dev_publish(struct sl_dev *dev)
{
	int ret = sl_debugfs_add(dev->list, sl_dev_debugfs, dev->name);

	if (ret)
		pr_warn_ratelimited("skiplist_dev: %s not in debugfs: %d\n",
				    dev->name, ret);
}

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
	snprintf(dev->name, sizeof(dev->name), "%d-%u", task_tgid_nr(current),
		 (unsigned int)atomic_inc_return(&sl_dev_opens));
	sl_dev_publish(dev);
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

/*
 * One ioctl's state.  The request is read before the semaphore is taken,
 * and the result written back after it is dropped, so that a user page
 * that stalls (userfaultfd, a slow file mapping) holds up only its own
 * caller, never a CLEAR or CHECK waiting for the semaphore, nor the
 * commands queued behind those.  What a command allocates is allocated
 * before the semaphore too.
 */
struct sl_dev_call {
	union {
		struct sl_ioc_insert insert;
		struct sl_ioc_insert_hole hole;
		struct sl_ioc_lookup lookup;
		struct sl_ioc_overlap overlap;
		struct sl_ioc_delete del;
		struct sl_ioc_iterate iter;
		struct sl_ioc_stats stats;
	} req;
	/* INSERT, INSERT_HOLE: the new extent, until the index has it. */
	struct sl_dev_extent *ext;
	/* ITERATE: the records gathered, copied out after the semaphore. */
	struct sl_ioc_extent *records;
	/* Whether the request goes back to userspace on success. */
	bool copy_out;
};

static int sl_dev_insert(struct sl_dev *dev, struct sl_dev_call *call)
{
	struct sl_ioc_insert *req = &call->req.insert;
	int ret;

	call->ext->slot.key = req->key;
	call->ext->slot.size = req->size;
	call->ext->value = req->value;
	ret = sl_insert(dev->list, &call->ext->slot, GFP_KERNEL_ACCOUNT);
	if (!ret)
		call->ext = NULL;
	return ret;
}

static int sl_dev_insert_hole(struct sl_dev *dev, struct sl_dev_call *call)
{
	struct sl_ioc_insert_hole *req = &call->req.hole;
	unsigned long start;
	int ret;

	call->ext->value = req->value;
	ret = sl_insert_hole(dev->list, &call->ext->slot, req->size,
			     req->align, req->min, req->max, req->hint, &start,
			     GFP_KERNEL_ACCOUNT);
	if (ret)
		return ret;
	/*
	 * Not call->ext->slot.key: another thread on this file may have
	 * deleted the extent, and its grace period ended, since it went in.
	 */
	call->ext = NULL;
	req->key = start;
	return 0;
}

static int sl_dev_lookup(struct sl_dev *dev, struct sl_dev_call *call)
{
	struct sl_ioc_lookup *req = &call->req.lookup;
	struct sl_slot *slot;

	rcu_read_lock();
	slot = sl_lookup(dev->list, req->key);
	if (slot)
		sl_dev_export(slot, &req->extent);
	rcu_read_unlock();
	return slot ? 0 : -ENOENT;
}

static int sl_dev_overlap(struct sl_dev *dev, struct sl_dev_call *call)
{
	struct sl_ioc_overlap *req = &call->req.overlap;
	struct sl_slot *slot;

	rcu_read_lock();
	slot = sl_first_overlap(dev->list, req->start, req->end);
	if (slot)
		sl_dev_export(slot, &req->extent);
	rcu_read_unlock();
	return slot ? 0 : -ENOENT;
}

static int sl_dev_delete(struct sl_dev *dev, struct sl_dev_call *call)
{
	struct sl_slot *slot = sl_remove(dev->list, call->req.del.key);

	if (!slot)
		return -ENOENT;
	kfree_rcu(sl_dev_extent(slot), rcu);
	return 0;
}

/*
 * Gathered into a kernel buffer under RCU, at most SL_IOC_ITERATE_MAX
 * records, and copied out by the caller once the semaphore is dropped.
 */
static int sl_dev_iterate(struct sl_dev *dev, struct sl_dev_call *call)
{
	struct sl_ioc_iterate *req = &call->req.iter;
	bool backward = req->flags & SL_ITER_BACKWARD;
	struct sl_slot *slot;
	struct sl_iter iter;

	req->count = 0;
	rcu_read_lock();
	/*
	 * From the end: from the last key, stepping the cursor past an
	 * extent there, if there is one, so that the walk back returns it
	 * first.  It is the one extent no @key can reach backward.
	 */
	if (req->flags & SL_ITER_FROM_END) {
		sl_iter_start(&iter, dev->list, ULONG_MAX);
		sl_iter_next(&iter);
	} else {
		sl_iter_start(&iter, dev->list, req->key);
	}
	while (req->count < req->max) {
		slot = backward ? sl_iter_prev(&iter) : sl_iter_next(&iter);
		if (!slot)
			break;
		sl_dev_export(slot, &call->records[req->count++]);
	}
	rcu_read_unlock();
	return 0;
}

static int sl_dev_stats(struct sl_dev *dev, struct sl_dev_call *call)
{
	struct sl_ioc_stats *req = &call->req.stats;
	struct sl_stats stats;
	int h;

	/* In chunks that resume by key: writers may run meanwhile. */
	sl_stats(dev->list, &stats);
	req->items = stats.items;
	req->leaves = stats.leaves;
	req->bytes = stats.bytes;
	req->key_loads = stats.key_loads;
	for (h = 0; h < SL_IOC_MAX_HEIGHT; h++)
		req->height[h] = stats.height[h];
	return 0;
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
	/* Out of debugfs with the old list, before the new one goes in. */
	sl_dev_free_list(old);
	sl_dev_publish(dev);
	return 0;
}

/*
 * Check what needs no index, allocate what the command needs, and make
 * sure a result can be written back before anything is created: a
 * command that creates something never undoes it (see "Results" in
 * uapi/skiplist_dev.h), so a result area that cannot be written must be
 * found out first.  Writing the request's own key back is the check.
 */
static int sl_dev_prepare(unsigned int cmd, struct sl_dev_call *call,
			  void __user *uarg)
{
	switch (cmd) {
	case SL_IOC_INSERT: {
		struct sl_ioc_insert *req = &call->req.insert;

		if (req->flags || req->reserved)
			return -EINVAL;
		break;
	}
	case SL_IOC_INSERT_HOLE: {
		struct sl_ioc_insert_hole *req = &call->req.hole;
		struct sl_ioc_insert_hole __user *ureq = uarg;

		if (req->flags || req->reserved)
			return -EINVAL;
		if (put_user(req->key, &ureq->key))
			return -EFAULT;
		call->copy_out = true;
		break;
	}
	case SL_IOC_LOOKUP:
		if (call->req.lookup.flags || call->req.lookup.reserved)
			return -EINVAL;
		call->copy_out = true;
		return 0;
	case SL_IOC_FIRST_OVERLAP: {
		struct sl_ioc_overlap *req = &call->req.overlap;

		if (req->flags || req->reserved || req->end <= req->start)
			return -EINVAL;
		call->copy_out = true;
		return 0;
	}
	case SL_IOC_DELETE:
		if (call->req.del.flags || call->req.del.reserved)
			return -EINVAL;
		return 0;
	case SL_IOC_ITERATE: {
		struct sl_ioc_iterate *req = &call->req.iter;

		if ((req->flags & ~(SL_ITER_BACKWARD | SL_ITER_FROM_END)) ||
		    req->reserved || req->max > SL_IOC_ITERATE_MAX)
			return -EINVAL;
		if ((req->flags & SL_ITER_FROM_END) &&
		    (!(req->flags & SL_ITER_BACKWARD) || req->key))
			return -EINVAL;
		call->records = kvmalloc_array(max(req->max, 1U),
					       sizeof(*call->records),
					       GFP_KERNEL_ACCOUNT);
		if (!call->records)
			return -ENOMEM;
		call->copy_out = true;
		return 0;
	}
	default:
		if (call->req.stats.flags || call->req.stats.reserved)
			return -EINVAL;
		call->copy_out = true;
		return 0;
	}
	/* INSERT and INSERT_HOLE: the extent, allocated outside the semaphore. */
	call->ext = kmalloc(sizeof(*call->ext), GFP_KERNEL_ACCOUNT);
	return call->ext ? 0 : -ENOMEM;
}

static int sl_dev_run(struct sl_dev *dev, unsigned int cmd,
		      struct sl_dev_call *call)
{
	lockdep_assert_held_read(&dev->sem);
	switch (cmd) {
	case SL_IOC_INSERT:
		return sl_dev_insert(dev, call);
	case SL_IOC_INSERT_HOLE:
		return sl_dev_insert_hole(dev, call);
	case SL_IOC_LOOKUP:
		return sl_dev_lookup(dev, call);
	case SL_IOC_FIRST_OVERLAP:
		return sl_dev_overlap(dev, call);
	case SL_IOC_DELETE:
		return sl_dev_delete(dev, call);
	case SL_IOC_ITERATE:
		return sl_dev_iterate(dev, call);
	default:
		return sl_dev_stats(dev, call);
	}
}

/* CLEAR and CHECK: no argument, the index quiescent. */
static long sl_dev_exclusive(struct sl_dev *dev, unsigned int cmd)
{
	long ret;

	/* Killable: a long CHECK must not leave its waiters unkillable. */
	ret = down_write_killable(&dev->sem);
	if (ret)
		return ret;
	ret = cmd == SL_IOC_CLEAR ? sl_dev_clear(dev) : sl_check(dev->list);
	up_write(&dev->sem);
	return ret;
}

static long sl_dev_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct sl_dev *dev = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct sl_dev_call call = { };
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
	if (cmd == SL_IOC_CLEAR || cmd == SL_IOC_CHECK)
		return sl_dev_exclusive(dev, cmd);

	/* Each command's size is its structure's, encoded in the number. */
	if (copy_from_user(&call.req, uarg, _IOC_SIZE(cmd)))
		return -EFAULT;
	ret = sl_dev_prepare(cmd, &call, uarg);
	if (ret)
		goto out;
	ret = down_read_killable(&dev->sem);
	if (ret)
		goto out;
	ret = sl_dev_run(dev, cmd, &call);
	up_read(&dev->sem);
	if (ret || !call.copy_out)
		goto out;
	/*
	 * A failure here leaves what the command created in place, as the
	 * header documents: by now another thread may have deleted it and
	 * been given the same key, so undoing would hit that thread's.
	 */
	if (cmd == SL_IOC_ITERATE &&
	    copy_to_user(u64_to_user_ptr(call.req.iter.records), call.records,
			 array_size(call.req.iter.count, sizeof(*call.records))))
		ret = -EFAULT;
	else if (copy_to_user(uarg, &call.req, _IOC_SIZE(cmd)))
		ret = -EFAULT;
out:
	kvfree(call.records);
	kfree(call.ext);
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
	int ret;

	/* Keys and sizes travel as __u64 and are stored as unsigned long. */
	BUILD_BUG_ON(sizeof(unsigned long) != sizeof(u64));
	BUILD_BUG_ON(SL_IOC_MAX_HEIGHT != SL_MAX_HEIGHT);
	sl_dev_debugfs = debugfs_create_dir("skiplist_dev", sl_debugfs_dir());
	ret = misc_register(&sl_dev_misc);
	if (ret)
		debugfs_remove(sl_dev_debugfs);
	return ret;
}

static void __exit sl_dev_exit(void)
{
	misc_deregister(&sl_dev_misc);
	/* Every file is closed: every list has left its directory. */
	debugfs_remove(sl_dev_debugfs);
}

module_init(sl_dev_init);
module_exit(sl_dev_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("/dev/skiplist: the skiplist range index driven by ioctl");
MODULE_AUTHOR("Seed 86df1db9 maintainers <maintainers@users.noreply.a-seed-86df1db9.example>");
MODULE_VERSION(SL_VERSION);
