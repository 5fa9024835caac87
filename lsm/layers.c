// SPDX-License-Identifier: GPL-2.0
/*
 * The layer sets of a store (store_int.h): what a reader sees, newest
 * first: the active memtable, the immutable ones, the runs of level 0
 * one by one, then levels 1 to LSM_BOTTOM, each read as one layer.
 *
 * A set is never changed once published.  A reader takes a reference on
 * the current set under layers_lock and drops it when its call ends;
 * a layer (memtable or run) is held by every set that lists it, so it
 * stays open while any reader may use it.  When a merge has dropped a
 * run by a durable manifest edit, the run's device space is not free
 * yet: a reader of an older set may still read its blocks.  The layer is
 * marked to release, and when the last set holding it goes, it joins
 * the store's list of released layers, whose space lsm_store_reclaim()
 * gives back to the allocator under the manifest mutex, before the next
 * allocation.  So no block is rewritten while a reader can reach it, and
 * no block is given back before the manifest that stops using it is
 * durable.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include "store_int.h"

/**
 * lsm_layers_alloc() - an empty layer set of @nr layers
 * @nr: how many layers it will hold
 *
 * The caller fills in l[], nr_imm and lv[]; lsm_layers_publish() does
 * the rest.
 *
 * Context: process; may sleep.
 * Return: the set, with one reference, or NULL without memory.
 */
struct lsm_layers *lsm_layers_alloc(unsigned int nr)
{
	size_t size = sizeof(struct lsm_layers) +
		      nr * (sizeof(struct lsm_layer *) +
			    sizeof(struct lsm_run *) +
			    sizeof(struct lsm_run_info *));
	struct lsm_layers *ls = kzalloc(size, GFP_KERNEL);

	if (ls) {
		ls->ref = 1;
		ls->nr = nr;
		ls->runs = (struct lsm_run **)&ls->l[nr];
		ls->infos = (const struct lsm_run_info **)&ls->runs[nr];
		ls->lv[LSM_LEVELS] = nr;
	}
	return ls;
}

/**
 * lsm_layers_get() - take a reference on the current layer set
 * @st: the store
 *
 * Context: any; takes layers_lock.
 * Return: the set; lsm_layers_put() drops it.
 */
struct lsm_layers *lsm_layers_get(struct lsm_store *st)
{
	struct lsm_layers *ls;

	spin_lock(&st->layers_lock);
	ls = st->layers;
	ls->ref++;
	spin_unlock(&st->layers_lock);
	return ls;
}

/**
 * lsm_layer_free() - free a layer no set holds, giving nothing back
 * @l: the layer, or NULL
 *
 * Context: process; may sleep.
 */
void lsm_layer_free(struct lsm_layer *l)
{
	if (!l)
		return;
	if (l->mt)
		lsm_mem_destroy(l->mt);
	if (l->run)
		lsm_run_close(l->run);
	kfree(l);
}

/**
 * lsm_layers_put() - drop a reference on a layer set
 * @st: the store
 * @ls: the set
 *
 * Frees the set when this was the last reference, and every layer no
 * other set holds; a released run's layer goes to the store's list of
 * space to give back (lsm_store_reclaim()).
 *
 * Context: process; may sleep.  Never called with the manifest mutex.
 */
void lsm_layers_put(struct lsm_store *st, struct lsm_layers *ls)
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
	for (i = 0; i < n; i++) {
		struct lsm_layer *l = ls->l[i];
		bool release;

		if (l->mt)
			lsm_mem_destroy(l->mt);
		l->mt = NULL;
		if (l->run)
			lsm_run_close(l->run);
		l->run = NULL;
		spin_lock(&st->layers_lock);
		release = l->release;
		if (release) {
			l->next_released = st->released;
			st->released = l;
		}
		spin_unlock(&st->layers_lock);
		if (!release)
			kfree(l);
	}
	kfree(ls);
}

/**
 * lsm_store_reclaim() - give back the space of released runs
 * @st: the store
 *
 * Context: process; the caller holds the manifest mutex.
 */
void lsm_store_reclaim(struct lsm_store *st)
{
	struct lsm_layer *l;

	lockdep_assert_held(&st->manifest_mutex);
	spin_lock(&st->layers_lock);
	l = st->released;
	st->released = NULL;
	spin_unlock(&st->layers_lock);
	while (l) {
		struct lsm_layer *next = l->next_released;

		lsm_space_free(&st->space, l->info.first_block,
			       l->info.nr_blocks);
		st->unreleased -= l->info.nr_blocks;
		kfree(l);
		l = next;
	}
}

/**
 * lsm_layers_shape() - a layer set's runs, as compaction sees them
 * @ls: the set, published (its records filled in)
 * @s:  filled in; it points into @ls
 *
 * Context: any.
 */
