// SPDX-License-Identifier: GPL-2.0
/*
 * Eight threads on one store, each checked against a model of extent
 * semantics: every thread owns a region of the key space (the last one
 * ends at 2^64 - 1), writes it with random range puts, punches and
 * atomic batches, some SYNC, and checks every lookup and scan of it
 * against its model while the others write theirs.  The memtable is
 * small, so memtables fill, are written out as runs and are read back
 * from them meanwhile; a ninth thread flushes a few times a second.  At the end
 * the whole store is checked again, then after a detach and an attach.
 *
 * SL_LSM_THREADS (8), SL_LSM_SECONDS (4) and SL_LSM_SEED (the time) tune
 * it; a failure prints the seed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include "lsm_ioctl.h"
#include "kselftest_harness.h"

#define REGION		2048		/* units each thread owns */
#define MAX_THREADS	16
#define MAX_VLEN	4000

struct model_put {
	__u64 key;
	__u64 len;
	__u32 vlen;
};

/* One thread's region and what it should hold. */
struct model {
	__u64 base;
	__u32 unit[REGION];		/* the put showing there; 0 for none */
	struct model_put *puts;		/* by id; 0 unused */
	__u32 nputs;
	__u32 cap;
	char vbuf[SL_LSM_VALUE_MAX];
	struct sl_lsm_ioc_piece pieces[64];
};

static struct model models[MAX_THREADS];

/* The value of put @id of thread @t: its bytes follow from both. */
static unsigned char value_byte(int t, __u32 id, __u32 i)
{
	__u64 x = ((__u64)t << 48) ^ ((__u64)id << 20) ^ i;

	x *= 0x9e3779b97f4a7c15ULL;
	return x >> 56;
}

static void make_value(int t, __u32 id, __u32 vlen, unsigned char *v)
{
	__u32 i;

	for (i = 0; i < vlen; i++)
		v[i] = value_byte(t, id, i);
}

static __u32 model_new_put(struct model *m, __u64 key, __u64 len, __u32 vlen)
{
	if (m->nputs + 1 >= m->cap) {
		m->cap = m->cap ? 2 * m->cap : 1024;
		m->puts = realloc(m->puts, m->cap * sizeof(*m->puts));
		if (!m->puts)
			abort();
	}
	if (!m->nputs)
		m->nputs = 1;
	m->puts[m->nputs] = (struct model_put){ key, len, vlen };
	return m->nputs++;
}

/* Apply a put (@id) or a punch (@id 0) of units [@u, @u + @len). */
static void model_apply(struct model *m, __u32 u, __u32 len, __u32 id)
{
	__u32 i;

	for (i = u; i < u + len; i++)
		m->unit[i] = id;
}

static __u32 rnd_vlen(unsigned long long *s)
{
	unsigned int r = dt_rnd(s) % 100;

	if (r < 70)
		return dt_rnd(s) % 65;
	if (r < 95)
		return 65 + dt_rnd(s) % 936;
	return 1001 + dt_rnd(s) % (MAX_VLEN - 1000);
}

static void rnd_range(unsigned long long *s, __u32 *u, __u32 *len)
{
	*len = dt_rnd(s) % 10 ? 1 + dt_rnd(s) % 32 : 1 + dt_rnd(s) % 512;
	*u = dt_rnd(s) % (REGION - *len + 1);
}

/* The window of unit @u's put: the units around it that show it. */
static void model_window(const struct model *m, __u32 u, __u32 *a, __u32 *b)
{
	__u32 id = m->unit[u];

	*a = *b = u;
	while (*a > 0 && m->unit[*a - 1] == id)
		(*a)--;
	while (*b + 1 < REGION && m->unit[*b + 1] == id)
		(*b)++;
}

