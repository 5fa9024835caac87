// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/sl_lsm: the store driven by the ioctls in uapi/sl_lsm_dev.h.  Each
 * open file can hold one attached store.
 *
 * Locking: ATTACH and DETACH take the file's semaphore exclusive; every
 * other command takes it shared, so the commands of many threads reach
 * the store at once (the store is safe for concurrent callers: writers
 * are ordered and grouped by its commit leader, readers are lockless) and
 * a detach waits until none is inside the store.  The waits are killable.
 *
 * Nothing touches user memory while the semaphore is held: a command
 * reads and checks its request and its records and values into kernel
 * memory first, and writes its results back after it has let go, so a
 * user page that stalls (userfaultfd) holds up only its own caller and
 * never a detach.  Lookups and scans do this in bounded chunks, taking
 * the semaphore once per chunk.
 *
 * Every argument is checked here, before the store sees it, so that each
 * misuse gets the errno the header documents and one rate-limited line in
 * the log naming it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rwsem.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "bdev_bio.h"
#include "dev.h"
#include "format.h"
#include "store.h"
#include "uapi/sl_lsm_dev.h"

/**
 * struct lsm_dev - the state of one open /dev/sl_lsm
 * @sem:     exclusive for ATTACH and DETACH, shared for the rest
 * @st:      the attached store, or NULL; set and cleared under @sem held
 *           exclusive
 * @bdev:    its device, released after the store is closed
 * @debugfs: its counters' directory (NULL or an error pointer when
 *           debugfs has none)
 */
struct lsm_dev {
	struct rw_semaphore sem;
	struct lsm_store *st;
	struct lsm_bdev *bdev;
	struct dentry *debugfs;
};

static struct dentry *lsm_dev_debugfs_root;

