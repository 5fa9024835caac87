/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sorted run: the pieces of one memtable (later, of a merge), in order
 * and not overlapping, written once into one device extent from the range
 * allocator and never changed: data blocks, an index block, a Bloom
 * filter and a footer.  Layout: Documentation/lsm.rst, "Runs".
 */
#ifndef _LSM_RUN_H
#define _LSM_RUN_H

#include <linux/types.h>
#include "bdev.h"
#include "record.h"

struct lsm_block_cache;

/**
 * struct lsm_run_info - what the manifest records about a run
 * @id:          unique in the store, never reused; the epoch of its blocks
 * @first_block: first block of its device extent
 * @nr_blocks:   blocks of the extent, all of them used
 * @first_key:   first unit covered by its pieces
 * @last_key:    last unit covered by its pieces
 * @nr_pieces:   pieces, tombstones included
 * @max_seq:     highest sequence number of its extents
 * @level:       0 for a memtable's run (runs of level 0 overlap, and a
 *               later one is newer), else the level a merge wrote it to
 *               (runs of one level do not overlap); below LSM_LEVELS
 */
struct lsm_run_info {
	u64 id;
	u64 first_block;
	u64 nr_blocks;
	u64 first_key;
	u64 last_key;
	u64 nr_pieces;
	u64 max_seq;
	u32 level;
};

/**
 * struct lsm_run_source - the pieces a run is built from
 * @next: fill in the next piece in key order (non-overlapping, each with
 *        its extent as stored and its value); return 0, or -ENOENT at
 *        the end, or a negative errno to abandon the build.  The value
 *        must stay valid until the next call
 * @rewind: start again from the first piece (the build makes two passes:
 *        one to size the run, one to write it)
 * @priv: the source's
 */
struct lsm_run_source {
	int (*next)(void *priv, struct lsm_piece *out);
	void (*rewind)(void *priv);
	void *priv;
};

struct lsm_run;

/* The fewest blocks a run takes: a data block, an index block, a footer. */
#define LSM_RUN_MIN_BLOCKS	3

/* The exact number of blocks a run of @src takes. */
int lsm_run_size(struct lsm_run_source *src, u64 *nr_blocks);
/*
 * Write a run of @src into [@info->first_block, + @info->nr_blocks) as
 * run @info->id of store @store_id, filling in the rest of @info.  Waits
 * for every write to complete; does not flush (the caller flushes before
 * it records the run in the manifest).
 */
int lsm_run_write(struct lsm_bdev *bdev, u64 store_id,
		  struct lsm_run_source *src, struct lsm_run_info *info);
/*
 * Read the footer, index and filter of a run into memory, checking them.
 * Its data and value blocks go through @cache (the store's; NULL: none)
 * once read and checked, and leave it when the run is closed.
 */
int lsm_run_open(struct lsm_bdev *bdev, u64 store_id,
		 const struct lsm_run_info *info,
		 struct lsm_block_cache *cache, struct lsm_run **runp);
void lsm_run_close(struct lsm_run *run);
/* The manifest's record of an open run. */
const struct lsm_run_info *lsm_run_info_of(const struct lsm_run *run);
/*
 * As lsm_mem_get() and lsm_mem_next(), with the value always copied to
 * @vbuf.  -ENOENT, or -EUCLEAN/-EIO for a block that fails its check or
 * cannot be read.  lsm_run_get() consults the filter first.
 */
int lsm_run_get(struct lsm_run *run, u64 k, struct lsm_piece *out,
		void *vbuf, u32 vbuf_size);
int lsm_run_next(struct lsm_run *run, u64 pos, struct lsm_piece *out,
		 void *vbuf, u32 vbuf_size);

/*
 * A cursor over a run's pieces in key order (tombstones included), for
 * scans: each data block is read and checked once (unless the block cache
 * has it), when the cursor first needs a piece of it, not once per piece;
 * the blocks it reads go into the cache only while it has room.  seek() moves it to
 * the first piece ending at or after @pos (forward within its block
 * without a new read), next() to the following piece; both return 0,
 * -ENOENT past the last piece, -ENOMEM (the cursor may be used again), or
 * -EUCLEAN/-EIO, after which the cursor keeps failing.
 * start() is the cursor's piece's first unit, known without a read;
 * piece() reads its block if need be; value() copies its value, reading
 * value blocks for a large one.
 */
struct lsm_run_iter;

struct lsm_run_iter *lsm_run_iter_create(struct lsm_run *run);
void lsm_run_iter_reset(struct lsm_run_iter *it, struct lsm_run *run);
void lsm_run_iter_destroy(struct lsm_run_iter *it);
int lsm_run_iter_seek(struct lsm_run_iter *it, u64 pos);
int lsm_run_iter_next(struct lsm_run_iter *it);
u64 lsm_run_iter_start(const struct lsm_run_iter *it);
int lsm_run_iter_piece(struct lsm_run_iter *it, struct lsm_piece *out);
int lsm_run_iter_value(struct lsm_run_iter *it, void *vbuf, u32 vbuf_size);

#endif /* _LSM_RUN_H */