/* Check a lookup of unit @u; 0, or 1 with the finding in @what. */
static int check_get(int fd, int t, struct model *m, __u32 u, char *what,
		     size_t len)
{
	struct sl_lsm_ioc_get_rec r = { 0 };
	unsigned char v[MAX_VLEN];
	__u32 id = m->unit[u], a, b;
	const struct model_put *p;
	int ret;

	ret = lsm_get(fd, m->base + u, &r, m->vbuf, sizeof(m->vbuf));
	if (!id) {
		if (ret == -ENOENT)
			return 0;
		snprintf(what, len, "thread %d: get %#llx: %d, expected ENOENT (found extent %#llx+%llu)",
			 t, m->base + u, ret, r.ext_key, r.ext_len);
		return 1;
	}
	if (ret) {
		snprintf(what, len, "thread %d: get %#llx: %d, expected put %u",
			 t, m->base + u, ret, id);
		return 1;
	}
	p = &m->puts[id];
	model_window(m, u, &a, &b);
	make_value(t, id, p->vlen, v);
	if (r.ext_key != p->key || r.ext_len != p->len || r.vlen != p->vlen ||
	    r.start != m->base + a || r.len != b - a + 1 ||
	    memcmp(m->vbuf, v, p->vlen)) {
		snprintf(what, len, "thread %d: get %#llx: extent %#llx+%llu window %#llx+%llu vlen %u; expected put %u %#llx+%llu window %#llx+%u vlen %u%s",
			 t, m->base + u, r.ext_key, r.ext_len, r.start, r.len,
			 r.vlen, id, p->key, p->len, m->base + a, b - a + 1,
			 p->vlen, memcmp(m->vbuf, v, p->vlen) ? " (value differs)" : "");
		return 1;
	}
	return 0;
}

/*
 * Scan the region and compare with the model's runs of units; adjacent
 * pieces of one extent are taken together (a scan may split them).
 */
static int check_scan(int fd, int t, struct model *m, char *what, size_t len)
{
	static __thread unsigned char vals[SL_LSM_VALUE_MAX];
	struct sl_lsm_ioc_scan s = { .pos = m->base };
	__u64 end = m->base + (REGION - 1);
	__u32 u = 0, i, prev = 0;

	for (;;) {
		s.pieces = (unsigned long)m->pieces;
		s.values = (unsigned long)vals;
		s.values_size = sizeof(vals);
		s.max = 64;
		if (lsm_ioc(fd, SL_LSM_IOC_SCAN, &s)) {
			snprintf(what, len, "thread %d: scan: %s", t,
				 strerror(errno));
			return 1;
		}
		for (i = 0; i < s.count; i++) {
			const struct sl_lsm_ioc_piece *p = &m->pieces[i];
			const struct model_put *mp;
			unsigned char v[MAX_VLEN];
			__u32 id, a, b, pu;

			if (p->start > end)
				goto tail;
			pu = p->start - m->base;
			/* Units skipped before it must be empty. */
			for (; u < pu; u++)
				if (m->unit[u])
					goto missing;
			id = m->unit[pu];
			if (!id)
				goto extra;
			mp = &m->puts[id];
			model_window(m, pu, &a, &b);
			make_value(t, id, mp->vlen, v);
			if (p->ext_key != mp->key || p->ext_len != mp->len ||
			    p->vlen != mp->vlen || p->len > b - pu + 1 ||
			    memcmp(vals + p->value_off, v, p->vlen)) {
				snprintf(what, len, "thread %d: scan: piece %#llx+%llu of extent %#llx+%llu vlen %u, expected put %u %#llx+%llu window %#llx+%u vlen %u",
					 t, p->start, p->len, p->ext_key,
					 p->ext_len, p->vlen, id, mp->key,
					 mp->len, m->base + a, b - a + 1,
					 mp->vlen);
				return 1;
			}
			/* A window starts a piece, or one piece goes on. */
			if (pu != a && !(pu == u && prev == id))
				goto extra;
			u = pu + p->len;
			prev = id;
		}
		if (!s.count || s.done)
			break;
	}
tail:
	for (; u < REGION; u++)
		if (m->unit[u])
			goto missing;
	return 0;
missing:
	snprintf(what, len, "thread %d: scan skipped unit %#llx (put %u)", t,
		 m->base + u, m->unit[u]);
	return 1;
extra:
	snprintf(what, len, "thread %d: scan near %#llx: a piece where the model has none, or starting inside a window",
		 t, m->base + u);
	return 1;
}

