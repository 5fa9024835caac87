/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pieces held in memory with their values, in key order: one run's worth
 * of a compaction's output, which a run is then built from (as a struct
 * lsm_run_source: the build reads its source twice, and a merge is
 * cheaper to read once).  Adjacent windows of one extent are joined.
 */
#ifndef _LSM_PIECE_BUF_H
#define _LSM_PIECE_BUF_H

#include <linux/types.h>
#include "record.h"
#include "run.h"

/**
 * struct lsm_piece_buf_ent - a piece held, and where its value is
 * @p:    the piece; p.ext.value is unused
 * @voff: its value's offset in the buffer's values
 */
struct lsm_piece_buf_ent {
	struct lsm_piece p;
	size_t voff;
};

/**
 * struct lsm_piece_buf - pieces in key order, their values packed apart
 * @ent:    the pieces
 * @nr:     pieces held
 * @cap:    room for pieces
 * @values: the values
 * @vbytes: bytes of @values used
 * @vcap:   its size
 * @bytes:  an estimate of the bytes the pieces take in a run
 * @next:   the source's position
 */
struct lsm_piece_buf {
	struct lsm_piece_buf_ent *ent;
	size_t nr, cap;
	u8 *values;
	size_t vbytes, vcap;
	u64 bytes;
	size_t next;
};

void lsm_piece_buf_init(struct lsm_piece_buf *pb);
void lsm_piece_buf_destroy(struct lsm_piece_buf *pb);
void lsm_piece_buf_clear(struct lsm_piece_buf *pb);
int lsm_piece_buf_add(struct lsm_piece_buf *pb, const struct lsm_piece *p);
void lsm_piece_buf_source(struct lsm_piece_buf *pb,
			  struct lsm_run_source *src);

#endif /* _LSM_PIECE_BUF_H */
