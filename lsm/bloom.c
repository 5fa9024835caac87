// SPDX-License-Identifier: GPL-2.0
/*
 * The Bloom filter of a sorted run (bloom.h).  Nothing here allocates or
 * locks: the run owns the bits, builds them alone and then only reads.
 */
#include <linux/kernel.h>
#include "bloom.h"

/*
 * The finalizer of MurmurHash3's 64-bit variant: a bijection whose every
 * output bit depends on every input bit, so that units, which are often
 * dense and sequential, spread over the lines.
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
 * lsm_bloom_hash() - the hash of a unit
 * @unit: the unit
 *
 * Context: any.
 * Return: the 64-bit hash that lsm_bloom_add() and lsm_bloom_test() take.
 */
u64 lsm_bloom_hash(u64 unit)
{
	return lsm_bloom_mix(unit);
}

/**
 * lsm_bloom_lines() - the size of a filter for a number of units
 * @items: units to be added
 *
 * Context: any.
 * Return: lines of LSM_BLOOM_LINE_BITS for about LSM_BLOOM_BITS_PER_ITEM
 * bits per unit (0 for none); the caller checks that it fits its limits.
 */
u64 lsm_bloom_lines(u64 items)
{
	return DIV_ROUND_UP(items * LSM_BLOOM_BITS_PER_ITEM,
			    LSM_BLOOM_LINE_BITS);
}

/* The line a unit's bits are in: the high half of @hash, scaled. */
static u8 *lsm_bloom_line(const struct lsm_bloom *bloom, u64 hash)
{
	u64 line = ((hash >> 32) * bloom->nr_lines) >> 32;

	return bloom->bits + line * LSM_BLOOM_LINE_BYTES;
}

/**
 * lsm_bloom_add() - add a unit
 * @bloom: a filter being built, its bits zeroed at first, @nr_lines > 0
 * @hash:  the unit's lsm_bloom_hash()
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
 * lsm_bloom_test() - whether a unit may have been added
 * @bloom: a built filter
 * @hash:  the unit's lsm_bloom_hash()
 *
 * Context: any; reads only.
 * Return: false if it was not added (always, for a filter of no lines);
 * true if it may have been.
 */
bool lsm_bloom_test(const struct lsm_bloom *bloom, u64 hash)
{
	const u8 *line;
	u64 bits = lsm_bloom_mix(hash);
	unsigned int i;

	if (!bloom->nr_lines)
		return false;
	line = lsm_bloom_line(bloom, hash);
	for (i = 0; i < bloom->probes; i++, bits >>= 9)
		if (!(line[(bits & 511) / 8] & (1 << (bits & 7))))
			return false;
	return true;
}
