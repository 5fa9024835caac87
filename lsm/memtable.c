// SPDX-License-Identifier: GPL-2.0
/*
 * The memtable: the newest extents of the store in an extent map, each
 * extent's record (key, len, seq, flags and value) in one allocation of
 * the store's pool.
 *
 * Representation:
 *  - A record is put in the map as a piece [key, key + len) whose
 *    disk_start is the record's address plus the key (modulo 2^64).  The
 *    map shifts disk_start with start whenever it trims or splits a piece,
 *    so for every piece of a record, disk_start - start is the record's
 *    address.  Pieces never merge (no SL_EM_MERGE).
 *  - The map refuses a piece whose disk range wraps past U64_MAX, so a
 *    record whose address plus its range crosses 2^64 goes in as two
 *    pieces that meet at the wrap point (flag LSM_MEM_REC_WRAPPED), and
 *    readers join them back into one window.
 *  - A tombstone is a record with LSM_EXT_TOMBSTONE and no value.
 *  - Without an arena, each record counts its pieces (in the head before
 *    it, struct lsm_mem_life); the writer knows which pieces a put
 *    removes or splits.  A record whose last piece goes waits for an RCU
 *    grace period, since readers may still be copying it: retired records
 *    are chained (@mt->retiring) and given to call_rcu() in batches of
 *    LSM_MEM_RETIRE_BATCH, one callback per batch, which only hands them
 *    back to the memtable (@mt->dead); the writer frees them into the pool
 *    at its next put.  So the pool is used from the
 *    writer's context alone, and a freed record goes to the per-CPU cache
 *    of the CPU that will allocate the next one.  With an arena
 *    (LSM_POOL_ARENA) nothing is freed before the memtable is, and the
 *    records have no head and count nothing.
 *
 * Concurrency contract:
 *  - Writers (lsm_mem_apply()) are serialized by the caller; a second
 *    writer inside is caught by a warning.  A put over nothing is one
 *    insert, and a put over exactly one piece one replace: each a single
 *    step for readers, made outside any write section
 *    (lsm_mem_add_fast()).  Any other put changes the map in several
 *    steps (punch, then insert); @mt->seq makes them one change for
 *    readers.  The write section holds @mt->lock (a rwlock only
 *    ever write-locked, because the seqcount needs a lock that it can
 *    assert and that nests outside the map's own) with bottom halves off
 *    and never sleeps: every allocation that may sleep is made before
 *    it, and those inside it (the map's own) do not block.
 *  - Readers (lsm_mem_get(), lsm_mem_next()) take no lock: they find a
 *    piece in the map and copy its record inside rcu_read_lock(), and
 *    retry if a write section ran meanwhile, so a reader sees the
 *    memtable before or after each put, never between.  A record's fields
 *    and value never change after it is published.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>
#include <linux/string.h>
#include <linux/llist.h>
#include "extent_map.h"
#include "memtable.h"
#include "pool.h"
#include "arena.h"

/* Internal record flags, above the LSM_EXT_* ones. */
#define LSM_MEM_REC_WRAPPED	0x40000000	/* two pieces at the wrap */
#define LSM_MEM_REC_OUTVAL	0x80000000	/* value in its own object */

/* Retired records given to RCU together, under one callback. */
#define LSM_MEM_RETIRE_BATCH	64

/*
 * Index bytes per piece, an estimate: the map's extent object (48 bytes)
 * and its share of the skiplist's leaves and directory, which sl_stats()
 * put at 26 bytes per extent for 200K random point extents and 18 for
 * sequential ones (Documentation/lsm-memory.rst); rounded up.
 */
#define LSM_MEM_PIECE_BYTES	80

/**
 * struct lsm_mem_rec - an extent as put, with its value
 * @key:    first unit
 * @len:    units
 * @seq:    sequence number
 * @flags:  LSM_EXT_* and LSM_MEM_REC_*
 * @vlen:   bytes of value
 * @value:  the value, or with LSM_MEM_REC_OUTVAL a pointer to it
 *
 * Written before the record is published and never after.
 */
struct lsm_mem_rec {
	u64 key;
	u64 len;
	u64 seq;
	u32 flags;
	u32 vlen;
	u8 value[];
};

