// SPDX-License-Identifier: GPL-2.0
/*
 * The store (store.h): writes through the log into the active memtable,
 * reads over all layers, open with recovery and close.  Memtables are
 * written out and runs merged down by the work items of store_work.c;
 * readers see layer sets (layers.c).  Documentation/lsm.rst has the
 * design; store_int.h has the locking.
 */
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "store_check.h"
#include "store_int.h"
#include "store_window.h"
#include <trace/events/sl_lsm.h>

#ifndef __KERNEL__
void (*lsm_window_hook)(struct lsm_store *st, enum lsm_window win);
#endif

#define LSM_DEFAULT_MEMTABLE	(64ULL << 20)
/*
 * Memtables this large bump-allocate their records (LSM_POOL_DEFAULT, the
 * arena: 248 bytes per 100-byte put against 336 in the doubling size
 * classes, Documentation/lsm-memory.rst).  An arena counts its 1 MiB
 * slabs whole, so a smaller memtable would be full at its first record;
 * from 16 slabs up the rounding costs at most a sixteenth of it.
 */
#define LSM_ARENA_MIN_MEMTABLE	(16ULL * LSM_POOL_SLAB_SIZE)
#define LSM_DEFAULT_IMMUTABLES	2
#define LSM_DEFAULT_COMMIT_MS	5000
#define LSM_DEFAULT_L0_COMPACT	4
#define LSM_DEFAULT_L0_SLOWDOWN	8
#define LSM_DEFAULT_L0_STOP	12
#define LSM_RUN_BYTES_MAX	(16ULL << 20)
#define LSM_DEFAULT_SLOW_RATE	(16ULL << 20)
/* A slowed writer sleeps once it owes this much. */
#define LSM_SLOW_SLEEP_NS	(1000 * 1000)

/**
 * lsm_store_fail() - turn the store read-only after a failed write or
 *                    flush of the device, or a merge that met damage
 * @st:  the store
 * @err: what failed, for the message
 *
 * Context: any.
 */
void lsm_store_fail(struct lsm_store *st, int err)
{
	if (!cmpxchg(&st->error, 0, -EIO))
		pr_err("lsm: %s: %s %d: the store is read-only now\n",
		       st->bdev->name,
		       err == -ENOMEM ? "out of memory, error" :
		       err == -EUCLEAN ? "damaged run, error" : "device error", err);
	wake_up_all(&st->wait);
}

/*
 * Make the active memtable immutable and start a new one; the work item
 * writes it out.  Called with the write mutex.
 */
static int lsm_store_switch(struct lsm_store *st)
{
	struct lsm_layers *cur = st->layers, *ls;
	struct lsm_layer *l;

	lockdep_assert_held(&st->write_mutex);
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	ls = lsm_layers_alloc(cur->nr + 1);
	if (!l || !ls)
		goto nomem;
	l->mt = lsm_mem_create(st->pool, GFP_KERNEL);
	if (!l->mt)
		goto nomem;
	ls->nr_imm = cur->nr_imm + 1;
	for (unsigned int k = 0; k < LSM_LEVELS; k++)
		ls->lv[k] = cur->lv[k] + 1;
	ls->l[0] = l;
	memcpy(&ls->l[1], &cur->l[0], cur->nr * sizeof(cur->l[0]));
	lsm_layers_publish(st, ls);
	/* During replay the work item waits until open is done. */
	if (st->started)
		queue_work(system_unbound_wq, &st->flush_work);
	return 0;
nomem:
	kfree(l);
	kfree(ls);
	return -ENOMEM;
}

/* Apply a write to the active memtable; with the write mutex. */
static int lsm_store_apply(struct lsm_store *st, u64 seq,
			   const struct lsm_op *ops, unsigned int n)
{
	struct lsm_layer *active = st->layers->l[0];
	int err;

	lockdep_assert_held(&st->write_mutex);
	for (unsigned int i = 0; i < n; i++) {
		struct lsm_extent ext = {
			.key = ops[i].key,
			.len = ops[i].len,
			.seq = seq,
			.flags = ops[i].kind == LSM_OP_DELETE ?
				 LSM_EXT_TOMBSTONE : 0,
			.vlen = ops[i].vlen,
			.value = ops[i].value,
		};

		err = lsm_mem_apply(active->mt, &ext, GFP_KERNEL);
		if (err)
			return err;
	}
	active->last_seq = seq;
	if (lsm_mem_bytes(active->mt) >= st->opt.memtable_bytes)
		return lsm_store_switch(st);
	return 0;
}

/* Record a new log segment durably and write into it from now on. */
static int lsm_store_new_segment(struct lsm_store *st)
{
	struct lsm_wal_seg seg = { .nr = st->sb.segment_blocks };
	struct lsm_edit *e;
	int err;

	lockdep_assert_held(&st->write_mutex);
	err = lsm_wal_seal(&st->wal);
	if (err)
		return err;
	/*
	 * A group commit's leader that sealed the log may still wait for
	 * its flush, the write mutex let go: were that flush to fail after
	 * the check of st->error below, the new segment would be recorded
	 * while the block the flush lost ends the log before it.  The
	 * leader does not need the write mutex to end.
	 */
	wait_event(st->commit_wait, !READ_ONCE(st->log_flush_out));
	e = lsm_edit_alloc(1);
	if (!e)
		return -ENOMEM;
	seg.first_seq = st->next_seq;
	mutex_lock(&st->manifest_mutex);
	lsm_store_reclaim(st);
	/*
	 * A group commit's flush may have failed since this writer passed
	 * the stall check: a failed store records nothing more (the log
	 * block that flush lost would end the log before the new segment).
	 * No leader's flush is out now (above): one that failed has failed
	 * the store.
	 */
	err = READ_ONCE(st->error) ? -EIO :
	      lsm_space_alloc(&st->space, seg.nr, &seg.start);
	if (!err) {
		seg.id = lsm_manifest_new_id(&st->m);
		lsm_edit_seg_add(e, &seg);
		err = lsm_manifest_commit(&st->m, e, st->m.persisted_seq);
		/* Refused with the manifest unchanged: the space is free. */
		if (err == -ENOSPC)
			lsm_space_free(&st->space, seg.start, seg.nr);
	}
	mutex_unlock(&st->manifest_mutex);
	lsm_edit_free(e);
	if (!err)
		lsm_wal_begin(&st->wal, &seg);
	return err;
}

