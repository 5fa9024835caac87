// SPDX-License-Identifier: GPL-2.0
/*
 * The store's block device in the kernel: a struct block_device opened
 * exclusively by path, so that nothing else (a file system, a second
 * store, dm) can claim it while the store has it, and read and written
 * with bios.
 *
 * A transfer of @nr blocks becomes as many bios as it needs (each of at
 * most BIO_MAX_VECS segments), submitted one after another and counted
 * in one struct lsm_bio_io; the last bio to complete ends the transfer:
 * it calls the store's callback (a write) or wakes the reader (a read).
 * The submitter holds one count of its own until every bio is submitted,
 * so a transfer cannot end while it is still being built.
 *
 * Ordering and durability map onto the block layer's: LSM_IO_FUA is
 * REQ_FUA and LSM_IO_PREFLUSH is REQ_PREFLUSH on every bio of the
 * transfer (the bios of one transfer are not ordered among themselves,
 * so each must carry the flush that orders it after earlier writes), and
 * ->flush is blkdev_issue_flush().
 *
 * Buffers are the store's: kmalloc'ed or vmalloc'ed memory, aligned to
 * 512 bytes at least (the sector; DMA needs no less).  vmalloc'ed buffers
 * are mapped page by page and their caches flushed and invalidated as the
 * DMA API asks of vmap'ed memory (a no-op on x86).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "bdev_bio.h"
#include "record.h"

/*
 * The exclusive open by path changed three times between 6.1 and 6.12;
 * Kbuild asks the headers which one this kernel has: from 6.10 on,
 * bdev_file_open_by_path() and bdev_fput() (LSM_BDEV_FILE), before 6.5
 * blkdev_get_by_path() with FMODE_EXCL.  The kernels between are not
 * supported.
 */
#define LSM_SECTORS_PER_BLOCK	(LSM_BLOCK_SIZE >> SECTOR_SHIFT)
/* A transfer's bytes fit an int, as the vmap cache calls take them. */
#define LSM_BIO_MAX_BLOCKS	((unsigned long)INT_MAX >> LSM_BLOCK_SHIFT)

/**
 * struct lsm_bdev_bio - a block device claimed for the store
 * @bdev:  what the store sees; first, so that the store's pointer is ours
 * @blk:   the device
 * @file:  6.10 on: the open file that holds the claim
 * @path:  the path it was opened by (@bdev.name points here)
 *
 * The structure is the holder of the exclusive claim: two attaches of
 * one device have two holders, so the second is refused.
 */
struct lsm_bdev_bio {
	struct lsm_bdev bdev;
	struct block_device *blk;
#ifdef LSM_BDEV_FILE
	struct file *file;
#endif
	char *path;
};

/**
 * struct lsm_bio_io - one transfer, split into bios
 * @pending: bios in flight, plus one held by the submitter until it has
 *           submitted them all
 * @err:     the first error of any bio (0 if none)
 * @done:    a write's callback, with @priv; NULL for a read
 * @priv:    its argument
 * @wait:    a read's waiter
 */
struct lsm_bio_io {
	atomic_t pending;
	atomic_t err;
	lsm_io_done_t done;
	void *priv;
	struct completion wait;
};

static struct lsm_bdev_bio *lsm_bdev_bio(struct lsm_bdev *bdev)
{
	return container_of(bdev, struct lsm_bdev_bio, bdev);
}

/* The last count of a transfer ends it; in interrupt context too. */
static void lsm_bio_io_put(struct lsm_bio_io *io)
{
	if (!atomic_dec_and_test(&io->pending))
		return;
	if (io->done) {
		lsm_io_done_t done = io->done;
		void *priv = io->priv;
		int err = atomic_read(&io->err);

		kfree(io);
		done(priv, err);
	} else {
		complete(&io->wait);
	}
}

static void lsm_bio_end_io(struct bio *bio)
{
	struct lsm_bio_io *io = bio->bi_private;
	int err = blk_status_to_errno(bio->bi_status);

	if (err)
		atomic_cmpxchg(&io->err, 0, err);
	bio_put(bio);
	lsm_bio_io_put(io);
}

static struct page *lsm_bio_page(const void *addr)
{
	return is_vmalloc_addr(addr) ? vmalloc_to_page(addr) :
				       virt_to_page(addr);
}

/*
 * Submit the bios of a transfer of @nr blocks at @block, @buf already
 * checked.  Each bio is submitted before the next is allocated, as a
 * bio_set's mempool requires of a caller that allocates several.
 */
