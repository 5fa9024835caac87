/* SPDX-License-Identifier: GPL-2.0 */
/* Native build: the UAPI header of the same name, and offsetof() and NULL. */
#include_next <linux/stddef.h>
#include <stddef.h>
