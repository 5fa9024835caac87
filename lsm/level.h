/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A level: open runs sorted by key whose key ranges do not overlap, read
 * as one layer.  A lookup asks one run, found by a binary search on the
 * runs' last keys; a cursor walks the runs one after the other with one
 * run cursor.  A run of level 0 is a level of one run.  The store and
 * its merges read every run through this (Documentation/lsm.rst,
 * "Levels and compaction").
 */
#ifndef _LSM_LEVEL_H
#define _LSM_LEVEL_H

#include <linux/types.h>
#include "record.h"
#include "run.h"

/**
 * struct lsm_level - the runs of one level
 * @runs: open runs, sorted by key, not overlapping; they stay open while
 *        the level is used
 * @nr:   how many (0: an empty level)
 */
struct lsm_level {
	struct lsm_run *const *runs;
	unsigned int nr;
};

int lsm_level_get(const struct lsm_level *lv, u64 k, struct lsm_piece *out,
		  void *vbuf, u32 vbuf_size);
int lsm_level_next(const struct lsm_level *lv, u64 pos, struct lsm_piece *out,
		   void *vbuf, u32 vbuf_size);
unsigned int lsm_level_find(const struct lsm_level *lv, u64 pos);
bool lsm_level_outside(const struct lsm_level *lv, u64 first, u64 last);

/**
 * struct lsm_level_iter - a cursor over a level's pieces in key order
 * @lv:  the level
 * @idx: the run the cursor is in (lv.nr: past the last)
 * @it:  its cursor in that run, made at the first seek
 */
struct lsm_level_iter {
	struct lsm_level lv;
	unsigned int idx;
	struct lsm_run_iter *it;
};

void lsm_level_iter_init(struct lsm_level_iter *li,
			 const struct lsm_level *lv);
void lsm_level_iter_destroy(struct lsm_level_iter *li);
int lsm_level_iter_seek(struct lsm_level_iter *li, u64 pos);
int lsm_level_iter_next(struct lsm_level_iter *li);
u64 lsm_level_iter_start(const struct lsm_level_iter *li);
int lsm_level_iter_piece(struct lsm_level_iter *li, struct lsm_piece *out);
int lsm_level_iter_value(struct lsm_level_iter *li, void *vbuf,
			 u32 vbuf_size);

#endif /* _LSM_LEVEL_H */
