/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the skiplist (skiplist.ko), in the "skiplist" system of
 * tracefs.  Every field and its meaning is listed in
 * Documentation/tracing.rst.
 *
 * What a disabled event costs is its static branch: the lookup and
 * insert events, which carry a latency, take their timestamps only when
 * they are enabled (search.c, insert.c).  Lists are named by their
 * address, printed hashed (%p), as the list's debugfs stats show it
 * ("id"), so that a trace and debugfs can be matched.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM skiplist

#if !defined(_TRACE_SKIPLIST_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SKIPLIST_H

#include <linux/types.h>
#include <linux/tracepoint.h>

struct sl_list;

/* sl_read_retry's @where: which snapshot did not hold. */
#define SL_TRACE_RETRY_LOCATE	0	/* locating the leaf of a key */
#define SL_TRACE_RETRY_LOOKUP	1	/* sl_lookup()'s answer */
#define SL_TRACE_RETRY_OVERLAP	2	/* sl_first_overlap()'s answer */
#define SL_TRACE_RETRY_ITER	3	/* an iterator's step */

/* sl_gap_retry's @why. */
#define SL_TRACE_GAP_RELINKED	0	/* a link changed under a gap search */
#define SL_TRACE_GAP_SEALED	1	/* a raise met a link unlinked since */
#define SL_TRACE_GAP_TIGHTEN_LOST 2	/* a raise beat a tightening's store */
#define SL_TRACE_GAP_HOLE_TAKEN	3	/* another writer took the hole found */

/* sl_dir_rebuild's @outcome. */
#define SL_TRACE_DIR_PUBLISHED	0	/* a new directory is out */
#define SL_TRACE_DIR_NONE	1	/* too few leaves: no directory */
#define SL_TRACE_DIR_NOMEM	2	/* no memory: the old one stays */
#define SL_TRACE_DIR_OUTGROWN	3	/* the list outgrew the count: again */

TRACE_EVENT(sl_lookup,
	TP_PROTO(const struct sl_list *list, unsigned long key, bool found,
		 u64 ns),
	TP_ARGS(list, key, found, ns),
	TP_STRUCT__entry(
		__field(const void *, list)
		__field(unsigned long, key)
		__field(u64, ns)
		__field(bool, found)
	),
	TP_fast_assign(
		__entry->list = list;
		__entry->key = key;
		__entry->ns = ns;
		__entry->found = found;
	),
	TP_printk("list=%p key=%#lx found=%u ns=%llu", __entry->list,
		  __entry->key, __entry->found, __entry->ns)
);

TRACE_EVENT(sl_insert,
	TP_PROTO(const struct sl_list *list, unsigned long key,
		 unsigned long size, int ret, u64 ns),
	TP_ARGS(list, key, size, ret, ns),
	TP_STRUCT__entry(
		__field(const void *, list)
		__field(unsigned long, key)
		__field(unsigned long, size)
		__field(u64, ns)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->list = list;
		__entry->key = key;
		__entry->size = size;
		__entry->ns = ns;
		__entry->ret = ret;
	),
	TP_printk("list=%p key=%#lx size=%#lx ret=%d ns=%llu", __entry->list,
		  __entry->key, __entry->size, __entry->ret, __entry->ns)
);

TRACE_EVENT(sl_erase,
	TP_PROTO(const struct sl_list *list, unsigned long key,
		 unsigned long size, bool found),
	TP_ARGS(list, key, size, found),
	TP_STRUCT__entry(
		__field(const void *, list)
		__field(unsigned long, key)
		__field(unsigned long, size)
		__field(bool, found)
	),
	TP_fast_assign(
		__entry->list = list;
		__entry->key = key;
		__entry->size = size;
		__entry->found = found;
	),
	TP_printk("list=%p key=%#lx size=%#lx found=%u", __entry->list,
		  __entry->key, __entry->size, __entry->found)
);

TRACE_EVENT(sl_insert_hole,
	TP_PROTO(const struct sl_list *list, unsigned long size,
		 unsigned long align, unsigned long min, unsigned long max,
		 unsigned long hint, unsigned long start, int ret,
		 unsigned int levels, unsigned long visits, unsigned int tries,
		 u64 ns),
	TP_ARGS(list, size, align, min, max, hint, start, ret, levels, visits,
		tries, ns),
	TP_STRUCT__entry(
		__field(const void *, list)
		__field(unsigned long, size)
		__field(unsigned long, align)
		__field(unsigned long, min)
		__field(unsigned long, max)
		__field(unsigned long, hint)
		__field(unsigned long, start)
		__field(unsigned long, visits)
		__field(u64, ns)
		__field(int, ret)
		__field(unsigned int, levels)
		__field(unsigned int, tries)
	),
	TP_fast_assign(
		__entry->list = list;
		__entry->size = size;
		__entry->align = align;
		__entry->min = min;
		__entry->max = max;
		__entry->hint = hint;
		__entry->start = start;
		__entry->visits = visits;
		__entry->ns = ns;
		__entry->ret = ret;
		__entry->levels = levels;
		__entry->tries = tries;
	),
	TP_printk("list=%p size=%#lx align=%#lx min=%#lx max=%#lx hint=%#lx start=%#lx ret=%d levels=%u visits=%lu tries=%u ns=%llu",
		  __entry->list, __entry->size, __entry->align, __entry->min,
		  __entry->max, __entry->hint, __entry->start, __entry->ret,
		  __entry->levels, __entry->visits, __entry->tries,
		  __entry->ns)
);

