// SPDX-License-Identifier: GPL-2.0
/*
 * Merging levels for a compaction (merge.h).
 *
 * At each position the newest level whose piece covers it wins, up to
 * where that piece ends or a newer level's next piece begins, whichever
 * is first: an older extent sticking out from under a newer one is kept
 * in its visible windows only, each with the extent as stored (so that a
 * reader still learns the extent's key and length), and a newer piece
 * hides whatever lies under it, a punch included.  The levels older than
 * the winner are not moved until the position passes their pieces, so a
 * step looks at the levels down to the winner, and each data block of
 * every run is read once.  This is the rule the store's reads apply
 * (store.c), so a merge never changes what a read returns; the one
 * difference is that punches come out too, unless @keep_punch says no
 * level below the merge can hold data under one.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "merge.h"

/**
 * lsm_merge_init() - start a merge at the first unit
 * @mg:  the merge; @keep_punch and @priv may be set afterwards
 * @lvs: the levels, newest first; their runs stay open while @mg is used
 * @nr:  how many, at least 1
 *
 * Context: process; sleeps.
 * Return: 0; -ENOMEM; -EUCLEAN or -EIO from a run's first block.
 */
int lsm_merge_init(struct lsm_merge *mg, const struct lsm_level *lvs,
		   unsigned int nr)
{
	int err;

	memset(mg, 0, sizeof(*mg));
	mg->src = kcalloc(nr, sizeof(*mg->src), GFP_KERNEL);
	if (!mg->src)
		return -ENOMEM;
	mg->nr = nr;
	for (unsigned int i = 0; i < nr; i++)
		lsm_level_iter_init(&mg->src[i].li, &lvs[i]);
	for (unsigned int i = 0; i < nr; i++) {
		struct lsm_merge_src *c = &mg->src[i];

		err = lsm_level_iter_seek(&c->li, 0);
		if (err && err != -ENOENT)
			return err;
		c->valid = !err;
		if (c->valid)
			c->start = lsm_level_iter_start(&c->li);
	}
	return 0;
}

/**
 * lsm_merge_destroy() - free what a merge holds
 * @mg: the merge (also after a failed lsm_merge_init())
 *
 * Context: any that may free memory.
 */
void lsm_merge_destroy(struct lsm_merge *mg)
{
	for (unsigned int i = 0; mg->src && i < mg->nr; i++)
		lsm_level_iter_destroy(&mg->src[i].li);
	kfree(mg->src);
	mg->src = NULL;
}

/*
 * Bring @c up to @pos: afterwards its head, if it has one, ends at or
 * after @pos, and is filled in if it starts at or before @pos.
 */
static int lsm_merge_reach(struct lsm_merge_src *c, u64 pos)
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
	c->have_head = false;
	err = lsm_level_iter_seek(&c->li, pos);
	if (err == -ENOENT) {
		c->valid = false;
		return 0;
	}
	if (err)
		return err;
	c->start = lsm_level_iter_start(&c->li);
	if (c->start > pos)
		return 0;
	err = lsm_level_iter_piece(&c->li, &c->head);
	c->have_head = !err;
	return err;
}

/**
 * lsm_merge_next() - the merge's next piece
 * @mg:   the merge
 * @out:  the piece: the extent as stored, its window as visible after
 *        the merge; out->ext.value is @vbuf
 * @vbuf: LSM_VALUE_MAX bytes, for the piece's value
 *
 * Context: process; sleeps.
 * Return: 0; -ENOENT past the last piece; -EUCLEAN or -EIO from a run's
 * block; -ENOMEM.
 */
int lsm_merge_next(struct lsm_merge *mg, struct lsm_piece *out, void *vbuf)
{
	int err;

	while (!mg->done) {
		struct lsm_merge_src *best = NULL;
		u64 end, next_start = 0;
		/* Not a sentinel value: a piece may start at U64_MAX. */
		bool have_next = false;

		for (unsigned int i = 0; i < mg->nr; i++) {
			struct lsm_merge_src *c = &mg->src[i];

			err = lsm_merge_reach(c, mg->pos);
			if (err)
				return err;
			if (!c->valid)
				continue;
			if (c->start <= mg->pos) {
				best = c;
				break;
			}
			if (!have_next || c->start < next_start)
				next_start = c->start;
			have_next = true;
		}
		if (!best) {
			if (!have_next)
				break;
			mg->pos = next_start;
			continue;
		}
		end = lsm_last(best->head.start, best->head.len);
		if (have_next && next_start - 1 < end)
			end = next_start - 1;
		*out = best->head;
		out->start = mg->pos;
		out->len = end - mg->pos + 1;
		out->ext.value = vbuf;
		if (end == U64_MAX)
			mg->done = true;
		else
			mg->pos = end + 1;
		if (out->ext.flags & LSM_EXT_TOMBSTONE) {
			if (!mg->keep_punch ||
			    mg->keep_punch(mg->priv, out->start, end))
				return 0;
			continue;
		}
		return lsm_level_iter_value(&best->li, vbuf, out->ext.vlen);
	}
	mg->done = true;
	return -ENOENT;
}
