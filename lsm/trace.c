// SPDX-License-Identifier: GPL-2.0
/*
 * The store's tracepoints (trace/events/sl_lsm.h) are defined here, once
 * for sl_lsm.ko (and once for the store's userspace library), as
 * CREATE_TRACE_POINTS asks.
 */
#define CREATE_TRACE_POINTS
#include <trace/events/sl_lsm.h>
