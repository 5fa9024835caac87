// SPDX-License-Identifier: GPL-2.0
/*
 * The write-ahead log.  A segment's blocks carry one byte stream of
 * records; each block is written once, when it is full or when a sync
 * needs its records durable (padded then), and never rewritten, so that
 * a torn write can only lose records nobody was told were durable.
 * Replay stops at the first block or record that is not right, never
 * skipping past it.
 */
#include <asm/byteorder.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "block.h"
#include "format.h"
#include "wal.h"

#define HDR	sizeof(struct lsm_block_header)

/**
 * lsm_wal_init() - a log writer with no segment yet
 * @w:        the writer
 * @bdev:     the device
 * @store_id: the store's
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int lsm_wal_init(struct lsm_wal *w, struct lsm_bdev *bdev, u64 store_id)
{
	memset(w, 0, sizeof(*w));
	w->bdev = bdev;
	w->store_id = store_id;
	w->used = HDR;
	w->buf = kzalloc(LSM_BLOCK_SIZE, GFP_KERNEL);
	return w->buf ? 0 : -ENOMEM;
}

/**
 * lsm_wal_destroy() - free a log writer (unwritten bytes are dropped)
 * @w: the writer
 *
 * Context: any.
 */
void lsm_wal_destroy(struct lsm_wal *w)
{
	kfree(w->buf);
	w->buf = NULL;
}

/**
 * lsm_wal_begin() - write from now on into a new segment
 * @w:   the writer, its current block sealed (lsm_wal_seal())
 * @seg: the segment, already recorded durably in the manifest
 *
 * Context: process context.
 */
void lsm_wal_begin(struct lsm_wal *w, const struct lsm_wal_seg *seg)
{
	WARN_ON(w->used != HDR);
	w->seg = *seg;
	w->block = 0;
}

/**
 * lsm_wal_record_bytes() - the size of the record of a write
 * @ops: its operations
 * @n:   how many
 *
 * Context: any.
 * Return: bytes, head included.
 */
size_t lsm_wal_record_bytes(const struct lsm_op *ops, unsigned int n)
{
	size_t bytes = sizeof(struct lsm_wal_record);

	for (unsigned int i = 0; i < n; i++)
		bytes += sizeof(struct lsm_wal_op) + ops[i].vlen;
	return bytes;
}

/**
 * lsm_wal_room() - whether a record fits in what is left of the segment
 * @w:     the writer
 * @bytes: the record's size
 *
 * Context: any; callers serialize with the writer.
 * Return: true if it fits.
 */
bool lsm_wal_room(const struct lsm_wal *w, size_t bytes)
{
	u64 left;

	if (!w->seg.nr || w->block >= w->seg.nr)
		return false;
	left = (w->seg.nr - w->block) * LSM_BLOCK_BODY - (w->used - HDR);
	return bytes <= left;
}

/* Write the block being filled (padded with zeros) and start the next. */
static int lsm_wal_write_block(struct lsm_wal *w)
{
	struct lsm_block_id id = {
		.blocknr = w->seg.start + w->block,
		.store_id = w->store_id,
		.epoch = w->seg.id,
		.type = LSM_BT_WAL,
	};
	int err;

	memset(w->buf + w->used, 0, LSM_BLOCK_SIZE - w->used);
	lsm_block_seal(w->buf, &id, w->used);
	err = lsm_bdev_write_sync(w->bdev, id.blocknr, w->buf, 1, 0);
	if (err)
		return err;
	w->bytes += LSM_BLOCK_SIZE;
	w->block++;
	w->used = HDR;
	return 0;
}

static int lsm_wal_put(struct lsm_wal *w, const void *p, size_t len)
{
	while (len) {
		size_t n = min_t(size_t, len, LSM_BLOCK_SIZE - w->used);
		int err;

		memcpy(w->buf + w->used, p, n);
		w->used += n;
		p = (const u8 *)p + n;
		len -= n;
		if (w->used == LSM_BLOCK_SIZE) {
			err = lsm_wal_write_block(w);
			if (err)
				return err;
		}
	}
	return 0;
}

