// SPDX-License-Identifier: GPL-2.0
/*
 * Sorted runs (lsm/run.c) and their filter (lsm/bloom.c), against a model:
 *
 * - runs of random non-overlapping pieces (points, short and long pieces,
 *   trimmed windows, values of 0 to 64 KiB, tombstones, the ends of the
 *   key space) read back with get and next at every piece boundary and
 *   at random keys, on a device that completes writes at once or later
 *   from another thread (copying the buffer only then, so a writer that
 *   reuses a buffer too early is caught);
 * - the exact size: lsm_run_size() is the number of blocks written, each
 *   once, nothing outside the extent;
 * - every block of a run damaged in turn (a bit flipped, zeroed, another
 *   block of the run in its place, the same block of another run, a block
 *   of another store), and every block's read failing: open and lookups
 *   give -EUCLEAN or -EIO, never a wrong piece or value;
 * - the cursor (lsm_run_iter_*): whole walks across every block boundary
 *   (each data block read exactly once), seeks forward and back around
 *   every piece boundary with steps into the next block, values inline
 *   and in value blocks; on a damaged run it fails and keeps failing,
 *   never a wrong piece or value;
 * - bad sources, sources that change between the passes, failing writes
 *   and failing allocations;
 * - the filter (units of short pieces) and the exact list of long ones:
 *   no false negative, and the false-positive rate for points and for
 *   gaps between pieces of mixed lengths, bytes on disk per piece and
 *   blocks read per lookup, measured from the device's counters and
 *   printed (Documentation/lsm-runs.rst, "Measured", quotes them).
 *
 * - the same with the store's block cache (lsm/block_cache.c) under the
 *   runs: none, one of three blocks (every few reads evict) and a large
 *   one; a walk reads each data block once from the device or the cache,
 *   and whatever the cache held of a damaged run's blocks, nothing wrong
 *   comes back; readers on four threads share a three-block cache while
 *   a fifth thread shrinks it, as reclaim would.
 *
 * Options: --seed N (default: the time), --big (longer runs).
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <asm/byteorder.h>
#include <linux/rcupdate.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include "block.h"
#include "block_cache.h"
#include "bloom.h"
#include "run.h"

#define EXPECT(cond) do { if (!(cond)) { \
	fprintf(stderr, "test_run: %s:%d: %s (seed %llu)\n", __FILE__, \
		__LINE__, #cond, (unsigned long long)seed); \
	exit(1); } } while (0)

static u64 seed;
static u64 rng_state;

/* The block cache the runs of the current test go through, or NULL. */
static struct lsm_block_cache *cache;
/* Three blocks (a page and some 64 bytes each): eviction at once. */
#define TINY_CACHE	(4 * 4096)

static u64 rnd(void)
{
	u64 x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, n), n > 0. */
static u64 rnd_below(u64 n)
{
	return rnd() % n;
}

/* --- A device in memory --- */

struct pending_write {
	u64 block;
	const void *buf;
	u32 nr;
	lsm_io_done_t done;
	void *priv;
	int err;
};

/**
 * struct tdev - the test's device
 * @bdev:         what run.c sees
 * @mem:          the blocks
 * @writes:       times each block was written
 * @reads:        blocks read, all threads
 * @read_calls:   reads
 * @fail_read:    a read that includes this block fails (-1: none)
 * @fail_write:   a write that includes this block completes with -EIO
 * @fail_submit:  the write of this number (1: the next) is refused
 * @async:        complete writes from the completer thread, later
 */
struct tdev {
	struct lsm_bdev bdev;
	u8 *mem;
	u32 *writes;
	u64 reads;
	u64 read_calls;
	s64 fail_read;
	s64 fail_write;
	long fail_submit;
	bool async;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct pending_write queue[64];
	unsigned int queued;
	bool stop;
	pthread_t completer;
};

static struct tdev *tdev_of(struct lsm_bdev *bdev)
{
	return container_of(bdev, struct tdev, bdev);
}

static int tdev_read(struct lsm_bdev *bdev, u64 block, void *buf, u32 nr)
{
	struct tdev *d = tdev_of(bdev);

	EXPECT(nr && block + nr <= bdev->nr_blocks);
	__atomic_fetch_add(&d->reads, nr, __ATOMIC_RELAXED);
	__atomic_fetch_add(&d->read_calls, 1, __ATOMIC_RELAXED);
	if (d->fail_read >= 0 && (u64)d->fail_read >= block &&
	    (u64)d->fail_read < block + nr)
		return -EIO;
	memcpy(buf, d->mem + block * LSM_BLOCK_SIZE, (size_t)nr * LSM_BLOCK_SIZE);
	return 0;
}

/* Complete a write: only now is its buffer copied to the device. */
static void tdev_complete(struct tdev *d, struct pending_write *w)
{
	u32 i;

	memcpy(d->mem + w->block * LSM_BLOCK_SIZE, w->buf,
	       (size_t)w->nr * LSM_BLOCK_SIZE);
	for (i = 0; i < w->nr; i++)
		d->writes[w->block + i]++;
	if (d->fail_write >= 0 && (u64)d->fail_write >= w->block &&
	    (u64)d->fail_write < w->block + w->nr)
		w->err = -EIO;
	w->done(w->priv, w->err);
}

