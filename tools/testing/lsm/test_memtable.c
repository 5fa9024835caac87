// SPDX-License-Identifier: GPL-2.0
/*
 * The memtable (lsm/memtable.c) against a model of extent semantics: a
 * sorted array of visible windows, each pointing at the extent as put.
 * Random puts over puts, punches (tombstones), and extents at the ends of
 * the key space long enough that a record's address plus its range wraps
 * (the memtable stores those as two pieces and must show one window).
 * After every operation, gets at its edges and at random units are
 * compared with the model, window, extent and value; every few operations
 * a whole walk with lsm_mem_next() is.  Then malformed extents (-EINVAL),
 * and failed allocations at every point of a put (-ENOMEM leaves the
 * memtable as it was).  Each path of a put (an insert over nothing, a
 * replace of exactly one piece, a punch then an insert), case by case.  Every pool kind; at the end the pool holds no
 * memory and nothing leaked.
 *
 * Usage: test_memtable [--seed N] [--ops N]
 */
#include <getopt.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include "memtable.h"
#include "pool.h"
#include "rnd.h"

#define EXPECT(cond) do { if (!(cond)) { \
	fprintf(stderr, "test_memtable: %s:%d: %s (seed %llu, op %lu)\n", \
		__FILE__, __LINE__, #cond, (unsigned long long)seed, op); \
	exit(1); } } while (0)

static u64 seed = 1;
static unsigned long nops = 6000;
static unsigned long op;

static u64 rnd(u64 *s)
{
	return xorshift64(s);
}

/* The model: extents as put, and the visible windows in key order. */
struct m_ext {
	struct lsm_extent ext;
	u8 *value;
};

struct m_win {
	u64 start;
	u64 last;
	unsigned int ext;
};

static struct m_ext *exts;
static unsigned int nr_exts, cap_exts;
static struct m_win *wins;
static unsigned int nr_wins, cap_wins;

static void model_reset(void)
{
	unsigned int i;

	for (i = 0; i < nr_exts; i++)
		free(exts[i].value);
	nr_exts = 0;
	nr_wins = 0;
}

static void win_insert(unsigned int at, struct m_win w)
{
	if (nr_wins == cap_wins) {
		cap_wins = cap_wins ? 2 * cap_wins : 256;
		wins = realloc(wins, cap_wins * sizeof(*wins));
		if (!wins)
			abort();
	}
	memmove(&wins[at + 1], &wins[at], (nr_wins - at) * sizeof(*wins));
	wins[at] = w;
	nr_wins++;
}

static void win_remove(unsigned int at)
{
	memmove(&wins[at], &wins[at + 1], (nr_wins - at - 1) * sizeof(*wins));
	nr_wins--;
}

/* Put @e (already in exts[id]) over the model's windows. */
static void model_apply(unsigned int id)
{
	u64 key = exts[id].ext.key, last = lsm_last(key, exts[id].ext.len);
	unsigned int i = 0;

	while (i < nr_wins && wins[i].last < key)
		i++;
	while (i < nr_wins && wins[i].start <= last) {
		struct m_win w = wins[i];

		if (w.start < key && w.last > last) {
			wins[i].last = key - 1;
			w.start = last + 1;
			win_insert(i + 1, w);
			i++;
			break;
		}
		if (w.start < key) {
			wins[i].last = key - 1;
			i++;
		} else if (w.last > last) {
			wins[i].start = last + 1;
			break;
		} else {
			win_remove(i);
		}
	}
	win_insert(i, (struct m_win){ key, last, id });
}

/* The window covering @k, or the first after it with @next; or -1. */
static int model_find(u64 k, bool next)
{
	unsigned int lo = 0, hi = nr_wins;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (wins[mid].last < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == nr_wins || (!next && wins[lo].start > k))
		return -1;
	return lo;
}

static u8 vbuf[LSM_VALUE_MAX];