/**
 * struct lsm_mem_life - what a record freed on its own needs, before it
 * @pieces: pieces of it in the map; written by the writer only
 * @dead:   on @mt->dead, once the grace period is over
 * @mt:     the memtable, for the RCU callback
 * @rcu:    hands it back to @mt after a grace period
 * @rec:    the record
 *
 * A memtable with an arena frees nothing before it goes, and its records
 * go without this head: 32 bytes a record less.
 */
struct lsm_mem_life {
	union {
		u32 pieces;
		struct llist_node dead;
	};
	struct lsm_memtable *mt;
	struct rcu_head rcu;
	struct lsm_mem_rec rec;
};

/**
 * struct lsm_mem_old - a piece a put is about to change, as it was
 * @info: the piece
 * @back: restored after a failed insert
 */
struct lsm_mem_old {
	struct sl_extent_info info;
	bool back;
};

/**
 * struct lsm_memtable - a memtable
 * @em:       the pieces
 * @pool:     where records come from
 * @arena:    the records, with a pool of kind LSM_POOL_ARENA
 * @lock:     held for writing by the writer over a write section; no
 *            one takes it for reading (readers use @seq)
 * @seq:      write sections, for readers
 * @bytes:    bytes charged for records not yet freed (pool or kmalloc
 *            kinds)
 * @dead:     records past their grace period, for the writer to free
 * @retiring: retired records waiting to be given to RCU; writer only
 * @nr_retiring: records on @retiring
 * @old:      the writer's scratch list of pieces a put changes
 * @old_cap:  entries @old holds
 * @applying: a writer is inside lsm_mem_apply()
 * @arena_kind: @pool is of kind LSM_POOL_ARENA (asked once, at create)
 */
struct lsm_memtable {
	struct sl_extent_map em;
	struct lsm_pool *pool;
	struct lsm_arena arena;
	rwlock_t lock;
	seqcount_rwlock_t seq;
	atomic_long_t bytes;
	struct llist_head dead;
	struct llist_node *retiring;
	unsigned int nr_retiring;
	struct lsm_mem_old *old;
	unsigned int old_cap;
	bool applying;
	bool arena_kind;
};

static bool lsm_mem_is_arena(const struct lsm_memtable *mt)
{
	return mt->arena_kind;
}

/* The record of a piece: disk_start - start, modulo 2^64. */
static struct lsm_mem_rec *lsm_mem_rec_of(const struct sl_extent_info *info)
{
	return (struct lsm_mem_rec *)(uintptr_t)(info->disk_start - info->start);
}

static u64 lsm_mem_disk(const struct lsm_mem_rec *rec, u64 unit)
{
	return (u64)(uintptr_t)rec + unit;
}

static const u8 *lsm_mem_value(const struct lsm_mem_rec *rec)
{
	if (rec->flags & LSM_MEM_REC_OUTVAL)
		return *(const u8 * const *)rec->value;
	return rec->value;
}

static struct lsm_mem_life *lsm_mem_life_of(struct lsm_mem_rec *rec)
{
	return container_of(rec, struct lsm_mem_life, rec);
}

/* A record's head: with its life, unless the memtable has an arena. */
static size_t lsm_mem_head_size(const struct lsm_memtable *mt)
{
	return lsm_mem_is_arena(mt) ? sizeof(struct lsm_mem_rec) :
				      sizeof(struct lsm_mem_life);
}

static bool lsm_mem_outval(const struct lsm_memtable *mt, u32 vlen)
{
	return lsm_mem_head_size(mt) + vlen > LSM_POOL_MAX_SIZE;
}

/* The size of a record's own allocation. */
static size_t lsm_mem_rec_size(const struct lsm_memtable *mt, u32 vlen)
{
	if (lsm_mem_outval(mt, vlen))
		return lsm_mem_head_size(mt) + sizeof(void *);
	return lsm_mem_head_size(mt) + vlen;
}

/*
 * Pieces of @rec in the map, counted only where a record is freed when
 * its last piece goes (no arena).
 */
static void lsm_mem_pieces_set(struct lsm_memtable *mt,
			       struct lsm_mem_rec *rec, u32 n)
{
	if (!lsm_mem_is_arena(mt))
		lsm_mem_life_of(rec)->pieces = n;
}

