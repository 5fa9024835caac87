// SPDX-License-Identifier: GPL-2.0
/*
 * The skiplist's tracepoints (trace/events/skiplist.h) are defined here,
 * once for the module, as CREATE_TRACE_POINTS asks.
 */
#define CREATE_TRACE_POINTS
#include <trace/events/skiplist.h>