/* A split (the new leaf is the right one) or a merge (right into left). */
DECLARE_EVENT_CLASS(sl_leaf_change,
	TP_PROTO(const struct sl_list *list, unsigned long lo,
		 unsigned long right_lo, unsigned int left_nr,
		 unsigned int right_nr, unsigned int right_height),
	TP_ARGS(list, lo, right_lo, left_nr, right_nr, right_height),
	TP_STRUCT__entry(
		__field(const void *, list)
		__field(unsigned long, lo)
		__field(unsigned long, right_lo)
		__field(unsigned int, left_nr)
		__field(unsigned int, right_nr)
		__field(unsigned int, right_height)
	),
	TP_fast_assign(
		__entry->list = list;
		__entry->lo = lo;
		__entry->right_lo = right_lo;
		__entry->left_nr = left_nr;
		__entry->right_nr = right_nr;
		__entry->right_height = right_height;
	),
	TP_printk("list=%p lo=%#lx right_lo=%#lx left_nr=%u right_nr=%u right_height=%u",
		  __entry->list, __entry->lo, __entry->right_lo,
		  __entry->left_nr, __entry->right_nr, __entry->right_height)
);

DEFINE_EVENT(sl_leaf_change, sl_leaf_split,
	TP_PROTO(const struct sl_list *list, unsigned long lo,
		 unsigned long right_lo, unsigned int left_nr,
		 unsigned int right_nr, unsigned int right_height),
	TP_ARGS(list, lo, right_lo, left_nr, right_nr, right_height)
);

DEFINE_EVENT(sl_leaf_change, sl_leaf_merge,
	TP_PROTO(const struct sl_list *list, unsigned long lo,
		 unsigned long right_lo, unsigned int left_nr,
		 unsigned int right_nr, unsigned int right_height),
	TP_ARGS(list, lo, right_lo, left_nr, right_nr, right_height)
);

TRACE_EVENT(sl_dir_rebuild,
	TP_PROTO(const struct sl_list *list, unsigned long leaves,
		 unsigned long entries, unsigned long bytes,
		 unsigned int outcome, u64 ns),
	TP_ARGS(list, leaves, entries, bytes, outcome, ns),
	TP_STRUCT__entry(
		__field(const void *, list)
		__field(unsigned long, leaves)
		__field(unsigned long, entries)
		__field(unsigned long, bytes)
		__field(u64, ns)
		__field(unsigned int, outcome)
	),
	TP_fast_assign(
		__entry->list = list;
		__entry->leaves = leaves;
		__entry->entries = entries;
		__entry->bytes = bytes;
		__entry->ns = ns;
		__entry->outcome = outcome;
	),
	TP_printk("list=%p leaves=%lu entries=%lu bytes=%lu outcome=%s ns=%llu",
		  __entry->list, __entry->leaves, __entry->entries,
		  __entry->bytes,
		  __print_symbolic(__entry->outcome,
				   { SL_TRACE_DIR_PUBLISHED, "published" },
				   { SL_TRACE_DIR_NONE, "none" },
				   { SL_TRACE_DIR_NOMEM, "nomem" },
				   { SL_TRACE_DIR_OUTGROWN, "outgrown" }),
		  __entry->ns)
);

TRACE_EVENT(sl_gap_retry,
	TP_PROTO(const struct sl_list *list, unsigned int level,
		 unsigned int why),
	TP_ARGS(list, level, why),
	TP_STRUCT__entry(
		__field(const void *, list)
		__field(unsigned int, level)
		__field(unsigned int, why)
	),
	TP_fast_assign(
		__entry->list = list;
		__entry->level = level;
		__entry->why = why;
	),
	TP_printk("list=%p level=%u why=%s", __entry->list, __entry->level,
		  __print_symbolic(__entry->why,
				   { SL_TRACE_GAP_RELINKED, "relinked" },
				   { SL_TRACE_GAP_SEALED, "sealed" },
				   { SL_TRACE_GAP_TIGHTEN_LOST, "tighten_lost" },
				   { SL_TRACE_GAP_HOLE_TAKEN, "hole_taken" }))
);

TRACE_EVENT(sl_read_retry,
	TP_PROTO(const struct sl_list *list, unsigned long key,
		 unsigned long lo, unsigned int where),
	TP_ARGS(list, key, lo, where),
	TP_STRUCT__entry(
		__field(const void *, list)
		__field(unsigned long, key)
		__field(unsigned long, lo)
		__field(unsigned int, where)
	),
	TP_fast_assign(
		__entry->list = list;
		__entry->key = key;
		__entry->lo = lo;
		__entry->where = where;
	),
	TP_printk("list=%p key=%#lx lo=%#lx where=%s", __entry->list,
		  __entry->key, __entry->lo,
		  __print_symbolic(__entry->where,
				   { SL_TRACE_RETRY_LOCATE, "locate" },
				   { SL_TRACE_RETRY_LOOKUP, "lookup" },
				   { SL_TRACE_RETRY_OVERLAP, "overlap" },
				   { SL_TRACE_RETRY_ITER, "iter" }))
);

#endif /* _TRACE_SKIPLIST_H */

/* Outside the guard, as every trace header: read again for the events. */
#include <trace/define_trace.h>
