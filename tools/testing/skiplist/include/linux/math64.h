/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace <linux/math64.h>: 64-bit division helpers, exact. */
#ifndef _SHIM_LINUX_MATH64_H
#define _SHIM_LINUX_MATH64_H

#include <linux/types.h>

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

/* a * b / c without overflow in the product, as the kernel's. */
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)((unsigned __int128)a * b / c);
}

#endif /* _SHIM_LINUX_MATH64_H */