/* Logs the misuse (rate-limited) and returns @err. */
static __printf(3, 4) int lsm_dev_bad(int err, const char *cmd,
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

static int lsm_dev_flags(const char *cmd, u32 flags, u32 known, u64 reserved)
{
	if (flags & ~known)
		return lsm_dev_bad(-EINVAL, cmd, "unknown flags %#x",
				   flags & ~known);
	if (reserved)
		return lsm_dev_bad(-EINVAL, cmd, "reserved field is %#llx",
				   reserved);
	return 0;
}

/* [key, key + len) is non-empty and does not wrap. */
static int lsm_dev_range(const char *cmd, u64 key, u64 len)
{
	if (!len)
		return lsm_dev_bad(-EINVAL, cmd, "extent of zero length at %llu",
				   key);
	if (lsm_last(key, len) < key)
		return lsm_dev_bad(-EINVAL, cmd,
				   "extent [%llu, +%llu) wraps past 2^64", key,
				   len);
	return 0;
}

/* ----- The counters in debugfs ----- */

static int lsm_dev_stats_show(struct seq_file *m, void *unused)
{
	struct lsm_stats s;

	/* debugfs removes the file, waiting for readers, before the close. */
	lsm_store_stats(m->private, &s);
	/* As the store's trace events name it (trace/events/sl_lsm.h). */
	seq_printf(m, "id %p\n", m->private);
	seq_printf(m, "memtable_bytes %llu\n", s.memtable_bytes);
	seq_printf(m, "immutables %llu\n", s.immutables);
	seq_printf(m, "runs %llu\n", s.runs);
	seq_printf(m, "flushes %llu\n", s.flushes);
	seq_printf(m, "stalls %llu\n", s.stalls);
	seq_printf(m, "stall_ns %llu\n", s.stall_ns);
	seq_printf(m, "wal_bytes %llu\n", s.wal_bytes);
	seq_printf(m, "run_bytes %llu\n", s.run_bytes);
	seq_printf(m, "manifest_bytes %llu\n", s.manifest_bytes);
	seq_printf(m, "user_bytes %llu\n", s.user_bytes);
	seq_printf(m, "group_commits %llu\n", s.group_commits);
	seq_printf(m, "group_writers %llu\n", s.group_writers);
	seq_printf(m, "seq %llu\n", s.seq);
	for (unsigned int i = 0; i < LSM_LEVELS; i++)
		seq_printf(m, "level%u runs %llu bytes %llu\n", i,
			   s.level_runs[i], s.level_bytes[i]);
	seq_printf(m, "compactions %llu\n", s.compactions);
	seq_printf(m, "compact_read_bytes %llu\n", s.compact_read_bytes);
	seq_printf(m, "compact_write_bytes %llu\n", s.compact_write_bytes);
	seq_printf(m, "compact_ns %llu\n", s.compact_ns);
	seq_printf(m, "pending_compact_bytes %llu\n", s.pending_compact_bytes);
	seq_printf(m, "slowdowns %llu\n", s.slowdowns);
	seq_printf(m, "slowdown_ns %llu\n", s.slowdown_ns);
	seq_printf(m, "space_used_bytes %llu\n", s.space_used_bytes);
	seq_printf(m, "cache_hits %llu\n", s.cache_hits);
	seq_printf(m, "cache_misses %llu\n", s.cache_misses);
	seq_printf(m, "cache_bytes %llu\n", s.cache_bytes);
	seq_printf(m, "read_only %u\n", s.read_only ? 1 : 0);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(lsm_dev_stats);

static void lsm_dev_debugfs_add(struct lsm_dev *dev)
{
	char name[LSM_BDEV_NAME_SIZE];
	int ret;

	if (IS_ERR_OR_NULL(lsm_dev_debugfs_root))
		return;
	/* The device is claimed exclusively, so its name is unique here. */
	lsm_bdev_bio_disk_name(dev->bdev, name, sizeof(name));
	dev->debugfs = debugfs_create_dir(name, lsm_dev_debugfs_root);
	debugfs_create_file("stats", 0400, dev->debugfs, dev->st,
			    &lsm_dev_stats_fops);
	if (IS_ERR(dev->debugfs))
		return;
	ret = lsm_store_debugfs_add(dev->st, dev->debugfs);
	if (ret)
		pr_warn("%s: device space not in debugfs: %d\n", name, ret);
}

/* ----- Attach and detach ----- */

static int lsm_dev_attach_check(struct sl_lsm_ioc_attach *req)
{
	const char *cmd = "ATTACH";
	int ret;

	ret = lsm_dev_flags(cmd, req->flags,
			    SL_LSM_ATTACH_FORMAT | SL_LSM_ATTACH_NO_WAL,
			    req->reserved);
	if (ret)
		return ret;
	if (req->memtable_bytes &&
	    (req->memtable_bytes < SL_LSM_MEMTABLE_MIN ||
	     req->memtable_bytes > SL_LSM_MEMTABLE_MAX))
		return lsm_dev_bad(-EINVAL, cmd,
				   "memtable of %llu bytes outside [%llu, %llu]",
				   req->memtable_bytes, SL_LSM_MEMTABLE_MIN,
				   SL_LSM_MEMTABLE_MAX);
	if (req->max_immutables > SL_LSM_IMMUTABLES_MAX)
		return lsm_dev_bad(-EINVAL, cmd,
				   "%u immutable memtables, more than %u",
				   req->max_immutables, SL_LSM_IMMUTABLES_MAX);
	if (req->commit_interval_ms > SL_LSM_COMMIT_MS_MAX)
		return lsm_dev_bad(-EINVAL, cmd,
				   "commit interval of %u ms, more than %u",
				   req->commit_interval_ms,
				   SL_LSM_COMMIT_MS_MAX);
	return 0;
}

/* The path, copied in; an error pointer for a bad or overlong one. */
static char *lsm_dev_attach_path(const struct sl_lsm_ioc_attach *req)
{
	char *path = strndup_user(u64_to_user_ptr(req->path), PATH_MAX);

	/* strndup_user() says -EINVAL for a string that does not fit. */
	if (PTR_ERR_OR_ZERO(path) == -EINVAL)
		return ERR_PTR(lsm_dev_bad(-ENAMETOOLONG, "ATTACH",
					   "path longer than %d bytes",
					   PATH_MAX - 1));
	return path;
}

static void lsm_dev_attach_options(const struct sl_lsm_ioc_attach *req,
				   struct lsm_options *opt)
{
	lsm_module_options(opt);
	if (req->memtable_bytes)
		opt->memtable_bytes = req->memtable_bytes;
	if (req->max_immutables)
		opt->max_immutables = req->max_immutables;
	if (req->commit_interval_ms)
		opt->commit_interval_ms = req->commit_interval_ms;
	opt->no_wal = req->flags & SL_LSM_ATTACH_NO_WAL;
}

static long lsm_dev_attach(struct lsm_dev *dev, struct sl_lsm_ioc_attach *req,
			   const char *path)
{
	struct lsm_options opt;
	struct lsm_bdev *bdev;
	struct lsm_store *st;
	int ret;

	lockdep_assert_held_write(&dev->sem);
	if (dev->st)
		return lsm_dev_bad(-EISCONN, "ATTACH",
				   "%s: this descriptor already has a store",
				   path);
	ret = lsm_bdev_bio_open(path, LSM_MIN_BLOCKS, &bdev);
	if (ret)
		return ret;
	lsm_dev_attach_options(req, &opt);
	ret = lsm_store_open(bdev, &opt,
			     req->flags & SL_LSM_ATTACH_FORMAT ? LSM_OPEN_FORMAT : 0,
			     &st);
	if (ret) {
		if (ret == -EUCLEAN)
			pr_err_ratelimited("ATTACH: %s: no sound store there (attach with FORMAT to make one)\n",
					   path);
		else
			pr_err_ratelimited("ATTACH: %s: the store cannot be opened (%d)\n",
					   path, ret);
		bdev->ops->release(bdev);
		return ret;
	}
	dev->st = st;
	dev->bdev = bdev;
	req->nr_blocks = bdev->nr_blocks;
	/* rmmod must wait until this store is detached. */
	__module_get(THIS_MODULE);
	lsm_dev_debugfs_add(dev);
	return 0;
}

/*
 * Close the store (which makes everything durable and marks a clean
 * shutdown), then give the device back.  The store is gone whatever the
 * close returns.
 */
static int lsm_dev_detach(struct lsm_dev *dev)
{
	int ret;

	/* The allocator's entries first: they are inside the directory. */
	lsm_store_debugfs_remove(dev->st);
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;
	ret = lsm_store_close(dev->st);
	dev->bdev->ops->release(dev->bdev);
	dev->st = NULL;
	dev->bdev = NULL;
	module_put(THIS_MODULE);
	return ret;
}

/* ----- Writes ----- */

/* Value bytes a one-record write carries without an allocation. */
#define LSM_DEV_INLINE_VALUE	256

/*
 * A batch in kernel memory: the operations for lsm_store_write() and
 * their values, copied in before the store is touched.  A write of one
 * record with a small value (a point put: the benchmarks' case) lives
 * in @one and @inline_value, on the caller's stack, and allocates nothing.
 */
struct lsm_dev_batch {
	struct lsm_op *ops;
	void *values;
	unsigned int n;
	struct lsm_op one;
	u8 inline_value[LSM_DEV_INLINE_VALUE] __aligned(8);
};

static void lsm_dev_batch_free(struct lsm_dev_batch *b)
{
	if (b->ops != &b->one)
		kvfree(b->ops);
	if (b->values != b->inline_value)
		kvfree(b->values);
}

static int lsm_dev_rec_check(const char *cmd, const struct sl_lsm_ioc_rec *r,
			     unsigned int i)
{
	int ret;

	if (r->kind != SL_LSM_REC_PUT && r->kind != SL_LSM_REC_DELETE)
		return lsm_dev_bad(-EINVAL, cmd, "record %u: unknown kind %u",
				   i, r->kind);
	ret = lsm_dev_range(cmd, r->key, r->len);
	if (ret)
		return ret;
	if (r->kind == SL_LSM_REC_DELETE && (r->vlen || r->value))
		return lsm_dev_bad(-EINVAL, cmd,
				   "record %u: a delete with a value", i);
	if (r->vlen > SL_LSM_VALUE_MAX)
		return lsm_dev_bad(-EMSGSIZE, cmd,
				   "record %u: value of %u bytes, more than %u",
				   i, r->vlen, SL_LSM_VALUE_MAX);
	return 0;
}

/*
 * Check @n records and copy them and their values in.  Everything is
 * checked before any value is copied, so a malformed batch fails with
 * its own errno and not -EFAULT.
 */
static int lsm_dev_batch_in(const char *cmd, const struct sl_lsm_ioc_rec *recs,
			    unsigned int n, struct lsm_dev_batch *b)
{
	u64 bytes = 0;
	unsigned int i;
	u8 *v;
	int ret;

	for (i = 0; i < n; i++) {
		ret = lsm_dev_rec_check(cmd, &recs[i], i);
		if (ret)
			return ret;
		bytes += recs[i].vlen;
	}
	if (bytes > SL_LSM_BATCH_BYTES)
		return lsm_dev_bad(-E2BIG, cmd,
				   "%llu value bytes, more than %u in one call",
				   bytes, SL_LSM_BATCH_BYTES);
	b->n = n;
	if (n == 1) {
		b->ops = &b->one;
	} else {
		b->ops = kvmalloc_array(n, sizeof(*b->ops), GFP_KERNEL_ACCOUNT);
		if (!b->ops)
			return -ENOMEM;
	}
	if (bytes <= sizeof(b->inline_value)) {
		b->values = b->inline_value;
	} else {
		b->values = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
		if (!b->values)
			return -ENOMEM;
	}
	v = b->values;
	for (i = 0; i < n; i++) {
		struct lsm_op *op = &b->ops[i];

		op->kind = recs[i].kind == SL_LSM_REC_PUT ? LSM_OP_PUT :
							    LSM_OP_DELETE;
		op->key = recs[i].key;
		op->len = recs[i].len;
		op->vlen = recs[i].vlen;
		op->value = v;
		if (copy_from_user(v, u64_to_user_ptr(recs[i].value),
				   recs[i].vlen))
			return -EFAULT;
		v += recs[i].vlen;
	}
	return 0;
}

/* PUT, DELETE and BATCH as one batch of records in userspace's terms. */
static int lsm_dev_write_in(unsigned int cmd, const void *req,
			    struct lsm_dev_batch *b, unsigned int *flags)
{
	const struct sl_lsm_ioc_put *put = req;
	const struct sl_lsm_ioc_delete *del = req;
	const struct sl_lsm_ioc_batch *batch = req;
	struct sl_lsm_ioc_rec one = { };
	struct sl_lsm_ioc_rec *recs;
	int ret;

	switch (cmd) {
	case SL_LSM_IOC_PUT:
		ret = lsm_dev_flags("PUT", put->flags, SL_LSM_SYNC,
				    put->reserved);
		if (ret)
			return ret;
		one = (struct sl_lsm_ioc_rec){ .key = put->key, .len = put->len,
			.value = put->value, .vlen = put->vlen,
			.kind = SL_LSM_REC_PUT };
		*flags = put->flags;
		return lsm_dev_batch_in("PUT", &one, 1, b);
	case SL_LSM_IOC_DELETE:
		ret = lsm_dev_flags("DELETE", del->flags, SL_LSM_SYNC,
				    del->reserved);
		if (ret)
			return ret;
		one = (struct sl_lsm_ioc_rec){ .key = del->key, .len = del->len,
			.kind = SL_LSM_REC_DELETE };
		*flags = del->flags;
		return lsm_dev_batch_in("DELETE", &one, 1, b);
	}
	ret = lsm_dev_flags("BATCH", batch->flags, SL_LSM_SYNC,
			    batch->reserved);
	if (ret)
		return ret;
	if (!batch->count)
		return lsm_dev_bad(-EINVAL, "BATCH", "no records");
	if (batch->count > SL_LSM_BATCH_MAX)
		return lsm_dev_bad(-E2BIG, "BATCH", "%u records, more than %u",
				   batch->count, SL_LSM_BATCH_MAX);
	recs = vmemdup_user(u64_to_user_ptr(batch->recs),
			    array_size(batch->count, sizeof(*recs)));
	if (IS_ERR(recs))
		return PTR_ERR(recs);
	*flags = batch->flags;
	ret = lsm_dev_batch_in("BATCH", recs, batch->count, b);
	kvfree(recs);
	return ret;
}

static long lsm_dev_write(struct lsm_dev *dev, unsigned int cmd,
			  const void *req)
{
	struct lsm_dev_batch b = { };
	unsigned int flags = 0;
	long ret;

	ret = lsm_dev_write_in(cmd, req, &b, &flags);
	if (ret)
		goto out;
	ret = down_read_killable(&dev->sem);
	if (ret)
		goto out;
	if (dev->st)
		ret = lsm_store_write(dev->st, b.ops, b.n,
				      flags & SL_LSM_SYNC ? LSM_WRITE_SYNC : 0);
	else
		ret = -ENOTCONN;
	up_read(&dev->sem);
out:
	lsm_dev_batch_free(&b);
	return ret;
}

/* ----- Lookups ----- */

/* Value bytes one chunk of lookups gathers before it writes them out. */
#define LSM_DEV_GET_CHUNK	(1024 * 1024)

static int lsm_dev_get_check(struct sl_lsm_ioc_get *req)
{
	int ret;

	ret = lsm_dev_flags("GET", req->flags, 0, req->reserved);
	if (ret)
		return ret;
	if (!req->count)
		return lsm_dev_bad(-EINVAL, "GET", "no records");
	if (req->count > SL_LSM_BATCH_MAX)
		return lsm_dev_bad(-E2BIG, "GET", "%u records, more than %u",
				   req->count, SL_LSM_BATCH_MAX);
	return 0;
}

static u32 lsm_dev_get_room(const struct sl_lsm_ioc_get_rec *r)
{
	return min_t(u32, r->vbuf_size, LSM_VALUE_MAX);
}

/* Look up records [@i, @j) into @vbuf under the semaphore. */
static int lsm_dev_get_chunk(struct lsm_dev *dev, struct sl_lsm_ioc_get_rec *recs,
			     unsigned int i, unsigned int j, u8 *vbuf)
{
	struct lsm_piece p;
	int ret;

	ret = down_read_killable(&dev->sem);
	if (ret)
		return ret;
	if (!dev->st) {
		up_read(&dev->sem);
		return -ENOTCONN;
	}
	for (; i < j; i++) {
		struct sl_lsm_ioc_get_rec *r = &recs[i];
		u32 room = lsm_dev_get_room(r);

		ret = lsm_store_get(dev->st, r->key, &p, vbuf, room);
		if (ret && ret != -ENOENT)
			break;
		r->result = ret;
		ret = 0;
		vbuf += room;
		if (r->result)
			continue;
		r->ext_key = p.ext.key;
		r->ext_len = p.ext.len;
		r->start = p.start;
		r->len = p.len;
		r->seq = p.ext.seq;
		r->vlen = p.ext.vlen;
	}
	up_read(&dev->sem);
	return ret;
}

static long lsm_dev_get(struct lsm_dev *dev, struct sl_lsm_ioc_get *req)
{
	struct sl_lsm_ioc_get_rec *recs;
	unsigned int i, j, found = 0;
	size_t need = 0;
	u8 *vbuf = NULL;
	long ret = 0;

	recs = vmemdup_user(u64_to_user_ptr(req->recs),
			    array_size(req->count, sizeof(*recs)));
	if (IS_ERR(recs))
		return PTR_ERR(recs);
	for (i = 0; i < req->count; i++) {
		if (recs[i].reserved) {
			ret = lsm_dev_bad(-EINVAL, "GET",
					  "record %u: reserved field is %#x", i,
					  recs[i].reserved);
			goto out;
		}
		/* Outputs start from zero, whatever the caller left there. */
		recs[i].result = 0;
		recs[i].ext_key = 0;
		recs[i].ext_len = 0;
		recs[i].start = 0;
		recs[i].len = 0;
		recs[i].seq = 0;
		recs[i].vlen = 0;
		need += lsm_dev_get_room(&recs[i]);
	}
	/*
	 * No bigger than the call needs: a lookup of one key (readrandom's
	 * case) then gets one kmalloc of its room, where a whole chunk
	 * would be a vmalloc of 256 pages and their mapping per call.
	 */
	vbuf = kvmalloc(clamp_t(size_t, need, 1, LSM_DEV_GET_CHUNK),
			GFP_KERNEL_ACCOUNT);
	if (!vbuf) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < req->count; i = j) {
		size_t room = 0, off = 0;

		/* As many as fit the buffer, and one at least. */
		for (j = i; j < req->count; j++) {
			room += lsm_dev_get_room(&recs[j]);
			if (room > LSM_DEV_GET_CHUNK)
				break;
		}
		ret = lsm_dev_get_chunk(dev, recs, i, j, vbuf);
		if (ret)
			goto out;
		for (; i < j; i++) {
			struct sl_lsm_ioc_get_rec *r = &recs[i];
			u32 room = lsm_dev_get_room(r);

			if (!r->result) {
				found++;
				if (copy_to_user(u64_to_user_ptr(r->value),
						 vbuf + off, min(r->vlen, room))) {
					ret = -EFAULT;
					goto out;
				}
			}
			off += room;
		}
	}
	req->found = found;
	if (copy_to_user(u64_to_user_ptr(req->recs), recs,
			 array_size(req->count, sizeof(*recs))))
		ret = -EFAULT;
out:
	kvfree(vbuf);
	kvfree(recs);
	return ret;
}

/* ----- Scans ----- */

static int lsm_dev_scan_check(struct sl_lsm_ioc_scan *req)
{
	const char *cmd = "SCAN";
	int ret;

	ret = lsm_dev_flags(cmd, req->flags, 0, req->reserved);
	if (ret)
		return ret;
	if (!req->max || req->max > SL_LSM_SCAN_MAX)
		return lsm_dev_bad(-EINVAL, cmd, "%u pieces asked, not 1 to %u",
				   req->max, SL_LSM_SCAN_MAX);
	if (req->values_size < SL_LSM_VALUE_MAX)
		return lsm_dev_bad(-EINVAL, cmd,
				   "value buffer of %llu bytes, below %u",
				   req->values_size, SL_LSM_VALUE_MAX);
	if (req->done > 1)
		return lsm_dev_bad(-EINVAL, cmd, "done is %u, not 0 or 1",
				   req->done);
	return 0;
}

static void lsm_dev_piece_out(const struct lsm_piece *p, const u8 *vbuf,
			      struct sl_lsm_ioc_piece *out)
{
	memset(out, 0, sizeof(*out));
	out->start = p->start;
	out->len = p->len;
	out->ext_key = p->ext.key;
	out->ext_len = p->ext.len;
	out->seq = p->ext.seq;
	out->vlen = p->ext.vlen;
	if (p->ext.vlen)
		out->value_off = (const u8 *)p->ext.value - vbuf;
}

static long lsm_dev_scan(struct lsm_dev *dev, struct sl_lsm_ioc_scan *req)
{
	size_t vsize = min_t(u64, req->values_size, SL_LSM_SCAN_BYTES);
	struct lsm_scan_cursor cur = { .pos = req->pos, .done = req->done };
	struct sl_lsm_ioc_piece *out = NULL;
	struct lsm_piece *pieces;
	size_t used = 0;
	u8 *vbuf = NULL;
	long ret;
	int i, n;

	pieces = kvmalloc_array(req->max, sizeof(*pieces), GFP_KERNEL_ACCOUNT);
	vbuf = kvmalloc(vsize, GFP_KERNEL_ACCOUNT);
	out = kvmalloc_array(req->max, sizeof(*out), GFP_KERNEL_ACCOUNT);
	if (!pieces || !vbuf || !out) {
		ret = -ENOMEM;
		goto out;
	}
	ret = down_read_killable(&dev->sem);
	if (ret)
		goto out;
	if (!dev->st)
		ret = -ENOTCONN;
	else if (cur.done)
		ret = 0;
	else
		ret = lsm_store_scan(dev->st, &cur, pieces, req->max, vbuf,
				     vsize);
	up_read(&dev->sem);
	if (ret < 0)
		goto out;
	n = ret;
	for (i = 0; i < n; i++) {
		lsm_dev_piece_out(&pieces[i], vbuf, &out[i]);
		used = max_t(size_t, used, out[i].value_off + out[i].vlen);
	}
	ret = -EFAULT;
	if (copy_to_user(u64_to_user_ptr(req->values), vbuf, used) ||
	    copy_to_user(u64_to_user_ptr(req->pieces), out,
			 array_size(n, sizeof(*out))))
		goto out;
	req->pos = cur.pos;
	req->done = cur.done;
	req->count = n;
	ret = 0;
out:
	kvfree(out);
	kvfree(vbuf);
	kvfree(pieces);
	return ret;
}

/* ----- Everything else ----- */

static long lsm_dev_stats(struct lsm_dev *dev, struct sl_lsm_ioc_stats *req)
{
	struct lsm_stats s;

	lockdep_assert_held_read(&dev->sem);
	lsm_store_stats(dev->st, &s);
	req->memtable_bytes = s.memtable_bytes;
	req->immutables = s.immutables;
	req->runs = s.runs;
	req->flushes = s.flushes;
	req->stalls = s.stalls;
	req->stall_ns = s.stall_ns;
	req->wal_bytes = s.wal_bytes;
	req->run_bytes = s.run_bytes;
	req->manifest_bytes = s.manifest_bytes;
	req->user_bytes = s.user_bytes;
	req->group_commits = s.group_commits;
	req->group_writers = s.group_writers;
	req->seq = s.seq;
	req->nr_blocks = dev->bdev->nr_blocks;
	req->read_only = s.read_only;
	BUILD_BUG_ON(ARRAY_SIZE(req->level_runs) != LSM_LEVELS);
	for (unsigned int i = 0; i < LSM_LEVELS; i++) {
		req->level_runs[i] = s.level_runs[i];
		req->level_bytes[i] = s.level_bytes[i];
	}
	req->compactions = s.compactions;
	req->compact_read_bytes = s.compact_read_bytes;
	req->compact_write_bytes = s.compact_write_bytes;
	req->compact_ns = s.compact_ns;
	req->pending_compact_bytes = s.pending_compact_bytes;
	req->slowdowns = s.slowdowns;
	req->slowdown_ns = s.slowdown_ns;
	req->space_used_bytes = s.space_used_bytes;
	req->cache_hits = s.cache_hits;
	req->cache_misses = s.cache_misses;
	req->cache_bytes = s.cache_bytes;
	memset(req->spare, 0, sizeof(req->spare));
	return 0;
}

/* SYNC, FLUSH and STATS: the store's own calls, under the shared semaphore. */
static long lsm_dev_simple(struct lsm_dev *dev, unsigned int cmd, void *req)
{
	long ret;

	ret = down_read_killable(&dev->sem);
	if (ret)
		return ret;
	if (!dev->st)
		ret = -ENOTCONN;
	else if (cmd == SL_LSM_IOC_SYNC)
		ret = lsm_store_sync(dev->st);
	else if (cmd == SL_LSM_IOC_FLUSH)
		ret = lsm_store_flush(dev->st);
	else
		ret = lsm_dev_stats(dev, req);
	up_read(&dev->sem);
	return ret;
}

/* ATTACH and DETACH, under the exclusive semaphore. */
static long lsm_dev_bind(struct lsm_dev *dev, unsigned int cmd,
			 struct sl_lsm_ioc_attach *req)
{
	char *path = NULL;
	long ret;

	if (cmd == SL_LSM_IOC_ATTACH) {
		ret = lsm_dev_attach_check(req);
		if (ret)
			return ret;
		path = lsm_dev_attach_path(req);
		if (IS_ERR(path))
			return PTR_ERR(path);
	}
	ret = down_write_killable(&dev->sem);
	if (ret)
		goto out;
	if (cmd == SL_LSM_IOC_ATTACH)
		ret = lsm_dev_attach(dev, req, path);
	else if (dev->st)
		ret = lsm_dev_detach(dev);
	else
		ret = -ENOTCONN;
	up_write(&dev->sem);
out:
	kfree(path);
	return ret;
}

static int lsm_dev_open(struct inode *inode, struct file *file)
{
	struct lsm_dev *dev = kzalloc(sizeof(*dev), GFP_KERNEL_ACCOUNT);

	if (!dev)
		return -ENOMEM;
	init_rwsem(&dev->sem);
	file->private_data = dev;
	return 0;
}

/* The last close detaches: everything durable, a clean shutdown. */
static int lsm_dev_release(struct inode *inode, struct file *file)
{
	struct lsm_dev *dev = file->private_data;
	int ret;

	if (dev->st) {
		char name[LSM_BDEV_NAME_SIZE];

		lsm_bdev_bio_disk_name(dev->bdev, name, sizeof(name));
		ret = lsm_dev_detach(dev);
		if (ret)
			pr_err("%s: detach at close failed (%d): the store was not shut down cleanly\n",
			       name, ret);
	}
	kfree(dev);
	return 0;
}

/* The largest request of any command, which every request fits. */
union lsm_dev_req {
	struct sl_lsm_ioc_attach attach;
	struct sl_lsm_ioc_put put;
	struct sl_lsm_ioc_delete del;
	struct sl_lsm_ioc_batch batch;
	struct sl_lsm_ioc_get get;
	struct sl_lsm_ioc_scan scan;
	struct sl_lsm_ioc_stats stats;
};

static long lsm_dev_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct lsm_dev *dev = file->private_data;
	void __user *uarg = (void __user *)arg;
	union lsm_dev_req req;
	bool copy_out = false;
	long ret;

	switch (cmd) {
	case SL_LSM_IOC_ATTACH:
	case SL_LSM_IOC_GET:
	case SL_LSM_IOC_SCAN:
	case SL_LSM_IOC_STATS:
		copy_out = true;
		fallthrough;
	case SL_LSM_IOC_PUT:
	case SL_LSM_IOC_DELETE:
	case SL_LSM_IOC_BATCH:
		/* Each command's size is its structure's, encoded in the number. */
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		if (copy_from_user(&req, uarg, _IOC_SIZE(cmd)))
			return -EFAULT;
		break;
	case SL_LSM_IOC_DETACH:
	case SL_LSM_IOC_SYNC:
	case SL_LSM_IOC_FLUSH:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		break;
	default:
		return -ENOTTY;
	}

	switch (cmd) {
	case SL_LSM_IOC_ATTACH:
		/*
		 * Find out that the result cannot be written before attaching,
		 * not after, when the store would stay attached all the same.
		 */
		if (put_user(req.attach.nr_blocks,
			     &((struct sl_lsm_ioc_attach __user *)uarg)->nr_blocks))
			return -EFAULT;
		fallthrough;
	case SL_LSM_IOC_DETACH:
		ret = lsm_dev_bind(dev, cmd, &req.attach);
		break;
	case SL_LSM_IOC_PUT:
	case SL_LSM_IOC_DELETE:
	case SL_LSM_IOC_BATCH:
		ret = lsm_dev_write(dev, cmd, &req);
		break;
	case SL_LSM_IOC_GET:
		ret = lsm_dev_get_check(&req.get);
		if (!ret)
			ret = lsm_dev_get(dev, &req.get);
		break;
	case SL_LSM_IOC_SCAN:
		ret = lsm_dev_scan_check(&req.scan);
		if (!ret)
			ret = lsm_dev_scan(dev, &req.scan);
		break;
	case SL_LSM_IOC_STATS:
		ret = lsm_dev_flags("STATS", req.stats.flags, 0,
				    req.stats.reserved);
		if (!ret)
			ret = lsm_dev_simple(dev, cmd, &req.stats);
		break;
	default:
		ret = lsm_dev_simple(dev, cmd, NULL);
		break;
	}
	/*
	 * An attach whose result cannot be written back after all (another
	 * thread unmapped the page meanwhile) still leaves the store
	 * attached: the descriptor owns it, and DETACH or close gives it back.
	 */
	if (!ret && copy_out && copy_to_user(uarg, &req, _IOC_SIZE(cmd)))
		ret = -EFAULT;
	return ret;
}

