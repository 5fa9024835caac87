// SPDX-License-Identifier: GPL-2.0
/*
 * Eight threads on one /dev/skiplist descriptor, for a bounded time: each
 * inserts, deletes, claims holes, looks up, searches overlaps and iterates
 * on a shared key space, so that the index's lockless readers race its
 * writers inside the kernel.  Every extent's value encodes its key and
 * size.  Afterwards the index must pass its own invariant check, a full
 * walk must find sorted, non-overlapping extents with intact values, and
 * the count must equal the successful inserts minus the successful deletes.
 *
 * SL_STRESS_SECONDS in the environment sets the duration (default 5).
 * SL_ALLOW_ENOMEM=1 accepts -ENOMEM from inserts, for runs with failslab
 * injecting allocation failures into the index's caches.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include "kselftest_harness.h"
#include "sl_ioctl.h"

#define THREADS		8
#define CELLS		4096
/* SL_CELLS narrows the key space, to make the threads collide on a few leaves. */
static unsigned int cells = CELLS;
#define CELL		64
#define VALUE(key, size)	((key) * 0x9e3779b97f4a7c15ULL ^ (size))
/* insert_hole learns its key only once done: its extents carry a tag. */
#define HOLE_VALUE(size)	(0x401e000000000000ULL | (size))
#define INTACT(e)	((e).value == VALUE((e).key, (e).size) || \
			 (e).value == HOLE_VALUE((e).size))

static bool allow_enomem;

struct worker {
	pthread_t tid;
	int fd;
	unsigned int seed;
	double until;
	long added, removed, errors, enomem;
	char what[128];
};

static void bad(struct worker *w, const char *op, int ret)
{
	if (!w->errors++)
		snprintf(w->what, sizeof(w->what), "%s: %s", op, strerror(-ret));
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct sl_ioc_extent recs[32], e;
	unsigned long ops = 0;
	int ret, i, n;

	while ((ops++ & 63) || dt_now() < w->until) {
		__u64 key = (__u64)(rand_r(&w->seed) % cells) * CELL;
		__u64 size = 1 + rand_r(&w->seed) % CELL;

		switch (rand_r(&w->seed) % 8) {
		case 0:
		case 1:
			ret = sl_insert(w->fd, key, size, VALUE(key, size));
			if (!ret)
				w->added++;
			else if (ret == -ENOMEM && allow_enomem)
				w->enomem++;
			else if (ret != -EEXIST)
				bad(w, "insert", ret);
			break;
		case 2:
		case 3:
			ret = sl_delete(w->fd, key);
			if (!ret)
				w->removed++;
			else if (ret != -ENOENT)
				bad(w, "delete", ret);
			break;
		case 4:
			ret = sl_hole_value(w->fd, CELL, CELL, 0, cells * CELL,
					    key, HOLE_VALUE(CELL), &key);
			if (!ret)
				w->added++;
			else if (ret == -ENOMEM && allow_enomem)
				w->enomem++;
			else if (ret != -ENOSPC)
				bad(w, "insert_hole", ret);
			break;
		case 5:
			ret = sl_lookup(w->fd, key + size - 1, &e);
			if (!ret && (!INTACT(e) || key + size - 1 < e.key ||
				     key + size - 1 >= e.key + e.size))
				bad(w, "lookup result", -EUCLEAN);
			else if (ret && ret != -ENOENT)
				bad(w, "lookup", ret);
			break;
		case 6:
			ret = sl_overlap(w->fd, key, key + 4 * CELL, &e);
			if (!ret && (!INTACT(e) || e.key + e.size <= key ||
				     e.key >= key + 4 * CELL))
				bad(w, "overlap result", -EUCLEAN);
			else if (ret && ret != -ENOENT)
				bad(w, "overlap", ret);
			break;
		default:
			n = sl_iterate(w->fd, key, rand_r(&w->seed) & 1, recs, 32);
			if (n < 0) {
				bad(w, "iterate", n);
				break;
			}
			for (i = 0; i < n; i++)
				if (!INTACT(recs[i]))
					bad(w, "iterate result", -EUCLEAN);
		}
	}
	return NULL;
}

FIXTURE(dev) {
	int unused;
};

FIXTURE_SETUP(dev)
{
}

FIXTURE_TEARDOWN(dev)
{
}

/* Software emulation in the VM is slow: allow far more than the run. */
TEST_F_TIMEOUT(dev, eight_threads_one_descriptor, 300)
{
	static struct sl_ioc_extent recs[SL_IOC_ITERATE_MAX];
	struct worker w[THREADS];
	const char *env = getenv("SL_STRESS_SECONDS");
	double seconds = env ? atof(env) : 5;
	long added = 0, removed = 0, found = 0, enomem = 0;
	struct sl_ioc_stats st;
	__u64 from = 0, end = 0;
	int fd, i, n;

	if (getenv("SL_CELLS") && atoi(getenv("SL_CELLS")) > 0)
		cells = atoi(getenv("SL_CELLS"));
	allow_enomem = getenv("SL_ALLOW_ENOMEM") &&
		       !strcmp(getenv("SL_ALLOW_ENOMEM"), "1");
	fd = sl_open();
	if (fd < 0 && errno == ENOENT)
		SKIP(return, SL_DEVICE " missing: load skiplist_dev.ko");
	ASSERT_LE(0, fd);
	for (i = 0; i < THREADS; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].fd = fd;
		w[i].seed = 12345 + i;
		w[i].until = dt_now() + seconds;
		ASSERT_EQ(0, pthread_create(&w[i].tid, NULL, work, &w[i]));
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(w[i].tid, NULL);
		EXPECT_EQ(0, w[i].errors) {
			TH_LOG("thread %d: %ld errors, first %s", i,
			       w[i].errors, w[i].what);
		}
		added += w[i].added;
		removed += w[i].removed;
		enomem += w[i].enomem;
	}
	TH_LOG("%ld inserts, %ld deletes, %ld -ENOMEM in %.0f s", added,
	       removed, enomem, seconds);
	/* Under failslab, a run that saw no failure proved nothing. */
	if (allow_enomem)
		EXPECT_LT(0, enomem);

	/* Quiescent now: the full consistency check. */
	ASSERT_EQ(0, sl_check(fd));
	ASSERT_EQ(0, sl_stats(fd, &st));
	EXPECT_EQ(added - removed, (long)st.items);
	for (;;) {
		n = sl_iterate(fd, from, false, recs, SL_IOC_ITERATE_MAX);
		ASSERT_LE(0, n);
		for (i = 0; i < n; i++) {
			ASSERT_TRUE(INTACT(recs[i]));
			/* Sorted and not overlapping the one before. */
			if (found)
				ASSERT_LE(end, recs[i].key);
			end = recs[i].key + recs[i].size;
			found++;
		}
		if (n < SL_IOC_ITERATE_MAX)
			break;
		from = recs[n - 1].key + 1;
	}
	EXPECT_EQ((long)st.items, found);
	close(fd);
}

TEST_HARNESS_MAIN
