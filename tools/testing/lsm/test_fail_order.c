// SPDX-License-Identifier: GPL-2.0
/*
 * A store that failed writes nothing more, whichever thread was already
 * on its way: two interleavings an adversarial review of the failure
 * paths found, each forced deterministically.
 *
 *  - half_applied_write: a write's memtable apply fails after its first
 *    operation (-ENOMEM); another thread's flush, right after the writer
 *    lets go of the write mutex, must find the store failed.  Were the
 *    store failed only after the unlock, the flush would switch the
 *    memtable and record half the write in a run, under a persisted
 *    sequence number before it: attach then returns one key of the
 *    write and not the other, a state no prefix of the history has.
 *  - segment_after_failed_sync: a group commit's flush fails while a
 *    writer, past its stall check, rolls the log over to a new segment:
 *    the writer must record no segment and write nothing more.  A real
 *    device that failed a flush may have lost the log block it held;
 *    with the new segment recorded, attach would find the log ending
 *    before the segment begins and refuse a sound device.  Twice: the
 *    writer held before its edit until the flush has failed, and the
 *    writer let run while the flush is still in flight, where it must
 *    wait for the flush's result before it records anything.
 *  - sync_after_failed_edit: a group commit's leader seals the log
 *    block holding a write; before its flush goes out, a memtable
 *    flush's manifest edit fails its PREFLUSH write.  The leader's
 *    flush then succeeds, but cannot bring back what the failed one may
 *    have lost: the sync must return -EIO.  Acknowledged, the write was
 *    gone after an attach of the device that lost the block.
 *
 *   test_fail_order --seed N [-v]
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include "format.h"
#include "memdev.h"
#include "store.h"
#include "store_int.h"
#include "store_window.h"

static u64 seed;
static const char *phase = "setup";
static int verbose;

#include "fail.h"

#define EXPECT(cond) do { if (!(cond)) FAIL("%s:%d: %s", __FILE__,	\
					     __LINE__, #cond); } while (0)

/* ---------- half_applied_write ---------- */

static const struct lsm_options half_opts = {
	.memtable_bytes = 64 * 1024,
	.max_immutables = 2,
	.commit_interval_ms = 3600000,
	.l0_compact_runs = 1000,
	.run_bytes = 64 * 1024,
};

static struct {
	bool armed, hit;
	int flush_err;
} at_apply_failed;

/* In the writer's thread, as another thread would run it then. */
static void window_hook(struct lsm_store *st, enum lsm_window win)
{
	if (win != LSM_WIN_APPLY_FAILED || !at_apply_failed.armed)
		return;
	at_apply_failed.armed = false;
	at_apply_failed.hit = true;
	shim_fail_off();
	at_apply_failed.flush_err = lsm_store_flush(st);
}

/* Key 100 and key 200, both of version @v, in one write. */
static int write_pair(struct lsm_store *st, u8 v, unsigned int flags)
{
	u8 a[32], b[32];
	struct lsm_op ops[2] = {
		{ .kind = LSM_OP_PUT, .key = 100, .len = 1, .vlen = 32,
		  .value = a },
		{ .kind = LSM_OP_PUT, .key = 200, .len = 1, .vlen = 32,
		  .value = b },
	};

	memset(a, v, sizeof(a));
	memset(b, v, sizeof(b));
	return lsm_store_write(st, ops, 2, flags);
}

/* The version key @k holds, or -1. */
static int version(struct lsm_store *st, u64 k)
{
	struct lsm_piece p;
	u8 buf[64];

	return lsm_store_get(st, k, &p, buf, sizeof(buf)) ? -1 : buf[0];
}

/*
 * Allocation failures at random, seeded from 1 on, until one fails the
 * write's apply between its two operations (a few dozen tries).
 */