/* Check a write's operations before anything is applied. */
static int lsm_store_check_ops(const struct lsm_op *ops, unsigned int n)
{
	if (!n || !ops)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++) {
		const struct lsm_op *o = &ops[i];

		if (!o->len || o->key + (o->len - 1) < o->key ||
		    o->vlen > LSM_VALUE_MAX || (o->vlen && !o->value))
			return -EINVAL;
		if (o->kind == LSM_OP_DELETE ? o->vlen : o->kind != LSM_OP_PUT)
			return -EINVAL;
	}
	return 0;
}

/* A synchronous writer's record is in the log: a gathering leader counts it. */
static void lsm_store_appended(struct lsm_store *st)
{
	bool gathering;

	spin_lock(&st->commit_lock);
	gathering = st->gathering;
	spin_unlock(&st->commit_lock);
	if (gathering)
		wake_up(&st->gather_wait);
}

/*
 * Whether the log holds @want records past the durable mark (a leader
 * calls this: the mark cannot move meanwhile), or the store has failed.
 */
static bool lsm_store_gathered(struct lsm_store *st, u64 want)
{
	return READ_ONCE(st->next_seq) - 1 - READ_ONCE(st->durable_seq) >= want ||
	       READ_ONCE(st->error);
}

/*
 * A gathering leader waits at most half its last flush, and never more
 * than LSM_GATHER_MAX_NS, so that one flush slowed by the device (an
 * error retried) does not hold the next ones up as long; nor does it
 * wait when half a flush is below LSM_GATHER_MIN_NS, where the timer's
 * slack (50 us by default) would outlast the flush itself.
 */
#define LSM_GATHER_MAX_NS	NSEC_PER_MSEC
#define LSM_GATHER_MIN_NS	(20 * NSEC_PER_USEC)

/*
 * Before a synchronous writer, as leader, seals: the other synchronous
 * writers on their way to the log, or coming back with their next
 * write, would each lead a flush of their own right after this one, so
 * wait for them to join it.  The leader waits until the log holds as
 * many records past the durable mark as there are synchronous writers
 * in the store, or as the last flush covered of those in the store when
 * it sealed (the writers it woke, most of which write again), and no
 * longer than half the last flush took: a writer that does not come
 * costs little.  A writer alone waits once at most, the first time
 * after a flush that covered others; then its own record is the one
 * wanted.
 */
static void lsm_store_gather(struct lsm_store *st)
{
	u64 want, wait_ns;
	bool gathering;

	spin_lock(&st->commit_lock);
	want = max_t(u64, st->sync_writers, st->last_group);
	wait_ns = min_t(u64, st->flush_ns / 2, LSM_GATHER_MAX_NS);
	gathering = want > 1 && wait_ns >= LSM_GATHER_MIN_NS;
	st->gathering = gathering;
	spin_unlock(&st->commit_lock);
	if (gathering)
		wait_event_hrtimeout(st->gather_wait,
				     lsm_store_gathered(st, want),
				     ns_to_ktime(wait_ns));
	spin_lock(&st->commit_lock);
	st->gathering = false;
	st->seal_writers = st->sync_writers;
	spin_unlock(&st->commit_lock);
}

/* Whether a writer waiting for @seq has something to do. */
static bool lsm_store_commit_turn(struct lsm_store *st, u64 seq)
{
	return READ_ONCE(st->durable_seq) >= seq ||
	       !READ_ONCE(st->committing) || READ_ONCE(st->error);
}

/*
 * Group commit: make every write up to @seq durable, sharing one flush
 * among the writers that need it.  At most one flush of the log runs at
 * a time, led by the writer that found none running.  Writers arriving
 * while it runs have already appended their records to the open log
 * block; they wait.  When the flush ends its leader wakes them all:
 * those it covered return its result, and the first of the others to
 * run leads the next flush, which seals and covers every record
 * appended by then.  Before it seals, a leader that is a synchronous
 * writer (@gather) and not alone waits a little for the others to join
 * (lsm_store_gather()); a sync, the timed commit and close never wait.
 *
 * A failed seal or flush turns the store read-only before the waiters
 * wake, so that every writer it covered, and every later one, sees
 * -EIO; the durable mark never moves past a failed flush, nor past a
 * failed PREFLUSH of a manifest write made before the flush ended.
 */
