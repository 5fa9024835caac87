// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/sl_extent: one extent map and one range allocator per open file,
 * driven by the ioctls in uapi/sl_extent_dev.h.  A module of its own
 * (sl_extent_dev.ko), so that sl_extent.ko carries no userspace interface.
 *
 * Locking: every command but SL_RA_IOC_INIT and SL_EM_IOC_CHECK takes the
 * file's semaphore shared, so concurrent ioctls on one descriptor reach
 * the map and the allocator concurrently, each with its own locking.
 * SL_RA_IOC_INIT takes it exclusive, so that a command that saw the
 * allocator ready sees it initialised; SL_EM_IOC_CHECK takes it
 * exclusive, because its walk of the map must agree with the map's count,
 * which holds only while no writer runs.
 *
 * Nothing touches user memory while the semaphore is held: requests are
 * read and checked before it is taken and results written after it is
 * dropped, and the waits for it are killable, so a user page that never
 * arrives (userfaultfd) stalls only the thread that passed it.
 *
 * Every argument is checked here, before the map or the allocator sees
 * it, so that each misuse gets the errno the header documents and one
 * rate-limited line in the log naming it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/rwsem.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/debugfs.h>
#include "extent_map.h"
#include "range_alloc.h"
#include "uapi/sl_extent_dev.h"

struct sl_edev {
	struct rw_semaphore sem;
	struct sl_extent_map em;
	struct sl_range_alloc ra;
	/* Set under @sem held exclusive, once; then @ra and its space are fixed. */
	bool ra_ready;
	unsigned long ra_start;
	unsigned long ra_end;
	/* The file's directory in debugfs (TGID-N), or NULL or an error. */
	struct dentry *debugfs;
};

/*
 * skiplist/sl_extent_dev in debugfs, where each file's map ("map") and
 * allocator ("alloc", once initialised) are published; NULL or an error
 * pointer without debugfs.
 */
static struct dentry *sl_edev_debugfs;
static atomic_t sl_edev_opens = ATOMIC_INIT(0);

/* What debugfs refused costs only the statistics: say so, go on. */
static void sl_edev_published(const char *what, int ret)
{
	if (ret)
		pr_warn_ratelimited("%s not in debugfs: %d\n", what, ret);
}

/* Logs the misuse (rate-limited) and returns @err. */
static __printf(3, 4) int sl_edev_bad(int err, const char *cmd,
				      const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err_ratelimited("%s: %pV\n", cmd, &vaf);
	va_end(args);
	return err;
}

static int sl_edev_flags(const char *cmd, u32 flags, u32 known, u32 reserved)
{
	if (flags & ~known)
		return sl_edev_bad(-EINVAL, cmd, "unknown flags %#x",
				   flags & ~known);
	if (reserved)
		return sl_edev_bad(-EINVAL, cmd, "reserved field is %#x",
				   reserved);
	return 0;
}

/* [start, start + len) is non-empty and does not wrap. */
static int sl_edev_range(const char *cmd, const char *what, u64 start,
			 u64 len)
{
	if (!len)
		return sl_edev_bad(-EINVAL, cmd, "%s of zero length at %llu",
				   what, start);
	if (start + (len - 1) < start)
		return sl_edev_bad(-EINVAL, cmd,
				   "%s [%llu, +%llu) wraps past 2^64", what,
				   start, len);
	return 0;
}

static void sl_edev_export(const struct sl_extent_info *info,
			   struct sl_em_ioc_extent *out)
{
	memset(out, 0, sizeof(*out));
	out->start = info->start;
	out->len = info->len;
	out->disk_start = info->disk_start;
	out->flags = info->flags;
}

/*
 * One ioctl's state.  The request is read and checked before the
 * semaphore is taken and the result written back after it is dropped, so
 * that a user page that stalls (userfaultfd) holds up only its own
 * caller, never an SL_RA_IOC_INIT or SL_EM_IOC_CHECK waiting for the
 * semaphore, nor the commands queued behind those.
 */
