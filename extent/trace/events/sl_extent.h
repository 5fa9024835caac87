/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the range allocator (sl_extent.ko), in the "sl_extent"
 * system of tracefs: its per-CPU caches' hits and misses, and the
 * reclaims that take cached ranges back when a request finds no room.
 * Every field is listed in Documentation/tracing.rst.  An allocator is
 * named by its address, printed hashed (%p), as its debugfs "alloc" file
 * shows it ("id").
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sl_extent

#if !defined(_TRACE_SL_EXTENT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SL_EXTENT_H

#include <linux/types.h>
#include <linux/tracepoint.h>

struct sl_range_alloc;

TRACE_EVENT(sl_range_cache_hit,
	TP_PROTO(const struct sl_range_alloc *ra, unsigned long size,
		 unsigned long align, unsigned long start),
	TP_ARGS(ra, size, align, start),
	TP_STRUCT__entry(
		__field(const void *, ra)
		__field(unsigned long, size)
		__field(unsigned long, align)
		__field(unsigned long, start)
	),
	TP_fast_assign(
		__entry->ra = ra;
		__entry->size = size;
		__entry->align = align;
		__entry->start = start;
	),
	TP_printk("ra=%p size=%#lx align=%#lx start=%#lx", __entry->ra,
		  __entry->size, __entry->align, __entry->start)
);

TRACE_EVENT(sl_range_cache_miss,
	TP_PROTO(const struct sl_range_alloc *ra, unsigned long size,
		 unsigned long align),
	TP_ARGS(ra, size, align),
	TP_STRUCT__entry(
		__field(const void *, ra)
		__field(unsigned long, size)
		__field(unsigned long, align)
	),
	TP_fast_assign(
		__entry->ra = ra;
		__entry->size = size;
		__entry->align = align;
	),
	TP_printk("ra=%p size=%#lx align=%#lx", __entry->ra, __entry->size,
		  __entry->align)
);

TRACE_EVENT(sl_range_reclaim,
	TP_PROTO(const struct sl_range_alloc *ra, unsigned long first,
		 unsigned long last, unsigned long reclaimed),
	TP_ARGS(ra, first, last, reclaimed),
	TP_STRUCT__entry(
		__field(const void *, ra)
		__field(unsigned long, first)
		__field(unsigned long, last)
		__field(unsigned long, reclaimed)
	),
	TP_fast_assign(
		__entry->ra = ra;
		__entry->first = first;
		__entry->last = last;
		__entry->reclaimed = reclaimed;
	),
	TP_printk("ra=%p first=%#lx last=%#lx reclaimed=%lu", __entry->ra,
		  __entry->first, __entry->last, __entry->reclaimed)
);

#endif /* _TRACE_SL_EXTENT_H */

/* Outside the guard, as every trace header: read again for the events. */
#include <trace/define_trace.h>
