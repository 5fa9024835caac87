// SPDX-License-Identifier: GPL-2.0
/*
 * Lockless readers of the memtable racing its one writer.
 *
 * The writer puts extents and tombstones over a small key space, so that
 * they overlap, trim, split and hide each other all the time, and logs
 * each operation (range, flags) before it applies it.  Every value
 * encodes its own extent: key, len and seq, then bytes that follow from
 * the seq, so a reader can tell a value torn, freed and reused, or of
 * another extent.  After each operation the writer records, per unit,
 * the newest operation covering it (latest[]) and the first (first[]),
 * then counts the operation done.
 *
 * A reader notes done (d0), reads a unit k (half the time one of the
 * operation in progress, again and again while it runs, and the writer
 * yields at the skiplist's windows, to meet it halfway) (get, or next from a unit
 * before it), and checks that what it got is the unit's state after some
 * operation between d0 and the end of its read:
 *  - a piece of operation s: its window holds k and lies inside the
 *    extent, the extent and value are exactly operation s's, s covers k,
 *    s has at least started, and no operation from s + 1 to d0 covers k;
 *  - nothing: no operation up to d0 covers k.
 * A reader that saw a put half done (the range punched, the new extent
 * not in yet) would find nothing where an older extent was, or the older
 * extent after a newer one was done.  Values are copied, or read in place
 * inside rcu_read_lock(); records are freed after a grace period, into
 * kmalloc under AddressSanitizer with the precise RCU (pool kind
 * LSM_POOL_KMALLOC), or into the pool, where a reused record shows as a
 * value that does not match its extent.
 *
 * Usage: test_memtable_race [--seed N] [--ops N] [--readers R]
 */
#include <getopt.h>
#include <pthread.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <sched.h>
#include "memtable.h"
#include "pool.h"
#include "window.h"
#include "rnd.h"

#define EXPECT(cond) do { if (!(cond)) { \
	fprintf(stderr, "test_memtable_race: %s:%d: %s (seed %llu)\n", \
		__FILE__, __LINE__, #cond, (unsigned long long)seed); \
	exit(1); } } while (0)

#define UNITS		4096
#define VHEAD		24	/* key, len, seq at the head of a value */

static u64 seed = 1;
static unsigned long nops = 12000;
static unsigned int nreaders = 2;

struct op {
	u64 key;
	u64 len;
	u32 flags;
	u32 vlen;
};

static struct op *ops;			/* by seq, from 1 */
static u64 latest[UNITS];		/* newest done op covering the unit */
static u64 first[UNITS];		/* first done op covering it */
static u64 done;			/* ops done */
static u64 started;			/* ops started */
static struct lsm_memtable *mt;
static volatile int stop;
static unsigned long reads_found, reads_empty;

static u64 rnd(u64 *s)
{
	return xorshift64(s);
}

/*
 * The writer gives the CPU up once per put, at one of the skiplist's
 * windows inside it (between the punch and the insert among them), so that the
 * readers meet puts halfway even on a busy machine with two cores.
 */
static __thread bool is_writer;
static __thread unsigned int yield_in;	/* windows to the next yield */

static void writer_window(const struct sl_window_at *at)
{
	if (is_writer && yield_in && !--yield_in)
		sched_yield();
}

static u8 vbyte(u64 seq, u32 i)
{
	return (u8)((seq * 0x9e3779b97f4a7c15ULL) >> 56) ^ (u8)(i * 31);
}

static void make_value(u8 *v, u64 seq, const struct op *o)
{
	u32 i;

	if (o->vlen < VHEAD)
		return;
	memcpy(v, &o->key, 8);
	memcpy(v + 8, &o->len, 8);
	memcpy(v + 16, &seq, 8);
	for (i = VHEAD; i < o->vlen; i++)
		v[i] = vbyte(seq, i);
}

static bool value_ok(const u8 *v, u32 vlen, u64 seq, const struct op *o)
{
	u64 w[3];
	u32 i;

	if (vlen != o->vlen)
		return false;
	if (vlen < VHEAD)
		return true;
	memcpy(w, v, sizeof(w));
	if (w[0] != o->key || w[1] != o->len || w[2] != seq)
		return false;
	for (i = VHEAD; i < vlen; i++)
		if (v[i] != vbyte(seq, i))
			return false;
	return true;
}