static int lsm_store_commit(struct lsm_store *st, u64 seq, bool gather)
{
	u64 upto, start, took = 0;
	int err;

	spin_lock(&st->commit_lock);
	for (;;) {
		if (st->durable_seq >= seq) {
			st->group_writers++;
			spin_unlock(&st->commit_lock);
			return 0;
		}
		if (READ_ONCE(st->error)) {
			spin_unlock(&st->commit_lock);
			return -EIO;
		}
		if (!st->committing)
			break;
		spin_unlock(&st->commit_lock);
		wait_event(st->commit_wait, lsm_store_commit_turn(st, seq));
		spin_lock(&st->commit_lock);
	}
	/* Lead: writers arriving from now on wait for this flush to end. */
	WRITE_ONCE(st->committing, true);
	spin_unlock(&st->commit_lock);

	if (gather)
		lsm_store_gather(st);
	mutex_lock(&st->write_mutex);
	WRITE_ONCE(st->log_flush_out, true);
	upto = st->next_seq - 1;
	err = READ_ONCE(st->error);
	if (!err)
		err = lsm_wal_seal(&st->wal);
	mutex_unlock(&st->write_mutex);
	if (!err) {
		start = ktime_get_ns();
		err = st->bdev->ops->flush(st->bdev);
		took = ktime_get_ns() - start;
	}
	if (!err) {
		/*
		 * A manifest write's PREFLUSH that failed before this flush
		 * ended may have lost the sealed blocks, which this flush
		 * cannot bring back.  Manifest writes happen under the
		 * manifest mutex and a failed one latches @m.failed: wait
		 * out the one in flight, then ask.
		 */
		mutex_lock(&st->manifest_mutex);
		if (st->m.failed)
			err = -EIO;
		mutex_unlock(&st->manifest_mutex);
	}
	if (err)
		lsm_store_fail(st, err);

	spin_lock(&st->commit_lock);
	if (!err) {
		/*
		 * Writers, not records: a write that was not synchronous
		 * has nobody coming back to wait for.
		 */
		st->last_group = min_t(u64, upto - st->durable_seq,
				       st->seal_writers);
		st->flush_ns = took;
		WRITE_ONCE(st->durable_seq, upto);
		st->group_commits++;
		st->group_writers++;
	}
	WRITE_ONCE(st->log_flush_out, false);
	WRITE_ONCE(st->committing, false);
	spin_unlock(&st->commit_lock);
	wake_up_all(&st->commit_wait);
	return err ? -EIO : 0;
}

/*
 * Whether merges are so far behind that writers must wait (@stop) or be
 * slowed: level 0's runs or the estimated backlog at the limit.
 */
static bool lsm_store_merges_behind(struct lsm_store *st, bool stop)
{
	unsigned int l0 = READ_ONCE(st->l0_runs);
	u64 pending = READ_ONCE(st->pending_bytes);

	if (stop)
		return l0 >= st->opt.l0_stop_runs ||
		       pending >= st->opt.pending_stop_bytes;
	return l0 >= st->opt.l0_slowdown_runs ||
	       pending >= st->opt.pending_slowdown_bytes;
}

/* Whether a writer must wait: memtables, or merges, too far behind. */
static bool lsm_store_must_wait(struct lsm_store *st)
{
	return READ_ONCE(st->nr_imm) >= st->opt.max_immutables ||
	       lsm_store_merges_behind(st, true);
}

/* Whether what a writer waits for failed for lack of space. */
static bool lsm_store_no_room(struct lsm_store *st)
{
	if (READ_ONCE(st->nr_imm) >= st->opt.max_immutables)
		return READ_ONCE(st->flush_error) == -ENOSPC;
	return READ_ONCE(st->compact_error) == -ENOSPC;
}

/* What a writer that must wait waits for, for its event. */
static unsigned int lsm_store_wait_reason(struct lsm_store *st)
{
	if (READ_ONCE(st->nr_imm) >= st->opt.max_immutables)
		return LSM_TRACE_STALL_MEMTABLES;
	if (READ_ONCE(st->l0_runs) >= st->opt.l0_stop_runs)
		return LSM_TRACE_STALL_L0;
	return LSM_TRACE_STALL_PENDING;
}

/*
 * Wait, with the write mutex held on entry and on return, until the
 * write may go on: 0, or -EROFS once the store failed, or -ENOSPC when
 * the merge it waits for cannot find the space to run.  Each wait is a
 * stall, counted and timed.
 */
static int lsm_store_stall(struct lsm_store *st)
{
	unsigned int why = 0;
	u64 t0 = 0;
	int err = 0;

	lockdep_assert_held(&st->write_mutex);
	while (!READ_ONCE(st->error) && lsm_store_must_wait(st)) {
		if (lsm_store_no_room(st)) {
			/* Space may have come back: the next write retries. */
			queue_work(system_unbound_wq, &st->flush_work);
			queue_work(system_unbound_wq, &st->compact_work);
			err = -ENOSPC;
			break;
		}
		mutex_unlock(&st->write_mutex);
		if (!t0) {
			t0 = ktime_get_ns();
			why = lsm_store_wait_reason(st);
		}
		wait_event(st->wait, READ_ONCE(st->error) ||
			   !lsm_store_must_wait(st) || lsm_store_no_room(st));
		mutex_lock(&st->write_mutex);
	}
	if (READ_ONCE(st->error))
		err = -EROFS;
	if (t0) {
		u64 ns = ktime_get_ns() - t0;

		st->stalls++;
		st->stall_ns += ns;
		trace_lsm_stall(st, why, err, ns);
	}
	return err;
}

/*
 * With merges falling behind, hold writers to slowdown_bytes_per_sec:
 * each slowed write owes the time its bytes take at that rate, and the
 * writer that brings the debt to a millisecond sleeps it off (after its
 * write, so without the mutex).  Returns the nanoseconds to sleep.
 */
static u64 lsm_store_slow_debt(struct lsm_store *st, u64 bytes)
{
	u64 ns;

	lockdep_assert_held(&st->write_mutex);
	if (!lsm_store_merges_behind(st, false)) {
		st->slow_debt_ns = 0;
		return 0;
	}
	st->slow_debt_ns += div64_u64(bytes * 1000000000ULL,
				      st->opt.slowdown_bytes_per_sec);
	if (st->slow_debt_ns < LSM_SLOW_SLEEP_NS)
		return 0;
	ns = st->slow_debt_ns;
	st->slow_debt_ns = 0;
	return ns;
}

static void lsm_store_slow_down(struct lsm_store *st, u64 ns)
{
	u64 t0 = ktime_get_ns();

	usleep_range(div64_u64(ns, 1000), div64_u64(ns, 1000) + 100);
	mutex_lock(&st->write_mutex);
	st->slowdowns++;
	st->slowdown_ns += ktime_get_ns() - t0;
	mutex_unlock(&st->write_mutex);
	if (trace_lsm_slowdown_enabled())
		trace_lsm_slowdown(st, ns, ktime_get_ns() - t0);
}