static void test_half_applied_write(void)
{
	unsigned long tries = 0;

	phase = "half an applied write";
	lsm_window_hook = window_hook;
	for (u64 s = 1; s < 2000; s++) {
		struct memdev *md = memdev_create(4096, false);
		struct lsm_store *st;
		int err, a, b;

		EXPECT_OK(lsm_store_open(memdev_bdev(md), &half_opts,
					 LSM_OPEN_FORMAT, &st));
		EXPECT_OK(write_pair(st, 1, LSM_WRITE_SYNC));
		at_apply_failed.armed = true;
		at_apply_failed.hit = false;
		shim_fail_random(s % 2 ? 600000 : 900000, s * 7919);
		err = write_pair(st, 2, 0);
		shim_fail_off();
		at_apply_failed.armed = false;
		a = version(st, 100);
		b = version(st, 200);
		tries++;
		if (!at_apply_failed.hit || a == b) {
			/* Not the case sought: failed before, or whole. */
			lsm_store_close(st);
			memdev_destroy(md);
			continue;
		}
		EXPECT(err == -ENOMEM);
		if (at_apply_failed.flush_err != -EIO)
			FAIL("a flush after half a write failed returned %d, not -EIO",
			     at_apply_failed.flush_err);
		EXPECT(lsm_store_close(st) == -EIO);
		EXPECT_OK(lsm_store_open(memdev_bdev(md), &half_opts, 0, &st));
		a = version(st, 100);
		b = version(st, 200);
		if (a != b)
			FAIL("attach: key 100 of write %d, key 200 of write %d",
			     a, b);
		EXPECT_OK(lsm_store_close(st));
		memdev_destroy(md);
		lsm_window_hook = NULL;
		printf("test_fail_order: half an applied write (found in %lu tries): ok\n",
		       tries);
		return;
	}
	FAIL("no allocation failure fell between a write's operations");
}

/* ---------- segment_after_failed_sync ---------- */

static const struct lsm_options seg_opts = {
	.memtable_bytes = 4 << 20,
	.max_immutables = 2,
	.commit_interval_ms = 3600000,
	.l0_compact_runs = 1000,
	.run_bytes = 64 * 1024,
};

static struct lsm_store *seg_st;
static int leader_err, writer_err;

static int put(struct lsm_store *st, u64 k, u8 v, u32 vlen,
	       unsigned int flags)
{
	static u8 buf[4000];
	struct lsm_op op = { .kind = LSM_OP_PUT, .key = k, .len = 1,
			     .vlen = vlen, .value = buf };

	memset(buf, v, vlen);
	return lsm_store_write(st, &op, 1, flags);
}

static void *leader(void *arg)
{
	(void)arg;
	shim_rcu_register();
	leader_err = lsm_store_sync(seg_st);
	shim_rcu_unregister();
	return NULL;
}

/* A write too large for what is left of the segment: it rolls over. */
static void *writer(void *arg)
{
	static u8 big[2][50000];
	struct lsm_op ops[2] = {
		{ .kind = LSM_OP_PUT, .key = 1000, .len = 1,
		  .vlen = sizeof(big[0]), .value = big[0] },
		{ .kind = LSM_OP_PUT, .key = 1001, .len = 1,
		  .vlen = sizeof(big[1]), .value = big[1] },
	};

	(void)arg;
	shim_rcu_register();
	writer_err = lsm_store_write(seg_st, ops, 2, 0);
	shim_rcu_unregister();
	return NULL;
}

static void write_done(void *priv, int err)
{
	(void)priv;
	(void)err;
}

/*
 * Attach a copy of @md that lost log block @block: it must open (the
 * log ends there, as after a crash) with the first SYNC write in it.
 */
static void attach_without(struct memdev *md, u64 block)
{
	static u8 zero[LSM_BLOCK_SIZE];
	struct memdev *lost = memdev_clone(md);
	struct lsm_store *st;

	memdev_bdev(lost)->ops->write(memdev_bdev(lost), block, zero, 1, 0,
				      write_done, NULL);
	EXPECT_OK(lsm_store_open(memdev_bdev(lost), &seg_opts, 0, &st));
	EXPECT(version(st, 1) == 1);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(lost);
}

