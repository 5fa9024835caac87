// SPDX-License-Identifier: GPL-2.0
/*
 * The store's durable core for the tests (logstore.h).
 */
#include <string.h>
#include "logstore.h"

int logstore_format(struct lsm_bdev *bdev, u64 store_id, u32 segment_blocks)
{
	struct lsm_super_info sb = {
		.store_id = store_id,
		.nr_blocks = bdev->nr_blocks,
		.segment_blocks = segment_blocks,
	};
	struct lsm_space space;
	struct lsm_manifest m;
	int err;

	err = lsm_space_init(&space, sb.nr_blocks);
	if (err)
		return err;
	err = lsm_manifest_format(&m, bdev, &space, &sb);
	lsm_manifest_destroy(&m);
	lsm_space_destroy(&space);
	return err;
}

/* Record a new segment, durably, and write into it from now on. */
static int logstore_new_segment(struct logstore *ls)
{
	struct lsm_wal_seg seg = { .nr = ls->sb.segment_blocks,
				   .first_seq = ls->next_seq };
	struct lsm_edit *e;
	int err;

	err = lsm_wal_seal(&ls->wal);
	if (err)
		return err;
	err = lsm_space_alloc(&ls->space, seg.nr, &seg.start);
	if (err)
		return err;
	e = lsm_edit_alloc(1);
	if (!e)
		return -ENOMEM;
	seg.id = lsm_manifest_new_id(&ls->m);
	lsm_edit_seg_add(e, &seg);
	err = lsm_manifest_commit(&ls->m, e, ls->m.persisted_seq);
	lsm_edit_free(e);
	if (err)
		return err;
	lsm_wal_begin(&ls->wal, &seg);
	return 0;
}

struct replay_ctx {
	struct logstore *ls;
	lsm_wal_apply_t apply;
	void *priv;
};

static int logstore_apply(void *priv, u64 seq, const struct lsm_op *ops,
			  unsigned int n)
{
	struct replay_ctx *c = priv;

	if (seq <= c->ls->m.persisted_seq)
		return 0;
	return c->apply(c->priv, seq, ops, n);
}

int logstore_open(struct logstore *ls, struct lsm_bdev *bdev,
		  lsm_wal_apply_t apply, void *priv)
{
	struct replay_ctx c = { ls, apply, priv };
	int err;

	memset(ls, 0, sizeof(*ls));
	ls->bdev = bdev;
	err = lsm_super_read(bdev, &ls->sb);
	if (err)
		return err;
	err = lsm_space_init(&ls->space, ls->sb.nr_blocks);
	if (err)
		return err;
	err = lsm_manifest_load(&ls->m, bdev, &ls->space, &ls->sb);
	if (err)
		goto fail_space;
	err = lsm_manifest_check(&ls->m, 0);
	if (err)
		goto fail_manifest;
	err = lsm_wal_recover(bdev, ls->sb.store_id, ls->m.segs, ls->m.nr_segs,
			      ls->m.persisted_seq, ls->sb.durable_seq,
			      &ls->next_seq, logstore_apply, &c);
	if (err)
		goto fail_manifest;
	err = lsm_wal_init(&ls->wal, bdev, ls->sb.store_id);
	if (err)
		goto fail_manifest;
	err = logstore_new_segment(ls);
	if (err)
		goto fail_wal;
	return 0;
fail_wal:
	lsm_wal_destroy(&ls->wal);
fail_manifest:
	lsm_manifest_destroy(&ls->m);
fail_space:
	lsm_space_destroy(&ls->space);
	return err;
}

int logstore_write(struct logstore *ls, const struct lsm_op *ops,
		   unsigned int n, bool sync)
{
	size_t bytes = lsm_wal_record_bytes(ops, n);
	int err;

	if (!lsm_wal_room(&ls->wal, bytes)) {
		err = logstore_new_segment(ls);
		if (err)
			return err;
	}
	err = lsm_wal_append(&ls->wal, ls->next_seq, ops, n);
	if (err)
		return err;
	ls->next_seq++;
	return sync ? logstore_sync(ls) : 0;
}

int logstore_sync(struct logstore *ls)
{
	int err = lsm_wal_seal(&ls->wal);

	return err ? err : ls->bdev->ops->flush(ls->bdev);
}

int logstore_close(struct logstore *ls, bool sync)
{
	int err = sync ? logstore_sync(ls) : 0;

	lsm_wal_destroy(&ls->wal);
	lsm_manifest_destroy(&ls->m);
	lsm_space_destroy(&ls->space);
	return err;
}
