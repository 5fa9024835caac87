/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim of <linux/stringify.h>: a macro's value as a string. */
#ifndef _SHIM_LINUX_STRINGIFY_H
#define _SHIM_LINUX_STRINGIFY_H

#define __stringify_1(x...)	#x
#define __stringify(x...)	__stringify_1(x)

#endif /* _SHIM_LINUX_STRINGIFY_H */
