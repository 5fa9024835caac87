/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keys and ranges of the extent benchmarks, for both of their
 * drivers: lsm_bench (C) and rocksdb_extent_bench (C++) draw them with
 * this one header, so that with the same --seed the two write the same
 * ranges in the same order and read the same units, and a lookup run's
 * "found" count can be compared between them.
 */
#ifndef LSM_BENCH_KEYS_H
#define LSM_BENCH_KEYS_H

#include <stdint.h>

/* splitmix64: each thread's stream, from its own seed. */
static inline uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Thread @tid's seed of a benchmark run in a process that has started
 * @started threads before it (db_bench's total_thread_count_): the same
 * in both drivers.
 */
static inline uint64_t thread_seed(uint64_t seed, uint64_t started, int tid)
{
	return seed + started + tid + 1;
}

/*
 * One range overwrite: [*key, *key + *len) inside [0, space), its first
 * unit uniform and its length uniform in 1..max_len, cut at the end of
 * the space.
 */
static inline void range_shape(uint64_t *rng, uint64_t space, uint64_t max_len,
			       uint64_t *key, uint64_t *len)
{
	*key = next_rand(rng) % space;
	*len = 1 + next_rand(rng) % max_len;
	if (*len > space - *key)
		*len = space - *key;
}

/* Random bytes that values are cut from, at random offsets. */
#define VALUE_POOL	(1 << 20)
#define VALUE_POOL_SLACK 65536

static inline void fill_value_pool(unsigned char *pool, uint64_t seed)
{
	uint64_t s = seed, i, k;

	for (i = 0; i < VALUE_POOL + VALUE_POOL_SLACK; i += 8) {
		uint64_t r = next_rand(&s);

		for (k = 0; k < 8; k++)
			pool[i + k] = r >> (8 * k);
	}
}

#endif /* LSM_BENCH_KEYS_H */