/*
 * After a put failed with -ENOMEM, the memtable may hold a window as
 * several pieces of its record (see lsm_mem_restore()): the same
 * content, cut differently.  Then windows are compared as content:
 * each piece lies inside the model's window, and a walk joins the
 * adjacent pieces of one extent before comparing.
 */
static bool cut_differently;

static void expect_piece(const struct lsm_piece *p, const struct m_win *w)
{
	const struct m_ext *e = &exts[w->ext];

	if (cut_differently) {
		EXPECT(p->start >= w->start);
		EXPECT(lsm_last(p->start, p->len) <= w->last);
	} else {
		EXPECT(p->start == w->start);
		EXPECT(lsm_last(p->start, p->len) == w->last);
	}
	EXPECT(p->ext.key == e->ext.key && p->ext.len == e->ext.len);
	EXPECT(p->ext.seq == e->ext.seq && p->ext.flags == e->ext.flags);
	EXPECT(p->ext.vlen == e->ext.vlen);
	EXPECT(!memcmp(p->ext.value, e->value, e->ext.vlen));
}

static void check_get(struct lsm_memtable *mt, u64 k)
{
	struct lsm_piece p;
	int w = model_find(k, false);
	int ret = lsm_mem_get(mt, k, &p, vbuf, sizeof(vbuf));

	EXPECT(ret == (w < 0 ? -ENOENT : 0));
	if (w >= 0) {
		EXPECT(p.start <= k && k <= lsm_last(p.start, p.len));
		expect_piece(&p, &wins[w]);
		EXPECT(p.ext.value == vbuf);
	}
}

/* The whole memtable, window by window; and a get without a buffer. */
static void check_walk(struct lsm_memtable *mt)
{
	struct lsm_piece p;
	unsigned int i = 0;
	u64 pos = 0;

	while (!lsm_mem_next(mt, pos, &p, vbuf, 16)) {
		const struct m_ext *e;
		struct lsm_piece more;

		EXPECT(i < nr_wins);
		while (cut_differently && p.start + p.len &&
		       !lsm_mem_get(mt, p.start + p.len, &more, NULL, 0) &&
		       more.ext.seq == p.ext.seq)
			p.len += more.len;
		e = &exts[wins[i].ext];
		EXPECT(p.start == wins[i].start);
		EXPECT(lsm_last(p.start, p.len) == wins[i].last);
		EXPECT(p.ext.seq == e->ext.seq);
		EXPECT(!memcmp(vbuf, e->value, min_t(u32, e->ext.vlen, 16)));
		i++;
		pos = p.start + p.len;
		if (!pos)
			break;
	}
	EXPECT(i == nr_wins);
	if (nr_wins) {
		rcu_read_lock();
		EXPECT(!lsm_mem_get(mt, wins[0].start, &p, NULL, 0));
		EXPECT(p.ext.vlen == exts[wins[0].ext].ext.vlen);
		EXPECT(!memcmp(p.ext.value, exts[wins[0].ext].value, p.ext.vlen));
		rcu_read_unlock();
	}
}

/* A random extent: dense small keys mostly, the ends of the space too. */
static void random_ext(u64 *s, struct m_ext *e)
{
	u64 r = rnd(s) % 100, key, len;
	u32 vlen;

	if (r < 80) {
		key = 1000 + rnd(s) % 3000;
		len = 1 + rnd(s) % ((rnd(s) & 3) ? 8 : 400);
	} else if (r < 88) {
		/* Up to the last unit, long: crosses the wrap of its record. */
		key = U64_MAX - rnd(s) % (1ULL << 62);
		len = U64_MAX - key + 1 - rnd(s) % 4;
	} else if (r < 94) {
		key = rnd(s) % 8;
		len = U64_MAX - key - rnd(s) % (1ULL << 40);
		len = len ?: 1;
	} else {
		key = rnd(s);
		len = key == U64_MAX ? 1 : 1 + rnd(s) % (U64_MAX - key);
	}
	e->ext.key = key;
	e->ext.len = len;
	e->ext.flags = (rnd(s) % 6 == 0) ? LSM_EXT_TOMBSTONE : 0;
	r = rnd(s) % 100;
	vlen = r < 70 ? rnd(s) % 200 : r < 97 ? rnd(s) % 5000 :
	       LSM_VALUE_MAX - rnd(s) % 200;
	if (e->ext.flags & LSM_EXT_TOMBSTONE)
		vlen = 0;
	e->ext.vlen = vlen;
	e->value = malloc(vlen + 1);
	if (!e->value)
		abort();
	for (u32 i = 0; i < vlen; i++)
		e->value[i] = (u8)rnd(s);
	e->ext.value = vlen ? e->value : NULL;
}

