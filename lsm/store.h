/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The store: a persistent, ordered map of extents [key, key + len) with a
 * value each, on one block device.  This is its whole interface, used by
 * the kernel's /dev/sl_lsm (dev.c) and by the userspace library (the
 * tests, lsm_bench); the contract in full is Documentation/lsm.rst.
 */
#ifndef _LSM_STORE_H
#define _LSM_STORE_H

#include <linux/types.h>
#include "bdev.h"
#include "format.h"
#include "record.h"

struct lsm_store;

/**
 * struct lsm_options - how a store runs (not stored on disk)
 * @memtable_bytes:     a memtable this full becomes immutable and is
 *                      written out as a run; 0 for the default, 64 MiB
 * @max_immutables:     writers stall while this many immutable memtables
 *                      wait to be written; 0 for the default, 2
 * @commit_interval_ms: a write without LSM_WRITE_SYNC is durable within
 *                      this long; 0 for the default, 5000
 * @l0_compact_runs:    level-0 runs that start their merge into the level
 *                      below; 0 for the default, 4
 * @l0_slowdown_runs:   level-0 runs at which writers are slowed; 0 for
 *                      the default, 8 (as LevelDB)
 * @l0_stop_runs:       level-0 runs at which writers stop until a merge
 *                      ends; 0 for the default, 12 (as LevelDB)
 * @run_bytes:          the size of the runs a merge writes; 0 for the
 *                      default, the memtable's size up to 16 MiB
 * @pending_slowdown_bytes: estimated merge backlog at which writers are
 *                      slowed; 0 for the default, 256 times the base
 *                      level's size (RocksDB's 64 GiB over 256 MiB)
 * @pending_stop_bytes: the backlog at which they stop; 0 for the
 *                      default, 1024 times the base level's size
 * @slowdown_bytes_per_sec: the rate slowed writers are held to; 0 for
 *                      the default, 16 MiB/s (RocksDB's
 *                      delayed_write_rate)
 * @no_wal:             no write-ahead log: writes are durable only once
 *                      their memtable is written out (seed 001's
 *                      benchmark); a crash loses the memtables
 * @block_cache_bytes:  the bound of the block cache of the runs' data
 *                      and value blocks (block_cache.h); 0 for the
 *                      default, 8 MiB, at most LSM_BLOCK_CACHE_MAX; below
 *                      one block's charge (a page and its bookkeeping) it
 *                      keeps nothing
 */
struct lsm_options {
	u64 memtable_bytes;
	u32 max_immutables;
	u32 commit_interval_ms;
	u32 l0_compact_runs;
	u32 l0_slowdown_runs;
	u32 l0_stop_runs;
	u64 run_bytes;
	u64 pending_slowdown_bytes;
	u64 pending_stop_bytes;
	u64 slowdown_bytes_per_sec;
	bool no_wal;
	u64 block_cache_bytes;
};

/* lsm_store_open() flags */
#define LSM_OPEN_FORMAT		0x1	/* make a new, empty store */

int lsm_store_open(struct lsm_bdev *bdev, const struct lsm_options *opt,
		   unsigned int flags, struct lsm_store **storep);
int lsm_store_close(struct lsm_store *st);

/* lsm_op.kind */
#define LSM_OP_PUT		1
#define LSM_OP_DELETE		2

/**
 * struct lsm_op - one operation of a write
 * @kind:  LSM_OP_PUT or LSM_OP_DELETE (a punch of [key, key + len))
 * @vlen:  value bytes of a put, 0 to LSM_VALUE_MAX; 0 for a delete
 * @key:   first unit
 * @len:   units, at least 1, and key + len - 1 must not pass U64_MAX
 * @value: the value of a put; copied before the call returns
 */
struct lsm_op {
	u32 kind;
	u32 vlen;
	u64 key;
	u64 len;
	const void *value;
};

/* lsm_store_write() flags */
#define LSM_WRITE_SYNC		0x1	/* durable when the call returns */

/*
 * Apply @n operations atomically (one log record; readers and recovery
 * see all of them or none), in order: a later operation of the same call
 * wins where they overlap.  -EINVAL for a bad operation (nothing applied),
 * -EROFS once the store has failed a write or flush, -ENOSPC when the
 * device is full, -EIO when a SYNC write could not be made durable.
 */
int lsm_store_write(struct lsm_store *st, const struct lsm_op *ops,
		    unsigned int n, unsigned int flags);

