/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The store's durable core without memtables and runs, for the tests of
 * log, superblock, manifest and recovery: a store is formatted, opened
 * (superblock, manifest, replay of every live segment, then a new segment
 * recorded), written (log records; SYNC seals and flushes), synced and
 * closed, as lsm/store.c does, with the records handed to the caller
 * instead of a memtable.
 */
#ifndef _LSM_TEST_LOGSTORE_H
#define _LSM_TEST_LOGSTORE_H

#include "manifest.h"
#include "space.h"
#include "super.h"
#include "wal.h"

struct logstore {
	struct lsm_bdev *bdev;
	struct lsm_super_info sb;
	struct lsm_space space;
	struct lsm_manifest m;
	struct lsm_wal wal;
	u64 next_seq;
};

int logstore_format(struct lsm_bdev *bdev, u64 store_id, u32 segment_blocks);
int logstore_open(struct logstore *ls, struct lsm_bdev *bdev,
		  lsm_wal_apply_t apply, void *priv);
int logstore_write(struct logstore *ls, const struct lsm_op *ops,
		   unsigned int n, bool sync);
int logstore_sync(struct logstore *ls);
/* Syncs first if @sync; frees everything in any case. */
int logstore_close(struct logstore *ls, bool sync);

#endif /* _LSM_TEST_LOGSTORE_H */
