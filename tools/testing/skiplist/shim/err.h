/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: error pointers, as the kernel's <linux/err.h>. */
#ifndef _SHIM_ERR_H
#define _SHIM_ERR_H

#include "base.h"

#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	((unsigned long)(x) >= (unsigned long)-MAX_ERRNO)

static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return IS_ERR_VALUE(ptr);
}

static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return !ptr || IS_ERR_VALUE(ptr);
}

#endif /* _SHIM_ERR_H */
