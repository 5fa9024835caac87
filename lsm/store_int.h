/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The store's insides, shared by its files: store.c (writes, reads, open
 * and close), layers.c (the layer sets readers see) and store_work.c
 * (its work items: memtables written out as runs, runs merged down).
 * Nothing outside those files includes this.
 *
 * Locks, in the order they nest:
 *  - @compact_mutex: one merge at a time (the work item, or
 *    lsm_store_compact()).
 *  - @write_mutex: sequence numbers, the log's writer, memtable inserts
 *    and the switch of a full memtable, so that inserts happen in
 *    sequence order and the log's order is the memtable's; and every
 *    change of the current layer set.
 *  - @manifest_mutex: the manifest, the device space and the superblock.
 *  - @layers_lock (spinlock): the pointer to the current layer set,
 *    every reference count of layer sets and layers, and the list of
 *    layers whose space waits to be given back.
 *  - @commit_lock (spinlock, taken alone): the group commit's state,
 *    @committing, @durable_seq and group commit's gathering; never held
 *    across a device call.
 * A layer set is never changed once published: a change makes a new set
 * and swaps the pointer.  A reader takes a reference on the set for the
 * length of its call, so memtables and runs it uses stay, and reads the
 * memtables locklessly (memtable.h): readers never wait for writers.
 */
#ifndef _LSM_STORE_INT_H
#define _LSM_STORE_INT_H

#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "block_cache.h"
#include "compact.h"
#include "level.h"
#include "manifest.h"
#include "memtable.h"
#include "pool.h"
#include "run.h"
#include "space.h"
#include "store.h"
#include "super.h"
#include "wal.h"

/**
 * struct lsm_layer - a memtable or a run, as one layer of the store
 * @ref:      references from layer sets (under the store's layers_lock)
 * @mt:       the memtable, or NULL for a run
 * @run:      the run, or NULL for a memtable
 * @info:     a run's record in the manifest (its level is the one it was
 *            written to: the layer set's position says where it is now)
 * @last_seq: a memtable's newest write (its run's persisted_seq)
 * @release:  a durable manifest edit dropped the run: its space goes back
 *            to the allocator once no layer set holds it (set before the
 *            set without it is published, read when the last reference
 *            goes, both under layers_lock)
 * @next_released: the store's list of layers whose space waits to be
 *            given back
 */
struct lsm_layer {
	int ref;
	struct lsm_memtable *mt;
	struct lsm_run *run;
	struct lsm_run_info info;
	u64 last_seq;
	bool release;
	struct lsm_layer *next_released;
};

/**
 * struct lsm_layers - the layers readers see, newest first
 * @ref:    references (under the store's layers_lock)
 * @nr:     layers
 * @nr_imm: immutable memtables
 * @lv:     where each level's runs begin in @l: @l[0] is the active
 *          memtable, @l[1] to @l[@nr_imm] the immutable ones newest
 *          first, @l[@lv[k]] to @l[@lv[k + 1] - 1] the runs of level k
 *          (level 0 newest first, the others by key), @lv[LSM_LEVELS]
 *          is @nr
 * @runs:   @runs[i] is @l[i]'s run (NULL for a memtable), so that a
 *          level is a slice of it (struct lsm_level)
 * @infos:  @infos[i] is @l[i]'s record, so that the levels are slices
 *          of it for compaction's decisions (struct lsm_shape)
 * @l:      the layers
 */
struct lsm_layers {
	int ref;
	unsigned int nr;
	unsigned int nr_imm;
	unsigned int lv[LSM_LEVELS + 1];
	struct lsm_run **runs;
	const struct lsm_run_info **infos;
	struct lsm_layer *l[];
};

struct lsm_store {
	struct lsm_bdev *bdev;
	struct lsm_options opt;
	struct lsm_compact_config ccfg;
	struct lsm_super_info sb;
	struct lsm_space space;
	struct lsm_manifest m;
	struct lsm_wal wal;
	struct lsm_pool *pool;
	struct lsm_block_cache *cache;	/* the runs' blocks, lockless reads */

	struct mutex compact_mutex;	/* one merge at a time */
	struct mutex write_mutex;	/* seq, log writer, memtable inserts */
	struct mutex manifest_mutex;	/* manifest, space, superblock */
	spinlock_t layers_lock;		/* @layers, refcounts, @released */
	spinlock_t commit_lock;		/* @committing, @durable_seq */
	struct lsm_layers *layers;	/* changed under write_mutex too */
	struct lsm_layer *released;	/* layers_lock: space to give back */

