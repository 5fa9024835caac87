/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The narrow block-device interface the store is written against, so that
 * the same store code runs in the kernel (bios on a struct block_device),
 * in userspace (pread/pwrite/fdatasync on a file or device) and in the
 * tests (memory that records every write and flush and can lose power at
 * any point of them).
 *
 * Blocks are LSM_BLOCK_SIZE bytes and numbered from 0.  The contract is
 * the kernel's: a completed write is only durable after a later completed
 * flush, or at once if it was written with LSM_IO_FUA; LSM_IO_PREFLUSH
 * makes every write completed before it durable before the write itself.
 * A write interrupted by a power cut may leave any subset of its 512-byte
 * sectors written.  A flush that fails (or a PREFLUSH write whose flush
 * fails) may have lost any write completed before it, and a later flush
 * that succeeds does not bring those back: the store treats every write
 * completed before a failed flush as lost (Documentation/lsm.rst).
 */
#ifndef _LSM_BDEV_H
#define _LSM_BDEV_H

#include <linux/types.h>

#define LSM_IO_FUA		0x1	/* durable when it completes */
#define LSM_IO_PREFLUSH		0x2	/* flush the cache before writing */

struct lsm_bdev;

/**
 * typedef lsm_io_done_t - called once when an asynchronous write completes
 * @priv: what the submitter passed
 * @err:  0, or a negative errno (-EIO for a failed write)
 *
 * May be called from interrupt context in the kernel, or from the
 * submitter's own call in userspace: it must not sleep, and the submitter
 * must not hold a lock the callback takes.
 */
typedef void (*lsm_io_done_t)(void *priv, int err);

/**
 * struct lsm_bdev_ops - what a block device backend provides
 * @read:   read @nr blocks from @block into @buf; sleeps until done
 * @write:  start writing @nr blocks from @buf at @block with LSM_IO_*
 *          @flags; @done(@priv, err) is called exactly once, and @buf must
 *          stay unchanged until then.  Returns 0 when submitted, or a
 *          negative errno (and @done is not called)
 * @flush:  make every completed write durable; sleeps until done
 * @release: give the device back
 */
struct lsm_bdev_ops {
	int (*read)(struct lsm_bdev *bdev, u64 block, void *buf, u32 nr);
	int (*write)(struct lsm_bdev *bdev, u64 block, const void *buf, u32 nr,
		     unsigned int flags, lsm_io_done_t done, void *priv);
	int (*flush)(struct lsm_bdev *bdev);
	void (*release)(struct lsm_bdev *bdev);
};

/**
 * struct lsm_bdev - a block device as the store sees it
 * @ops:       the backend
 * @nr_blocks: the device's size in blocks
 * @name:      for messages (a path, or "memdev")
 */
struct lsm_bdev {
	const struct lsm_bdev_ops *ops;
	u64 nr_blocks;
	const char *name;
};

int lsm_bdev_write_sync(struct lsm_bdev *bdev, u64 block, const void *buf,
			u32 nr, unsigned int flags);

#endif /* _LSM_BDEV_H */