static void *lsm_mem_alloc(struct lsm_memtable *mt, size_t size, gfp_t gfp)
{
	void *obj;

	if (lsm_mem_is_arena(mt))
		return lsm_arena_alloc(&mt->arena, size, gfp);
	obj = lsm_pool_alloc(mt->pool, size, gfp);
	if (obj)
		atomic_long_add(lsm_pool_charge(mt->pool, size), &mt->bytes);
	return obj;
}

/* Free an object no reader can see (never published, or after RCU). */
static void lsm_mem_free(struct lsm_memtable *mt, void *obj, size_t size)
{
	if (!obj || lsm_mem_is_arena(mt))
		return;
	atomic_long_sub(lsm_pool_charge(mt->pool, size), &mt->bytes);
	lsm_pool_free(mt->pool, obj, size);
}

/* Free a record of a memtable without an arena. */
static void lsm_mem_rec_free(struct lsm_mem_life *life)
{
	struct lsm_memtable *mt = life->mt;
	struct lsm_mem_rec *rec = &life->rec;

	if (rec->flags & LSM_MEM_REC_OUTVAL)
		lsm_mem_free(mt, *(void **)rec->value, rec->vlen);
	lsm_mem_free(mt, life, lsm_mem_rec_size(mt, rec->vlen));
}

static void lsm_mem_batch_dead_cb(struct rcu_head *head)
{
	struct lsm_mem_life *first = container_of(head, struct lsm_mem_life, rcu);
	struct lsm_memtable *mt = first->mt;
	struct llist_node *node = &first->dead, *next;

	/* Each record may be freed as soon as it is on @mt->dead. */
	for (; node; node = next) {
		next = node->next;
		llist_add(node, &mt->dead);
	}
}

/* Free the records whose grace period is over; the writer's context. */
static void lsm_mem_reap(struct lsm_memtable *mt)
{
	struct llist_node *node, *next;

	if (!READ_ONCE(mt->dead.first))
		return;
	for (node = llist_del_all(&mt->dead); node; node = next) {
		next = node->next;
		lsm_mem_rec_free(container_of(node, struct lsm_mem_life, dead));
	}
}

/* Hand the retired records to RCU, the first one carrying the batch. */
static void lsm_mem_retire_flush(struct lsm_memtable *mt)
{
	struct lsm_mem_life *first;

	if (!mt->retiring)
		return;
	first = container_of(mt->retiring, struct lsm_mem_life, dead);
	call_rcu(&first->rcu, lsm_mem_batch_dead_cb);
	mt->retiring = NULL;
	mt->nr_retiring = 0;
}

/* The record lost its last piece: free it once readers are done. */
static void lsm_mem_rec_retire(struct lsm_memtable *mt,
			       struct lsm_mem_rec *rec)
{
	struct lsm_mem_life *life;

	if (lsm_mem_is_arena(mt))
		return;
	life = lsm_mem_life_of(rec);
	life->dead.next = mt->retiring;
	mt->retiring = &life->dead;
	if (++mt->nr_retiring >= LSM_MEM_RETIRE_BATCH)
		lsm_mem_retire_flush(mt);
}

/* A piece of @rec left the map: retire it with its last one (no arena). */
static void lsm_mem_piece_gone(struct lsm_memtable *mt, struct lsm_mem_rec *rec)
{
	if (!lsm_mem_is_arena(mt) && !--lsm_mem_life_of(rec)->pieces)
		lsm_mem_rec_retire(mt, rec);
}

static struct lsm_mem_rec *lsm_mem_rec_new(struct lsm_memtable *mt,
					   const struct lsm_extent *ext,
					   gfp_t gfp)
{
	size_t size = lsm_mem_rec_size(mt, ext->vlen);
	struct lsm_mem_rec *rec;
	void *obj;
	u8 *value;

	obj = lsm_mem_alloc(mt, size, gfp);
	if (!obj)
		return NULL;
	if (lsm_mem_is_arena(mt)) {
		rec = obj;
	} else {
		struct lsm_mem_life *life = obj;

		life->pieces = 0;
		life->mt = mt;
		rec = &life->rec;
	}
	rec->key = ext->key;
	rec->len = ext->len;
	rec->seq = ext->seq;
	rec->flags = ext->flags;
	rec->vlen = ext->vlen;
	value = rec->value;
	if (lsm_mem_outval(mt, ext->vlen)) {
		value = lsm_mem_alloc(mt, ext->vlen, gfp);
		if (!value) {
			lsm_mem_free(mt, obj, size);
			return NULL;
		}
		rec->flags |= LSM_MEM_REC_OUTVAL;
		*(u8 **)rec->value = value;
	}
	if (ext->vlen)
		memcpy(value, ext->value, ext->vlen);
	return rec;
}