/*
 * lsm_store_write()'s operations into the log and the memtable, as write
 * @seqp.  The log block holding them is written once it fills, or by a
 * commit: the caller's if @sync, else the timed one (commit_interval_ms).
 */
static int lsm_store_append(struct lsm_store *st, const struct lsm_op *ops,
			    unsigned int n, bool sync, u64 *seqp)
{
	u64 seq, user = 0, slow_ns;
	size_t bytes;
	int err;

	err = lsm_store_check_ops(ops, n);
	if (err)
		return err;
	bytes = lsm_wal_record_bytes(ops, n);
	if (!st->opt.no_wal &&
	    bytes > LSM_WAL_SEGMENT_BYTES((size_t)st->sb.segment_blocks))
		return -E2BIG;
	for (unsigned int i = 0; i < n; i++)
		user += 16 + ops[i].vlen;

	mutex_lock(&st->write_mutex);
	err = lsm_store_stall(st);
	if (err) {
		mutex_unlock(&st->write_mutex);
		return err;
	}
	slow_ns = lsm_store_slow_debt(st, user);
	seq = st->next_seq;
	if (!st->opt.no_wal) {
		if (!lsm_wal_room(&st->wal, bytes)) {
			err = lsm_store_new_segment(st);
			if (err == -ENOSPC) {
				mutex_unlock(&st->write_mutex);
				return err;
			}
		}
		if (!err)
			err = lsm_wal_append(&st->wal, seq, ops, n);
		if (err) {
			/* Before a leader can seal what the log holds now. */
			lsm_store_fail(st, err);
			mutex_unlock(&st->write_mutex);
			return -EIO;
		}
	}
	WRITE_ONCE(st->next_seq, seq + 1);
	st->user_bytes += user;
	err = lsm_store_apply(st, seq, ops, n);
	/*
	 * The log has the write and the memtable may have part: failed
	 * before the lock goes, or a flush could switch the memtable and
	 * record part of a write in a run (not a prefix of the history).
	 */
	if (err)
		lsm_store_fail(st, err);
	mutex_unlock(&st->write_mutex);
	if (err) {
		lsm_window(st, LSM_WIN_APPLY_FAILED);
		return err;
	}
	/* Counted by a gathering leader before this writer sleeps below. */
	if (sync)
		lsm_store_appended(st);
	if (slow_ns)
		lsm_store_slow_down(st, slow_ns);
	if (!st->opt.no_wal && !sync)
		queue_delayed_work(system_unbound_wq, &st->commit_work,
				   msecs_to_jiffies(st->opt.commit_interval_ms));
	*seqp = seq;
	return 0;
}

/**
 * lsm_store_write() - apply operations atomically
 * @st:    the store
 * @ops:   the operations, in order; values are copied
 * @n:     how many, at least 1
 * @flags: LSM_WRITE_SYNC or 0
 *
 * Waits, counted as a stall, while max_immutables memtables wait to be
 * written out or while merges are behind by l0_stop_runs runs of level 0
 * or pending_stop_bytes; sleeps, counted as a slowdown, to hold writers
 * to slowdown_bytes_per_sec while merges are behind by l0_slowdown_runs
 * or pending_slowdown_bytes.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a bad operation or flag (nothing applied);
 * -E2BIG for a write whose log record does not fit a log segment;
 * -EROFS once the store has failed; -ENOSPC when the device is full;
 * -EIO when a device write or flush failed (the store turns read-only);
 * -ENOMEM (after which the store is read-only too, since the log may
 * hold what the memtable could not take).
 */
int lsm_store_write(struct lsm_store *st, const struct lsm_op *ops,
		    unsigned int n, unsigned int flags)
{
	u64 seq;
	int err;

	if (flags & ~LSM_WRITE_SYNC)
		return -EINVAL;
	if (!(flags & LSM_WRITE_SYNC) || st->opt.no_wal) {
		err = lsm_store_append(st, ops, n, false, &seq);
		if (err || !(flags & LSM_WRITE_SYNC))
			return err;
		return lsm_store_flush(st);
	}
	spin_lock(&st->commit_lock);
	st->sync_writers++;
	spin_unlock(&st->commit_lock);
	err = lsm_store_append(st, ops, n, true, &seq);
	if (!err)
		err = lsm_store_commit(st, seq, true);
	spin_lock(&st->commit_lock);
	st->sync_writers--;
	spin_unlock(&st->commit_lock);
	return err;
}

static int lsm_source_get(const struct lsm_source *src, u64 k,
			  struct lsm_piece *out, void *vbuf, u32 vbuf_size)
{
	if (src->mt)
		return lsm_mem_get(src->mt, k, out, vbuf, vbuf_size);
	if (!src->lv.nr)
		return -ENOENT;
	return lsm_level_get(&src->lv, k, out, vbuf, vbuf_size);
}

static int lsm_source_next(const struct lsm_source *src, u64 pos,
			   struct lsm_piece *out, void *vbuf, u32 vbuf_size)
{
	if (src->mt)
		return lsm_mem_next(src->mt, pos, out, vbuf, vbuf_size);
	if (!src->lv.nr)
		return -ENOENT;
	return lsm_level_next(&src->lv, pos, out, vbuf, vbuf_size);
}

/*
 * Clip the window [*from, *to] around @k of a piece found in source
 * @upto to what the newer sources, none of which covers @k, leave.
 */
static int lsm_store_clip(struct lsm_layers *ls, unsigned int upto, u64 k,
			  u64 *from, u64 *to)
{
	struct lsm_source src;
	struct lsm_piece p;
	u8 scratch[1];
	int err;

	for (unsigned int j = 0; j < upto; j++) {
		u64 pos = *from;

		/* Nothing left to clip (a point's window is @k alone). */
		if (*from == k && *to == k)
			break;
		lsm_layers_source(ls, j, &src);
		/* Runs wholly outside the window: no block of them to read. */
		if (!src.mt && lsm_level_outside(&src.lv, *from, *to))
			continue;
		/* Each piece of the newer source left of @k pushes @from up ... */
		while (pos < k) {
			err = lsm_source_next(&src, pos, &p, scratch, 0);
			if (err == -ENOENT)
				break;
			if (err)
				return err;
			if (p.start >= k || lsm_last(p.start, p.len) >= k)
				break;
			pos = lsm_last(p.start, p.len) + 1;
			*from = pos;
		}
		/* ... and the first one right of it pulls @to down. */
		err = lsm_source_next(&src, k, &p, scratch, 0);
		if (err && err != -ENOENT)
			return err;
		if (!err && p.start > k && p.start - 1 < *to)
			*to = p.start - 1;
	}
	return 0;
}