/**
 * lsm_wal_append() - append the record of a write
 * @w:   the writer; lsm_wal_room() said the record fits
 * @seq: the write's sequence number
 * @ops: its operations, already checked
 * @n:   how many, at least 1
 *
 * Blocks that fill are written, without a flush; the rest waits in
 * memory for the next block to fill or lsm_wal_seal().
 *
 * Context: process context, may sleep.
 * Return: 0, or the device's errno: the log is then unusable.
 */
int lsm_wal_append(struct lsm_wal *w, u64 seq, const struct lsm_op *ops,
		   unsigned int n)
{
	struct lsm_wal_record rec = {
		.bytes = cpu_to_le32(lsm_wal_record_bytes(ops, n)),
		.seq = cpu_to_le64(seq),
		.epoch = cpu_to_le64(w->seg.id),
		.nr_ops = cpu_to_le32(n),
	};
	struct lsm_wal_op op;
	u32 crc = ~0U;
	int err;

	if (WARN_ON(!lsm_wal_room(w, le32_to_cpu(rec.bytes))))
		return -ENOSPC;
	crc = lsm_crc32c(crc, &rec, sizeof(rec));
	for (unsigned int i = 0; i < n; i++) {
		op.key = cpu_to_le64(ops[i].key);
		op.len = cpu_to_le64(ops[i].len);
		op.kind = cpu_to_le32(ops[i].kind);
		op.vlen = cpu_to_le32(ops[i].vlen);
		crc = lsm_crc32c(crc, &op, sizeof(op));
		crc = lsm_crc32c(crc, ops[i].value, ops[i].vlen);
	}
	rec.crc = cpu_to_le32(~crc);
	err = lsm_wal_put(w, &rec, sizeof(rec));
	for (unsigned int i = 0; !err && i < n; i++) {
		op.key = cpu_to_le64(ops[i].key);
		op.len = cpu_to_le64(ops[i].len);
		op.kind = cpu_to_le32(ops[i].kind);
		op.vlen = cpu_to_le32(ops[i].vlen);
		err = lsm_wal_put(w, &op, sizeof(op));
		if (!err)
			err = lsm_wal_put(w, ops[i].value, ops[i].vlen);
	}
	return err;
}

/**
 * lsm_wal_seal() - write the block being filled, padded, if it holds any
 *                  record, so that a flush makes every record durable
 * @w: the writer
 *
 * The stream goes on in the next block: the sealed one is never written
 * again.
 *
 * Context: process context, may sleep.
 * Return: 0, or the device's errno.
 */
int lsm_wal_seal(struct lsm_wal *w)
{
	if (w->used == HDR)
		return 0;
	return lsm_wal_write_block(w);
}

/*
 * One record from @p (@len bytes left in the stream); 0 if it is right,
 * -ENODATA if it is not, -E2BIG if the stream ends inside it.
 */
