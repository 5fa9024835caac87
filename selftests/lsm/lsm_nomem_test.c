// SPDX-License-Identifier: GPL-2.0
/*
 * The store when the kernel's allocations fail: run by the debug kernel's
 * guest (tools/vm/guest-debug.sh), which points failslab and
 * fail_page_alloc at the tasks that ask for it (task-filter); this test
 * asks for it, with /proc/self/make-it-fail, around rounds of random
 * puts, punches, batches, syncs, flushes, lookups, attaches and detaches.
 * Every allocation the store makes on the caller's behalf (the ioctl's
 * copies, memtable records and their pages, skiplist nodes, runs, log
 * and manifest buffers) may fail then.
 *
 * What must hold: a call fails only with -ENOMEM, or -EIO/-EROFS once
 * the store has turned read-only; a lookup returns the right answer or
 * -ENOMEM, never a wrong one; after the failures stop, a detach and an
 * attach give back exactly the state after some prefix of the calls, no
 * shorter than the last one made durable (a SYNC write, a sync, a flush
 * or a detach that returned 0), nothing invented; and the store is
 * writable again.  The guest's kmemleak scan then finds no leak of the
 * error paths.
 *
 * SL_LSM_ROUNDS (30) and SL_LSM_SEED (the time) tune it; a failure prints
 * the seed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include "lsm_ioctl.h"
#include "kselftest_harness.h"

#define REGION		512		/* units of the key space used */
#define BASE		0x5000000000ULL	/* the first unit's key */
#define OPS		100		/* calls per round, at most */
#define MAX_VLEN	3000
#define MAX_PUTS	(64 * 1024)

struct put {
	__u32 len;
	__u32 vlen;
	__u64 key;
};

/* A state of the region: the put showing at each unit, 0 for none. */
struct state {
	__u32 unit[REGION];
};

static struct put made[MAX_PUTS];
static __u32 nmade = 1;
/* The states after each call of a round; [0] is the round's start. */
static struct state states[OPS + 2];
static unsigned char vals[REGION][MAX_VLEN];
static struct sl_lsm_ioc_get_rec recs[REGION];
static unsigned char vbuf[MAX_VLEN];

static unsigned char value_byte(__u32 id, __u32 i)
{
	__u64 x = ((__u64)id << 20) ^ i;

	x *= 0x9e3779b97f4a7c15ULL;
	return x >> 56;
}

static void make_value(__u32 id, unsigned char *v)
{
	for (__u32 i = 0; i < made[id].vlen; i++)
		v[i] = value_byte(id, i);
}

static bool value_ok(__u32 id, const unsigned char *v)
{
	for (__u32 i = 0; i < made[id].vlen; i++)
		if (v[i] != value_byte(id, i))
			return false;
	return true;
}

static __u32 new_put(__u32 u, __u32 len, __u32 vlen)
{
	if (nmade == MAX_PUTS)
		abort();
	made[nmade] = (struct put){ .key = BASE + u, .len = len, .vlen = vlen };
	return nmade++;
}

static void apply(struct state *s, __u32 u, __u32 len, __u32 id)
{
	for (__u32 i = u; i < u + len; i++)
		s->unit[i] = id;
}

/* The units around @u that show the same put: its visible window. */
static void window(const struct state *s, __u32 u, __u32 *a, __u32 *b)
{
	__u32 id = s->unit[u];

	*a = *b = u;
	while (*a > 0 && s->unit[*a - 1] == id)
		(*a)--;
	while (*b + 1 < REGION && s->unit[*b + 1] == id)
		(*b)++;
}

/* Does lookup result @r of unit @u agree with state @s? */
static bool rec_matches(const struct state *s, __u32 u,
			const struct sl_lsm_ioc_get_rec *r,
			const unsigned char *v)
{
	__u32 id = s->unit[u], a, b;

	if (!id)
		return r->result == -ENOENT;
	window(s, u, &a, &b);
	return !r->result && r->ext_key == made[id].key &&
	       r->ext_len == made[id].len && r->vlen == made[id].vlen &&
	       r->start == BASE + a && r->len == b - a + 1 && value_ok(id, v);
}

/* Read every unit in one SL_LSM_IOC_GET: 0 or -errno. */
static int read_region(int fd)
{
	struct sl_lsm_ioc_get req = {
		.recs = (unsigned long)recs, .count = REGION,
	};

	memset(recs, 0, sizeof(recs));
	for (__u32 u = 0; u < REGION; u++) {
		recs[u].key = BASE + u;
		recs[u].value = (unsigned long)vals[u];
		recs[u].vbuf_size = MAX_VLEN;
	}
	return lsm_ioc(fd, SL_LSM_IOC_GET, &req);
}

