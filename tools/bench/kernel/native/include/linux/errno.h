/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Native build: the kernel's errno values come from the UAPI header of the
 * same name (glibc includes it too); ENOTSUPP is in bench_native.h.
 */
#include_next <linux/errno.h>
