/* SPDX-License-Identifier: GPL-2.0 */
/* Monotonic time in nanoseconds, as the kernel's ktime_get_ns(); ktime_t. */
#ifndef _SHIM_KTIME_H
#define _SHIM_KTIME_H

#include <time.h>
#include "base.h"

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL

typedef s64 ktime_t;

static inline ktime_t ns_to_ktime(u64 ns)
{
	return (ktime_t)ns;
}

static inline u64 ktime_get_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

#endif /* _SHIM_KTIME_H */
