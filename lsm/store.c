// SPDX-License-Identifier: GPL-2.0
/*
 * The store (store.h): writes through the log into the active memtable,
 * immutable memtables written out as runs by a work item, reads over all
 * layers, open with recovery and close.  Documentation/lsm.rst has the
 * design; this comment has the locking.
 *
 * Locks, in the order they nest:
 *  - @write_mutex: sequence numbers, the log's writer, memtable inserts
 *    and the switch of a full memtable, so that inserts happen in
 *    sequence order and the log's order is the memtable's.
 *  - @manifest_mutex: the manifest, the device space and the superblock.
 *  - @layers_lock (spinlock): the pointer to the current layer set and
 *    every reference count of layer sets and layers.
 *  - @commit_lock (spinlock, taken alone): the group commit's state,
 *    @committing and @durable_seq; never held across a device call.
 * A layer set is never changed once published: a change makes a new set
 * and swaps the pointer.  A reader takes a reference on the set for the
 * length of its call, so memtables and runs it uses stay, and reads the
 * memtables locklessly (memtable.h): readers never wait for writers.
 */
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "block_cache.h"
#include "manifest.h"
#include "memtable.h"
#include "pool.h"
#include "run.h"
#include "space.h"
#include "store.h"
#include "store_check.h"
#include "super.h"
#include "wal.h"

#define LSM_DEFAULT_MEMTABLE	(64ULL << 20)
#define LSM_DEFAULT_IMMUTABLES	2
#define LSM_DEFAULT_COMMIT_MS	5000

/**
 * struct lsm_layer - a memtable or a run, as one layer of the store
 * @ref:      references from layer sets (under the store's layers_lock)
 * @mt:       the memtable, or NULL for a run
 * @run:      the run, or NULL for a memtable
 * @last_seq: a memtable's newest write (its run's persisted_seq)
 * @first:    a run's first unit, so that reads outside it skip the run
 * @last:     a run's last unit
 */
struct lsm_layer {
	int ref;
	struct lsm_memtable *mt;
	struct lsm_run *run;
	u64 last_seq;
	u64 first, last;
};

/**
 * struct lsm_layers - the layers readers see, newest first
 * @ref:    references (under the store's layers_lock)
 * @nr:     layers: the active memtable, @nr_imm immutables, then runs
 * @nr_imm: immutable memtables
 * @l:      the layers
 */
struct lsm_layers {
	int ref;
	unsigned int nr;
	unsigned int nr_imm;
	struct lsm_layer *l[];
};

struct lsm_store {
	struct lsm_bdev *bdev;
	struct lsm_options opt;
	struct lsm_super_info sb;
	struct lsm_space space;
	struct lsm_manifest m;
	struct lsm_wal wal;
	struct lsm_pool *pool;
	struct lsm_block_cache *cache;	/* the runs' blocks, lockless reads */

	struct mutex write_mutex;	/* seq, log writer, memtable inserts */
	struct mutex manifest_mutex;	/* manifest, space, superblock */
	spinlock_t layers_lock;		/* @layers, every layer refcount */
	spinlock_t commit_lock;		/* @committing, @durable_seq */
	struct lsm_layers *layers;	/* changed under write_mutex too */

	u64 next_seq;		/* write_mutex */
	u64 durable_seq;	/* commit_lock: the log is durable up to it */
	bool committing;	/* commit_lock: a leader's flush is running */
	int error;		/* set once: the store is read-only */
	unsigned int nr_imm;	/* written under write_mutex, read anywhere */
	u64 unrecorded;		/* manifest_mutex: run space not recorded yet */
	bool started;		/* open is done: the work item may run */

	struct work_struct flush_work;
	struct delayed_work commit_work;
	wait_queue_head_t wait;
	wait_queue_head_t commit_wait;	/* writers behind a leader's flush */

	/* Counters: under the lock that guards what they count. */
	u64 flushes, stalls, stall_ns, user_bytes;
	u64 run_bytes;
	u64 group_commits, group_writers;	/* commit_lock */
};