static unsigned int new_ext(u64 *s)
{
	if (nr_exts == cap_exts) {
		cap_exts = cap_exts ? 2 * cap_exts : 256;
		exts = realloc(exts, cap_exts * sizeof(*exts));
		if (!exts)
			abort();
	}
	random_ext(s, &exts[nr_exts]);
	exts[nr_exts].ext.seq = nr_exts + 1;
	return nr_exts++;
}

/* An extent of the model with the given range, a short value or none. */
static unsigned int fixed_ext(u64 key, u64 len, u32 flags)
{
	struct m_ext *e;

	if (nr_exts == cap_exts) {
		cap_exts = cap_exts ? 2 * cap_exts : 256;
		exts = realloc(exts, cap_exts * sizeof(*exts));
		if (!exts)
			abort();
	}
	e = &exts[nr_exts];
	memset(e, 0, sizeof(*e));
	e->ext.key = key;
	e->ext.len = len;
	e->ext.flags = flags;
	e->ext.vlen = flags & LSM_EXT_TOMBSTONE ? 0 : nr_exts % 3;
	e->value = malloc(4);
	if (!e->value)
		abort();
	memset(e->value, 'a' + nr_exts % 26, 4);
	e->ext.value = e->ext.vlen ? e->value : NULL;
	e->ext.seq = nr_exts + 1;
	return nr_exts++;
}

static void check_edges(struct lsm_memtable *mt, u64 *s, const struct lsm_extent *e)
{
	u64 last = lsm_last(e->key, e->len);

	check_get(mt, e->key);
	check_get(mt, last);
	if (e->key)
		check_get(mt, e->key - 1);
	if (last != U64_MAX)
		check_get(mt, last + 1);
	check_get(mt, e->key + rnd(s) % e->len);
	if (nr_wins) {
		const struct m_win *w = &wins[rnd(s) % nr_wins];

		check_get(mt, w->start);
		check_get(mt, w->last);
	}
}

/*
 * Punch everything, then put one unit over and over: once the dead
 * records are freed (in batches, after a grace period, at a later put),
 * the memtable counts about what a fresh one with the same records
 * counts: at most the small records wait, while what was punched was
 * over 300 KB.  An arena keeps every byte until
 * the memtable goes.
 */