/**
 * lsm_mem_create() - make an empty memtable
 * @pool: the store's pool, which also says how records are allocated
 * @gfp:  allocation flags
 *
 * Context: Process context; may sleep if @gfp allows.
 * Return: the memtable, or NULL if memory ran out.
 */
struct lsm_memtable *lsm_mem_create(struct lsm_pool *pool, gfp_t gfp)
{
	struct lsm_memtable *mt = kzalloc(sizeof(*mt), gfp);

	if (!mt)
		return NULL;
	if (sl_em_init(&mt->em, gfp)) {
		kfree(mt);
		return NULL;
	}
	mt->pool = pool;
	mt->arena_kind = lsm_pool_kind(pool) == LSM_POOL_ARENA;
	lsm_arena_init(&mt->arena, pool);
	rwlock_init(&mt->lock);
	seqcount_rwlock_init(&mt->seq, &mt->lock);
	atomic_long_set(&mt->bytes, 0);
	init_llist_head(&mt->dead);
	return mt;
}
EXPORT_SYMBOL_GPL(lsm_mem_create);

/**
 * lsm_mem_destroy() - free a memtable and every record in it
 * @mt: the memtable, or NULL; no function may be called on it any more,
 *      but readers that found it earlier may still run
 *
 * Waits for those readers and for the records freed earlier.
 *
 * Context: Process context; sleeps (rcu_barrier()).
 */
void lsm_mem_destroy(struct lsm_memtable *mt)
{
	struct sl_em_cursor cur = SL_EM_CURSOR(0);
	struct sl_extent_info info;

	if (!mt)
		return;
	/* An arena's records go with it, below. */
	while (!lsm_mem_is_arena(mt) && sl_em_walk(&mt->em, &cur, &info))
		lsm_mem_piece_gone(mt, lsm_mem_rec_of(&info));
	lsm_mem_retire_flush(mt);
	sl_em_destroy(&mt->em);
	/* Readers are done once a grace period passes, and callbacks run. */
	synchronize_rcu();
	rcu_barrier();
	lsm_mem_reap(mt);
	lsm_arena_release(&mt->arena);
	WARN_ON_ONCE(atomic_long_read(&mt->bytes));
	kvfree(mt->old);
	kfree(mt);
}
EXPORT_SYMBOL_GPL(lsm_mem_destroy);

static int lsm_mem_ext_check(const struct lsm_extent *ext)
{
	if (!ext->len || lsm_last(ext->key, ext->len) < ext->key)
		return -EINVAL;
	if (ext->flags & ~LSM_EXT_FLAGS)
		return -EINVAL;
	if (ext->vlen > LSM_VALUE_MAX || (ext->vlen && !ext->value))
		return -EINVAL;
	if ((ext->flags & LSM_EXT_TOMBSTONE) && ext->vlen)
		return -EINVAL;
	return 0;
}

/* Room for @nr entries in the scratch list. */
static int lsm_mem_old_reserve(struct lsm_memtable *mt, unsigned int nr,
			       gfp_t gfp)
{
	struct lsm_mem_old *old;
	unsigned int cap;

	if (nr <= mt->old_cap)
		return 0;
	cap = max_t(unsigned int, 2 * mt->old_cap, 16);
	old = kvcalloc(cap, sizeof(*old), gfp);
	if (!old)
		return -ENOMEM;
	if (mt->old_cap)
		memcpy(old, mt->old, mt->old_cap * sizeof(*old));
	kvfree(mt->old);
	mt->old = old;
	mt->old_cap = cap;
	return 0;
}

/*
 * The pieces that overlap [@key, @last] now, into the scratch list; the
 * writer alone changes the map, so they stay as found until it does.
 * Returns how many, or -ENOMEM.
 */
static int lsm_mem_collect(struct lsm_memtable *mt, u64 key, u64 last,
			   gfp_t gfp)
{
	struct sl_extent_info info;
	unsigned int nr = 0;
	u64 pos = key;

	/*
	 * A search bounded by the range: for a point, a plain lookup, the
	 * cheapest the map has (the common put lands on nothing).
	 */
	while (!sl_em_first_overlap(&mt->em, pos, last - pos + 1, &info)) {
		if (lsm_mem_old_reserve(mt, nr + 1, gfp))
			return -ENOMEM;
		mt->old[nr].info = info;
		mt->old[nr].back = false;
		nr++;
		pos = info.start + info.len;
		if (!pos || pos > last)
			break;
	}
	return nr;
}

