/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The merge a compaction reads: levels of runs, newest first, seen as one
 * sequence of pieces in key order, as a reader would see them, except
 * that punches are kept (they still hide what lies below the levels
 * merged) unless the caller says nothing below holds data under them.
 */
#ifndef _LSM_MERGE_H
#define _LSM_MERGE_H

#include <linux/types.h>
#include "level.h"
#include "record.h"

/**
 * struct lsm_merge_src - one level's cursor in a merge
 * @li:        the cursor
 * @head:      its piece ending at or after the merge's position; filled
 *             in once @have_head
 * @start:     @head's first unit, known before its block is read
 * @have_head: @head is filled in
 * @valid:     the level has such a piece
 */
struct lsm_merge_src {
	struct lsm_level_iter li;
	struct lsm_piece head;
	u64 start;
	bool have_head;
	bool valid;
};

/**
 * struct lsm_merge - a merge of levels
 * @src:        the levels' cursors, newest first
 * @nr:         how many
 * @pos:        the next unit to look at
 * @done:       the merge is past the last unit of the key space
 * @keep_punch: whether a punch of [first, last] must be kept (NULL: keep
 *              every punch)
 * @priv:       for @keep_punch
 */
struct lsm_merge {
	struct lsm_merge_src *src;
	unsigned int nr;
	u64 pos;
	bool done;
	bool (*keep_punch)(void *priv, u64 first, u64 last);
	void *priv;
};

int lsm_merge_init(struct lsm_merge *mg, const struct lsm_level *lvs,
		   unsigned int nr);
void lsm_merge_destroy(struct lsm_merge *mg);
int lsm_merge_next(struct lsm_merge *mg, struct lsm_piece *out, void *vbuf);

#endif /* _LSM_MERGE_H */
