/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the uapi types first, for system headers that want them. */
#include_next <linux/types.h>
#include "../../shim/base.h"
