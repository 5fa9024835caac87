// SPDX-License-Identifier: GPL-2.0
/*
 * Device space on the range allocator (space.h).  Callers serialize
 * changes (the store's manifest mutex); the allocator needs no lock of
 * its own for that, and @used is only read for statistics and checks.
 */
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include "format.h"
#include "space.h"

/**
 * lsm_space_init() - an allocator for a store of @nr_blocks blocks
 * @sp:        the space
 * @nr_blocks: the store's size, at least LSM_MIN_BLOCKS
 *
 * The superblock copies are reserved at once.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for a store too small, or -ENOMEM.
 */
int lsm_space_init(struct lsm_space *sp, u64 nr_blocks)
{
	int err;

	if (nr_blocks < LSM_MIN_BLOCKS)
		return -EINVAL;
	sp->nr_blocks = nr_blocks;
	sp->used = 0;
	err = sl_range_init(&sp->ra, 0, nr_blocks, 0, GFP_KERNEL);
	if (err)
		return err;
	err = lsm_space_reserve(sp, 0, LSM_SUPER_COPIES);
	if (err)
		sl_range_destroy(&sp->ra);
	return err;
}

/**
 * lsm_space_destroy() - free the allocator
 * @sp: the space
 *
 * Context: process context, may sleep.
 */
void lsm_space_destroy(struct lsm_space *sp)
{
	sl_range_destroy(&sp->ra);
}

/**
 * lsm_space_reserve() - mark blocks the manifest records as in use
 * @sp:    the space
 * @start: first block
 * @nr:    blocks
 *
 * Context: process context, may sleep.
 * Return: 0; -EUCLEAN if the range is outside the store or overlaps one
 * already in use (a manifest that records either is corrupt); -ENOMEM.
 */
int lsm_space_reserve(struct lsm_space *sp, u64 start, u64 nr)
{
	int err;

	if (!nr || start >= sp->nr_blocks || nr > sp->nr_blocks - start)
		return -EUCLEAN;
	err = sl_range_reserve(&sp->ra, start, nr, GFP_KERNEL);
	if (err == -EEXIST || err == -ERANGE || err == -EINVAL)
		return -EUCLEAN;
	if (!err)
		sp->used += nr;
	return err;
}

/**
 * lsm_space_alloc() - allocate contiguous blocks
 * @sp:    the space
 * @nr:    blocks, at least 1
 * @start: the first, on success
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOSPC when no free range is that long, or -ENOMEM.
 */
int lsm_space_alloc(struct lsm_space *sp, u64 nr, u64 *start)
{
	unsigned long at;
	int err;

	err = sl_range_alloc(&sp->ra, nr, 1, 0, 0, 0, &at, GFP_KERNEL);
	if (err == -EINVAL)
		return -ENOSPC;
	if (err)
		return err;
	*start = at;
	sp->used += nr;
	return 0;
}

/**
 * lsm_space_free() - give back blocks allocated or reserved
 * @sp:    the space
 * @start: first block, as allocated
 * @nr:    blocks, as allocated
 *
 * Only once the manifest change that stopped using them is durable.
 *
 * Context: process context.
 */
void lsm_space_free(struct lsm_space *sp, u64 start, u64 nr)
{
	if (!WARN_ON(sl_range_free(&sp->ra, start, nr)))
		sp->used -= nr;
}