static bool region_is(const struct state *s)
{
	for (__u32 u = 0; u < REGION; u++)
		if (!rec_matches(s, u, &recs[u], vals[u]))
			return false;
	return true;
}

/*
 * /proc/self/make-it-fail, opened once before any failure is asked for:
 * an open while failures are on may itself fail.  A write of it is
 * retried, for the same reason.
 */
static int fail_fd = -1;

static void make_it_fail(int on)
{
	char c = on ? '1' : '0';

	for (int tries = 0; write(fail_fd, &c, 1) != 1; tries++)
		if (tries == 1000)
			abort();
}

static bool ok_failure(int ret)
{
	return ret == -ENOMEM || ret == -EIO || ret == -EROFS;
}

static void rnd_range(unsigned long long *s, __u32 *u, __u32 *len)
{
	*len = dt_rnd(s) % 8 ? 1 + dt_rnd(s) % 16 : 1 + dt_rnd(s) % 128;
	*u = dt_rnd(s) % (REGION - *len + 1);
}

static __u32 rnd_vlen(unsigned long long *s)
{
	return dt_rnd(s) % 10 ? dt_rnd(s) % 200 : dt_rnd(s) % MAX_VLEN;
}

/*
 * One write of a round: a put, a punch or a batch, into @next (a copy of
 * the state before it); its result.
 */
static int one_write(int fd, unsigned long long *s, struct state *next,
		     __u32 flags)
{
	static unsigned char v[8][MAX_VLEN];
	unsigned int r = dt_rnd(s) % 10;
	__u32 u, len, id;

	if (r < 5) {
		rnd_range(s, &u, &len);
		id = new_put(u, len, rnd_vlen(s));
		make_value(id, v[0]);
		apply(next, u, len, id);
		return lsm_put(fd, BASE + u, len, v[0], made[id].vlen, flags);
	}
	if (r < 7) {
		rnd_range(s, &u, &len);
		apply(next, u, len, 0);
		return lsm_delete(fd, BASE + u, len, flags);
	}
	{
		struct sl_lsm_ioc_rec b[8];
		int n = 2 + dt_rnd(s) % 7;

		for (int i = 0; i < n; i++) {
			rnd_range(s, &u, &len);
			b[i] = (struct sl_lsm_ioc_rec){
				.key = BASE + u, .len = len,
				.kind = SL_LSM_REC_DELETE,
			};
			id = 0;
			if (dt_rnd(s) % 3) {
				id = new_put(u, len, rnd_vlen(s));
				make_value(id, v[i]);
				b[i].kind = SL_LSM_REC_PUT;
				b[i].vlen = made[id].vlen;
				b[i].value = (unsigned long)v[i];
			}
			apply(next, u, len, id);
		}
		return lsm_batch(fd, b, n, flags);
	}
}

/* Counts over the whole test, for the log. */
struct tally {
	unsigned long calls, enomem, read_only, attach_enomem, lookups_ok;
};

FIXTURE(store) {
	int fd;
};

