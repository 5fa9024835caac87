/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Bloom filter of a sorted run, on extents: it answers "may a piece
 * of the run cover unit k?" with no false negative.  A piece [s, l] is
 * inserted as the at most LSM_BLOOM_PIECE_ITEMS aligned chunks of 2^g
 * units that cover it, at the lowest level g where that many suffice, so
 * a point record is one item at level 0 and a piece of any length costs
 * a bounded number of bits.  A query probes item (g, k >> g) for each
 * level g its caller says may hold k (the run keeps, per data block, the
 * levels of its pieces).  Layout and measured rates:
 * Documentation/lsm-runs.rst, "Bloom filter".
 *
 * The filter is cache-blocked: all probes of an item fall in one 512-bit
 * line.  A filter being built is the builder's alone; once built it is
 * only read, by any number of readers at once.
 */
#ifndef _LSM_BLOOM_H
#define _LSM_BLOOM_H

#include <linux/types.h>

#define LSM_BLOOM_LINE_BITS	512
#define LSM_BLOOM_LINE_BYTES	(LSM_BLOOM_LINE_BITS / 8)
#define LSM_BLOOM_BITS_PER_ITEM	10
#define LSM_BLOOM_PROBES	6	/* bits set per item */
#define LSM_BLOOM_MAX_PROBES	7	/* 7 fields of 9 bits in 64 */
#define LSM_BLOOM_PIECE_ITEMS	8	/* most items one piece becomes */

/**
 * struct lsm_bloom - a filter
 * @bits:     @nr_lines lines of LSM_BLOOM_LINE_BYTES; bit b of a line is
 *            bit b % 8 of its byte b / 8
 * @nr_lines: at least 1
 * @probes:   bits set per item, 1 to LSM_BLOOM_MAX_PROBES
 */
struct lsm_bloom {
	u8 *bits;
	u32 nr_lines;
	u32 probes;
};

unsigned int lsm_bloom_level(u64 start, u64 last);
u64 lsm_bloom_hash(unsigned int level, u64 chunk);
u64 lsm_bloom_lines(u64 items);
void lsm_bloom_add(struct lsm_bloom *bloom, u64 hash);
bool lsm_bloom_test(const struct lsm_bloom *bloom, u64 hash);
bool lsm_bloom_may_cover(const struct lsm_bloom *bloom, u64 k, u64 levels);

/*
 * The items of the piece [start, last] at its level: the chunks
 * start >> level to last >> level, at most LSM_BLOOM_PIECE_ITEMS.
 */
static inline unsigned int lsm_bloom_piece_items(u64 start, u64 last,
						 unsigned int level)
{
	return (unsigned int)((last >> level) - (start >> level)) + 1;
}

#endif /* _LSM_BLOOM_H */
