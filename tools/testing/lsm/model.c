// SPDX-License-Identifier: GPL-2.0
/*
 * The tests' model of a store's contents (model.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "rnd.h"

u8 model_value_byte(u64 seq, u32 op, u32 i)
{
	return (u8)(seq * 131 + op * 31 + i * 7 + 1);
}

void model_apply(struct model *m, u64 seq, const struct lsm_op *ops,
		 unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		for (u64 u = ops[i].key; u < ops[i].key + ops[i].len; u++)
			m->u[u] = ops[i].kind == LSM_OP_DELETE ?
				  (struct model_unit){ 0 } :
				  (struct model_unit){ seq, ops[i].key,
						       ops[i].len, i,
						       ops[i].vlen };
}

/* Mostly small values, some larger, a few out of a run's data block. */
static u32 model_vlen(u64 *rng)
{
	if (xorshift64(rng) % 30 == 0)
		return 4040 + xorshift64(rng) % (MODEL_BIG_VALUE - 4040 + 1);
	return xorshift64(rng) % 8 ? xorshift64(rng) % 100 :
				      xorshift64(rng) % 600;
}

void model_make_write(struct model_write *w, u64 seq, u64 *rng)
{
	w->n = 1 + xorshift64(rng) % MODEL_MAX_OPS;
	for (unsigned int i = 0; i < w->n; i++) {
		struct lsm_op *o = &w->ops[i];
		/* Points, ranges, and now and then a long range. */
		u64 len = xorshift64(rng) % 3 ? 1 :
			  xorshift64(rng) % 4 ? 1 + xorshift64(rng) % 8 :
						 9 + xorshift64(rng) % 60;

		o->key = xorshift64(rng) % (MODEL_WARM - len + 1);
		o->len = len;
		o->kind = xorshift64(rng) % 6 ? LSM_OP_PUT : LSM_OP_DELETE;
		o->vlen = o->kind == LSM_OP_PUT ? model_vlen(rng) : 0;
		/*
		 * Large values to points of their own few units, seldom
		 * overwritten: the value blocks of old runs stay live.
		 */
		if (o->vlen > MODEL_INLINE_MAX) {
			o->key = MODEL_WARM + xorshift64(rng) %
					      (MODEL_UNITS - MODEL_WARM);
			o->len = 1;
		}
		for (u32 b = 0; b < o->vlen; b++)
			w->values[i][b] = model_value_byte(seq, i, b);
		o->value = w->values[i];
	}
}

void model_history_init(struct model_history *h)
{
	h->cap = 1024;
	h->nr = 0;
	h->snap = calloc(h->cap, sizeof(*h->snap));
	if (!h->snap)
		abort();
}

void model_history_add(struct model_history *h, const struct lsm_op *ops,
		       unsigned int n)
{
	if (h->nr + 2 > h->cap) {
		h->cap *= 2;
		h->snap = realloc(h->snap, h->cap * sizeof(*h->snap));
		if (!h->snap)
			abort();
	}
	h->snap[h->nr + 1] = h->snap[h->nr];
	model_apply(&h->snap[h->nr + 1], h->nr + 1, ops, n);
	h->nr++;
}

void model_history_free(struct model_history *h)
{
	free(h->snap);
	h->snap = NULL;
}

static void wrong(struct model_verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (v->wrong)
		return;
	v->wrong = true;
	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
}

/* An error a damaged or unreadable block may give: counted, not wrong. */
static bool allowed(struct model_verdict *v, int err)
{
	if (err != -EUCLEAN && err != -EIO)
		return false;
	if (!v->errors++)
		v->first_err = err;
	if (err == -EUCLEAN)
		v->euclean++;
	return true;
}

static bool same(const struct model_unit *a, const struct model_unit *b)
{
	return a->seq == b->seq && a->op == b->op;
}

static bool ext_right(const struct lsm_extent *e, const struct model_unit *u)
{
	if (e->seq != u->seq || e->key != u->key || e->len != u->len ||
	    e->vlen != u->vlen || (e->flags & LSM_EXT_TOMBSTONE))
		return false;
	for (u32 b = 0; b < e->vlen; b++)
		if (((const u8 *)e->value)[b] != model_value_byte(u->seq, u->op,
								  b))
			return false;
	return true;
}

static void verify_get(struct lsm_store *st, const struct model *m, u64 k,
		       struct model_verdict *v)
{
	static __thread u8 vbuf[LSM_VALUE_MAX];
	struct lsm_piece p;
	const struct model_unit *u = k < MODEL_UNITS ? &m->u[k] : NULL;
	u64 from = k, to = k;
	int err = lsm_store_get(st, k, &p, vbuf, sizeof(vbuf));

