// SPDX-License-Identifier: GPL-2.0
/*
 * Readers racing writers on the extent map of one /dev/sl_extent
 * descriptor.
 *
 * Region A, offsets [0, A_LEN), maps every offset o to disk o + A_DISK
 * whenever it is mapped.  Its writer punches a random window and maps it
 * again in random pieces, mostly in merge mode, so that extents are split
 * by punches and glued back by merges all the time; now and then it
 * removes one whole extent and adds it back.  Before it touches a window
 * it publishes the window and makes a generation count odd, and makes it
 * even again once the window is mapped again: a seqcount in userspace.
 *
 * The readers look up, search for overlaps and walk region A, checking
 * that every extent they see maps o to o + A_DISK, carries A's flags and
 * contains what it should; and, when the generation was even and the same
 * before and after the call, that nothing was missing: a lookup found its
 * offset, an overlap search found the extent containing its start, a walk
 * saw extents that meet end to end.  A merge or punch seen half done
 * shows up as a hole, a gap or an overlap.  When the generation was odd
 * and unchanged, only the window may be unmapped.
 *
 * Region B, above A, is a second writer's: it adds and removes single
 * extents (the map's shared-lock path) and predicts every result from its
 * own record, while the readers check what they find there.  At the end
 * the map must pass its check, region A must be mapped whole and
 * linearly, and region B must hold exactly the writer's record.
 *
 * SL_STRESS_SECONDS sets the duration (default 5), SX_THREADS the
 * number of readers (default 3).  SL_ALLOW_ENOMEM=1 makes the writers
 * retry -ENOMEM (under failslab) instead of failing.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include "kselftest_harness.h"
#include "sx_ioctl.h"

#define MAX_READERS	64
#define A_LEN		(1ULL << 16)
#define A_DISK		(1ULL << 40)
#define A_FLAGS		0xa
#define MAX_WINDOW	512
#define B_START		A_LEN
#define B_CELLS		4096
#define B_CELL		16		/* extent of B_LEN at each cell's start */
#define B_LEN		8
#define B_DISK(c)	((1ULL << 50) + (__u64)(c) * 1024)
#define B_FLAGS		0xb

struct shared {
	int fd;
	double until;
	bool allow_enomem;
	unsigned long gen;	/* odd while [ws, ws + wl) may be unmapped */
	__u64 ws, wl;
	int writers_done;
};

struct thread {
	pthread_t tid;
	struct shared *sh;
	unsigned int seed;
	long ops, checked, errors, enomem;
	char what[200];
	unsigned char *b_present;	/* region B's writer only */
};

static __attribute__((format(printf, 2, 3)))
void bad(struct thread *t, const char *fmt, ...)
{
	va_list ap;

	if (t->errors++)
		return;
	va_start(ap, fmt);
	vsnprintf(t->what, sizeof(t->what), fmt, ap);
	va_end(ap);
}

