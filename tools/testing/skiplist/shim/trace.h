/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints in userspace, so that the project's trace headers
 * (skiplist/trace/events/skiplist.h and the others) compile here
 * unchanged, with no second copy of any event's prototype.
 *
 * Each event gives trace_<event>() and trace_<event>_enabled(), as in the
 * kernel.  While tracing is on (shim_trace_start()), an event fills in
 * its record, the TP_STRUCT__entry() of its class, with its own
 * TP_fast_assign(), counts itself, keeps a copy of the record of its last
 * firing and hands the record to shim_trace_hook, if set: a test can check
 * that a path fired its event, how often, and with which fields.  While
 * tracing is off (the default) an event costs one load and a branch; the
 * benchmarks' builds (SHIM_FAST) compile events out, as the kernel's
 * static branch leaves a disabled tracepoint a no-op.  TP_printk() is not
 * used here: tests read the fields.
 *
 * As in the kernel, the file that defines CREATE_TRACE_POINTS before it
 * includes a trace header (one per module: skiplist/trace.c, ...) holds
 * the events' storage: here, each event's count and last record
 * (include/trace/define_trace.h).
 */
#ifndef _SHIM_TRACE_H
#define _SHIM_TRACE_H

#include <pthread.h>
#include "base.h"

/* The largest record an event may have; events with more fail to build. */
#define SHIM_TRACE_RECORD_MAX	128

/**
 * struct shim_trace_event - an event's storage
 * @name:  the event's name
 * @count: how often it fired while tracing was on
 * @size:  the size of its record
 * @last:  the record of its last firing
 */
struct shim_trace_event {
	const char *name;
	unsigned long count;
	size_t size;
	unsigned char last[SHIM_TRACE_RECORD_MAX];
};

/* Tracing on (nonzero) or off; only shim_trace_start()/stop() change it. */
extern int shim_trace_on;

/* Called with every record while tracing is on, if set. */
extern void (*shim_trace_hook)(const struct shim_trace_event *event,
			       const void *record);

void shim_trace_start(void);
void shim_trace_stop(void);
void shim_trace_record(struct shim_trace_event *event, const void *record,
		       size_t size);

/* How often @name fired while tracing was on. */
#define shim_trace_count(name) \
	__atomic_load_n(&shim_trace_event_##name.count, __ATOMIC_RELAXED)

/*
 * The record of the last firing of @name, of type shim_trace_rec_<name>,
 * copied to *@rec; false if it never fired.
 */
#define shim_trace_last(name, rec)					\
	shim_trace_copy_last(&shim_trace_event_##name, (rec),		\
			     sizeof(shim_trace_rec_##name))
bool shim_trace_copy_last(struct shim_trace_event *event, void *rec,
			  size_t size);

/* Whether @event is the storage of the event @name, for hooks. */
#define shim_trace_is(event, name)	((event) == &shim_trace_event_##name)

/* The parts of an event's definition, as the kernel's headers spell them. */
#define PARAMS(args...)			args
#define TP_PROTO(args...)		args
#define TP_ARGS(args...)		args
#define TP_CONDITION(args...)		args
#define TP_STRUCT__entry(args...)	args
#define TP_fast_assign(args...)		args
#define TP_printk(fmt, args...)
#define TRACE_DEFINE_ENUM(x)
#define __field(type, item)		type item;
#define __field_struct(type, item)	type item;
#define __array(type, item, len)	type item[len];
#define __entry				shim_entry

#endif /* _SHIM_TRACE_H */