static void lsm_bio_submit(struct lsm_bdev_bio *bb, struct lsm_bio_io *io,
			   blk_opf_t opf, u64 block, const void *buf, u32 nr)
{
	const u8 *p = buf;
	size_t left = (size_t)nr << LSM_BLOCK_SHIFT;
	sector_t sector = block * LSM_SECTORS_PER_BLOCK;

	while (left) {
		unsigned int pages = DIV_ROUND_UP(offset_in_page(p) + left,
						  PAGE_SIZE);
		struct bio *bio;

		bio = bio_alloc(bb->blk, min_t(unsigned int, pages, BIO_MAX_VECS),
				opf, GFP_NOIO);
		bio->bi_iter.bi_sector = sector;
		bio->bi_end_io = lsm_bio_end_io;
		bio->bi_private = io;
		while (left) {
			unsigned int off = offset_in_page(p);
			unsigned int len = min_t(size_t, PAGE_SIZE - off, left);

			if (bio_add_page(bio, lsm_bio_page(p), len, off) != len)
				break;
			p += len;
			left -= len;
			sector += len >> SECTOR_SHIFT;
		}
		atomic_inc(&io->pending);
		submit_bio(bio);
	}
}

/* Whether a transfer is one the device can take; -EINVAL if not. */
static int lsm_bio_check(struct lsm_bdev_bio *bb, const char *what, u64 block,
			 const void *buf, u32 nr)
{
	if (!nr) {
		pr_err_ratelimited("%s: %s of no blocks at %llu\n", bb->path,
				   what, block);
		return -EINVAL;
	}
	if (block > bb->bdev.nr_blocks || nr > bb->bdev.nr_blocks - block) {
		pr_err_ratelimited("%s: %s of blocks [%llu, +%u) outside the device's %llu\n",
				   bb->path, what, block, nr, bb->bdev.nr_blocks);
		return -EINVAL;
	}
	if (nr > LSM_BIO_MAX_BLOCKS) {
		pr_err_ratelimited("%s: %s of %u blocks, more than %lu at once\n",
				   bb->path, what, nr, LSM_BIO_MAX_BLOCKS);
		return -EINVAL;
	}
	if (!IS_ALIGNED((unsigned long)buf, SECTOR_SIZE)) {
		pr_err_ratelimited("%s: %s buffer %p not aligned to %u bytes\n",
				   bb->path, what, buf, SECTOR_SIZE);
		return -EINVAL;
	}
	return 0;
}

static int lsm_bio_read(struct lsm_bdev *bdev, u64 block, void *buf, u32 nr)
{
	struct lsm_bdev_bio *bb = lsm_bdev_bio(bdev);
	struct lsm_bio_io io = { };
	int ret;

	ret = lsm_bio_check(bb, "read", block, buf, nr);
	if (ret)
		return ret;
	atomic_set(&io.pending, 1);
	init_completion(&io.wait);
	lsm_bio_submit(bb, &io, REQ_OP_READ | REQ_SYNC | REQ_META, block, buf,
		       nr);
	lsm_bio_io_put(&io);
	wait_for_completion_io(&io.wait);
	/* Lines the CPU may have cached through the vmap alias are stale. */
	if (is_vmalloc_addr(buf))
		invalidate_kernel_vmap_range(buf, (int)nr << LSM_BLOCK_SHIFT);
	return atomic_read(&io.err);
}

static int lsm_bio_write(struct lsm_bdev *bdev, u64 block, const void *buf,
			 u32 nr, unsigned int flags, lsm_io_done_t done,
			 void *priv)
{
	struct lsm_bdev_bio *bb = lsm_bdev_bio(bdev);
	blk_opf_t opf = REQ_OP_WRITE | REQ_SYNC | REQ_META;
	struct lsm_bio_io *io;
	int ret;

	if (flags & ~(LSM_IO_FUA | LSM_IO_PREFLUSH)) {
		pr_err_ratelimited("%s: write with unknown flags %#x\n",
				   bb->path, flags);
		return -EINVAL;
	}
	ret = lsm_bio_check(bb, "write", block, buf, nr);
	if (ret)
		return ret;
	io = kzalloc(sizeof(*io), GFP_NOIO);
	if (!io)
		return -ENOMEM;
	if (flags & LSM_IO_FUA)
		opf |= REQ_FUA;
	if (flags & LSM_IO_PREFLUSH)
		opf |= REQ_PREFLUSH;
	atomic_set(&io->pending, 1);
	io->done = done;
	io->priv = priv;
	/* The device reads the pages, not the vmap alias the CPU wrote. */
	if (is_vmalloc_addr(buf))
		flush_kernel_vmap_range((void *)buf,
					(int)nr << LSM_BLOCK_SHIFT);
	lsm_bio_submit(bb, io, opf, block, buf, nr);
	lsm_bio_io_put(io);
	return 0;
}

static int lsm_bio_flush(struct lsm_bdev *bdev)
{
	return blkdev_issue_flush(lsm_bdev_bio(bdev)->blk);
}

static void lsm_bio_close(struct lsm_bdev_bio *bb)
{
#ifdef LSM_BDEV_FILE
	/* Gives the claim back now, not at the file's last fput. */
	bdev_fput(bb->file);
#else
	blkdev_put(bb->blk, FMODE_READ | FMODE_WRITE | FMODE_EXCL);
#endif
}

static void lsm_bio_release(struct lsm_bdev *bdev)
{
	struct lsm_bdev_bio *bb = lsm_bdev_bio(bdev);

	lsm_bio_close(bb);
	kfree(bb->path);
	kfree(bb);
}

