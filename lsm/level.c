// SPDX-License-Identifier: GPL-2.0
/*
 * A level of runs read as one layer (level.h).  The runs of a level never
 * overlap, so a unit lies in at most one of them: the first whose last
 * key is at or after it, if that run's first key is not past it.  Nothing
 * here changes a level: the store builds a new one when a merge replaces
 * runs, and a reader keeps the one it started with.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include "level.h"

/**
 * lsm_level_find() - the first run of a level whose last key is at or
 *                    after a unit
 * @lv:  the level
 * @pos: the unit
 *
 * Context: any.
 * Return: its index, or @lv->nr if every run ends before @pos.
 */
unsigned int lsm_level_find(const struct lsm_level *lv, u64 pos)
{
	unsigned int lo = 0, hi = lv->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (lsm_run_info_of(lv->runs[mid])->last_key < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * lsm_level_outside() - whether no run of a level overlaps a range
 * @lv:    the level
 * @first: the range's first unit
 * @last:  its last
 *
 * Context: any.
 * Return: true if the level holds nothing in [@first, @last].
 */
bool lsm_level_outside(const struct lsm_level *lv, u64 first, u64 last)
{
	unsigned int i = lsm_level_find(lv, first);

	return i == lv->nr || lsm_run_info_of(lv->runs[i])->first_key > last;
}

/**
 * lsm_level_get() - the piece of a level covering a unit
 * @lv:        the level
 * @k:         the unit
 * @out:       as lsm_run_get()
 * @vbuf:      as lsm_run_get()
 * @vbuf_size: as lsm_run_get()
 *
 * One binary search over the runs, then lsm_run_get() on the one run
 * that can hold @k.
 *
 * Context: process; sleeps.
 * Return: as lsm_run_get(): 0, -ENOENT, -EUCLEAN, -EIO, -ENOMEM.
 */
int lsm_level_get(const struct lsm_level *lv, u64 k, struct lsm_piece *out,
		  void *vbuf, u32 vbuf_size)
{
	unsigned int i = lsm_level_find(lv, k);

	if (i == lv->nr || lsm_run_info_of(lv->runs[i])->first_key > k)
		return -ENOENT;
	return lsm_run_get(lv->runs[i], k, out, vbuf, vbuf_size);
}

/**
 * lsm_level_next() - the first piece of a level ending at or after a unit
 * @lv:        the level
 * @pos:       the unit
 * @out:       as lsm_run_next()
 * @vbuf:      as lsm_run_next()
 * @vbuf_size: as lsm_run_next()
 *
 * Context: process; sleeps.
 * Return: as lsm_run_next(): 0, -ENOENT, -EUCLEAN, -EIO, -ENOMEM.
 */
int lsm_level_next(const struct lsm_level *lv, u64 pos, struct lsm_piece *out,
		   void *vbuf, u32 vbuf_size)
{
	int err = -ENOENT;

	/* A run whose last key is at or after @pos has such a piece. */
	for (unsigned int i = lsm_level_find(lv, pos); i < lv->nr; i++) {
		err = lsm_run_next(lv->runs[i], pos, out, vbuf, vbuf_size);
		if (err != -ENOENT)
			break;
	}
	return err;
}

/**
 * lsm_level_iter_init() - a cursor over a level, pointing nowhere yet
 * @li: the cursor
 * @lv: the level; copied, its runs must stay open while @li is used
 *
 * Allocates nothing: the run cursor is made at the first seek.
 *
 * Context: any.
 */
void lsm_level_iter_init(struct lsm_level_iter *li, const struct lsm_level *lv)
{
	li->lv = *lv;
	li->idx = lv->nr;
	li->it = NULL;
}

/**
 * lsm_level_iter_destroy() - free what a cursor holds
 * @li: the cursor
 *
 * Context: any that may free memory.
 */
void lsm_level_iter_destroy(struct lsm_level_iter *li)
{
	lsm_run_iter_destroy(li->it);
	li->it = NULL;
	li->idx = li->lv.nr;
}

/* Put the run cursor on run @i, unless it is there already. */
static int lsm_level_iter_enter(struct lsm_level_iter *li, unsigned int i)
{
	if (!li->it) {
		li->it = lsm_run_iter_create(li->lv.runs[i]);
		if (!li->it)
			return -ENOMEM;
	} else if (i != li->idx) {
		lsm_run_iter_reset(li->it, li->lv.runs[i]);
	}
	li->idx = i;
	return 0;
}

/**
 * lsm_level_iter_seek() - move a cursor to the first piece ending at or
 *                         after a unit
 * @li:  the cursor
 * @pos: the unit
 *
 * Within the run the cursor is in, it goes on from where it is, as
 * lsm_run_iter_seek() does; in another run it starts that run's cursor.
 *
 * Context: process; sleeps.
 * Return: 0; -ENOENT past the level's last piece; -EUCLEAN or -EIO from a
 * run's block; -ENOMEM.
 */
int lsm_level_iter_seek(struct lsm_level_iter *li, u64 pos)
{
	unsigned int i = lsm_level_find(&li->lv, pos);
	int err;

	for (; i < li->lv.nr; i++) {
		err = lsm_level_iter_enter(li, i);
		if (!err)
			err = lsm_run_iter_seek(li->it, pos);
		if (err != -ENOENT)
			return err;
	}
	li->idx = li->lv.nr;
	return -ENOENT;
}

/**
 * lsm_level_iter_next() - move a cursor to the next piece
 * @li: the cursor, on a piece
 *
 * Context: process; sleeps.
 * Return: 0; -ENOENT past the level's last piece; -EUCLEAN, -EIO or
 * -ENOMEM as lsm_level_iter_seek().
 */
int lsm_level_iter_next(struct lsm_level_iter *li)
{
	int err;

	if (li->idx >= li->lv.nr)
		return -ENOENT;
	err = lsm_run_iter_next(li->it);
	while (err == -ENOENT && li->idx + 1 < li->lv.nr) {
		err = lsm_level_iter_enter(li, li->idx + 1);
		if (!err)
			err = lsm_run_iter_seek(li->it, 0);
	}
	if (err == -ENOENT)
		li->idx = li->lv.nr;
	return err;
}

/**
 * lsm_level_iter_start() - the first unit of the cursor's piece
 * @li: the cursor, on a piece
 *
 * Context: any.
 * Return: the unit, known without a read (lsm_run_iter_start()).
 */
u64 lsm_level_iter_start(const struct lsm_level_iter *li)
{
	return lsm_run_iter_start(li->it);
}

/**
 * lsm_level_iter_piece() - the cursor's piece
 * @li:  the cursor, on a piece
 * @out: as lsm_run_iter_piece()
 *
 * Context: process; sleeps.
 * Return: as lsm_run_iter_piece().
 */
int lsm_level_iter_piece(struct lsm_level_iter *li, struct lsm_piece *out)
{
	return lsm_run_iter_piece(li->it, out);
}

/**
 * lsm_level_iter_value() - copy the value of the cursor's piece
 * @li:        the cursor, after lsm_level_iter_piece()
 * @vbuf:      as lsm_run_iter_value()
 * @vbuf_size: as lsm_run_iter_value()
 *
 * Context: process; sleeps.
 * Return: as lsm_run_iter_value().
 */
int lsm_level_iter_value(struct lsm_level_iter *li, void *vbuf, u32 vbuf_size)
{
	return lsm_run_iter_value(li->it, vbuf, vbuf_size);
}
