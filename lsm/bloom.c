// SPDX-License-Identifier: GPL-2.0
/*
 * The Bloom filter of a sorted run (bloom.h).  Nothing here allocates or
 * locks: the run owns the bits, builds them alone and then only reads.
 */
#include <linux/kernel.h>
#include "bloom.h"

/*
 * The finalizer of MurmurHash3's 64-bit variant: a bijection whose every
 * output bit depends on every input bit, so that chunk numbers, which
 * are dense and sequential, spread over the lines.
 */
static u64 lsm_bloom_mix(u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/**
 * lsm_bloom_level() - the level a piece is inserted at
 * @start: its first unit
 * @last:  its last unit, at least @start
 *
 * The lowest level g at which the piece touches at most
 * LSM_BLOOM_PIECE_ITEMS chunks of 2^g units: 0 for a piece of up to that
 * many units, so point records stay exact.
 *
 * Context: any.
 * Return: the level, 0 to 63.
 */
unsigned int lsm_bloom_level(u64 start, u64 last)
{
	unsigned int level = 0;

	while ((last >> level) - (start >> level) >= LSM_BLOOM_PIECE_ITEMS)
		level++;
	return level;
}

/**
 * lsm_bloom_hash() - the hash of an item
 * @level: its level
 * @chunk: its chunk number at that level (a unit >> @level)
 *
 * Context: any.
 * Return: the 64-bit hash that lsm_bloom_add() and lsm_bloom_test() take.
 */
u64 lsm_bloom_hash(unsigned int level, u64 chunk)
{
	/* An odd multiplier keeps (level, chunk) pairs of nearby levels apart. */
	return lsm_bloom_mix(chunk + level * 0x9e3779b97f4a7c15ULL);
}

/**
 * lsm_bloom_lines() - the size of a filter for a number of items
 * @items: items to be added, at least 1
 *
 * Context: any.
 * Return: lines of LSM_BLOOM_LINE_BITS for about LSM_BLOOM_BITS_PER_ITEM
 * bits per item; the caller checks that it fits its own limits.
 */
u64 lsm_bloom_lines(u64 items)
{
	return DIV_ROUND_UP(items * LSM_BLOOM_BITS_PER_ITEM,
			    LSM_BLOOM_LINE_BITS);
}

/* The line an item's bits are in: the high half of @hash, scaled. */
static u8 *lsm_bloom_line(const struct lsm_bloom *bloom, u64 hash)
{
	u64 line = ((hash >> 32) * bloom->nr_lines) >> 32;

	return bloom->bits + line * LSM_BLOOM_LINE_BYTES;
}

/**
 * lsm_bloom_add() - add an item
 * @bloom: a filter being built, with its bits zeroed at first
 * @hash:  the item's lsm_bloom_hash()
 *
 * Context: any; the caller owns @bloom.
 */
void lsm_bloom_add(struct lsm_bloom *bloom, u64 hash)
{
	u8 *line = lsm_bloom_line(bloom, hash);
	u64 bits = lsm_bloom_mix(hash);
	unsigned int i;

	for (i = 0; i < bloom->probes; i++, bits >>= 9)
		line[(bits & 511) / 8] |= 1 << (bits & 7);
}

/**
 * lsm_bloom_test() - whether an item may have been added
 * @bloom: a built filter
 * @hash:  the item's lsm_bloom_hash()
 *
 * Context: any; reads only.
 * Return: false if it was not added; true if it may have been.
 */
bool lsm_bloom_test(const struct lsm_bloom *bloom, u64 hash)
{
	const u8 *line = lsm_bloom_line(bloom, hash);
	u64 bits = lsm_bloom_mix(hash);
	unsigned int i;

	for (i = 0; i < bloom->probes; i++, bits >>= 9)
		if (!(line[(bits & 511) / 8] & (1 << (bits & 7))))
			return false;
	return true;
}

/**
 * lsm_bloom_may_cover() - whether a piece at one of some levels may
 *                         cover a unit
 * @bloom:  a built filter
 * @k:      the unit
 * @levels: bit g set for each level g a piece covering @k could be at
 *
 * Context: any; reads only.
 * Return: false if no piece inserted at those levels covers @k; true if
 * one may.
 */
bool lsm_bloom_may_cover(const struct lsm_bloom *bloom, u64 k, u64 levels)
{
	unsigned int level;

	for (level = 0; levels; level++, levels >>= 1)
		if ((levels & 1) &&
		    lsm_bloom_test(bloom, lsm_bloom_hash(level, k >> level)))
			return true;
	return false;
}