static void *tdev_completer(void *arg)
{
	struct tdev *d = arg;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		struct pending_write w;

		while (!d->queued && !d->stop)
			pthread_cond_wait(&d->cond, &d->lock);
		if (!d->queued)
			break;
		w = d->queue[0];
		memmove(d->queue, d->queue + 1, --d->queued * sizeof(w));
		pthread_mutex_unlock(&d->lock);
		sched_yield();
		tdev_complete(d, &w);
		pthread_mutex_lock(&d->lock);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

static int tdev_write(struct lsm_bdev *bdev, u64 block, const void *buf,
		      u32 nr, unsigned int flags, lsm_io_done_t done,
		      void *priv)
{
	struct tdev *d = tdev_of(bdev);
	struct pending_write w = {
		.block = block, .buf = buf, .nr = nr, .done = done,
		.priv = priv,
	};

	EXPECT(nr && block + nr <= bdev->nr_blocks);
	EXPECT(flags == 0);	/* a run is written plainly, flushed by its caller */
	if (d->fail_submit > 0 && --d->fail_submit == 0)
		return -EIO;
	if (!d->async) {
		tdev_complete(d, &w);
		return 0;
	}
	pthread_mutex_lock(&d->lock);
	EXPECT(d->queued < ARRAY_SIZE(d->queue));
	d->queue[d->queued++] = w;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
	return 0;
}

static int tdev_flush(struct lsm_bdev *bdev)
{
	return 0;
}

static const struct lsm_bdev_ops tdev_ops = {
	.read = tdev_read,
	.write = tdev_write,
	.flush = tdev_flush,
};

static void tdev_init(struct tdev *d, u64 nr_blocks, bool async)
{
	memset(d, 0, sizeof(*d));
	d->bdev.ops = &tdev_ops;
	d->bdev.nr_blocks = nr_blocks;
	d->bdev.name = "testdev";
	d->mem = malloc(nr_blocks * LSM_BLOCK_SIZE);
	d->writes = calloc(nr_blocks, sizeof(*d->writes));
	EXPECT(d->mem && d->writes);
	/* Not zero: a block the run does not write does not look empty. */
	memset(d->mem, 0xa5, nr_blocks * LSM_BLOCK_SIZE);
	d->fail_read = -1;
	d->fail_write = -1;
	d->async = async;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	if (async)
		EXPECT(!pthread_create(&d->completer, NULL, tdev_completer, d));
}

static void tdev_destroy(struct tdev *d)
{
	if (d->async) {
		pthread_mutex_lock(&d->lock);
		d->stop = true;
		pthread_cond_signal(&d->cond);
		pthread_mutex_unlock(&d->lock);
		pthread_join(d->completer, NULL);
	}
	free(d->mem);
	free(d->writes);
}

/* --- Piece sets and their model --- */

struct piece_set {
	struct lsm_piece *p;
	u64 n;
	u64 at;			/* the source's position */
	u64 limit;		/* the source gives this many (a changed source) */
};

static int set_next(void *priv, struct lsm_piece *out)
{
	struct piece_set *s = priv;

	if (s->at >= s->limit)
		return -ENOENT;
	*out = s->p[s->at++];
	return 0;
}

static void set_rewind(void *priv)
{
	((struct piece_set *)priv)->at = 0;
}

static struct lsm_run_source set_source(struct piece_set *s)
{
	s->limit = s->n;
	return (struct lsm_run_source){
		.next = set_next, .rewind = set_rewind, .priv = s,
	};
}

/* The byte a value holds at @i: from its extent, so a mix-up shows. */
static u8 value_byte(const struct lsm_extent *e, u32 i)
{
	return (u8)((e->key * 31 + e->seq * 7 + i * 13 + (i >> 8)) ^ e->vlen);
}

static u32 random_vlen(void)
{
	switch (rnd_below(10)) {
	case 0:
		return 0;
	case 1:	/* around the largest inline value */
		return 3990 + rnd_below(60);
	case 2:
		return rnd_below(LSM_VALUE_MAX + 1);
	case 3:
		return rnd_below(4) ? rnd_below(9000) : LSM_VALUE_MAX;
	default:
		return rnd_below(300);
	}
}

/* A length for a piece: mostly points, some short, some long, a few huge. */
static u64 random_len(void)
{
	u64 r = rnd_below(100);

	if (r < 60)
		return 1;
	if (r < 80)
		return 2 + rnd_below(7);
	if (r < 95)
		return 9 + rnd_below(5000);
	return 1 + (rnd() >> (20 + rnd_below(30)));
}

/*
 * @n random pieces, in order and apart, starting near @base; values are
 * allocated and filled.  A piece may reach U64_MAX (the set then ends).
 */
static void make_set(struct piece_set *s, u64 n, u64 base, unsigned int tomb_pct)
{
	u64 pos = base, i;

	s->p = calloc(n, sizeof(*s->p));
	EXPECT(s->p);
	for (i = 0; i < n; i++) {
		struct lsm_piece *p = &s->p[i];
		u64 len = random_len(), room, before, after;
		u8 *v;
		u32 j;

		if (i) {
			if (pos == U64_MAX)
				break;
			pos++;		/* past the last piece */
			if (rnd_below(3))
				pos += rnd_below(4) ? rnd_below(20) :
					rnd() >> rnd_below(64);
			if (pos < s->p[i - 1].start)
				break;	/* wrapped: end here */
		}
		room = U64_MAX - pos;
		if (len - 1 > room)
			len = room + 1;
		if (i == n - 1 && rnd_below(4) == 0 && room < (1ULL << 50))
			len = room + 1;		/* reach the top of the key space */
		p->start = pos;
		p->len = len;
		/* Trim some: the extent reaches out on either side. */
		before = after = 0;
		if (rnd_below(4) == 0) {
			before = min_t(u64, pos, rnd_below(4) ? rnd_below(50) : rnd());
			after = min_t(u64, U64_MAX - lsm_last(pos, len) - before,
				      rnd_below(50));
			after = min_t(u64, after, U64_MAX - lsm_last(pos, len));
		}
		p->ext.key = pos - before;
		p->ext.len = before + len + after;
		if (p->ext.len == 0)	/* the whole key space: keep it short */
			p->ext.len = before + len;
		p->ext.seq = rnd() >> 8;
		if (rnd_below(100) < tomb_pct) {
			p->ext.flags = LSM_EXT_TOMBSTONE;
		} else {
			p->ext.vlen = random_vlen();
			v = malloc(p->ext.vlen + 1);
			EXPECT(v);
			for (j = 0; j < p->ext.vlen; j++)
				v[j] = value_byte(&p->ext, j);
			p->ext.value = v;
		}
		pos = lsm_last(pos, len);
	}
	s->n = i;
}

static void free_set(struct piece_set *s)
{
	u64 i;

	for (i = 0; i < s->n; i++)
		free((void *)s->p[i].ext.value);
	free(s->p);
}

/* The model: the first piece ending at or after @k, or n. */
static u64 model_next(const struct piece_set *s, u64 k)
{
	u64 lo = 0, hi = s->n;

	while (lo < hi) {
		u64 mid = lo + (hi - lo) / 2;

		if (lsm_last(s->p[mid].start, s->p[mid].len) < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static u8 vbuf[LSM_VALUE_MAX + 64];

/* A piece as read equals the model's, value included (as far as copied). */
static void expect_piece(const struct lsm_piece *got, const struct lsm_piece *want,
			 u32 vbuf_size, const u8 *buf)
{
	u32 j;

	EXPECT(got->start == want->start && got->len == want->len);
	EXPECT(got->ext.key == want->ext.key && got->ext.len == want->ext.len);
	EXPECT(got->ext.seq == want->ext.seq && got->ext.flags == want->ext.flags);
	EXPECT(got->ext.vlen == want->ext.vlen);
	EXPECT(got->ext.value == buf);
	for (j = 0; j < min(vbuf_size, want->ext.vlen); j++)
		EXPECT(buf[j] == value_byte(&want->ext, j));
	/* Nothing past what the caller allowed. */
	if (vbuf_size < sizeof(vbuf))
		EXPECT(buf[vbuf_size] == 0xee);
}

static u32 random_vbuf_size(void)
{
	switch (rnd_below(8)) {
	case 0:
		return 0;
	case 1:
		return rnd_below(5000);
	default:
		return LSM_VALUE_MAX;
	}
}

/*
 * get and next at @k against the model.  With @damaged, an error of
 * -EUCLEAN or -EIO is allowed (counted in *@errors), a wrong answer never.
 */
static void check_key(struct lsm_run *run, const struct piece_set *s, u64 k,
		      bool damaged, u64 *errors)
{
	u64 i = model_next(s, k);
	bool covered = i < s->n && s->p[i].start <= k;
	/* Damaged, get reads the whole value, so every value block is read. */
	u32 vsize = damaged ? LSM_VALUE_MAX : random_vbuf_size();
	struct lsm_piece got;
	int err;

	memset(vbuf, 0xee, sizeof(vbuf));
	err = lsm_run_get(run, k, &got, vbuf, vsize);
	if (damaged && (err == -EUCLEAN || err == -EIO)) {
		(*errors)++;
	} else if (covered) {
		EXPECT(err == 0);
		expect_piece(&got, &s->p[i], vsize, vbuf);
	} else {
		EXPECT(err == -ENOENT);
	}

	vsize = random_vbuf_size();
	memset(vbuf, 0xee, sizeof(vbuf));
	err = lsm_run_next(run, k, &got, vbuf, vsize);
	if (damaged && (err == -EUCLEAN || err == -EIO)) {
		(*errors)++;
	} else if (i < s->n) {
		EXPECT(err == 0);
		expect_piece(&got, &s->p[i], vsize, vbuf);
	} else {
		EXPECT(err == -ENOENT);
	}
}

/* Every boundary of every piece, and a few keys inside and between. */
static void check_run(struct lsm_run *run, const struct piece_set *s,
		      bool damaged, u64 *errors)
{
	u64 i;

	check_key(run, s, 0, damaged, errors);
	check_key(run, s, U64_MAX, damaged, errors);
	/* Damaged, every block is still reached: by each piece's start. */
	for (i = 0; damaged && i < s->n; i++)
		check_key(run, s, s->p[i].start, damaged, errors);
	for (i = 0; !damaged && i < s->n; i++) {
		u64 start = s->p[i].start, last = lsm_last(start, s->p[i].len);

		if (start)
			check_key(run, s, start - 1, damaged, errors);
		check_key(run, s, start, damaged, errors);
		if (last != start) {
			check_key(run, s, start + 1, damaged, errors);
			check_key(run, s, last - 1, damaged, errors);
			check_key(run, s, start + rnd_below(last - start), damaged, errors);
			check_key(run, s, last, damaged, errors);
		}
		if (last != U64_MAX)
			check_key(run, s, last + 1, damaged, errors);
		if (!damaged && i + 1 < s->n && s->p[i + 1].start - last > 2)
			check_key(run, s, last + 1 +
				  rnd_below(s->p[i + 1].start - last - 1),
				  damaged, errors);
	}
}

/* --- The cursor (lsm_run_iter_*) --- */

/* Data blocks of a run as written on @d: what a walk must read, once each. */
static u64 data_blocks(const struct tdev *d, const struct lsm_run_info *info)
{
	u64 b, n = 0;

	for (b = info->first_block; b < info->first_block + info->nr_blocks; b++)
		n += le16_to_cpu(((const struct lsm_block_header *)
				  (d->mem + b * LSM_BLOCK_SIZE))->type) ==
		     LSM_BT_RUN_DATA;
	return n;
}

/*
 * The cursor's piece is the model's @i: its start before the block is
 * read, then the piece and (as far as @vsize takes) its value.
 */
static int expect_cursor(struct lsm_run_iter *it, const struct piece_set *s,
			 u64 i, u32 vsize)
{
	struct lsm_piece got;
	int err;

	EXPECT(i < s->n);
	EXPECT(lsm_run_iter_start(it) == s->p[i].start);
	err = lsm_run_iter_piece(it, &got);
	if (err)
		return err;
	EXPECT(got.ext.value == NULL);
	got.ext.value = vbuf;
	memset(vbuf, 0xee, sizeof(vbuf));
	err = lsm_run_iter_value(it, vbuf, vsize);
	if (!err)
		expect_piece(&got, &s->p[i], vsize, vbuf);
	return err;
}

/* A damaged run's cursor fails with -EUCLEAN or -EIO, and keeps failing. */
static bool cursor_failed(struct lsm_run_iter *it, int err, u64 *errors)
{
	struct lsm_piece got;

	if (err != -EUCLEAN && err != -EIO)
		return false;
	EXPECT(lsm_run_iter_seek(it, 0) == err);
	EXPECT(lsm_run_iter_next(it) == err);
	EXPECT(lsm_run_iter_piece(it, &got) == err);
	(*errors)++;
	return true;
}

/* The cache's counters, all zero without one. */
static struct lsm_block_cache_stats cache_stats(void)
{
	struct lsm_block_cache_stats cs = { 0 };

	if (cache) {
		lsm_block_cache_stats(cache, &cs);
		/* Never more than its bound, whatever the test did. */
		EXPECT(cs.bytes <= cs.capacity);
	}
	return cs;
}

/*
 * Walk the whole run with one cursor, piece by piece across every block
 * boundary, and then seek it back and forth to piece boundaries, against
 * the model.  Undamaged, the walk without values takes each data block
 * exactly once: from the cache or with one read.  Damaged, the cursor
 * may fail (counted in *@errors) but never gives a wrong piece or value.
 */
static void check_cursor(struct tdev *d, struct lsm_run *run,
			 const struct lsm_run_info *info,
			 const struct piece_set *s, bool damaged, u64 *errors)
{
	struct lsm_run_iter *it = lsm_run_iter_create(run);
	struct lsm_block_cache_stats c0, c1;
	struct lsm_piece got;
	u64 i, reads, k, n;
	int err;

	EXPECT(it);
	/* A walk of pieces alone: every data block read once. */
	c0 = cache_stats();
	reads = d->reads;
	err = lsm_run_iter_seek(it, 0);
	for (i = 0; !err; i++) {
		EXPECT(i < s->n);
		EXPECT(lsm_run_iter_start(it) == s->p[i].start);
		err = lsm_run_iter_piece(it, &got);
		if (err)
			break;
		EXPECT(got.start == s->p[i].start && got.len == s->p[i].len &&
		       got.ext.seq == s->p[i].ext.seq);
		err = lsm_run_iter_next(it);
	}
	if (damaged && cursor_failed(it, err, errors))
		goto out;
	EXPECT(err == -ENOENT && i == s->n);
	/*
	 * Each data block once: a hit, or a miss and one read.  (Damaged, a
	 * block in another's place miscounts the data blocks.)
	 */
	c1 = cache_stats();
	EXPECT(damaged || d->reads - reads == (cache ? c1.misses - c0.misses :
					       data_blocks(d, info)));
	EXPECT(damaged || !cache || c1.hits - c0.hits + c1.misses - c0.misses ==
	       data_blocks(d, info));
	/* Past the end it stays there. */
	EXPECT(lsm_run_iter_next(it) == -ENOENT);

	/* A walk with values, from a random first seek. */
	k = rnd_below(2) ? 0 : s->p[0].start;
	err = lsm_run_iter_seek(it, k);
	for (i = 0; !err; i++) {
		/* Damaged, whole values: every value block is read. */
		err = expect_cursor(it, s, i, damaged ? LSM_VALUE_MAX :
					      random_vbuf_size());
		if (!err)
			err = lsm_run_iter_next(it);
	}
	if (damaged && cursor_failed(it, err, errors))
		goto out;
	EXPECT(err == -ENOENT && i == s->n);

	/* Seeks forward and back: around each boundary, then at random. */
	for (n = 0; n < 4 * s->n + 8; n++) {
		i = rnd_below(s->n);
		switch (rnd_below(5)) {
		case 0:
			k = s->p[i].start ? s->p[i].start - 1 : 0;
			break;
		case 1:
			k = s->p[i].start;
			break;
		case 2:
			k = lsm_last(s->p[i].start, s->p[i].len);
			break;
		case 3:
			k = lsm_last(s->p[i].start, s->p[i].len);
			k += k != U64_MAX;
			break;
		default:
			k = rnd_below(2) ? rnd() : s->p[i].start +
				rnd_below(s->p[i].len);
		}
		i = model_next(s, k);
		err = lsm_run_iter_seek(it, k);
		if (damaged && cursor_failed(it, err, errors))
			goto out;
		if (i == s->n) {
			EXPECT(err == -ENOENT);
			continue;
		}
		EXPECT(err == 0);
		err = expect_cursor(it, s, i, random_vbuf_size());
		if (damaged && cursor_failed(it, err, errors))
			goto out;
		EXPECT(err == 0);
		/* And on to the next piece, sometimes into the next block. */
		if (rnd_below(2)) {
			err = lsm_run_iter_next(it);
			if (damaged && cursor_failed(it, err, errors))
				goto out;
			if (i + 1 == s->n) {
				EXPECT(err == -ENOENT);
				continue;
			}
			EXPECT(err == 0);
			err = expect_cursor(it, s, i + 1, random_vbuf_size());
			if (damaged && cursor_failed(it, err, errors))
				goto out;
			EXPECT(err == 0);
		}
	}
out:
	lsm_run_iter_destroy(it);
}

/* Write @s as run @id at @first; the run's info back.  Returns the error. */
static int write_run(struct tdev *d, u64 store_id, struct piece_set *s,
		     u64 id, u64 first, struct lsm_run_info *info)
{
	struct lsm_run_source src = set_source(s);
	int err;

	memset(info, 0, sizeof(*info));
	info->id = id;
	info->first_block = first;
	err = lsm_run_size(&src, &info->nr_blocks);
	if (err)
		return err;
	EXPECT(first + info->nr_blocks <= d->bdev.nr_blocks);
	return lsm_run_write(&d->bdev, store_id, &src, info);
}

static const u64 store = 0x5eed5eed12345678ULL;

/* --- The tests --- */

/* Random sets read back against the model; the size exact. */
static void test_roundtrip(unsigned int rounds, u64 max_pieces)
{
	unsigned int r;

	for (r = 0; r < rounds; r++) {
		struct piece_set s;
		struct lsm_run_info info;
		struct lsm_run *run;
		struct tdev d;
		u64 first = 1 + rnd_below(5), b, errors = 0, pieces;
		u64 base;

		switch (r % 4) {
		case 0:
			base = 0;
			break;
		case 1:
			base = U64_MAX - rnd_below(1ULL << 40);
			break;
		default:
			base = rnd() >> rnd_below(64);
		}
		pieces = 1 + rnd_below(max_pieces);
		make_set(&s, pieces, base, 10);
		tdev_init(&d, 8 + 2 * pieces + pieces * 20, r % 2);

		EXPECT(write_run(&d, store, &s, 100 + r, first, &info) == 0);
		EXPECT(info.nr_pieces == s.n);
		EXPECT(info.first_key == s.p[0].start);
		EXPECT(info.last_key == lsm_last(s.p[s.n - 1].start, s.p[s.n - 1].len));
		/* Exactly its extent, every block of it once. */
		for (b = 0; b < d.bdev.nr_blocks; b++)
			EXPECT(d.writes[b] == (b >= first && b < first + info.nr_blocks));

		/* No cache, one that evicts every few reads, a large one. */
		switch (r % 3) {
		case 0:
			cache = NULL;
			break;
		case 1:
			cache = lsm_block_cache_create(TINY_CACHE, "tiny");
			break;
		default:
			cache = lsm_block_cache_create(1 << 20, "large");
		}
		EXPECT(r % 3 == 0 || cache);
		EXPECT(lsm_run_open(&d.bdev, store, &info, cache, &run) == 0);
		check_run(run, &s, false, &errors);
		check_cursor(&d, run, &info, &s, false, &errors);
		/* Twice: now from what the cache kept. */
		if (cache)
			check_run(run, &s, false, &errors);
		lsm_run_close(run);
		/* A closed run's blocks leave the cache at once. */
		EXPECT(cache_stats().blocks == 0);
		lsm_block_cache_destroy(cache);
		cache = NULL;
		tdev_destroy(&d);
		free_set(&s);
	}
}

/* Damage each block of a run in turn; nothing wrong ever comes back. */
static void test_damage(void)
{
	struct piece_set s;
	struct lsm_run_info info, oinfo;
	struct tdev d, od;
	u8 saved[LSM_BLOCK_SIZE];
	u64 b, errors = 0, cases = 0, open_refused = 0, damaged = 0;
	struct lsm_block_cache *dcache = lsm_block_cache_create(TINY_CACHE,
								 "damage");
	unsigned int kind;

	EXPECT(dcache);
	make_set(&s, 80, rnd() >> 2, 10);
	tdev_init(&d, 4096, false);
	EXPECT(write_run(&d, store, &s, 7, 3, &info) == 0);
	/* The same pieces as another run, and in another store, same place. */
	tdev_init(&od, 4096, false);
	EXPECT(write_run(&od, store, &s, 8, 3, &oinfo) == 0);
	EXPECT(oinfo.nr_blocks == info.nr_blocks);

	for (b = info.first_block; b < info.first_block + info.nr_blocks; b++) {
		u8 *blk = d.mem + b * LSM_BLOCK_SIZE;
		u16 type = ((struct lsm_block_header *)blk)->type;

		/* Every block open reads; of the others, about 40. */
		if ((type == LSM_BT_RUN_DATA || type == LSM_BT_RUN_VALUE) &&
		    rnd_below(info.nr_blocks) >= 40)
			continue;
		damaged++;
		/* Every other block through a cache: a bad block never enters. */
		cache = damaged % 2 ? dcache : NULL;
		memcpy(saved, blk, LSM_BLOCK_SIZE);
		for (kind = 0; kind < 6; kind++) {
			struct lsm_run *run;
			u64 bit, src;
			int err;

			switch (kind) {
			case 0:	/* a bit flipped anywhere */
				bit = rnd_below(LSM_BLOCK_SIZE * 8);
				blk[bit / 8] ^= 1 << (bit % 8);
				break;
			case 1:	/* zeroed */
				memset(blk, 0, LSM_BLOCK_SIZE);
				break;
			case 2:	/* another block of the run in its place */
				src = info.first_block +
				      rnd_below(info.nr_blocks - 1);
				if (src >= b)
					src++;
				memcpy(blk, d.mem + src * LSM_BLOCK_SIZE,
				       LSM_BLOCK_SIZE);
				break;
			case 3:	/* the same block of another run */
				memcpy(blk, od.mem + b * LSM_BLOCK_SIZE,
				       LSM_BLOCK_SIZE);
				break;
			case 4:	/* sealed again as another store's */
				lsm_block_seal(blk, &(struct lsm_block_id){
					.blocknr = b, .store_id = store ^ 1,
					.epoch = 7, .type = type },
					le32_to_cpu(((struct lsm_block_header *)blk)->used));
				break;
			case 5:	/* its read fails */
				d.fail_read = b;
				break;
			}
			cases++;
			err = lsm_run_open(&d.bdev, store, &info, cache, &run);
			if (err) {
				/* Only the blocks open reads may refuse it. */
				EXPECT(type == LSM_BT_RUN_FOOTER ||
				       type == LSM_BT_RUN_INDEX ||
				       type == LSM_BT_RUN_BLOOM);
				EXPECT(err == (kind == 5 ? -EIO : -EUCLEAN));
				open_refused++;
			} else {
				u64 before = errors;

				EXPECT(type == LSM_BT_RUN_DATA ||
				       type == LSM_BT_RUN_VALUE);
				check_run(run, &s, true, &errors);
				/* Every data and value block is read by some get. */
				EXPECT(errors > before);
				before = errors;
				check_cursor(&d, run, &info, &s, true, &errors);
				/* The walk with values reads every block too. */
				EXPECT(errors > before);
				lsm_run_close(run);
			}
			memcpy(blk, saved, LSM_BLOCK_SIZE);
			d.fail_read = -1;
		}
	}
	cache = NULL;
	printf("test_run: damage: %llu cases over %llu of %llu blocks, %llu refused at open, %llu lookups refused, none wrong\n",
	       (unsigned long long)cases, (unsigned long long)damaged,
	       (unsigned long long)info.nr_blocks,
	       (unsigned long long)open_refused, (unsigned long long)errors);

	/* The manifest's record disagrees with the footer. */
	{
		struct lsm_run_info bad;
		struct lsm_run *run;

		bad = info;
		bad.nr_pieces++;
		EXPECT(lsm_run_open(&d.bdev, store, &bad, cache, &run) == -EUCLEAN);
		bad = info;
		bad.first_key--;
		EXPECT(lsm_run_open(&d.bdev, store, &bad, cache, &run) == -EUCLEAN);
		bad = info;
		bad.max_seq++;
		EXPECT(lsm_run_open(&d.bdev, store, &bad, cache, &run) == -EUCLEAN);
		bad = info;
		bad.id = 8;	/* the other run's id: none of this run's blocks */
		EXPECT(lsm_run_open(&d.bdev, store, &bad, cache, &run) == -EUCLEAN);
		bad = info;
		bad.nr_blocks--;	/* no footer there */
		EXPECT(lsm_run_open(&d.bdev, store, &bad, cache, &run) == -EUCLEAN);
		bad = info;
		bad.first_block = d.bdev.nr_blocks - 2;	/* off the device */
		EXPECT(lsm_run_open(&d.bdev, store, &bad, cache, &run) == -EINVAL);
		EXPECT(lsm_run_open(&d.bdev, store ^ 2, &info, cache, &run) == -EUCLEAN);
	}
	/* Every run closed: the cache holds nothing. */
	{
		struct lsm_block_cache_stats cs;

		lsm_block_cache_stats(dcache, &cs);
		EXPECT(cs.blocks == 0 && cs.bytes == 0 && cs.misses);
	}
	lsm_block_cache_destroy(dcache);
	tdev_destroy(&d);
	tdev_destroy(&od);
	free_set(&s);
}

/* Sources a run refuses, changed sources, failing writes, failing memory. */
static void test_refusals(void)
{
	struct piece_set s;
	struct lsm_run_info info;
	struct lsm_run_source src;
	struct lsm_piece keep;
	struct lsm_run *run;
	struct tdev d;
	u64 nr, b, n;
	int err, fails = 0;

	make_set(&s, 200, 1000, 5);
	tdev_init(&d, 8192, false);
	src = set_source(&s);

	/* Empty. */
	s.limit = 0;
	EXPECT(lsm_run_size(&src, &nr) == -ENODATA);

	/* Out of order, overlapping, malformed. */
	src = set_source(&s);
	keep = s.p[5];
	s.p[5].start = s.p[4].start;
	s.p[5].ext.key = s.p[5].start;
	EXPECT(lsm_run_size(&src, &nr) == -EINVAL);
	s.p[5] = keep;
	s.p[5].len = 0;
	EXPECT(lsm_run_size(&src, &nr) == -EINVAL);
	s.p[5] = keep;
	s.p[5].start = s.p[5].ext.key - 1;
	EXPECT(lsm_run_size(&src, &nr) == -EINVAL);
	s.p[5] = keep;
	s.p[5].ext.flags = 0x80;
	EXPECT(lsm_run_size(&src, &nr) == -EINVAL);
	s.p[5] = keep;
	s.p[5].ext.vlen = LSM_VALUE_MAX + 1;
	EXPECT(lsm_run_size(&src, &nr) == -EINVAL);
	s.p[5] = keep;
	s.p[5].ext.flags = LSM_EXT_TOMBSTONE;
	s.p[5].ext.vlen = 1;
	EXPECT(lsm_run_size(&src, &nr) == -EINVAL);
	s.p[5] = keep;
	s.p[5].ext.len = U64_MAX;
	s.p[5].ext.key = 2;	/* wraps */
	EXPECT(lsm_run_size(&src, &nr) == -EINVAL);
	s.p[5] = keep;
	EXPECT(lsm_run_size(&src, &nr) == 0);

	/*
	 * The source changes between the passes, or the size given is wrong:
	 * nothing is written outside the extent.  A change that keeps the
	 * size may go unnoticed, but then the run holds what was written.
	 */
	for (n = 0; n < 4; n++) {
		u64 limit = n < 2 ? s.n / 2 : s.n - 1;

		memset(d.writes, 0, d.bdev.nr_blocks * sizeof(*d.writes));
		info = (struct lsm_run_info){ .id = 1, .first_block = 10 };
		s.limit = limit;
		EXPECT(lsm_run_size(&src, &info.nr_blocks) == 0);
		if (n & 1)
			info.nr_blocks += 5;		/* a wrong size given */
		else
			s.limit = s.n;			/* more pieces */
		err = lsm_run_write(&d.bdev, store, &src, &info);
		if (n == 2 && !err)
			EXPECT(info.nr_pieces == s.n);
		else
			EXPECT(err == -EINVAL);
		for (b = 0; b < d.bdev.nr_blocks; b++)
			EXPECT(!d.writes[b] || (b >= 10 && b < 10 + info.nr_blocks));
		/* Fewer pieces than sized for. */
		s.limit = s.n;
		EXPECT(lsm_run_size(&src, &info.nr_blocks) == 0);
		s.limit = limit;
		err = lsm_run_write(&d.bdev, store, &src, &info);
		if (n >= 2 && !err)
			EXPECT(info.nr_pieces == limit);
		else
			EXPECT(err == -EINVAL);
	}
	s.limit = s.n;

	/* An extent off the device. */
	info = (struct lsm_run_info){ .id = 1, .first_block = 8190 };
	EXPECT(lsm_run_size(&src, &info.nr_blocks) == 0);
	EXPECT(lsm_run_write(&d.bdev, store, &src, &info) == -EINVAL);

	/* A write refused, or failing, at each point: the error comes back. */
	info = (struct lsm_run_info){ .id = 2, .first_block = 0 };
	EXPECT(lsm_run_size(&src, &info.nr_blocks) == 0);
	for (n = 1;; n++) {
		d.fail_submit = n;
		err = lsm_run_write(&d.bdev, store, &src, &info);
		if (!err)
			break;
		EXPECT(err == -EIO);
	}
	d.fail_submit = 0;
	for (b = 0; b < info.nr_blocks; b += 1 + rnd_below(20)) {
		d.fail_write = b;
		EXPECT(lsm_run_write(&d.bdev, store, &src, &info) == -EIO);
	}
	d.fail_write = -1;

	/* Failing allocations: -ENOMEM, no leak (LeakSanitizer), no damage. */
	for (n = 1;; n++) {
		shim_fail_nth(n);
		err = lsm_run_write(&d.bdev, store, &src, &info);
		shim_fail_off();
		if (!err)
			break;
		EXPECT(err == -ENOMEM);
		fails++;
	}
	for (n = 1;; n++) {
		shim_fail_nth(n);
		err = lsm_run_open(&d.bdev, store, &info, cache, &run);
		shim_fail_off();
		if (!err)
			break;
		EXPECT(err == -ENOMEM);
		fails++;
	}
	for (n = 1; n < 4; n++) {
		u64 errors = 0;

		/* make_set() stops early where the keys wrap: stay in the set. */
		shim_fail_nth(n);
		err = lsm_run_get(run, s.p[(n * 7) % s.n].start, &keep, vbuf,
				  sizeof(vbuf));
		shim_fail_off();
		EXPECT(err == -ENOMEM || err == 0);
		check_run(run, &s, false, &errors);
	}
	lsm_run_close(run);
	printf("test_run: refusals: bad sources, changed sources, failed writes, %d failed allocations: ok\n",
	       fails);
	tdev_destroy(&d);
	free_set(&s);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Points at random 64-bit keys, @vlen-byte values. */
static void make_points(struct piece_set *s, u64 n, u32 vlen, bool sequential)
{
	u64 i, *keys = malloc(n * sizeof(*keys));

	EXPECT(keys);
	for (i = 0; i < n; i++)
		keys[i] = sequential ? i : rnd();
	if (!sequential)
		qsort(keys, n, sizeof(*keys), cmp_u64);
	s->p = calloc(n, sizeof(*s->p));
	EXPECT(s->p);
	s->n = 0;
	for (i = 0; i < n; i++) {
		struct lsm_piece *p;
		u8 *v;
		u32 j;

		if (i && keys[i] == keys[i - 1])
			continue;
		p = &s->p[s->n++];
		p->start = p->ext.key = keys[i];
		p->len = p->ext.len = 1;
		p->ext.seq = i + 1;
		p->ext.vlen = vlen;
		v = malloc(vlen + 1);
		EXPECT(v);
		for (j = 0; j < vlen; j++)
			v[j] = value_byte(&p->ext, j);
		p->ext.value = v;
	}
	free(keys);
}

/* Pieces and gaps of random_len() each, 8-byte values. */
static void make_mixed(struct piece_set *s, u64 n)
{
	u64 pos = rnd_below(1000), i;

	s->p = calloc(n, sizeof(*s->p));
	EXPECT(s->p);
	for (i = 0; i < n; i++) {
		struct lsm_piece *p = &s->p[i];
		u8 *v;
		u32 j;

		p->start = p->ext.key = pos;
		p->len = p->ext.len = min_t(u64, random_len(), 1ULL << 30);
		p->ext.seq = i + 1;
		p->ext.vlen = 8;
		v = malloc(8);
		EXPECT(v);
		for (j = 0; j < 8; j++)
			v[j] = value_byte(&p->ext, j);
		p->ext.value = v;
		pos = lsm_last(pos, p->len) + min_t(u64, random_len(), 1ULL << 30);
	}
	s->n = n;
}

static u64 count_long(const struct piece_set *s)
{
	u64 i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->p[i].len > 8;
	return n;
}

/* The figures: false positives, bytes per piece, blocks per lookup. */
static void test_figures(u64 points)
{
	struct piece_set s;
	struct lsm_run_info info;
	struct lsm_run *run;
	struct lsm_piece got;
	struct tdev d;
	u64 i, reads, misses = 0, queries = 4 * points, hits = 0;
	double fp;

	/* Filter: points at random keys, looked up at absent random keys. */
	make_points(&s, points, 8, false);
	tdev_init(&d, points / 8 + 64, false);
	EXPECT(write_run(&d, store, &s, 1, 0, &info) == 0);
	EXPECT(lsm_run_open(&d.bdev, store, &info, cache, &run) == 0);
	for (i = 0; i < s.n; i++) {	/* no false negative */
		EXPECT(lsm_run_get(run, s.p[i].start, &got, vbuf, 8) == 0);
		EXPECT(got.ext.seq == s.p[i].ext.seq);
	}
	reads = d.read_calls;
	for (i = 0; i < queries; i++) {
		u64 k = rnd(), at = model_next(&s, k);

		if (at < s.n && s.p[at].start == k)
			continue;
		misses++;
		EXPECT(lsm_run_get(run, k, &got, vbuf, 8) == -ENOENT);
	}
	fp = (double)(d.read_calls - reads) / misses;
	printf("test_run: filter: %llu points, %llu absent keys: %.2f%% read a block (false positives), none missed; %.2f filter bits per item\n",
	       (unsigned long long)s.n, (unsigned long long)misses, 100 * fp,
	       (double)lsm_bloom_lines(s.n) * LSM_BLOOM_LINE_BITS / s.n);
	/* About 10 bits per key gives about 1%; far worse is a broken filter. */
	EXPECT(fp < 0.025);
	lsm_run_close(run);
	tdev_destroy(&d);
	free_set(&s);

	/* Bytes per piece: 8-byte keys in order, 100-byte values. */
	make_points(&s, points, 100, true);
	tdev_init(&d, points / 20 + 64, false);
	EXPECT(write_run(&d, store, &s, 2, 0, &info) == 0);
	EXPECT(lsm_run_open(&d.bdev, store, &info, cache, &run) == 0);
	reads = d.reads;
	for (i = 0; i < s.n; i += 1 + rnd_below(8), hits++)
		EXPECT(lsm_run_get(run, i, &got, vbuf, sizeof(vbuf)) == 0);
	printf("test_run: size: %llu pieces of 8-byte keys and 100-byte values: %llu blocks, %.1f bytes per piece on disk; %.3f blocks read per get\n",
	       (unsigned long long)s.n, (unsigned long long)info.nr_blocks,
	       (double)info.nr_blocks * LSM_BLOCK_SIZE / s.n,
	       (double)(d.reads - reads) / hits);
	EXPECT(d.reads - reads == hits);	/* one block each */
	lsm_run_close(run);
	tdev_destroy(&d);
	free_set(&s);

	/*
	 * Mixed lengths, gaps as long as pieces: no false negative anywhere,
	 * and the rate for a key in a gap, which may be next to a long piece.
	 */
	make_mixed(&s, points / 4);
	tdev_init(&d, 16 + s.n, false);
	EXPECT(write_run(&d, store, &s, 3, 0, &info) == 0);
	EXPECT(lsm_run_open(&d.bdev, store, &info, cache, &run) == 0);
	misses = 0;
	for (i = 0; i < s.n; i++) {
		u64 start = s.p[i].start, last = lsm_last(start, s.p[i].len);
		u64 k = start + rnd_below(last - start + 1);

		EXPECT(lsm_run_get(run, k, &got, vbuf, 0) == 0);
	}
	reads = d.read_calls;
	for (i = 0; i + 1 < s.n; i++) {
		u64 last = lsm_last(s.p[i].start, s.p[i].len);
		u64 gap = s.p[i + 1].start - last - 1;

		if (!gap)
			continue;
		EXPECT(lsm_run_get(run, last + 1 + rnd_below(gap), &got,
				   vbuf, 0) == -ENOENT);
		misses++;
	}
	fp = (double)(d.read_calls - reads) / misses;
	printf("test_run: filter, mixed lengths: %llu pieces (%llu long), %llu keys in gaps: %.2f%% read a block\n",
	       (unsigned long long)s.n, (unsigned long long)count_long(&s),
	       (unsigned long long)misses, 100 * fp);
	EXPECT(fp < 0.025);
	lsm_run_close(run);
	tdev_destroy(&d);
	free_set(&s);

	/* A 64 KiB value: its data block and 17 value blocks. */
	make_points(&s, 3, LSM_VALUE_MAX, true);
	tdev_init(&d, 128, false);
	EXPECT(write_run(&d, store, &s, 4, 0, &info) == 0);
	EXPECT(lsm_run_open(&d.bdev, store, &info, cache, &run) == 0);
	reads = d.reads;
	EXPECT(lsm_run_get(run, 1, &got, vbuf, sizeof(vbuf)) == 0);
	printf("test_run: a 64 KiB value: %llu blocks read by its get\n",
	       (unsigned long long)(d.reads - reads));
	EXPECT(d.reads - reads == 1 + DIV_ROUND_UP(LSM_VALUE_MAX, LSM_BLOCK_BODY));
	lsm_run_close(run);
	tdev_destroy(&d);
	free_set(&s);
}

/* The filter alone: every unit added is found; few others are. */
static void test_bloom(void)
{
	struct lsm_bloom bloom;
	u64 units[3000], i, n = ARRAY_SIZE(units), fp = 0;

	EXPECT(lsm_bloom_lines(0) == 0);
	bloom.nr_lines = lsm_bloom_lines(n);
	bloom.probes = LSM_BLOOM_PROBES;
	bloom.bits = calloc(bloom.nr_lines, LSM_BLOOM_LINE_BYTES);
	EXPECT(bloom.bits);
	EXPECT(!lsm_bloom_test(&bloom, lsm_bloom_hash(1)));
	/* Half dense (sequential units), half random. */
	for (i = 0; i < n; i++) {
		units[i] = i < n / 2 ? i : rnd();
		lsm_bloom_add(&bloom, lsm_bloom_hash(units[i]));
	}
	for (i = 0; i < n; i++)
		EXPECT(lsm_bloom_test(&bloom, lsm_bloom_hash(units[i])));
	for (i = 0; i < 100 * n; i++)
		fp += lsm_bloom_test(&bloom, lsm_bloom_hash(n / 2 + i));
	EXPECT(fp < 100 * n / 40);
	free(bloom.bits);
	bloom.nr_lines = 0;	/* a run of long pieces only has no filter */
	EXPECT(!lsm_bloom_test(&bloom, lsm_bloom_hash(1)));
}

/* Readers on one open run at once, each against the model. */
struct reader_arg {
	struct lsm_run *run;
	const struct piece_set *s;
	u64 seed;
	u64 done;
};

static void *reader(void *p)
{
	struct reader_arg *a = p;
	static __thread u8 buf[LSM_VALUE_MAX];
	u64 x = a->seed | 1, i;

	shim_rcu_register();
	for (i = 0; i < 3000; i++) {
		struct lsm_piece got;
		u64 at, k;
		int err;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		at = (x * 0x2545f4914f6cdd1dULL) % a->s->n;
		k = a->s->p[at].start + (x >> 40) % a->s->p[at].len;
		err = lsm_run_get(a->run, k, &got, buf, sizeof(buf));
		if (err || got.ext.seq != a->s->p[at].ext.seq ||
		    (got.ext.vlen && buf[got.ext.vlen - 1] !=
		     value_byte(&a->s->p[at].ext, got.ext.vlen - 1)))
			break;
		a->done++;
	}
	shim_rcu_unregister();
	return NULL;
}

/* Reclaim while the readers run: the cache's shrinker, or a shrink. */
static bool readers_done;

static void *reclaimer(void *p)
{
	u64 x = (u64)(uintptr_t)p | 1, passes = 0;

	shim_rcu_register();
	while (!__atomic_load_n(&readers_done, __ATOMIC_ACQUIRE)) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (x % 3)
			lsm_block_cache_shrink(cache, 1 + x % 4);
		else
			shim_drop_slab();
		passes++;
		sched_yield();
	}
	shim_rcu_unregister();
	return (void *)(uintptr_t)passes;
}

static void test_readers(void)
{
	struct reader_arg args[4];
	pthread_t t[4], rt;
	struct piece_set s;
	struct lsm_run_info info;
	struct lsm_run *run;
	struct tdev d;
	unsigned int i, pass;
	void *reclaims;

	make_set(&s, 400, rnd() >> 8, 0);
	tdev_init(&d, 16 + 400 * 20, false);
	EXPECT(write_run(&d, store, &s, 9, 0, &info) == 0);
	/* Without a cache, then sharing three cached blocks under reclaim. */
	for (pass = 0; pass < 2; pass++) {
		cache = pass ? lsm_block_cache_create(TINY_CACHE, "readers") :
			NULL;
		EXPECT(!pass || cache);
		EXPECT(lsm_run_open(&d.bdev, store, &info, cache, &run) == 0);
		readers_done = false;
		if (cache)
			EXPECT(!pthread_create(&rt, NULL, reclaimer,
					       (void *)(uintptr_t)rnd()));
		for (i = 0; i < 4; i++) {
			args[i] = (struct reader_arg){ run, &s, rnd(), 0 };
			EXPECT(!pthread_create(&t[i], NULL, reader, &args[i]));
		}
		for (i = 0; i < 4; i++) {
			pthread_join(t[i], NULL);
			EXPECT(args[i].done == 3000);
		}
		__atomic_store_n(&readers_done, true, __ATOMIC_RELEASE);
		if (cache) {
			struct lsm_block_cache_stats cs = cache_stats();

			pthread_join(rt, &reclaims);
			printf("test_run: readers: 4 threads, a cache of %llu blocks, %llu hits, %llu misses, %lu reclaim passes beside them\n",
			       (unsigned long long)(TINY_CACHE / 4096 - 1),
			       (unsigned long long)cs.hits,
			       (unsigned long long)cs.misses,
			       (unsigned long)(uintptr_t)reclaims);
			EXPECT(cs.hits && cs.misses);
		}
		lsm_run_close(run);
		EXPECT(cache_stats().blocks == 0);
		lsm_block_cache_destroy(cache);
		cache = NULL;
	}
	tdev_destroy(&d);
	free_set(&s);
}

/* How long the last part took, for whoever keeps the suite fast. */
static void lap(const char *what)
{
	static struct timespec last;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (last.tv_sec)
		printf("test_run: %s: %.2f s\n", what,
		       now.tv_sec - last.tv_sec +
		       (now.tv_nsec - last.tv_nsec) / 1e9);
	last = now;
}

int main(int argc, char **argv)
{
	bool big = false;
	int i;

	seed = time(NULL);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--big"))
			big = true;
		else {
			fprintf(stderr, "usage: test_run [--seed N] [--big]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng_state = seed * 0x9e3779b97f4a7c15ULL | 1;
	printf("test_run: seed %llu\n", (unsigned long long)seed);
	/* The cache's lookups are RCU readers. */
	shim_rcu_register();
	lap(NULL);

	test_bloom();
	lap("filter alone");
	test_roundtrip(big ? 200 : 24, big ? 3000 : 400);
	lap("random runs against the model");
	test_damage();
	lap("damage");
	test_refusals();
	lap("refusals");
	test_readers();
	lap("concurrent readers");
	test_figures(big ? 1000000 : 50000);
	lap("figures");
	rcu_barrier();
	shim_rcu_unregister();
	printf("test_run: ok\n");
	return 0;
}