	u64 next_seq;		/* write_mutex */
	u64 durable_seq;	/* commit_lock: the log is durable up to it */
	bool committing;	/* commit_lock: a leader's flush is running */
	/*
	 * A leader sealed the log and has not its flush's result: set by
	 * the leader under write_mutex, cleared by it under commit_lock
	 * with @committing; set only under write_mutex, so that a writer
	 * holding it that sees it clear knows it stays clear.
	 */
	bool log_flush_out;
	int error;		/* set once: the store is read-only */
	int compact_error;	/* the last merge's -ENOSPC or -ENOMEM, or 0 */
	int flush_error;	/* -ENOSPC: the last flush found no room */
	bool stopping;		/* close: no new merge starts */
	unsigned int nr_imm;	/* written under write_mutex, read anywhere */
	unsigned int l0_runs;	/* as nr_imm: level 0's runs now */
	u64 pending_bytes;	/* as nr_imm: merges' backlog, estimated */
	u64 slow_debt_ns;	/* write_mutex: delay owed by slowed writers */
	u64 unrecorded;		/* manifest_mutex: run space not recorded yet */
	u64 unreleased;		/* manifest_mutex: dropped, not given back */
	bool started;		/* open is done: the work items may run */
	u64 cursor[LSM_LEVELS];	/* compact_mutex: round robin of merges */

	struct work_struct flush_work;
	struct work_struct compact_work;
	struct delayed_work commit_work;
	wait_queue_head_t wait;
	wait_queue_head_t commit_wait;	/* writers behind a leader's flush */
	/*
	 * commit_lock: synchronous writers inside lsm_store_write(), and
	 * how many were when the last flush sealed; the records the last
	 * flush covered (no more than that many) and its duration; whether
	 * a leader is gathering: it waits, at most half a flush, for the
	 * log to hold as many records past the durable mark as the larger
	 * of the two counts (lsm_store_gather()).
	 */
	unsigned int sync_writers, seal_writers;
	u64 last_group;
	u64 flush_ns;
	bool gathering;
	wait_queue_head_t gather_wait;

	/* Counters: under the lock that guards what they count. */
	u64 flushes, stalls, stall_ns, user_bytes;	/* write_mutex */
	u64 slowdowns, slowdown_ns;			/* write_mutex */
	u64 run_bytes;					/* write_mutex */
	u64 compactions, compact_read_bytes;		/* write_mutex */
	u64 compact_write_bytes, compact_ns;		/* write_mutex */
	u64 group_commits, group_writers;		/* commit_lock */
};

/* layers.c */
struct lsm_layers *lsm_layers_alloc(unsigned int nr);
struct lsm_layers *lsm_layers_get(struct lsm_store *st);
void lsm_layers_put(struct lsm_store *st, struct lsm_layers *ls);
void lsm_layers_publish(struct lsm_store *st, struct lsm_layers *ls);
void lsm_layer_free(struct lsm_layer *l);
void lsm_layers_shape(const struct lsm_layers *ls, struct lsm_shape *s);
struct lsm_level lsm_layers_level(const struct lsm_layers *ls,
				  unsigned int k);
void lsm_store_reclaim(struct lsm_store *st);
int lsm_layers_check(const struct lsm_layers *ls);

/**
 * struct lsm_source - one source of a read: a memtable or a level
 * @mt: the memtable, or NULL
 * @lv: else the level (a run of level 0 is a level of one run); may be
 *      empty
 */
struct lsm_source {
	struct lsm_memtable *mt;
	struct lsm_level lv;
};

/*
 * The sources a read consults, newest first: each memtable and each run
 * of level 0 alone, then levels 1 to LSM_BOTTOM, one source each.
 */
static inline unsigned int lsm_layers_nr_sources(const struct lsm_layers *ls)
{
	return ls->lv[1] + LSM_LEVELS - 1;
}

void lsm_layers_source(const struct lsm_layers *ls, unsigned int s,
		       struct lsm_source *src);

/* store.c */
void lsm_store_fail(struct lsm_store *st, int err);

/* store_work.c */
void lsm_store_flush_work(struct work_struct *work);
void lsm_store_compact_work(struct work_struct *work);

#endif /* _LSM_STORE_INT_H */
