/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: see tools/testing/skiplist/shim/. */
#include "../../shim/base.h"
#ifndef static_assert
#define static_assert(expr, ...)	_Static_assert(expr, #expr)
#endif
