/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Bloom filter of a sorted run: a set of 64-bit units with no false
 * negative and about 1% false positives at 10 bits per unit.  A run puts
 * the units of its short pieces here and keeps its long pieces in an
 * exact list beside it (run.c; Documentation/lsm-runs.rst, "Filter").
 *
 * The filter is cache-blocked: all the bits of a unit lie in one 512-bit
 * line, so a query touches one cache line.  A filter being built is its
 * builder's alone; once built it is only read, by any number of readers
 * at once.
 */
#ifndef _LSM_BLOOM_H
#define _LSM_BLOOM_H

#include <linux/types.h>

#define LSM_BLOOM_LINE_BITS	512
#define LSM_BLOOM_LINE_BYTES	(LSM_BLOOM_LINE_BITS / 8)
#define LSM_BLOOM_BITS_PER_ITEM	10
#define LSM_BLOOM_PROBES	6	/* bits set per unit */
#define LSM_BLOOM_MAX_PROBES	7	/* 7 fields of 9 bits in 64 */

/**
 * struct lsm_bloom - a filter
 * @bits:     @nr_lines lines of LSM_BLOOM_LINE_BYTES; bit b of a line is
 *            bit b % 8 of its byte b / 8
 * @nr_lines: at least 1 for a filter that holds anything
 * @probes:   bits set per unit, 1 to LSM_BLOOM_MAX_PROBES
 */
struct lsm_bloom {
	u8 *bits;
	u32 nr_lines;
	u32 probes;
};

u64 lsm_bloom_hash(u64 unit);
u64 lsm_bloom_lines(u64 items);
void lsm_bloom_add(struct lsm_bloom *bloom, u64 hash);
bool lsm_bloom_test(const struct lsm_bloom *bloom, u64 hash);

#endif /* _LSM_BLOOM_H */
