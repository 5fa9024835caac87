/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of the kernel's <trace/define_trace.h>: in the one file
 * of a module that defines CREATE_TRACE_POINTS before it includes its
 * trace header, read that header again and make each event's storage
 * (tools/testing/skiplist/shim/trace.h), as the kernel makes each
 * tracepoint there.  No include guard, as in the kernel: every trace
 * header includes it at its end.
 */
#ifdef CREATE_TRACE_POINTS

/* Prevent recursion: the header read again includes this file again. */
#undef CREATE_TRACE_POINTS

#include <linux/stringify.h>

#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef TRACE_EVENT
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(template, event, proto, args)			\
	struct shim_trace_event shim_trace_event_##event = { .name = #event };
#define TRACE_EVENT(event, proto, args, tstruct, assign, print)		\
	DEFINE_EVENT(event, event, PARAMS(proto), PARAMS(args))

#ifndef TRACE_INCLUDE_FILE
# define TRACE_INCLUDE_FILE TRACE_SYSTEM
# define UNDEF_TRACE_INCLUDE_FILE
#endif
#ifndef TRACE_INCLUDE_PATH
# define __TRACE_INCLUDE(system) <trace/events/system.h>
# define UNDEF_TRACE_INCLUDE_PATH
#else
# define __TRACE_INCLUDE(system) __stringify(TRACE_INCLUDE_PATH/system.h)
#endif
#define TRACE_INCLUDE(system) __TRACE_INCLUDE(system)

#define TRACE_HEADER_MULTI_READ
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)
#undef TRACE_HEADER_MULTI_READ

/* Back to declaring events, for any trace header read after this one. */
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef TRACE_EVENT
#include <linux/tracepoint.h>

#undef TRACE_INCLUDE
#undef __TRACE_INCLUDE
#ifdef UNDEF_TRACE_INCLUDE_FILE
# undef TRACE_INCLUDE_FILE
# undef UNDEF_TRACE_INCLUDE_FILE
#endif
#ifdef UNDEF_TRACE_INCLUDE_PATH
# undef TRACE_INCLUDE_PATH
# undef UNDEF_TRACE_INCLUDE_PATH
#endif

/* We may be processing more files. */
#define CREATE_TRACE_POINTS

#endif /* CREATE_TRACE_POINTS */