/* Whether @rec's disk range wraps past U64_MAX: then it is two pieces. */
static bool lsm_mem_rec_wraps(const struct lsm_mem_rec *rec)
{
	u64 disk = lsm_mem_disk(rec, rec->key);

	return disk + (rec->len - 1) < disk;
}

/* The whole of @rec as one piece of the map. */
static struct sl_extent_info lsm_mem_info(const struct lsm_mem_rec *rec)
{
	return (struct sl_extent_info){
		.start = rec->key,
		.len = rec->len,
		.disk_start = lsm_mem_disk(rec, rec->key),
		.flags = rec->flags & LSM_EXT_FLAGS,
	};
}

/*
 * The common put lands on nothing (a new key): try the insert alone,
 * before any lookup.  The map refuses a piece that overlaps one it holds
 * (-EEXIST) in the same descent that finds where the piece goes, so a
 * put over nothing costs one descent, no scratch list and no write
 * section: one insert is one step for readers, who see the memtable
 * before it or after it.  Adjacent pieces do not overlap, so a put next
 * to others stays here.  The next most common, a put over exactly one
 * piece (a key written again), is one replace, one step as well.  Any
 * error (-ENOENT: something else is there; -ENOMEM, which the slow path
 * retries) leaves the map as it was, for lsm_mem_replace().
 */
static int lsm_mem_add_fast(struct lsm_memtable *mt, struct lsm_mem_rec *rec,
			    gfp_t gfp)
{
	struct sl_extent_info info = lsm_mem_info(rec);
	struct sl_extent_info old;
	struct lsm_mem_rec *prev;
	int ret;

	lsm_mem_pieces_set(mt, rec, 1);
	ret = sl_em_add(&mt->em, &info, 0, gfp);
	if (ret != -EEXIST)
		return ret;
	/*
	 * An overwrite of exactly one piece (a point over a point): the new
	 * piece takes its place in one step.  Anything else is -ENOENT.
	 */
	ret = sl_em_replace(&mt->em, &info, &old, gfp);
	if (ret)
		return ret;
	prev = lsm_mem_rec_of(&old);
	lsm_mem_piece_gone(mt, prev);
	return 0;
}

/* Put @rec in the map: one piece, or two at the wrap point. */
static int lsm_mem_insert(struct lsm_memtable *mt, struct lsm_mem_rec *rec,
			  gfp_t gfp)
{
	struct sl_extent_info info = lsm_mem_info(rec);
	u64 wrap = 0 - (u64)(uintptr_t)rec;	/* the unit at disk 0 */
	int ret;

	if (!lsm_mem_rec_wraps(rec)) {
		lsm_mem_pieces_set(mt, rec, 1);
		return sl_em_add(&mt->em, &info, 0, gfp);
	}
	/* The disk range wraps: the unit @wrap lies inside the extent. */
	rec->flags |= LSM_MEM_REC_WRAPPED;
	info.len = wrap - rec->key;
	ret = sl_em_add(&mt->em, &info, 0, gfp);
	if (ret)
		return ret;
	info.start = wrap;
	info.len = lsm_last(rec->key, rec->len) - wrap + 1;
	info.disk_start = 0;
	ret = sl_em_add(&mt->em, &info, 0, gfp);
	if (ret) {
		WARN_ON_ONCE(sl_em_remove(&mt->em, rec->key));
		return ret;
	}
	lsm_mem_pieces_set(mt, rec, 2);
	return 0;
}

/*
 * After the punch of [@key, @last], the insert failed: put back what the
 * punch took, the old pieces clipped to the range.  They may be more
 * pieces than before (a trimmed piece comes back as a second piece of
 * its record); lsm_mem_account() counts them.
 */
