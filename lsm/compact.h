/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Leveled compaction's decisions, apart from the I/O: how large each
 * level may grow (sized dynamically from the bottom level, as RocksDB's
 * level_compaction_dynamic_level_bytes does), which merge comes next and
 * which runs it takes, how far merges lag behind (the estimate writers
 * slow down and stop on), and whether a punch may be dropped.  Pure
 * functions of the store's shape: the store calls them with a layer
 * set's runs; tests call them with made-up ones (Documentation/lsm.rst,
 * "Levels and compaction").
 */
#ifndef _LSM_COMPACT_H
#define _LSM_COMPACT_H

#include <linux/types.h>
#include "format.h"
#include "run.h"

/* The bottom level: it has no target, everything ends up there. */
#define LSM_BOTTOM		(LSM_LEVELS - 1)
/* Each level is this many times the size of the one above it. */
#define LSM_FANOUT		10

/**
 * struct lsm_shape - the runs of a store, level by level
 * @runs:  per level, the runs' records: level 0 newest first, the others
 *         sorted by key (they do not overlap)
 * @nr:    runs per level
 * @bytes: bytes per level (blocks of its runs times the block size)
 */
struct lsm_shape {
	const struct lsm_run_info *const *runs[LSM_LEVELS];
	unsigned int nr[LSM_LEVELS];
	u64 bytes[LSM_LEVELS];
};

/**
 * struct lsm_compact_config - when merges run
 * @base_bytes: the most the level that level 0 merges into (the base
 *              level) may hold before levels are added above the bottom:
 *              level 0's trigger times the memtable size, as RocksDB's
 *              max_bytes_for_level_base is four 64 MiB memtables
 * @l0_trigger: level-0 runs that start a merge into the base level
 */
struct lsm_compact_config {
	u64 base_bytes;
	unsigned int l0_trigger;
};

/**
 * struct lsm_compact_targets - the sizes the levels should have now
 * @base:    the level that level 0 merges into (or the highest level
 *           above it that still holds runs); the levels between 1 and it
 *           are empty once merges have caught up
 * @target:  bytes each level may hold: 0 above @base (what is there must
 *           move down), U64_MAX for the bottom
 * @pending: estimated bytes merges must still write to bring every level
 *           within its target (as RocksDB estimates pending compaction
 *           bytes): level 0 with the base level once level 0 is at its
 *           trigger, then each level's excess with its share of the
 *           level below
 */
struct lsm_compact_targets {
	unsigned int base;
	u64 target[LSM_LEVELS];
	u64 pending;
};

/**
 * struct lsm_compact_job - one merge: runs of level @from into level @to
 * @from:       the level read from (0 to LSM_BOTTOM - 1)
 * @to:         the level written to, below @from
 * @from_first: the first run taken from @from (level 0: the oldest runs
 *              are taken, @from_first to the last)
 * @from_nr:    how many
 * @to_first:   the first run of @to whose keys overlap those taken
 * @to_nr:      how many (0: none overlap)
 * @move:       nothing overlaps and the runs taken do not overlap each
 *              other: they move to @to as they are, by a manifest edit
 *              alone, without being read or rewritten
 */
struct lsm_compact_job {
	unsigned int from, to;
	unsigned int from_first, from_nr;
	unsigned int to_first, to_nr;
	bool move;
};

void lsm_compact_targets(const struct lsm_shape *s,
			 const struct lsm_compact_config *cfg,
			 struct lsm_compact_targets *t);
bool lsm_compact_pick(const struct lsm_shape *s,
		      const struct lsm_compact_config *cfg,
		      const struct lsm_compact_targets *t, bool full,
		      u64 cursor[LSM_LEVELS], struct lsm_compact_job *job);
bool lsm_compact_below(const struct lsm_shape *s, unsigned int level,
		       u64 first, u64 last);

#endif /* _LSM_COMPACT_H */
