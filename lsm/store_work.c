// SPDX-License-Identifier: GPL-2.0
/*
 * The store's background work (store_int.h has the locking): immutable
 * memtables written out as runs of level 0 (flush), and runs merged down
 * the levels (compaction, Documentation/lsm.rst "Levels and
 * compaction").
 *
 * A flush and a merge run at the same time, on separate work items: a
 * flush only adds a run to level 0, a merge takes runs out of two levels
 * and puts runs into the lower one, and each builds the next layer set
 * from the current one under the write mutex.  One merge runs at a time
 * (compact_mutex), so the levels below level 0 change only under it, and
 * a merge decides on a snapshot of the layers that stays true for them.
 *
 * Every new run is written and its blocks flushed before the manifest
 * edit that records it (the edit's PREFLUSH), and it is unrecorded space
 * until then, given back if the edit is never made.  A merge's edit
 * drops its inputs and records its outputs at once; the inputs' space
 * goes back to the allocator only once no layer set holds them
 * (layers.c), so a reader of an older set never reads a block that a
 * new run has overwritten.
 */
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "merge.h"
#include "piece_buf.h"
#include "store_int.h"
#include "store_window.h"
#include <trace/events/sl_lsm.h>

/*
 * Write a run of @src into new space, at @level, and open it: a layer of
 * its own, counted as unrecorded space until a manifest edit records it
 * or lsm_store_drop_run() gives it back.
 */
static int lsm_store_make_run(struct lsm_store *st, struct lsm_run_source *src,
			      u32 level, struct lsm_layer **lp)
{
	struct lsm_run_info info = { .level = level };
	struct lsm_layer *l = NULL;
	int err;

	err = lsm_run_size(src, &info.nr_blocks);
	if (err)
		return err;
	mutex_lock(&st->manifest_mutex);
	lsm_store_reclaim(st);
	err = lsm_space_alloc(&st->space, info.nr_blocks, &info.first_block);
	if (!err) {
		info.id = lsm_manifest_new_id(&st->m);
		st->unrecorded += info.nr_blocks;
	}
	mutex_unlock(&st->manifest_mutex);
	if (err)
		return err;
	src->rewind(src->priv);
	err = lsm_run_write(st->bdev, st->sb.store_id, src, &info);
	if (!err) {
		l = kzalloc(sizeof(*l), GFP_KERNEL);
		err = l ? 0 : -ENOMEM;
	}
	if (!err)
		err = lsm_run_open(st->bdev, st->sb.store_id, &info,
				   st->cache, &l->run);
	if (err) {
		kfree(l);
		mutex_lock(&st->manifest_mutex);
		st->unrecorded -= info.nr_blocks;
		lsm_space_free(&st->space, info.first_block, info.nr_blocks);
		mutex_unlock(&st->manifest_mutex);
		return err;
	}
	l->info = info;
	*lp = l;
	return 0;
}