/**
 * lsm_store_get() - the newest extent covering @k, and its visible window
 * @st:        the store
 * @k:         the unit
 * @out:       the extent as stored and its window visible at @k
 * @vbuf:      up to @vbuf_size bytes of the value go here (may be NULL:
 *             then out->ext.value points nowhere useful)
 * @vbuf_size: may be 0
 *
 * Context: process context, may sleep (a run's blocks are read).
 * Return: 0; -ENOENT if nothing, or a punch, covers @k; -EUCLEAN or -EIO
 * for a run block that fails its check or cannot be read; -ENOMEM.
 */
int lsm_store_get(struct lsm_store *st, u64 k, struct lsm_piece *out,
		  void *vbuf, u32 vbuf_size)
{
	struct lsm_layers *ls = lsm_layers_get(st);
	unsigned int i, nr = lsm_layers_nr_sources(ls);
	struct lsm_source src;
	u8 scratch[1];
	u64 from, to;
	int err = -ENOENT;

	/* Never a pointer into a memtable that may go when this returns. */
	if (!vbuf) {
		vbuf = scratch;
		vbuf_size = 0;
	}
	lsm_window(st, LSM_WIN_READ_HELD);
	/* Memtables and level 0 one by one; one binary search per level. */
	for (i = 0; i < nr; i++) {
		lsm_layers_source(ls, i, &src);
		err = lsm_source_get(&src, k, out, vbuf, vbuf_size);
		if (err != -ENOENT)
			break;
	}
	if (err)
		goto out;
	if (out->ext.flags & LSM_EXT_TOMBSTONE) {
		err = -ENOENT;
		goto out;
	}
	from = out->start;
	to = lsm_last(out->start, out->len);
	err = lsm_store_clip(ls, i, k, &from, &to);
	out->start = from;
	out->len = to - from + 1;
out:
	lsm_layers_put(st, ls);
	return err;
}

/**
 * lsm_store_sync() - make every write acknowledged so far durable
 * @st: the store
 *
 * Without a log (no_wal), the memtables are written out.
 *
 * Context: process context, may sleep.
 * Return: 0; -EIO if the device failed (the store is read-only now).
 */
int lsm_store_sync(struct lsm_store *st)
{
	u64 seq;

	if (st->opt.no_wal)
		return lsm_store_flush(st);
	mutex_lock(&st->write_mutex);
	seq = st->next_seq - 1;
	mutex_unlock(&st->write_mutex);
	return lsm_store_commit(st, seq, false);
}

/**
 * lsm_store_flush() - write the memtables out as runs now
 * @st: the store
 *
 * Context: process context, may sleep.
 * Return: 0 once every write acknowledged before the call is in a run;
 * -ENOSPC when the device has no room for a run (the memtables stay, and
 * what the log holds of them stays durable); -ENOMEM; -EIO if the store
 * failed.
 */
int lsm_store_flush(struct lsm_store *st)
{
	int err = 0;

	mutex_lock(&st->write_mutex);
	if (READ_ONCE(st->error))
		err = -EIO;
	else if (lsm_mem_pieces(st->layers->l[0]->mt))
		err = lsm_store_switch(st);
	if (!err) {
		/*
		 * A flush that found no room before this call says nothing
		 * of now (a merge or a reader may have given space back
		 * since, without a flush trying again): the answer is that
		 * of a flush tried from now on.
		 */
		WRITE_ONCE(st->flush_error, 0);
		queue_work(system_unbound_wq, &st->flush_work);
	}
	mutex_unlock(&st->write_mutex);
	if (err)
		return err;
	wait_event(st->wait, READ_ONCE(st->error) || !READ_ONCE(st->nr_imm) ||
		   (READ_ONCE(st->flush_error) &&
		    !work_pending(&st->flush_work)));
	if (READ_ONCE(st->error))
		return -EIO;
	return READ_ONCE(st->nr_imm) ? READ_ONCE(st->flush_error) : 0;
}

static void lsm_store_commit_work(struct work_struct *work)
{
	struct lsm_store *st = container_of(to_delayed_work(work),
					    struct lsm_store, commit_work);

	lsm_store_sync(st);
}

struct lsm_replay {
	struct lsm_store *st;
	u64 last;
};

static int lsm_store_replay_apply(void *priv, u64 seq,
				  const struct lsm_op *ops, unsigned int n)
{
	struct lsm_replay *r = priv;
	struct lsm_store *st = r->st;
	int err;

	r->last = seq;
	if (seq <= st->m.persisted_seq)
		return 0;
	if (lsm_store_check_ops(ops, n))
		return -EUCLEAN;
	mutex_lock(&st->write_mutex);
	WRITE_ONCE(st->next_seq, seq + 1);
	err = lsm_store_apply(st, seq, ops, n);
	mutex_unlock(&st->write_mutex);
	return err;
}

/*
 * Where each of the manifest's runs goes in the first layer set: level
 * by level, level 0 newest first (its records are oldest first), the
 * other levels by key.  @pos[i] is the layer of run i; fills @lv.
 */
