/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The header every on-disk block of the store begins with, and how it is
 * sealed and checked.  Each block names what it is, where it belongs and
 * which store and pass wrote it, so that a misdirected write (right data,
 * wrong place), a stale one (a block left from an earlier use of reused
 * space) and a torn or flipped one are all told apart from a good block.
 * Byte layout: Documentation/lsm.rst, "Block header".
 */
#ifndef _LSM_BLOCK_H
#define _LSM_BLOCK_H

#include <linux/types.h>
#include "record.h"

#define LSM_MAGIC		0x4d534c53	/* "SLSM", little-endian */

/* lsm_block_header.type */
enum lsm_block_type {
	LSM_BT_SUPER = 1,	/* superblock */
	LSM_BT_WAL = 2,		/* write-ahead log */
	LSM_BT_MANIFEST = 3,	/* manifest edit log or snapshot */
	LSM_BT_RUN_DATA = 4,	/* sorted run: data */
	LSM_BT_RUN_INDEX = 5,	/* sorted run: index */
	LSM_BT_RUN_BLOOM = 6,	/* sorted run: Bloom filter */
	LSM_BT_RUN_FOOTER = 7,	/* sorted run: footer */
	LSM_BT_RUN_VALUE = 8,	/* sorted run: a value too large for a data block */
};

/**
 * struct lsm_block_header - the first 40 bytes of every block
 * @magic:    LSM_MAGIC
 * @crc:      CRC32C (seed ~0, final xor ~0 as in the kernel's crc32c()
 *            users such as ext4: see lsm_block_crc()) of the whole block
 *            with this field taken as zero
 * @blocknr:  the block's own number on the device
 * @store_id: random, chosen at format: blocks of another store, or of
 *            an earlier format of this device, do not pass
 * @epoch:    what pass of the block's owner wrote it (the log's epoch
 *            for a log block, the manifest generation, the run's id):
 *            the owner checks it, so a stale block of reused space
 *            does not pass
 * @type:     enum lsm_block_type
 * @version:  format version of the block's body, 1
 * @used:     bytes of the block in use, header included
 *
 * All fields little-endian.
 */
struct lsm_block_header {
	__le32 magic;
	__le32 crc;
	__le64 blocknr;
	__le64 store_id;
	__le64 epoch;
	__le16 type;
	__le16 version;
	__le32 used;
};

#define LSM_BLOCK_VERSION	1
#define LSM_BLOCK_BODY		(LSM_BLOCK_SIZE - sizeof(struct lsm_block_header))

/**
 * struct lsm_block_id - what a block must say about itself to be accepted
 * @blocknr:  where it was read from
 * @store_id: the store's
 * @epoch:    the owner's pass
 * @type:     what the reader expects
 */
struct lsm_block_id {
	u64 blocknr;
	u64 store_id;
	u64 epoch;
	enum lsm_block_type type;
};

u32 lsm_crc32c(u32 crc, const void *buf, size_t len);
void lsm_block_seal(void *block, const struct lsm_block_id *id, u32 used);
int lsm_block_check(const void *block, const struct lsm_block_id *id);
bool lsm_block_damaged(const void *block);

#endif /* _LSM_BLOCK_H */
