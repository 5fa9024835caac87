/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: see tools/testing/skiplist/shim/. */
#include "../../shim/base.h"
#define L1_CACHE_BYTES	64
#define prefetch(p)	__builtin_prefetch(p)