static void lsm_store_place_runs(struct lsm_store *st, unsigned int *pos,
				 unsigned int *lv)
{
	const struct lsm_run_info *runs = st->m.runs;
	unsigned int nr = st->m.nr_runs, i, n[LSM_LEVELS] = { 0 };

	for (i = 0; i < nr; i++)
		n[runs[i].level]++;
	lv[0] = 1;
	for (i = 0; i < LSM_LEVELS; i++)
		lv[i + 1] = lv[i] + n[i];
	memset(n, 0, sizeof(n));
	for (i = 0; i < nr; i++) {
		unsigned int k = runs[i].level, at;

		if (!k) {
			/* The first record of level 0 is its oldest: last. */
			pos[i] = lv[1] - 1 - n[0]++;
			continue;
		}
		/* Insertion by first key among the level's runs placed. */
		at = lv[k] + n[k]++;
		for (unsigned int j = 0; j < i; j++)
			if (runs[j].level == k &&
			    runs[j].first_key > runs[i].first_key &&
			    pos[j] < at)
				at = pos[j];
		for (unsigned int j = 0; j < i; j++)
			if (runs[j].level == k && pos[j] >= at)
				pos[j]++;
		pos[i] = at;
	}
}

/* Open the runs, level by level, behind an empty active memtable. */
static int lsm_store_load_layers(struct lsm_store *st)
{
	struct lsm_layers *ls = lsm_layers_alloc(1 + st->m.nr_runs);
	unsigned int *pos = kcalloc(st->m.nr_runs + 1, sizeof(*pos),
				    GFP_KERNEL);
	unsigned int i;
	int err = -ENOMEM;

	if (!ls || !pos)
		goto fail;
	for (i = 0; i < ls->nr; i++) {
		ls->l[i] = kzalloc(sizeof(*ls->l[i]), GFP_KERNEL);
		if (!ls->l[i])
			goto fail;
	}
	ls->l[0]->mt = lsm_mem_create(st->pool, GFP_KERNEL);
	if (!ls->l[0]->mt)
		goto fail;
	lsm_store_place_runs(st, pos, ls->lv);
	for (i = 0; i < st->m.nr_runs; i++) {
		const struct lsm_run_info *info = &st->m.runs[i];
		struct lsm_layer *l = ls->l[pos[i]];

		l->info = *info;
		err = lsm_run_open(st->bdev, st->sb.store_id, info, st->cache,
				   &l->run);
		if (err) {
			if (err == -EUCLEAN)
				pr_err("lsm: %s: run %llu does not pass its check\n",
				       st->bdev->name,
				       (unsigned long long)info->id);
			goto fail;
		}
	}
	kfree(pos);
	lsm_layers_publish(st, ls);
	return 0;
fail:
	for (i = 0; ls && i < ls->nr && ls->l[i]; i++)
		lsm_layer_free(ls->l[i]);
	kfree(ls);
	kfree(pos);
	return err;
}

/* Replay the log from the first live segment; sets next_seq. */
static int lsm_store_replay(struct lsm_store *st)
{
	struct lsm_replay r = { .st = st };

	return lsm_wal_recover(st->bdev, st->sb.store_id, st->m.segs,
			       st->m.nr_segs, st->m.persisted_seq,
			       st->sb.durable_seq, &st->next_seq,
			       lsm_store_replay_apply, &r);
}

static int lsm_store_format(struct lsm_store *st)
{
	st->sb = (struct lsm_super_info){
		.store_id = ((u64)get_random_u32() << 32) | get_random_u32(),
		.nr_blocks = st->bdev->nr_blocks,
		/* A log segment of 1/64 of the device, 128 KiB to 1 MiB. */
		.segment_blocks = min_t(u64, LSM_SEGMENT_BLOCKS,
					max_t(u64, LSM_SEGMENT_STORE_MIN,
					      st->bdev->nr_blocks / 64)),
	};
	return lsm_manifest_format(&st->m, st->bdev, &st->space, &st->sb);
}

/*
 * The merge options' defaults (struct lsm_options), and the
 * configuration compaction decides with.  The base level may hold
 * l0_compact_runs memtables' worth, as RocksDB's max_bytes_for_level_base
 * (256 MiB) is four of its 64 MiB memtables; the backlog limits keep
 * RocksDB's proportions to it (64 GiB and 256 GiB).
 */
static void lsm_store_merge_options(struct lsm_options *o,
				    struct lsm_compact_config *cfg)
{
	if (!o->l0_compact_runs)
		o->l0_compact_runs = LSM_DEFAULT_L0_COMPACT;
	if (!o->l0_slowdown_runs)
		o->l0_slowdown_runs = max(LSM_DEFAULT_L0_SLOWDOWN,
					  o->l0_compact_runs);
	if (!o->l0_stop_runs)
		o->l0_stop_runs = max(LSM_DEFAULT_L0_STOP, o->l0_slowdown_runs);
	/* Writers stopped below the trigger would wait for no merge. */
	o->l0_stop_runs = max(o->l0_stop_runs, o->l0_compact_runs);
	if (!o->run_bytes)
		o->run_bytes = min(o->memtable_bytes, LSM_RUN_BYTES_MAX);
	cfg->l0_trigger = o->l0_compact_runs;
	cfg->base_bytes = o->l0_compact_runs * o->memtable_bytes;
	if (!o->pending_slowdown_bytes)
		o->pending_slowdown_bytes = 256 * cfg->base_bytes;
	if (!o->pending_stop_bytes)
		o->pending_stop_bytes = max(4 * o->pending_slowdown_bytes,
					    1024 * cfg->base_bytes);
	if (!o->slowdown_bytes_per_sec)
		o->slowdown_bytes_per_sec = LSM_DEFAULT_SLOW_RATE;
}

/**
 * lsm_store_open() - open the store on a device, recovering it
 * @bdev:   the device; the caller keeps it and releases it after close
 * @opt:    options, or NULL for the defaults
 * @flags:  LSM_OPEN_FORMAT to make a new, empty store first
 * @storep: the store, on success
 *
 * Recovery: superblock, manifest, runs, then the log from the manifest's
 * persisted sequence number on, stopping at the first bad record.  Prints
 * one line saying why when it refuses the device.
 *
 * Context: process context, may sleep.
 * Return: 0; -ENOSPC for a device smaller than LSM_MIN_BLOCKS or than the
 * store on it; -EUCLEAN for a foreign, unformatted or corrupt device;
 * -EINVAL for bad flags or options; -ENOMEM; the device's errno.
 */