struct sl_edev_call {
	union {
		struct sl_em_ioc_add add;
		struct sl_em_ioc_lookup lookup;
		struct sl_em_ioc_range range;
		struct sl_em_ioc_next next;
		struct sl_em_ioc_remove remove;
		struct sl_em_ioc_count count;
		struct sl_ra_ioc_init init;
		struct sl_ra_ioc_alloc alloc;
		struct sl_ra_ioc_range ra_range;
		struct sl_ra_ioc_stats stats;
		struct sl_ra_ioc_shadow shadow;
	} req;
	/* Whether the request goes back to userspace on success. */
	bool copy_out;
};

/* ----- The extent map ----- */

static int sl_edev_em_add_check(struct sl_em_ioc_add *req)
{
	const char *cmd = "EM_ADD";
	int ret;

	ret = sl_edev_flags(cmd, req->flags, SL_EM_ADD_MERGE, req->reserved);
	if (ret)
		return ret;
	if (req->extent.pad)
		return sl_edev_bad(-EINVAL, cmd, "pad field is %#x",
				   req->extent.pad);
	ret = sl_edev_range(cmd, "extent", req->extent.start, req->extent.len);
	if (ret)
		return ret;
	return sl_edev_range(cmd, "disk range", req->extent.disk_start,
			     req->extent.len);
}

static long sl_edev_em_add(struct sl_edev *dev, struct sl_em_ioc_add *req)
{
	struct sl_extent_info info;

	info.start = req->extent.start;
	info.len = req->extent.len;
	info.disk_start = req->extent.disk_start;
	info.flags = req->extent.flags;
	return sl_em_add(&dev->em, &info,
			 req->flags & SL_EM_ADD_MERGE ? SL_EM_MERGE : 0,
			 GFP_KERNEL_ACCOUNT);
}

static long sl_edev_em_lookup(struct sl_edev *dev,
			      struct sl_em_ioc_lookup *req)
{
	struct sl_extent_info info;
	int ret;

	ret = sl_em_lookup(&dev->em, req->offset, &info);
	if (ret)
		return ret;
	sl_edev_export(&info, &req->extent);
	return 0;
}

static long sl_edev_em_overlap(struct sl_edev *dev,
			       struct sl_em_ioc_range *req)
{
	struct sl_extent_info info;
	int ret;

	ret = sl_em_first_overlap(&dev->em, req->start, req->len, &info);
	if (ret)
		return ret;
	sl_edev_export(&info, &req->extent);
	return 0;
}

static long sl_edev_em_next(struct sl_edev *dev, struct sl_em_ioc_next *req)
{
	struct sl_extent_info info;
	int ret;

	ret = sl_em_next(&dev->em, req->pos, &info);
	if (ret)
		return ret;
	sl_edev_export(&info, &req->extent);
	return 0;
}

static long sl_edev_em_drop(struct sl_edev *dev, struct sl_em_ioc_range *req)
{
	return sl_em_drop_range(&dev->em, req->start, req->len,
				GFP_KERNEL_ACCOUNT);
}

static __printf(2, 3) int sl_edev_corrupt(const struct sl_extent_info *info,
					   const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("EM_CHECK: extent [%llu, +%llu) -> %llu: %pV\n", info->start,
	       info->len, info->disk_start, &vaf);
	va_end(args);
	return -EUCLEAN;
}

/*
 * sl_em_check() verifies the index and the extents as stored; then the
 * map is walked as userspace sees it, and the views must agree: each step
 * of the walk starts past the one before, a lookup of an extent's last
 * unit finds that extent, and the walk counts what sl_em_count() counts.
 * The caller holds the semaphore exclusive, so no writer runs, as
 * sl_em_check() requires.  Both walks stay atomic for a bounded number
 * of extents at a time (SL_EM_BATCH, and one) and reschedule in between.
 */