static int lsm_wal_parse(const u8 *p, size_t len, u64 epoch, u64 seq,
			 struct lsm_op **opsp, unsigned int *cap,
			 unsigned int *np, size_t *bytesp)
{
	struct lsm_wal_record rec, head;
	size_t bytes, at;
	unsigned int n;
	u32 crc;

	/* Records are packed, not aligned: copy each head out. */
	if (len < sizeof(rec))
		return -E2BIG;
	memcpy(&rec, p, sizeof(rec));
	bytes = le32_to_cpu(rec.bytes);
	n = le32_to_cpu(rec.nr_ops);
	if (bytes < sizeof(rec) + sizeof(struct lsm_wal_op) ||
	    !n || n > (bytes - sizeof(rec)) / sizeof(struct lsm_wal_op))
		return -ENODATA;
	if (bytes > len)
		return -E2BIG;
	head = rec;
	head.crc = 0;
	crc = lsm_crc32c(~0U, &head, sizeof(head));
	crc = lsm_crc32c(crc, p + sizeof(rec), bytes - sizeof(rec));
	if (~crc != le32_to_cpu(rec.crc) ||
	    le64_to_cpu(rec.epoch) != epoch || le64_to_cpu(rec.seq) != seq ||
	    rec.flags)
		return -ENODATA;
	if (n > *cap) {
		struct lsm_op *ops = kvcalloc(n, sizeof(*ops), GFP_KERNEL);

		if (!ops)
			return -ENOMEM;
		kvfree(*opsp);
		*opsp = ops;
		*cap = n;
	}
	at = sizeof(rec);
	for (unsigned int i = 0; i < n; i++) {
		struct lsm_wal_op op;
		struct lsm_op *o = &(*opsp)[i];

		if (bytes - at < sizeof(op))
			return -ENODATA;
		memcpy(&op, p + at, sizeof(op));
		at += sizeof(op);
		o->key = le64_to_cpu(op.key);
		o->len = le64_to_cpu(op.len);
		o->kind = le32_to_cpu(op.kind);
		o->vlen = le32_to_cpu(op.vlen);
		if (o->vlen > bytes - at || o->vlen > LSM_VALUE_MAX || !o->len ||
		    o->key + (o->len - 1) < o->key ||
		    (o->kind != LSM_OP_PUT && o->kind != LSM_OP_DELETE) ||
		    (o->kind == LSM_OP_DELETE && o->vlen))
			return -ENODATA;
		o->value = p + at;
		at += o->vlen;
	}
	if (at != bytes)
		return -ENODATA;
	*np = n;
	*bytesp = bytes;
	return 0;
}

/* Read the blocks of @seg that pass into one stream; where they stop. */
static int lsm_wal_read_stream(struct lsm_bdev *bdev, u64 store_id,
			       const struct lsm_wal_seg *seg, u8 **streamp,
			       size_t *lenp, u32 **endsp, u64 *nrp,
			       struct lsm_wal_end *end)
{
	struct lsm_block_id id = {
		.store_id = store_id,
		.epoch = seg->id,
		.type = LSM_BT_WAL,
	};
	size_t len = 0, size = 0;
	u8 *stream = NULL, *block;
	u32 *ends;
	u64 nr;
	int err = 0;

	end->kind = LSM_WAL_END_FULL;
	end->block = seg->start + seg->nr;
	block = kmalloc(LSM_BLOCK_SIZE, GFP_KERNEL);
	/* Where each block's bytes end in the stream, to name a record's. */
	ends = kvcalloc(seg->nr, sizeof(*ends), GFP_KERNEL);
	if (!block || !ends) {
		err = -ENOMEM;
		goto out;
	}
	/* The stream grows by doubling: most segments are read short. */
	for (nr = 0; nr < seg->nr; nr++) {
		u32 used;

		id.blocknr = seg->start + nr;
		err = bdev->ops->read(bdev, id.blocknr, block, 1);
		if (err)
			goto out;
		if (lsm_block_check(block, &id)) {
			end->kind = lsm_block_damaged(block) ?
				    LSM_WAL_END_DAMAGED : LSM_WAL_END_BLOCK;
			end->block = id.blocknr;
			break;
		}
		used = le32_to_cpu(((struct lsm_block_header *)block)->used);
		if (len + LSM_BLOCK_BODY > size) {
			size_t ncap = max_t(size_t, 4 * LSM_BLOCK_BODY,
					    2 * size);
			u8 *n = kvmalloc(ncap, GFP_KERNEL);

			if (!n) {
				err = -ENOMEM;
				goto out;
			}
			if (len)
				memcpy(n, stream, len);
			kvfree(stream);
			stream = n;
			size = ncap;
		}
		memcpy(stream + len, block + HDR, used - HDR);
		len += used - HDR;
		ends[nr] = len;
	}
	*nrp = nr;
out:
	kfree(block);
	if (err) {
		kvfree(stream);
		kvfree(ends);
		return err;
	}
	*streamp = stream;
	*lenp = len;
	*endsp = ends;
	return 0;
}