/* Give back a run of lsm_store_make_run() that no edit recorded. */
static void lsm_store_drop_run(struct lsm_store *st, struct lsm_layer *l)
{
	lsm_run_close(l->run);
	mutex_lock(&st->manifest_mutex);
	st->unrecorded -= l->info.nr_blocks;
	lsm_space_free(&st->space, l->info.first_block, l->info.nr_blocks);
	mutex_unlock(&st->manifest_mutex);
	kfree(l);
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

/*
 * A flush's event: its time, a call of the clock the compiler cannot
 * leave out, only while the event is enabled.
 */
static void lsm_store_trace_flush(struct lsm_store *st,
				  const struct lsm_run_info *run, u64 last_seq,
				  int err, u64 t0)
{
	if (trace_lsm_flush_enabled())
		trace_lsm_flush(st, run->id, run->nr_blocks, run->nr_pieces,
				last_seq, err, ktime_get_ns() - t0);
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
	struct lsm_layers *snap, *cur, *ls;
	struct lsm_layer *imm, *rl = NULL;
	struct lsm_edit *e = NULL;
	struct lsm_wal_seg *freed = NULL;
	unsigned int nr_freed = 0, i;
	struct lsm_run_info run = {};
	u64 t0 = ktime_get_ns();
	int err;

	snap = lsm_layers_get(st);
	if (!snap->nr_imm) {
		lsm_layers_put(st, snap);
		return 1;
	}
	imm = snap->l[snap->nr_imm];
	ms.mt = imm->mt;
	err = lsm_store_make_run(st, &src, 0, &rl);
	if (err == -ENOSPC)
		goto nospc;
	if (err)
		goto out;
	/* For the event: the layer may go to a merge once published. */
	run = rl->info;
	e = lsm_edit_alloc(LSM_EDIT_MAX);
	freed = kcalloc(LSM_EDIT_MAX, sizeof(*freed), GFP_KERNEL);
	if (!e || !freed) {
		lsm_store_drop_run(st, rl);
		err = -ENOMEM;
		goto out;
	}

	lsm_window(st, LSM_WIN_FLUSH_WRITTEN);
	/* The run, and the segments only its writes were in: one edit. */
	mutex_lock(&st->manifest_mutex);
	lsm_store_reclaim(st);
	lsm_edit_run_add(e, &rl->info);
	for (i = 0; i + 1 < st->m.nr_segs && nr_freed < LSM_EDIT_MAX - 1; i++) {
		if (st->m.segs[i + 1].first_seq - 1 > imm->last_seq)
			break;
		lsm_edit_seg_del(e, st->m.segs[i].id);
		freed[nr_freed++] = st->m.segs[i];
	}
	/*
	 * PREFLUSH: the run is durable before the edit that records it.  A
	 * failed store writes nothing more (its manifest refuses anyway if
	 * an edit failed).
	 */
	err = READ_ONCE(st->error) ? -EIO :
	      lsm_manifest_commit(&st->m, e, imm->last_seq);
	st->unrecorded -= rl->info.nr_blocks;
	if (!err)
		for (i = 0; i < nr_freed; i++)
			lsm_space_free(&st->space, freed[i].start,
				       freed[i].nr);
	/* No room to roll the manifest over: nothing changed. */
	if (err == -ENOSPC)
		lsm_space_free(&st->space, rl->info.first_block,
			       rl->info.nr_blocks);
	mutex_unlock(&st->manifest_mutex);
	if (err == -ENOSPC) {
		lsm_run_close(rl->run);
		kfree(rl);
		goto nospc;
	}
	if (err)
		goto fail;
	lsm_window(st, LSM_WIN_FLUSH_RECORDED);

	/* Readers see the run where the memtable was: level 0's newest. */
	mutex_lock(&st->write_mutex);
	cur = st->layers;	/* the write mutex keeps it current */
	ls = lsm_layers_alloc(cur->nr);
	if (!ls) {
		mutex_unlock(&st->write_mutex);
		err = -ENOMEM;
		goto fail;
	}
	/* The oldest memtable is the last one, just before level 0. */
	i = cur->nr_imm;
	WARN_ON_ONCE(cur->l[i] != imm);
	memcpy(ls->l, cur->l, cur->nr * sizeof(cur->l[0]));
	ls->l[i] = rl;
	ls->nr_imm = cur->nr_imm - 1;
	memcpy(ls->lv, cur->lv, sizeof(ls->lv));
	ls->lv[0]--;
	st->flushes++;
	st->run_bytes += rl->info.nr_blocks * LSM_BLOCK_SIZE;
	/*
	 * The event before the publish wakes lsm_store_flush()'s waiters:
	 * whoever saw the flush end (and the count go up) has its event.
	 */
	lsm_store_trace_flush(st, &run, imm->last_seq, 0, t0);
	lsm_layers_publish(st, ls);
	mutex_unlock(&st->write_mutex);
	WRITE_ONCE(st->flush_error, 0);
	queue_work(system_unbound_wq, &st->compact_work);
	lsm_layers_put(st, snap);
	lsm_edit_free(e);
	kfree(freed);
	return 0;

nospc:
	/*
	 * The device is full: the memtable stays (its writes are in the
	 * log), writers that wait for it get -ENOSPC, and the next write or
	 * merge tries again.
	 */
	WRITE_ONCE(st->flush_error, -ENOSPC);
	wake_up_all(&st->wait);
	lsm_store_trace_flush(st, &run, imm->last_seq, -ENOSPC, t0);
	lsm_layers_put(st, snap);
	lsm_edit_free(e);
	kfree(freed);
	return -ENOSPC;

fail:
	/* The manifest may name the run: its space stays as it is. */
	lsm_run_close(rl->run);
	kfree(rl);
out:
	lsm_store_fail(st, err);
	lsm_store_trace_flush(st, &run, imm->last_seq, err, t0);
	lsm_layers_put(st, snap);
	lsm_edit_free(e);
	kfree(freed);
	return err;
}

/**
 * lsm_store_flush_work() - write immutable memtables out, oldest first
 * @work: the store's flush_work
 *
 * Context: process (a work item); sleeps.
 */
void lsm_store_flush_work(struct work_struct *work)
{
	struct lsm_store *st = container_of(work, struct lsm_store,
					    flush_work);

	while (!READ_ONCE(st->error) && !lsm_store_flush_one(st))
		;
}

/* What a merge reads and writes. */
struct lsm_merge_job {
	struct lsm_compact_job job;
	struct lsm_shape shape;
	struct lsm_layer **in;		/* from @from, then from @to */
	unsigned int nr_in;
	struct lsm_layer **out;		/* written to @to, in key order */
	unsigned int nr_out, cap_out;
};

/* A punch written to level @to is kept if a lower level may hold data. */
static bool lsm_merge_keep_punch(void *priv, u64 first, u64 last)
{
	struct lsm_merge_job *mj = priv;

	return lsm_compact_below(&mj->shape, mj->job.to, first, last);
}

/* Write the pieces gathered as the merge's next output run. */
static int lsm_merge_emit(struct lsm_store *st, struct lsm_merge_job *mj,
			  struct lsm_piece_buf *pb)
{
	struct lsm_run_source src;
	struct lsm_layer *l;
	int err;

	if (mj->nr_out == mj->cap_out) {
		unsigned int cap = mj->cap_out ? 2 * mj->cap_out : 8;
		struct lsm_layer **n = kcalloc(cap, sizeof(*n), GFP_KERNEL);

		if (!n)
			return -ENOMEM;
		if (mj->out)
			memcpy(n, mj->out, mj->nr_out * sizeof(*n));
		kfree(mj->out);
		mj->out = n;
		mj->cap_out = cap;
	}
	lsm_piece_buf_source(pb, &src);
	err = lsm_store_make_run(st, &src, mj->job.to, &l);
	if (err)
		return err;
	mj->out[mj->nr_out++] = l;
	lsm_piece_buf_clear(pb);
	return 0;
}

/*
 * Merge the inputs of @mj (in @snap) into new runs of its lower level,
 * cut into runs of about run_bytes each.  On error the runs written are
 * given back.
 */
static int lsm_merge_runs(struct lsm_store *st, struct lsm_layers *snap,
			  struct lsm_merge_job *mj)
{
	const struct lsm_compact_job *job = &mj->job;
	unsigned int nr_lv = 0, i;
	struct lsm_piece_buf pb;
	struct lsm_level *lvs;
	struct lsm_merge mg;
	struct lsm_piece p;
	void *vbuf;
	int err;

	lvs = kcalloc(job->from_nr + 1, sizeof(*lvs), GFP_KERNEL);
	vbuf = kvmalloc(LSM_VALUE_MAX, GFP_KERNEL);
	lsm_piece_buf_init(&pb);
	memset(&mg, 0, sizeof(mg));
	err = -ENOMEM;
	if (!lvs || !vbuf)
		goto out;
	/* Newest first: level 0's runs one by one, then the lower level. */
	for (i = 0; i < job->from_nr; i++)
		lvs[nr_lv++] = (struct lsm_level){
			.runs = &snap->runs[snap->lv[job->from] +
					    job->from_first + i],
			.nr = 1,
		};
	if (job->to_nr)
		lvs[nr_lv++] = (struct lsm_level){
			.runs = &snap->runs[snap->lv[job->to] + job->to_first],
			.nr = job->to_nr,
		};
	err = lsm_merge_init(&mg, lvs, nr_lv);
	mg.keep_punch = lsm_merge_keep_punch;
	mg.priv = mj;
	while (!err) {
		if (READ_ONCE(st->error) || READ_ONCE(st->stopping)) {
			err = -ECANCELED;
			break;
		}
		err = lsm_merge_next(&mg, &p, vbuf);
		if (err == -ENOENT) {
			err = pb.nr ? lsm_merge_emit(st, mj, &pb) : 0;
			break;
		}
		if (!err)
			err = lsm_piece_buf_add(&pb, &p);
		if (!err && pb.bytes >= st->opt.run_bytes)
			err = lsm_merge_emit(st, mj, &pb);
	}
	if (err) {
		while (mj->nr_out)
			lsm_store_drop_run(st, mj->out[--mj->nr_out]);
	}
out:
	lsm_merge_destroy(&mg);
	lsm_piece_buf_destroy(&pb);
	kvfree(vbuf);
	kfree(lvs);
	return err;
}

/*
 * The layer set @cur with @del taken out and @add (in key order, apart
 * from the runs of @level that stay) put into level @level.
 */
static struct lsm_layers *lsm_layers_replace(const struct lsm_layers *cur,
					     struct lsm_layer *const *del,
					     unsigned int nr_del,
					     struct lsm_layer *const *add,
					     unsigned int nr_add,
					     unsigned int level)
{
	struct lsm_layers *ls;
	unsigned int i, j = 0, d, a = 0, gone = 0;

	for (i = cur->lv[0]; i < cur->nr; i++)
		for (d = 0; d < nr_del; d++)
			gone += cur->l[i] == del[d];
	ls = lsm_layers_alloc(cur->nr - gone + nr_add);
	if (!ls)
		return NULL;
	ls->nr_imm = cur->nr_imm;
	for (; j < cur->lv[0]; j++)
		ls->l[j] = cur->l[j];
	for (unsigned int k = 0; k < LSM_LEVELS; k++) {
		ls->lv[k] = j;
		for (i = cur->lv[k]; i < cur->lv[k + 1]; i++) {
			struct lsm_layer *l = cur->l[i];

			for (d = 0; d < nr_del && l != del[d]; d++)
				;
			if (d < nr_del)
				continue;
			while (k == level && a < nr_add &&
			       add[a]->info.first_key < l->info.first_key)
				ls->l[j++] = add[a++];
			ls->l[j++] = l;
		}
		while (k == level && a < nr_add)
			ls->l[j++] = add[a++];
	}
	WARN_ON_ONCE(j != ls->nr);
	return ls;
}

/*
 * Record a merge durably (its inputs dropped, its outputs, or for a move
 * its inputs at their new level, recorded: one edit) and show it to
 * readers.  -ENOSPC (a roll-over of the manifest found no room) and
 * -ENOMEM before the edit is made change nothing.  Once the edit is
 * tried, the manifest, in memory or on the device, may name the outputs
 * and not the inputs, so that no space may be given back: any other
 * failure turns the store read-only here, and gives -EIO.
 */
static int lsm_merge_install(struct lsm_store *st, struct lsm_merge_job *mj)
{
	const struct lsm_compact_job *job = &mj->job;
	struct lsm_layer *const *add = job->move ? mj->in : mj->out;
	unsigned int nr_add = job->move ? mj->nr_in : mj->nr_out, i;
	struct lsm_layers *ls;
	struct lsm_edit *e;
	u64 written = 0, read = 0;
	int err;

	lsm_window(st, LSM_WIN_MERGE_WRITTEN);
	e = lsm_edit_alloc(mj->nr_in + nr_add);
	if (!e)
		return -ENOMEM;
	for (i = 0; i < mj->nr_in; i++) {
		lsm_edit_run_del(e, mj->in[i]->info.id);
		read += mj->in[i]->info.nr_blocks * LSM_BLOCK_SIZE;
	}
	for (i = 0; i < nr_add; i++) {
		struct lsm_run_info info = add[i]->info;

		info.level = job->to;
		lsm_edit_run_add(e, &info);
		written += info.nr_blocks * LSM_BLOCK_SIZE;
	}
	mutex_lock(&st->manifest_mutex);
	lsm_store_reclaim(st);
	/* The merge may have begun before the store failed: no edit then. */
	err = READ_ONCE(st->error) ? -EIO :
	      lsm_manifest_commit(&st->m, e, st->m.persisted_seq);
	if (!err && !job->move) {
		st->unrecorded -= written >> LSM_BLOCK_SHIFT;
		st->unreleased += read >> LSM_BLOCK_SHIFT;
	}
	mutex_unlock(&st->manifest_mutex);
	lsm_edit_free(e);
	if (err == -ENOSPC)
		return err;
	if (err)
		goto fail;
	lsm_window(st, LSM_WIN_MERGE_RECORDED);

	mutex_lock(&st->write_mutex);
	ls = lsm_layers_replace(st->layers, mj->in, mj->nr_in, add, nr_add,
				job->to);
	if (!ls) {
		mutex_unlock(&st->write_mutex);
		err = -ENOMEM;
		goto fail;
	}
	if (!job->move) {
		spin_lock(&st->layers_lock);
		for (i = 0; i < mj->nr_in; i++)
			mj->in[i]->release = true;
		spin_unlock(&st->layers_lock);
		st->compact_read_bytes += read;
		st->compact_write_bytes += written;
		st->run_bytes += written;
	}
	st->compactions++;
	lsm_layers_publish(st, ls);
	mutex_unlock(&st->write_mutex);
	return 0;

fail:
	lsm_store_fail(st, err);
	return -EIO;
}

/* The event of a merge that was picked, done or not. */
static noinline void lsm_store_trace_merge(struct lsm_store *st,
					   const struct lsm_merge_job *mj,
					   int err, u64 t0)
{
	u64 read = 0, written = 0;
	unsigned int i;

	for (i = 0; !mj->job.move && mj->in && i < mj->nr_in; i++)
		read += mj->in[i]->info.nr_blocks * LSM_BLOCK_SIZE;
	for (i = 0; !mj->job.move && !err && i < mj->nr_out; i++)
		written += mj->out[i]->info.nr_blocks * LSM_BLOCK_SIZE;
	trace_lsm_compaction(st, mj->job.from, mj->job.to, mj->nr_in,
			     err ? 0 : mj->nr_out, mj->job.move, read, written,
			     err, ktime_get_ns() - t0);
}

/*
 * Do the merge that is due next (with @full, any merge that moves runs
 * toward the bottom level).  1 if none is due; -ECANCELED if the store
 * is closing; -ENOSPC or -ENOMEM with nothing changed; another errno
 * after which the store must fail.
 */
static int lsm_store_compact_one(struct lsm_store *st, bool full)
{
	struct lsm_compact_targets t;
	struct lsm_merge_job mj = { .nr_in = 0 };
	struct lsm_compact_job *job = &mj.job;
	struct lsm_layers *snap;
	u64 t0 = ktime_get_ns();
	unsigned int i;
	int err;

	lockdep_assert_held(&st->compact_mutex);
	snap = lsm_layers_get(st);
	lsm_layers_shape(snap, &mj.shape);
	lsm_compact_targets(&mj.shape, &st->ccfg, &t);
	if (!lsm_compact_pick(&mj.shape, &st->ccfg, &t, full, st->cursor,
			      job)) {
		lsm_layers_put(st, snap);
		return 1;
	}
	mj.nr_in = job->from_nr + job->to_nr;
	mj.in = kcalloc(mj.nr_in, sizeof(*mj.in), GFP_KERNEL);
	err = -ENOMEM;
	if (!mj.in)
		goto out;
	for (i = 0; i < job->from_nr; i++)
		mj.in[i] = snap->l[snap->lv[job->from] + job->from_first + i];
	for (i = 0; i < job->to_nr; i++)
		mj.in[job->from_nr + i] = snap->l[snap->lv[job->to] +
						  job->to_first + i];
	/* Runs of level 0 moved down go in key order, as the level keeps them. */
	for (i = 1; job->move && i < mj.nr_in; i++) {
		struct lsm_layer *l = mj.in[i];
		unsigned int j = i;

		for (; j && mj.in[j - 1]->info.first_key > l->info.first_key; j--)
			mj.in[j] = mj.in[j - 1];
		mj.in[j] = l;
	}
	err = job->move ? 0 : lsm_merge_runs(st, snap, &mj);
	if (!err) {
		err = lsm_merge_install(st, &mj);
		/* Not recorded: their space goes back. */
		if (err == -ENOSPC || err == -ENOMEM)
			while (mj.nr_out)
				lsm_store_drop_run(st, mj.out[--mj.nr_out]);
		/* Maybe recorded (the store failed): their space stays. */
		while (err && mj.nr_out)
			lsm_layer_free(mj.out[--mj.nr_out]);
	}
	if (!err) {
		mutex_lock(&st->write_mutex);
		st->compact_ns += ktime_get_ns() - t0;
		mutex_unlock(&st->write_mutex);
	}
out:
	if (trace_lsm_compaction_enabled())
		lsm_store_trace_merge(st, &mj, err, t0);
	kfree(mj.in);
	kfree(mj.out);
	lsm_layers_put(st, snap);
	return err;
}

/* After a merge's error: 0 to go on, else the error to stop with. */
static int lsm_store_compact_failed(struct lsm_store *st, int err)
{
	if (err == -ECANCELED || err == -ENOSPC || err == -ENOMEM) {
		WRITE_ONCE(st->compact_error, err);
		wake_up_all(&st->wait);
		return err;
	}
	/* A device error or a damaged run: as a failed flush. */
	lsm_store_fail(st, err);
	return -EIO;
}

/**
 * lsm_store_compact_work() - merge runs down while a merge is due
 * @work: the store's compact_work
 *
 * Queued after each flush and at open.  A merge that finds no memory is
 * tried again 20 ms later (writers stopped on level 0 wait for it);
 * one that finds no space stops until the next flush or stalled write
 * queues the work again.
 *
 * Context: process (a work item); sleeps.
 */
void lsm_store_compact_work(struct work_struct *work)
{
	struct lsm_store *st = container_of(work, struct lsm_store,
					    compact_work);
	int err;

	mutex_lock(&st->compact_mutex);
	while (!READ_ONCE(st->error) && !READ_ONCE(st->stopping)) {
		err = lsm_store_compact_one(st, false);
		if (err == 1) {
			WRITE_ONCE(st->compact_error, 0);
			break;
		}
		if (!err) {
			WRITE_ONCE(st->compact_error, 0);
			/* A flush that found no room may find some now. */
			if (READ_ONCE(st->flush_error))
				queue_work(system_unbound_wq, &st->flush_work);
			continue;
		}
		if (lsm_store_compact_failed(st, err) != -ENOMEM)
			break;
		mutex_unlock(&st->compact_mutex);
		msleep(20);
		mutex_lock(&st->compact_mutex);
	}
	mutex_unlock(&st->compact_mutex);
}

/**
 * lsm_store_compact() - merge runs down now
 * @st:   the store
 * @full: merge until every run is in the bottom level, not only until
 *        every level is within its target
 *
 * For tests and tools (a full merge leaves the fewest runs, and the
 * space the data needs: space amplification's denominator).  Runs
 * alongside the work item, one merge at a time.
 *
 * Context: process context, may sleep.
 * Return: 0 once no merge is due; -ENOSPC or -ENOMEM when a merge could
 * not run (nothing changed); -EIO if the store failed.
 */
int lsm_store_compact(struct lsm_store *st, bool full)
{
	int err;

	mutex_lock(&st->compact_mutex);
	do {
		err = READ_ONCE(st->error) ? -EIO :
		      lsm_store_compact_one(st, full);
	} while (!err);
	mutex_unlock(&st->compact_mutex);
	if (err == 1)
		return 0;
	if (err == -EIO)
		return err;
	return lsm_store_compact_failed(st, err);
}