int lsm_store_open(struct lsm_bdev *bdev, const struct lsm_options *opt,
		   unsigned int flags, struct lsm_store **storep)
{
	struct lsm_store *st;
	int err;

	if (flags & ~LSM_OPEN_FORMAT)
		return -EINVAL;
	if (bdev->nr_blocks < LSM_MIN_BLOCKS) {
		pr_err("lsm: %s: device of %llu blocks is too small for a store (%u)\n",
		       bdev->name, (unsigned long long)bdev->nr_blocks,
		       LSM_MIN_BLOCKS);
		return -ENOSPC;
	}
	if (opt && opt->block_cache_bytes > LSM_BLOCK_CACHE_MAX) {
		pr_err("lsm: %s: a block cache of %llu bytes is more than %llu\n",
		       bdev->name, (unsigned long long)opt->block_cache_bytes,
		       LSM_BLOCK_CACHE_MAX);
		return -EINVAL;
	}
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	st->bdev = bdev;
	if (opt)
		st->opt = *opt;
	if (!st->opt.memtable_bytes)
		st->opt.memtable_bytes = LSM_DEFAULT_MEMTABLE;
	if (!st->opt.max_immutables)
		st->opt.max_immutables = LSM_DEFAULT_IMMUTABLES;
	if (!st->opt.commit_interval_ms)
		st->opt.commit_interval_ms = LSM_DEFAULT_COMMIT_MS;
	lsm_store_merge_options(&st->opt, &st->ccfg);
	mutex_init(&st->compact_mutex);
	if (!st->opt.block_cache_bytes)
		st->opt.block_cache_bytes = LSM_BLOCK_CACHE_DEFAULT;
	mutex_init(&st->write_mutex);
	mutex_init(&st->manifest_mutex);
	spin_lock_init(&st->layers_lock);
	spin_lock_init(&st->commit_lock);
	init_waitqueue_head(&st->wait);
	init_waitqueue_head(&st->commit_wait);
	init_waitqueue_head(&st->gather_wait);
	INIT_WORK(&st->flush_work, lsm_store_flush_work);
	INIT_WORK(&st->compact_work, lsm_store_compact_work);
	INIT_DELAYED_WORK(&st->commit_work, lsm_store_commit_work);

	if (!(flags & LSM_OPEN_FORMAT)) {
		err = lsm_super_read(bdev, &st->sb);
		if (err)
			goto fail_free;
	}
	err = lsm_space_init(&st->space, (flags & LSM_OPEN_FORMAT) ?
			     bdev->nr_blocks : st->sb.nr_blocks);
	if (err)
		goto fail_free;
	if (flags & LSM_OPEN_FORMAT)
		err = lsm_store_format(st);
	else
		err = lsm_manifest_load(&st->m, bdev, &st->space, &st->sb);
	if (err)
		goto fail_space;
	err = lsm_manifest_check(&st->m, 0);
	if (err)
		goto fail_manifest;
	st->pool = lsm_pool_create(st->opt.memtable_bytes >= LSM_ARENA_MIN_MEMTABLE ?
				   LSM_POOL_DEFAULT : LSM_POOL_CLASSES, GFP_KERNEL);
	err = -ENOMEM;
	if (!st->pool)
		goto fail_manifest;
	st->cache = lsm_block_cache_create(st->opt.block_cache_bytes,
					   bdev->name);
	if (!st->cache)
		goto fail_pool;
	err = lsm_store_load_layers(st);
	if (err)
		goto fail_cache;
	err = lsm_store_replay(st);
	if (err)
		goto fail_layers;
	st->durable_seq = st->next_seq - 1;
	err = lsm_wal_init(&st->wal, bdev, st->sb.store_id);
	if (err)
		goto fail_layers;
	mutex_lock(&st->write_mutex);
	if (!st->opt.no_wal)
		err = lsm_store_new_segment(st);
	mutex_unlock(&st->write_mutex);
	/*
	 * A full device must still open, so that what it holds can be
	 * read: without a segment the first write tries again, and gets
	 * -ENOSPC if there is still no room.
	 */
	if (err == -ENOSPC)
		err = 0;
	if (!err) {
		mutex_lock(&st->manifest_mutex);
		st->sb.flags &= ~LSM_SUPER_CLEAN;
		/* What replay recovered was durable (read from the device). */
		err = lsm_manifest_write_super(&st->m, st->next_seq - 1);
		mutex_unlock(&st->manifest_mutex);
	}
	if (err)
		goto fail_wal;
	st->started = true;
	if (st->nr_imm)
		queue_work(system_unbound_wq, &st->flush_work);
	/* The last session may have left merges due. */
	queue_work(system_unbound_wq, &st->compact_work);
	*storep = st;
	return 0;

fail_wal:
	lsm_wal_destroy(&st->wal);
fail_layers:
	cancel_work_sync(&st->flush_work);
	lsm_layers_put(st, st->layers);
fail_cache:
	lsm_block_cache_destroy(st->cache);
fail_pool:
	lsm_pool_destroy(st->pool);
fail_manifest:
	lsm_manifest_destroy(&st->m);
fail_space:
	lsm_space_destroy(&st->space);
fail_free:
	kfree(st);
	return err;
}

/**
 * lsm_store_close() - make everything durable, mark a clean shutdown and
 *                     free the store
 * @st: the store; no call on it may run or follow
 *
 * The immutable memtables are written out; the active one stays in the
 * log (or, with no_wal, is written out too).  A store that has failed is
 * freed without writing anything.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EIO if something could not be made durable.
 */