FIXTURE_SETUP(store)
{
	self->fd = -1;
	if (access("/proc/self/make-it-fail", W_OK))
		SKIP(return, "no /proc/self/make-it-fail: the kernel lacks fault injection");
	fail_fd = open("/proc/self/make-it-fail", O_WRONLY);
	ASSERT_LE(0, fail_fd);
	self->fd = lsm_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(store)
{
	if (self->fd >= 0)
		close(self->fd);
	if (fail_fd >= 0)
		close(fail_fd);
}

TEST_F_TIMEOUT(store, rounds_under_failing_allocations, 900)
{
	unsigned long long seed = dt_seed("SL_LSM_SEED"), s = seed;
	int rounds = dt_env("SL_LSM_ROUNDS", 30);
	const char *disk = lsm_disk();
	struct sl_lsm_ioc_stats st;
	struct tally t = { 0 };
	int fd = self->fd, ret;

	TH_LOG("seed %llu (SL_LSM_SEED), %d rounds", seed, rounds);
	/* A small memtable: flushes and runs happen within a round. */
	ASSERT_EQ(0, lsm_attach_mt(fd, disk, SL_LSM_ATTACH_FORMAT,
				   SL_LSM_MEMTABLE_MIN));
	memset(&states[0], 0, sizeof(states[0]));

	for (int round = 0; round < rounds; round++) {
		int last = 0, durable = 0, maybe = -1, found = -1, tries = 0;
		int i;

		/* Some rounds start with an attach that may fail. */
		if (round % 4 == 3) {
			ASSERT_EQ(0, lsm_detach(fd));
			make_it_fail(1);
			while ((ret = lsm_attach(fd, disk, 0)) == -ENOMEM &&
			       ++tries < 100)
				t.attach_enomem++;
			make_it_fail(0);
			if (ret == -ENOMEM)
				ret = lsm_attach(fd, disk, 0);
			ASSERT_EQ(0, ret) {
				TH_LOG("round %d: attach: %s (seed %llu)",
				       round, strerror(-ret), seed);
			}
			ASSERT_EQ(0, read_region(fd));
			ASSERT_TRUE(region_is(&states[0])) {
				TH_LOG("round %d: attached with ENOMEM on the way: not the state before (seed %llu)",
				       round, seed);
			}
		}

		make_it_fail(1);
		for (i = 0; i < OPS; i++) {
			unsigned int r = dt_rnd(&s) % 20;
			__u32 flags = dt_rnd(&s) % 8 ? 0 : SL_LSM_SYNC;

			t.calls++;
			if (r < 4) {
				__u32 u = dt_rnd(&s) % REGION;
				struct sl_lsm_ioc_get_rec g;

				ret = lsm_get(fd, BASE + u, &g, vbuf,
					      sizeof(vbuf));
				if (ret == -ENOMEM) {
					t.enomem++;
					continue;
				}
				g.result = ret;
				EXPECT_TRUE(rec_matches(&states[last], u, &g,
							vbuf)) {
					TH_LOG("round %d: get %#llx: %d, extent %#llx+%llu: wrong (seed %llu)",
					       round, BASE + u, ret, g.ext_key,
					       g.ext_len, seed);
				}
				t.lookups_ok++;
				continue;
			}
			if (r < 5) {
				ret = dt_rnd(&s) % 2 ? lsm_sync(fd) :
							 lsm_flush(fd);
				if (!ret) {
					durable = last;
					continue;
				}
				break;
			}
			states[last + 1] = states[last];
			ret = one_write(fd, &s, &states[last + 1], flags);
			if (ret) {
				/* It may be in the log: a candidate. */
				maybe = last + 1;
				break;
			}
			last++;
			if (flags & SL_LSM_SYNC)
				durable = last;
		}
		make_it_fail(0);
		if (i < OPS) {
			EXPECT_TRUE(ok_failure(ret)) {
				TH_LOG("round %d, call %d: %s, not ENOMEM, EIO or EROFS (seed %llu)",
				       round, i, strerror(-ret), seed);
			}
			t.enomem += ret == -ENOMEM;
		}
		ASSERT_EQ(0, lsm_stats(fd, &st));
		t.read_only += st.read_only;

		/* A read-only store refuses the detach's flush: -EIO. */
		ret = lsm_detach(fd);
		if (!ret)
			durable = last;
		else
			EXPECT_TRUE(st.read_only && ret == -EIO) {
				TH_LOG("round %d: detach: %s (seed %llu)",
				       round, strerror(-ret), seed);
			}
		ASSERT_EQ(0, lsm_attach(fd, disk, 0)) {
			TH_LOG("round %d: attach after the failures (seed %llu)",
			       round, seed);
		}
		ASSERT_EQ(0, read_region(fd));
		/* The newest state that matches, from the durable one on. */
		if (maybe > 0 && region_is(&states[maybe]))
			found = maybe;
		for (int k = last; found < 0 && k >= durable; k--)
			if (region_is(&states[k]))
				found = k;
		ASSERT_LE(0, found) {
			TH_LOG("round %d: after attach the store is no state between call %d (durable) and %d (seed %llu)",
			       round, durable, last, seed);
		}
		states[0] = states[found];
		ASSERT_EQ(0, lsm_stats(fd, &st));
		ASSERT_EQ(0, st.read_only);
	}
	TH_LOG("%lu calls, %lu ENOMEM, %lu rounds ended read-only, %lu attaches failed with ENOMEM, %lu lookups checked",
	       t.calls, t.enomem, t.read_only, t.attach_enomem, t.lookups_ok);
	/* The test proves nothing if nothing failed. */
	EXPECT_LT(0, t.enomem);
	ASSERT_EQ(0, lsm_detach(fd));
}

TEST_HARNESS_MAIN
