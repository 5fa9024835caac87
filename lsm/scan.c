// SPDX-License-Identifier: GPL-2.0
/*
 * Scans (store.h: lsm_store_scan()): the visible pieces of every layer,
 * merged in key order.  Documentation/lsm.rst, "Reads and scans", has
 * the rule; this comment has how it is kept cheap.
 *
 * A scan keeps one cursor per source (memtable, run of level 0, level)
 * and splits them in two by where their next piece starts:
 *  - the *covering* sources, whose piece covers the position, in a
 *    bitmap by source number: the newest of them, the lowest bit set,
 *    wins the position;
 *  - the others, in a min-heap by where their piece starts: its top
 *    says where the next newer piece may begin, which ends the winner's
 *    piece, and when the position reaches it, that source moves to the
 *    covering ones.
 * A step thus costs the sources whose pieces begin or end there, not a
 * look at every source: a store of many runs in level 0 and many levels
 * scans as fast, per piece, as one with a single level.  The top of the
 * heap may be an older source that the winner hides, so a piece can end
 * early at its start; the next step continues the same extent, and the
 * two are joined into one piece.  Older sources under the winner are
 * moved only when the position passes their pieces.
 */
#include <linux/bitmap.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "store_int.h"
#include "store_window.h"

/**
 * struct lsm_scan_layer - one source's cursor in a scan
 * @mt:        the memtable, or NULL for a level
 * @li:        a level's cursor
 * @head:      the source's first piece ending at or after the scan's
 *             position, tombstones included; filled in once @have_head
 * @start:     its first unit, known for a run before its block is read
 * @have_head: @head is filled in (always, for a memtable)
 * @valid:     the source has such a piece
 *
 * A level's cursor reads each data block of its runs once; a memtable
 * is walked a piece at a time (lsm_mem_next(), a skiplist search under
 * RCU each, as sl_em_walk() walks an extent map), since its active one
 * changes under the scan and holds no block to keep.
 */
struct lsm_scan_layer {
	struct lsm_memtable *mt;
	struct lsm_level_iter li;
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

/**
 * struct lsm_scan - a scan call's cursors
 * @c:     one per source, newest first
 * @nr:    how many
 * @cov:   the covering sources, a bit per cursor
 * @heap:  the others that have a piece, a min-heap of cursor numbers by
 *         (start, number)
 * @nheap: how many
 * @sg:    where the next value goes
 */
struct lsm_scan {
	struct lsm_scan_layer *c;
	unsigned int nr;
	unsigned long *cov;
	unsigned int *heap;
	unsigned int nheap;
	struct lsm_scan_stage sg;
};

/* Move @c to its layer's first piece ending at or after @pos. */
static int lsm_scan_seek(struct lsm_scan_layer *c, u64 pos,
			 struct lsm_scan_stage *sg)
{
	int err;

	if (c->mt) {
		err = lsm_mem_next(c->mt, pos, &c->head, sg->at, sg->room);
		c->have_head = !err;
		if (!err) {
			c->start = c->head.start;
			if (c->head.ext.vlen <= sg->room)
				sg->owner = c;
			else if (sg->room || sg->owner == c)
				sg->owner = NULL;	/* cut short, or not there */
		}
	} else {
		err = lsm_level_iter_seek(&c->li, pos);
		c->have_head = false;
		if (!err)
			c->start = lsm_level_iter_start(&c->li);
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
		err = lsm_level_iter_piece(&c->li, &c->head);
		if (err)
			return err;
		c->have_head = true;
	}
	if (lsm_last(c->head.start, c->head.len) >= pos)
		return 0;
	err = lsm_scan_seek(c, pos, sg);
	if (err || !c->valid || c->start > pos || c->have_head)
		return err;
	err = lsm_level_iter_piece(&c->li, &c->head);
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