/* Whether op @s covers unit @k. */
static bool covers(u64 s, u64 k)
{
	return ops[s].key <= k && k <= lsm_last(ops[s].key, ops[s].len);
}

/* A piece read for unit @k while ops up to @d0 were done. */
static void check_piece(const struct lsm_piece *p, u64 k, u64 d0,
			const u8 *value)
{
	u64 s = p->ext.seq, end = __atomic_load_n(&started, __ATOMIC_ACQUIRE);
	u64 t;

	EXPECT(s >= 1 && s <= end);
	EXPECT(p->start <= k && k <= lsm_last(p->start, p->len));
	EXPECT(p->ext.key <= p->start &&
	       lsm_last(p->start, p->len) <= lsm_last(p->ext.key, p->ext.len));
	EXPECT(p->ext.key == ops[s].key && p->ext.len == ops[s].len);
	EXPECT(p->ext.flags == ops[s].flags);
	EXPECT(covers(s, k));
	EXPECT(value_ok(value, p->ext.vlen, s, &ops[s]));
	/* Not hidden before the read began. */
	if (__atomic_load_n(&latest[k], __ATOMIC_ACQUIRE) > s)
		for (t = s + 1; t <= d0; t++)
			EXPECT(!covers(t, k));
}

static void check_empty(u64 k, u64 d0)
{
	u64 f = __atomic_load_n(&first[k], __ATOMIC_ACQUIRE);

	EXPECT(!f || f > d0);
}

/* One read of unit @k, checked; returns 0, -ENOENT, or 1 (a walk). */
static int read_one(u64 *s, u64 k, u64 d0, u8 *buf)
{
	unsigned int how = rnd(s) % 4;
	struct lsm_piece p;
	u64 from, u;
	int ret;

	if (how == 0) {
		/* In place, inside the reader's own section. */
		rcu_read_lock();
		ret = lsm_mem_get(mt, k, &p, NULL, 0);
		if (!ret)
			check_piece(&p, k, d0, p.ext.value);
		rcu_read_unlock();
	} else if (how == 1) {
		from = k > 20 ? k - rnd(s) % 20 : 0;
		ret = lsm_mem_next(mt, from, &p, buf, LSM_VALUE_MAX);
		/* The units before the piece found were empty. */
		for (u = from; u < UNITS && (ret || u < p.start); u++)
			check_empty(u, d0);
		if (!ret && max(from, p.start) < UNITS)
			check_piece(&p, max(from, p.start), d0, buf);
		return 1;
	} else {
		ret = lsm_mem_get(mt, k, &p, buf, LSM_VALUE_MAX);
		if (!ret)
			check_piece(&p, k, d0, buf);
	}
	if (ret == -ENOENT)
		check_empty(k, d0);
	return ret;
}

static void *reader(void *arg)
{
	u64 s = seed * 0x2545f4914f6cdd1dULL + (uintptr_t)arg;
	static __thread u8 buf[LSM_VALUE_MAX];
	unsigned long found = 0, empty = 0;

	shim_rcu_register();
	while (!stop) {
		u64 k = rnd(&s) % UNITS, d0;
		unsigned int n = 1, i;
		int ret;

		/*
		 * Half the time, aim inside the op in progress and read that
		 * unit again and again while the op runs, to meet it halfway.
		 */
		if (rnd(&s) & 1) {
			const struct op *o = &ops[__atomic_load_n(&started,
							__ATOMIC_ACQUIRE)];

			k = o->key + rnd(&s) % (o->len ?: 1);
			n = 64;
		}
		d0 = __atomic_load_n(&done, __ATOMIC_ACQUIRE);
		for (i = 0; i < n; i++) {
			ret = read_one(&s, k, d0, buf);
			if (!ret)
				found++;
			else if (ret == -ENOENT)
				empty++;
			if (__atomic_load_n(&done, __ATOMIC_ACQUIRE) != d0)
				break;
		}
	}
	__atomic_add_fetch(&reads_found, found, __ATOMIC_RELAXED);
	__atomic_add_fetch(&reads_empty, empty, __ATOMIC_RELAXED);
	shim_rcu_unregister();
	return NULL;
}

