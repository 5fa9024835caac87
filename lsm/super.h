/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two superblock copies: reading the current one, writing the next
 * (Documentation/lsm.rst, "Superblocks").
 */
#ifndef _LSM_SUPER_H
#define _LSM_SUPER_H

#include <linux/types.h>
#include "bdev.h"

/**
 * struct lsm_super_info - a superblock in memory
 * @store_id:        the store's
 * @generation:      of the copy read or last written
 * @flags:           LSM_SUPER_*
 * @nr_blocks:       the store's size
 * @manifest_start:  the manifest's extent
 * @manifest_blocks: its length
 * @manifest_id:     its id
 * @segment_blocks:  blocks of a log segment
 * @manifest_used:   blocks of the manifest durable when it was written
 * @durable_seq:     writes durable, in runs or the log, when it was written
 */
struct lsm_super_info {
	u64 store_id;
	u64 generation;
	u32 flags;
	u64 nr_blocks;
	u64 manifest_start;
	u64 manifest_blocks;
	u64 manifest_id;
	u32 segment_blocks;
	u64 manifest_used;
	u64 durable_seq;
};

int lsm_super_read(struct lsm_bdev *bdev, struct lsm_super_info *si);
int lsm_super_write(struct lsm_bdev *bdev, struct lsm_super_info *si);

#endif /* _LSM_SUPER_H */