static void test_segment_after_failed_sync(bool in_flight)
{
	struct memdev *md = memdev_create(4096, false);
	pthread_t tl, tw;
	u64 sealed, writes, segs;

	phase = in_flight ? "a new segment beside a sync's flush" :
			    "a new segment after a failed sync";
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &seg_opts, LSM_OPEN_FORMAT,
				 &seg_st));
	EXPECT_OK(put(seg_st, 1, 1, 100, LSM_WRITE_SYNC));
	for (u64 k = 2; k < 62; k++)
		EXPECT_OK(put(seg_st, k, 1, 3000, 0));
	/* The leader seals the log's last block; its flush is held. */
	memdev_hold_flushes(md, true);
	pthread_create(&tl, NULL, leader, NULL);
	memdev_wait_held(md, 1);
	sealed = seg_st->wal.seg.start + seg_st->wal.block - 1;
	segs = seg_st->m.nr_segs;
	if (in_flight) {
		/* The writer runs on while the leader's flush is out. */
		pthread_create(&tw, NULL, writer, NULL);
		usleep(200 * 1000);
		if (READ_ONCE(seg_st->m.nr_segs) != segs)
			FAIL("a log segment was recorded while a flush of the log before it was in flight");
		mutex_lock(&seg_st->manifest_mutex);
	} else {
		/* The writer stops in the roll-over, before its edit. */
		mutex_lock(&seg_st->manifest_mutex);
		pthread_create(&tw, NULL, writer, NULL);
		usleep(200 * 1000);
	}
	memdev_release_flush(md, -EIO);
	memdev_hold_flushes(md, false);
	pthread_join(tl, NULL);
	EXPECT(leader_err == -EIO);
	writes = memdev_writes(md);
	mutex_unlock(&seg_st->manifest_mutex);
	pthread_join(tw, NULL);
	if (writer_err != -EIO)
		FAIL("the writer that rolled the log over returned %d, not -EIO",
		     writer_err);
	if (memdev_writes(md) != writes)
		FAIL("%llu device writes after the store failed",
		     (unsigned long long)(memdev_writes(md) - writes));
	EXPECT(seg_st->m.nr_segs == segs);
	EXPECT(lsm_store_close(seg_st) == -EIO);
	/* The device lost the block the failed flush held. */
	attach_without(md, sealed);
	memdev_destroy(md);
	printf("test_fail_order: %s: ok\n", phase);
}

/* ---------- sync_after_failed_edit ---------- */

/*
 * With @fail_at (a device write, counted from the memtable flush's
 * first), that write fails; 0 for a dry run.  Returns the writes the
 * memtable flush made (its edit is the last).
 */
static u64 sync_beside_edit(u64 fail_at)
{
	struct memdev *md = memdev_create(4096, false);
	pthread_t tl;
	u64 sealed, w0, w;
	int ferr;

	EXPECT_OK(lsm_store_open(memdev_bdev(md), &seg_opts, LSM_OPEN_FORMAT,
				 &seg_st));
	EXPECT_OK(put(seg_st, 1, 1, 100, LSM_WRITE_SYNC));
	for (u64 k = 2; k < 10; k++)
		EXPECT_OK(put(seg_st, k, 1, 3000, 0));
	EXPECT_OK(put(seg_st, 7777, 7, 100, 0));	/* in the open block */
	/* The leader seals the block holding 7777; its flush is held. */
	memdev_hold_flushes(md, true);
	pthread_create(&tl, NULL, leader, NULL);
	memdev_wait_held(md, 1);
	sealed = seg_st->wal.seg.start + seg_st->wal.block - 1;
	w0 = memdev_writes(md);
	if (fail_at)
		memdev_fail_io(md, MEMDEV_IO_WRITE, fail_at - 1, 1);
	ferr = lsm_store_flush(seg_st);
	w = memdev_writes(md) - w0;
	if (fail_at && (ferr != -EIO || !READ_ONCE(seg_st->error)))
		FAIL("a memtable flush whose edit failed returned %d", ferr);
	/* Now the leader's flush goes out, and succeeds. */
	memdev_release_flush(md, 0);
	memdev_hold_flushes(md, false);
	pthread_join(tl, NULL);
	if (!fail_at) {
		EXPECT_OK(leader_err);
		EXPECT_OK(lsm_store_close(seg_st));
		memdev_destroy(md);
		return w;
	}
	if (leader_err != -EIO)
		FAIL("a sync whose log block a failed PREFLUSH may have lost returned %d, not -EIO",
		     leader_err);
	EXPECT(lsm_store_close(seg_st) == -EIO);
	/* The device lost the block the failed PREFLUSH may have lost. */
	attach_without(md, sealed);
	memdev_destroy(md);
	return w;
}

static void test_sync_after_failed_edit(void)
{
	u64 writes;

	phase = "a sync beside a failed manifest edit";
	writes = sync_beside_edit(0);
	EXPECT(writes >= 2);
	sync_beside_edit(writes);
	printf("test_fail_order: %s: ok\n", phase);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "s:v", lopts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'v': verbose++; break;
		default:
			fprintf(stderr, "usage: test_fail_order --seed N [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	shim_random_seed(seed);
	shim_rcu_register();
	if (shim_modules_load())
		FAIL("module init");
	test_half_applied_write();
	test_segment_after_failed_sync(false);
	test_segment_after_failed_sync(true);
	test_sync_after_failed_edit();
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	printf("test_fail_order: ok (seed %llu)\n", (unsigned long long)seed);
	return 0;
}
