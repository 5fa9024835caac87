// SPDX-License-Identifier: GPL-2.0
/*
 * The range allocator's tracepoints (trace/events/sl_extent.h) are
 * defined here, once for sl_extent.ko, as CREATE_TRACE_POINTS asks.
 */
#define CREATE_TRACE_POINTS
#include <trace/events/sl_extent.h>