/* Turn the store read-only after a failed write or flush of the device. */
static void lsm_store_fail(struct lsm_store *st, int err)
{
	if (!cmpxchg(&st->error, 0, -EIO))
		pr_err("lsm: %s: device error %d: the store is read-only now\n",
		       st->bdev->name, err);
	wake_up_all(&st->wait);
}

static struct lsm_layers *lsm_layers_alloc(unsigned int nr)
{
	struct lsm_layers *ls = kzalloc(struct_size(ls, l, nr), GFP_KERNEL);

	if (ls) {
		ls->ref = 1;
		ls->nr = nr;
	}
	return ls;
}

/* Take a reference on the current layer set. */
static struct lsm_layers *lsm_layers_get(struct lsm_store *st)
{
	struct lsm_layers *ls;

	spin_lock(&st->layers_lock);
	ls = st->layers;
	ls->ref++;
	spin_unlock(&st->layers_lock);
	return ls;
}

static void lsm_layer_free(struct lsm_layer *l)
{
	if (l->mt)
		lsm_mem_destroy(l->mt);
	if (l->run)
		lsm_run_close(l->run);
	kfree(l);
}

/* Drop a reference on a layer set, freeing what no set holds any more. */
static void lsm_layers_put(struct lsm_store *st, struct lsm_layers *ls)
{
	unsigned int i, n = 0;

	spin_lock(&st->layers_lock);
	if (--ls->ref) {
		spin_unlock(&st->layers_lock);
		return;
	}
	for (i = 0; i < ls->nr; i++)
		if (!--ls->l[i]->ref)
			ls->l[n++] = ls->l[i];	/* to free, below */
	spin_unlock(&st->layers_lock);
	for (i = 0; i < n; i++)
		lsm_layer_free(ls->l[i]);
	kfree(ls);
}

/* Publish @ls (its layers' references already taken) as current. */
static void lsm_layers_publish(struct lsm_store *st, struct lsm_layers *ls)
{
	struct lsm_layers *old;

	spin_lock(&st->layers_lock);
	for (unsigned int i = 0; i < ls->nr; i++)
		ls->l[i]->ref++;
	old = st->layers;
	st->layers = ls;
	spin_unlock(&st->layers_lock);
	if (old)
		lsm_layers_put(st, old);
}

static int lsm_layer_get(struct lsm_layer *l, u64 k, struct lsm_piece *out,
			 void *vbuf, u32 vbuf_size)
{
	if (l->mt)
		return lsm_mem_get(l->mt, k, out, vbuf, vbuf_size);
	if (k < l->first || k > l->last)
		return -ENOENT;
	return lsm_run_get(l->run, k, out, vbuf, vbuf_size);
}

