// SPDX-License-Identifier: GPL-2.0
/*
 * The in-memory test device (memdev.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include "memdev.h"
#include "record.h"

#define SECTOR		512
#define SECTORS		(LSM_BLOCK_SIZE / SECTOR)
#define HOLD_RING	64	/* releases ahead of the flushes they let go */

/* A block's content: shared, never changed after it is filled. */
struct mblock {
	int ref;
	u8 data[LSM_BLOCK_SIZE];
};

struct mevent {
	unsigned int kind;	/* MEMDEV_EV_* */
	u64 block;
	u32 nr;
	struct mblock **data;	/* nr blocks, for a write */
};

struct memdev {
	struct lsm_bdev bdev;
	pthread_mutex_t lock;
	struct mblock **cur;	/* what a reader sees; NULL reads as zero */
	bool record;
	struct mblock **base;	/* the content when recording started */
	struct mevent *ev;
	u64 nr_ev, cap_ev;
	u64 fail_after;		/* 0: never; else ops left + 1 */
	unsigned int io_how;	/* memdev_fail_io(): MEMDEV_IO_* */
	u64 io_skip, io_count, io_failed;
	u64 writes, flushes, reads;
	u64 *block_reads;	/* memdev_count_reads(): per block, or NULL */
	unsigned int flush_us;
	/* Held flushes (memdev_hold_flushes()), under @lock. */
	bool hold;
	unsigned int held;
	u64 hold_next, hold_go;	/* tickets handed out, let go */
	int hold_err[HOLD_RING];	/* result of ticket t at t % HOLD_RING */
	pthread_cond_t hold_cv;
};

struct pending {
	u64 block;
	struct mblock *mb;
	u64 ev;			/* event it came from */
};

struct memdev_replay {
	struct memdev *src;
	u64 pos;
	struct mblock **durable;
	struct pending *pend;
	u64 nr_pend, cap_pend;
};

static struct mblock *mb_get(struct mblock *mb)
{
	if (mb)
		__atomic_add_fetch(&mb->ref, 1, __ATOMIC_RELAXED);
	return mb;
}

static void mb_put(struct mblock *mb)
{
	if (mb && !__atomic_sub_fetch(&mb->ref, 1, __ATOMIC_ACQ_REL))
		free(mb);
}

static struct mblock *mb_new(const void *data)
{
	struct mblock *mb = malloc(sizeof(*mb));

	if (!mb)
		abort();
	mb->ref = 1;
	if (data)
		memcpy(mb->data, data, LSM_BLOCK_SIZE);
	else
		memset(mb->data, 0, LSM_BLOCK_SIZE);
	return mb;
}

