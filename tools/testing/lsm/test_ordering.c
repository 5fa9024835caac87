// SPDX-License-Identifier: GPL-2.0
/*
 * The store (lsm/store.c) at chosen crash points across more than one
 * open: deterministic cases found by review, each one a sequence of
 * writes, a power cut where it hurts, and the sessions after it.
 *
 * log gap: a memtable written out (the manifest's persisted sequence
 * number past records still in the log's unwritten tail), power lost
 * before the tail is written; the next session writes and syncs into a
 * new log segment; a later open must replay that segment although the
 * older one ends before the new one's first sequence number.
 *
 * chained cuts: many sessions in a row on one device, each a random
 * mix of writes (a fresh key each, some SYNC), flushes and syncs, ended
 * by a power cut taken while the flush work may be running; after each
 * the keys found must be a prefix of the writes in order, at least as
 * long as what was acknowledged as durable, and the next session goes
 * on from there.  A single cut (test_store) cannot see a fault that only
 * the session after a recovery leaves behind.
 *
 * full device: writes until the device is full, then close and open:
 * what was acknowledged must still be readable, though no new log
 * segment fits.
 *
 * readers during flushes: readers get and scan while a writer fills
 * small memtables, so that memtables turn immutable, become runs and are
 * freed under them (AddressSanitizer sees a layer used after its free);
 * every value they see must be one written to that key.
 *
 *   test_ordering --seed N [--sessions S] [-v]
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rcupdate.h>
#include "format.h"
#include "memdev.h"
#include "store.h"
#include "store_check.h"
#include "rnd.h"
#include "fail.h"

#define NR_BLOCKS	(2 * LSM_MIN_BLOCKS)

static u64 seed;
static int verbose;
static u64 rng_state;

static u64 rnd(void)
{
	return xorshift64(&rng_state);
}

static const char *phase = "setup";

/* Large memtables, and no timed commit: only what the test asks for. */
static const struct lsm_options opts = {
	.memtable_bytes = 1 << 20,
	.max_immutables = 2,
	.commit_interval_ms = 600000,
};

static struct lsm_store *open_store(struct lsm_bdev *bdev, unsigned int flags)
{
	struct lsm_store *st;
	int err = lsm_store_open(bdev, &opts, flags, &st);

	if (err)
		FAIL("open: %d", err);
	return st;
}

static void put(struct lsm_store *st, u64 key, u8 byte, unsigned int flags)
{
	u8 value[64];
	struct lsm_op op = {
		.kind = LSM_OP_PUT, .key = key, .len = 1,
		.vlen = sizeof(value), .value = value,
	};

	memset(value, byte, sizeof(value));
	EXPECT_OK(lsm_store_write(st, &op, 1, flags));
}

static void expect(struct lsm_store *st, u64 key, u8 byte)
{
	u8 value[64];
	struct lsm_piece p;
	int err = lsm_store_get(st, key, &p, value, sizeof(value));

	if (err)
		FAIL("get %llu: %d, expected a value", (unsigned long long)key,
		     err);
	if (p.ext.vlen != sizeof(value) || value[0] != byte ||
	    value[sizeof(value) - 1] != byte)
		FAIL("get %llu: wrong value (vlen %u, byte %u, expected %u)",
		     (unsigned long long)key, p.ext.vlen, value[0], byte);
}

/* Power off under a store still open: it sees a dead device, then goes. */
static struct memdev *crash(struct memdev *md, struct lsm_store *st)
{
	struct memdev *cut = memdev_power_cut(md, MEMDEV_DROP_ALL, seed);

	memdev_fail_after(md, 0);
	lsm_store_close(st);
	memdev_destroy(md);
	memdev_record(cut);	/* so that it can lose power again */
	return cut;
}

static void run_log_gap(void)
{
	struct memdev *md = memdev_create(NR_BLOCKS, true);
	struct lsm_store *st = open_store(memdev_bdev(md), LSM_OPEN_FORMAT);

	phase = "log gap: session 1";
	/* A few small records: all of them in the log's unwritten block. */
	for (u64 k = 0; k < 5; k++)
		put(st, k, 1, 0);
	/* A run holds them and the manifest says so (persisted_seq 5). */
	EXPECT_OK(lsm_store_flush(st));
	md = crash(md, st);

	phase = "log gap: session 2";
	st = open_store(memdev_bdev(md), 0);
	for (u64 k = 0; k < 5; k++)
		expect(st, k, 1);
	put(st, 10, 2, LSM_WRITE_SYNC);
	expect(st, 10, 2);
	md = crash(md, st);

	phase = "log gap: session 3";
	st = open_store(memdev_bdev(md), 0);
	for (u64 k = 0; k < 5; k++)
		expect(st, k, 1);
	/* Acknowledged as durable in session 2. */
	expect(st, 10, 2);
	EXPECT_OK(lsm_store_check(st));
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
	if (verbose)
		printf("test_ordering: log gap ok\n");
}