int lsm_store_close(struct lsm_store *st)
{
	int err;

	/* A merge is never needed for durability: let the current one end. */
	WRITE_ONCE(st->stopping, true);
	cancel_work_sync(&st->compact_work);
	cancel_delayed_work_sync(&st->commit_work);
	err = st->opt.no_wal ? lsm_store_flush(st) : lsm_store_sync(st);
	/* Memtables that find no room to go out stay in the log. */
	if (!err)
		wait_event(st->wait, READ_ONCE(st->error) ||
			   !READ_ONCE(st->nr_imm) || READ_ONCE(st->flush_error));
	cancel_work_sync(&st->flush_work);
	/* A flush that ended meanwhile may have queued it again. */
	cancel_work_sync(&st->compact_work);
	if (!err && READ_ONCE(st->error))
		err = -EIO;
	if (!err) {
		mutex_lock(&st->manifest_mutex);
		st->sb.flags |= LSM_SUPER_CLEAN;
		err = lsm_manifest_write_super(&st->m, st->next_seq - 1);
		mutex_unlock(&st->manifest_mutex);
		if (err) {
			lsm_store_fail(st, err);
			err = -EIO;
		}
	}
	lsm_wal_destroy(&st->wal);
	lsm_layers_put(st, st->layers);
	mutex_lock(&st->manifest_mutex);
	lsm_store_reclaim(st);
	mutex_unlock(&st->manifest_mutex);
	lsm_block_cache_destroy(st->cache);	/* after the runs dropped theirs */
	lsm_pool_destroy(st->pool);
	lsm_manifest_destroy(&st->m);
	lsm_space_destroy(&st->space);
	mutex_destroy(&st->compact_mutex);
	mutex_destroy(&st->write_mutex);
	mutex_destroy(&st->manifest_mutex);
	kfree(st);
	return err;
}

/**
 * lsm_store_debugfs_add() - publish the store's device space in debugfs
 * @st:  the store
 * @dir: its directory there (the device's, made by its caller)
 *
 * The range allocator of the device's blocks goes in as @dir/space
 * (sl_range_debugfs_add()).  The memtables are not published: each
 * lives only until it is written out, and the store's own counters
 * already give their bytes.
 *
 * Context: process context, may sleep; before lsm_store_close(), and
 * lsm_store_debugfs_remove() before @dir is removed.
 * Return: as sl_range_debugfs_add().
 */
int lsm_store_debugfs_add(struct lsm_store *st, struct dentry *dir)
{
	return sl_range_debugfs_add(&st->space.ra, dir, "space");
}

/**
 * lsm_store_debugfs_remove() - take the store's device space out of debugfs
 * @st: the store
 *
 * Context: process context, sleeps; before its directory is removed,
 * since the allocator holds entries inside it.
 */
void lsm_store_debugfs_remove(struct lsm_store *st)
{
	sl_range_debugfs_remove(&st->space.ra);
}

/**
 * lsm_store_stats() - the store's counters
 * @st:    the store
 * @stats: filled in
 *
 * Context: process context, may sleep.
 */
void lsm_store_stats(struct lsm_store *st, struct lsm_stats *stats)
{
	struct lsm_block_cache_stats cs;
	struct lsm_layers *ls;
	struct lsm_shape shape;

	memset(stats, 0, sizeof(*stats));
	mutex_lock(&st->write_mutex);
	ls = st->layers;
	stats->memtable_bytes = lsm_mem_bytes(ls->l[0]->mt);
	stats->immutables = ls->nr_imm;
	stats->runs = ls->nr - 1 - ls->nr_imm;
	lsm_layers_shape(ls, &shape);
	for (unsigned int k = 0; k < LSM_LEVELS; k++) {
		stats->level_runs[k] = shape.nr[k];
		stats->level_bytes[k] = shape.bytes[k];
	}
	stats->flushes = st->flushes;
	stats->stalls = st->stalls;
	stats->stall_ns = st->stall_ns;
	stats->slowdowns = st->slowdowns;
	stats->slowdown_ns = st->slowdown_ns;
	stats->wal_bytes = st->wal.bytes;
	stats->run_bytes = st->run_bytes;
	stats->user_bytes = st->user_bytes;
	stats->compactions = st->compactions;
	stats->compact_read_bytes = st->compact_read_bytes;
	stats->compact_write_bytes = st->compact_write_bytes;
	stats->compact_ns = st->compact_ns;
	stats->pending_compact_bytes = READ_ONCE(st->pending_bytes);
	stats->seq = st->next_seq - 1;
	mutex_unlock(&st->write_mutex);
	mutex_lock(&st->manifest_mutex);
	/*
	 * Released runs wait for the next allocation to give their space
	 * back; nothing can reach them, so they are not space in use.
	 */
	lsm_store_reclaim(st);
	stats->manifest_bytes = st->m.bytes;
	stats->space_used_bytes = st->space.used * LSM_BLOCK_SIZE;
	mutex_unlock(&st->manifest_mutex);
	spin_lock(&st->commit_lock);
	stats->group_commits = st->group_commits;
	stats->group_writers = st->group_writers;
	spin_unlock(&st->commit_lock);
	stats->read_only = READ_ONCE(st->error) != 0;
	lsm_block_cache_stats(st->cache, &cs);
	stats->cache_hits = cs.hits;
	stats->cache_misses = cs.misses;
	stats->cache_bytes = cs.bytes;
}

/**
 * lsm_store_check() - check the manifest's and the allocator's invariants
 * @st: the store
 *
 * For the tests, after an open and between operations.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EUCLEAN with a message naming the broken invariant.
 */
int lsm_store_check(struct lsm_store *st)
{
	int err;

	mutex_lock(&st->write_mutex);
	err = lsm_layers_check(st->layers);
	mutex_unlock(&st->write_mutex);
	if (err)
		return err;
	mutex_lock(&st->manifest_mutex);
	err = lsm_manifest_check(&st->m, st->unrecorded + st->unreleased);
	mutex_unlock(&st->manifest_mutex);
	return err;
}