static long sl_edev_em_check(struct sl_edev *dev)
{
	struct sl_extent_info info, again;
	unsigned long pos = 0, count = 0;
	int ret;

	lockdep_assert_held_write(&dev->sem);
	ret = sl_em_check(&dev->em);
	if (ret)
		return ret;
	for (;;) {
		ret = sl_em_next(&dev->em, pos, &info);
		if (ret == -ENOENT)
			break;
		if (ret)
			return ret;
		if (count && info.start < pos)
			return sl_edev_corrupt(&info,
					       "overlaps the one ending at %lu",
					       pos);
		ret = sl_em_lookup(&dev->em, info.start + (info.len - 1),
				   &again);
		if (ret || again.start != info.start || again.len != info.len ||
		    again.disk_start != info.disk_start ||
		    again.flags != info.flags)
			return sl_edev_corrupt(&info,
					       "its last unit looks up otherwise");
		count++;
		pos = info.start + info.len;
		if (!pos)
			break;
		cond_resched();
	}
	if (count != sl_em_count(&dev->em)) {
		pr_err("EM_CHECK: %lu extents found, the map counts %lu\n",
		       count, sl_em_count(&dev->em));
		return -EUCLEAN;
	}
	return 0;
}

/* ----- The range allocator ----- */

static int sl_edev_ra_init_check(struct sl_ra_ioc_init *req)
{
	const char *cmd = "RA_INIT";
	int ret;

	ret = sl_edev_flags(cmd, req->flags, SL_RA_INIT_SHADOW, req->reserved);
	if (ret)
		return ret;
	if (req->end && req->end <= req->start)
		return sl_edev_bad(-EINVAL, cmd, "empty space [%llu, %llu)",
				   req->start, req->end);
	if ((req->flags & SL_RA_INIT_SHADOW) &&
	    (!req->end || req->end - req->start > SL_RA_SHADOW_MAX))
		return sl_edev_bad(-EINVAL, cmd,
				   "shadow bitmap over [%llu, %llu): more than %llu units",
				   req->start, req->end, SL_RA_SHADOW_MAX);
	return 0;
}

static long sl_edev_ra_init(struct sl_edev *dev, struct sl_ra_ioc_init *req)
{
	int ret;

	lockdep_assert_held_write(&dev->sem);
	if (dev->ra_ready)
		return -EBUSY;
	ret = sl_range_init(&dev->ra, req->start, req->end,
			    req->flags & SL_RA_INIT_SHADOW ? SL_RANGE_SHADOW : 0,
			    GFP_KERNEL_ACCOUNT);
	if (ret)
		return ret;
	if (!IS_ERR_OR_NULL(dev->debugfs))
		sl_edev_published("allocator",
				  sl_range_debugfs_add(&dev->ra, dev->debugfs,
						       "alloc"));
	dev->ra_start = req->start;
	dev->ra_end = req->end;
	dev->ra_ready = true;
	return 0;
}

/* Whether [start, start + size), already known not to wrap, is inside the space. */
static bool sl_edev_inside(struct sl_edev *dev, u64 start, u64 size)
{
	return start >= dev->ra_start &&
	       (!dev->ra_end || start + (size - 1) < dev->ra_end);
}

/*
 * The arguments that need no allocator.  Then the result field is
 * written back unchanged: an allocation is never undone (see "Results" in
 * uapi/sl_extent_dev.h), so a result that cannot be written must be found
 * out before anything is allocated.
 */
static int sl_edev_ra_alloc_check(struct sl_ra_ioc_alloc *req,
				  struct sl_ra_ioc_alloc __user *ureq)
{
	const char *cmd = "RA_ALLOC";
	int ret;

	ret = sl_edev_flags(cmd, req->flags, SL_RA_ALLOC_PERCPU, req->reserved);
	if (ret)
		return ret;
	if (!req->size)
		return sl_edev_bad(-EINVAL, cmd, "size 0");
	if (!is_power_of_2(req->align))
		return sl_edev_bad(-EINVAL, cmd,
				   "alignment %llu is not a power of two",
				   req->align);
	if (req->flags & SL_RA_ALLOC_PERCPU) {
		if (req->min || req->max || req->hint)
			return sl_edev_bad(-EINVAL, cmd,
					   "min, max and hint must be 0 with SL_RA_ALLOC_PERCPU");
	} else if (req->max && req->max <= req->min) {
		return sl_edev_bad(-EINVAL, cmd, "empty window [%llu, %llu)",
				   req->min, req->max);
	}
	return put_user(req->start, &ureq->start) ? -EFAULT : 0;
}