/* One operation of thread @w->id on its region. */
static int worker_op(struct dt_worker *w)
{
	struct model *m = &models[w->id];
	unsigned long long *s = &w->seed;
	unsigned int r = dt_rnd(s) % 100;
	__u32 flags = dt_rnd(s) % 50 ? 0 : SL_LSM_SYNC;
	static __thread unsigned char v[16][MAX_VLEN];
	char what[400];
	__u32 u, len;
	int ret;

	if (r < 40) {
		__u32 vlen = rnd_vlen(s), id;

		rnd_range(s, &u, &len);
		id = model_new_put(m, m->base + u, len, vlen);
		make_value(w->id, id, vlen, v[0]);
		ret = lsm_put(w->fd, m->base + u, len, v[0], vlen, flags);
		if (!ret)
			model_apply(m, u, len, id);
		return ret;
	}
	if (r < 52) {
		rnd_range(s, &u, &len);
		ret = lsm_delete(w->fd, m->base + u, len, flags);
		if (!ret)
			model_apply(m, u, len, 0);
		return ret;
	}
	if (r < 62) {
		struct sl_lsm_ioc_rec recs[16];
		__u32 ids[16], us[16], lens[16];
		int n = 2 + dt_rnd(s) % 15, i;

		for (i = 0; i < n; i++) {
			rnd_range(s, &us[i], &lens[i]);
			recs[i] = (struct sl_lsm_ioc_rec){
				.key = m->base + us[i], .len = lens[i],
				.kind = SL_LSM_REC_DELETE,
			};
			ids[i] = 0;
			if (dt_rnd(s) % 4) {
				recs[i].vlen = rnd_vlen(s);
				ids[i] = model_new_put(m, recs[i].key, lens[i],
						       recs[i].vlen);
				make_value(w->id, ids[i], recs[i].vlen, v[i]);
				recs[i].value = (unsigned long)v[i];
				recs[i].kind = SL_LSM_REC_PUT;
			}
		}
		ret = lsm_batch(w->fd, recs, n, flags);
		for (i = 0; !ret && i < n; i++)
			model_apply(m, us[i], lens[i], ids[i]);
		return ret;
	}
	if (r < 95) {
		if (check_get(w->fd, w->id, m, dt_rnd(s) % REGION, what,
			      sizeof(what)))
			dt_worker_bad(w, "%s", what);
		return 0;
	}
	if (r < 99) {
		if (check_scan(w->fd, w->id, m, what, sizeof(what)))
			dt_worker_bad(w, "%s", what);
		return 0;
	}
	return dt_rnd(s) % 2 ? lsm_flush(w->fd) : lsm_sync(w->fd);
}

/*
 * Every unit of thread @t's region in one SL_LSM_IOC_GET, each result
 * against the model; 0, or 1 with the first finding in @what.
 */
static int check_region(int fd, int t, struct model *m, char *what,
			size_t len)
{
	static struct sl_lsm_ioc_get_rec recs[REGION];
	static unsigned char vals[REGION][MAX_VLEN];
	struct sl_lsm_ioc_get req = {
		.recs = (unsigned long)recs, .count = REGION,
	};
	unsigned char v[MAX_VLEN];
	__u32 u, found = 0;

	memset(recs, 0, sizeof(recs));
	for (u = 0; u < REGION; u++) {
		recs[u].key = m->base + u;
		recs[u].value = (unsigned long)vals[u];
		recs[u].vbuf_size = MAX_VLEN;
	}
	if (lsm_ioc(fd, SL_LSM_IOC_GET, &req)) {
		snprintf(what, len, "thread %d: GET of the region: %s", t,
			 strerror(errno));
		return 1;
	}
	for (u = 0; u < REGION; u++) {
		const struct sl_lsm_ioc_get_rec *r = &recs[u];
		__u32 id = m->unit[u], a, b;
		const struct model_put *p = &m->puts[id];

		if (!id) {
			if (r->result == -ENOENT)
				continue;
			snprintf(what, len, "thread %d: get %#llx: %d, expected ENOENT",
				 t, r->key, r->result);
			return 1;
		}
		found++;
		model_window(m, u, &a, &b);
		make_value(t, id, p->vlen, v);
		if (r->result || r->ext_key != p->key || r->ext_len != p->len ||
		    r->vlen != p->vlen || r->start != m->base + a ||
		    r->len != b - a + 1 || memcmp(vals[u], v, p->vlen)) {
			snprintf(what, len, "thread %d: get %#llx: %d extent %#llx+%llu window %#llx+%llu vlen %u; expected put %u %#llx+%llu window %#llx+%u vlen %u",
				 t, r->key, r->result, r->ext_key, r->ext_len,
				 r->start, r->len, r->vlen, id, p->key, p->len,
				 m->base + a, b - a + 1, p->vlen);
			return 1;
		}
	}
	if (req.found != found) {
		snprintf(what, len, "thread %d: GET found %u, the model %u", t,
			 req.found, found);
		return 1;
	}
	return 0;
}