void lsm_layers_shape(const struct lsm_layers *ls, struct lsm_shape *s)
{
	for (unsigned int k = 0; k < LSM_LEVELS; k++) {
		s->runs[k] = &ls->infos[ls->lv[k]];
		s->nr[k] = ls->lv[k + 1] - ls->lv[k];
		s->bytes[k] = 0;
		for (unsigned int i = 0; i < s->nr[k]; i++)
			s->bytes[k] += s->runs[k][i]->nr_blocks * LSM_BLOCK_SIZE;
	}
}

/**
 * lsm_layers_level() - a level of a layer set
 * @ls: the set, published
 * @k:  the level, 1 to LSM_BOTTOM
 *
 * Context: any.
 * Return: the level, pointing into @ls.
 */
struct lsm_level lsm_layers_level(const struct lsm_layers *ls, unsigned int k)
{
	return (struct lsm_level){
		.runs = &ls->runs[ls->lv[k]],
		.nr = ls->lv[k + 1] - ls->lv[k],
	};
}

/**
 * lsm_layers_source() - one of the sources a read consults
 * @ls:  the set, published
 * @s:   below lsm_layers_nr_sources(@ls); a lower one is newer
 * @src: filled in
 *
 * Context: any.
 */
void lsm_layers_source(const struct lsm_layers *ls, unsigned int s,
		       struct lsm_source *src)
{
	if (s < ls->lv[0]) {
		*src = (struct lsm_source){ .mt = ls->l[s]->mt };
	} else if (s < ls->lv[1]) {
		*src = (struct lsm_source){
			.lv = { .runs = &ls->runs[s], .nr = 1 },
		};
	} else {
		*src = (struct lsm_source){
			.lv = lsm_layers_level(ls, s - ls->lv[1] + 1),
		};
	}
}

/* Fill in a set's slices and the figures writers stall on. */
static void lsm_layers_index(struct lsm_layers *ls)
{
	for (unsigned int i = 0; i < ls->nr; i++) {
		ls->runs[i] = ls->l[i]->run;
		ls->infos[i] = ls->l[i]->run ? &ls->l[i]->info : NULL;
	}
}

/**
 * lsm_layers_publish() - make a layer set the current one
 * @st: the store
 * @ls: the set, its layers filled in (their references are taken here)
 *
 * Drops the store's reference on the set it replaces, and wakes writers
 * waiting for level 0 or the merges' backlog to shrink.
 *
 * Context: process; may sleep.  The caller holds the write mutex, or is
 * the open that has not yet returned the store.
 */
void lsm_layers_publish(struct lsm_store *st, struct lsm_layers *ls)
{
	struct lsm_compact_targets t;
	struct lsm_layers *old;
	struct lsm_shape s;

	lsm_layers_index(ls);
	lsm_layers_shape(ls, &s);
	lsm_compact_targets(&s, &st->ccfg, &t);
	spin_lock(&st->layers_lock);
	for (unsigned int i = 0; i < ls->nr; i++)
		ls->l[i]->ref++;
	old = st->layers;
	st->layers = ls;
	spin_unlock(&st->layers_lock);
	WRITE_ONCE(st->nr_imm, ls->nr_imm);
	WRITE_ONCE(st->l0_runs, s.nr[0]);
	WRITE_ONCE(st->pending_bytes, t.pending);
	if (old)
		lsm_layers_put(st, old);
	wake_up_all(&st->wait);
}

/**
 * lsm_layers_check() - check a layer set's invariants
 * @ls: the set, published
 *
 * Memtables first, then runs; the runs of each level other than 0 in
 * key order and apart.
 *
 * Context: any.
 * Return: 0, or -EUCLEAN naming the broken invariant in a message.
 */
int lsm_layers_check(const struct lsm_layers *ls)
{
	const char *what = NULL;

	if (ls->lv[0] != ls->nr_imm + 1 || ls->lv[LSM_LEVELS] != ls->nr)
		what = "slices do not add up";
	for (unsigned int k = 0; !what && k < LSM_LEVELS; k++)
		if (ls->lv[k] > ls->lv[k + 1])
			what = "slices out of order";
	for (unsigned int i = 0; !what && i < ls->nr; i++)
		if (ls->l[i]->mt ? i >= ls->lv[0] : i < ls->lv[0])
			what = "a memtable among the runs, or a run among the memtables";
	for (unsigned int k = 1; !what && k < LSM_LEVELS; k++)
		for (unsigned int i = ls->lv[k] + 1; i < ls->lv[k + 1]; i++)
			if (ls->infos[i - 1]->last_key >= ls->infos[i]->first_key)
				what = "runs of a level out of order or overlapping";
	if (!what)
		return 0;
	pr_err("lsm: layer set check: %s\n", what);
	return -EUCLEAN;
}