static void lsm_mem_restore(struct lsm_memtable *mt, unsigned int nr,
			    u64 key, u64 last)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct sl_extent_info info = mt->old[i].info;
		u64 start = max(info.start, key);
		u64 end = min(lsm_last(info.start, info.len), last);

		info.disk_start += start - info.start;
		info.start = start;
		info.len = end - start + 1;
		mt->old[i].back = !sl_em_add(&mt->em, &info, 0,
					     GFP_ATOMIC | __GFP_NOWARN);
		if (!mt->old[i].back)
			pr_err_ratelimited("lsm: memtable lost [%llu, %llu] restoring after -ENOMEM\n",
					   (unsigned long long)start,
					   (unsigned long long)end);
	}
}

/*
 * The piece counts after a punch of [@key, @last] (and a restore, if
 * @restored): a piece inside the range went, one containing it with room
 * on both sides was split in two, one restored came back.
 */
static void lsm_mem_account(struct lsm_memtable *mt, unsigned int nr,
			    u64 key, u64 last, bool restored)
{
	unsigned int i;

	if (lsm_mem_is_arena(mt))
		return;
	for (i = 0; i < nr; i++) {
		const struct sl_extent_info *info = &mt->old[i].info;
		struct lsm_mem_rec *rec = lsm_mem_rec_of(info);
		struct lsm_mem_life *life = lsm_mem_life_of(rec);
		u64 info_last = lsm_last(info->start, info->len);

		if (info->start >= key && info_last <= last)
			life->pieces--;
		else if (info->start < key && info_last > last)
			life->pieces++;
		if (restored && mt->old[i].back)
			life->pieces++;
		if (!life->pieces)
			lsm_mem_rec_retire(mt, rec);
	}
}

/*
 * Take [@key, @last] out of the map, given the @nr pieces that overlap it
 * (the scratch list, in key order), as sl_em_drop_range() over the whole
 * range would, but cheaper: a piece inside the range goes with one
 * sl_em_remove() under the map's lock shared, and only a piece that sticks
 * out is punched.  The only step that can fail, cutting the tail off a
 * piece that goes on past @last, comes first; trimming a piece that
 * starts before @key and removing pieces cannot fail.  Inside the write
 * section, so readers see none of it before the insert.
 */
static int lsm_mem_punch(struct lsm_memtable *mt, unsigned int nr, u64 key,
			 u64 last, gfp_t gfp)
{
	const struct sl_extent_info *tail = &mt->old[nr - 1].info;
	u64 tail_last = lsm_last(tail->start, tail->len);
	unsigned int i;
	int ret;

	if (tail_last > last) {
		u64 from = max(tail->start, key);

		ret = sl_em_drop_range(&mt->em, from, last - from + 1, gfp);
		if (ret || tail->start < key)
			return ret;
		nr--;
	}
	for (i = 0; i < nr; i++) {
		const struct sl_extent_info *info = &mt->old[i].info;
		u64 info_last = lsm_last(info->start, info->len);

		if (info->start < key)
			ret = sl_em_drop_range(&mt->em, key, info_last - key + 1,
					       gfp);
		else
			ret = sl_em_remove(&mt->em, info->start);
		if (WARN_ON_ONCE(ret))
			return ret;
	}
	return 0;
}

/*
 * One try at the change, inside a write section: punch the range if
 * anything is there, insert the record, and on a failed insert restore
 * the punched pieces.  Allocations here never sleep.
 */
static int lsm_mem_replace(struct lsm_memtable *mt, struct lsm_mem_rec *rec,
			   unsigned int nr, gfp_t gfp)
{
	u64 last = lsm_last(rec->key, rec->len);
	int ret = 0;

	gfp = (gfp & ~__GFP_DIRECT_RECLAIM) | __GFP_NOWARN;
	write_lock_bh(&mt->lock);
	write_seqcount_begin(&mt->seq);
	if (nr)
		ret = lsm_mem_punch(mt, nr, rec->key, last, gfp);
	if (!ret) {
		ret = lsm_mem_insert(mt, rec, gfp);
		if (ret && nr)
			lsm_mem_restore(mt, nr, rec->key, last);
		if (nr)
			lsm_mem_account(mt, nr, rec->key, last, ret);
	}
	write_seqcount_end(&mt->seq);
	write_unlock_bh(&mt->lock);
	return ret;
}

/* Tries of a change whose non-blocking allocations failed. */
#define LSM_MEM_NOMEM_RETRIES	3