static void writer(void)
{
	static u8 value[LSM_VALUE_MAX];
	u64 s = seed, seq, k;

	is_writer = true;
	for (seq = 1; seq <= nops; seq++) {
		struct op *o = &ops[seq];
		struct lsm_extent ext;
		u64 r = rnd(&s) % 100;

		o->key = rnd(&s) % UNITS;
		o->len = 1 + rnd(&s) % (r < 90 ? 16 : r < 99 ? 300 : UNITS);
		o->len = min(o->len, (u64)UNITS - o->key);
		o->flags = rnd(&s) % 8 == 0 ? LSM_EXT_TOMBSTONE : 0;
		r = rnd(&s) % 100;
		o->vlen = r < 90 ? rnd(&s) % 200 : rnd(&s) % 6000;
		if (o->flags)
			o->vlen = 0;
		make_value(value, seq, o);
		ext = (struct lsm_extent){
			.key = o->key, .len = o->len, .seq = seq,
			.flags = o->flags, .vlen = o->vlen, .value = value,
		};
		/* The op is logged before anyone can find it. */
		__atomic_store_n(&started, seq, __ATOMIC_RELEASE);
		/* Once per put, at one of its first windows. */
		yield_in = 1 + rnd(&s) % 24;
		EXPECT(lsm_mem_apply(mt, &ext, GFP_KERNEL) == 0);
		for (k = o->key; k <= lsm_last(o->key, o->len); k++) {
			__atomic_store_n(&latest[k], seq, __ATOMIC_RELEASE);
			if (!first[k])
				__atomic_store_n(&first[k], seq,
						 __ATOMIC_RELEASE);
		}
		__atomic_store_n(&done, seq, __ATOMIC_RELEASE);
	}
}

static void run(enum lsm_pool_kind kind)
{
	struct lsm_pool *pool = lsm_pool_create(kind, GFP_KERNEL);
	pthread_t tids[16];
	unsigned int i;

	EXPECT(pool);
	mt = lsm_mem_create(pool, GFP_KERNEL);
	EXPECT(mt);
	memset(latest, 0, sizeof(latest));
	memset(first, 0, sizeof(first));
	done = started = 0;
	stop = 0;
	/* Set while no thread runs: readers test the hook and call it. */
	sl_window_hook = writer_window;
	for (i = 0; i < nreaders; i++)
		EXPECT(!pthread_create(&tids[i], NULL, reader,
				       (void *)(uintptr_t)(i + 1)));
	writer();
	stop = 1;
	for (i = 0; i < nreaders; i++)
		pthread_join(tids[i], NULL);
	sl_window_hook = NULL;
	lsm_mem_destroy(mt);
	lsm_pool_drain(pool);
	EXPECT(lsm_pool_bytes(pool) == 0);
	lsm_pool_destroy(pool);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'o' },
		{ "readers", required_argument, NULL, 'r' },
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0) ?: 1;
			break;
		case 'o':
			nops = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			nreaders = min(strtoul(optarg, NULL, 0), 16UL);
			break;
		default:
			fprintf(stderr, "usage: test_memtable_race [--seed N] [--ops N] [--readers R]\n");
			return 2;
		}
	}
	ops = calloc(nops + 1, sizeof(*ops));
	EXPECT(ops);
	shim_rcu_register();
	EXPECT(!shim_modules_load());
	run(LSM_POOL_KMALLOC);
	run(LSM_POOL_CLASSES);
	run(LSM_POOL_ARENA);
	shim_modules_unload();
	rcu_barrier();
	EXPECT(shim_kmalloc_live() == 0);
	shim_rcu_unregister();
	/* Readers that never found anything, or never missed, tested little. */
	EXPECT(reads_found > 1000 && reads_empty > 100);
	printf("test_memtable_race: ok (seed %llu, %lu ops x 3 kinds, %u readers, %lu reads found, %lu empty)\n",
	       (unsigned long long)seed, nops, nreaders, reads_found,
	       reads_empty);
	free(ops);
	return 0;
}
