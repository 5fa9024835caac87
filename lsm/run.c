// SPDX-License-Identifier: GPL-2.0
/*
 * Sorted runs (run.h): writing one in two passes over its source, and
 * reading it back.  The byte layout is Documentation/lsm-runs.rst and
 * run_format.h.
 *
 * Writing and sizing share one layout engine (struct lsm_run_builder), so
 * the block count lsm_run_size() promises is, by construction, the one
 * lsm_run_write() uses; the writer still checks it and never writes
 * outside its extent.
 *
 * Concurrency: an open run (struct lsm_run) is never changed after
 * lsm_run_open() returns it: its fences and filter are only read, and
 * each lookup reads blocks into pages it then offers the store's block
 * cache (block_cache.c: lockless lookups, a reference held while a
 * block is decoded in place), or, for a run opened without a cache,
 * into buffers of its own.  Any number of
 * threads may call lsm_run_get() and lsm_run_next() on it at once without
 * a lock, and walk it with cursors (struct lsm_run_iter), each cursor
 * used by one thread at a time; lsm_run_close() must not race with them
 * (the store closes a run only once no reader can reach it).
 */
#include <asm/byteorder.h>
#include <linux/completion.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "block.h"
#include "block_cache.h"
#include "bloom.h"
#include "run.h"
#include "run_format.h"

/* The writer's pipeline: this many writes in flight of this many blocks. */
#define LSM_RUN_STAGES		4
#define LSM_RUN_STAGE_BLOCKS	32

/* Numbers gathered per chunk while writing (4 KiB of them). */
#define LSM_RUN_U64_CHUNK	(LSM_BLOCK_SIZE / sizeof(u64))

/* A fence in memory (struct lsm_run_fence on disk). */
struct lsm_run_fence_mem {
	u64 first;
	u64 last;
	u32 block;
	u32 kinds;
};

/* A long piece in memory (struct lsm_run_long on disk). */
struct lsm_run_long_mem {
	u64 start;
	u64 last;
};

/**
 * struct lsm_run - an open run: what a lookup needs in memory
 * @bdev:        the device
 * @store_id:    its store's id, which every block must carry
 * @info:        the manifest's record of the run
 * @data_blocks: blocks of the data region
 * @nr_fences:   data blocks
 * @fences:      one per data block, in key order
 * @bloom:       the filter over the units of the short pieces
 * @nr_long:     long pieces
 * @longs:       their windows, in key order
 * @cache:       the store's block cache, or NULL to read every block
 * @owner:       this run, as @cache knows it
 */
struct lsm_run {
	struct lsm_bdev *bdev;
	u64 store_id;
	struct lsm_run_info info;
	u32 data_blocks;
	u32 nr_fences;
	struct lsm_run_fence_mem *fences;
	struct lsm_bloom bloom;
	u64 nr_long;
	struct lsm_run_long_mem *longs;
	struct lsm_block_cache *cache;
	struct lsm_cache_owner owner;
};

/* --- Little-endian fields at any alignment, as data block entries are --- */

