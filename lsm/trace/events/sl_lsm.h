/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the extent store (sl_lsm.ko), in the "sl_lsm" system
 * of tracefs: memtables written out (flush), runs merged down the levels
 * (compaction), and writers held back (stall, slowdown).  Every field is
 * listed in Documentation/tracing.rst.  A store is named by its address,
 * printed hashed (%p); its debugfs "stats" file shows it ("id").
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sl_lsm

#if !defined(_TRACE_SL_LSM_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SL_LSM_H

#include <linux/types.h>
#include <linux/tracepoint.h>

struct lsm_store;

/* lsm_stall's @why: what the writer waited for. */
#define LSM_TRACE_STALL_MEMTABLES	0	/* max_immutables memtables */
#define LSM_TRACE_STALL_L0		1	/* l0_stop_runs runs in level 0 */
#define LSM_TRACE_STALL_PENDING		2	/* pending_stop_bytes of merges */

TRACE_EVENT(lsm_flush,
	TP_PROTO(const struct lsm_store *st, u64 run, u64 blocks, u64 pieces,
		 u64 last_seq, int err, u64 ns),
	TP_ARGS(st, run, blocks, pieces, last_seq, err, ns),
	TP_STRUCT__entry(
		__field(const void *, st)
		__field(u64, run)
		__field(u64, blocks)
		__field(u64, pieces)
		__field(u64, last_seq)
		__field(u64, ns)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->st = st;
		__entry->run = run;
		__entry->blocks = blocks;
		__entry->pieces = pieces;
		__entry->last_seq = last_seq;
		__entry->ns = ns;
		__entry->err = err;
	),
	TP_printk("st=%p run=%llu blocks=%llu pieces=%llu last_seq=%llu err=%d ns=%llu",
		  __entry->st, __entry->run, __entry->blocks, __entry->pieces,
		  __entry->last_seq, __entry->err, __entry->ns)
);

TRACE_EVENT(lsm_compaction,
	TP_PROTO(const struct lsm_store *st, unsigned int from,
		 unsigned int to, unsigned int runs_in, unsigned int runs_out,
		 bool move, u64 read_bytes, u64 write_bytes, int err, u64 ns),
	TP_ARGS(st, from, to, runs_in, runs_out, move, read_bytes, write_bytes,
		err, ns),
	TP_STRUCT__entry(
		__field(const void *, st)
		__field(u64, read_bytes)
		__field(u64, write_bytes)
		__field(u64, ns)
		__field(unsigned int, from)
		__field(unsigned int, to)
		__field(unsigned int, runs_in)
		__field(unsigned int, runs_out)
		__field(int, err)
		__field(bool, move)
	),
	TP_fast_assign(
		__entry->st = st;
		__entry->read_bytes = read_bytes;
		__entry->write_bytes = write_bytes;
		__entry->ns = ns;
		__entry->from = from;
		__entry->to = to;
		__entry->runs_in = runs_in;
		__entry->runs_out = runs_out;
		__entry->err = err;
		__entry->move = move;
	),
	TP_printk("st=%p from=%u to=%u runs_in=%u runs_out=%u move=%u read_bytes=%llu write_bytes=%llu err=%d ns=%llu",
		  __entry->st, __entry->from, __entry->to, __entry->runs_in,
		  __entry->runs_out, __entry->move, __entry->read_bytes,
		  __entry->write_bytes, __entry->err, __entry->ns)
);

TRACE_EVENT(lsm_stall,
	TP_PROTO(const struct lsm_store *st, unsigned int why, int err, u64 ns),
	TP_ARGS(st, why, err, ns),
	TP_STRUCT__entry(
		__field(const void *, st)
		__field(u64, ns)
		__field(unsigned int, why)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->st = st;
		__entry->ns = ns;
		__entry->why = why;
		__entry->err = err;
	),
	TP_printk("st=%p why=%s err=%d ns=%llu", __entry->st,
		  __print_symbolic(__entry->why,
				   { LSM_TRACE_STALL_MEMTABLES, "memtables" },
				   { LSM_TRACE_STALL_L0, "l0" },
				   { LSM_TRACE_STALL_PENDING, "pending" }),
		  __entry->err, __entry->ns)
);

TRACE_EVENT(lsm_slowdown,
	TP_PROTO(const struct lsm_store *st, u64 owed_ns, u64 ns),
	TP_ARGS(st, owed_ns, ns),
	TP_STRUCT__entry(
		__field(const void *, st)
		__field(u64, owed_ns)
		__field(u64, ns)
	),
	TP_fast_assign(
		__entry->st = st;
		__entry->owed_ns = owed_ns;
		__entry->ns = ns;
	),
	TP_printk("st=%p owed_ns=%llu ns=%llu", __entry->st, __entry->owed_ns,
		  __entry->ns)
);

#endif /* _TRACE_SL_LSM_H */

/* Outside the guard, as every trace header: read again for the events. */
#include <trace/define_trace.h>