static const struct file_operations lsm_dev_fops = {
	.owner = THIS_MODULE,
	.open = lsm_dev_open,
	.release = lsm_dev_release,
	.unlocked_ioctl = lsm_dev_ioctl,
	/* The structures have the same layout for 32-bit callers. */
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice lsm_dev_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "sl_lsm",
	.fops = &lsm_dev_fops,
	.mode = 0600,
};

/**
 * lsm_dev_register() - create /dev/sl_lsm
 * @debugfs_root: where each attached store's counters go (NULL or an
 *                error pointer: nowhere)
 *
 * Context: process context, at module load.
 * Return: 0, or the error of misc_register().
 */
int lsm_dev_register(struct dentry *debugfs_root)
{
	/*
	 * No implicit padding anywhere, so that 32-bit callers see the same
	 * layout (compat_ptr_ioctl) and no kernel byte leaks out.
	 */
	BUILD_BUG_ON(sizeof(struct sl_lsm_ioc_attach) != 40);
	BUILD_BUG_ON(sizeof(struct sl_lsm_ioc_put) != 40);
	BUILD_BUG_ON(sizeof(struct sl_lsm_ioc_delete) != 24);
	BUILD_BUG_ON(sizeof(struct sl_lsm_ioc_rec) != 32);
	BUILD_BUG_ON(sizeof(struct sl_lsm_ioc_batch) != 24);
	BUILD_BUG_ON(sizeof(struct sl_lsm_ioc_get_rec) != 72);
	BUILD_BUG_ON(sizeof(struct sl_lsm_ioc_get) != 24);
	BUILD_BUG_ON(sizeof(struct sl_lsm_ioc_piece) != 56);
	BUILD_BUG_ON(sizeof(struct sl_lsm_ioc_scan) != 56);
	BUILD_BUG_ON(sizeof(struct sl_lsm_ioc_stats) != 384);
	BUILD_BUG_ON(SL_LSM_VALUE_MAX != LSM_VALUE_MAX);
	lsm_dev_debugfs_root = debugfs_root;
	return misc_register(&lsm_dev_misc);
}

/**
 * lsm_dev_unregister() - remove /dev/sl_lsm
 *
 * No store is attached: each holds a reference to the module.
 *
 * Context: process context, at module unload.
 */
void lsm_dev_unregister(void)
{
	misc_deregister(&lsm_dev_misc);
}
