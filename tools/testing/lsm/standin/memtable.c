// SPDX-License-Identifier: GPL-2.0
/*
 * STAND-IN for lsm/memtable.c (lsm-mem's), linked into the store's tests
 * only while that file has not landed on main: the memtable's semantics
 * (memtable.h) on a sorted array under a spinlock, with no regard for
 * speed.  Values are copied per piece.
 */
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include "memtable.h"

struct lsm_memtable {
	spinlock_t lock;
	struct lsm_piece *p;	/* sorted, not overlapping */
	unsigned int n, cap;
	u64 bytes;
};

struct lsm_memtable *lsm_mem_create(struct lsm_pool *pool, gfp_t gfp)
{
	struct lsm_memtable *mt = kzalloc(sizeof(*mt), gfp);

	if (mt)
		spin_lock_init(&mt->lock);
	return mt;
}

void lsm_mem_destroy(struct lsm_memtable *mt)
{
	if (!mt)
		return;
	for (unsigned int i = 0; i < mt->n; i++)
		kfree(mt->p[i].ext.value);
	kfree(mt->p);
	kfree(mt);
}

static void *dup_value(const struct lsm_extent *e)
{
	void *v = kmalloc(e->vlen ? e->vlen : 1, GFP_KERNEL);

	if (v && e->vlen)
		memcpy(v, e->value, e->vlen);
	return v;
}

/* First piece whose last unit is at or after @pos. */
static unsigned int find(struct lsm_memtable *mt, u64 pos)
{
	unsigned int lo = 0, hi = mt->n;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (lsm_last(mt->p[mid].start, mt->p[mid].len) < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int lsm_mem_apply(struct lsm_memtable *mt, const struct lsm_extent *ext,
		  gfp_t gfp)
{
	u64 last = lsm_last(ext->key, ext->len);
	struct lsm_piece *np;
	unsigned int i, j, k = 0, cap = mt->n + 3;
	void *v = dup_value(ext);

	np = kcalloc(cap, sizeof(*np), gfp);
	if (!np || !v) {
		kfree(np);
		kfree(v);
		return -ENOMEM;
	}
	i = find(mt, ext->key);
	for (j = 0; j < i; j++)
		np[k++] = mt->p[j];
	for (; j < mt->n && mt->p[j].start <= last; j++) {
		struct lsm_piece *p = &mt->p[j];
		u64 plast = lsm_last(p->start, p->len);

		if (p->start < ext->key) {
			np[k] = *p;
			np[k].len = ext->key - p->start;
			np[k++].ext.value = dup_value(&p->ext);
		}
		if (plast > last) {
			np[k] = *p;
			np[k].start = last + 1;
			np[k].len = plast - last;
			np[k].ext.value = dup_value(&p->ext);
			k++;
		}
		mt->bytes -= 64 + p->ext.vlen;
		kfree(p->ext.value);
	}
	/* Keep order: the new piece goes before the right remainder. */
	{
		struct lsm_piece nw = { .start = ext->key, .len = ext->len,
					.ext = *ext };
		unsigned int at = k;

		nw.ext.value = v;
		while (at > i && np[at - 1].start > ext->key)
			at--;
		memmove(&np[at + 1], &np[at], (k - at) * sizeof(*np));
		np[at] = nw;
		k++;
		mt->bytes += 64 + ext->vlen;
	}
	for (; j < mt->n; j++)
		np[k++] = mt->p[j];
	spin_lock(&mt->lock);
	kfree(mt->p);
	mt->p = np;
	mt->n = k;
	spin_unlock(&mt->lock);
	return 0;
}

static int give(struct lsm_memtable *mt, unsigned int i, struct lsm_piece *out,
		void *vbuf, u32 vbuf_size)
{
	*out = mt->p[i];
	if (vbuf) {
		memcpy(vbuf, mt->p[i].ext.value, min(vbuf_size, out->ext.vlen));
		out->ext.value = vbuf;
	}
	return 0;
}

int lsm_mem_get(struct lsm_memtable *mt, u64 k, struct lsm_piece *out,
		void *vbuf, u32 vbuf_size)
{
	int err = -ENOENT;
	unsigned int i;

	spin_lock(&mt->lock);
	i = find(mt, k);
	if (i < mt->n && mt->p[i].start <= k)
		err = give(mt, i, out, vbuf, vbuf_size);
	spin_unlock(&mt->lock);
	return err;
}

int lsm_mem_next(struct lsm_memtable *mt, u64 pos, struct lsm_piece *out,
		 void *vbuf, u32 vbuf_size)
{
	int err = -ENOENT;
	unsigned int i;

	spin_lock(&mt->lock);
	i = find(mt, pos);
	if (i < mt->n)
		err = give(mt, i, out, vbuf, vbuf_size);
	spin_unlock(&mt->lock);
	return err;
}

u64 lsm_mem_bytes(struct lsm_memtable *mt)
{
	return READ_ONCE(mt->bytes);
}

u64 lsm_mem_pieces(struct lsm_memtable *mt)
{
	return READ_ONCE(mt->n);
}