static long sl_edev_ra_alloc(struct sl_edev *dev, struct sl_ra_ioc_alloc *req)
{
	const char *cmd = "RA_ALLOC";
	unsigned long start;
	int ret;

	if (req->flags & SL_RA_ALLOC_PERCPU) {
		ret = sl_range_alloc_cpu(&dev->ra, req->size, req->align,
					 &start, GFP_KERNEL_ACCOUNT);
	} else {
		if ((dev->ra_end && req->min >= dev->ra_end) ||
		    (req->max && req->max <= dev->ra_start))
			return sl_edev_bad(-ERANGE, cmd,
					   "window [%llu, %llu) outside the space [%lu, %lu)",
					   req->min, req->max, dev->ra_start,
					   dev->ra_end);
		ret = sl_range_alloc(&dev->ra, req->size, req->align, req->min,
				     req->max, req->hint, &start,
				     GFP_KERNEL_ACCOUNT);
	}
	if (ret)
		return ret;
	req->start = start;
	return 0;
}

static int sl_edev_ra_range_check(struct sl_ra_ioc_range *req, bool reserve)
{
	const char *cmd = reserve ? "RA_RESERVE" : "RA_FREE";
	int ret;

	ret = sl_edev_flags(cmd, req->flags, 0, req->reserved);
	return ret ? ret : sl_edev_range(cmd, "range", req->start, req->size);
}

/* SL_RA_IOC_FREE and SL_RA_IOC_RESERVE. */
static long sl_edev_ra_range(struct sl_edev *dev, struct sl_ra_ioc_range *req,
			     bool reserve)
{
	const char *cmd = reserve ? "RA_RESERVE" : "RA_FREE";

	if (!sl_edev_inside(dev, req->start, req->size))
		return sl_edev_bad(-ERANGE, cmd,
				   "[%llu, +%llu) outside the space [%lu, %lu)",
				   req->start, req->size, dev->ra_start,
				   dev->ra_end);
	if (reserve)
		return sl_range_reserve(&dev->ra, req->start, req->size,
					GFP_KERNEL_ACCOUNT);
	return sl_range_free(&dev->ra, req->start, req->size);
}

static long sl_edev_ra_stats(struct sl_edev *dev, struct sl_ra_ioc_stats *req)
{
	struct sl_range_stats st;

	sl_range_stats(&dev->ra, &st);
	req->size = st.size;
	req->free = st.free;
	req->ranges = st.ranges;
	req->largest_free = st.largest_free;
	req->fragmentation = st.fragmentation;
	return 0;
}

static long sl_edev_ra_shadow(struct sl_edev *dev,
			      struct sl_ra_ioc_shadow *req)
{
	long errors;

	errors = sl_range_shadow_errors(&dev->ra);
	if (errors < 0)
		return errors;
	req->errors = errors;
	return 0;
}

/* ----- The file ----- */

static int sl_edev_open(struct inode *inode, struct file *file)
{
	struct sl_edev *dev = kzalloc(sizeof(*dev), GFP_KERNEL_ACCOUNT);
	int ret;

	if (!dev)
		return -ENOMEM;
	ret = sl_em_init(&dev->em, GFP_KERNEL_ACCOUNT);
	if (ret) {
		kfree(dev);
		return ret;
	}
	init_rwsem(&dev->sem);
	if (!IS_ERR_OR_NULL(sl_edev_debugfs)) {
		char name[32];

		snprintf(name, sizeof(name), "%d-%u", task_tgid_nr(current),
			 (unsigned int)atomic_inc_return(&sl_edev_opens));
		dev->debugfs = debugfs_create_dir(name, sl_edev_debugfs);
		if (!IS_ERR(dev->debugfs))
			sl_edev_published("map", sl_em_debugfs_add(&dev->em,
								   dev->debugfs,
								   "map"));
	}
	file->private_data = dev;
	return 0;
}

static int sl_edev_release(struct inode *inode, struct file *file)
{
	struct sl_edev *dev = file->private_data;

	/* Each leaves debugfs first, waiting for reads of its files. */
	sl_em_destroy(&dev->em);
	if (dev->ra_ready)
		sl_range_destroy(&dev->ra);
	debugfs_remove(dev->debugfs);
	kfree(dev);
	return 0;
}