static int lsm_layer_next(struct lsm_layer *l, u64 pos, struct lsm_piece *out,
			  void *vbuf, u32 vbuf_size)
{
	if (l->mt)
		return lsm_mem_next(l->mt, pos, out, vbuf, vbuf_size);
	if (pos > l->last)
		return -ENOENT;
	return lsm_run_next(l->run, pos, out, vbuf, vbuf_size);
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
	ls->l[0] = l;
	memcpy(&ls->l[1], &cur->l[0], cur->nr * sizeof(cur->l[0]));
	lsm_layers_publish(st, ls);
	WRITE_ONCE(st->nr_imm, ls->nr_imm);
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
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	seg.first_seq = st->next_seq;
	mutex_lock(&st->manifest_mutex);
	err = lsm_space_alloc(&st->space, seg.nr, &seg.start);
	if (!err) {
		seg.id = lsm_manifest_new_id(&st->m);
		lsm_edit_seg_add(e, &seg);
		err = lsm_manifest_commit(&st->m, e, st->m.persisted_seq);
		/* Refused with the manifest unchanged: the space is free. */
		if (err == -ENOSPC)
			lsm_space_free(&st->space, seg.start, seg.nr);
	}
	mutex_unlock(&st->manifest_mutex);
	kfree(e);
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
 * appended by then.  Nobody waits on purpose for more writers: a flush
 * starts as soon as the previous one ends and a writer needs it.
 *
 * A failed seal or flush turns the store read-only before the waiters
 * wake, so that every writer it covered, and every later one, sees
 * -EIO; the durable mark never moves past a failed flush.
 */
static int lsm_store_commit(struct lsm_store *st, u64 seq)
{
	u64 upto;
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

	mutex_lock(&st->write_mutex);
	upto = st->next_seq - 1;
	err = READ_ONCE(st->error);
	if (!err)
		err = lsm_wal_seal(&st->wal);
	mutex_unlock(&st->write_mutex);
	if (!err)
		err = st->bdev->ops->flush(st->bdev);
	if (err)
		lsm_store_fail(st, err);

	spin_lock(&st->commit_lock);
	if (!err) {
		WRITE_ONCE(st->durable_seq, upto);
		st->group_commits++;
		st->group_writers++;
	}
	WRITE_ONCE(st->committing, false);
	spin_unlock(&st->commit_lock);
	wake_up_all(&st->commit_wait);
	return err ? -EIO : 0;
}

/**
 * lsm_store_write() - apply operations atomically
 * @st:    the store
 * @ops:   the operations, in order; values are copied
 * @n:     how many, at least 1
 * @flags: LSM_WRITE_SYNC or 0
 *
 * Waits, counted as a stall, while max_immutables memtables wait to be
 * written out.
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
	u64 seq, user = 0, t0 = 0;
	size_t bytes;
	int err;

	if (flags & ~LSM_WRITE_SYNC)
		return -EINVAL;
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
	while (!READ_ONCE(st->error) &&
	       st->nr_imm >= st->opt.max_immutables) {
		mutex_unlock(&st->write_mutex);
		if (!t0)
			t0 = ktime_get_ns();
		wait_event(st->wait, READ_ONCE(st->error) ||
			   READ_ONCE(st->nr_imm) < st->opt.max_immutables);
		mutex_lock(&st->write_mutex);
	}
	if (t0) {
		st->stalls++;
		st->stall_ns += ktime_get_ns() - t0;
	}
	if (READ_ONCE(st->error)) {
		mutex_unlock(&st->write_mutex);
		return -EROFS;
	}
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
	st->next_seq++;
	st->user_bytes += user;
	err = lsm_store_apply(st, seq, ops, n);
	mutex_unlock(&st->write_mutex);
	if (err) {
		/* The log has the write and the memtable may have part. */
		lsm_store_fail(st, err);
		return err;
	}
	if (st->opt.no_wal)
		return (flags & LSM_WRITE_SYNC) ? lsm_store_flush(st) : 0;
	if (flags & LSM_WRITE_SYNC)
		return lsm_store_commit(st, seq);
	queue_delayed_work(system_unbound_wq, &st->commit_work,
			   msecs_to_jiffies(st->opt.commit_interval_ms));
	return 0;
}

/*
 * Clip the window [*from, *to] around @k of a piece found in layer @upto
 * to what the newer layers l[0..@upto), none of which covers @k, leave.
 */
