// SPDX-License-Identifier: GPL-2.0
/*
 * STAND-IN for lsm/run.c (lsm-run's), linked into the store's tests only
 * while that file has not landed on main: a run with the interface of
 * run.h but not its layout (Documentation/lsm-runs.rst).  The pieces are
 * a byte stream over data blocks, each sealed with the block header
 * (epoch: the run's id), then a footer block; open reads and checks every
 * block and keeps the pieces in memory.
 */
#include <asm/byteorder.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "block.h"
#include "run.h"

#define HDR	sizeof(struct lsm_block_header)

struct standin_piece {
	__le64 start, len, key, elen, seq;
	__le32 flags, vlen;
};

struct lsm_run {
	struct lsm_piece *p;
	u8 **v;
	u64 n;
};

static u64 stream_bytes(struct lsm_run_source *src, u64 *pieces)
{
	struct lsm_piece p;
	u64 bytes = 0;

	*pieces = 0;
	src->rewind(src->priv);
	while (!src->next(src->priv, &p)) {
		bytes += sizeof(struct standin_piece) + p.ext.vlen;
		(*pieces)++;
	}
	return bytes;
}

int lsm_run_size(struct lsm_run_source *src, u64 *nr_blocks)
{
	u64 pieces, bytes = stream_bytes(src, &pieces);

	*nr_blocks = DIV_ROUND_UP(bytes, LSM_BLOCK_BODY) + 1;
	return 0;
}

struct writer {
	struct lsm_bdev *bdev;
	struct lsm_block_id id;
	u8 *buf;
	u32 used;
	u64 first, nr;
	int err;
};

static void w_flush(struct writer *w)
{
	if (w->used == HDR)
		return;
	memset(w->buf + w->used, 0, LSM_BLOCK_SIZE - w->used);
	w->id.blocknr = w->first + w->nr++;
	lsm_block_seal(w->buf, &w->id, w->used);
	if (!w->err)
		w->err = lsm_bdev_write_sync(w->bdev, w->id.blocknr, w->buf,
					     1, 0);
	w->used = HDR;
}

static void w_put(struct writer *w, const void *p, size_t len)
{
	while (len) {
		size_t n = min_t(size_t, len, LSM_BLOCK_SIZE - w->used);

		memcpy(w->buf + w->used, p, n);
		w->used += n;
		p = (const u8 *)p + n;
		len -= n;
		if (w->used == LSM_BLOCK_SIZE)
			w_flush(w);
	}
}

int lsm_run_write(struct lsm_bdev *bdev, u64 store_id,
		  struct lsm_run_source *src, struct lsm_run_info *info)
{
	struct writer w = {
		.bdev = bdev,
		.id = { .store_id = store_id, .epoch = info->id,
			.type = LSM_BT_RUN_DATA },
		.used = HDR, .first = info->first_block,
	};
	struct lsm_piece p;
	u64 bytes = stream_bytes(src, &info->nr_pieces);
	__le64 foot[2];

	w.buf = kzalloc(LSM_BLOCK_SIZE, GFP_KERNEL);
	if (!w.buf)
		return -ENOMEM;
	info->first_key = U64_MAX;
	info->last_key = 0;
	info->max_seq = 0;
	src->rewind(src->priv);
	while (!src->next(src->priv, &p)) {
		struct standin_piece sp = {
			cpu_to_le64(p.start), cpu_to_le64(p.len),
			cpu_to_le64(p.ext.key), cpu_to_le64(p.ext.len),
			cpu_to_le64(p.ext.seq), cpu_to_le32(p.ext.flags),
			cpu_to_le32(p.ext.vlen),
		};

		w_put(&w, &sp, sizeof(sp));
		w_put(&w, p.ext.value, p.ext.vlen);
		info->first_key = min(info->first_key, p.start);
		info->last_key = max(info->last_key, lsm_last(p.start, p.len));
		info->max_seq = max(info->max_seq, p.ext.seq);
	}
	w_flush(&w);
	foot[0] = cpu_to_le64(info->nr_pieces);
	foot[1] = cpu_to_le64(bytes);
	w.id.type = LSM_BT_RUN_FOOTER;
	memcpy(w.buf + HDR, foot, sizeof(foot));
	w.used = HDR + sizeof(foot);
	w_flush(&w);
	kfree(w.buf);
	if (!w.err && w.nr != info->nr_blocks)
		w.err = -EINVAL;
	return w.err;
}