/* Small memtables and few log blocks: runs, segments and rolls come often. */
static const struct lsm_options churn = {
	.memtable_bytes = 4 * 1024,
	.max_immutables = 2,
	.commit_interval_ms = 600000,
};

static u8 key_byte(u64 key)
{
	return (u8)(key * 37 + 11);
}

static void run_chained_cuts(unsigned long sessions)
{
	struct memdev *md = memdev_create(NR_BLOCKS, true);
	struct lsm_store *st;
	u64 written = 0, durable = 0, found, from;
	int err = lsm_store_open(memdev_bdev(md), &churn, LSM_OPEN_FORMAT,
				 &st);

	if (err)
		FAIL("format: %d", err);
	for (unsigned long s = 0; s < sessions; s++) {
		unsigned int nops = 20 + rnd() % 120;

		phase = "chained cuts: writing";
		for (unsigned int i = 0; i < nops; i++) {
			unsigned int r = rnd() % 100;

			if (r < 3) {
				EXPECT_OK(lsm_store_flush(st));
				durable = written;
			} else if (r < 6) {
				EXPECT_OK(lsm_store_sync(st));
				durable = written;
			} else {
				unsigned int flags = r < 15 ? LSM_WRITE_SYNC : 0;

				put(st, written, key_byte(written), flags);
				written++;
				if (flags)
					durable = written;
			}
		}
		phase = "chained cuts: recovery";
		{
			struct memdev *cut = memdev_power_cut(md,
					MEMDEV_DROP_ALL + rnd() % MEMDEV_NR_CUTS,
					rnd());

			memdev_fail_after(md, 0);
			lsm_store_close(st);
			memdev_destroy(md);
			md = cut;
			memdev_record(md);
		}
		err = lsm_store_open(memdev_bdev(md), &churn, 0, &st);
		if (err)
			FAIL("session %lu: open after the cut: %d", s, err);
		from = durable > 64 ? durable - 64 : 0;
		EXPECT_OK(lsm_store_check(st));
		/*
		 * A prefix of the writes, in order, covering the durable:
		 * the keys of earlier sessions sampled (every get reads
		 * every run, and runs only grow), the recent ones all.
		 */
		for (unsigned int i = 0; i < 16 && from; i++) {
			u64 k = rnd() % from;
			struct lsm_piece p;
			u8 value[64];

			err = lsm_store_get(st, k, &p, value, sizeof(value));
			if (err || value[0] != key_byte(k))
				FAIL("session %lu: earlier key %llu: %d", s,
				     (unsigned long long)k, err);
		}
		for (found = from; found < written; found++) {
			struct lsm_piece p;
			u8 value[64];

			err = lsm_store_get(st, found, &p, value, sizeof(value));
			if (err == -ENOENT)
				break;
			if (err)
				FAIL("session %lu: get %llu: %d", s,
				     (unsigned long long)found, err);
			if (value[0] != key_byte(found))
				FAIL("session %lu: key %llu has a wrong value",
				     s, (unsigned long long)found);
		}
		if (found < durable)
			FAIL("session %lu: writes 0..%llu acknowledged as durable, only 0..%llu found",
			     s, (unsigned long long)durable - 1,
			     (unsigned long long)found - 1);
		for (u64 k = found + 1; k < written; k++) {
			struct lsm_piece p;

			if (lsm_store_get(st, k, &p, NULL, 0) != -ENOENT)
				FAIL("session %lu: key %llu found after the missing %llu",
				     s, (unsigned long long)k,
				     (unsigned long long)found);
		}
		if (verbose)
			printf("session %lu: %llu written, %llu durable, %llu found\n",
			       s, (unsigned long long)written,
			       (unsigned long long)durable,
			       (unsigned long long)found);
		written = found;
		durable = found;
	}
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
}

