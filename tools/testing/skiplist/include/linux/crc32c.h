/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the kernel's crc32c() (shim/crc32c.c). */
#ifndef _SHIM_LINUX_CRC32C_H
#define _SHIM_LINUX_CRC32C_H

#include <linux/types.h>

u32 crc32c(u32 crc, const void *address, unsigned int length);

#endif /* _SHIM_LINUX_CRC32C_H */
