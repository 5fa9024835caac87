/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: the kernel's little-endian conversions.  The tests run
 * on little-endian machines only, as the build checks.
 */
#ifndef _SHIM_ASM_BYTEORDER_H
#define _SHIM_ASM_BYTEORDER_H

#include <linux/types.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the userspace shim assumes a little-endian machine"
#endif

#define cpu_to_le16(x)	((__le16)(u16)(x))
#define cpu_to_le32(x)	((__le32)(u32)(x))
#define cpu_to_le64(x)	((__le64)(u64)(x))
#define le16_to_cpu(x)	((u16)(x))
#define le32_to_cpu(x)	((u32)(x))
#define le64_to_cpu(x)	((u64)(x))

#endif /* _SHIM_ASM_BYTEORDER_H */
