/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The key sets every benchmark builds its extents from: sl_bench.ko, its
 * native build, bench_user and skiplist_extras include this one header, so
 * a set is the same extents, for the same seed, in the kernel and in
 * userspace.  Plain C on unsigned long (64 bits on every machine the
 * benchmarks run on), no allocation and no includes, so that it builds
 * unchanged in the kernel, on the skiplist's shim and in a plain program.
 *
 * Evenly spaced keys, the benchmarks' only set until issue 18, are the one
 * distribution where the skiplist's interpolated guess in a leaf and its
 * directory's buckets are exact.  The others are what users have:
 *
 *  even       [8j, 8j + 8): every key a multiple of one stride
 *  uniform    8-unit extents at uniformly random 64-bit keys
 *  extents    files: each a contiguous run of extents of 4 KiB to 1 MiB
 *             (powers of two, mixed at random), keys in bytes, each file
 *             1 to 2 TiB above the end of the one before
 *  clustered  8-unit extents, nine in ten uniformly random in one window
 *             of a thousandth of the key space, the rest anywhere
 *  geometric  8-unit extents whose gaps are spread over every scale: the
 *             gap before each is 2^k plus up to 2^k, with k uniform from 3
 *             to 40, so that neighbouring gaps differ by up to 2^37 and a
 *             few large ones dominate any run of keys
 *
 * bench_keyset_build() lays out 2n extents, sorted and disjoint: the n of
 * ext[0, n) are the set (what the benchmarks preload), the n of ext[n, 2n)
 * lie between or beside them (the kernel benchmark's insdel extras; the
 * userspace mixes toggle all 2n).  For the even set the first half is
 * exactly the old layout, [16i, 16i + 8), the second [16i + 8, 16i + 16).
 * For the sets of random keys the halves alternate in key order; for
 * files, each file's first half of extents is in the set and its second
 * half among the extras (a file that grows and shrinks at its end).
 */
#ifndef _BENCH_KEYSET_H
#define _BENCH_KEYSET_H

enum bench_keyset {
	BENCH_KS_EVEN,
	BENCH_KS_UNIFORM,
	BENCH_KS_EXTENTS,
	BENCH_KS_CLUSTERED,
	BENCH_KS_GEOMETRIC,
	BENCH_KS_NR,
};

/* Every set but the even one: where the goals are judged. */
#define BENCH_KS_REALISTIC_MASK	(((1U << BENCH_KS_NR) - 1) & \
				 ~(1U << BENCH_KS_EVEN))

struct bench_extent {
	unsigned long key;
	unsigned long size;
};

#define BENCH_KS_ITEM_SIZE	8UL	/* units per extent but in files */
#define BENCH_KS_MIN_FILE_PAGE	12	/* file extents from 2^12 ... */
#define BENCH_KS_MAX_FILE_PAGE	20	/* ... to 2^20 bytes */
#define BENCH_KS_MAX_FILE_HALF	32	/* extents per half file, at most */
#define BENCH_KS_FILE_GAP	40	/* files 2^40 to 2^41 bytes apart */
#define BENCH_KS_MIN_GAP_BITS	3
#define BENCH_KS_MAX_GAP_BITS	40
#define BENCH_KS_MAX_N		(1UL << 24)
/* Random keys stay this far below 2^64, so extents and nudges fit. */
#define BENCH_KS_TOP		(~0UL - (1UL << 32))

static inline const char *bench_keyset_name(unsigned int ks)
{
	switch (ks) {
	case BENCH_KS_EVEN:
		return "even";
	case BENCH_KS_UNIFORM:
		return "uniform";
	case BENCH_KS_EXTENTS:
		return "extents";
	case BENCH_KS_CLUSTERED:
		return "clustered";
	case BENCH_KS_GEOMETRIC:
		return "geometric";
	}
	return "?";
}

/* splitmix64: the sets' own stream, the same in every build. */
static inline unsigned long bench_ks_next(unsigned long *s)
{
	unsigned long z = (*s += 0x9e3779b97f4a7c15UL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) by multiply-shift, for n < 2^32 (no 128-bit type). */
static inline unsigned long bench_ks_below32(unsigned long *s, unsigned long n)
{
	return ((bench_ks_next(s) >> 32) * n) >> 32;
}

/* Uniform in [0, 2^64 / 2^shift) and so on: the top bits of a draw. */
static inline unsigned long bench_ks_bits(unsigned long *s, unsigned int bits)
{
	return bits ? bench_ks_next(s) >> (64 - bits) : 0;
}

static inline void bench_ks_sift(unsigned long *a, unsigned long root,
				 unsigned long n)
{
	unsigned long child, tmp;

	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n && a[child + 1] > a[child])
			child++;
		if (a[root] >= a[child])
			return;
		tmp = a[root];
		a[root] = a[child];
		a[child] = tmp;
		root = child;
	}
}

/* Heapsort: in place, no recursion, the same in every build. */
static inline void bench_ks_sort(unsigned long *a, unsigned long n)
{
	unsigned long i, tmp;

	for (i = n / 2; i-- > 0;)
		bench_ks_sift(a, i, n);
	for (i = n; i-- > 1;) {
		tmp = a[0];
		a[0] = a[i];
		a[i] = tmp;
		bench_ks_sift(a, 0, i);
	}
}