/**
 * lsm_mem_apply() - put an extent, or punch a range
 * @mt:  the memtable
 * @ext: the extent; its value is copied
 * @gfp: allocation flags for the record; the map's own allocations are
 *       made inside the write section and never sleep, but are tried
 *       again after memalloc_retry_wait() when @gfp allows sleeping
 *
 * Afterwards [key, key + len) shows @ext and nothing older of this
 * memtable; an older extent that sticks out stays visible there, trimmed.
 * Readers see the memtable before the call or after it.
 *
 * Context: Process context, or softirq with a @gfp that does not sleep.
 * The caller serializes calls on @mt (a second writer inside is a bug,
 * caught by a warning).
 * Return: 0; -EINVAL if @ext is malformed (len 0 or wrapping past
 * U64_MAX, unknown flags, a value longer than LSM_VALUE_MAX or missing,
 * a tombstone with a value); -EBUSY if another writer is inside (a bug
 * of the caller, also warned about); -ENOMEM, with the memtable as it was (but
 * see Documentation/lsm-memory.rst: if even the restore of the punched
 * pieces fails with GFP_ATOMIC, those pieces are lost, and said so in
 * the log).
 */
int lsm_mem_apply(struct lsm_memtable *mt, const struct lsm_extent *ext,
		  gfp_t gfp)
{
	struct lsm_mem_rec *rec;
	int ret, nr, tries = 0;

	ret = lsm_mem_ext_check(ext);
	if (ret)
		return ret;
	if (WARN_ON_ONCE(READ_ONCE(mt->applying)))
		return -EBUSY;
	WRITE_ONCE(mt->applying, true);
	lsm_mem_reap(mt);
	ret = -ENOMEM;
	rec = lsm_mem_rec_new(mt, ext, gfp);
	if (!rec)
		goto out;
	if (!lsm_mem_rec_wraps(rec)) {
		ret = lsm_mem_add_fast(mt, rec, gfp);
		if (!ret)
			goto out;
	}
	/* Something is there (or memory ran short): punch, then insert. */
	for (;;) {
		/* Again after a failed try: its restore may cut differently. */
		nr = lsm_mem_collect(mt, ext->key,
				     lsm_last(ext->key, ext->len), gfp);
		if (nr < 0) {
			ret = nr;
			goto out_free;
		}
		ret = lsm_mem_replace(mt, rec, nr, gfp);
		if (ret != -ENOMEM || !gfpflags_allow_blocking(gfp) ||
		    ++tries > LSM_MEM_NOMEM_RETRIES)
			break;
		memalloc_retry_wait(gfp);
	}
	if (!ret)
		goto out;
out_free:
	/*
	 * A reader may have found half of a wrapped record before the
	 * section took it back (and will retry): free it after them.
	 */
	lsm_mem_rec_retire(mt, rec);
out:
	WRITE_ONCE(mt->applying, false);
	return ret;
}
EXPORT_SYMBOL_GPL(lsm_mem_apply);

/*
 * A wrapped record's piece @out next to its wrap point: widen the window
 * over the record's other piece, if it is still there and touches it.
 * Inside the reader's section.
 */
static void lsm_mem_join_wrap(struct lsm_memtable *mt,
			      const struct lsm_mem_rec *rec,
			      struct lsm_piece *out)
{
	u64 wrap = 0 - (u64)(uintptr_t)rec;
	struct sl_extent_info info;

	if (out->start == wrap && wrap > rec->key &&
	    !sl_em_lookup(&mt->em, wrap - 1, &info) &&
	    lsm_mem_rec_of(&info) == rec) {
		out->len += out->start - info.start;
		out->start = info.start;
	} else if (lsm_last(out->start, out->len) == wrap - 1 &&
		   wrap - 1 < lsm_last(rec->key, rec->len) &&
		   !sl_em_lookup(&mt->em, wrap, &info) &&
		   lsm_mem_rec_of(&info) == rec) {
		out->len += info.len;
	}
}

/* Copy the piece @info and its record out; inside the reader's section. */
static void lsm_mem_copy(struct lsm_memtable *mt,
			 const struct sl_extent_info *info,
			 struct lsm_piece *out, void *vbuf, u32 vbuf_size)
{
	const struct lsm_mem_rec *rec = lsm_mem_rec_of(info);
	const u8 *value = lsm_mem_value(rec);