static unsigned long load(unsigned long *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static void store(unsigned long *p, unsigned long v)
{
	__atomic_store_n(p, v, __ATOMIC_SEQ_CST);
}

static __u64 load64(__u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

/* Retries -ENOMEM where failslab may inject it; the map is unchanged then. */
static int retry(struct thread *t, int ret)
{
	if (ret == -ENOMEM && t->sh->allow_enomem) {
		t->enomem++;
		return 1;
	}
	return 0;
}

/* ----- region A's writer ----- */

static void a_refill(struct thread *t, __u64 s, __u64 l)
{
	__u64 p = s, plen;
	int ret;

	while (p < s + l) {
		plen = 1 + rand_r(&t->seed) % (s + l - p);
		do {
			ret = sx_em_add(t->sh->fd, p, plen, p + A_DISK, A_FLAGS,
					rand_r(&t->seed) % 4 != 0);
		} while (retry(t, ret));
		if (ret)
			bad(t, "add [%llu, +%llu) after a punch: %s", p, plen,
			    strerror(-ret));
		p += plen;
	}
}

static void *a_writer(void *arg)
{
	struct thread *t = arg;
	struct shared *sh = t->sh;
	struct sl_em_ioc_extent e;
	bool whole;
	__u64 s, l;
	int ret;

	while (dt_now() < sh->until && !t->errors) {
		t->ops++;
		whole = rand_r(&t->seed) % 8 == 0;
		if (whole) {
			/* One whole extent out and back in. */
			ret = sx_em_lookup(sh->fd, rand_r(&t->seed) % A_LEN, &e);
			if (ret) {
				bad(t, "lookup while A is whole: %s",
				    strerror(-ret));
				break;
			}
			s = e.start;
			l = e.len;
		} else {
			s = rand_r(&t->seed) % A_LEN;
			l = 1 + rand_r(&t->seed) % MAX_WINDOW;
			if (s + l > A_LEN)
				l = A_LEN - s;
		}
		__atomic_store_n(&sh->ws, s, __ATOMIC_SEQ_CST);
		__atomic_store_n(&sh->wl, l, __ATOMIC_SEQ_CST);
		store(&sh->gen, load(&sh->gen) + 1);
		if (whole) {
			ret = sx_em_remove(sh->fd, s);
		} else {
			do {
				ret = sx_em_drop(sh->fd, s, l);
			} while (retry(t, ret));
		}
		if (ret)
			bad(t, "%s [%llu, +%llu): %s", whole ? "remove" : "punch",
			    s, l, strerror(-ret));
		a_refill(t, s, l);
		store(&sh->gen, load(&sh->gen) + 1);
	}
	__atomic_fetch_add(&sh->writers_done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* ----- region B's writer ----- */

static void *b_writer(void *arg)
{
	struct thread *t = arg;
	struct shared *sh = t->sh;
	unsigned int c;
	__u64 start;
	int ret;

	while (dt_now() < sh->until && !t->errors) {
		t->ops++;
		c = rand_r(&t->seed) % B_CELLS;
		start = B_START + (__u64)c * B_CELL;
		if (t->b_present[c]) {
			ret = sx_em_remove(sh->fd, start);
			if (ret)
				bad(t, "remove of B's cell %u: %s", c,
				    strerror(-ret));
			t->b_present[c] = 0;
			continue;
		}
		do {
			ret = sx_em_add(sh->fd, start, B_LEN, B_DISK(c), B_FLAGS,
					rand_r(&t->seed) % 2);
		} while (retry(t, ret));
		if (ret)
			bad(t, "add of B's cell %u: %s", c, strerror(-ret));
		t->b_present[c] = 1;
		/* A remove of a cell that is not there. */
		ret = sx_em_remove(sh->fd, start + 1);
		if (ret != -ENOENT)
			bad(t, "remove inside B's cell %u: %s", c,
			    strerror(-ret));
	}
	__atomic_fetch_add(&sh->writers_done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* ----- readers ----- */

/* Whether @e is a well-formed extent of region A. */
static bool a_extent_ok(const struct sl_em_ioc_extent *e)
{
	return e->len && e->start < A_LEN && e->len <= A_LEN - e->start &&
	       e->disk_start == e->start + A_DISK && e->flags == A_FLAGS &&
	       !e->pad;
}

static bool b_extent_ok(const struct sl_em_ioc_extent *e)
{
	__u64 c = (e->start - B_START) / B_CELL;

	return e->start >= B_START && (e->start - B_START) % B_CELL == 0 &&
	       c < B_CELLS && e->len == B_LEN && e->disk_start == B_DISK(c) &&
	       e->flags == B_FLAGS && !e->pad;
}

/* The generation and window as a reader saw them before its call. */
struct snap {
	unsigned long gen;
	__u64 ws, wl;
};

static void snap(struct shared *sh, struct snap *sn)
{
	sn->gen = load(&sh->gen);
	sn->ws = load64(&sh->ws);
	sn->wl = load64(&sh->wl);
}

/*
 * Whether @o was mapped throughout a call: the generation was the same
 * after it, and either even (A whole) or odd with @o outside the window.
 */
static bool stayed_mapped(struct shared *sh, const struct snap *sn, __u64 o)
{
	if (load(&sh->gen) != sn->gen)
		return false;
	return !(sn->gen & 1) || o < sn->ws || o - sn->ws >= sn->wl;
}

static void read_lookup(struct thread *t, __u64 o)
{
	struct shared *sh = t->sh;
	struct sl_em_ioc_extent e;
	struct snap sn;
	int ret;

	snap(sh, &sn);
	ret = sx_em_lookup(sh->fd, o, &e);
	if (!ret) {
		if (!a_extent_ok(&e) || o < e.start || o - e.start >= e.len)
			bad(t, "lookup %llu: [%llu, +%llu) -> %llu flags %#x",
			    o, e.start, e.len, e.disk_start, e.flags);
		t->checked++;
	} else if (ret != -ENOENT) {
		bad(t, "lookup %llu: %s", o, strerror(-ret));
	} else if (stayed_mapped(sh, &sn, o)) {
		bad(t, "lookup %llu: a hole, generation %lu, window [%llu, +%llu)",
		    o, sn.gen, sn.ws, sn.wl);
	}
}

static void read_overlap(struct thread *t, __u64 o, __u64 len)
{
	struct shared *sh = t->sh;
	struct sl_em_ioc_extent e;
	struct snap sn;
	int ret;

	snap(sh, &sn);
	ret = sx_em_overlap(sh->fd, o, len, &e);
	if (ret && ret != -ENOENT) {
		bad(t, "overlap [%llu, +%llu): %s", o, len, strerror(-ret));
		return;
	}
	/* Near A's end, with the window punched, B's first extent may come. */
	if (!ret && (!(e.start < A_LEN ? a_extent_ok(&e) : b_extent_ok(&e)) ||
		     e.start + e.len <= o ||
		     (e.start > o && e.start - o >= len))) {
		bad(t, "overlap [%llu, +%llu): [%llu, +%llu) -> %llu", o, len,
		    e.start, e.len, e.disk_start);
		return;
	}
	/* With @o mapped, the first overlap is the extent containing it. */
	if (stayed_mapped(sh, &sn, o) && (ret || e.start > o))
		bad(t, "overlap [%llu, +%llu) with %llu mapped: %s %llu",
		    o, len, o, ret ? "none" : "first at", ret ? 0 : e.start);
	if (!ret)
		t->checked++;
}

static void read_walk(struct thread *t, __u64 o)
{
	struct shared *sh = t->sh;
	struct sl_em_ioc_extent e[8];
	__u64 pos[8];
	struct snap sn;
	int n, i, ret = 0;

	snap(sh, &sn);
	pos[0] = o;
	for (n = 0; n < 8; n++) {
		ret = sx_em_next(sh->fd, pos[n], &e[n]);
		if (ret || e[n].start >= A_LEN)
			break;
		/* Each step ends after where it looked from. */
		if (!a_extent_ok(&e[n]) || e[n].start + e[n].len <= pos[n]) {
			bad(t, "walk from %llu, step %d from %llu: [%llu, +%llu) -> %llu",
			    o, n, pos[n], e[n].start, e[n].len,
			    e[n].disk_start);
			return;
		}
		t->checked++;
		if (n == 7 || e[n].start + e[n].len >= A_LEN) {
			n++;
			break;
		}
		pos[n + 1] = e[n].start + e[n].len;
	}
	if (ret && ret != -ENOENT) {
		bad(t, "walk from %llu: %s", o, strerror(-ret));
		return;
	}
	if (load(&sh->gen) != sn.gen || (sn.gen & 1))
		return;
	/* A was whole all along: the steps meet end to end from @o on. */
	if (!n || e[0].start > o) {
		bad(t, "walk from %llu while whole: starts at %llu", o,
		    n ? e[0].start : ~0ULL);
		return;
	}
	for (i = 1; i < n; i++)
		if (e[i].start != e[i - 1].start + e[i - 1].len)
			bad(t, "walk from %llu while whole: %llu after [%llu, +%llu)",
			    o, e[i].start, e[i - 1].start, e[i - 1].len);
}

static void read_b(struct thread *t, __u64 c)
{
	struct sl_em_ioc_extent e;
	__u64 o = B_START + c * B_CELL + c % B_LEN;
	int ret = sx_em_lookup(t->sh->fd, o, &e);

	if (!ret && (!b_extent_ok(&e) || e.start != o - c % B_LEN))
		bad(t, "lookup %llu in B: [%llu, +%llu) -> %llu", o, e.start,
		    e.len, e.disk_start);
	else if (ret && ret != -ENOENT)
		bad(t, "lookup %llu in B: %s", o, strerror(-ret));
	if (!ret)
		t->checked++;
	ret = sx_em_lookup(t->sh->fd, o - c % B_LEN + B_LEN, &e);
	if (ret != -ENOENT)
		bad(t, "lookup between B's cells: %s", strerror(-ret));
}

static void *reader(void *arg)
{
	struct thread *t = arg;
	struct shared *sh = t->sh;
	__u64 o;

	while (__atomic_load_n(&sh->writers_done, __ATOMIC_SEQ_CST) < 2) {
		t->ops++;
		o = rand_r(&t->seed) % A_LEN;
		switch (rand_r(&t->seed) % 8) {
		case 0:
		case 1:
		case 2:
			read_lookup(t, o);
			break;
		case 3:
		case 4:
			read_overlap(t, o, 1 + rand_r(&t->seed) % 64);
			break;
		case 5:
		case 6:
			read_walk(t, o);
			break;
		default:
			read_b(t, rand_r(&t->seed) % B_CELLS);
		}
	}
	return NULL;
}

FIXTURE(em) {
	int fd;
};

FIXTURE_SETUP(em)
{
	self->fd = sx_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SX_MISSING);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(em)
{
	if (self->fd >= 0)
		close(self->fd);
}

static void report(struct __test_metadata *_metadata, const char *who,
		   struct thread *t)
{
	EXPECT_EQ(0, t->errors) {
		TH_LOG("%s: %ld errors, first: %s", who, t->errors, t->what);
	}
}

/* Software emulation in the VM is slow: allow far more than the run. */
TEST_F_TIMEOUT(em, readers_race_punches_and_merges, 300)
{
	double seconds = dt_env("SL_STRESS_SECONDS", 5);
	int readers = dt_env("SX_THREADS", 3);
	struct shared sh = {
		.fd = self->fd,
		.allow_enomem = dt_env("SL_ALLOW_ENOMEM", 0) == 1,
	};
	struct thread wa = { .sh = &sh, .seed = 1 };
	struct thread wb = { .sh = &sh, .seed = 2 };
	struct thread r[MAX_READERS];
	long checked = 0, reads = 0, a_extents = 0, b_extents = 0;
	struct sl_em_ioc_extent e;
	__u64 pos;
	int i, ret;

	ASSERT_LT(0, readers);
	ASSERT_GE(MAX_READERS, readers);
	wb.b_present = calloc(B_CELLS, 1);
	ASSERT_NE(NULL, wb.b_present);
	/* A starts mapped whole, in pieces of 64 that do not merge. */
	for (pos = 0; pos < A_LEN; pos += 64) {
		do {
			ret = sx_em_add(self->fd, pos, 64, pos + A_DISK,
					A_FLAGS, false);
		} while (retry(&wa, ret));
		ASSERT_EQ(0, ret);
	}
	sh.until = dt_now() + seconds;
	ASSERT_EQ(0, pthread_create(&wa.tid, NULL, a_writer, &wa));
	ASSERT_EQ(0, pthread_create(&wb.tid, NULL, b_writer, &wb));
	for (i = 0; i < readers; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].sh = &sh;
		r[i].seed = 100 + i;
		ASSERT_EQ(0, pthread_create(&r[i].tid, NULL, reader, &r[i]));
	}
	pthread_join(wa.tid, NULL);
	pthread_join(wb.tid, NULL);
	for (i = 0; i < readers; i++) {
		pthread_join(r[i].tid, NULL);
		report(_metadata, "reader", &r[i]);
		checked += r[i].checked;
		reads += r[i].ops;
	}
	report(_metadata, "writer of A", &wa);
	report(_metadata, "writer of B", &wb);
	TH_LOG("%ld punches and refills of A, %ld changes of B, %ld reads (%ld extents checked) by %d readers, %ld -ENOMEM retried, in %.0f s",
	       wa.ops, wb.ops, reads, checked, readers, wa.enomem + wb.enomem,
	       seconds);
	EXPECT_LT(0, checked);

	/* Quiet now: the map's own check, then both regions in full. */
	ASSERT_EQ(0, sx_em_check(self->fd));
	for (pos = 0; pos < A_LEN; pos = e.start + e.len, a_extents++) {
		ASSERT_EQ(0, sx_em_next(self->fd, pos, &e));
		ASSERT_EQ(pos, e.start);
		ASSERT_TRUE(a_extent_ok(&e));
	}
	ASSERT_EQ(A_LEN, pos);
	for (i = 0; i < B_CELLS; i++) {
		ret = sx_em_lookup(self->fd, B_START + i * B_CELL, &e);
		if (wb.b_present[i]) {
			ASSERT_EQ(0, ret);
			ASSERT_TRUE(b_extent_ok(&e));
			b_extents++;
		} else {
			ASSERT_EQ(-ENOENT, ret);
		}
	}
	EXPECT_EQ(a_extents + b_extents, sx_em_count(self->fd));
	TH_LOG("at the end: A in %ld extents, B %ld", a_extents, b_extents);
	free(wb.b_present);
}

TEST_HARNESS_MAIN