/**
 * lsm_wal_replay() - hand the records of a segment to @apply, in order
 * @bdev:     the device
 * @store_id: the store's
 * @seg:      the segment
 * @next_seq: the sequence number the first record must carry; on return
 *            the one after the last record handed over
 * @apply:    called with each record's sequence number and operations
 *            (values valid during the call only); a nonzero return
 *            stops the replay with that error
 * @priv:     for @apply
 * @end:      on return, where and why the segment's log ended
 *
 * Stops at the first block that fails its check and at the first record
 * that is incomplete, fails its checksum, names another segment or does
 * not carry the next sequence number: that is the end of the segment's
 * log, and what follows is never looked at.
 *
 * Context: process context, may sleep.
 * Return: 0 at the end of the segment's log; -ENOMEM, the device's
 * errno, or @apply's.
 */
int lsm_wal_replay(struct lsm_bdev *bdev, u64 store_id,
		   const struct lsm_wal_seg *seg, u64 *next_seq,
		   lsm_wal_apply_t apply, void *priv, struct lsm_wal_end *end)
{
	struct lsm_op *ops = NULL;
	unsigned int cap = 0, n;
	size_t len, at = 0, bytes;
	u8 *stream;
	u32 *ends;
	u64 nr, b = 0;
	int err;

	err = lsm_wal_read_stream(bdev, store_id, seg, &stream, &len, &ends,
				  &nr, end);
	if (err)
		return err;
	while (at < len) {
		err = lsm_wal_parse(stream + at, len - at, seg->id, *next_seq,
				    &ops, &cap, &n, &bytes);
		if (err == -E2BIG) {
			/* Its rest was in the block that ended the stream. */
			err = 0;
			break;
		}
		if (err == -ENODATA) {
			while (b < nr && ends[b] <= at)
				b++;
			end->kind = LSM_WAL_END_RECORD;
			end->block = seg->start + b;
			err = 0;
			break;
		}
		if (err)
			goto out;
		err = apply(priv, *next_seq, ops, n);
		if (err)
			goto out;
		(*next_seq)++;
		at += bytes;
	}
out:
	kvfree(ops);
	kvfree(stream);
	kvfree(ends);
	return err;
}

static const char *const lsm_wal_end_why[] = {
	[LSM_WAL_END_FULL] = "is past the segment's end",
	[LSM_WAL_END_BLOCK] =
		"is not a block of the segment (never written, or left from earlier use)",
	[LSM_WAL_END_DAMAGED] = "is damaged (checksum mismatch) or torn",
	[LSM_WAL_END_RECORD] = "holds a record that does not pass",
};

/* Hands the records after persisted_seq on to the caller's @apply. */
struct lsm_wal_recovery {
	lsm_wal_apply_t apply;
	void *priv;
	u64 persisted_seq;
};

static int lsm_wal_recover_apply(void *priv, u64 seq, const struct lsm_op *ops,
				 unsigned int n)
{
	struct lsm_wal_recovery *r = priv;

	return seq <= r->persisted_seq ? 0 : r->apply(r->priv, seq, ops, n);
}

/*
 * The log of @seg ended at @end before write @seq, which was durable
 * (@because says how that is known): damage, refused.
 */
static int lsm_wal_refuse(struct lsm_bdev *bdev, const struct lsm_wal_seg *seg,
			  const struct lsm_wal_end *end, u64 seq,
			  const char *because, u64 what)
{
	if (!seg) {
		pr_err("lsm: %s: no log segment, but %s %llu\n", bdev->name,
		       because, (unsigned long long)what);
		return -EUCLEAN;
	}
	pr_err("lsm: %s: log segment %llu: block %llu %s: the log ends before seq %llu, but %s %llu\n",
	       bdev->name, (unsigned long long)seg->id,
	       (unsigned long long)end->block, lsm_wal_end_why[end->kind],
	       (unsigned long long)seq, because, (unsigned long long)what);
	return -EUCLEAN;
}