static void check_bytes_return(struct lsm_pool *pool, struct lsm_memtable *mt)
{
	static const u8 v[8] = "12345678";
	const struct lsm_extent all = {
		.key = 0, .len = U64_MAX, .seq = U64_MAX - 300,
		.flags = LSM_EXT_TOMBSTONE,
	};
	const struct lsm_extent top = {
		.key = U64_MAX, .len = 1, .seq = U64_MAX - 300,
		.flags = LSM_EXT_TOMBSTONE,
	};
	struct lsm_extent one = { .key = 77, .len = 1, .vlen = 8, .value = v };
	struct lsm_memtable *fresh = lsm_mem_create(pool, GFP_KERNEL);
	struct lsm_extent big = { .len = 1, .vlen = 1000, .value = vbuf };
	u64 before, after, base;
	unsigned int i;

	EXPECT(fresh);
	for (i = 0; i < 300; i++) {
		big.key = 1ULL << 40 | i;
		big.seq = U64_MAX - 1000 + i;
		EXPECT(lsm_mem_apply(mt, &big, GFP_KERNEL) == 0);
	}
	before = lsm_mem_bytes(mt);
	EXPECT(lsm_mem_apply(mt, &all, GFP_KERNEL) == 0);
	EXPECT(lsm_mem_apply(mt, &top, GFP_KERNEL) == 0);
	for (i = 0; i < 200; i++) {
		one.seq = U64_MAX - 200 + i;
		EXPECT(lsm_mem_apply(mt, &one, GFP_KERNEL) == 0);
		if (i % 50 == 0)
			rcu_barrier();
	}
	rcu_barrier();
	EXPECT(lsm_mem_apply(mt, &one, GFP_KERNEL) == 0);
	EXPECT(lsm_mem_apply(fresh, &all, GFP_KERNEL) == 0);
	EXPECT(lsm_mem_apply(fresh, &top, GFP_KERNEL) == 0);
	EXPECT(lsm_mem_apply(fresh, &one, GFP_KERNEL) == 0);
	EXPECT(lsm_mem_pieces(mt) == lsm_mem_pieces(fresh));
	after = lsm_mem_bytes(mt);
	base = lsm_mem_bytes(fresh);
	EXPECT(before > 300 * 1000);
	if (lsm_pool_kind(pool) == LSM_POOL_ARENA) {
		/* Dead records keep their bytes until the memtable goes. */
		EXPECT(after - base >= 300 * 1000);
	} else {
		EXPECT(after >= base);
		/* At most the 200 small records wait; 300 KB were punched. */
		EXPECT(after - base <= 200 * lsm_pool_charge(pool, 128));
	}
	lsm_mem_destroy(fresh);
}

/*
 * Each path of lsm_mem_apply(), case by case: a put over nothing is one
 * insert (an empty memtable, next to a piece on either side, between two,
 * at both ends of the key space); a put over exactly one piece is one
 * replace (a point over a point, a long extent over the same one); any
 * other put over something is refused by both and goes through the punch
 * (inside a piece, over one unit at either edge, over several, over a
 * tombstone).  After each, every edge and the whole walk match the model,
 * and no piece is left over: one piece per window.
 */
enum { PUT_INSERT, PUT_REPLACE, PUT_PUNCH };

static void check_fast_slow(struct lsm_pool *pool)
{
	static const struct { u64 key, len; u32 flags; int path; } puts[] = {
		{ 100, 10, 0, PUT_INSERT },		/* empty memtable */
		{ 110, 10, 0, PUT_INSERT },		/* right next to it */
		{ 90, 10, 0, PUT_INSERT },		/* left next to it */
		{ 120, 1, 0, PUT_INSERT },		/* a point next to it */
		{ 122, 1, 0, PUT_INSERT },		/* one unit apart */
		{ 121, 1, 0, PUT_INSERT },		/* between two */
		{ 121, 1, 0, PUT_REPLACE },		/* a point over it */
		{ 0, 1, 0, PUT_INSERT },		/* the first unit */
		{ U64_MAX, 1, 0, PUT_INSERT },		/* the last unit */
		{ U64_MAX, 1, LSM_EXT_TOMBSTONE, PUT_REPLACE },
		{ 105, 1, 0, PUT_PUNCH },		/* inside: splits it */
		{ 106, 4, 0, PUT_REPLACE },		/* over the split's tail */
		{ 119, 1, 0, PUT_PUNCH },		/* a piece's last unit */
		{ 110, 1, 0, PUT_PUNCH },		/* a piece's first unit */
		{ 95, 20, 0, PUT_PUNCH },		/* over several */
		{ 95, 20, 0, PUT_REPLACE },		/* exactly over it */
		{ 80, 11, 0, PUT_PUNCH },		/* over the left edge */
		{ 121, 5, 0, PUT_PUNCH },		/* over points and past */
		{ 200, 100, LSM_EXT_TOMBSTONE, PUT_INSERT },
		{ 250, 1, 0, PUT_PUNCH },		/* inside the punch */
		{ 150, 50, 0, PUT_INSERT },		/* up to the punch */
		{ 1, 1 << 20, 0, PUT_PUNCH },		/* all but both ends */
		{ 5, 1, 0, PUT_PUNCH },			/* a point inside it */
	};
	struct lsm_memtable *mt = lsm_mem_create(pool, GFP_KERNEL);
	u64 s = seed;
	unsigned int i;

	EXPECT(mt);
	model_reset();
	for (op = 0; op < ARRAY_SIZE(puts); op++) {
		u64 key = puts[op].key, last = lsm_last(key, puts[op].len);
		unsigned int id = fixed_ext(key, puts[op].len, puts[op].flags);
		int w = model_find(key, true), path = PUT_INSERT;

		/* The table says which path each put takes: keep it true. */
		if (w >= 0 && wins[w].start <= last)
			path = wins[w].start == key && wins[w].last == last ?
			       PUT_REPLACE : PUT_PUNCH;
		EXPECT(path == puts[op].path);
		EXPECT(lsm_mem_apply(mt, &exts[id].ext, GFP_KERNEL) == 0);
		model_apply(id);
		for (i = 0; i < 4; i++)
			check_edges(mt, &s, &exts[id].ext);
		check_walk(mt);
		/* No record here is long enough to cross its address's wrap. */
		EXPECT(lsm_mem_pieces(mt) == nr_wins);
	}
	lsm_mem_destroy(mt);
}