	if (!c->mt) {
		*p = c->head;
		sg->owner = NULL;
		return lsm_level_iter_value(&c->li, sg->at, h->vlen);
	}
	if (sg->owner == c) {
		*p = c->head;
		return 0;
	}
	sg->owner = NULL;
	err = lsm_mem_get(c->mt, pos, p, sg->at, h->vlen);
	if (err == -ENOENT || (!err && (p->ext.seq != h->seq ||
					p->ext.key != h->key ||
					p->ext.len != h->len ||
					p->ext.flags != h->flags ||
					p->ext.vlen != h->vlen)))
		return -EAGAIN;
	return err;
}

/* Whether heap entry @a goes above @b: earlier start, then newer. */
static bool lsm_scan_before(const struct lsm_scan *sc, unsigned int a,
			    unsigned int b)
{
	return sc->c[a].start < sc->c[b].start ||
	       (sc->c[a].start == sc->c[b].start && a < b);
}

static void lsm_scan_heap_push(struct lsm_scan *sc, unsigned int i)
{
	unsigned int at = sc->nheap++;

	while (at && lsm_scan_before(sc, i, sc->heap[(at - 1) / 2])) {
		sc->heap[at] = sc->heap[(at - 1) / 2];
		at = (at - 1) / 2;
	}
	sc->heap[at] = i;
}

static unsigned int lsm_scan_heap_pop(struct lsm_scan *sc)
{
	unsigned int top = sc->heap[0], last = sc->heap[--sc->nheap], at = 0;

	for (;;) {
		unsigned int child = 2 * at + 1;

		if (child >= sc->nheap)
			break;
		if (child + 1 < sc->nheap &&
		    lsm_scan_before(sc, sc->heap[child + 1], sc->heap[child]))
			child++;
		if (!lsm_scan_before(sc, sc->heap[child], last))
			break;
		sc->heap[at] = sc->heap[child];
		at = child;
	}
	if (sc->nheap)
		sc->heap[at] = last;
	return top;
}

/*
 * Put cursor @i, not in the bitmap nor the heap, where it belongs at
 * @pos: brought up to @pos, then covering, waiting in the heap, or (past
 * its source's last piece) nowhere.
 */
static int lsm_scan_place(struct lsm_scan *sc, unsigned int i, u64 pos)
{
	struct lsm_scan_layer *c = &sc->c[i];
	int err = lsm_scan_reach(c, pos, &sc->sg);

	if (err || !c->valid)
		return err;
	if (c->start <= pos)
		bitmap_set(sc->cov, i, 1);
	else
		lsm_scan_heap_push(sc, i);
	return 0;
}

/*
 * Start a scan call at @pos: a cursor per source, newest first (empty
 * levels need none), each placed.
 */
static int lsm_scan_start(struct lsm_scan *sc, struct lsm_layers *ls, u64 pos)
{
	unsigned int max = lsm_layers_nr_sources(ls);
	struct lsm_source src;
	int err;

	sc->c = kvcalloc(max, sizeof(*sc->c), GFP_KERNEL);
	sc->heap = kvcalloc(max, sizeof(*sc->heap), GFP_KERNEL);
	sc->cov = kcalloc(BITS_TO_LONGS(max), sizeof(long), GFP_KERNEL);
	if (!sc->c || !sc->heap || !sc->cov)
		return -ENOMEM;
	for (unsigned int i = 0; i < max; i++) {
		struct lsm_scan_layer *c = &sc->c[sc->nr];

		lsm_layers_source(ls, i, &src);
		if (!src.mt && !src.lv.nr)
			continue;
		c->mt = src.mt;
		lsm_level_iter_init(&c->li, &src.lv);
		sc->nr++;
		err = lsm_scan_seek(c, pos, &sc->sg);
		if (!err)
			err = lsm_scan_place(sc, sc->nr - 1, pos);
		if (err)
			return err;
	}
	return 0;
}

static void lsm_scan_end(struct lsm_scan *sc)
{
	for (unsigned int i = 0; i < sc->nr; i++)
		lsm_level_iter_destroy(&sc->c[i].li);
	kvfree(sc->c);
	kvfree(sc->heap);
	kfree(sc->cov);
}

/* The same extent as stored: a window of it continues another. */
static bool lsm_scan_same_extent(const struct lsm_extent *a,
				 const struct lsm_extent *b)
{
	return a->key == b->key && a->len == b->len && a->seq == b->seq &&
	       a->flags == b->flags;
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
 * hidden, and adjacent windows of one extent are returned as one piece.
 * A scan is not a snapshot: a write racing with it may or may not be
 * seen.  A call reads each data block it crosses once per run, and
 * nothing outlives it: the next call seeks again from @cur.
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
	struct lsm_scan sc = {
		.sg = {
			.at = vbuf,
			.room = min_t(size_t, vbuf_size, LSM_VALUE_MAX),
		},
	};
	struct lsm_layers *ls;
	unsigned int filled = 0, i;
	size_t used = 0;
	u64 pos = cur->pos;
	int err;

	if (!max)
		return -EINVAL;
	if (cur->done)
		return 0;
	ls = lsm_layers_get(st);
	lsm_window(st, LSM_WIN_READ_HELD);
	err = lsm_scan_start(&sc, ls, pos);
	while (!err) {
		struct lsm_scan_layer *best;
		struct lsm_piece *prev = filled ? &out[filled - 1] : NULL;
		struct lsm_piece *p = &out[filled];
		u64 end;

		/* Sources whose next piece begins here join the covering. */
		while (sc.nheap && sc.c[sc.heap[0]].start <= pos) {
			err = lsm_scan_place(&sc, lsm_scan_heap_pop(&sc), pos);
			if (err)
				goto out;
		}
		i = find_first_bit(sc.cov, sc.nr);
		if (i == sc.nr) {
			if (!sc.nheap) {
				cur->done = true;
				break;
			}
			pos = sc.c[sc.heap[0]].start;
			continue;
		}
		best = &sc.c[i];
		end = lsm_last(best->head.start, best->head.len);
		if (sc.nheap && sc.c[sc.heap[0]].start - 1 < end)
			end = sc.c[sc.heap[0]].start - 1;
		if (best->head.ext.flags & LSM_EXT_TOMBSTONE) {
			/* Hidden. */
		} else if (prev && lsm_last(prev->start, prev->len) + 1 == pos &&
			   lsm_scan_same_extent(&prev->ext, &best->head.ext)) {
			prev->len += end - pos + 1;
		} else {
			if (filled == max)
				break;
			if (best->head.ext.vlen > vbuf_size - used) {
				if (!filled)
					err = -EOVERFLOW;
				break;
			}
			err = lsm_scan_copy(best, pos, p, &sc.sg);
			if (err == -EAGAIN) {
				/* The memtable changed under the head: again. */
				bitmap_clear(sc.cov, i, 1);
				err = lsm_scan_seek(best, pos, &sc.sg);
				if (!err)
					err = lsm_scan_place(&sc, i, pos);
				continue;
			}
			if (err)
				break;
			end = min(end, lsm_last(p->start, p->len));
			p->start = pos;
			p->len = end - pos + 1;
			p->ext.value = sc.sg.at;
			used += p->ext.vlen;
			sc.sg.at += p->ext.vlen;
			sc.sg.room = min_t(size_t, vbuf_size - used,
					   LSM_VALUE_MAX);
			sc.sg.owner = NULL;
			filled++;
		}
		if (end == U64_MAX) {
			cur->done = true;
			break;
		}
		pos = end + 1;
		/* Covering sources whose piece ended: placed again. */
		for (i = find_first_bit(sc.cov, sc.nr); i < sc.nr;
		     i = find_next_bit(sc.cov, sc.nr, i + 1)) {
			if (lsm_last(sc.c[i].head.start, sc.c[i].head.len) >= pos)
				continue;
			bitmap_clear(sc.cov, i, 1);
			err = lsm_scan_place(&sc, i, pos);
			if (err)
				goto out;
		}
	}
	if (!err && !cur->done)
		cur->pos = pos;
out:
	lsm_scan_end(&sc);
	lsm_layers_put(st, ls);
	return err ? err : filled;
}