	out->start = info->start;
	out->len = info->len;
	if (rec->flags & LSM_MEM_REC_WRAPPED)
		lsm_mem_join_wrap(mt, rec, out);
	out->ext.key = rec->key;
	out->ext.len = rec->len;
	out->ext.seq = rec->seq;
	out->ext.flags = rec->flags & LSM_EXT_FLAGS;
	out->ext.vlen = rec->vlen;
	out->ext.value = value;
	if (vbuf) {
		memcpy(vbuf, value, min(rec->vlen, vbuf_size));
		out->ext.value = vbuf;
	}
}

/* lsm_mem_get() with !@next, lsm_mem_next() with it. */
static int lsm_mem_read(struct lsm_memtable *mt, u64 pos, bool next,
			struct lsm_piece *out, void *vbuf, u32 vbuf_size)
{
	struct sl_extent_info info;
	unsigned int seq;
	int ret;

	rcu_read_lock();
	do {
		seq = read_seqcount_begin(&mt->seq);
		if (next)
			ret = sl_em_next(&mt->em, pos, &info);
		else
			ret = sl_em_lookup(&mt->em, pos, &info);
		if (!ret)
			lsm_mem_copy(mt, &info, out, vbuf, vbuf_size);
	} while (read_seqcount_retry(&mt->seq, seq));
	rcu_read_unlock();
	return ret;
}

/**
 * lsm_mem_get() - the piece covering a unit
 * @mt:        the memtable
 * @k:         the unit
 * @out:       the piece (its visible window and its extent as put)
 * @vbuf:      where to copy the value, or NULL
 * @vbuf_size: bytes of @vbuf; a longer value is cut there, while
 *             @out->ext.vlen still says its full length
 *
 * Tombstones are returned like any piece.  With @vbuf, @out->ext.value
 * points to it; without, into the memtable, valid while the caller stays
 * in an RCU read-side section (or the memtable is immutable).
 *
 * Context: Any context but hardirq and NMI; takes rcu_read_lock(), never
 * a lock, and runs beside the writer.
 * Return: 0, or -ENOENT if no piece covers @k.
 */
int lsm_mem_get(struct lsm_memtable *mt, u64 k, struct lsm_piece *out,
		void *vbuf, u32 vbuf_size)
{
	return lsm_mem_read(mt, k, false, out, vbuf, vbuf_size);
}
EXPORT_SYMBOL_GPL(lsm_mem_get);

/**
 * lsm_mem_next() - the first piece that ends after a unit
 * @mt:        the memtable
 * @pos:       the unit
 * @out:       as lsm_mem_get()
 * @vbuf:      as lsm_mem_get()
 * @vbuf_size: as lsm_mem_get()
 *
 * The piece covering @pos, else the first one after it; to walk, go on
 * from the end of the window returned.
 *
 * Context: as lsm_mem_get().
 * Return: 0, or -ENOENT if no piece ends after @pos.
 */
int lsm_mem_next(struct lsm_memtable *mt, u64 pos, struct lsm_piece *out,
		 void *vbuf, u32 vbuf_size)
{
	return lsm_mem_read(mt, pos, true, out, vbuf, vbuf_size);
}
EXPORT_SYMBOL_GPL(lsm_mem_next);

/**
 * lsm_mem_pieces() - pieces in the memtable
 * @mt: the memtable
 *
 * A record that crosses the wrap of its address counts as two.
 *
 * Context: Any context but hardirq and NMI.
 * Return: the count, as of a moment between two changes of the map.
 */
u64 lsm_mem_pieces(struct lsm_memtable *mt)
{
	return sl_em_count(&mt->em);
}
EXPORT_SYMBOL_GPL(lsm_mem_pieces);

/**
 * lsm_mem_bytes() - memory the memtable holds
 * @mt: the memtable
 *
 * Its records as allocated (the size class, kmalloc's rounding, or the
 * arena's slabs whole), records freed but still waiting for a grace
 * period included, plus an estimate of the index: LSM_MEM_PIECE_BYTES
 * per piece.  The store switches memtables on this.
 *
 * Context: Any context but hardirq and NMI.
 * Return: the bytes.
 */
u64 lsm_mem_bytes(struct lsm_memtable *mt)
{
	return sizeof(*mt) + atomic_long_read(&mt->bytes) +
	       lsm_arena_bytes(&mt->arena) +
	       lsm_mem_pieces(mt) * LSM_MEM_PIECE_BYTES;
}
EXPORT_SYMBOL_GPL(lsm_mem_bytes);