/* Random puts and punches checked against the model. */
static unsigned long run_diff(struct lsm_pool *pool, u64 s, unsigned long n)
{
	struct lsm_memtable *mt = lsm_mem_create(pool, GFP_KERNEL);
	unsigned long wrapped = 0;

	EXPECT(mt);
	model_reset();
	for (op = 0; op < n; op++) {
		unsigned int id = new_ext(&s);

		EXPECT(lsm_mem_apply(mt, &exts[id].ext, GFP_KERNEL) == 0);
		model_apply(id);
		check_edges(mt, &s, &exts[id].ext);
		/* A record across its address's wrap is two pieces. */
		if (lsm_mem_pieces(mt) != nr_wins)
			wrapped++;
		EXPECT(lsm_mem_pieces(mt) >= nr_wins);
		if (op % 64 == 0 || op == n - 1)
			check_walk(mt);
	}
	/* Every live record is counted at least by its value. */
	rcu_barrier();
	EXPECT(lsm_mem_bytes(mt) >= nr_wins * 80);
	check_bytes_return(pool, mt);
	lsm_mem_destroy(mt);
	return wrapped;
}

static void check_einval(struct lsm_pool *pool)
{
	struct lsm_memtable *mt = lsm_mem_create(pool, GFP_KERNEL);
	static const u8 v[4] = { 1, 2, 3, 4 };
	struct lsm_extent bad[] = {
		{ .key = 5, .len = 0 },
		{ .key = U64_MAX, .len = 2 },
		{ .key = 1, .len = 1, .flags = 0x2 },
		{ .key = 1, .len = 1, .vlen = LSM_VALUE_MAX + 1, .value = vbuf },
		{ .key = 1, .len = 1, .vlen = 4 },
		{ .key = 1, .len = 1, .vlen = 4, .value = v,
		  .flags = LSM_EXT_TOMBSTONE },
	};
	struct lsm_extent ok = { .key = U64_MAX, .len = 1, .vlen = 4, .value = v };
	struct lsm_piece p;
	unsigned int i;

	EXPECT(mt);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT(lsm_mem_apply(mt, &bad[i], GFP_KERNEL) == -EINVAL);
	EXPECT(lsm_mem_pieces(mt) == 0);
	EXPECT(lsm_mem_get(mt, 1, &p, NULL, 0) == -ENOENT);
	EXPECT(lsm_mem_next(mt, 0, &p, NULL, 0) == -ENOENT);
	EXPECT(lsm_mem_apply(mt, &ok, GFP_KERNEL) == 0);
	EXPECT(lsm_mem_next(mt, 0, &p, vbuf, 2) == 0);
	EXPECT(p.start == U64_MAX && p.len == 1 && p.ext.vlen == 4);
	EXPECT(vbuf[0] == 1 && vbuf[1] == 2);
	lsm_mem_destroy(mt);
}

