// SPDX-License-Identifier: GPL-2.0
/*
 * Writing through the block-device interface (bdev.h) and waiting for the
 * write to complete, for the store's metadata writes (superblock,
 * manifest, log blocks) that must not go on before they are done.
 */
#include <linux/completion.h>
#include <linux/errno.h>
#include "bdev.h"

struct lsm_bdev_wait {
	struct completion done;
	int err;
};

static void lsm_bdev_wait_done(void *priv, int err)
{
	struct lsm_bdev_wait *w = priv;

	w->err = err;
	complete(&w->done);
}

/**
 * lsm_bdev_write_sync() - write blocks and wait until the write completes
 * @bdev:  the device
 * @block: first block
 * @buf:   @nr blocks of data
 * @nr:    how many blocks
 * @flags: LSM_IO_FUA, LSM_IO_PREFLUSH
 *
 * Completion means what it means for the device (bdev.h): durable only
 * with LSM_IO_FUA or after a later flush.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for a write past the device's end, or the device's
 * errno (-EIO for a failed write).
 */
int lsm_bdev_write_sync(struct lsm_bdev *bdev, u64 block, const void *buf,
			u32 nr, unsigned int flags)
{
	struct lsm_bdev_wait w;
	int err;

	if (!nr || block >= bdev->nr_blocks || nr > bdev->nr_blocks - block)
		return -EINVAL;
	init_completion(&w.done);
	w.err = 0;
	err = bdev->ops->write(bdev, block, buf, nr, flags,
			       lsm_bdev_wait_done, &w);
	if (err)
		return err;
	wait_for_completion(&w.done);
	return w.err;
}
