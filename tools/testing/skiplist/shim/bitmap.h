/* SPDX-License-Identifier: GPL-2.0 */
/* Bitmaps: the few operations the sources use, written plainly. */
#ifndef _SHIM_BITMAP_H
#define _SHIM_BITMAP_H

#include "base.h"

#define BITS_PER_LONG		(8 * sizeof(long))
#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)

static inline bool shim_test_bit(const unsigned long *map, unsigned long i)
{
	return map[i / BITS_PER_LONG] >> (i % BITS_PER_LONG) & 1;
}

static inline void bitmap_set(unsigned long *map, unsigned long start,
			      unsigned long n)
{
	for (; n && start % BITS_PER_LONG; start++, n--)
		map[start / BITS_PER_LONG] |= 1UL << (start % BITS_PER_LONG);
	for (; n >= BITS_PER_LONG; start += BITS_PER_LONG, n -= BITS_PER_LONG)
		map[start / BITS_PER_LONG] = ~0UL;
	for (; n; start++, n--)
		map[start / BITS_PER_LONG] |= 1UL << (start % BITS_PER_LONG);
}

static inline void bitmap_clear(unsigned long *map, unsigned long start,
				unsigned long n)
{
	for (; n && start % BITS_PER_LONG; start++, n--)
		map[start / BITS_PER_LONG] &= ~(1UL << (start % BITS_PER_LONG));
	for (; n >= BITS_PER_LONG; start += BITS_PER_LONG, n -= BITS_PER_LONG)
		map[start / BITS_PER_LONG] = 0;
	for (; n; start++, n--)
		map[start / BITS_PER_LONG] &= ~(1UL << (start % BITS_PER_LONG));
}

/* First bit equal to @want in [@from, @size), or @size. */
static inline unsigned long shim_find_bit(const unsigned long *map,
					  unsigned long size,
					  unsigned long from, bool want)
{
	unsigned long word;

	while (from < size) {
		word = map[from / BITS_PER_LONG];
		if (!want)
			word = ~word;
		word >>= from % BITS_PER_LONG;
		if (word) {
			from += __builtin_ctzl(word);
			return from < size ? from : size;
		}
		from = (from / BITS_PER_LONG + 1) * BITS_PER_LONG;
	}
	return size;
}

#define find_next_bit(map, size, from)	shim_find_bit((map), (size), (from), true)
#define find_next_zero_bit(map, size, from) \
	shim_find_bit((map), (size), (from), false)
#define find_first_bit(map, size)	find_next_bit((map), (size), 0)
#define find_first_zero_bit(map, size)	find_next_zero_bit((map), (size), 0)

#endif /* _SHIM_BITMAP_H */
