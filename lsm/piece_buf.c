// SPDX-License-Identifier: GPL-2.0
/*
 * A run's worth of pieces in memory (piece_buf.h).  Values are kept by
 * offset, since the buffer holding them grows and moves; the source
 * hands out pointers into it, valid until the next call, as struct
 * lsm_run_source asks.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "piece_buf.h"

/* The most an entry takes in a data block besides its value. */
#define LSM_PIECE_ENTRY_MAX	45
/* A value larger than this goes to value blocks (lsm-runs.rst). */
#define LSM_PIECE_INLINE_MAX	4007

/**
 * lsm_piece_buf_init() - an empty buffer
 * @pb: the buffer
 *
 * Context: any.
 */
void lsm_piece_buf_init(struct lsm_piece_buf *pb)
{
	memset(pb, 0, sizeof(*pb));
}

/**
 * lsm_piece_buf_destroy() - free a buffer's memory
 * @pb: the buffer
 *
 * Context: any that may free memory.
 */
void lsm_piece_buf_destroy(struct lsm_piece_buf *pb)
{
	kvfree(pb->ent);
	kvfree(pb->values);
	lsm_piece_buf_init(pb);
}

/**
 * lsm_piece_buf_clear() - empty a buffer, keeping its memory
 * @pb: the buffer
 *
 * Context: any.
 */
void lsm_piece_buf_clear(struct lsm_piece_buf *pb)
{
	pb->nr = 0;
	pb->vbytes = 0;
	pb->bytes = 0;
	pb->next = 0;
}

static int lsm_piece_buf_grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t ncap = max(need, *cap ? 2 * *cap : 64);
	void *n;

	if (need <= *cap)
		return 0;
	n = kvmalloc_array(ncap, size, GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	if (*p)
		memcpy(n, *p, *cap * size);
	kvfree(*p);
	*p = n;
	*cap = ncap;
	return 0;
}

/**
 * lsm_piece_buf_add() - append a piece and its value
 * @pb: the buffer
 * @p:  the piece, after every piece held; its value is copied
 *
 * A window of the same extent that continues the last piece's extends
 * it instead (a merge yields one when a run boundary split the extent).
 *
 * Context: process; may sleep.
 * Return: 0, or -ENOMEM.
 */
int lsm_piece_buf_add(struct lsm_piece_buf *pb, const struct lsm_piece *p)
{
	struct lsm_piece *last = pb->nr ? &pb->ent[pb->nr - 1].p : NULL;
	int err;

	if (last && last->ext.key == p->ext.key &&
	    last->ext.len == p->ext.len && last->ext.seq == p->ext.seq &&
	    last->ext.flags == p->ext.flags &&
	    lsm_last(last->start, last->len) + 1 == p->start) {
		last->len += p->len;
		return 0;
	}
	err = lsm_piece_buf_grow((void **)&pb->ent, &pb->cap, pb->nr + 1,
				 sizeof(*pb->ent));
	if (!err)
		err = lsm_piece_buf_grow((void **)&pb->values, &pb->vcap,
					 pb->vbytes + p->ext.vlen, 1);
	if (err)
		return err;
	pb->ent[pb->nr].p = *p;
	pb->ent[pb->nr].p.ext.value = NULL;
	pb->ent[pb->nr].voff = pb->vbytes;
	if (p->ext.vlen)
		memcpy(pb->values + pb->vbytes, p->ext.value, p->ext.vlen);
	pb->vbytes += p->ext.vlen;
	pb->nr++;
	pb->bytes += LSM_PIECE_ENTRY_MAX +
		     (p->ext.vlen <= LSM_PIECE_INLINE_MAX ? p->ext.vlen :
		      DIV_ROUND_UP(p->ext.vlen, LSM_BLOCK_SIZE) * LSM_BLOCK_SIZE);
	return 0;
}

static int lsm_piece_buf_next(void *priv, struct lsm_piece *out)
{
	struct lsm_piece_buf *pb = priv;

	if (pb->next >= pb->nr)
		return -ENOENT;
	*out = pb->ent[pb->next].p;
	out->ext.value = pb->values + pb->ent[pb->next].voff;
	pb->next++;
	return 0;
}

static void lsm_piece_buf_rewind(void *priv)
{
	struct lsm_piece_buf *pb = priv;

	pb->next = 0;
}

/**
 * lsm_piece_buf_source() - the buffer as a run's source
 * @pb:  the buffer; it must not change while @src is used
 * @src: filled in, at the first piece
 *
 * Context: any.
 */
void lsm_piece_buf_source(struct lsm_piece_buf *pb, struct lsm_run_source *src)
{
	pb->next = 0;
	src->next = lsm_piece_buf_next;
	src->rewind = lsm_piece_buf_rewind;
	src->priv = pb;
}
