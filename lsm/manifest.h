/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The manifest: the store's table of contents (runs, live log segments,
 * persisted sequence number, next id) as an edit log after a snapshot in
 * one extent, rolled over to a new extent when full so that its size, and
 * attach time, follow the store's state and not its age
 * (Documentation/lsm.rst, "Manifest").
 */
#ifndef _LSM_MANIFEST_H
#define _LSM_MANIFEST_H

#include <linux/types.h>
#include "bdev.h"
#include "format.h"
#include "run.h"
#include "space.h"
#include "super.h"
#include "wal.h"

/*
 * Records an edit block carries besides its closing STATE record.  A
 * larger edit (a merge of many runs) is committed by a roll-over: the
 * new state is written whole as a snapshot, which is atomic however
 * large.
 */
#define LSM_EDIT_MAX	(LSM_MREC_PER_BLOCK - 1)

/**
 * struct lsm_edit - a change to the manifest, applied whole or not at all
 * @n:    records
 * @cap:  room for records
 * @recs: the records
 */
struct lsm_edit {
	unsigned int n, cap;
	struct lsm_mrec recs[];
};

struct lsm_edit *lsm_edit_alloc(unsigned int cap);
void lsm_edit_free(struct lsm_edit *e);

/**
 * struct lsm_manifest - the manifest, in memory and on disk
 * @bdev:          the device
 * @space:         the store's device space
 * @sb:            the store's superblock, rewritten at each roll-over
 * @next_block:    index in the extent of the next edit block
 * @snap_blocks:   blocks of the extent's snapshot
 * @next_id:       the next id for a run, segment or manifest extent
 * @persisted_seq: every write up to this one is in runs
 * @runs:          the runs, oldest first
 * @nr_runs:       how many
 * @cap_runs:      how many @runs has room for
 * @segs:          the live log segments, in log order
 * @nr_segs:       how many
 * @cap_segs:      how many @segs has room for
 * @bytes:         bytes written to the manifest
 * @failed:        an edit failed after the state in memory took it: the
 *                 device may not hold what memory does, so that no later
 *                 edit or superblock, written from that state, may reach
 *                 the device (it would record the failed edit's effects,
 *                 its persisted sequence number above all, without it)
 *
 * Callers serialize every call (the store's manifest mutex).
 */
struct lsm_manifest {
	struct lsm_bdev *bdev;
	struct lsm_space *space;
	struct lsm_super_info *sb;
	u64 next_block;
	u64 snap_blocks;
	u64 next_id;
	u64 persisted_seq;
	struct lsm_run_info *runs;
	unsigned int nr_runs, cap_runs;
	struct lsm_wal_seg *segs;
	unsigned int nr_segs, cap_segs;
	u64 bytes;
	bool failed;
};

int lsm_manifest_format(struct lsm_manifest *m, struct lsm_bdev *bdev,
			struct lsm_space *space, struct lsm_super_info *sb);
int lsm_manifest_load(struct lsm_manifest *m, struct lsm_bdev *bdev,
		      struct lsm_space *space, struct lsm_super_info *sb);
void lsm_manifest_destroy(struct lsm_manifest *m);
int lsm_manifest_write_super(struct lsm_manifest *m, u64 durable_seq);
u64 lsm_manifest_new_id(struct lsm_manifest *m);

void lsm_edit_run_add(struct lsm_edit *e, const struct lsm_run_info *run);
void lsm_edit_run_del(struct lsm_edit *e, u64 id);
void lsm_edit_seg_add(struct lsm_edit *e, const struct lsm_wal_seg *seg);
void lsm_edit_seg_del(struct lsm_edit *e, u64 id);
int lsm_manifest_commit(struct lsm_manifest *m, const struct lsm_edit *e,
			u64 persisted_seq);
int lsm_manifest_check(struct lsm_manifest *m, u64 unrecorded);

#endif /* _LSM_MANIFEST_H */
