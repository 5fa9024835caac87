// SPDX-License-Identifier: GPL-2.0
/*
 * The manifest (manifest.h).  An extent of device space begins with a
 * snapshot of the whole state; every later block is one edit, written
 * alone with PREFLUSH and FUA, so that an edit is durable when the call
 * returns and a torn one is simply not there.  When the extent is full,
 * the state is written as a snapshot into a new extent, a superblock
 * points at it, and only then is the old extent freed.
 */
#include <asm/byteorder.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "block.h"
#include "manifest.h"

static void lsm_mrec_set(struct lsm_mrec *r, enum lsm_mrec_type type,
			 const u64 *v, unsigned int n)
{
	memset(r, 0, sizeof(*r));
	r->type = cpu_to_le32(type);
	for (unsigned int i = 0; i < n; i++)
		r->v[i] = cpu_to_le64(v[i]);
}

static void lsm_mrec_run(struct lsm_mrec *r, const struct lsm_run_info *run)
{
	u64 v[7] = { run->id, run->first_block, run->nr_blocks,
		     run->first_key, run->last_key, run->nr_pieces,
		     run->max_seq };

	lsm_mrec_set(r, LSM_MR_RUN_ADD, v, 7);
	r->aux = cpu_to_le32(run->level);
}

static void lsm_mrec_seg(struct lsm_mrec *r, const struct lsm_wal_seg *seg)
{
	u64 v[4] = { seg->id, seg->start, seg->nr, seg->first_seq };

	lsm_mrec_set(r, LSM_MR_SEG_ADD, v, 4);
}

/**
 * lsm_edit_alloc() - an empty edit
 * @cap: the records it may hold, at least 1
 *
 * Context: process; may sleep.
 * Return: the edit, or NULL without memory.
 */
struct lsm_edit *lsm_edit_alloc(unsigned int cap)
{
	struct lsm_edit *e = kvzalloc(struct_size(e, recs, cap), GFP_KERNEL);

	if (e)
		e->cap = cap;
	return e;
}

/**
 * lsm_edit_free() - free an edit
 * @e: from lsm_edit_alloc(), or NULL
 *
 * Context: process; may sleep.
 */
void lsm_edit_free(struct lsm_edit *e)
{
	kvfree(e);
}

static struct lsm_mrec *lsm_edit_next(struct lsm_edit *e)
{
	if (WARN_ON(e->n >= e->cap))
		return &e->recs[e->cap - 1];
	return &e->recs[e->n++];
}

/**
 * lsm_edit_run_add() - add a run, as the newest of its level, to an edit
 * @e:   the edit
 * @run: the run
 *
 * Context: any.
 */
void lsm_edit_run_add(struct lsm_edit *e, const struct lsm_run_info *run)
{
	lsm_mrec_run(lsm_edit_next(e), run);
}

/**
 * lsm_edit_run_del() - remove a run in an edit
 * @e:  the edit
 * @id: the run's id
 *
 * Context: any.
 */
void lsm_edit_run_del(struct lsm_edit *e, u64 id)
{
	lsm_mrec_set(lsm_edit_next(e), LSM_MR_RUN_DEL, &id, 1);
}

/**
 * lsm_edit_seg_add() - add a log segment, as the last, in an edit
 * @e:   the edit
 * @seg: the segment
 *
 * Context: any.
 */
void lsm_edit_seg_add(struct lsm_edit *e, const struct lsm_wal_seg *seg)
{
	lsm_mrec_seg(lsm_edit_next(e), seg);
}

/**
 * lsm_edit_seg_del() - drop a log segment in an edit
 * @e:  the edit
 * @id: the segment's id
 *
 * Context: any.
 */
void lsm_edit_seg_del(struct lsm_edit *e, u64 id)
{
	lsm_mrec_set(lsm_edit_next(e), LSM_MR_SEG_DEL, &id, 1);
}

/**
 * lsm_manifest_new_id() - an id never used before in the store
 * @m: the manifest
 *
 * Recorded with the next edit; a crash before it may hand the same id out
 * again, which is safe because nothing with that id was recorded.
 *
 * Context: callers serialize.
 * Return: the id.
 */
