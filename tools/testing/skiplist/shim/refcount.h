/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reference counts as the kernel's <linux/refcount.h> has them, with what
 * the kernel only warns about made fatal: an increment from zero (the
 * object may already be freed: use refcount_inc_not_zero() to take a
 * reference on an object found without one), a decrement below zero, and
 * a count about to overflow.  Increments are relaxed, and a decrement
 * orders everything before it ahead of the free that a decrement to zero
 * leads to, as the kernel's release-acquire contract says.
 */
#ifndef _SHIM_REFCOUNT_H
#define _SHIM_REFCOUNT_H

#include "base.h"

typedef struct {
	int refs;
} refcount_t;

#define REFCOUNT_INIT(n)	{ .refs = (n) }
#define SHIM_REFCOUNT_MAX	(INT_MAX / 2)

static inline void refcount_set(refcount_t *r, int n)
{
	__atomic_store_n(&r->refs, n, __ATOMIC_RELAXED);
}

static inline unsigned int refcount_read(const refcount_t *r)
{
	return __atomic_load_n(&r->refs, __ATOMIC_RELAXED);
}

static inline void refcount_inc(refcount_t *r)
{
	int old = __atomic_fetch_add(&r->refs, 1, __ATOMIC_RELAXED);

	SHIM_ASSERT(old > 0, "refcount_inc of zero: use after free");
	SHIM_ASSERT(old < SHIM_REFCOUNT_MAX, "refcount overflow");
}

static inline bool refcount_inc_not_zero(refcount_t *r)
{
	int old = __atomic_load_n(&r->refs, __ATOMIC_RELAXED);

	do {
		if (!old)
			return false;
		SHIM_ASSERT(old > 0 && old < SHIM_REFCOUNT_MAX,
			    "refcount_inc_not_zero of a bad count");
	} while (!__atomic_compare_exchange_n(&r->refs, &old, old + 1, false,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

static inline bool refcount_dec_and_test(refcount_t *r)
{
	int old = __atomic_fetch_sub(&r->refs, 1, __ATOMIC_RELEASE);

	SHIM_ASSERT(old > 0, "refcount_dec below zero");
	if (old == 1) {
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		return true;
	}
	return false;
}

static inline void refcount_dec(refcount_t *r)
{
	int old = __atomic_fetch_sub(&r->refs, 1, __ATOMIC_RELEASE);

	SHIM_ASSERT(old > 1, "refcount_dec to zero (the last reference must free)");
}

#endif /* _SHIM_REFCOUNT_H */