void lsm_run_close(struct lsm_run *run)
{
	if (!run)
		return;
	for (u64 i = 0; i < run->n; i++)
		kfree(run->v[i]);
	kfree(run->v);
	kfree(run->p);
	kfree(run);
}

int lsm_run_open(struct lsm_bdev *bdev, u64 store_id,
		 const struct lsm_run_info *info, struct lsm_run **runp)
{
	struct lsm_block_id id = { .store_id = store_id, .epoch = info->id };
	u64 bytes, at = 0, len = 0, nr = info->nr_blocks;
	struct lsm_run *run;
	u8 *buf, *stream;
	__le64 foot[2];
	int err;

	if (nr < 1)
		return -EUCLEAN;
	buf = kmalloc(LSM_BLOCK_SIZE, GFP_KERNEL);
	stream = kmalloc((nr - 1) * LSM_BLOCK_BODY + 1, GFP_KERNEL);
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	err = -ENOMEM;
	if (!buf || !stream || !run)
		goto out;
	for (u64 b = 0; b < nr; b++) {
		u32 used;

		id.blocknr = info->first_block + b;
		id.type = b + 1 == nr ? LSM_BT_RUN_FOOTER : LSM_BT_RUN_DATA;
		err = bdev->ops->read(bdev, id.blocknr, buf, 1);
		if (err)
			goto out;
		err = lsm_block_check(buf, &id);
		if (err) {
			err = -EUCLEAN;
			goto out;
		}
		used = le32_to_cpu(((struct lsm_block_header *)buf)->used);
		if (b + 1 < nr) {
			memcpy(stream + len, buf + HDR, used - HDR);
			len += used - HDR;
		}
	}
	memcpy(foot, buf + HDR, sizeof(foot));
	bytes = le64_to_cpu(foot[1]);
	run->n = le64_to_cpu(foot[0]);
	err = -EUCLEAN;
	if (bytes != len || run->n != info->nr_pieces)
		goto out;
	run->p = kcalloc(run->n + 1, sizeof(*run->p), GFP_KERNEL);
	run->v = kcalloc(run->n + 1, sizeof(*run->v), GFP_KERNEL);
	err = -ENOMEM;
	if (!run->p || !run->v)
		goto out;
	for (u64 i = 0; i < run->n; i++) {
		struct standin_piece sp;
		struct lsm_piece *p = &run->p[i];

		err = -EUCLEAN;
		if (len - at < sizeof(sp))
			goto out;
		memcpy(&sp, stream + at, sizeof(sp));
		at += sizeof(sp);
		p->start = le64_to_cpu(sp.start);
		p->len = le64_to_cpu(sp.len);
		p->ext.key = le64_to_cpu(sp.key);
		p->ext.len = le64_to_cpu(sp.elen);
		p->ext.seq = le64_to_cpu(sp.seq);
		p->ext.flags = le32_to_cpu(sp.flags);
		p->ext.vlen = le32_to_cpu(sp.vlen);
		if (p->ext.vlen > len - at)
			goto out;
		err = -ENOMEM;
		run->v[i] = kmalloc(p->ext.vlen + 1, GFP_KERNEL);
		if (!run->v[i])
			goto out;
		memcpy(run->v[i], stream + at, p->ext.vlen);
		at += p->ext.vlen;
	}
	err = 0;
	*runp = run;
	run = NULL;
out:
	lsm_run_close(run);
	kfree(stream);
	kfree(buf);
	return err;
}

static u64 find(struct lsm_run *run, u64 pos)
{
	u64 lo = 0, hi = run->n;

	while (lo < hi) {
		u64 mid = (lo + hi) / 2;

		if (lsm_last(run->p[mid].start, run->p[mid].len) < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int give(struct lsm_run *run, u64 i, struct lsm_piece *out,
		void *vbuf, u32 vbuf_size)
{
	*out = run->p[i];
	if (vbuf_size)
		memcpy(vbuf, run->v[i], min(vbuf_size, out->ext.vlen));
	out->ext.value = vbuf;
	return 0;
}

int lsm_run_get(struct lsm_run *run, u64 k, struct lsm_piece *out,
		void *vbuf, u32 vbuf_size)
{
	u64 i = find(run, k);

	if (i < run->n && run->p[i].start <= k)
		return give(run, i, out, vbuf, vbuf_size);
	return -ENOENT;
}

int lsm_run_next(struct lsm_run *run, u64 pos, struct lsm_piece *out,
		 void *vbuf, u32 vbuf_size)
{
	u64 i = find(run, pos);

	if (i < run->n)
		return give(run, i, out, vbuf, vbuf_size);
	return -ENOENT;
}
