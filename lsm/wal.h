/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The write-ahead log: records appended to segments of device space, and
 * their replay (Documentation/lsm.rst, "Write-ahead log").
 */
#ifndef _LSM_WAL_H
#define _LSM_WAL_H

#include <linux/types.h>
#include "bdev.h"
#include "store.h"

/**
 * struct lsm_wal_seg - a log segment, as the manifest records it
 * @id:        unique in the store; the epoch of its blocks
 * @start:     first block
 * @nr:        blocks
 * @first_seq: sequence number of its first record
 */
struct lsm_wal_seg {
	u64 id;
	u64 start;
	u64 nr;
	u64 first_seq;
};

/**
 * struct lsm_wal - the log's writer
 * @bdev:     the device
 * @store_id: the store's
 * @seg:      the segment written to (@seg.nr 0 before the first)
 * @block:    index in @seg of the block being filled
 * @buf:      that block
 * @used:     bytes of @buf filled, header included
 * @bytes:    bytes written to the device so far
 *
 * Callers serialize all calls (the store's write mutex).
 */
struct lsm_wal {
	struct lsm_bdev *bdev;
	u64 store_id;
	struct lsm_wal_seg seg;
	u64 block;
	u8 *buf;
	u32 used;
	u64 bytes;
};

typedef int (*lsm_wal_apply_t)(void *priv, u64 seq, const struct lsm_op *ops,
			       unsigned int n);

/* Why the log of a segment ended where it did (struct lsm_wal_end). */
enum lsm_wal_end_kind {
	LSM_WAL_END_FULL,	/* every block of the segment was read */
	LSM_WAL_END_BLOCK,	/* a block not of the segment: never written */
	LSM_WAL_END_DAMAGED,	/* a store's block failing its checksum */
	LSM_WAL_END_RECORD,	/* a record that does not pass, in sound blocks */
};

/**
 * struct lsm_wal_end - where the log of a segment ended in a replay
 * @block: the device block: the one that failed its check, or that holds
 *         the start of the record that did not pass; one past the
 *         segment for LSM_WAL_END_FULL
 * @kind:  enum lsm_wal_end_kind
 */
struct lsm_wal_end {
	u64 block;
	enum lsm_wal_end_kind kind;
};

int lsm_wal_init(struct lsm_wal *w, struct lsm_bdev *bdev, u64 store_id);
void lsm_wal_destroy(struct lsm_wal *w);
void lsm_wal_begin(struct lsm_wal *w, const struct lsm_wal_seg *seg);
size_t lsm_wal_record_bytes(const struct lsm_op *ops, unsigned int n);
bool lsm_wal_room(const struct lsm_wal *w, size_t bytes);
int lsm_wal_append(struct lsm_wal *w, u64 seq, const struct lsm_op *ops,
		   unsigned int n);
int lsm_wal_seal(struct lsm_wal *w);
int lsm_wal_replay(struct lsm_bdev *bdev, u64 store_id,
		   const struct lsm_wal_seg *seg, u64 *next_seq,
		   lsm_wal_apply_t apply, void *priv, struct lsm_wal_end *end);
int lsm_wal_recover(struct lsm_bdev *bdev, u64 store_id,
		    const struct lsm_wal_seg *segs, unsigned int nr,
		    u64 persisted_seq, u64 durable_seq, u64 *next_seq,
		    lsm_wal_apply_t apply, void *priv);

#endif /* _LSM_WAL_H */