/**
 * lsm_wal_recover() - replay the log, checking that it holds every write
 *                     known to have been durable
 * @bdev:          the device
 * @store_id:      the store's
 * @segs:          the live segments in log order, as the manifest has them
 * @nr:            how many
 * @persisted_seq: every write up to it is in runs: replayed and checked,
 *                 but not handed to @apply
 * @durable_seq:   every write up to it was durable, in runs or in the
 *                 log, when the superblock was written (0: not known)
 * @next_seq:      on return, the sequence number of the next write: one
 *                 past the last recovered, at least @persisted_seq + 1
 * @apply:         as for lsm_wal_replay(), for the writes after
 *                 @persisted_seq, in order
 * @priv:          for @apply
 *
 * Each segment is replayed to the end of its log (lsm_wal_replay()).
 * Where a log ends is a crash's tail, or damage: a segment's log must
 * reach the sequence number the next segment begins at, unless the
 * writes between are all in runs (a crash lost the log's last block
 * after a run took its writes), since a segment is recorded only after
 * the one before it was sealed and flushed; and the log must reach
 * @durable_seq, unless runs hold it.  Otherwise a write that was durable
 * is gone: -EUCLEAN, with a message naming the block where the log
 * ended.  What cannot be told from a crash is damage in the last
 * segment after @durable_seq (Documentation/lsm.rst, "Corruption
 * policy").
 *
 * Context: process context, may sleep.
 * Return: 0; -EUCLEAN as above; -ENOMEM, the device's errno, or @apply's.
 */
int lsm_wal_recover(struct lsm_bdev *bdev, u64 store_id,
		    const struct lsm_wal_seg *segs, unsigned int nr,
		    u64 persisted_seq, u64 durable_seq, u64 *next_seq,
		    lsm_wal_apply_t apply, void *priv)
{
	struct lsm_wal_recovery r = { apply, priv, persisted_seq };
	struct lsm_wal_end end = { 0 };
	const struct lsm_wal_seg *prev = NULL;
	u64 expect = nr ? segs[0].first_seq : persisted_seq + 1;
	int err;

	if (nr && segs[0].first_seq > persisted_seq + 1) {
		pr_err("lsm: %s: log segment %llu begins at seq %llu, but runs hold writes only up to %llu\n",
		       bdev->name, (unsigned long long)segs[0].id,
		       (unsigned long long)segs[0].first_seq,
		       (unsigned long long)persisted_seq);
		return -EUCLEAN;
	}
	for (unsigned int i = 0; i < nr; i++) {
		const struct lsm_wal_seg *seg = &segs[i];

		if (seg->first_seq != expect) {
			if (seg->first_seq < expect ||
			    seg->first_seq > persisted_seq + 1)
				return lsm_wal_refuse(bdev, prev, &end, expect,
						      "the next segment begins at seq",
						      seg->first_seq);
			pr_info("lsm: %s: log segment %llu: block %llu %s: the log ends before seq %llu; segment %llu begins at seq %llu, and the writes between are in runs\n",
				bdev->name, (unsigned long long)prev->id,
				(unsigned long long)end.block,
				lsm_wal_end_why[end.kind],
				(unsigned long long)expect,
				(unsigned long long)seg->id,
				(unsigned long long)seg->first_seq);
			expect = seg->first_seq;
		} else if (prev && end.kind == LSM_WAL_END_DAMAGED) {
			pr_warn("lsm: %s: log segment %llu: block %llu %s, after the segment's last write\n",
				bdev->name, (unsigned long long)prev->id,
				(unsigned long long)end.block,
				lsm_wal_end_why[end.kind]);
		}
		err = lsm_wal_replay(bdev, store_id, seg, &expect,
				     lsm_wal_recover_apply, &r, &end);
		if (err)
			return err;
		prev = seg;
	}
	if (durable_seq > persisted_seq && expect <= durable_seq)
		return lsm_wal_refuse(bdev, prev, &end, expect,
				      "the superblock says writes were durable up to",
				      durable_seq);
	if (prev && end.kind == LSM_WAL_END_DAMAGED)
		pr_warn("lsm: %s: log segment %llu: block %llu %s: the log ends there (seq %llu), as after a crash\n",
			bdev->name, (unsigned long long)prev->id,
			(unsigned long long)end.block,
			lsm_wal_end_why[end.kind], (unsigned long long)expect - 1);
	*next_seq = max(expect, persisted_seq + 1);
	return 0;
}
