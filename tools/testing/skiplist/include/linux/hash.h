/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: see tools/testing/skiplist/shim/. */
#ifndef _SHIM_LINUX_HASH_H
#define _SHIM_LINUX_HASH_H

#include "../../shim/base.h"

/* Multiplicative hashing by the 64-bit golden ratio, as the kernel's. */
static inline unsigned int hash_long(unsigned long val, unsigned int bits)
{
	return (unsigned int)((val * 0x61c8864680b583ebull) >> (64 - bits));
}

static inline u32 hash_64(u64 val, unsigned int bits)
{
	return (u32)((val * 0x61c8864680b583ebull) >> (64 - bits));
}

#endif /* _SHIM_LINUX_HASH_H */