/* Commands of the allocator, which need SL_RA_IOC_INIT first. */
static bool sl_edev_ra_cmd(unsigned int cmd)
{
	return cmd == SL_RA_IOC_ALLOC || cmd == SL_RA_IOC_FREE ||
	       cmd == SL_RA_IOC_RESERVE || cmd == SL_RA_IOC_STATS ||
	       cmd == SL_RA_IOC_SHADOW;
}

/* Check what needs neither the map nor the allocator; 0 or -errno. */
static int sl_edev_prepare(unsigned int cmd, struct sl_edev_call *call,
			   void __user *uarg)
{
	struct sl_em_ioc_range *range = &call->req.range;
	int ret;

	switch (cmd) {
	case SL_EM_IOC_ADD:
		return sl_edev_em_add_check(&call->req.add);
	case SL_EM_IOC_LOOKUP:
		call->copy_out = true;
		return sl_edev_flags("EM_LOOKUP", call->req.lookup.flags, 0,
				     call->req.lookup.reserved);
	case SL_EM_IOC_FIRST_OVERLAP:
		call->copy_out = true;
		ret = sl_edev_flags("EM_FIRST_OVERLAP", range->flags, 0,
				    range->reserved);
		return ret ? ret : sl_edev_range("EM_FIRST_OVERLAP", "range",
						 range->start, range->len);
	case SL_EM_IOC_NEXT:
		call->copy_out = true;
		return sl_edev_flags("EM_NEXT", call->req.next.flags, 0,
				     call->req.next.reserved);
	case SL_EM_IOC_REMOVE:
		return sl_edev_flags("EM_REMOVE", call->req.remove.flags, 0,
				     call->req.remove.reserved);
	case SL_EM_IOC_DROP:
		ret = sl_edev_flags("EM_DROP", range->flags, 0, range->reserved);
		return ret ? ret : sl_edev_range("EM_DROP", "range",
						 range->start, range->len);
	case SL_EM_IOC_COUNT:
		call->copy_out = true;
		return sl_edev_flags("EM_COUNT", call->req.count.flags, 0,
				     call->req.count.reserved);
	case SL_RA_IOC_INIT:
		return sl_edev_ra_init_check(&call->req.init);
	case SL_RA_IOC_ALLOC:
		call->copy_out = true;
		return sl_edev_ra_alloc_check(&call->req.alloc, uarg);
	case SL_RA_IOC_FREE:
	case SL_RA_IOC_RESERVE:
		return sl_edev_ra_range_check(&call->req.ra_range,
					      cmd == SL_RA_IOC_RESERVE);
	case SL_RA_IOC_STATS:
		call->copy_out = true;
		return sl_edev_flags("RA_STATS", call->req.stats.flags, 0,
				     call->req.stats.reserved);
	default:
		call->copy_out = true;
		return sl_edev_flags("RA_SHADOW", call->req.shadow.flags, 0,
				     call->req.shadow.reserved);
	}
}

/* The commands that share the semaphore. */
static long sl_edev_run(struct sl_edev *dev, unsigned int cmd,
			struct sl_edev_call *call)
{
	lockdep_assert_held_read(&dev->sem);
	if (sl_edev_ra_cmd(cmd) && !dev->ra_ready)
		return -ENXIO;
	switch (cmd) {
	case SL_EM_IOC_ADD:
		return sl_edev_em_add(dev, &call->req.add);
	case SL_EM_IOC_LOOKUP:
		return sl_edev_em_lookup(dev, &call->req.lookup);
	case SL_EM_IOC_FIRST_OVERLAP:
		return sl_edev_em_overlap(dev, &call->req.range);
	case SL_EM_IOC_NEXT:
		return sl_edev_em_next(dev, &call->req.next);
	case SL_EM_IOC_REMOVE:
		return sl_em_remove(&dev->em, call->req.remove.start);
	case SL_EM_IOC_DROP:
		return sl_edev_em_drop(dev, &call->req.range);
	case SL_EM_IOC_COUNT:
		call->req.count.count = sl_em_count(&dev->em);
		return 0;
	case SL_RA_IOC_ALLOC:
		return sl_edev_ra_alloc(dev, &call->req.alloc);
	case SL_RA_IOC_FREE:
		return sl_edev_ra_range(dev, &call->req.ra_range, false);
	case SL_RA_IOC_RESERVE:
		return sl_edev_ra_range(dev, &call->req.ra_range, true);
	case SL_RA_IOC_STATS:
		return sl_edev_ra_stats(dev, &call->req.stats);
	default:
		return sl_edev_ra_shadow(dev, &call->req.shadow);
	}
}

