/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' random numbers: xorshift64, cheap, and the same sequence
 * from the same --seed on every machine, so a failure's seed reproduces
 * it.  The state must not be 0.
 */
#ifndef _LSM_TEST_RND_H
#define _LSM_TEST_RND_H

#include <linux/types.h>

static inline u64 xorshift64(u64 *state)
{
	u64 x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

#endif /* _LSM_TEST_RND_H */