static const struct lsm_bdev_ops lsm_bio_ops = {
	.read = lsm_bio_read,
	.write = lsm_bio_write,
	.flush = lsm_bio_flush,
	.release = lsm_bio_release,
};

/* Open @bb->path read-write and claim it for @bb; 0 or -errno. */
static int lsm_bio_claim(struct lsm_bdev_bio *bb)
{
#ifdef LSM_BDEV_FILE
	/* No other writer either, while the store has the device. */
	bb->file = bdev_file_open_by_path(bb->path, BLK_OPEN_READ |
					  BLK_OPEN_WRITE |
					  BLK_OPEN_RESTRICT_WRITES, bb, NULL);
	if (IS_ERR(bb->file))
		return PTR_ERR(bb->file);
	bb->blk = file_bdev(bb->file);
#else
	bb->blk = blkdev_get_by_path(bb->path, FMODE_READ | FMODE_WRITE |
				     FMODE_EXCL, bb);
	if (IS_ERR(bb->blk))
		return PTR_ERR(bb->blk);
#endif
	return 0;
}

/* The refusals of the open, each named for the log. */
static int lsm_bio_open_error(const char *path, int err)
{
	const char *why;

	switch (err) {
	case -ENOENT:
		why = "no such file";
		break;
	case -ENOTBLK:
		why = "not a block device";
		break;
	case -EBUSY:
		why = "in use (mounted, claimed, or attached to another store)";
		break;
	case -EACCES:
	case -EROFS:
		why = "read-only device";
		err = -EROFS;
		break;
	case -ENXIO:
		why = "no such device (gone, or never there)";
		break;
	default:
		why = "cannot be opened";
		break;
	}
	pr_err_ratelimited("%s: %s (%d)\n", path, why, err);
	return err;
}

/**
 * lsm_bdev_bio_open() - claim a block device for a store
 * @path:       the device's path, such as "/dev/vdb"
 * @min_blocks: the fewest LSM_BLOCK_SIZE blocks the store can live in
 * @bdevp:      out: the device, until its ops->release()
 *
 * Opens the device read-write and exclusively (no file system, dm
 * target or other store can claim it meanwhile; from 6.10 on, no other
 * writer can open it either).  Each refusal is logged with the path.
 *
 * Context: process context; sleeps.
 * Return: 0; -ENOENT if nothing is at @path; -ENOTBLK if it is not a
 * block device; -EBUSY if the device is claimed or mounted (by another
 * store too); -EROFS if it is read-only; -ENOSPC if it holds fewer than
 * @min_blocks blocks; -EINVAL if its logical block is larger than a
 * store's block; -ENOMEM; another -errno of the block layer's open.
 */
int lsm_bdev_bio_open(const char *path, u64 min_blocks,
		      struct lsm_bdev **bdevp)
{
	struct lsm_bdev_bio *bb;
	unsigned int lbs;
	int ret;

	bb = kzalloc(sizeof(*bb), GFP_KERNEL);
	if (!bb)
		return -ENOMEM;
	bb->path = kstrdup(path, GFP_KERNEL);
	if (!bb->path) {
		kfree(bb);
		return -ENOMEM;
	}
	ret = lsm_bio_claim(bb);
	if (ret) {
		ret = lsm_bio_open_error(path, ret);
		goto free;
	}
	lbs = bdev_logical_block_size(bb->blk);
	if (lbs > LSM_BLOCK_SIZE) {
		pr_err_ratelimited("%s: logical block of %u bytes, above the store's %u\n",
				   path, lbs, LSM_BLOCK_SIZE);
		ret = -EINVAL;
		goto close;
	}
	bb->bdev.nr_blocks = bdev_nr_bytes(bb->blk) >> LSM_BLOCK_SHIFT;
	if (bb->bdev.nr_blocks < min_blocks) {
		pr_err_ratelimited("%s: too small: %llu blocks of %u bytes, the store needs %llu\n",
				   path, bb->bdev.nr_blocks, LSM_BLOCK_SIZE,
				   min_blocks);
		ret = -ENOSPC;
		goto close;
	}
	bb->bdev.ops = &lsm_bio_ops;
	bb->bdev.name = bb->path;
	*bdevp = &bb->bdev;
	return 0;

close:
	lsm_bio_close(bb);
free:
	kfree(bb->path);
	kfree(bb);
	return ret;
}

/**
 * lsm_bdev_bio_disk_name() - the kernel's name of a store's device
 * @bdev: a device from lsm_bdev_bio_open()
 * @buf:  where the name goes ("vdb", "sda1")
 * @size: bytes at @buf
 *
 * Unique among the devices claimed at one time, so it names a store's
 * counters in debugfs.
 *
 * Context: any.
 */
void lsm_bdev_bio_disk_name(struct lsm_bdev *bdev, char *buf, size_t size)
{
	BUILD_BUG_ON(LSM_BDEV_NAME_SIZE < BDEVNAME_SIZE);
	snprintf(buf, size, "%pg", lsm_bdev_bio(bdev)->blk);
}