static u32 lsm_run_get32(const u8 *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

static u64 lsm_run_get64(const u8 *p)
{
	__le64 v;

	memcpy(&v, p, sizeof(v));
	return le64_to_cpu(v);
}

static u8 *lsm_run_put32(u8 *p, u32 x)
{
	__le32 v = cpu_to_le32(x);

	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

static u8 *lsm_run_put64(u8 *p, u64 x)
{
	__le64 v = cpu_to_le64(x);

	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

/* --- Entries --- */

static bool lsm_run_whole(const struct lsm_piece *p)
{
	return p->start == p->ext.key && p->len == p->ext.len;
}

/* The bytes of @p's entry, with its value inline or a value block's offset. */
static u32 lsm_run_entry_size(const struct lsm_piece *p, bool value_out)
{
	u32 size = LSM_RUN_E_FIXED;

	if (p->ext.len != 1)
		size += 8;
	if (!lsm_run_whole(p))
		size += 16;
	return size + (value_out ? 4 : p->ext.vlen);
}

/* Whether a piece's value goes to value blocks: it fits no data block. */
static bool lsm_run_value_out(const struct lsm_piece *p)
{
	return lsm_run_entry_size(p, false) > LSM_RUN_DATA_BODY;
}

static u32 lsm_run_value_blocks(u32 vlen)
{
	return DIV_ROUND_UP(vlen, (u32)LSM_BLOCK_BODY);
}

/* A piece as the source gave it is one a run can hold (alone). */
static bool lsm_run_piece_ok(const struct lsm_piece *p)
{
	const struct lsm_extent *e = &p->ext;

	if (!e->len || e->len - 1 > U64_MAX - e->key)
		return false;
	if (!p->len || p->start < e->key || p->len - 1 > U64_MAX - p->start ||
	    lsm_last(p->start, p->len) > lsm_last(e->key, e->len))
		return false;
	if (e->flags & ~LSM_EXT_FLAGS || e->vlen > LSM_VALUE_MAX)
		return false;
	if ((e->flags & LSM_EXT_TOMBSTONE) && e->vlen)
		return false;
	return true;
}

/* Write @p's entry at @at; its value inline or at @value_block. */
static void lsm_run_encode(u8 *at, const struct lsm_piece *p, bool value_out,
			   u32 value_block)
{
	u8 eflags = 0;

	if (p->ext.flags & LSM_EXT_TOMBSTONE)
		eflags |= LSM_RUN_E_TOMBSTONE;
	if (p->ext.len == 1)
		eflags |= LSM_RUN_E_LEN_ONE;
	if (lsm_run_whole(p))
		eflags |= LSM_RUN_E_WHOLE;
	if (value_out)
		eflags |= LSM_RUN_E_VALUE_OUT;
	*at++ = eflags;
	at = lsm_run_put64(at, p->ext.key);
	if (p->ext.len != 1)
		at = lsm_run_put64(at, p->ext.len);
	if (!lsm_run_whole(p)) {
		at = lsm_run_put64(at, p->start);
		at = lsm_run_put64(at, p->len);
	}
	at = lsm_run_put64(at, p->ext.seq);
	at = lsm_run_put32(at, p->ext.vlen);
	if (value_out)
		lsm_run_put32(at, value_block);
	else if (p->ext.vlen)
		memcpy(at, p->ext.value, p->ext.vlen);
}

/**
 * struct lsm_run_entry - an entry as decoded from a data block
 * @piece:       the piece; ext.value points at an inline value, or is NULL
 * @value_block: offset of the first value block, if the value is there
 * @value_out:   the value is in value blocks
 */
struct lsm_run_entry {
	struct lsm_piece piece;
	u32 value_block;
	bool value_out;
};

/*
 * Decode the entry at *@pp, ending no later than @end, of the data block at
 * offset @block; advance *@pp past it.  Checks everything that does not
 * depend on its neighbours.  Returns 0, or -EUCLEAN.
 */
static int lsm_run_decode(const u8 **pp, const u8 *end, u32 block,
			  struct lsm_run_entry *e)
{
	const u8 *p = *pp;
	struct lsm_piece *pc = &e->piece;
	u8 eflags;
	u32 need = LSM_RUN_E_FIXED;

	if (end - p < need)
		return -EUCLEAN;
	eflags = *p;
	if (eflags & ~LSM_RUN_E_KNOWN)
		return -EUCLEAN;
	if ((eflags & LSM_RUN_E_LEN_ONE) && !(eflags & LSM_RUN_E_WHOLE))
		return -EUCLEAN;
	need += (eflags & LSM_RUN_E_LEN_ONE) ? 0 : 8;
	need += (eflags & LSM_RUN_E_WHOLE) ? 0 : 16;
	if (end - p < need)
		return -EUCLEAN;
	p++;
	pc->ext.key = lsm_run_get64(p);
	p += 8;
	pc->ext.len = 1;
	if (!(eflags & LSM_RUN_E_LEN_ONE)) {
		pc->ext.len = lsm_run_get64(p);
		p += 8;
	}
	pc->start = pc->ext.key;
	pc->len = pc->ext.len;
	if (!(eflags & LSM_RUN_E_WHOLE)) {
		pc->start = lsm_run_get64(p);
		pc->len = lsm_run_get64(p + 8);
		p += 16;
	}
	pc->ext.seq = lsm_run_get64(p);
	pc->ext.vlen = lsm_run_get32(p + 8);
	p += 12;
	pc->ext.flags = (eflags & LSM_RUN_E_TOMBSTONE) ? LSM_EXT_TOMBSTONE : 0;
	pc->ext.value = NULL;
	if (!lsm_run_piece_ok(pc))
		return -EUCLEAN;
	/* The writer's rule decides where the value is; nothing else may. */
	e->value_out = eflags & LSM_RUN_E_VALUE_OUT;
	if (e->value_out != lsm_run_value_out(pc))
		return -EUCLEAN;
	if (e->value_out) {
		if (end - p < 4)
			return -EUCLEAN;
		e->value_block = lsm_run_get32(p);
		p += 4;
		/* Its value blocks lie just before the data block. */
		if (e->value_block > block ||
		    block - e->value_block < lsm_run_value_blocks(pc->ext.vlen))
			return -EUCLEAN;
	} else {
		if (end - p < pc->ext.vlen)
			return -EUCLEAN;
		if (pc->ext.vlen)
			pc->ext.value = p;
		p += pc->ext.vlen;
	}
	*pp = p;
	return 0;
}

/* --- The layout engine, for sizing and for writing --- */

/**
 * struct lsm_run_stage - blocks gathered for one write
 * @buf:  LSM_RUN_STAGE_BLOCKS blocks
 * @nr:   blocks filled
 * @at:   offset in the run of the first
 * @busy: written and not completed yet
 * @err:  the write's result, set before @done is completed
 * @done: completed by the write's callback
 */
struct lsm_run_stage {
	u8 *buf;
	u32 nr;
	u64 at;
	bool busy;
	int err;
	struct completion done;
};

/**
 * struct lsm_run_u64s - numbers gathered while writing, of a count known
 *                       only at the end
 * @chunks: of LSM_RUN_U64_CHUNK numbers each
 * @cap:    slots of @chunks
 * @nr:     numbers
 */
struct lsm_run_u64s {
	u64 **chunks;
	u64 cap;
	u64 nr;
};

/**
 * struct lsm_run_builder - a run being laid out (and written)
 * @writing:     writing, not only sizing
 * @bdev:        the device (writing)
 * @id:          the run's block identity, type and number filled per block
 * @first_block: where the run starts (writing)
 * @nr_blocks:   the blocks it may use (writing)
 * @pos:         offset of the next block
 * @data:        the open data block (writing)
 * @data_used:   bytes of the open data block's body in use; 0: none open
 * @data_entries: entries in it
 * @fence:       the open data block's fence
 * @fences:      closed data blocks' fences (writing; @nr_blocks of them
 *               at most)
 * @nr_fences:   data blocks closed
 * @value_blocks: value blocks placed
 * @nr_pieces:   pieces taken
 * @first_key:   first unit of the first piece
 * @last_key:    last unit of the last piece so far
 * @max_seq:     highest seq so far
 * @items:       units of short pieces so far, for the filter
 * @hashes:      their hashes (writing)
 * @nr_long:     long pieces so far
 * @longs:       their starts and lasts (writing)
 * @stages:      the write pipeline (writing)
 * @cur:         the stage being filled
 */
struct lsm_run_builder {
	bool writing;
	struct lsm_bdev *bdev;
	struct lsm_block_id id;
	u64 first_block;
	u64 nr_blocks;
	u64 pos;
	u8 *data;
	u32 data_used;
	u32 data_entries;
	struct lsm_run_fence_mem fence;
	struct lsm_run_fence_mem *fences;
	u64 nr_fences;
	u64 value_blocks;
	u64 nr_pieces;
	u64 first_key;
	u64 last_key;
	u64 max_seq;
	u64 items;
	struct lsm_run_u64s hashes;
	u64 nr_long;
	struct lsm_run_u64s longs;
	struct lsm_run_stage stages[LSM_RUN_STAGES];
	unsigned int cur;
};

static void lsm_run_write_done(void *priv, int err)
{
	struct lsm_run_stage *st = priv;

	st->err = err;
	complete(&st->done);
}

/* Wait for a stage's write; it is then free to fill. */
static int lsm_run_stage_wait(struct lsm_run_stage *st)
{
	int err;

	if (!st->busy)
		return 0;
	wait_for_completion(&st->done);
	err = st->err;
	st->busy = false;
	st->nr = 0;
	st->err = 0;
	return err;
}

static int lsm_run_stage_submit(struct lsm_run_builder *b,
				struct lsm_run_stage *st)
{
	int err;

	if (!st->nr)
		return 0;
	st->busy = true;
	err = b->bdev->ops->write(b->bdev, b->first_block + st->at, st->buf,
				  st->nr, 0, lsm_run_write_done, st);
	if (err) {
		/* Not submitted: the callback will not come. */
		st->busy = false;
		st->nr = 0;
	}
	return err;
}

/* Wait for every write in flight; the first error of any of them. */
static int lsm_run_drain(struct lsm_run_builder *b)
{
	int err = 0, e;
	unsigned int i;

	for (i = 0; i < LSM_RUN_STAGES; i++) {
		e = lsm_run_stage_wait(&b->stages[i]);
		if (e && !err)
			err = e;
	}
	return err;
}

/*
 * Take the next block of the run: a zeroed buffer to fill and seal when
 * writing, NULL when sizing.  Writing, it refuses to pass the extent.
 */
static int lsm_run_take_block(struct lsm_run_builder *b, u8 **blockp)
{
	struct lsm_run_stage *st;
	int err;

	*blockp = NULL;
	if (!b->writing) {
		b->pos++;
		return 0;
	}
	/* The source gave more than in the sizing pass. */
	if (b->pos >= b->nr_blocks)
		return -EINVAL;
	st = &b->stages[b->cur];
	if (st->nr == LSM_RUN_STAGE_BLOCKS) {
		err = lsm_run_stage_submit(b, st);
		if (err)
			return err;
		b->cur = (b->cur + 1) % LSM_RUN_STAGES;
		st = &b->stages[b->cur];
		err = lsm_run_stage_wait(st);
		if (err)
			return err;
	}
	if (!st->nr)
		st->at = b->pos;
	*blockp = st->buf + (size_t)st->nr++ * LSM_BLOCK_SIZE;
	memset(*blockp, 0, LSM_BLOCK_SIZE);
	b->pos++;
	return 0;
}

static void lsm_run_seal(struct lsm_run_builder *b, u8 *block,
			 enum lsm_block_type type, u32 used)
{
	b->id.blocknr = b->first_block + b->pos - 1;
	b->id.type = type;
	lsm_block_seal(block, &b->id, used);
}

/* Close the open data block: it takes the next block and gets a fence. */
static int lsm_run_close_data(struct lsm_run_builder *b)
{
	struct lsm_run_data_head head;
	u8 *block;
	int err;

	if (!b->data_used)
		return 0;
	b->fence.block = b->pos;
	err = lsm_run_take_block(b, &block);
	if (err)
		return err;
	if (block) {
		head.nr_entries = cpu_to_le16(b->data_entries);
		head.reserved = 0;
		memcpy(b->data, &head, sizeof(head));
		memcpy(block + sizeof(struct lsm_block_header), b->data,
		       sizeof(head) + b->data_used);
		lsm_run_seal(b, block, LSM_BT_RUN_DATA,
			     sizeof(struct lsm_block_header) + sizeof(head) +
			     b->data_used);
		/* Fewer blocks than data blocks: the source changed. */
		if (b->nr_fences >= b->nr_blocks)
			return -EINVAL;
		b->fences[b->nr_fences] = b->fence;
	}
	b->nr_fences++;
	b->data_used = 0;
	b->data_entries = 0;
	return 0;
}

/* Place a large value in value blocks at the next offsets. */
static int lsm_run_put_value(struct lsm_run_builder *b,
			     const struct lsm_piece *p)
{
	u32 off, chunk;
	u8 *block;
	int err;

	for (off = 0; off < p->ext.vlen; off += chunk) {
		chunk = min_t(u32, p->ext.vlen - off, LSM_BLOCK_BODY);
		err = lsm_run_take_block(b, &block);
		if (err)
			return err;
		b->value_blocks++;
		if (!block)
			continue;
		memcpy(block + sizeof(struct lsm_block_header),
		       (const u8 *)p->ext.value + off, chunk);
		lsm_run_seal(b, block, LSM_BT_RUN_VALUE,
			     sizeof(struct lsm_block_header) + chunk);
	}
	return 0;
}

static int lsm_run_u64s_add(struct lsm_run_u64s *h, u64 x)
{
	u64 chunk = h->nr / LSM_RUN_U64_CHUNK;

	if (chunk == h->cap) {
		u64 cap = max_t(u64, 16, h->cap * 2);
		u64 **chunks = kvcalloc(cap, sizeof(*chunks), GFP_KERNEL);

		if (!chunks)
			return -ENOMEM;
		if (h->cap)
			memcpy(chunks, h->chunks, h->cap * sizeof(*chunks));
		kvfree(h->chunks);
		h->chunks = chunks;
		h->cap = cap;
	}
	if (!h->chunks[chunk]) {
		h->chunks[chunk] = kmalloc(LSM_BLOCK_SIZE, GFP_KERNEL);
		if (!h->chunks[chunk])
			return -ENOMEM;
	}
	h->chunks[chunk][h->nr % LSM_RUN_U64_CHUNK] = x;
	h->nr++;
	return 0;
}

static u64 lsm_run_u64s_at(const struct lsm_run_u64s *h, u64 i)
{
	return h->chunks[i / LSM_RUN_U64_CHUNK][i % LSM_RUN_U64_CHUNK];
}

static void lsm_run_u64s_free(struct lsm_run_u64s *h)
{
	u64 i;

	for (i = 0; i < h->cap; i++)
		kfree(h->chunks[i]);
	kvfree(h->chunks);
}

/* Take one piece from the source: check it, place it, count it. */
static int lsm_run_add(struct lsm_run_builder *b, const struct lsm_piece *p)
{
	u64 last = lsm_last(p->start, p->len), u;
	bool value_out;
	u32 size;
	int err;

	if (!lsm_run_piece_ok(p))
		return -EINVAL;
	if (b->writing && p->ext.vlen && !p->ext.value)
		return -EINVAL;
	/* In order and apart: it starts after the last one ended. */
	if (b->nr_pieces && (b->last_key == U64_MAX || p->start <= b->last_key))
		return -EINVAL;

	value_out = lsm_run_value_out(p);
	size = lsm_run_entry_size(p, value_out);
	if (b->data_used + size > LSM_RUN_DATA_BODY) {
		err = lsm_run_close_data(b);
		if (err)
			return err;
	}
	if (value_out) {
		err = lsm_run_put_value(b, p);
		if (err)
			return err;
	}
	if (!b->data_used) {
		b->fence.first = p->start;
		b->fence.kinds = 0;
	}
	if (b->writing)
		lsm_run_encode(b->data + sizeof(struct lsm_run_data_head) +
			       b->data_used, p, value_out,
			       (u32)(b->pos - lsm_run_value_blocks(p->ext.vlen)));
	b->data_used += size;
	b->data_entries++;
	b->fence.last = last;

	if (p->len <= LSM_RUN_SHORT_MAX) {
		b->fence.kinds |= LSM_RUN_K_SHORT;
		b->items += p->len;
		for (u = 0; b->writing && u < p->len; u++) {
			err = lsm_run_u64s_add(&b->hashes,
					       lsm_bloom_hash(p->start + u));
			if (err)
				return err;
		}
	} else {
		b->fence.kinds |= LSM_RUN_K_LONG;
		b->nr_long++;
		if (b->writing) {
			err = lsm_run_u64s_add(&b->longs, p->start);
			if (!err)
				err = lsm_run_u64s_add(&b->longs, last);
			if (err)
				return err;
		}
	}

	if (!b->nr_pieces)
		b->first_key = p->start;
	b->last_key = last;
	b->max_seq = max(b->max_seq, p->ext.seq);
	b->nr_pieces++;
	return 0;
}

/**
 * struct lsm_run_shape - where the parts of a laid-out run are
 * @data_blocks:  blocks of the data region
 * @index_blocks: blocks of the index
 * @bloom_lines:  lines of the filter
 * @bloom_blocks: blocks of the filter
 * @long_blocks:  blocks of the list of long pieces
 * @nr_blocks:    all of them, and the footer
 */
struct lsm_run_shape {
	u64 data_blocks;
	u64 index_blocks;
	u64 bloom_lines;
	u64 bloom_blocks;
	u64 long_blocks;
	u64 nr_blocks;
};

/* Lay out every piece of @src; then what the run's parts take. */
static int lsm_run_layout(struct lsm_run_builder *b,
			  struct lsm_run_source *src,
			  struct lsm_run_shape *shape)
{
	struct lsm_piece p;
	int err;

	src->rewind(src->priv);
	for (;;) {
		err = src->next(src->priv, &p);
		if (err == -ENOENT)
			break;
		if (err)
			return err;
		err = lsm_run_add(b, &p);
		if (err)
			return err;
	}
	err = lsm_run_close_data(b);
	if (err)
		return err;
	if (!b->nr_pieces)
		return -ENODATA;
	shape->data_blocks = b->pos;
	shape->index_blocks = DIV_ROUND_UP(b->nr_fences,
					   (u64)LSM_RUN_FENCES_PER_BLOCK);
	shape->bloom_lines = lsm_bloom_lines(b->items);
	shape->bloom_blocks = DIV_ROUND_UP(shape->bloom_lines,
					   (u64)LSM_RUN_BLOOM_LINES_PER_BLOCK);
	shape->long_blocks = DIV_ROUND_UP(b->nr_long,
					  (u64)LSM_RUN_LONGS_PER_BLOCK);
	shape->nr_blocks = shape->data_blocks + shape->index_blocks +
			   shape->bloom_blocks + shape->long_blocks + 1;
	/* Offsets within a run, and the filter's lines, are 32-bit. */
	if (shape->nr_blocks > U32_MAX)
		return -EFBIG;
	return 0;
}

/**
 * lsm_run_size() - the exact size of the run a source makes
 * @src:       the pieces
 * @nr_blocks: set to the blocks lsm_run_write() of the same pieces takes
 *
 * One pass over @src (after a rewind); nothing is written or kept.
 *
 * Context: process; @src's callbacks may sleep.
 * Return: 0; -EINVAL for pieces that are malformed, out of order or
 * overlapping; -ENODATA for no pieces; -EFBIG for a run of 2^32 blocks or
 * more; or the error @src->next returned.
 */
int lsm_run_size(struct lsm_run_source *src, u64 *nr_blocks)
{
	struct lsm_run_builder b = { .writing = false };
	struct lsm_run_shape shape;
	int err;

	err = lsm_run_layout(&b, src, &shape);
	if (err)
		return err;
	*nr_blocks = shape.nr_blocks;
	return 0;
}

/* Emit the index, filter and footer of a laid-out run. */
static int lsm_run_write_tail(struct lsm_run_builder *b,
			      const struct lsm_run_shape *shape,
			      const struct lsm_bloom *bloom)
{
	struct lsm_run_footer footer = { 0 };
	struct lsm_run_index_head ihead;
	u64 i, at;
	u8 *block;
	int err;

	for (at = 0; at < b->nr_fences; at += LSM_RUN_FENCES_PER_BLOCK) {
		u64 n = min_t(u64, b->nr_fences - at, LSM_RUN_FENCES_PER_BLOCK);
		u8 *p;

		err = lsm_run_take_block(b, &block);
		if (err)
			return err;
		ihead.nr_fences = cpu_to_le32(n);
		ihead.reserved = 0;
		p = block + sizeof(struct lsm_block_header);
		memcpy(p, &ihead, sizeof(ihead));
		p += sizeof(ihead);
		for (i = 0; i < n; i++) {
			const struct lsm_run_fence_mem *f = &b->fences[at + i];
			struct lsm_run_fence d = {
				.first = cpu_to_le64(f->first),
				.last = cpu_to_le64(f->last),
				.block = cpu_to_le32(f->block),
				.kinds = cpu_to_le32(f->kinds),
			};

			memcpy(p, &d, sizeof(d));
			p += sizeof(d);
		}
		lsm_run_seal(b, block, LSM_BT_RUN_INDEX, p - block);
	}

	for (at = 0; at < bloom->nr_lines; at += LSM_RUN_BLOOM_LINES_PER_BLOCK) {
		u64 n = min_t(u64, bloom->nr_lines - at,
			      LSM_RUN_BLOOM_LINES_PER_BLOCK);

		err = lsm_run_take_block(b, &block);
		if (err)
			return err;
		memcpy(block + sizeof(struct lsm_block_header),
		       bloom->bits + at * LSM_BLOOM_LINE_BYTES,
		       n * LSM_BLOOM_LINE_BYTES);
		lsm_run_seal(b, block, LSM_BT_RUN_BLOOM,
			     sizeof(struct lsm_block_header) +
			     n * LSM_BLOOM_LINE_BYTES);
	}

	for (at = 0; at < b->nr_long; at += LSM_RUN_LONGS_PER_BLOCK) {
		u64 n = min_t(u64, b->nr_long - at, LSM_RUN_LONGS_PER_BLOCK);
		u8 *p;

		err = lsm_run_take_block(b, &block);
		if (err)
			return err;
		p = block + sizeof(struct lsm_block_header);
		for (i = 0; i < n; i++) {
			struct lsm_run_long d = {
				.start = cpu_to_le64(lsm_run_u64s_at(&b->longs,
								     2 * (at + i))),
				.last = cpu_to_le64(lsm_run_u64s_at(&b->longs,
								    2 * (at + i) + 1)),
			};

			memcpy(p, &d, sizeof(d));
			p += sizeof(d);
		}
		lsm_run_seal(b, block, LSM_BT_RUN_BLOOM, p - block);
	}

	err = lsm_run_take_block(b, &block);
	if (err)
		return err;
	footer.run_id = cpu_to_le64(b->id.epoch);
	footer.nr_blocks = cpu_to_le64(shape->nr_blocks);
	footer.nr_pieces = cpu_to_le64(b->nr_pieces);
	footer.first_key = cpu_to_le64(b->first_key);
	footer.last_key = cpu_to_le64(b->last_key);
	footer.max_seq = cpu_to_le64(b->max_seq);
	footer.bloom_items = cpu_to_le64(b->items);
	footer.nr_long = cpu_to_le64(b->nr_long);
	footer.data_blocks = cpu_to_le32(shape->data_blocks);
	footer.nr_fences = cpu_to_le32(b->nr_fences);
	footer.index_blocks = cpu_to_le32(shape->index_blocks);
	footer.bloom_blocks = cpu_to_le32(shape->bloom_blocks);
	footer.bloom_lines = cpu_to_le32(shape->bloom_lines);
	footer.bloom_probes = cpu_to_le32(bloom->probes);
	footer.value_blocks = cpu_to_le32(b->value_blocks);
	footer.long_blocks = cpu_to_le32(shape->long_blocks);
	memcpy(block + sizeof(struct lsm_block_header), &footer, sizeof(footer));
	lsm_run_seal(b, block, LSM_BT_RUN_FOOTER,
		     sizeof(struct lsm_block_header) + sizeof(footer));
	return 0;
}

/**
 * lsm_run_write() - write a run
 * @bdev:     the device
 * @store_id: the store's id, for every block's header
 * @src:      the pieces, as lsm_run_size() was given them
 * @info:     in: @id (never used before in the store), @first_block and
 *            @nr_blocks (what lsm_run_size() said); out: the rest
 *
 * One pass over @src (after a rewind) lays the run out again and writes
 * it front to back into [@info->first_block, + @info->nr_blocks), with a
 * few writes in flight; returns when all have completed.  Nothing is
 * flushed: the caller flushes before it records the run in the manifest.
 * On an error, some of the extent may have been written; nothing outside
 * it ever is.
 *
 * Context: process; sleeps.  @bdev's write callbacks may run in any
 * context.
 * Return: 0; -EINVAL if the extent does not fit the device, or if the
 * pieces do not come to @info->nr_blocks (a source that changed since it
 * was sized), or are malformed, out of order or overlapping; -ENODATA for
 * no pieces; -ENOMEM; the error of a write (-EIO), or of @src->next.
 */
int lsm_run_write(struct lsm_bdev *bdev, u64 store_id,
		  struct lsm_run_source *src, struct lsm_run_info *info)
{
	struct lsm_run_builder *b;
	struct lsm_run_shape shape;
	struct lsm_bloom bloom = { .bits = NULL };
	unsigned int i;
	u64 h;
	int err, drain_err;

	if (info->nr_blocks < LSM_RUN_MIN_BLOCKS || info->nr_blocks > U32_MAX ||
	    info->first_block > bdev->nr_blocks ||
	    bdev->nr_blocks - info->first_block < info->nr_blocks)
		return -EINVAL;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->writing = true;
	b->bdev = bdev;
	b->id.store_id = store_id;
	b->id.epoch = info->id;
	b->first_block = info->first_block;
	b->nr_blocks = info->nr_blocks;
	err = -ENOMEM;
	b->data = kmalloc(LSM_BLOCK_SIZE, GFP_KERNEL);
	b->fences = kvcalloc(info->nr_blocks, sizeof(*b->fences), GFP_KERNEL);
	if (!b->data || !b->fences)
		goto out;
	for (i = 0; i < LSM_RUN_STAGES; i++) {
		init_completion(&b->stages[i].done);
		b->stages[i].buf = kvmalloc(LSM_RUN_STAGE_BLOCKS * LSM_BLOCK_SIZE,
					    GFP_KERNEL);
		if (!b->stages[i].buf)
			goto out;
	}

	err = lsm_run_layout(b, src, &shape);
	if (err)
		goto out;
	err = -EINVAL;
	if (shape.nr_blocks != info->nr_blocks)
		goto out;

	err = -ENOMEM;
	bloom.nr_lines = shape.bloom_lines;
	bloom.probes = LSM_BLOOM_PROBES;
	if (shape.bloom_lines) {
		bloom.bits = kvcalloc(shape.bloom_lines, LSM_BLOOM_LINE_BYTES,
				      GFP_KERNEL);
		if (!bloom.bits)
			goto out;
	}
	for (h = 0; h < b->hashes.nr; h++)
		lsm_bloom_add(&bloom, lsm_run_u64s_at(&b->hashes, h));

	err = lsm_run_write_tail(b, &shape, &bloom);
	if (!err)
		err = lsm_run_stage_submit(b, &b->stages[b->cur]);
	if (!err) {
		info->first_key = b->first_key;
		info->last_key = b->last_key;
		info->nr_pieces = b->nr_pieces;
		info->max_seq = b->max_seq;
	}
out:
	/* Every buffer handed to a write stays until its callback has run. */
	drain_err = lsm_run_drain(b);
	if (!err)
		err = drain_err;
	kvfree(bloom.bits);
	for (i = 0; i < LSM_RUN_STAGES; i++)
		kvfree(b->stages[i].buf);
	lsm_run_u64s_free(&b->hashes);
	lsm_run_u64s_free(&b->longs);
	kvfree(b->fences);
	kfree(b->data);
	kfree(b);
	return err;
}

/* --- Reading --- */

static const char *const lsm_run_kind[] = {
	[LSM_BT_RUN_DATA] = "data",
	[LSM_BT_RUN_INDEX] = "index",
	[LSM_BT_RUN_BLOOM] = "filter",
	[LSM_BT_RUN_FOOTER] = "footer",
	[LSM_BT_RUN_VALUE] = "value",
};

/* Report a bad block of a run, and the errno that says so. */
static int lsm_run_bad(struct lsm_bdev *bdev, const struct lsm_run_info *info,
		       u64 off, enum lsm_block_type type, const char *why)
{
	pr_err_ratelimited("lsm: %s: run %llu: %s block %llu: %s\n",
			   bdev->name, (unsigned long long)info->id,
			   lsm_run_kind[type],
			   (unsigned long long)(info->first_block + off), why);
	return -EUCLEAN;
}

/* Read @nr blocks at offset @off of the run into @buf. */
static int lsm_run_read(struct lsm_bdev *bdev, const struct lsm_run_info *info,
			u64 off, void *buf, u32 nr)
{
	int err = bdev->ops->read(bdev, info->first_block + off, buf, nr);

	if (err)
		pr_err_ratelimited("lsm: %s: run %llu: blocks %llu+%u: read failed (%d)\n",
				   bdev->name, (unsigned long long)info->id,
				   (unsigned long long)(info->first_block + off),
				   nr, err);
	return err;
}

/* Check @nr blocks read from offset @off: each must be a @type of the run. */
static int lsm_run_check(struct lsm_bdev *bdev, u64 store_id,
			 const struct lsm_run_info *info, u64 off,
			 enum lsm_block_type type, const void *buf, u32 nr)
{
	struct lsm_block_id id = {
		.store_id = store_id,
		.epoch = info->id,
		.type = type,
	};
	u32 i;
	int err;

	for (i = 0; i < nr; i++) {
		id.blocknr = info->first_block + off + i;
		err = lsm_block_check((const u8 *)buf +
				      (size_t)i * LSM_BLOCK_SIZE, &id);
		if (err == -ESTALE)
			return lsm_run_bad(bdev, info, off + i, type,
					   "stale or misdirected (another type, place or run)");
		if (err)
			return lsm_run_bad(bdev, info, off + i, type,
					   "corrupt (checksum, magic or version)");
	}
	return 0;
}

/* Read @nr blocks of type @type at offset @off, and check them. */
static int lsm_run_read_checked(struct lsm_bdev *bdev, u64 store_id,
				const struct lsm_run_info *info, u64 off,
				enum lsm_block_type type, void *buf, u32 nr)
{
	int err = lsm_run_read(bdev, info, off, buf, nr);

	return err ?: lsm_run_check(bdev, store_id, info, off, type, buf, nr);
}

static u32 lsm_run_used(const void *block)
{
	return le32_to_cpu(((const struct lsm_block_header *)block)->used);
}

static int lsm_run_check_footer(struct lsm_run *run, const u8 *block)
{
	const struct lsm_run_info *info = &run->info;
	struct lsm_run_footer f;
	u64 nr_fences, data_blocks, index_blocks, bloom_blocks, lines, items;
	u64 nr_long, long_blocks;

	if (lsm_run_used(block) != sizeof(struct lsm_block_header) + sizeof(f))
		return -EUCLEAN;
	memcpy(&f, block + sizeof(struct lsm_block_header), sizeof(f));
	if (le64_to_cpu(f.run_id) != info->id ||
	    le64_to_cpu(f.nr_blocks) != info->nr_blocks ||
	    le64_to_cpu(f.nr_pieces) != info->nr_pieces ||
	    le64_to_cpu(f.first_key) != info->first_key ||
	    le64_to_cpu(f.last_key) != info->last_key ||
	    le64_to_cpu(f.max_seq) != info->max_seq)
		return -EUCLEAN;
	nr_fences = le32_to_cpu(f.nr_fences);
	data_blocks = le32_to_cpu(f.data_blocks);
	index_blocks = le32_to_cpu(f.index_blocks);
	bloom_blocks = le32_to_cpu(f.bloom_blocks);
	lines = le32_to_cpu(f.bloom_lines);
	items = le64_to_cpu(f.bloom_items);
	nr_long = le64_to_cpu(f.nr_long);
	long_blocks = le32_to_cpu(f.long_blocks);
	/* Bounds that keep the products below from overflowing. */
	if (info->nr_pieces > info->nr_blocks * LSM_BLOCK_SIZE)
		return -EUCLEAN;
	if (!nr_fences || nr_fences > info->nr_pieces ||
	    nr_fences + le32_to_cpu(f.value_blocks) != data_blocks ||
	    info->first_key > info->last_key)
		return -EUCLEAN;
	if (index_blocks != DIV_ROUND_UP(nr_fences,
					 (u64)LSM_RUN_FENCES_PER_BLOCK) ||
	    nr_long > info->nr_pieces ||
	    items > (info->nr_pieces - nr_long) * LSM_RUN_SHORT_MAX ||
	    items < info->nr_pieces - nr_long ||
	    lines != lsm_bloom_lines(items) ||
	    bloom_blocks != DIV_ROUND_UP(lines,
					 (u64)LSM_RUN_BLOOM_LINES_PER_BLOCK) ||
	    long_blocks != DIV_ROUND_UP(nr_long,
					(u64)LSM_RUN_LONGS_PER_BLOCK) ||
	    data_blocks + index_blocks + bloom_blocks + long_blocks + 1 !=
	    info->nr_blocks)
		return -EUCLEAN;
	run->bloom.probes = le32_to_cpu(f.bloom_probes);
	if (!run->bloom.probes || run->bloom.probes > LSM_BLOOM_MAX_PROBES)
		return -EUCLEAN;
	run->bloom.nr_lines = lines;
	run->data_blocks = data_blocks;
	run->nr_fences = nr_fences;
	run->nr_long = nr_long;
	return 0;
}

/* Decode the index blocks (@nr of them, at offset @off) into the fences. */
static int lsm_run_load_index(struct lsm_run *run, const u8 *blocks, u32 off,
			      u32 nr)
{
	const struct lsm_run_fence_mem *prev = NULL;
	u32 b, i, at = 0;

	for (b = 0; b < nr; b++) {
		const u8 *block = blocks + (size_t)b * LSM_BLOCK_SIZE;
		const u8 *p = block + sizeof(struct lsm_block_header);
		struct lsm_run_index_head head;
		u32 n = min_t(u32, run->nr_fences - at,
			      LSM_RUN_FENCES_PER_BLOCK);

		memcpy(&head, p, sizeof(head));
		p += sizeof(head);
		if (le32_to_cpu(head.nr_fences) != n || head.reserved ||
		    lsm_run_used(block) != p - block +
					   n * sizeof(struct lsm_run_fence))
			return lsm_run_bad(run->bdev, &run->info, off + b,
					   LSM_BT_RUN_INDEX,
					   "fence count or size wrong");
		for (i = 0; i < n; i++, p += sizeof(struct lsm_run_fence)) {
			struct lsm_run_fence_mem *f = &run->fences[at + i];
			struct lsm_run_fence d;

			memcpy(&d, p, sizeof(d));
			f->first = le64_to_cpu(d.first);
			f->last = le64_to_cpu(d.last);
			f->block = le32_to_cpu(d.block);
			f->kinds = le32_to_cpu(d.kinds);
			if (f->first > f->last || !f->kinds ||
			    f->kinds & ~LSM_RUN_K_ALL ||
			    f->block >= run->data_blocks ||
			    (prev && (prev->last >= f->first ||
				      prev->block >= f->block)) ||
			    (!prev && f->first != run->info.first_key))
				return lsm_run_bad(run->bdev, &run->info,
						   off + b, LSM_BT_RUN_INDEX,
						   "fence out of order or range");
			prev = f;
		}
		at += n;
	}
	if (prev->last != run->info.last_key)
		return lsm_run_bad(run->bdev, &run->info, off + nr - 1,
				   LSM_BT_RUN_INDEX,
				   "last fence does not end the run");
	return 0;
}

/* Copy the filter blocks (@nr of them, at offset @off) into the filter. */
static int lsm_run_load_bloom(struct lsm_run *run, const u8 *blocks, u32 off,
			      u32 nr)
{
	u32 b, at = 0;

	for (b = 0; b < nr; b++) {
		const u8 *block = blocks + (size_t)b * LSM_BLOCK_SIZE;
		u32 n = min_t(u32, run->bloom.nr_lines - at,
			      LSM_RUN_BLOOM_LINES_PER_BLOCK);

		if (lsm_run_used(block) != sizeof(struct lsm_block_header) +
					   n * LSM_BLOOM_LINE_BYTES)
			return lsm_run_bad(run->bdev, &run->info, off + b,
					   LSM_BT_RUN_BLOOM, "size wrong");
		memcpy(run->bloom.bits + (size_t)at * LSM_BLOOM_LINE_BYTES,
		       block + sizeof(struct lsm_block_header),
		       n * LSM_BLOOM_LINE_BYTES);
		at += n;
	}
	return 0;
}

/* Decode the list of long pieces (@nr blocks at offset @off). */
static int lsm_run_load_longs(struct lsm_run *run, const u8 *blocks, u32 off,
			      u32 nr)
{
	const struct lsm_run_long_mem *prev = NULL;
	u32 b, i;
	u64 at = 0;

	for (b = 0; b < nr; b++) {
		const u8 *block = blocks + (size_t)b * LSM_BLOCK_SIZE;
		const u8 *p = block + sizeof(struct lsm_block_header);
		u32 n = min_t(u64, run->nr_long - at, LSM_RUN_LONGS_PER_BLOCK);

		if (lsm_run_used(block) != sizeof(struct lsm_block_header) +
					   n * sizeof(struct lsm_run_long))
			return lsm_run_bad(run->bdev, &run->info, off + b,
					   LSM_BT_RUN_BLOOM, "size wrong");
		for (i = 0; i < n; i++, p += sizeof(struct lsm_run_long)) {
			struct lsm_run_long_mem *l = &run->longs[at + i];
			struct lsm_run_long d;

			memcpy(&d, p, sizeof(d));
			l->start = le64_to_cpu(d.start);
			l->last = le64_to_cpu(d.last);
			if (l->last < l->start ||
			    l->last - l->start < LSM_RUN_SHORT_MAX ||
			    l->start < run->info.first_key ||
			    l->last > run->info.last_key ||
			    (prev && prev->last >= l->start))
				return lsm_run_bad(run->bdev, &run->info,
						   off + b, LSM_BT_RUN_BLOOM,
						   "long piece out of order or range");
			prev = l;
		}
		at += n;
	}
	return 0;
}

/**
 * lsm_run_open() - open a run for reading
 * @bdev:     the device
 * @store_id: the store's id, which every block of the run must carry
 * @info:     the manifest's record of the run
 * @cache:    the store's block cache, which keeps the run's data and
 *            value blocks once read and checked; NULL to read each
 *            block every time it is needed
 * @runp:     set to the open run
 *
 * Reads the footer, then the index and filter in one read, checks every
 * block and field, and keeps the fences (32 bytes per data block) and the
 * filter (about 10 bits per item) in memory: all an open run holds.
 *
 * Context: process; sleeps.
 * Return: 0; -EINVAL if @info does not fit the device; -EUCLEAN if a
 * block fails its check (corrupt, stale or misdirected) or says something
 * impossible or other than @info, with a message naming it; the read's
 * error (-EIO); -ENOMEM.
 */
int lsm_run_open(struct lsm_bdev *bdev, u64 store_id,
		 const struct lsm_run_info *info,
		 struct lsm_block_cache *cache, struct lsm_run **runp)
{
	struct lsm_run *run;
	u8 *buf;
	u32 index_blocks, filter_blocks, bloom_blocks, index_off;
	int err;

	if (info->nr_blocks < LSM_RUN_MIN_BLOCKS || info->nr_blocks > U32_MAX ||
	    info->first_block > bdev->nr_blocks ||
	    bdev->nr_blocks - info->first_block < info->nr_blocks)
		return -EINVAL;

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	buf = kmalloc(LSM_BLOCK_SIZE, GFP_KERNEL);
	err = -ENOMEM;
	if (!run || !buf)
		goto fail;
	run->bdev = bdev;
	run->store_id = store_id;
	run->info = *info;

	err = lsm_run_read_checked(bdev, store_id, info, info->nr_blocks - 1,
				   LSM_BT_RUN_FOOTER, buf, 1);
	if (err)
		goto fail;
	err = lsm_run_check_footer(run, buf);
	if (err) {
		lsm_run_bad(bdev, info, info->nr_blocks - 1, LSM_BT_RUN_FOOTER,
			    "fields impossible or other than the manifest's");
		goto fail;
	}
	kfree(buf);

	/* The index, the filter and the list of long pieces: one read. */
	index_off = run->data_blocks;
	index_blocks = DIV_ROUND_UP(run->nr_fences, LSM_RUN_FENCES_PER_BLOCK);
	filter_blocks = info->nr_blocks - 1 - index_off - index_blocks;
	bloom_blocks = DIV_ROUND_UP(run->bloom.nr_lines,
				    LSM_RUN_BLOOM_LINES_PER_BLOCK);
	err = -ENOMEM;
	buf = kvmalloc((size_t)(index_blocks + filter_blocks) * LSM_BLOCK_SIZE,
		       GFP_KERNEL);
	run->fences = kvcalloc(run->nr_fences, sizeof(*run->fences),
			       GFP_KERNEL);
	if (!buf || !run->fences)
		goto fail;
	if (run->bloom.nr_lines) {
		run->bloom.bits = kvcalloc(run->bloom.nr_lines,
					   LSM_BLOOM_LINE_BYTES, GFP_KERNEL);
		if (!run->bloom.bits)
			goto fail;
	}
	if (run->nr_long) {
		run->longs = kvcalloc(run->nr_long, sizeof(*run->longs),
				      GFP_KERNEL);
		if (!run->longs)
			goto fail;
	}
	err = lsm_run_read(bdev, info, index_off, buf,
			   index_blocks + filter_blocks);
	if (!err)
		err = lsm_run_check(bdev, store_id, info, index_off,
				    LSM_BT_RUN_INDEX, buf, index_blocks);
	if (!err)
		err = lsm_run_check(bdev, store_id, info,
				    index_off + index_blocks, LSM_BT_RUN_BLOOM,
				    buf + (size_t)index_blocks * LSM_BLOCK_SIZE,
				    filter_blocks);
	if (!err)
		err = lsm_run_load_index(run, buf, index_off, index_blocks);
	if (!err)
		err = lsm_run_load_bloom(run, buf +
					 (size_t)index_blocks * LSM_BLOCK_SIZE,
					 index_off + index_blocks,
					 bloom_blocks);
	if (!err)
		err = lsm_run_load_longs(run, buf + (size_t)(index_blocks +
							     bloom_blocks) *
					 LSM_BLOCK_SIZE,
					 index_off + index_blocks + bloom_blocks,
					 filter_blocks - bloom_blocks);
	if (err)
		goto fail;
	kvfree(buf);
	if (cache) {
		run->cache = cache;
		lsm_block_cache_owner_init(cache, &run->owner,
					   run->data_blocks);
	}
	*runp = run;
	return 0;

fail:
	kvfree(buf);
	lsm_run_close(run);
	return err;
}

/**
 * lsm_run_close() - forget an open run
 * @run: from lsm_run_open(), or NULL
 *
 * Its blocks leave the block cache at once.
 *
 * Context: process; no lookup of @run may be running.
 */
void lsm_run_close(struct lsm_run *run)
{
	if (!run)
		return;
	if (run->cache)
		lsm_block_cache_drop(run->cache, &run->owner);
	kvfree(run->fences);
	kvfree(run->bloom.bits);
	kvfree(run->longs);
	kfree(run);
}

/**
 * lsm_run_info_of() - the manifest's record of an open run
 * @run: open
 *
 * Context: any.
 * Return: the record, valid while the run is open.
 */
const struct lsm_run_info *lsm_run_info_of(const struct lsm_run *run)
{
	return &run->info;
}

/* The first fence whose block ends at or after @pos, or NULL. */
static const struct lsm_run_fence_mem *lsm_run_fence(const struct lsm_run *run,
						     u64 pos)
{
	u32 lo = 0, hi = run->nr_fences;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (run->fences[mid].last < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < run->nr_fences ? &run->fences[lo] : NULL;
}

/* Whether a long piece of the run covers @k: the exact answer. */
static bool lsm_run_long_covers(const struct lsm_run *run, u64 k)
{
	u64 lo = 0, hi = run->nr_long;

	/* The first long piece ending at or after @k. */
	while (lo < hi) {
		u64 mid = lo + (hi - lo) / 2;

		if (run->longs[mid].last < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < run->nr_long && run->longs[lo].start <= k;
}

/* --- Blocks through the cache --- */

/*
 * Block @off of the run as the cache holds it, in *@bp with a reference
 * (NULL if the cache has not got it, or there is none).  It passed its
 * check when it went in; its type is asked again, since only what the
 * entries naming an offset say makes it a data or a value block.
 */
static int lsm_run_cached(struct lsm_run *run, u32 off,
			  enum lsm_block_type type, enum lsm_cache_use use,
			  struct lsm_cached_block **bp)
{
	const struct lsm_block_header *h;
	struct lsm_cached_block *b;

	*bp = NULL;
	if (!run->cache)
		return 0;
	b = lsm_block_cache_lookup(run->cache, &run->owner, off, use);
	if (!b)
		return 0;
	h = lsm_cached_block_data(b);
	if (le16_to_cpu(h->type) != type) {
		lsm_cached_block_put(b);
		return lsm_run_bad(run->bdev, &run->info, off, type,
				   "stale or misdirected (another type, place or run)");
	}
	*bp = b;
	return 0;
}

/*
 * Data block @off, from the cache, or read and checked (then offered to
 * the cache): *@data points at it, in *@held (a reference the caller
 * puts) or in @buf, when the run has no cache or a scan's block would
 * not go in (a full cache: a scan evicts nothing, block_cache.h).
 */
static int lsm_run_data_block(struct lsm_run *run, u32 off,
			      enum lsm_cache_use use, u8 *buf,
			      const u8 **data, struct lsm_cached_block **held)
{
	struct lsm_cached_block *b;
	int err;

	err = lsm_run_cached(run, off, LSM_BT_RUN_DATA, use, &b);
	if (err)
		return err;
	if (!b && run->cache &&
	    (use == LSM_CACHE_LOOKUP || lsm_block_cache_has_room(run->cache))) {
		/* Read straight into the page the cache will keep. */
		b = lsm_cached_block_alloc(GFP_KERNEL | __GFP_NOWARN);
		if (!b)
			return -ENOMEM;
		err = lsm_run_read_checked(run->bdev, run->store_id,
					   &run->info, off, LSM_BT_RUN_DATA,
					   lsm_cached_block_data(b), 1);
		if (err) {
			lsm_cached_block_put(b);
			return err;
		}
		b = lsm_block_cache_insert(run->cache, &run->owner, off, b,
					   use);
	}
	*held = b;
	if (b) {
		*data = lsm_cached_block_data(b);
		return 0;
	}
	*data = buf;
	return lsm_run_read_checked(run->bdev, run->store_id, &run->info, off,
				    LSM_BT_RUN_DATA, buf, 1);
}

/* Copy what value block @i of @e's value holds (as much as @want takes). */
static int lsm_run_value_chunk(struct lsm_run *run,
			       const struct lsm_run_entry *e, u32 i,
			       const u8 *block, void *vbuf, u32 want)
{
	u32 off = i * (u32)LSM_BLOCK_BODY;
	u32 chunk = min_t(u32, e->piece.ext.vlen - off, LSM_BLOCK_BODY);

	if (lsm_run_used(block) != sizeof(struct lsm_block_header) + chunk)
		return lsm_run_bad(run->bdev, &run->info, e->value_block + i,
				   LSM_BT_RUN_VALUE, "size wrong for its value");
	memcpy((u8 *)vbuf + off, block + sizeof(struct lsm_block_header),
	       min(chunk, want - off));
	return 0;
}

/*
 * Offer the cache a copy of a value block just read and checked.  The
 * value is already had: without memory for the copy it is not kept.
 */
static void lsm_run_cache_copy(struct lsm_run *run, u32 off, const u8 *block,
			       enum lsm_cache_use use)
{
	struct lsm_cached_block *b;

	if (!run->cache ||
	    (use == LSM_CACHE_SCAN && !lsm_block_cache_has_room(run->cache)))
		return;
	b = lsm_cached_block_alloc(GFP_KERNEL | __GFP_NOWARN);
	if (!b)
		return;
	memcpy(lsm_cached_block_data(b), block, LSM_BLOCK_SIZE);
	lsm_cached_block_put(lsm_block_cache_insert(run->cache, &run->owner,
						    off, b, use));
}

/*
 * Copy a value from its value blocks: as much as @vbuf_size takes.  The
 * blocks the cache holds are copied from there; each stretch of the
 * others is read with one read (all of them, without a cache) and
 * offered to the cache.
 */
static int lsm_run_read_value(struct lsm_run *run,
			      const struct lsm_run_entry *e,
			      void *vbuf, u32 vbuf_size,
			      enum lsm_cache_use use)
{
	u32 want = min(e->piece.ext.vlen, vbuf_size);
	u32 nr = lsm_run_value_blocks(want), i = 0, j, k;
	struct lsm_cached_block *hit = NULL;
	u8 *buf = NULL;
	int err = 0;

	while (i < nr) {
		if (!hit) {
			err = lsm_run_cached(run, e->value_block + i,
					     LSM_BT_RUN_VALUE, use, &hit);
			if (err)
				break;
		}
		if (hit) {
			err = lsm_run_value_chunk(run, e, i,
						  lsm_cached_block_data(hit),
						  vbuf, want);
			lsm_cached_block_put(hit);
			hit = NULL;
			if (err)
				break;
			i++;
			continue;
		}
		/* Block @i is not there: read up to the next one that is. */
		for (j = i + 1; j < nr; j++) {
			err = lsm_run_cached(run, e->value_block + j,
					     LSM_BT_RUN_VALUE, use, &hit);
			if (err || hit)
				break;
		}
		if (err)
			break;
		/* The first stretch is the longest: one buffer serves all. */
		if (!buf)
			buf = kvmalloc((size_t)(nr - i) * LSM_BLOCK_SIZE,
				       GFP_KERNEL);
		if (!buf) {
			err = -ENOMEM;
			break;
		}
		err = lsm_run_read_checked(run->bdev, run->store_id,
					   &run->info, e->value_block + i,
					   LSM_BT_RUN_VALUE, buf, j - i);
		for (k = i; !err && k < j; k++) {
			const u8 *block = buf + (size_t)(k - i) * LSM_BLOCK_SIZE;

			err = lsm_run_value_chunk(run, e, k, block, vbuf, want);
			if (!err)
				lsm_run_cache_copy(run, e->value_block + k,
						   block, use);
		}
		if (err)
			break;
		i = j;
	}
	lsm_cached_block_put(hit);
	kvfree(buf);
	return err;
}

/* --- Reading pieces in order: the iterator, and the lookups on it --- */

/**
 * struct lsm_run_iter - a cursor over the pieces of a run, in key order
 * @run:       the run
 * @block:     the data block loaded: in @held, or in @own
 * @held:      the block cache's block the cursor holds (a reference), or
 *             NULL
 * @own:       a buffer of the cursor's own, for a block the cache does
 *             not keep (a scan's, once the cache is full; any, without a
 *             cache)
 * @use:       what the cursor reads for: a scan's blocks go in only
 *             while the cache has room, at its cold end; a lookup's at
 *             its hot end
 * @fence:     the data block the cursor is in, as an index into the
 *             run's fences; @run->nr_fences once past the last piece
 * @loaded:    @block holds that data block, checked, and @e is decoded;
 *             otherwise the current piece is the block's first, and all
 *             that is known of it is its start (the fence's first unit)
 * @p:         the next entry of @block to decode
 * @end:       the end of @block's entries
 * @left:      entries of @block after @e
 * @has_prev:  @e is not the block's first entry
 * @prev_last: then, the last unit of the entry before it
 * @err:       a block failed to read or check: every later call fails so
 * @e:         the current entry
 *
 * A block is read and checked once (or found in the block cache), when
 * the cursor first needs one of its pieces, and its entries are decoded
 * one by one as the cursor steps, in place in the cache's page; a cursor
 * moved to a later block by the fences alone reads nothing until a piece
 * of that block is asked for.
 */
struct lsm_run_iter {
	struct lsm_run *run;
	const u8 *block;
	struct lsm_cached_block *held;
	u8 *own;
	enum lsm_cache_use use;
	u32 fence;
	bool loaded;
	const u8 *p;
	const u8 *end;
	u32 left;
	bool has_prev;
	u64 prev_last;
	int err;
	struct lsm_run_entry e;
};

static void lsm_run_iter_setup(struct lsm_run_iter *it, struct lsm_run *run,
			       u8 *own, enum lsm_cache_use use)
{
	memset(it, 0, sizeof(*it));
	it->run = run;
	it->own = own;
	it->use = use;
	it->fence = run->nr_fences;
}

/* Give back the cache's block the cursor holds, if any. */
static void lsm_run_iter_release(struct lsm_run_iter *it)
{
	lsm_cached_block_put(it->held);
	it->held = NULL;
	it->block = NULL;
}

static int lsm_run_iter_fail(struct lsm_run_iter *it, const char *why)
{
	it->loaded = false;
	it->err = lsm_run_bad(it->run->bdev, &it->run->info,
			      it->run->fences[it->fence].block,
			      LSM_BT_RUN_DATA, why);
	return it->err;
}

/*
 * Decode the next entry of the loaded block into @it->e and check it
 * against its neighbour and its fence: in order, apart, inside.
 */
static int lsm_run_iter_decode(struct lsm_run_iter *it)
{
	const struct lsm_run_fence_mem *f = &it->run->fences[it->fence];
	u64 last;

	if (lsm_run_decode(&it->p, it->end, f->block, &it->e))
		return lsm_run_iter_fail(it, "entry malformed");
	last = lsm_last(it->e.piece.start, it->e.piece.len);
	if ((it->has_prev ? it->e.piece.start <= it->prev_last :
			    it->e.piece.start != f->first) || last > f->last)
		return lsm_run_iter_fail(it, "entries out of order or other than its fence");
	it->left--;
	return 0;
}

/* Read and check the block of @it->fence, and decode its first entry. */
static int lsm_run_iter_load(struct lsm_run_iter *it)
{
	struct lsm_run *run = it->run;
	struct lsm_run_data_head head;
	int err;

	lsm_run_iter_release(it);
	err = lsm_run_data_block(run, run->fences[it->fence].block, it->use,
				 it->own, &it->block, &it->held);
	if (err) {
		/* A lack of memory may pass; a bad run stays bad. */
		if (err != -ENOMEM)
			it->err = err;
		return err;
	}
	it->p = it->block + sizeof(struct lsm_block_header);
	it->end = it->block + lsm_run_used(it->block);
	if (it->end - it->p < sizeof(head))
		return lsm_run_iter_fail(it, "no entries");
	memcpy(&head, it->p, sizeof(head));
	it->p += sizeof(head);
	it->left = le16_to_cpu(head.nr_entries);
	if (!it->left || head.reserved)
		return lsm_run_iter_fail(it, "entry count or reserved field wrong");
	it->has_prev = false;
	it->loaded = true;
	return lsm_run_iter_decode(it);
}

/*
 * Step to the next piece of the loaded block, or past the block: to the
 * first piece of the next one (not read yet), or past the run (-ENOENT).
 */
static int lsm_run_iter_step(struct lsm_run_iter *it)
{
	const struct lsm_run_fence_mem *f = &it->run->fences[it->fence];
	u64 last = lsm_last(it->e.piece.start, it->e.piece.len);

	if (it->left) {
		it->has_prev = true;
		it->prev_last = last;
		return lsm_run_iter_decode(it);
	}
	/* The block ends where its fence says, with its last entry. */
	if (last != f->last || it->p != it->end)
		return lsm_run_iter_fail(it, "entries end other than its fence");
	it->loaded = false;
	it->fence++;
	return it->fence < it->run->nr_fences ? 0 : -ENOENT;
}

/*
 * Move to the first piece ending at or after @pos, which lies in the
 * block of fence @f (whose last unit is at or after @pos).  Within the
 * block already loaded, go on from the current entry when it is not past
 * @pos; otherwise start over at the block's first.
 */
static int lsm_run_iter_within(struct lsm_run_iter *it, u32 f, u64 pos)
{
	int err;

	if (f != it->fence || (it->loaded && it->has_prev &&
			       it->prev_last >= pos)) {
		it->fence = f;
		it->loaded = false;
	}
	if (!it->loaded) {
		/* The block's first piece starts there, so it is the one. */
		if (pos <= it->run->fences[f].first)
			return 0;
		err = lsm_run_iter_load(it);
		if (err)
			return err;
	}
	while (lsm_last(it->e.piece.start, it->e.piece.len) < pos) {
		/* Cannot leave the block: its last piece ends at or after @pos. */
		err = lsm_run_iter_step(it);
		if (err)
			return err;
	}
	return 0;
}

/**
 * lsm_run_iter_create() - a cursor over a run's pieces
 * @run: open; it must stay open while the cursor is used
 *
 * The cursor points nowhere until lsm_run_iter_seek().  It holds one
 * data block: a reference on the block cache's, or its own buffer
 * (LSM_BLOCK_SIZE).  The blocks it reads go in only while the block
 * cache has room, at its cold end: a scan evicts nothing that lookups
 * use.
 *
 * Context: process; sleeps.  Any number of cursors may be used at once
 * on one run, each by one thread at a time.
 * Return: the cursor, or NULL without memory.
 */
struct lsm_run_iter *lsm_run_iter_create(struct lsm_run *run)
{
	struct lsm_run_iter *it = kmalloc(sizeof(*it), GFP_KERNEL);
	u8 *own = kmalloc(LSM_BLOCK_SIZE, GFP_KERNEL);

	if (!it || !own) {
		kfree(it);
		kfree(own);
		return NULL;
	}
	lsm_run_iter_setup(it, run, own, LSM_CACHE_SCAN);
	return it;
}

/**
 * lsm_run_iter_reset() - point a cursor at another run
 * @it:  the cursor, from lsm_run_iter_create()
 * @run: open; it must stay open while the cursor is used
 *
 * Keeps the cursor's buffer and gives back the cache's block it holds,
 * so that walking a level of many runs costs one allocation; forgets any
 * error.  The cursor points nowhere until
 * lsm_run_iter_seek().
 *
 * Context: any.
 */
void lsm_run_iter_reset(struct lsm_run_iter *it, struct lsm_run *run)
{
	lsm_run_iter_release(it);
	lsm_run_iter_setup(it, run, it->own, it->use);
}

/**
 * lsm_run_iter_destroy() - free a cursor
 * @it: from lsm_run_iter_create(), or NULL
 *
 * Context: any that may free memory.
 */
void lsm_run_iter_destroy(struct lsm_run_iter *it)
{
	if (!it)
		return;
	lsm_run_iter_release(it);
	kfree(it->own);
	kfree(it);
}

/**
 * lsm_run_iter_seek() - move a cursor to the first piece ending at or
 *                       after a unit
 * @it:  the cursor
 * @pos: the unit
 *
 * Forward from where the cursor is, within its block, it steps through
 * the entries already read; elsewhere it asks the fences and reads at
 * most one data block, and none when @pos lies before the block's first
 * piece (lsm_run_iter_start() needs no read).
 *
 * Context: process; sleeps.
 * Return: 0 with the cursor on the piece covering @pos, else the first
 * after it; -ENOENT if every piece ends before @pos; -EUCLEAN if a block
 * fails its check; the read's error (-EIO); -ENOMEM for the block
 * cache's page (the call may be made again); once a call has failed
 * with -EUCLEAN or -EIO, its error again.
 */
int lsm_run_iter_seek(struct lsm_run_iter *it, u64 pos)
{
	const struct lsm_run_fence_mem *f;
	u32 i = it->fence;

	if (it->err)
		return it->err;
	/* The fence of the block the cursor is in, if it is still the one. */
	if (i >= it->run->nr_fences || it->run->fences[i].last < pos ||
	    (i && it->run->fences[i - 1].last >= pos)) {
		f = lsm_run_fence(it->run, pos);
		if (!f) {
			it->fence = it->run->nr_fences;
			it->loaded = false;
			return -ENOENT;
		}
		i = f - it->run->fences;
	}
	return lsm_run_iter_within(it, i, pos);
}

/**
 * lsm_run_iter_next() - move a cursor to the next piece
 * @it: the cursor, on a piece
 *
 * At the end of a block the cursor moves to the next block's first
 * piece, which is read when it is asked for.
 *
 * Context: process; sleeps.
 * Return: 0; -ENOENT past the last piece; -EUCLEAN if a block fails its
 * check; the read's error (-EIO); -ENOMEM for the block cache's page
 * (the call may be made again); once a call has failed with -EUCLEAN
 * or -EIO, its error again.
 */
int lsm_run_iter_next(struct lsm_run_iter *it)
{
	int err;

	if (it->err)
		return it->err;
	if (it->fence >= it->run->nr_fences)
		return -ENOENT;
	if (!it->loaded) {
		err = lsm_run_iter_load(it);
		if (err)
			return err;
	}
	return lsm_run_iter_step(it);
}

/**
 * lsm_run_iter_start() - the first unit of the cursor's piece
 * @it: the cursor, on a piece (its last seek or next returned 0)
 *
 * Reads nothing: a block not read yet is known by its fence.
 *
 * Context: any.
 * Return: the unit.
 */
u64 lsm_run_iter_start(const struct lsm_run_iter *it)
{
	if (it->loaded)
		return it->e.piece.start;
	return it->run->fences[it->fence].first;
}

/**
 * lsm_run_iter_piece() - the cursor's piece
 * @it:  the cursor, on a piece (its last seek or next returned 0)
 * @out: the piece, tombstones included; out->ext.value is NULL (the
 *       value is lsm_run_iter_value()'s)
 *
 * Reads the piece's data block if the cursor has not yet.
 *
 * Context: process; sleeps.
 * Return: 0; -EUCLEAN if the block fails its check; the read's error
 * (-EIO); -ENOMEM for the block cache's page (the call may be made
 * again); once a call has failed with -EUCLEAN or -EIO, its error again.
 */
int lsm_run_iter_piece(struct lsm_run_iter *it, struct lsm_piece *out)
{
	int err;

	if (it->err)
		return it->err;
	if (!it->loaded) {
		err = lsm_run_iter_load(it);
		if (err)
			return err;
	}
	*out = it->e.piece;
	out->ext.value = NULL;
	return 0;
}

/**
 * lsm_run_iter_value() - copy the value of the cursor's piece
 * @it:        the cursor, after lsm_run_iter_piece() on this piece
 * @vbuf:      up to @vbuf_size bytes of the value are copied here
 * @vbuf_size: may be 0
 *
 * A value inline in the data block is copied from the block already
 * read; one in value blocks is taken from the block cache or read (as
 * many blocks as @vbuf_size needs) and checked.
 *
 * Context: process; sleeps.
 * Return: 0; -EUCLEAN if a value block fails its check; the read's error
 * (-EIO); -ENOMEM; once a call has failed with -EUCLEAN or -EIO, its
 * error again.
 */
int lsm_run_iter_value(struct lsm_run_iter *it, void *vbuf, u32 vbuf_size)
{
	const struct lsm_piece *pc = &it->e.piece;
	int err;

	if (it->err)
		return it->err;
	if (WARN_ON_ONCE(!it->loaded))
		return -EINVAL;
	if (it->e.value_out) {
		err = lsm_run_read_value(it->run, &it->e, vbuf, vbuf_size,
					 it->use);
		/* A bad run stays bad; only a lack of memory may pass. */
		if (err && err != -ENOMEM)
			it->err = err;
		return err;
	}
	if (pc->ext.vlen && vbuf_size)
		memcpy(vbuf, pc->ext.value, min(pc->ext.vlen, vbuf_size));
	return 0;
}

/*
 * The first piece of the block of @fence ending at or after @pos (with
 * @covering, only one covering @pos), its value to @vbuf: a cursor of
 * the lookup's own, used once.
 */
static int lsm_run_find(struct lsm_run *run,
			const struct lsm_run_fence_mem *fence, u64 pos,
			bool covering, struct lsm_piece *out,
			void *vbuf, u32 vbuf_size)
{
	struct lsm_run_iter it;
	u8 *own = NULL;
	int err;

	if (!run->cache) {
		own = kmalloc(LSM_BLOCK_SIZE, GFP_KERNEL);
		if (!own)
			return -ENOMEM;
	}
	lsm_run_iter_setup(&it, run, own, LSM_CACHE_LOOKUP);
	err = lsm_run_iter_within(&it, fence - run->fences, pos);
	if (!err)
		err = lsm_run_iter_piece(&it, out);
	if (!err && covering && out->start > pos)
		err = -ENOENT;
	if (!err)
		err = lsm_run_iter_value(&it, vbuf, vbuf_size);
	if (!err)
		out->ext.value = vbuf;
	lsm_run_iter_release(&it);
	kfree(own);
	return err;
}

/**
 * lsm_run_get() - the piece of a run covering a unit
 * @run:       open
 * @k:         the unit
 * @out:       the piece, tombstones included; out->ext.value is @vbuf
 * @vbuf:      up to @vbuf_size bytes of the value are copied here
 *             (out->ext.vlen is its full length)
 * @vbuf_size: may be 0
 *
 * Asks the fences and then the filter (or, for the long pieces, their
 * exact list); reads at most one data block, plus the value blocks of a
 * large value (as many as @vbuf_size needs), each only if the block
 * cache has not got it.
 *
 * Context: process; sleeps.  Any number of lookups may run at once.
 * Return: 0; -ENOENT if no piece covers @k; -EUCLEAN if a block fails its
 * check; the read's error (-EIO); -ENOMEM.
 */
int lsm_run_get(struct lsm_run *run, u64 k, struct lsm_piece *out,
		void *vbuf, u32 vbuf_size)
{
	const struct lsm_run_fence_mem *fence;

	if (k < run->info.first_key || k > run->info.last_key)
		return -ENOENT;
	fence = lsm_run_fence(run, k);
	if (!fence || fence->first > k)
		return -ENOENT;
	if (!((fence->kinds & LSM_RUN_K_SHORT) &&
	      lsm_bloom_test(&run->bloom, lsm_bloom_hash(k))) &&
	    !((fence->kinds & LSM_RUN_K_LONG) && lsm_run_long_covers(run, k)))
		return -ENOENT;
	return lsm_run_find(run, fence, k, true, out, vbuf, vbuf_size);
}

/**
 * lsm_run_next() - the first piece of a run ending at or after a unit
 * @run:       open
 * @pos:       the unit
 * @out:       the piece covering @pos, else the first after it;
 *             tombstones included; out->ext.value is @vbuf
 * @vbuf:      up to @vbuf_size bytes of the value are copied here
 * @vbuf_size: may be 0
 *
 * Reads one data block, plus the value blocks of a large value, each
 * only if the block cache has not got it.  To walk a run,
 * lsm_run_iter_*() read each block once.
 *
 * Context: process; sleeps.  Any number of lookups may run at once.
 * Return: 0; -ENOENT if every piece ends before @pos; -EUCLEAN if a
 * block fails its check; the read's error (-EIO); -ENOMEM.
 */
int lsm_run_next(struct lsm_run *run, u64 pos, struct lsm_piece *out,
		 void *vbuf, u32 vbuf_size)
{
	const struct lsm_run_fence_mem *fence = lsm_run_fence(run, pos);

	if (!fence)
		return -ENOENT;
	return lsm_run_find(run, fence, pos, false, out, vbuf, vbuf_size);
}