/*
 * The newest extent covering @k: out->ext as stored (key, len, value) and
 * out->start, out->len its window visible at @k (clipped by everything
 * newer).  Up to @vbuf_size bytes of the value go to @vbuf; out->ext.vlen
 * is its full length.  -ENOENT where nothing, or a punch, covers @k.
 */
int lsm_store_get(struct lsm_store *st, u64 k, struct lsm_piece *out,
		  void *vbuf, u32 vbuf_size);

/**
 * struct lsm_scan_cursor - where a scan resumes
 * @pos:  the next unit to look at
 * @done: the scan has passed the last unit of the key space
 */
struct lsm_scan_cursor {
	u64 pos;
	bool done;
};

/*
 * The visible pieces from @cur->pos on, in key order, newest wins,
 * trimmed, punches hidden: at most @max of them into @out, their values
 * packed into @vbuf (each piece's ext.value points there; a scan stops
 * before a value that does not fit, after at least one piece if
 * @vbuf_size >= LSM_VALUE_MAX).  Advances @cur.  Returns how many pieces
 * it filled in (0 at the end), or a negative errno.
 */
int lsm_store_scan(struct lsm_store *st, struct lsm_scan_cursor *cur,
		   struct lsm_piece *out, unsigned int max,
		   void *vbuf, size_t vbuf_size);

/* Everything acknowledged so far is durable on return. */
int lsm_store_sync(struct lsm_store *st);
/* Write the memtable out as a run now, and make it durable. */
int lsm_store_flush(struct lsm_store *st);
/*
 * Merge runs down until every level is within its target and level 0
 * below its trigger (or, with @full, until every run is in the bottom
 * level); returns once no merge is due, or -EIO if the store failed.
 */
int lsm_store_compact(struct lsm_store *st, bool full);

/**
 * struct lsm_stats - counters of a store
 * @memtable_bytes:  bytes in the active memtable
 * @immutables:      immutable memtables waiting to be written
 * @runs:            runs in the store
 * @flushes:         memtables written out
 * @stalls:          writes that stopped: for an immutable memtable's write,
 *                   or for merges that fell too far behind
 * @stall_ns:        total time they waited
 * @wal_bytes:       bytes written to the log
 * @run_bytes:       bytes written to runs
 * @manifest_bytes:  bytes written to the manifest
 * @user_bytes:      key, length and value bytes the callers wrote
 * @group_commits:   log flushes that made writes durable
 * @group_writers:   SYNC writes those flushes made durable
 * @seq:             the newest sequence number
 * @level_runs:      runs in each level (level 0: the memtables' runs)
 * @level_bytes:     bytes of the runs in each level
 * @compactions:     merges of runs into a lower level done
 * @compact_read_bytes:  bytes of runs those merges read
 * @compact_write_bytes: bytes of runs they wrote (part of @run_bytes)
 * @compact_ns:      time spent merging
 * @pending_compact_bytes: an estimate of the bytes merges must still
 *                   rewrite to bring every level within its target
 * @slowdowns:       writes delayed because merges fall behind
 * @slowdown_ns:     total time they were delayed
 * @space_used_bytes: device space in use: superblocks, manifest, log
 *                   segments, runs, and runs dropped that readers hold
 * @cache_hits:      run blocks found in the block cache
 * @cache_misses:    run blocks read from the device
 * @cache_bytes:     bytes the block cache holds now
 * @read_only:       the store failed a write or flush and refuses writes
 */
struct lsm_stats {
	u64 memtable_bytes;
	u64 immutables;
	u64 runs;
	u64 flushes;
	u64 stalls;
	u64 stall_ns;
	u64 wal_bytes;
	u64 run_bytes;
	u64 manifest_bytes;
	u64 user_bytes;
	u64 group_commits;
	u64 group_writers;
	u64 seq;
	u64 level_runs[LSM_LEVELS];
	u64 level_bytes[LSM_LEVELS];
	u64 compactions;
	u64 compact_read_bytes;
	u64 compact_write_bytes;
	u64 compact_ns;
	u64 pending_compact_bytes;
	u64 slowdowns;
	u64 slowdown_ns;
	u64 space_used_bytes;
	u64 cache_hits;
	u64 cache_misses;
	u64 cache_bytes;
	bool read_only;
};

void lsm_store_stats(struct lsm_store *st, struct lsm_stats *stats);

struct dentry;
int lsm_store_debugfs_add(struct lsm_store *st, struct dentry *dir);
void lsm_store_debugfs_remove(struct lsm_store *st);

#endif /* _LSM_STORE_H */