	if (err && allowed(v, err))
		return;
	if (!u || !u->seq) {
		if (err != -ENOENT)
			wrong(v, "get %llu: %d where nothing is",
			      (unsigned long long)k, err);
		return;
	}
	if (err) {
		wrong(v, "get %llu: %d, model seq %llu",
		      (unsigned long long)k, err, (unsigned long long)u->seq);
		return;
	}
	if (!ext_right(&p.ext, u)) {
		wrong(v, "get %llu: extent seq %llu [%llu +%llu) vlen %u, model seq %llu [%llu +%llu) vlen %u (or its value bytes)",
		      (unsigned long long)k, (unsigned long long)p.ext.seq,
		      (unsigned long long)p.ext.key,
		      (unsigned long long)p.ext.len, p.ext.vlen,
		      (unsigned long long)u->seq, (unsigned long long)u->key,
		      (unsigned long long)u->len, u->vlen);
		return;
	}
	while (from > 0 && same(&m->u[from - 1], u))
		from--;
	while (to + 1 < MODEL_UNITS && same(&m->u[to + 1], u))
		to++;
	if (p.start != from || p.len != to - from + 1)
		wrong(v, "get %llu: window [%llu +%llu), model [%llu +%llu)",
		      (unsigned long long)k, (unsigned long long)p.start,
		      (unsigned long long)p.len, (unsigned long long)from,
		      (unsigned long long)(to - from + 1));
}

/* Scan from @from to the end; stops at the first allowed error. */
static void verify_scan(struct lsm_store *st, const struct model *m, u64 from,
			u64 *rng, struct model_verdict *v)
{
	static __thread u8 vbuf[2 * LSM_VALUE_MAX];
	struct lsm_piece out[64];
	struct lsm_scan_cursor cur = { .pos = from };
	u64 u = from, calls = 0;

	while (!cur.done && !v->wrong) {
		/*
		 * Calls that end now and then on a small buffer, but mostly
		 * long ones: each call places a cursor in every run again.
		 */
		unsigned int max = !rng ? 64 : 1 + xorshift64(rng) % 64;
		size_t vsize = !rng || xorshift64(rng) % 4 ? sizeof(vbuf) :
			       64 + xorshift64(rng) % 256;
		int n = lsm_store_scan(st, &cur, out, max, vbuf, vsize);

		if (n == -EOVERFLOW && vsize < LSM_VALUE_MAX)
			continue;
		if (n < 0 && allowed(v, n))
			return;
		if (n < 0) {
			wrong(v, "scan from %llu: %d", (unsigned long long)from,
			      n);
			return;
		}
		if (!n && !cur.done && ++calls > 1000) {
			wrong(v, "scan from %llu makes no progress",
			      (unsigned long long)from);
			return;
		}
		for (int i = 0; i < n; i++) {
			u64 s = out[i].start, e = lsm_last(s, out[i].len);

			for (; u < s && u < MODEL_UNITS; u++)
				if (m->u[u].seq) {
					wrong(v, "scan from %llu skipped unit %llu",
					      (unsigned long long)from,
					      (unsigned long long)u);
					return;
				}
			if (s != u || e >= MODEL_UNITS ||
			    !ext_right(&out[i].ext, &m->u[s])) {
				wrong(v, "scan from %llu: piece [%llu, %llu] seq %llu where unit %llu (seq %llu) was next",
				      (unsigned long long)from,
				      (unsigned long long)s,
				      (unsigned long long)e,
				      (unsigned long long)out[i].ext.seq,
				      (unsigned long long)u,
				      (unsigned long long)(u < MODEL_UNITS ?
							   m->u[u].seq : 0));
				return;
			}
			for (; u <= e; u++)
				if (!same(&m->u[u], &m->u[s])) {
					wrong(v, "scan from %llu: piece [%llu, %llu] but unit %llu differs",
					      (unsigned long long)from,
					      (unsigned long long)s,
					      (unsigned long long)e,
					      (unsigned long long)u);
					return;
				}
		}
	}
	for (; u < MODEL_UNITS && !v->wrong; u++)
		if (m->u[u].seq)
			wrong(v, "scan from %llu ended before unit %llu",
			      (unsigned long long)from, (unsigned long long)u);
}

void model_verify(struct lsm_store *st, const struct model *m, u64 *rng,
		  struct model_verdict *v)
{
	memset(v, 0, sizeof(*v));
	verify_scan(st, m, 0, rng, v);
	/* Past a damaged block: the scan's other cursors still answer. */
	for (int i = 1; v->errors && i < 5; i++)
		verify_scan(st, m, rng ? xorshift64(rng) % MODEL_UNITS :
				   i * MODEL_UNITS / 5, rng, v);
	for (u64 k = 0; k < MODEL_UNITS + 3 && !v->wrong; k++)
		verify_get(st, m, k, v);
}
