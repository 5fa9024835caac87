/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The on-disk form of a sorted run, private to run.c: what follows the
 * block header (block.h) in each kind of run block.  The byte tables are
 * Documentation/lsm-runs.rst; the sizes are asserted below so the two
 * cannot drift apart.
 */
#ifndef _LSM_RUN_FORMAT_H
#define _LSM_RUN_FORMAT_H

#include <linux/build_bug.h>
#include <linux/types.h>
#include "block.h"
#include "bloom.h"

/* Data block: this, then the entries, packed. */
struct lsm_run_data_head {
	__le16 nr_entries;
	__le16 reserved;
};

/* The first byte of an entry: which fields follow. */
#define LSM_RUN_E_TOMBSTONE	0x01	/* the extent is a punch */
#define LSM_RUN_E_LEN_ONE	0x02	/* extent length 1: no len field */
#define LSM_RUN_E_WHOLE		0x04	/* window = extent: no start, win_len */
#define LSM_RUN_E_VALUE_OUT	0x08	/* value in value blocks */
#define LSM_RUN_E_KNOWN		0x0f

/* flags, key, seq and vlen: in every entry. */
#define LSM_RUN_E_FIXED		(1 + 8 + 8 + 4)
/* The largest entry without its value. */
#define LSM_RUN_E_MAX_HEAD	(LSM_RUN_E_FIXED + 8 + 8 + 8)
#define LSM_RUN_DATA_BODY	(LSM_BLOCK_BODY - sizeof(struct lsm_run_data_head))

/* Index block: this, then nr_fences fences. */
struct lsm_run_index_head {
	__le32 nr_fences;
	__le32 reserved;
};

/*
 * Pieces of up to this many units are in the filter unit by unit; longer
 * ones are in the exact list of long pieces (struct lsm_run_long).
 */
#define LSM_RUN_SHORT_MAX	8

/* lsm_run_fence.kinds: what a lookup must ask before reading the block. */
#define LSM_RUN_K_SHORT		0x1	/* it holds short pieces: the filter */
#define LSM_RUN_K_LONG		0x2	/* it holds long pieces: the list */
#define LSM_RUN_K_ALL		(LSM_RUN_K_SHORT | LSM_RUN_K_LONG)

/**
 * struct lsm_run_fence - where one data block is, and what it covers
 * @first: first visible unit of its first piece
 * @last:  last visible unit of its last piece
 * @block: the data block's offset in the run
 * @kinds: LSM_RUN_K_*: the kinds of piece it holds
 */
struct lsm_run_fence {
	__le64 first;
	__le64 last;
	__le32 block;
	__le32 kinds;
};

#define LSM_RUN_FENCES_PER_BLOCK \
	((LSM_BLOCK_BODY - sizeof(struct lsm_run_index_head)) / \
	 sizeof(struct lsm_run_fence))

/* Filter block: lines of the Bloom filter (bloom.h), from the body's start. */
#define LSM_RUN_BLOOM_LINES_PER_BLOCK	(LSM_BLOCK_BODY / LSM_BLOOM_LINE_BYTES)

/**
 * struct lsm_run_long - a long piece's visible window, in the exact list
 * @start: its first unit
 * @last:  its last unit
 */
struct lsm_run_long {
	__le64 start;
	__le64 last;
};

#define LSM_RUN_LONGS_PER_BLOCK	(LSM_BLOCK_BODY / sizeof(struct lsm_run_long))

/**
 * struct lsm_run_footer - the last block of a run: where everything is
 * @run_id:       the run's id, as the header's epoch
 * @nr_blocks:    blocks of the run's extent, this one included
 * @nr_pieces:    pieces, tombstones included
 * @first_key:    first visible unit of the first piece
 * @last_key:     last visible unit of the last piece
 * @max_seq:      highest sequence number of the run's extents
 * @bloom_items:  units set in the filter
 * @nr_long:      pieces in the list of long pieces
 * @data_blocks:  blocks of the data region (data and value blocks)
 * @nr_fences:    data blocks, one fence each
 * @index_blocks: blocks of the index, after the data region
 * @bloom_blocks: blocks of the filter, after the index
 * @bloom_lines:  512-bit lines of the filter
 * @bloom_probes: bits set per item
 * @value_blocks: value blocks in the data region
 * @long_blocks:  blocks of the list of long pieces, after the filter
 */
struct lsm_run_footer {
	__le64 run_id;
	__le64 nr_blocks;
	__le64 nr_pieces;
	__le64 first_key;
	__le64 last_key;
	__le64 max_seq;
	__le64 bloom_items;
	__le64 nr_long;
	__le32 data_blocks;
	__le32 nr_fences;
	__le32 index_blocks;
	__le32 bloom_blocks;
	__le32 bloom_lines;
	__le32 bloom_probes;
	__le32 value_blocks;
	__le32 long_blocks;
};

static_assert(sizeof(struct lsm_block_header) == 40);
static_assert(sizeof(struct lsm_run_data_head) == 4);
static_assert(sizeof(struct lsm_run_index_head) == 8);
static_assert(sizeof(struct lsm_run_fence) == 24);
static_assert(sizeof(struct lsm_run_long) == 16);
static_assert(sizeof(struct lsm_run_footer) == 96);
static_assert(LSM_RUN_DATA_BODY == 4052);
static_assert(LSM_RUN_FENCES_PER_BLOCK == 168);
static_assert(LSM_RUN_BLOOM_LINES_PER_BLOCK == 63);
static_assert(LSM_RUN_LONGS_PER_BLOCK == 253);

#endif /* _LSM_RUN_FORMAT_H */