u64 lsm_manifest_new_id(struct lsm_manifest *m)
{
	return m->next_id++;
}

static int lsm_grow(void **arr, unsigned int *cap, unsigned int need,
		    size_t size)
{
	unsigned int ncap;
	void *n;

	if (need <= *cap)
		return 0;
	ncap = max(need, *cap ? 2 * *cap : 16U);
	n = kvcalloc(ncap, size, GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	if (*arr)
		memcpy(n, *arr, *cap * size);
	kvfree(*arr);
	*arr = n;
	*cap = ncap;
	return 0;
}

/* Apply one record to the state in memory. */
static int lsm_manifest_apply(struct lsm_manifest *m, const struct lsm_mrec *r)
{
	u64 v[7];
	unsigned int i;
	int err;

	for (i = 0; i < 7; i++)
		v[i] = le64_to_cpu(r->v[i]);
	if (r->aux && le32_to_cpu(r->type) != LSM_MR_RUN_ADD)
		return -EUCLEAN;
	switch (le32_to_cpu(r->type)) {
	case LSM_MR_STATE:
		m->next_id = v[0];
		m->persisted_seq = v[1];
		return 0;
	case LSM_MR_RUN_ADD:
		if (le32_to_cpu(r->aux) >= LSM_LEVELS)
			return -EUCLEAN;
		err = lsm_grow((void **)&m->runs, &m->cap_runs, m->nr_runs + 1,
			       sizeof(*m->runs));
		if (err)
			return err;
		m->runs[m->nr_runs++] = (struct lsm_run_info){
			.id = v[0], .first_block = v[1], .nr_blocks = v[2],
			.first_key = v[3], .last_key = v[4],
			.nr_pieces = v[5], .max_seq = v[6],
			.level = le32_to_cpu(r->aux),
		};
		return 0;
	case LSM_MR_RUN_DEL:
		for (i = 0; i < m->nr_runs && m->runs[i].id != v[0]; i++)
			;
		if (i == m->nr_runs)
			return -EUCLEAN;
		memmove(&m->runs[i], &m->runs[i + 1],
			(m->nr_runs - i - 1) * sizeof(*m->runs));
		m->nr_runs--;
		return 0;
	case LSM_MR_SEG_ADD:
		err = lsm_grow((void **)&m->segs, &m->cap_segs, m->nr_segs + 1,
			       sizeof(*m->segs));
		if (err)
			return err;
		m->segs[m->nr_segs++] = (struct lsm_wal_seg){
			.id = v[0], .start = v[1], .nr = v[2],
			.first_seq = v[3],
		};
		return 0;
	case LSM_MR_SEG_DEL:
		for (i = 0; i < m->nr_segs && m->segs[i].id != v[0]; i++)
			;
		if (i == m->nr_segs)
			return -EUCLEAN;
		memmove(&m->segs[i], &m->segs[i + 1],
			(m->nr_segs - i - 1) * sizeof(*m->segs));
		m->nr_segs--;
		return 0;
	}
	return -EUCLEAN;
}

static void lsm_manifest_state_rec(struct lsm_manifest *m, struct lsm_mrec *r)
{
	u64 v[2] = { m->next_id, m->persisted_seq };

	lsm_mrec_set(r, LSM_MR_STATE, v, 2);
}

/* The snapshot's records, in order; @i from 0 to 1 + runs + segments. */
static void lsm_snapshot_rec(struct lsm_manifest *m, unsigned int i,
			     struct lsm_mrec *r)
{
	if (!i)
		lsm_manifest_state_rec(m, r);
	else if (i - 1 < m->nr_runs)
		lsm_mrec_run(r, &m->runs[i - 1]);
	else
		lsm_mrec_seg(r, &m->segs[i - 1 - m->nr_runs]);
}

static void lsm_mblock_seal(struct lsm_manifest *m, void *buf, u64 blocknr,
			    u64 id, u32 kind, unsigned int nr_recs)
{
	struct lsm_manifest_block *mb = buf;
	struct lsm_block_id bid = {
		.blocknr = blocknr,
		.store_id = m->sb->store_id,
		.epoch = id,
		.type = LSM_BT_MANIFEST,
	};

	mb->kind = cpu_to_le32(kind);
	mb->nr_recs = cpu_to_le32(nr_recs);
	mb->snap_blocks = cpu_to_le32(m->snap_blocks);
	lsm_block_seal(buf, &bid, sizeof(*mb) + nr_recs *
		       sizeof(struct lsm_mrec));
}

/*
 * The blocks of a manifest extent for a state of @nrec records (the state
 * record, runs and segments): room for a snapshot twice that size, so
 * that edits fill it before the next roll-over, and the edit blocks.
 */
static u64 lsm_manifest_extent_blocks(unsigned int nrec)
{
	return 2 * DIV_ROUND_UP(nrec, LSM_MREC_PER_BLOCK) +
	       LSM_MANIFEST_EDIT_BLOCKS;
}

/*
 * Write the state as a snapshot into the new extent [@start, @start +
 * @nr), allocated by the caller and large enough for it, and point a new
 * superblock at it; then free the old extent (if @old).  On error the
 * new extent stays allocated (whether the superblock landed is unknown).
 */
static int lsm_manifest_roll(struct lsm_manifest *m, bool old, u64 start,
			     u64 nr)
{
	unsigned int nrec = 1 + m->nr_runs + m->nr_segs, done = 0;
	u64 snap = DIV_ROUND_UP(nrec, LSM_MREC_PER_BLOCK), id;
	struct lsm_super_info sb = *m->sb;
	u8 *buf;
	int err;

	if (WARN_ON_ONCE(lsm_manifest_extent_blocks(nrec) > nr))
		return -EUCLEAN;
	buf = kvmalloc(snap * LSM_BLOCK_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	id = lsm_manifest_new_id(m);
	m->snap_blocks = snap;
	memset(buf, 0, snap * LSM_BLOCK_SIZE);
	for (u64 b = 0; b < snap; b++) {
		u8 *blk = buf + b * LSM_BLOCK_SIZE;
		struct lsm_mrec *recs = (void *)(blk +
					sizeof(struct lsm_manifest_block));
		unsigned int n = 0;

		for (; n < LSM_MREC_PER_BLOCK && done < nrec; n++, done++)
			lsm_snapshot_rec(m, done, &recs[n]);
		lsm_mblock_seal(m, blk, start + b, id, LSM_MB_SNAPSHOT, n);
	}
	err = lsm_bdev_write_sync(m->bdev, start, buf, snap, 0);
	kvfree(buf);
	if (err)
		goto fail;
	m->bytes += snap * LSM_BLOCK_SIZE;
	sb.manifest_start = start;
	sb.manifest_blocks = nr;
	sb.manifest_id = id;
	sb.manifest_used = snap;
	/*
	 * PREFLUSH makes the snapshot durable before the pointer to it.
	 * Then the other copy too, before the old extent is freed: once
	 * the old extent may be reused, both copies point at the new one,
	 * so that attach falling back to the other copy (the current one
	 * damaged) never reads a freed manifest.  A torn write of either
	 * leaves a copy pointing at an extent not yet freed.
	 */
	for (int copy = 0; copy < LSM_SUPER_COPIES; copy++) {
		err = lsm_super_write(m->bdev, &sb);
		if (err)
			goto fail;
		m->bytes += LSM_BLOCK_SIZE;
	}
	if (old)
		lsm_space_free(m->space, m->sb->manifest_start,
			       m->sb->manifest_blocks);
	*m->sb = sb;
	m->next_block = snap;
	return 0;
fail:
	/* Whether the new superblock landed is unknown: keep both extents. */
	return err;
}

/**
 * lsm_manifest_format() - write the manifest of a new, empty store
 * @m:     the manifest
 * @bdev:  the device
 * @space: the new store's space, only superblocks reserved
 * @sb:    the new superblock (store id, size); its manifest fields are
 *         filled in and both copies written
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOMEM, or the device's errno.
 */
int lsm_manifest_format(struct lsm_manifest *m, struct lsm_bdev *bdev,
			struct lsm_space *space, struct lsm_super_info *sb)
{
	u64 start, nr;
	int err;

	memset(m, 0, sizeof(*m));
	m->bdev = bdev;
	m->space = space;
	m->sb = sb;
	m->next_id = 1;
	nr = lsm_manifest_extent_blocks(1);
	err = lsm_space_alloc(space, nr, &start);
	if (err)
		return err;
	/* It writes both copies: no copy of earlier content can win. */
	return lsm_manifest_roll(m, false, start, nr);
}

/*
 * Read block @i of the extent and check it as a block of kind @kind;
 * @why says what is wrong with it when it returns -EUCLEAN or -ESTALE.
 */
static int lsm_manifest_read_block(struct lsm_manifest *m, u64 i, u8 *buf,
				   u32 kind, unsigned int *nr_recs,
				   const char **why)
{
	struct lsm_block_id id = {
		.blocknr = m->sb->manifest_start + i,
		.store_id = m->sb->store_id,
		.epoch = m->sb->manifest_id,
		.type = LSM_BT_MANIFEST,
	};
	struct lsm_manifest_block *mb = (void *)buf;
	unsigned int n;
	int err;

	err = m->bdev->ops->read(m->bdev, id.blocknr, buf, 1);
	if (err) {
		*why = "cannot be read";
		return err;
	}
	err = lsm_block_check(buf, &id);
	if (err) {
		*why = err == -ESTALE ?
		       "is stale or misplaced (another manifest, place or type)" :
		       lsm_block_damaged(buf) ?
		       "is damaged (checksum mismatch)" :
		       "is not a block of this store (magic, store or version)";
		return err;
	}
	n = le32_to_cpu(mb->nr_recs);
	if (le32_to_cpu(mb->kind) != kind || !n || n > LSM_MREC_PER_BLOCK ||
	    le32_to_cpu(mb->hdr.used) != sizeof(*mb) + n *
	    sizeof(struct lsm_mrec) || !le32_to_cpu(mb->snap_blocks) ||
	    le32_to_cpu(mb->snap_blocks) > m->sb->manifest_blocks) {
		*why = "has fields out of range";
		return -EUCLEAN;
	}
	*nr_recs = n;
	return 0;
}

static int lsm_manifest_apply_block(struct lsm_manifest *m, const u8 *buf,
				    unsigned int n)
{
	const struct lsm_mrec *recs = (const void *)(buf +
				      sizeof(struct lsm_manifest_block));
	int err;

	for (unsigned int i = 0; i < n; i++) {
		err = lsm_manifest_apply(m, &recs[i]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Edit block @i failed its check (@why): the end of the edit log, or
 * damage?  Each edit is written alone with FUA and durable before the
 * next is written, so a block that fails ends the log only if no edit
 * was ever written after it: not one the superblock counted as durable
 * (manifest_used), and no later block may pass.  What cannot be told
 * apart is damage to the last edit written since the last superblock
 * from a crash during its write.  Returns 0 at the end of the log,
 * -EUCLEAN (with a message) for damage, or a read's error.
 */
static int lsm_manifest_edits_end(struct lsm_manifest *m, u64 i, u8 *buf,
				  const char *why)
{
	u64 at = m->sb->manifest_start + i;
	bool damaged = lsm_block_damaged(buf);
	const char *later;
	unsigned int n;
	int err;

	if (i < m->sb->manifest_used) {
		pr_err("lsm: %s: manifest %llu: edit block %llu %s, but the superblock counts %llu blocks of the manifest durable\n",
		       m->bdev->name, (unsigned long long)m->sb->manifest_id,
		       (unsigned long long)at, why,
		       (unsigned long long)m->sb->manifest_used);
		return -EUCLEAN;
	}
	for (u64 j = i + 1; j < m->sb->manifest_blocks; j++) {
		err = lsm_manifest_read_block(m, j, buf, LSM_MB_EDIT, &n,
					      &later);
		if (!err) {
			pr_err("lsm: %s: manifest %llu: edit block %llu %s, but block %llu after it is a sound edit\n",
			       m->bdev->name,
			       (unsigned long long)m->sb->manifest_id,
			       (unsigned long long)at, why,
			       (unsigned long long)(m->sb->manifest_start + j));
			return -EUCLEAN;
		}
		if (err != -EUCLEAN && err != -ESTALE)
			return err;
	}
	if (damaged)
		pr_warn("lsm: %s: manifest %llu: edit block %llu %s: torn by a crash, or damaged; the manifest ends before it\n",
			m->bdev->name, (unsigned long long)m->sb->manifest_id,
			(unsigned long long)at, why);
	return 0;
}

/**
 * lsm_manifest_load() - read the manifest the superblock points at, and
 *                       mark everything it records as used in @space
 * @m:     the manifest
 * @bdev:  the device
 * @space: the store's space, only superblocks reserved
 * @sb:    the current superblock
 *
 * The snapshot must pass whole; the edits after it are read up to the
 * first block that fails, which must be the end of what was ever written
 * (lsm_manifest_edits_end()).
 *
 * Context: process context, may sleep.
 * Return: 0; -EUCLEAN for a snapshot block that does not pass, an edit
 * block that does not pass before one that does or before the
 * superblock's count of durable blocks, a record that makes no sense,
 * or extents that overlap or leave the store (a message names the block
 * or the problem); -ENOMEM; the device's errno.
 */
int lsm_manifest_load(struct lsm_manifest *m, struct lsm_bdev *bdev,
		      struct lsm_space *space, struct lsm_super_info *sb)
{
	u8 *buf;
	unsigned int n;
	const char *what = NULL, *why;
	u64 i;
	int err;

	memset(m, 0, sizeof(*m));
	m->bdev = bdev;
	m->space = space;
	m->sb = sb;
	buf = kmalloc(LSM_BLOCK_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; !i || i < m->snap_blocks; i++) {
		err = lsm_manifest_read_block(m, i, buf, LSM_MB_SNAPSHOT, &n,
					      &why);
		if (err == -ESTALE)
			err = -EUCLEAN;
		if (err) {
			what = why;
			goto fail;
		}
		if (!i)
			m->snap_blocks = le32_to_cpu(((struct lsm_manifest_block
						       *)buf)->snap_blocks);
		what = "has a record that makes no sense";
		err = lsm_manifest_apply_block(m, buf, n);
		if (err)
			goto fail;
	}
	for (; i < sb->manifest_blocks; i++) {
		err = lsm_manifest_read_block(m, i, buf, LSM_MB_EDIT, &n, &why);
		if (err == -EUCLEAN || err == -ESTALE) {
			err = lsm_manifest_edits_end(m, i, buf, why);
			if (err)
				goto fail_quiet;
			break;
		}
		if (err)
			goto fail;
		what = "has a record that makes no sense";
		err = lsm_manifest_apply_block(m, buf, n);
		if (err)
			goto fail;
	}
	m->next_block = i;
	err = lsm_space_reserve(space, sb->manifest_start, sb->manifest_blocks);
	for (i = 0; !err && i < m->nr_runs; i++)
		err = lsm_space_reserve(space, m->runs[i].first_block,
					m->runs[i].nr_blocks);
	for (i = 0; !err && i < m->nr_segs; i++)
		err = lsm_space_reserve(space, m->segs[i].start,
					m->segs[i].nr);
	if (err) {
		if (err == -EUCLEAN)
			pr_err("lsm: %s: manifest %llu records overlapping or outside extents\n",
			       bdev->name, (unsigned long long)sb->manifest_id);
		goto fail_quiet;
	}
	kfree(buf);
	return 0;
fail:
	if (err == -EUCLEAN)
		pr_err("lsm: %s: manifest %llu: %s block %llu %s\n", bdev->name,
		       (unsigned long long)sb->manifest_id,
		       i < m->snap_blocks || !i ? "snapshot" : "edit",
		       (unsigned long long)(sb->manifest_start + i), what);
fail_quiet:
	kfree(buf);
	lsm_manifest_destroy(m);
	return err;
}

/**
 * lsm_manifest_write_super() - write the next superblock, counting the
 *                              manifest's blocks written so far durable
 * @m:           the manifest; its superblock's other fields (flags) as
 *               the caller wants them written
 * @durable_seq: every write up to it is durable now, in runs or the log
 *
 * Attach then refuses a manifest whose edit log ends before that count
 * (lsm_manifest_edits_end()), and a log that ends before @durable_seq
 * (lsm_wal_recover()).  A roll-over's superblocks carry the last value
 * written: still true, if not the latest.
 *
 * Context: process context, may sleep; callers serialize.
 * Return: 0, -ENOMEM, or the device's errno; -EIO after an edit failed
 * (lsm_manifest_commit()).
 */
int lsm_manifest_write_super(struct lsm_manifest *m, u64 durable_seq)
{
	int err;

	if (m->failed)
		return -EIO;
	m->sb->manifest_used = m->next_block;
	m->sb->durable_seq = durable_seq;
	err = lsm_super_write(m->bdev, m->sb);
	if (!err)
		m->bytes += LSM_BLOCK_SIZE;
	return err;
}

/**
 * lsm_manifest_destroy() - free the manifest's memory
 * @m: the manifest
 *
 * Context: any.
 */
void lsm_manifest_destroy(struct lsm_manifest *m)
{
	kvfree(m->runs);
	kvfree(m->segs);
	m->runs = NULL;
	m->segs = NULL;
	m->nr_runs = 0;
	m->cap_runs = 0;
	m->nr_segs = 0;
	m->cap_segs = 0;
}

/* Append @e, applied to the state already, as one edit block. */
static int lsm_manifest_write_edit(struct lsm_manifest *m,
				   const struct lsm_edit *e)
{
	struct lsm_mrec *recs;
	u8 *buf;
	int err;

	buf = kzalloc(LSM_BLOCK_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	recs = (void *)(buf + sizeof(struct lsm_manifest_block));
	memcpy(recs, e->recs, e->n * sizeof(*recs));
	lsm_manifest_state_rec(m, &recs[e->n]);
	lsm_mblock_seal(m, buf, m->sb->manifest_start + m->next_block,
			m->sb->manifest_id, LSM_MB_EDIT, e->n + 1);
	err = lsm_bdev_write_sync(m->bdev, m->sb->manifest_start +
				  m->next_block, buf, 1,
				  LSM_IO_PREFLUSH | LSM_IO_FUA);
	kfree(buf);
	if (err)
		return err;
	m->bytes += LSM_BLOCK_SIZE;
	m->next_block++;
	return 0;
}

/**
 * lsm_manifest_commit() - make an edit durable
 * @m:             the manifest
 * @e:             the edit
 * @persisted_seq: the new persisted sequence number
 *
 * Applies the edit to the state in memory and writes it as one block with
 * PREFLUSH and FUA, or, when the extent is full or the edit does not fit
 * a block, rolls the manifest over to a new extent that starts with a
 * snapshot of the new state.  Space the
 * edit stops using may be freed once this returns 0.
 *
 * Context: process context, may sleep; callers serialize.
 * Return: 0; -ENOSPC when a roll-over finds no space, with nothing
 * changed; -ENOMEM; -EUCLEAN for an edit that names a run or segment not
 * there; the device's errno (-EIO for its -ENOSPC).  After an error other
 * than -ENOSPC the state in memory may hold the edit while the device does
 * not: the store stops writing (read-only), and every later commit or
 * superblock write returns -EIO without writing (@m->failed), whichever
 * thread asks.
 */
int lsm_manifest_commit(struct lsm_manifest *m, const struct lsm_edit *e,
			u64 persisted_seq)
{
	bool roll = m->next_block >= m->sb->manifest_blocks ||
		    e->n > LSM_EDIT_MAX;
	u64 start = 0, nr = 0;
	int err;

	if (m->failed)
		return -EIO;
	/*
	 * A roll-over's extent before the state takes the edit, sized for
	 * the state with every record of the edit added: a device too full
	 * for it refuses the edit with the manifest unchanged, so that the
	 * caller may report -ENOSPC and go on.
	 */
	if (roll) {
		nr = lsm_manifest_extent_blocks(1 + m->nr_runs + m->nr_segs +
						e->n);
		err = lsm_space_alloc(m->space, nr, &start);
		if (err)
			return err;
	}
	for (unsigned int i = 0; i < e->n; i++) {
		err = lsm_manifest_apply(m, &e->recs[i]);
		if (err) {
			/* Records before this one are in the state. */
			m->failed = i > 0;
			if (roll)
				lsm_space_free(m->space, start, nr);
			return err;
		}
	}
	m->persisted_seq = persisted_seq;
	err = roll ? lsm_manifest_roll(m, true, start, nr) :
		     lsm_manifest_write_edit(m, e);
	if (err)
		m->failed = true;
	/* -ENOSPC says "nothing changed": not so for a device's -ENOSPC. */
	return err == -ENOSPC ? -EIO : err;
}

struct lsm_extent_use {
	u64 start, nr;
};

static void lsm_use_add(struct lsm_extent_use *u, unsigned int *n, u64 start,
			u64 nr)
{
	unsigned int i = (*n)++;

	/* Insertion sort by start: a check, over a few hundred extents. */
	while (i && u[i - 1].start > start) {
		u[i] = u[i - 1];
		i--;
	}
	u[i].start = start;
	u[i].nr = nr;
}

/**
 * lsm_manifest_check() - check the manifest's invariants against the space
 * @m:          the manifest
 * @unrecorded: blocks allocated that no manifest record names yet (a run
 *              being written)
 *
 * Every extent it records lies inside the store and overlaps no other nor
 * the superblocks, the space in use is exactly those extents and the
 * superblocks, log segments start at increasing sequence numbers, ids
 * are below next_id, runs have a size a run can have, and the runs of a
 * level other than 0 do not overlap in keys.
 *
 * Context: process context, may sleep; callers serialize with changes.
 * Return: 0, -EUCLEAN naming the broken invariant in a message, -ENOMEM.
 */
int lsm_manifest_check(struct lsm_manifest *m, u64 unrecorded)
{
	unsigned int n = 0, i;
	struct lsm_extent_use *u;
	const char *what = NULL;
	u64 used = 0, end = 0;

	u = kvcalloc(2 + m->nr_runs + m->nr_segs, sizeof(*u), GFP_KERNEL);
	if (!u)
		return -ENOMEM;
	lsm_use_add(u, &n, 0, LSM_SUPER_COPIES);
	lsm_use_add(u, &n, m->sb->manifest_start, m->sb->manifest_blocks);
	for (i = 0; i < m->nr_runs; i++) {
		const struct lsm_run_info *r = &m->runs[i];

		lsm_use_add(u, &n, r->first_block, r->nr_blocks);
		if (r->id >= m->next_id)
			what = "run id not below next_id";
		if (r->level >= LSM_LEVELS || r->first_key > r->last_key)
			what = "run level or key range out of range";
		if (r->nr_blocks < LSM_RUN_MIN_BLOCKS ||
		    r->nr_blocks > U32_MAX)
			what = "run extent of a size no run has";
		/* Quadratic, for a check: a store has tens of runs. */
		for (unsigned int j = 0; r->level && j < i; j++)
			if (m->runs[j].level == r->level &&
			    m->runs[j].first_key <= r->last_key &&
			    r->first_key <= m->runs[j].last_key)
				what = "runs of one level overlap";
	}
	for (i = 0; i < m->nr_segs; i++) {
		lsm_use_add(u, &n, m->segs[i].start, m->segs[i].nr);
		if (m->segs[i].id >= m->next_id)
			what = "segment id not below next_id";
		if (i && m->segs[i].first_seq < m->segs[i - 1].first_seq)
			what = "segments out of sequence order";
	}
	for (i = 0; i < n; i++) {
		if (!u[i].nr || u[i].start < end ||
		    u[i].nr > m->space->nr_blocks - u[i].start ||
		    u[i].start > m->space->nr_blocks)
			what = "extents overlap or leave the store";
		else
			end = u[i].start + u[i].nr;
		used += u[i].nr;
	}
	if (!what && used + unrecorded != m->space->used)
		what = "space in use differs from what the manifest records";
	if (m->sb->manifest_id >= m->next_id)
		what = "manifest id not below next_id";
	kvfree(u);
	if (!what)
		return 0;
	pr_err("lsm: %s: manifest check: %s\n", m->bdev->name, what);
	return -EUCLEAN;
}
