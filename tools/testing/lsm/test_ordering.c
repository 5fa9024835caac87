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
 *   test_ordering --seed N [-v]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rcupdate.h>
#include "format.h"
#include "memdev.h"
#include "store.h"
#include "store_check.h"

#define NR_BLOCKS	(2 * LSM_MIN_BLOCKS)

static u64 seed;
static int verbose;
static const char *phase = "setup";

#define FAIL(fmt, ...) do {						\
	fprintf(stderr, "test_ordering: FAIL (%s): " fmt		\
		" (reproduce: test_ordering --seed %llu)\n", phase,	\
		##__VA_ARGS__, (unsigned long long)seed);		\
	exit(1);							\
} while (0)

#define EXPECT_OK(call) do {						\
	int __err = (call);						\
	if (__err)							\
		FAIL("%s: %d", #call, __err);				\
} while (0)

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
			fprintf(stderr, "usage: test_ordering --seed N [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	shim_random_seed(seed);
	shim_rcu_register();
	if (shim_modules_load())
		FAIL("module init");
	run_log_gap();
	printf("test_ordering: ok (seed %llu)\n", (unsigned long long)seed);
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	return 0;
}
