/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The store's on-disk structures other than runs: superblock, log
 * records, manifest blocks and records.  Every one is specified byte by
 * byte in Documentation/lsm.rst, "On-disk format"; the sizes are asserted
 * here so that the structs and the document cannot drift apart silently.
 */
#ifndef _LSM_FORMAT_H
#define _LSM_FORMAT_H

#include <linux/build_bug.h>
#include <linux/types.h>
#include "block.h"

/*
 * Version 2 gave runs a level (struct lsm_mrec.aux of RUN_ADD); a store
 * of version 1 has only level 0 and is read as it is, and the next
 * superblock written says 2.
 */
#define LSM_FORMAT_VERSION	2
#define LSM_FORMAT_OLDEST	1

/* Levels of runs: 0 (overlapping runs, newest first) and 1 to 6. */
#define LSM_LEVELS		7

/* The smallest device a store is made on: 4 MiB. */
#define LSM_MIN_BLOCKS		1024
/* Superblock copies live in blocks 0 and 1. */
#define LSM_SUPER_COPIES	2

/* lsm_super.flags */
#define LSM_SUPER_CLEAN		0x1	/* closed with everything durable */

/**
 * struct lsm_super - a superblock copy (block 0 or 1)
 * @hdr:             type LSM_BT_SUPER; hdr.epoch is the generation
 * @format:          LSM_FORMAT_VERSION
 * @flags:           LSM_SUPER_*
 * @nr_blocks:       the store's size in blocks, set at format
 * @manifest_start:  first block of the manifest's extent
 * @manifest_blocks: its length
 * @manifest_id:     its id, the epoch of its blocks
 * @segment_blocks:  blocks of one log segment
 * @manifest_used:   blocks of the manifest's extent (snapshot and edits)
 *                   durable when this copy was written; 0: not known
 *                   (written before the field was)
 * @durable_seq:     every write up to this sequence number was durable,
 *                   in runs or the log, when this copy was written;
 *                   0: not known
 * @reserved:        zero
 */
struct lsm_super {
	struct lsm_block_header hdr;
	__le32 format;
	__le32 flags;
	__le64 nr_blocks;
	__le64 manifest_start;
	__le64 manifest_blocks;
	__le64 manifest_id;
	__le32 segment_blocks;
	__le32 manifest_used;
	__le64 durable_seq;
	__le32 reserved[8];
};

static_assert(sizeof(struct lsm_super) == 128);

/* Log segments: 1 MiB each by default, chosen at format. */
#define LSM_SEGMENT_BLOCKS	256
#define LSM_SEGMENT_MIN_BLOCKS	8
/* The store's smallest: a record of one largest value fits. */
#define LSM_SEGMENT_STORE_MIN	32

/**
 * struct lsm_wal_record - the head of a log record
 * @crc:    CRC32C of the record with this field zero, inverted
 * @bytes:  the record's length, this head included
 * @seq:    the write's sequence number
 * @epoch:  the id of the segment it is in
 * @nr_ops: operations that follow, at least 1
 * @flags:  zero
 */
struct lsm_wal_record {
	__le32 crc;
	__le32 bytes;
	__le64 seq;
	__le64 epoch;
	__le32 nr_ops;
	__le32 flags;
};

static_assert(sizeof(struct lsm_wal_record) == 32);

/* lsm_wal_op.kind: the store's LSM_OP_PUT and LSM_OP_DELETE. */

/**
 * struct lsm_wal_op - one operation of a log record, its value after it
 * @key:  first unit
 * @len:  units
 * @kind: 1 put, 2 punch
 * @vlen: value bytes that follow, unpadded
 */
struct lsm_wal_op {
	__le64 key;
	__le64 len;
	__le32 kind;
	__le32 vlen;
};

static_assert(sizeof(struct lsm_wal_op) == 24);

/* Bytes of one segment's stream, and so the largest record. */
#define LSM_WAL_SEGMENT_BYTES(blocks)	((blocks) * LSM_BLOCK_BODY)

/* lsm_manifest_block.kind */
#define LSM_MB_SNAPSHOT		1
#define LSM_MB_EDIT		2

/**
 * struct lsm_manifest_block - the head of a manifest block
 * @hdr:         type LSM_BT_MANIFEST; hdr.epoch is the manifest's id
 * @kind:        LSM_MB_*
 * @nr_recs:     records that follow, 1 to LSM_MREC_PER_BLOCK
 * @snap_blocks: blocks of the snapshot the extent starts with
 * @reserved:    zero
 */
struct lsm_manifest_block {
	struct lsm_block_header hdr;
	__le32 kind;
	__le32 nr_recs;
	__le32 snap_blocks;
	__le32 reserved[3];
};

static_assert(sizeof(struct lsm_manifest_block) == 64);

/* lsm_mrec.type */
enum lsm_mrec_type {
	LSM_MR_STATE = 1,	/* next_id, persisted_seq */
	LSM_MR_RUN_ADD = 2,	/* struct lsm_run_info, field by field */
	LSM_MR_RUN_DEL = 3,	/* id */
	LSM_MR_SEG_ADD = 4,	/* id, first block, blocks, first seq */
	LSM_MR_SEG_DEL = 5,	/* id */
};

/**
 * struct lsm_mrec - one manifest record
 * @type: enum lsm_mrec_type
 * @aux:  RUN_ADD: the run's level, below LSM_LEVELS; other types: zero
 * @v:    its fields, in the order the type lists them; the rest zero
 */
struct lsm_mrec {
	__le32 type;
	__le32 aux;
	__le64 v[7];
};

static_assert(sizeof(struct lsm_mrec) == 64);

#define LSM_MREC_PER_BLOCK \
	((LSM_BLOCK_SIZE - sizeof(struct lsm_manifest_block)) / \
	 sizeof(struct lsm_mrec))
static_assert(LSM_MREC_PER_BLOCK == 63);

/* A manifest extent: room for twice the snapshot and this many edits. */
#define LSM_MANIFEST_EDIT_BLOCKS	64

#endif /* _LSM_FORMAT_H */
