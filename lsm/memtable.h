/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memtable: the newest extents of the store, in an extent map
 * (extent/extent_map.h) on the skiplist, with their values in a pool
 * (pool.h).  Full, it becomes immutable and is written out as a run.
 *
 * Writers are serialized by the caller (the store's commit leader applies
 * each batch in sequence order); readers are lockless under RCU and never
 * wait for a writer.
 */
#ifndef _LSM_MEMTABLE_H
#define _LSM_MEMTABLE_H

#include <linux/types.h>
#include <linux/gfp.h>
#include "record.h"

struct lsm_memtable;
struct lsm_pool;

struct lsm_memtable *lsm_mem_create(struct lsm_pool *pool, gfp_t gfp);
void lsm_mem_destroy(struct lsm_memtable *mt);

/*
 * Apply a put or a punch (LSM_EXT_TOMBSTONE): afterwards [key, key + len)
 * shows @ext and nothing older of this memtable; an older extent that
 * sticks out stays visible there, trimmed.  The value is copied.  A
 * tombstone is kept as a piece of its own, so that it hides older layers.
 * Callers serialize calls; returns 0 or -ENOMEM with the memtable as it
 * was before the call.
 */
int lsm_mem_apply(struct lsm_memtable *mt, const struct lsm_extent *ext,
		  gfp_t gfp);

/*
 * The piece covering @k (get), or the first piece ending after @pos
 * (next: the one covering @pos, else the first after it), tombstones
 * included.  With @vbuf, up to @vbuf_size bytes of the value are copied
 * there and ext.value points at @vbuf (ext.vlen is the full length);
 * without, ext.value points into the memtable and is valid only while
 * the caller stays in an RCU read-side section, or while the memtable is
 * immutable.  Return 0, or -ENOENT.
 */
int lsm_mem_get(struct lsm_memtable *mt, u64 k, struct lsm_piece *out,
		void *vbuf, u32 vbuf_size);
int lsm_mem_next(struct lsm_memtable *mt, u64 pos, struct lsm_piece *out,
		 void *vbuf, u32 vbuf_size);

/* Bytes the memtable holds (values, records and index), and pieces. */
u64 lsm_mem_bytes(struct lsm_memtable *mt);
u64 lsm_mem_pieces(struct lsm_memtable *mt);

#endif /* _LSM_MEMTABLE_H */
