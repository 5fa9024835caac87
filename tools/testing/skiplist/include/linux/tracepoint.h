/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim of the kernel's tracepoints: see tools/testing/skiplist/
 * shim/trace.h.  As in the kernel's <linux/tracepoint.h>, the macros that
 * declare events sit outside the include guard: trace/define_trace.h
 * redefines them to make each event's storage, and includes this file
 * again to put them back.
 */
#include "../../shim/trace.h"

#ifndef TRACE_EVENT

/* A class: its record, and the function that fills it in. */
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)	\
	struct shim_trace_entry_##name { tstruct };			\
	static inline void shim_trace_assign_##name(			\
		struct shim_trace_entry_##name *shim_entry, proto)	\
	{								\
		assign							\
	}

/*
 * The benchmarks (SHIM_FAST) compile events out, unless built with
 * SHIM_FAST_TRACE, which keeps each disabled event's load and branch: a
 * bound on what a disabled event costs, since the kernel's static branch
 * costs less (a no-op instruction, no load).
 */
#if defined(SHIM_FAST) && !defined(SHIM_FAST_TRACE)
#define DEFINE_EVENT(template, name, proto, args)			\
	typedef struct shim_trace_entry_##template shim_trace_rec_##name; \
	static inline bool trace_##name##_enabled(void)			\
	{								\
		return false;						\
	}								\
	static inline void trace_##name(proto)				\
	{								\
	}
#else
#define DEFINE_EVENT(template, name, proto, args)			\
	extern struct shim_trace_event shim_trace_event_##name;		\
	typedef struct shim_trace_entry_##template shim_trace_rec_##name; \
	static inline bool trace_##name##_enabled(void)			\
	{								\
		return unlikely(__atomic_load_n(&shim_trace_on,		\
						__ATOMIC_RELAXED));	\
	}								\
	static inline void trace_##name(proto)				\
	{								\
		if (trace_##name##_enabled()) {				\
			struct shim_trace_entry_##template shim_rec;	\
									\
			_Static_assert(sizeof(shim_rec) <=		\
				       SHIM_TRACE_RECORD_MAX,		\
				       "record of " #name);		\
			memset(&shim_rec, 0, sizeof(shim_rec));		\
			shim_trace_assign_##template(&shim_rec, args);	\
			shim_trace_record(&shim_trace_event_##name,	\
					  &shim_rec, sizeof(shim_rec));	\
		}							\
	}
#endif

#define TRACE_EVENT(name, proto, args, tstruct, assign, print)		\
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args),		\
			    PARAMS(tstruct), PARAMS(assign), print)	\
	DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))

#endif /* TRACE_EVENT */