static int lsm_store_clip(struct lsm_layers *ls, unsigned int upto, u64 k,
			  u64 *from, u64 *to)
{
	struct lsm_piece p;
	u8 scratch[1];
	int err;

	for (unsigned int j = 0; j < upto; j++) {
		struct lsm_layer *l = ls->l[j];
		u64 pos = *from;

		/* Nothing left to clip (a point's window is @k alone). */
		if (*from == k && *to == k)
			break;
		/* A run wholly outside the window: no block of it to read. */
		if (l->run && (l->last < *from || l->first > *to))
			continue;
		/* Each piece of the newer layer left of @k pushes @from up ... */
		while (pos < k) {
			err = lsm_layer_next(l, pos, &p, scratch, 0);
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
		err = lsm_layer_next(l, k, &p, scratch, 0);
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
	unsigned int i;
	u8 scratch[1];
	u64 from, to;
	int err = -ENOENT;

	/* Never a pointer into a memtable that may go when this returns. */
	if (!vbuf) {
		vbuf = scratch;
		vbuf_size = 0;
	}
	for (i = 0; i < ls->nr; i++) {
		err = lsm_layer_get(ls->l[i], k, out, vbuf, vbuf_size);
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
 * struct lsm_scan_layer - one layer's cursor in a scan
 * @l:         the layer
 * @it:        a run's cursor (NULL for a memtable)
 * @head:      the layer's first piece ending at or after the scan's
 *             position, tombstones included; filled in once @have_head
 * @start:     its first unit, known for a run before its block is read
 * @have_head: @head is filled in (always, for a memtable)
 * @valid:     the layer has such a piece
 *
 * A run's cursor reads each data block once; a memtable is walked a
 * piece at a time (lsm_mem_next(), a skiplist search under RCU each, as
 * sl_em_walk() walks an extent map), since its active one changes under
 * the scan and holds no block to keep.
 */
struct lsm_scan_layer {
	struct lsm_layer *l;
	struct lsm_run_iter *it;
	struct lsm_piece head;
	u64 start;
	bool have_head;
	bool valid;
};

/**
 * struct lsm_scan_stage - where the next value returned goes
 * @at:    the caller's buffer, past the values already returned
 * @room:  bytes left there (at most LSM_VALUE_MAX)
 * @owner: the memtable cursor whose head's value lies at @at whole, or
 *         NULL
 *
 * A memtable cursor copies its head's value to @at as it reads the head
 * (one read-side section for both, so they agree): if that piece is the
 * one returned next, its value is in place already and the memtable is
 * not searched a second time.  Any other copy to @at takes it back.
 */
struct lsm_scan_stage {
	u8 *at;
	u32 room;
	struct lsm_scan_layer *owner;
};

/* Move @c to its layer's first piece ending at or after @pos. */
static int lsm_scan_seek(struct lsm_scan_layer *c, u64 pos,
			 struct lsm_scan_stage *sg)
{
	int err;

	if (c->l->mt) {
		err = lsm_mem_next(c->l->mt, pos, &c->head, sg->at, sg->room);
		c->have_head = !err;
		if (!err) {
			c->start = c->head.start;
			if (c->head.ext.vlen <= sg->room)
				sg->owner = c;
			else if (sg->room || sg->owner == c)
				sg->owner = NULL;	/* cut short, or not there */
		}
	} else {
		err = pos > c->l->last ? -ENOENT : lsm_run_iter_seek(c->it, pos);
		c->have_head = false;
		if (!err)
			c->start = lsm_run_iter_start(c->it);
	}
	c->valid = !err;
	return err == -ENOENT ? 0 : err;
}

/*
 * Bring @c up to @pos: afterwards its head, if it has one, ends at or
 * after @pos, and is filled in if it starts at or before @pos.
 */
static int lsm_scan_reach(struct lsm_scan_layer *c, u64 pos,
			  struct lsm_scan_stage *sg)
{
	int err;

	if (!c->valid || c->start > pos)
		return 0;
	if (!c->have_head) {
		err = lsm_run_iter_piece(c->it, &c->head);
		if (err)
			return err;
		c->have_head = true;
	}
	if (lsm_last(c->head.start, c->head.len) >= pos)
		return 0;
	err = lsm_scan_seek(c, pos, sg);
	if (err || !c->valid || c->start > pos || c->have_head)
		return err;
	err = lsm_run_iter_piece(c->it, &c->head);
	c->have_head = !err;
	return err;
}

/*
 * The piece of @c covering @pos, with its value at @sg->at (which has
 * room for @c->head's).  -EAGAIN when the active memtable changed since
 * @c->head was read: the caller seeks again.
 */
static int lsm_scan_copy(struct lsm_scan_layer *c, u64 pos,
			 struct lsm_piece *p, struct lsm_scan_stage *sg)
{
	const struct lsm_extent *h = &c->head.ext;
	int err;

	if (c->it) {
		*p = c->head;
		sg->owner = NULL;
		return lsm_run_iter_value(c->it, sg->at, h->vlen);
	}
	if (sg->owner == c) {
		*p = c->head;
		return 0;
	}
	sg->owner = NULL;
	err = lsm_mem_get(c->l->mt, pos, p, sg->at, h->vlen);
	if (err == -ENOENT || (!err && (p->ext.seq != h->seq ||
					p->ext.key != h->key ||
					p->ext.len != h->len ||
					p->ext.flags != h->flags ||
					p->ext.vlen != h->vlen)))
		return -EAGAIN;
	return err;
}

/**
 * lsm_store_scan() - visible pieces in key order from a cursor
 * @st:        the store
 * @cur:       where to start; advanced past what is returned
 * @out:       up to @max pieces
 * @max:       at least 1
 * @vbuf:      the pieces' values, packed
 * @vbuf_size: its size
 *
 * Newest wins, pieces are trimmed to what is visible, punches are
 * hidden.  A scan is not a snapshot: a write racing with it may or may
 * not be seen.
 *
 * The call keeps a cursor per layer and merges them: at each position
 * the newest layer whose piece covers it wins, up to where a newer
 * layer's next piece begins; the older layers are not moved until the
 * position passes their pieces.  A run's cursor reads each of its data
 * blocks once, so a call reads every block it crosses once per run, and
 * nothing outlives the call: the next one seeks again from @cur.
 *
 * Context: process context, may sleep.
 * Return: pieces filled in (0 at the end); -EINVAL for @max 0;
 * -EOVERFLOW when the first value does not fit @vbuf; -EUCLEAN, -EIO or
 * -ENOMEM from a layer.
 */
int lsm_store_scan(struct lsm_store *st, struct lsm_scan_cursor *cur,
		   struct lsm_piece *out, unsigned int max,
		   void *vbuf, size_t vbuf_size)
{
	struct lsm_scan_stage sg = {
		.at = vbuf,
		.room = min_t(size_t, vbuf_size, LSM_VALUE_MAX),
	};
	struct lsm_layers *ls;
	struct lsm_scan_layer *c;
	unsigned int filled = 0, i;
	size_t used = 0;
	u64 pos = cur->pos;
	int err = 0;

	if (!max)
		return -EINVAL;
	if (cur->done)
		return 0;
	ls = lsm_layers_get(st);
	c = kvcalloc(ls->nr, sizeof(*c), GFP_KERNEL);
	if (!c) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ls->nr; i++) {
		c[i].l = ls->l[i];
		if (c[i].l->run) {
			c[i].it = lsm_run_iter_create(c[i].l->run);
			if (!c[i].it) {
				err = -ENOMEM;
				goto out;
			}
		}
		err = lsm_scan_seek(&c[i], pos, &sg);
		if (err)
			goto out;
	}
	while (filled < max) {
		struct lsm_scan_layer *best = NULL;
		struct lsm_piece *p = &out[filled];
		u64 end, next_start = 0;
		/* Not a sentinel value: a piece may start at U64_MAX. */
		bool have_next = false;

		for (i = 0; i < ls->nr; i++) {
			err = lsm_scan_reach(&c[i], pos, &sg);
			if (err)
				goto out;
			if (!c[i].valid)
				continue;
			if (c[i].start <= pos) {
				best = &c[i];
				break;
			}
			if (!have_next || c[i].start < next_start)
				next_start = c[i].start;
			have_next = true;
		}
		if (!best) {
			if (!have_next) {
				cur->done = true;
				break;
			}
			pos = next_start;
			continue;
		}
		end = lsm_last(best->head.start, best->head.len);
		if (have_next && next_start - 1 < end)
			end = next_start - 1;
		if (!(best->head.ext.flags & LSM_EXT_TOMBSTONE)) {
			if (best->head.ext.vlen > vbuf_size - used) {
				if (!filled)
					err = -EOVERFLOW;
				break;
			}
			err = lsm_scan_copy(best, pos, p, &sg);
			if (err == -EAGAIN) {
				err = lsm_scan_seek(best, pos, &sg);
				if (err)
					goto out;
				continue;
			}
			if (err)
				goto out;
			end = min(end, lsm_last(p->start, p->len));
			p->start = pos;
			p->len = end - pos + 1;
			p->ext.value = sg.at;
			used += p->ext.vlen;
			sg.at += p->ext.vlen;
			sg.room = min_t(size_t, vbuf_size - used, LSM_VALUE_MAX);
			sg.owner = NULL;
			filled++;
		}
		if (end == U64_MAX) {
			cur->done = true;
			break;
		}
		pos = end + 1;
	}
	if (!cur->done)
		cur->pos = pos;
out:
	for (i = 0; c && i < ls->nr; i++)
		lsm_run_iter_destroy(c[i].it);
	kvfree(c);
	lsm_layers_put(st, ls);
	return err ? err : filled;
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
	return lsm_store_commit(st, seq);
}

/**
 * lsm_store_flush() - write the memtables out as runs now
 * @st: the store
 *
 * Context: process context, may sleep.
 * Return: 0 once every write acknowledged before the call is in a run;
 * -ENOMEM; -EIO if the store failed.
 */
int lsm_store_flush(struct lsm_store *st)
{
	int err = 0;

	mutex_lock(&st->write_mutex);
	if (READ_ONCE(st->error))
		err = -EIO;
	else if (lsm_mem_pieces(st->layers->l[0]->mt))
		err = lsm_store_switch(st);
	mutex_unlock(&st->write_mutex);
	if (err)
		return err;
	wait_event(st->wait, READ_ONCE(st->error) || !READ_ONCE(st->nr_imm));
	return READ_ONCE(st->error) ? -EIO : 0;
}

/* A run source over an immutable memtable. */
struct lsm_mem_source {
	struct lsm_memtable *mt;
	u64 pos;
	bool done;
};

static int lsm_mem_source_next(void *priv, struct lsm_piece *out)
{
	struct lsm_mem_source *s = priv;
	int err;

	if (s->done)
		return -ENOENT;
	err = lsm_mem_next(s->mt, s->pos, out, NULL, 0);
	if (err)
		return err;
	if (lsm_last(out->start, out->len) == U64_MAX)
		s->done = true;
	else
		s->pos = lsm_last(out->start, out->len) + 1;
	return 0;
}

static void lsm_mem_source_rewind(void *priv)
{
	struct lsm_mem_source *s = priv;

	s->pos = 0;
	s->done = false;
}

/* Write the oldest immutable memtable out; 1 if there was none. */
static int lsm_store_flush_one(struct lsm_store *st)
{
	struct lsm_mem_source ms = { .pos = 0 };
	struct lsm_run_source src = {
		.next = lsm_mem_source_next,
		.rewind = lsm_mem_source_rewind,
		.priv = &ms,
	};
	struct lsm_run_info info = { .id = 0 };
	struct lsm_layers *snap, *cur, *ls = NULL;
	struct lsm_layer *imm, *rl = NULL;
	struct lsm_edit *e = NULL;
	struct lsm_wal_seg *freed = NULL;
	unsigned int nr_freed = 0, i;
	int err;

	snap = lsm_layers_get(st);
	if (!snap->nr_imm) {
		lsm_layers_put(st, snap);
		return 1;
	}
	imm = snap->l[snap->nr_imm];
	ms.mt = imm->mt;
	err = lsm_run_size(&src, &info.nr_blocks);
	if (err)
		goto out;
	mutex_lock(&st->manifest_mutex);
	err = lsm_space_alloc(&st->space, info.nr_blocks, &info.first_block);
	if (!err) {
		info.id = lsm_manifest_new_id(&st->m);
		st->unrecorded += info.nr_blocks;
	}
	mutex_unlock(&st->manifest_mutex);
	if (err)
		goto out;
	lsm_mem_source_rewind(&ms);
	err = lsm_run_write(st->bdev, st->sb.store_id, &src, &info);
	rl = kzalloc(sizeof(*rl), GFP_KERNEL);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	freed = kcalloc(LSM_EDIT_MAX, sizeof(*freed), GFP_KERNEL);
	if (!err && (!rl || !e || !freed))
		err = -ENOMEM;
	if (!err)
		err = lsm_run_open(st->bdev, st->sb.store_id, &info, st->cache,
				   &rl->run);
	if (err)
		goto fail_space;
	rl->first = info.first_key;
	rl->last = info.last_key;

	/* The run, and the segments only its writes were in: one edit. */
	mutex_lock(&st->manifest_mutex);
	lsm_edit_run_add(e, &info);
	for (i = 0; i + 1 < st->m.nr_segs && nr_freed < LSM_EDIT_MAX - 1; i++) {
		if (st->m.segs[i + 1].first_seq - 1 > imm->last_seq)
			break;
		lsm_edit_seg_del(e, st->m.segs[i].id);
		freed[nr_freed++] = st->m.segs[i];
	}
	/* PREFLUSH: the run is durable before the edit that records it. */
	err = lsm_manifest_commit(&st->m, e, imm->last_seq);
	st->unrecorded -= info.nr_blocks;
	if (!err)
		for (i = 0; i < nr_freed; i++)
			lsm_space_free(&st->space, freed[i].start,
				       freed[i].nr);
	mutex_unlock(&st->manifest_mutex);
	if (err)
		goto fail;

	/* Readers see the run where the memtable was. */
	mutex_lock(&st->write_mutex);
	cur = st->layers;	/* the write mutex keeps it current */
	ls = lsm_layers_alloc(cur->nr);
	if (!ls) {
		mutex_unlock(&st->write_mutex);
		err = -ENOMEM;
		goto fail;
	}
	ls->nr_imm = cur->nr_imm - 1;
	for (i = 0; i < cur->nr; i++) {
		if (cur->l[i] == imm)
			break;
		ls->l[i] = cur->l[i];
	}
	ls->l[i] = rl;
	memcpy(&ls->l[i + 1], &cur->l[i + 1],
	       (cur->nr - i - 1) * sizeof(cur->l[0]));
	st->flushes++;
	st->run_bytes += info.nr_blocks * LSM_BLOCK_SIZE;
	lsm_layers_publish(st, ls);
	WRITE_ONCE(st->nr_imm, ls->nr_imm);
	mutex_unlock(&st->write_mutex);
	wake_up_all(&st->wait);
	lsm_layers_put(st, snap);
	kfree(e);
	kfree(freed);
	return 0;

fail_space:
	mutex_lock(&st->manifest_mutex);
	st->unrecorded -= info.nr_blocks;
	lsm_space_free(&st->space, info.first_block, info.nr_blocks);
	mutex_unlock(&st->manifest_mutex);
fail:
	if (rl && rl->run)
		lsm_run_close(rl->run);
	kfree(rl);
	kfree(ls);
out:
	lsm_store_fail(st, err);
	lsm_layers_put(st, snap);
	kfree(e);
	kfree(freed);
	return err;
}

static void lsm_store_flush_work(struct work_struct *work)
{
	struct lsm_store *st = container_of(work, struct lsm_store,
					    flush_work);

	while (!READ_ONCE(st->error) && !lsm_store_flush_one(st))
		;
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
	st->next_seq = seq + 1;
	err = lsm_store_apply(st, seq, ops, n);
	mutex_unlock(&st->write_mutex);
	return err;
}

/* Open the runs, newest first, behind an empty active memtable. */
static int lsm_store_load_layers(struct lsm_store *st)
{
	struct lsm_layers *ls = lsm_layers_alloc(1 + st->m.nr_runs);
	unsigned int i;
	int err = -ENOMEM;

	if (!ls)
		return -ENOMEM;
	for (i = 0; i < ls->nr; i++) {
		ls->l[i] = kzalloc(sizeof(*ls->l[i]), GFP_KERNEL);
		if (!ls->l[i])
			goto fail;
	}
	ls->l[0]->mt = lsm_mem_create(st->pool, GFP_KERNEL);
	if (!ls->l[0]->mt)
		goto fail;
	for (i = 0; i < st->m.nr_runs; i++) {
		const struct lsm_run_info *info = &st->m.runs[i];

		ls->l[st->m.nr_runs - i]->first = info->first_key;
		ls->l[st->m.nr_runs - i]->last = info->last_key;
		err = lsm_run_open(st->bdev, st->sb.store_id, info, st->cache,
				   &ls->l[st->m.nr_runs - i]->run);
		if (err) {
			if (err == -EUCLEAN)
				pr_err("lsm: %s: run %llu does not pass its check\n",
				       st->bdev->name,
				       (unsigned long long)info->id);
			goto fail;
		}
	}
	lsm_layers_publish(st, ls);
	return 0;
fail:
	for (i = 0; i < ls->nr && ls->l[i]; i++)
		lsm_layer_free(ls->l[i]);
	kfree(ls);
	return err;
}

/* Replay the log from the first live segment; sets next_seq. */
static int lsm_store_replay(struct lsm_store *st)
{
	struct lsm_replay r = { .st = st };
	u64 expect = st->m.nr_segs ? st->m.segs[0].first_seq : 0;
	int err;

	for (unsigned int i = 0; i < st->m.nr_segs; i++) {
		/*
		 * A run may hold records the log never got to write (its
		 * tail was in memory when the manifest recorded the run):
		 * after such a crash the next segment starts past the gap,
		 * at persisted_seq + 1, and must still be replayed.
		 */
		if (st->m.segs[i].first_seq > expect &&
		    st->m.segs[i].first_seq <= st->m.persisted_seq + 1)
			expect = st->m.segs[i].first_seq;
		if (st->m.segs[i].first_seq != expect)
			break;		/* an earlier segment ended early */
		err = lsm_wal_replay(st->bdev, st->sb.store_id, &st->m.segs[i],
				     &expect, lsm_store_replay_apply, &r);
		if (err)
			return err;
	}
	st->next_seq = max(expect, st->m.persisted_seq + 1);
	return 0;
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
	if (!st->opt.block_cache_bytes)
		st->opt.block_cache_bytes = LSM_BLOCK_CACHE_DEFAULT;
	mutex_init(&st->write_mutex);
	mutex_init(&st->manifest_mutex);
	spin_lock_init(&st->layers_lock);
	spin_lock_init(&st->commit_lock);
	init_waitqueue_head(&st->wait);
	init_waitqueue_head(&st->commit_wait);
	INIT_WORK(&st->flush_work, lsm_store_flush_work);
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
	st->pool = lsm_pool_create(LSM_POOL_CLASSES, GFP_KERNEL);
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
		err = lsm_super_write(bdev, &st->sb);
		mutex_unlock(&st->manifest_mutex);
	}
	if (err)
		goto fail_wal;
	st->started = true;
	if (st->nr_imm)
		queue_work(system_unbound_wq, &st->flush_work);
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

	cancel_delayed_work_sync(&st->commit_work);
	err = st->opt.no_wal ? lsm_store_flush(st) : lsm_store_sync(st);
	if (!err)
		wait_event(st->wait, READ_ONCE(st->error) ||
			   !READ_ONCE(st->nr_imm));
	cancel_work_sync(&st->flush_work);
	if (!err && READ_ONCE(st->error))
		err = -EIO;
	if (!err) {
		mutex_lock(&st->manifest_mutex);
		st->sb.flags |= LSM_SUPER_CLEAN;
		err = lsm_super_write(st->bdev, &st->sb);
		mutex_unlock(&st->manifest_mutex);
		if (err) {
			lsm_store_fail(st, err);
			err = -EIO;
		}
	}
	lsm_wal_destroy(&st->wal);
	lsm_layers_put(st, st->layers);
	lsm_block_cache_destroy(st->cache);	/* after the runs dropped theirs */
	lsm_pool_destroy(st->pool);
	lsm_manifest_destroy(&st->m);
	lsm_space_destroy(&st->space);
	mutex_destroy(&st->write_mutex);
	mutex_destroy(&st->manifest_mutex);
	kfree(st);
	return err;
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

	memset(stats, 0, sizeof(*stats));
	mutex_lock(&st->write_mutex);
	ls = st->layers;
	stats->memtable_bytes = lsm_mem_bytes(ls->l[0]->mt);
	stats->immutables = ls->nr_imm;
	stats->runs = ls->nr - 1 - ls->nr_imm;
	stats->flushes = st->flushes;
	stats->stalls = st->stalls;
	stats->stall_ns = st->stall_ns;
	stats->wal_bytes = st->wal.bytes;
	stats->run_bytes = st->run_bytes;
	stats->user_bytes = st->user_bytes;
	stats->seq = st->next_seq - 1;
	mutex_unlock(&st->write_mutex);
	mutex_lock(&st->manifest_mutex);
	stats->manifest_bytes = st->m.bytes;
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

	mutex_lock(&st->manifest_mutex);
	err = lsm_manifest_check(&st->m, st->unrecorded);
	mutex_unlock(&st->manifest_mutex);
	return err;
}