static long sl_edev_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct sl_edev *dev = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct sl_edev_call call = { };
	bool exclusive;
	long ret;

	switch (cmd) {
	case SL_EM_IOC_ADD:
	case SL_EM_IOC_LOOKUP:
	case SL_EM_IOC_FIRST_OVERLAP:
	case SL_EM_IOC_NEXT:
	case SL_EM_IOC_REMOVE:
	case SL_EM_IOC_DROP:
	case SL_EM_IOC_COUNT:
	case SL_EM_IOC_CHECK:
	case SL_RA_IOC_INIT:
	case SL_RA_IOC_ALLOC:
	case SL_RA_IOC_FREE:
	case SL_RA_IOC_RESERVE:
	case SL_RA_IOC_STATS:
	case SL_RA_IOC_SHADOW:
		break;
	default:
		return -ENOTTY;
	}
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	/* Each command's size is its structure's, encoded in the number. */
	if (cmd != SL_EM_IOC_CHECK) {
		if (copy_from_user(&call.req, uarg, _IOC_SIZE(cmd)))
			return -EFAULT;
		ret = sl_edev_prepare(cmd, &call, uarg);
		if (ret)
			return ret;
	}

	/* Killable: a long EM_CHECK must not leave its waiters unkillable. */
	exclusive = cmd == SL_RA_IOC_INIT || cmd == SL_EM_IOC_CHECK;
	ret = exclusive ? down_write_killable(&dev->sem) :
			  down_read_killable(&dev->sem);
	if (ret)
		return ret;
	if (cmd == SL_EM_IOC_CHECK)
		ret = sl_edev_em_check(dev);
	else if (cmd == SL_RA_IOC_INIT)
		ret = sl_edev_ra_init(dev, &call.req.init);
	else
		ret = sl_edev_run(dev, cmd, &call);
	if (exclusive)
		up_write(&dev->sem);
	else
		up_read(&dev->sem);

	/*
	 * A failure here leaves an allocation in place, as the header
	 * documents: by now another thread may have freed the range and been
	 * handed it again, so undoing would free that thread's range.
	 */
	if (!ret && call.copy_out && copy_to_user(uarg, &call.req, _IOC_SIZE(cmd)))
		ret = -EFAULT;
	return ret;
}

static const struct file_operations sl_edev_fops = {
	.owner = THIS_MODULE,
	.open = sl_edev_open,
	.release = sl_edev_release,
	.unlocked_ioctl = sl_edev_ioctl,
	/* The structures have the same layout for 32-bit callers. */
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice sl_edev_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "sl_extent",
	.fops = &sl_edev_fops,
	.mode = 0600,
};

static int __init sl_edev_init(void)
{
	int ret;

	/* Offsets, addresses and sizes travel as __u64, live as unsigned long. */
	BUILD_BUG_ON(sizeof(unsigned long) != sizeof(u64));
	sl_edev_debugfs = debugfs_create_dir("sl_extent_dev", sl_debugfs_dir());
	ret = misc_register(&sl_edev_misc);
	if (ret)
		debugfs_remove(sl_edev_debugfs);
	return ret;
}

static void __exit sl_edev_exit(void)
{
	misc_deregister(&sl_edev_misc);
	/* Every file is closed: its directory is gone. */
	debugfs_remove(sl_edev_debugfs);
}

module_init(sl_edev_init);
module_exit(sl_edev_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("/dev/sl_extent: the extent map and range allocator driven by ioctl");
MODULE_AUTHOR("Seed 86df1db9 maintainers <maintainers@users.noreply.a-seed-86df1db9.example>");
MODULE_VERSION(SL_VERSION);