/*
 * Beside the eight, a thread that writes the memtable out every 300 to
 * 500 ms, so that lookups and scans meet runs under them even where the
 * memtable would not fill in the time (a debug kernel).  Not more often:
 * until compaction, every lookup consults every run (40 runs made the
 * checks at the end take minutes under emulation).  It naps between
 * checks of the clock, since the runner reads the clock only every 16
 * calls.
 */
static int flusher_op(struct dt_worker *w)
{
	static __thread double next;
	double now = dt_now();

	if (now < next) {
		usleep(20000);
		return 0;
	}
	next = now + 0.3 + (dt_rnd(&w->seed) % 200) / 1000.0;
	return lsm_flush(w->fd);
}

static void check_all(struct __test_metadata *_metadata, int fd, int threads,
		      const char *when)
{
	char what[400];
	int t;

	for (t = 0; t < threads; t++) {
		EXPECT_EQ(0, check_scan(fd, t, &models[t], what, sizeof(what))) {
			TH_LOG("%s: %s", when, what);
		}
		EXPECT_EQ(0, check_region(fd, t, &models[t], what,
					  sizeof(what))) {
			TH_LOG("%s: %s", when, what);
		}
	}
}

FIXTURE(store) {
	int unused;
};

FIXTURE_SETUP(store)
{
}

FIXTURE_TEARDOWN(store)
{
}

/* Software emulation is slow: the checks alone take many seconds there. */
TEST_F_TIMEOUT(store, eight_threads_against_a_model, 600)
{
	int threads = dt_env("SL_LSM_THREADS", 8);
	struct dt_role roles[] = {
		{ .name = "writer", .threads = threads, .op = worker_op },
		{ .name = "flusher", .threads = 1, .op = flusher_op },
	};
	struct dt_role *role = &roles[0];
	struct dt_run run = {
		.mode = DT_FD_SHARED,
		.seconds = dt_env("SL_LSM_SECONDS", 4),
		.seed = dt_seed("SL_LSM_SEED"),
	};
	const char *disk = lsm_disk();
	struct sl_lsm_ioc_stats st;
	const int ok[] = { -1 };
	char errs[512];
	int fd, t, first;

	fd = lsm_open();
	ASSERT_LE(0, fd);
	ASSERT_LE(1, threads);
	ASSERT_GE(MAX_THREADS, threads);
	TH_LOG("seed %llu (SL_LSM_SEED), %d threads, %.1f s", run.seed,
	       threads, run.seconds);
	for (t = 0; t < threads; t++) {
		memset(&models[t], 0, sizeof(models[t]));
		models[t].base = t == threads - 1 ? ~0ULL - (REGION - 1) :
						    (__u64)t << 58 | 12345;
	}
	ASSERT_EQ(0, lsm_attach_mt(fd, disk, SL_LSM_ATTACH_FORMAT,
				   4 * SL_LSM_MEMTABLE_MIN));
	run.fd = fd;
	ASSERT_EQ(0, dt_run_roles(&run, roles, 2));
	dt_errs_format(&role->errs, errs, sizeof(errs));
	TH_LOG("%s", errs);
	EXPECT_EQ(0, dt_errs_other(&role->errs, ok, &first)) {
		TH_LOG("unexpected errno %s (seed %llu)", dt_errname(first),
		       run.seed);
	}
	EXPECT_EQ(0, dt_errs_other(&roles[1].errs, ok, &first)) {
		TH_LOG("flusher: errno %s", dt_errname(first));
	}
	ASSERT_EQ(0, role->bad) {
		TH_LOG("%s (seed %llu)", role->what, run.seed);
	}
	ASSERT_EQ(0, lsm_stats(fd, &st));
	TH_LOG("%llu flushes, %llu runs, %llu stalls, seq %llu", st.flushes,
	       st.runs, st.stalls, st.seq);
	EXPECT_LT(0, st.flushes);
	EXPECT_EQ(0, st.read_only);
	check_all(_metadata, fd, threads, "after the threads");
	ASSERT_EQ(0, lsm_detach(fd));
	ASSERT_EQ(0, lsm_attach(fd, disk, 0));
	check_all(_metadata, fd, threads, "after detach and attach");
	close(fd);
	for (t = 0; t < threads; t++)
		free(models[t].puts);
}

TEST_HARNESS_MAIN
