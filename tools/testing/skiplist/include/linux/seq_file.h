/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: see tools/testing/skiplist/shim/. */
#include "../../shim/debugfs.h"