static u64 rng_next(u64 *s)
{
	u64 x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/*
 * Whether memdev_fail_io() fails this operation of kind @kind
 * (MEMDEV_IO_*); with @md->lock.
 */
static bool md_inject(struct memdev *md, unsigned int kind)
{
	if (!(md->io_how & kind) || !md->io_count)
		return false;
	if (md->io_skip) {
		md->io_skip--;
		return false;
	}
	if (md->io_count != U64_MAX)
		md->io_count--;
	md->io_failed++;
	return true;
}

static int md_read(struct lsm_bdev *bdev, u64 block, void *buf, u32 nr)
{
	struct memdev *md = container_of(bdev, struct memdev, bdev);

	if (!nr || block >= bdev->nr_blocks || nr > bdev->nr_blocks - block)
		return -EINVAL;
	pthread_mutex_lock(&md->lock);
	md->reads++;
	for (u32 i = 0; md->block_reads && i < nr; i++)
		md->block_reads[block + i]++;
	if (md_inject(md, MEMDEV_IO_READ)) {
		pthread_mutex_unlock(&md->lock);
		return -EIO;
	}
	for (u32 i = 0; i < nr; i++) {
		struct mblock *mb = md->cur[block + i];
		u8 *to = (u8 *)buf + (size_t)i * LSM_BLOCK_SIZE;

		if (mb)
			memcpy(to, mb->data, LSM_BLOCK_SIZE);
		else
			memset(to, 0, LSM_BLOCK_SIZE);
	}
	pthread_mutex_unlock(&md->lock);
	return 0;
}

/* Whether the device has failed; counts one more operation. */
static bool md_failing(struct memdev *md)
{
	if (!md->fail_after)
		return false;
	if (md->fail_after == 1)
		return true;
	md->fail_after--;
	return false;
}

static void md_event(struct memdev *md, unsigned int kind, u64 block,
		     u32 nr, struct mblock **data)
{
	if (!md->record)
		return;
	if (md->nr_ev == md->cap_ev) {
		md->cap_ev = md->cap_ev ? 2 * md->cap_ev : 1024;
		md->ev = realloc(md->ev, md->cap_ev * sizeof(*md->ev));
		if (!md->ev)
			abort();
	}
	md->ev[md->nr_ev++] = (struct mevent){ kind, block, nr, data };
}

static int md_write(struct lsm_bdev *bdev, u64 block, const void *buf,
		    u32 nr, unsigned int flags, lsm_io_done_t done, void *priv)
{
	struct memdev *md = container_of(bdev, struct memdev, bdev);
	struct mblock **data;
	unsigned int kind = MEMDEV_EV_WRITE;
	int err = 0;

	if (!nr || block >= bdev->nr_blocks || nr > bdev->nr_blocks - block)
		return -EINVAL;
	pthread_mutex_lock(&md->lock);
	if (md_failing(md)) {
		err = -EIO;
		goto out;
	}
	if (md_inject(md, MEMDEV_IO_WRITE)) {
		err = -EIO;
		if (!(md->io_how & MEMDEV_IO_LANDS))
			goto out;
	}
	data = md->record ? calloc(nr, sizeof(*data)) : NULL;
	for (u32 i = 0; i < nr; i++) {
		struct mblock *mb = mb_new((const u8 *)buf +
					   (size_t)i * LSM_BLOCK_SIZE);

		mb_put(md->cur[block + i]);
		md->cur[block + i] = mb;
		if (data)
			data[i] = mb_get(mb);
	}
	if (flags & LSM_IO_PREFLUSH)
		kind |= MEMDEV_EV_FLUSH;
	if (flags & LSM_IO_FUA)
		kind |= MEMDEV_EV_FUA;
	md_event(md, kind, block, nr, data);
	md->writes++;
out:
	pthread_mutex_unlock(&md->lock);
	done(priv, err);
	return 0;
}

static int md_flush(struct lsm_bdev *bdev)
{
	struct memdev *md = container_of(bdev, struct memdev, bdev);
	unsigned int us = __atomic_load_n(&md->flush_us, __ATOMIC_RELAXED);
	int err = 0;

	if (us)
		usleep(us);	/* outside the lock: writes go on meanwhile */
	pthread_mutex_lock(&md->lock);
	if (md->hold) {
		u64 ticket = md->hold_next++;

		md->held++;
		pthread_cond_broadcast(&md->hold_cv);
		/* The wait drops the lock: writes go on meanwhile. */
		while (md->hold && md->hold_go <= ticket)
			pthread_cond_wait(&md->hold_cv, &md->lock);
		md->held--;
		if (md->hold_go > ticket)
			err = md->hold_err[ticket % HOLD_RING];
	}
	if (err) {
		/* Failed as the test said: nothing made durable. */
	} else if (md_failing(md)) {
		err = -EIO;
	} else {
		if (md_inject(md, MEMDEV_IO_FLUSH))
			err = -EIO;
		if (!err || (md->io_how & MEMDEV_IO_LANDS)) {
			md_event(md, MEMDEV_EV_FLUSH, 0, 0, NULL);
			md->flushes++;
		}
	}
	pthread_mutex_unlock(&md->lock);
	return err;
}

static void md_release(struct lsm_bdev *bdev)
{
}

static const struct lsm_bdev_ops memdev_ops = {
	.read = md_read,
	.write = md_write,
	.flush = md_flush,
	.release = md_release,
};

struct memdev *memdev_create(u64 nr_blocks, bool record)
{
	struct memdev *md = calloc(1, sizeof(*md));

	if (!md)
		abort();
	md->bdev.ops = &memdev_ops;
	md->bdev.nr_blocks = nr_blocks;
	md->bdev.name = "memdev";
	pthread_mutex_init(&md->lock, NULL);
	pthread_cond_init(&md->hold_cv, NULL);
	md->cur = calloc(nr_blocks, sizeof(*md->cur));
	if (!md->cur)
		abort();
	if (record)
		memdev_record(md);
	return md;
}

static void md_drop_trace(struct memdev *md)
{
	for (u64 i = 0; i < md->nr_ev; i++) {
		for (u32 j = 0; md->ev[i].data && j < md->ev[i].nr; j++)
			mb_put(md->ev[i].data[j]);
		free(md->ev[i].data);
	}
	free(md->ev);
	md->ev = NULL;
	md->nr_ev = md->cap_ev = 0;
	if (md->base) {
		for (u64 b = 0; b < md->bdev.nr_blocks; b++)
			mb_put(md->base[b]);
		free(md->base);
		md->base = NULL;
	}
}

void memdev_record(struct memdev *md)
{
	pthread_mutex_lock(&md->lock);
	md_drop_trace(md);
	md->record = true;
	md->base = calloc(md->bdev.nr_blocks, sizeof(*md->base));
	if (!md->base)
		abort();
	for (u64 b = 0; b < md->bdev.nr_blocks; b++)
		md->base[b] = mb_get(md->cur[b]);
	pthread_mutex_unlock(&md->lock);
}

void memdev_destroy(struct memdev *md)
{
	if (!md)
		return;
	md_drop_trace(md);
	for (u64 b = 0; b < md->bdev.nr_blocks; b++)
		mb_put(md->cur[b]);
	free(md->cur);
	free(md->block_reads);
	pthread_cond_destroy(&md->hold_cv);
	pthread_mutex_destroy(&md->lock);
	free(md);
}

struct lsm_bdev *memdev_bdev(struct memdev *md)
{
	return &md->bdev;
}

struct memdev *memdev_of(struct lsm_bdev *bdev)
{
	return container_of(bdev, struct memdev, bdev);
}

u64 memdev_events(struct memdev *md)
{
	u64 n;

	pthread_mutex_lock(&md->lock);
	n = md->nr_ev;
	pthread_mutex_unlock(&md->lock);
	return n;
}

unsigned int memdev_event_kind(struct memdev *md, u64 i)
{
	unsigned int kind;

	pthread_mutex_lock(&md->lock);
	kind = i < md->nr_ev ? md->ev[i].kind : 0;
	pthread_mutex_unlock(&md->lock);
	return kind;
}

void memdev_fail_after(struct memdev *md, u64 n)
{
	pthread_mutex_lock(&md->lock);
	md->fail_after = n + 1;
	pthread_mutex_unlock(&md->lock);
}

void memdev_fail_io(struct memdev *md, unsigned int how, u64 skip, u64 count)
{
	pthread_mutex_lock(&md->lock);
	md->io_how = how;
	md->io_skip = skip;
	md->io_count = count;
	pthread_mutex_unlock(&md->lock);
}

u64 memdev_io_failed(struct memdev *md)
{
	u64 n;

	pthread_mutex_lock(&md->lock);
	n = md->io_failed;
	pthread_mutex_unlock(&md->lock);
	return n;
}

void memdev_count_reads(struct memdev *md)
{
	pthread_mutex_lock(&md->lock);
	if (!md->block_reads)
		md->block_reads = calloc(md->bdev.nr_blocks,
					 sizeof(*md->block_reads));
	if (!md->block_reads)
		abort();
	pthread_mutex_unlock(&md->lock);
}

u64 memdev_block_reads(struct memdev *md, u64 block)
{
	u64 n;

	pthread_mutex_lock(&md->lock);
	n = md->block_reads && block < md->bdev.nr_blocks ?
	    md->block_reads[block] : 0;
	pthread_mutex_unlock(&md->lock);
	return n;
}

struct memdev *memdev_clone(struct memdev *md)
{
	struct memdev *c = memdev_create(md->bdev.nr_blocks, false);

	pthread_mutex_lock(&md->lock);
	for (u64 b = 0; b < md->bdev.nr_blocks; b++)
		c->cur[b] = mb_get(md->cur[b]);
	pthread_mutex_unlock(&md->lock);
	return c;
}

void memdev_flush_delay(struct memdev *md, unsigned int us)
{
	__atomic_store_n(&md->flush_us, us, __ATOMIC_RELAXED);
}

void memdev_hold_flushes(struct memdev *md, bool hold)
{
	pthread_mutex_lock(&md->lock);
	md->hold = hold;
	if (!hold)
		md->hold_go = md->hold_next;
	pthread_cond_broadcast(&md->hold_cv);
	pthread_mutex_unlock(&md->lock);
}

void memdev_wait_held(struct memdev *md, unsigned int n)
{
	pthread_mutex_lock(&md->lock);
	while (md->held < n)
		pthread_cond_wait(&md->hold_cv, &md->lock);
	pthread_mutex_unlock(&md->lock);
}

void memdev_release_flush(struct memdev *md, int err)
{
	pthread_mutex_lock(&md->lock);
	/* Results not yet read, of held flushes and of those to come. */
	if (md->held + (md->hold_go > md->hold_next ?
			md->hold_go - md->hold_next : 0) >= HOLD_RING - 1)
		abort();
	md->hold_err[md->hold_go % HOLD_RING] = err;
	md->hold_go++;
	pthread_cond_broadcast(&md->hold_cv);
	pthread_mutex_unlock(&md->lock);
}

u64 memdev_writes(struct memdev *md)
{
	return __atomic_load_n(&md->writes, __ATOMIC_RELAXED);
}

u64 memdev_flushes(struct memdev *md)
{
	return __atomic_load_n(&md->flushes, __ATOMIC_RELAXED);
}

u64 memdev_reads(struct memdev *md)
{
	return __atomic_load_n(&md->reads, __ATOMIC_RELAXED);
}

struct memdev_replay *memdev_replay_start(struct memdev *md)
{
	struct memdev_replay *r = calloc(1, sizeof(*r));
	u64 nr = md->bdev.nr_blocks;

	if (!r || !md->record)
		abort();
	r->src = md;
	r->durable = calloc(nr, sizeof(*r->durable));
	if (!r->durable)
		abort();
	for (u64 b = 0; b < nr; b++)
		r->durable[b] = mb_get(md->base[b]);
	return r;
}

static void replay_flush(struct memdev_replay *r)
{
	for (u64 i = 0; i < r->nr_pend; i++) {
		mb_put(r->durable[r->pend[i].block]);
		r->durable[r->pend[i].block] = r->pend[i].mb;
	}
	r->nr_pend = 0;
}

/* A FUA write supersedes what is pending for its blocks. */
static void replay_supersede(struct memdev_replay *r, u64 block, u32 nr)
{
	u64 keep = 0;

	for (u64 i = 0; i < r->nr_pend; i++) {
		if (r->pend[i].block >= block && r->pend[i].block < block + nr)
			mb_put(r->pend[i].mb);
		else
			r->pend[keep++] = r->pend[i];
	}
	r->nr_pend = keep;
}

void memdev_replay_advance(struct memdev_replay *r, u64 to)
{
	struct memdev *md = r->src;

	pthread_mutex_lock(&md->lock);
	if (to > md->nr_ev)
		to = md->nr_ev;
	for (; r->pos < to; r->pos++) {
		struct mevent *e = &md->ev[r->pos];

		if (e->kind & MEMDEV_EV_FLUSH)
			replay_flush(r);
		if (!(e->kind & MEMDEV_EV_WRITE))
			continue;
		if (e->kind & MEMDEV_EV_FUA) {
			replay_supersede(r, e->block, e->nr);
			for (u32 j = 0; j < e->nr; j++) {
				mb_put(r->durable[e->block + j]);
				r->durable[e->block + j] = mb_get(e->data[j]);
			}
			continue;
		}
		for (u32 j = 0; j < e->nr; j++) {
			if (r->nr_pend == r->cap_pend) {
				r->cap_pend = r->cap_pend ? 2 * r->cap_pend : 256;
				r->pend = realloc(r->pend, r->cap_pend *
						  sizeof(*r->pend));
				if (!r->pend)
					abort();
			}
			r->pend[r->nr_pend++] = (struct pending){
				e->block + j, mb_get(e->data[j]), r->pos };
		}
	}
	pthread_mutex_unlock(&md->lock);
}

/* The first @sectors sectors of @new over @old: a torn block. */
static struct mblock *torn(struct mblock *old, struct mblock *new,
			   unsigned int sectors)
{
	struct mblock *mb = mb_new(old ? old->data : NULL);

	memcpy(mb->data, new->data, (size_t)sectors * SECTOR);
	return mb;
}

struct memdev *memdev_replay_cut(struct memdev_replay *r, enum memdev_cut how,
				 u64 seed)
{
	struct memdev *src = r->src;
	u64 nr = src->bdev.nr_blocks;
	struct memdev *md = memdev_create(nr, false);
	u64 rng = seed * 0x9e3779b97f4a7c15ull + 1;
	struct mevent *inflight = NULL;

	for (u64 b = 0; b < nr; b++)
		md->cur[b] = mb_get(r->durable[b]);
	pthread_mutex_lock(&src->lock);
	if (r->pos < src->nr_ev && (src->ev[r->pos].kind & MEMDEV_EV_WRITE))
		inflight = &src->ev[r->pos];
	if (how != MEMDEV_DROP_ALL) {
		for (u64 i = 0; i < r->nr_pend; i++) {
			if (rng_next(&rng) & 1) {
				mb_put(md->cur[r->pend[i].block]);
				md->cur[r->pend[i].block] = mb_get(r->pend[i].mb);
			}
		}
	}
	if (how == MEMDEV_TEAR && (inflight || r->nr_pend)) {
		u64 block;
		struct mblock *new;
		unsigned int sectors = 1 + rng_next(&rng) % (SECTORS - 1);

		/* A PREFLUSH write never starts before its flush is done. */
		if (inflight && !(inflight->kind & MEMDEV_EV_FLUSH)) {
			u32 j = rng_next(&rng) % inflight->nr;

			block = inflight->block + j;
			new = inflight->data[j];
		} else if (inflight) {
			/* Its flush completed: what was pending stays. */
			for (u64 i = 0; i < r->nr_pend; i++) {
				mb_put(md->cur[r->pend[i].block]);
				md->cur[r->pend[i].block] = mb_get(r->pend[i].mb);
			}
			block = inflight->block;
			new = inflight->data[0];
		} else {
			u64 i = rng_next(&rng) % r->nr_pend;

			block = r->pend[i].block;
			new = r->pend[i].mb;
		}
		{
			struct mblock *mb = torn(md->cur[block], new, sectors);

			mb_put(md->cur[block]);
			md->cur[block] = mb;
		}
	}
	pthread_mutex_unlock(&src->lock);
	return md;
}

void memdev_replay_end(struct memdev_replay *r)
{
	for (u64 b = 0; b < r->src->bdev.nr_blocks; b++)
		mb_put(r->durable[b]);
	for (u64 i = 0; i < r->nr_pend; i++)
		mb_put(r->pend[i].mb);
	free(r->pend);
	free(r->durable);
	free(r);
}

struct memdev *memdev_power_cut(struct memdev *md, enum memdev_cut how,
				u64 seed)
{
	struct memdev_replay *r = memdev_replay_start(md);
	struct memdev *out;

	memdev_replay_advance(r, memdev_events(md));
	out = memdev_replay_cut(r, how, seed);
	memdev_replay_end(r);
	return out;
}
