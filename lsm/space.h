/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device space of a store: which blocks hold something the manifest
 * records (superblocks, manifest extent, runs, log segments), on the range
 * allocator of extent/range_alloc.h.  Not stored: attach rebuilds it from
 * the manifest (Documentation/lsm.rst, "Device space").
 */
#ifndef _LSM_SPACE_H
#define _LSM_SPACE_H

#include <linux/types.h>
#include "range_alloc.h"

/**
 * struct lsm_space - the blocks in use on a store's device
 * @ra:        the allocator over [0, @nr_blocks)
 * @nr_blocks: the store's size
 * @used:      blocks allocated or reserved
 */
struct lsm_space {
	struct sl_range_alloc ra;
	u64 nr_blocks;
	u64 used;
};

int lsm_space_init(struct lsm_space *sp, u64 nr_blocks);
void lsm_space_destroy(struct lsm_space *sp);
int lsm_space_reserve(struct lsm_space *sp, u64 start, u64 nr);
int lsm_space_alloc(struct lsm_space *sp, u64 nr, u64 *start);
void lsm_space_free(struct lsm_space *sp, u64 start, u64 nr);

#endif /* _LSM_SPACE_H */