/*
 * Failed allocations at the n-th allocation of a put, for every n until
 * one succeeds: -ENOMEM leaves the memtable as the model says it was.
 * Non-blocking flags, so that the memtable does not retry.
 */
static void check_enomem(struct lsm_pool *pool, u64 s)
{
	struct lsm_memtable *mt = lsm_mem_create(pool, GFP_KERNEL);
	unsigned long failures = 0, retried = 0;

	EXPECT(mt);
	model_reset();
	for (op = 0; op < 300; op++) {
		unsigned int id = new_ext(&s);
		unsigned long nth;
		int ret;

		for (nth = 1;; nth++) {
			cut_differently = true;
			lsm_pool_drain(pool);
			shim_fail_nth(nth);
			ret = lsm_mem_apply(mt, &exts[id].ext, GFP_NOWAIT);
			shim_fail_off();
			if (!ret)
				break;
			EXPECT(ret == -ENOMEM);
			failures++;
			check_walk(mt);
		}
		model_apply(id);
		check_edges(mt, &s, &exts[id].ext);
		/*
		 * With flags that may block, a failure inside the write
		 * section is retried there (one outside it, of the record or
		 * the scratch list, is -ENOMEM); either way the memtable
		 * matches the model, and no record is leaked (the pool must
		 * be empty at the end).
		 */
		id = new_ext(&s);
		lsm_pool_drain(pool);
		shim_fail_nth(1 + rnd(&s) % 8);
		ret = lsm_mem_apply(mt, &exts[id].ext, GFP_KERNEL);
		shim_fail_off();
		EXPECT(ret == 0 || ret == -ENOMEM);
		if (ret)
			check_walk(mt);
		if (ret)
			EXPECT(!lsm_mem_apply(mt, &exts[id].ext, GFP_KERNEL));
		retried += !ret;
		model_apply(id);
		check_edges(mt, &s, &exts[id].ext);
	}
	check_walk(mt);
	cut_differently = false;
	EXPECT(failures > 0 && retried > 0);
	lsm_mem_destroy(mt);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'o' },
		{}
	};
	static const enum lsm_pool_kind kinds[] = {
		LSM_POOL_CLASSES, LSM_POOL_KMALLOC, LSM_POOL_ARENA,
	};
	unsigned long wrapped = 0;
	unsigned int k;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0) ?: 1;
			break;
		case 'o':
			nops = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: test_memtable [--seed N] [--ops N]\n");
			return 2;
		}
	}
	shim_rcu_register();
	EXPECT(!shim_modules_load());
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct lsm_pool *pool = lsm_pool_create(kinds[k], GFP_KERNEL);

		EXPECT(pool);
		check_fast_slow(pool);
		wrapped += run_diff(pool, seed * 3 + k, k ? nops / 4 : nops);
		check_einval(pool);
		check_enomem(pool, seed * 7 + k);
		lsm_pool_drain(pool);
		EXPECT(lsm_pool_bytes(pool) == 0);
		lsm_pool_destroy(pool);
	}
	/* The wrap is a path of its own: it must have been taken. */
	EXPECT(wrapped > 0);
	model_reset();
	shim_modules_unload();
	rcu_barrier();
	EXPECT(shim_kmalloc_live() == 0);
	shim_rcu_unregister();
	free(exts);
	free(wins);
	printf("test_memtable: ok (seed %llu, %lu ops per kind, %lu states with a wrapped record)\n",
	       (unsigned long long)seed, nops, wrapped);
	return 0;
}