/* The j-th of 2n extents in key order goes to its half, alternating. */
static inline void bench_ks_put(struct bench_extent *ext, unsigned long n,
				unsigned long j, unsigned long key,
				unsigned long size)
{
	struct bench_extent *e = &ext[j % 2 ? n + j / 2 : j / 2];

	e->key = key;
	e->size = size;
}

/*
 * 2n random keys, sorted, pushed up where two would overlap, then dealt
 * out alternately.  They are sorted in the memory of ext[n, 2n), which
 * holds exactly 2n unsigned longs; dealing key 2i + 1 to ext[n + i]
 * overwrites keys 2i and 2i + 1 only, both already dealt.
 */
static inline void bench_ks_random(struct bench_extent *ext, unsigned long n,
				   unsigned long *s, unsigned int cluster_pct)
{
	unsigned long *keys = (unsigned long *)&ext[n];
	unsigned long j, base, width = BENCH_KS_TOP / 1000, key;

	base = bench_ks_next(s) % (BENCH_KS_TOP - width);
	for (j = 0; j < 2 * n; j++) {
		if (bench_ks_below32(s, 100) < cluster_pct)
			keys[j] = base + bench_ks_next(s) % width;
		else
			keys[j] = bench_ks_next(s) % BENCH_KS_TOP;
	}
	bench_ks_sort(keys, 2 * n);
	for (j = 1; j < 2 * n; j++)
		if (keys[j] < keys[j - 1] + BENCH_KS_ITEM_SIZE)
			keys[j] = keys[j - 1] + BENCH_KS_ITEM_SIZE;
	for (j = 0; j < 2 * n; j++) {
		key = keys[j];
		bench_ks_put(ext, n, j, key, BENCH_KS_ITEM_SIZE);
	}
}

/* Files of 2m extents: the first m to ext[0, n), the last m to ext[n, 2n). */
static inline void bench_ks_files(struct bench_extent *ext, unsigned long n,
				  unsigned long *s)
{
	unsigned long done = 0, pos = 0, m, k, size;

	while (done < n) {
		pos += (1UL << BENCH_KS_FILE_GAP) +
		       bench_ks_bits(s, BENCH_KS_FILE_GAP);
		m = 1 + bench_ks_below32(s, BENCH_KS_MAX_FILE_HALF);
		if (m > n - done)
			m = n - done;
		for (k = 0; k < 2 * m; k++) {
			size = 1UL << (BENCH_KS_MIN_FILE_PAGE +
				       bench_ks_below32(s, BENCH_KS_MAX_FILE_PAGE -
							BENCH_KS_MIN_FILE_PAGE + 1));
			if (k < m) {
				ext[done + k].key = pos;
				ext[done + k].size = size;
			} else {
				ext[n + done + k - m].key = pos;
				ext[n + done + k - m].size = size;
			}
			pos += size;
		}
		done += m;
	}
}

static inline void bench_ks_geometric(struct bench_extent *ext,
				      unsigned long n, unsigned long *s)
{
	unsigned long j, pos = 0, bits, span = BENCH_KS_MAX_GAP_BITS -
						 BENCH_KS_MIN_GAP_BITS + 1;

	for (j = 0; j < 2 * n; j++) {
		bits = BENCH_KS_MIN_GAP_BITS + bench_ks_below32(s, span);
		pos += (1UL << bits) + bench_ks_bits(s, bits);
		bench_ks_put(ext, n, j, pos, BENCH_KS_ITEM_SIZE);
		pos += BENCH_KS_ITEM_SIZE;
	}
}

/**
 * bench_keyset_build() - lay out a key set
 * @ks:   enum bench_keyset
 * @n:    extents in the set, at most BENCH_KS_MAX_N (the sparsest
 *        sets, geometric and extents, then still end below 2^62)
 * @seed: the same seed gives the same extents in every build
 * @ext:  room for 2n extents: the set sorted in [0, n), the extras sorted
 *        in [n, 2n); no two of the 2n overlap
 *
 * Context: Any; takes O(n log n) time with no sleep and no allocation, so
 * a kernel caller that builds millions should do it where it may take
 * seconds.
 * Return: 0, or -1 for an unknown set or too large an @n.
 */
static inline int bench_keyset_build(unsigned int ks, unsigned long n,
				     unsigned long seed,
				     struct bench_extent *ext)
{
	unsigned long s = seed * 0x632be59bd9b4e019UL + ks, j;

	if (n > BENCH_KS_MAX_N)
		return -1;
	switch (ks) {
	case BENCH_KS_EVEN:
		for (j = 0; j < 2 * n; j++)
			bench_ks_put(ext, n, j, j * BENCH_KS_ITEM_SIZE,
				     BENCH_KS_ITEM_SIZE);
		return 0;
	case BENCH_KS_UNIFORM:
		bench_ks_random(ext, n, &s, 0);
		return 0;
	case BENCH_KS_EXTENTS:
		bench_ks_files(ext, n, &s);
		return 0;
	case BENCH_KS_CLUSTERED:
		bench_ks_random(ext, n, &s, 90);
		return 0;
	case BENCH_KS_GEOMETRIC:
		bench_ks_geometric(ext, n, &s);
		return 0;
	}
	return -1;
}

#endif /* _BENCH_KEYSET_H */