static void run_full_device(void)
{
	struct memdev *md = memdev_create(LSM_MIN_BLOCKS, false);
	struct lsm_store *st;
	u64 acked = 0;
	int err = lsm_store_open(memdev_bdev(md), &churn, LSM_OPEN_FORMAT,
				 &st);

	phase = "full device";
	if (err)
		FAIL("format: %d", err);
	for (;;) {
		u8 value[64];
		struct lsm_op op = {
			.kind = LSM_OP_PUT, .key = acked, .len = 1,
			.vlen = sizeof(value), .value = value,
		};

		memset(value, key_byte(acked), sizeof(value));
		err = lsm_store_write(st, &op, 1, LSM_WRITE_SYNC);
		if (err)
			break;
		acked++;
	}
	if (err != -ENOSPC && err != -EROFS && err != -EIO)
		FAIL("write %llu on a full device: %d", (unsigned long long)acked,
		     err);
	if (verbose)
		printf("full device: %llu writes, then %d\n",
		       (unsigned long long)acked, err);
	lsm_store_close(st);
	err = lsm_store_open(memdev_bdev(md), &churn, 0, &st);
	if (err)
		FAIL("open after %llu writes filled the device: %d",
		     (unsigned long long)acked, err);
	/* Every get reads every run: a sample, and the last writes all. */
	for (u64 k = 0; k < acked; k += k + 64 < acked ? 1 + rnd() % 32 : 1) {
		struct lsm_piece p;
		u8 value[64];

		err = lsm_store_get(st, k, &p, value, sizeof(value));
		if (err || value[0] != key_byte(k))
			FAIL("key %llu of %llu acknowledged: %d",
			     (unsigned long long)k, (unsigned long long)acked,
			     err);
	}
	lsm_store_close(st);
	memdev_destroy(md);
}

#define READ_KEYS	64

struct reader_arg {
	struct lsm_store *st;
	bool *stop;
	u64 reads;
};

/* Key k holds round r's value: byte (k + r) for some round r. */
static void *reader(void *p)
{
	struct reader_arg *a = p;
	u8 value[64 * 8];
	struct lsm_piece pieces[8];

	shim_rcu_register();
	while (!READ_ONCE(*a->stop)) {
		u64 k = a->reads % READ_KEYS;
		struct lsm_scan_cursor cur = { .pos = k };
		int err = lsm_store_get(a->st, k, &pieces[0], value, 64);

		if (err && err != -ENOENT)
			FAIL("reader: get %llu: %d", (unsigned long long)k, err);
		if (!err && (u8)(value[0] - k) != (u8)(value[63] - k))
			FAIL("reader: get %llu: torn value", (unsigned long long)k);
		err = lsm_store_scan(a->st, &cur, pieces, 8, value,
				     sizeof(value));
		if (err < 0)
			FAIL("reader: scan from %llu: %d", (unsigned long long)k,
			     err);
		for (int i = 0; i < err; i++) {
			const u8 *v = pieces[i].ext.value;

			if (pieces[i].ext.vlen != 64 || pieces[i].len != 1 ||
			    (u8)(v[0] - pieces[i].start) !=
			    (u8)(v[63] - pieces[i].start))
				FAIL("reader: scan piece at %llu wrong",
				     (unsigned long long)pieces[i].start);
		}
		a->reads++;
	}
	shim_rcu_unregister();
	return NULL;
}

static void run_readers(void)
{
	struct memdev *md = memdev_create(NR_BLOCKS, false);
	struct lsm_store *st;
	struct reader_arg a[2];
	pthread_t t[2];
	bool stop = false;
	struct lsm_stats stats;
	int err = lsm_store_open(memdev_bdev(md), &churn, LSM_OPEN_FORMAT,
				 &st);

	phase = "readers during flushes";
	if (err)
		FAIL("format: %d", err);
	for (int i = 0; i < 2; i++) {
		a[i] = (struct reader_arg){ .st = st, .stop = &stop };
		pthread_create(&t[i], NULL, reader, &a[i]);
	}
	for (u64 r = 0; r < 40; r++)
		for (u64 k = 0; k < READ_KEYS; k++)
			put(st, k, (u8)(k + r), 0);
	WRITE_ONCE(stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	lsm_store_stats(st, &stats);
	if (stats.flushes < 10)
		FAIL("only %llu memtables written out under the readers",
		     (unsigned long long)stats.flushes);
	if (verbose)
		printf("readers: %llu and %llu reads over %llu flushes\n",
		       (unsigned long long)a[0].reads,
		       (unsigned long long)a[1].reads,
		       (unsigned long long)stats.flushes);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "sessions", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long sessions = 30;
	int c;

	while ((c = getopt_long(argc, argv, "s:n:v", lopts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': sessions = strtoul(optarg, NULL, 0); break;
		case 'v': verbose++; break;
		default:
			fprintf(stderr, "usage: test_ordering --seed N [--sessions S] [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	rng_state = seed * 0x9e3779b97f4a7c15ull | 1;
	shim_random_seed(seed);
	shim_rcu_register();
	if (shim_modules_load())
		FAIL("module init");
	run_log_gap();
	run_chained_cuts(sessions);
	run_readers();
	run_full_device();
	printf("test_ordering: ok (seed %llu)\n", (unsigned long long)seed);
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	return 0;
}
