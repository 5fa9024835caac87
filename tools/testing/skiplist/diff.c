// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test: millions of random operations on the skiplist and on
 * a simple model (bitmaps over a window of 64K units), compared after every
 * operation.  Every API function is exercised, with allocation failures
 * injected at random; the window is placed at 0, in the middle of the key
 * space and at its very top, so wraparound limits are covered too.
 *
 * Usage: diff [--ops N] [--seed S] [--fail-ppm P]
 * A failure prints the seed and the operation number; the same seed
 * replays the same run.
 */
#include <getopt.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "item.h"

#define SPACE		(1UL << 16)
#define MAX_SIZE	64
#define WORDS		(SPACE / 64)

static u64 seed, rng;
static unsigned long op_no, enomem_seen;

/* The model. */
static u64 start_bm[WORDS], used_bm[WORDS];
static u8 size_at[SPACE];
static struct item *item_at[SPACE];
static unsigned long model_count;
static unsigned long base;

static u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned long rnd_below(unsigned long n)
{
	return n ? rnd() % n : 0;
}

/* An operation that does not return is a failure too (livelock, deadlock). */
#define WATCHDOG_SECONDS	10

static void watchdog(int sig)
{
	char msg[160];
	int len = snprintf(msg, sizeof(msg),
			   "diff: FAILED: op %lu did not return within %d s (seed %llu)\n",
			   op_no, WATCHDOG_SECONDS, (unsigned long long)seed);

	if (write(STDERR_FILENO, msg, len) < 0)
		_exit(2);
	_exit(1);
}

#define fail(fmt, ...) do {						\
	fprintf(stderr, "diff: FAILED at op %lu (seed %llu, base %lx): " \
		fmt "\n", op_no, (unsigned long long)seed, base,	\
		##__VA_ARGS__);						\
	exit(1);							\
} while (0)

static bool bm_test(const u64 *bm, unsigned long i)
{
	return bm[i / 64] >> (i % 64) & 1;
}

static void bm_assign(u64 *bm, unsigned long i, bool v)
{
	if (v)
		bm[i / 64] |= 1ULL << (i % 64);
	else
		bm[i / 64] &= ~(1ULL << (i % 64));
}

/* First item start >= @pos, or SPACE. */
static unsigned long model_next_start(unsigned long pos)
{
	unsigned long w;
	u64 bits;

	if (pos >= SPACE)
		return SPACE;
	w = pos / 64;
	bits = start_bm[w] & (~0ULL << (pos % 64));
	while (!bits) {
		if (++w == WORDS)
			return SPACE;
		bits = start_bm[w];
	}
	return w * 64 + __builtin_ctzll(bits);
}

/* Last item start < @pos, or SPACE if none. */
static unsigned long model_prev_start(unsigned long pos)
{
	unsigned long w;
	u64 bits;

	if (!pos)
		return SPACE;
	pos--;
	w = pos / 64;
	bits = start_bm[w] & (pos % 64 == 63 ? ~0ULL : (2ULL << (pos % 64)) - 1);
	while (!bits) {
		if (!w--)
			return SPACE;
		bits = start_bm[w];
	}
	return w * 64 + 63 - __builtin_clzll(bits);
}

/* Start of the item covering unit @u, or SPACE. */
static unsigned long model_covering(unsigned long u)
{
	unsigned long s = model_prev_start(u + 1);

	return s < SPACE && s + size_at[s] > u ? s : SPACE;
}

static bool model_free(unsigned long u, unsigned long size)
{
	unsigned long i;

	for (i = u; i < u + size; i++)
		if (bm_test(used_bm, i))
			return false;
	return true;
}

static void model_put(unsigned long u, unsigned long size, struct item *item,
		      bool present)
{
	unsigned long i;

	for (i = u; i < u + size; i++)
		bm_assign(used_bm, i, present);
	bm_assign(start_bm, u, present);
	size_at[u] = present ? size : 0;
	item_at[u] = present ? item : NULL;
	model_count += present ? 1 : -1;
}

static unsigned long align_up(unsigned long x, unsigned long a)
{
	return (x + a - 1) / a * a;
}

/* First fit of the model: lowest aligned start >= @from that fits. */
static unsigned long model_fit(unsigned long from, unsigned long max,
			       unsigned long size, unsigned long align)
{
	unsigned long cand = align_up(from, align), i;

	while (cand + size <= max) {
		for (i = cand; i < cand + size; i++)
			if (bm_test(used_bm, i))
				break;
		if (i == cand + size)
			return cand;
		i = model_covering(i);
		cand = align_up(i + size_at[i], align);
	}
	return SPACE;
}

static unsigned long slot_unit(struct sl_slot *slot)
{
	return slot->key - base;
}

static void check_slot(struct sl_slot *slot, unsigned long expect,
		       const char *what)
{
	if (expect == SPACE) {
		if (slot)
			fail("%s: got key %lx, expected none", what, slot->key);
		return;
	}
	if (!slot)
		fail("%s: got none, expected unit %lx", what, expect);
	item_check(slot);
	if (slot_unit(slot) != expect || &item_at[expect]->slot != slot)
		fail("%s: got key %lx, expected unit %lx", what, slot->key,
		     expect);
}

static void do_insert(struct sl_list *list)
{
	unsigned long u = rnd_below(SPACE);
	unsigned long size = 1 + rnd_below(min(MAX_SIZE, SPACE - u));
	struct item *item = item_new(base + u, size);
	int ret = sl_insert(list, &item->slot, GFP_KERNEL);
	int want = model_free(u, size) ? 0 : -EEXIST;

	if (ret == -ENOMEM && want == 0) {
		enomem_seen++;
		item_free_now(item);
		return;
	}
	if (ret != want)
		fail("insert [%lx +%lx): %d, expected %d", u, size, ret, want);
	if (ret)
		item_free_now(item);
	else
		model_put(u, size, item, true);
}

static void do_insert_hole(struct sl_list *list)
{
	unsigned long size = 1 + rnd_below(MAX_SIZE);
	unsigned long align = 1UL << rnd_below(7);
	unsigned long min = rnd_below(SPACE), max = SPACE, hint, want;
	struct item *item = item_new(0, 0);
	int ret, want_ret = 0;

	if (rnd_below(2))
		max = min + 1 + rnd_below(SPACE - min);
	hint = rnd_below(4) ? min + rnd_below(max - min) : rnd_below(SPACE);
	if (!rnd_below(50)) {
		/* Bad arguments now and then. */
		switch (rnd_below(3)) {
		case 0:
			size = 0;
			break;
		case 1:
			align = 3 << rnd_below(4);
			break;
		default:
			/* A real max of 0 means "no limit", not empty. */
			if (base + min)
				max = min;
			else
				size = 0;
		}
		want_ret = -EINVAL;
	}
	want = SPACE;
	if (!want_ret) {
		if (hint >= min && hint < max)
			want = model_fit(hint, max, size, align);
		if (want == SPACE)
			want = model_fit(min, max, size, align);
		if (want == SPACE)
			want_ret = -ENOSPC;
	}
	/* A window ending at the top of the key space is "no limit", 0. */
	ret = sl_insert_hole(list, &item->slot, size, align, base + min,
			     base + max, base + hint, NULL, GFP_KERNEL);
	if (ret == -ENOMEM && !want_ret) {
		enomem_seen++;
		item_free_now(item);
		return;
	}
	if (ret != want_ret)
		fail("insert_hole size %lx align %lx [%lx, %lx) hint %lx: %d, expected %d",
		     size, align, min, max, hint, ret, want_ret);
	if (ret) {
		item_free_now(item);
		return;
	}
	if (item->slot.key != base + want || item->slot.size != size)
		fail("insert_hole size %lx align %lx [%lx, %lx) hint %lx: key %lx, expected unit %lx",
		     size, align, min, max, hint, item->slot.key, want);
	model_put(want, size, item, true);
}

static void do_remove(struct sl_list *list)
{
	unsigned long u = rnd_below(SPACE);
	struct sl_slot *slot;

	/* Mostly hit an item, sometimes miss. */
	if (rnd_below(4)) {
		u = model_next_start(u);
		if (u == SPACE)
			u = model_next_start(0);
		if (u == SPACE)
			u = 0;
	}
	slot = sl_remove(list, base + u);
	check_slot(slot, bm_test(start_bm, u) ? u : SPACE, "remove");
	if (slot) {
		model_put(u, size_at[u], NULL, false);
		item_free_rcu(item_of(slot));
	}
}

static void do_erase(struct sl_list *list)
{
	unsigned long u = model_next_start(rnd_below(SPACE));
	struct item *impostor;

	if (u == SPACE)
		return;
	/* Same key, different object: must not remove the real one. */
	impostor = item_new(base + u, size_at[u]);
	if (sl_erase(list, &impostor->slot) != -ENOENT)
		fail("erase of an impostor at unit %lx succeeded", u);
	item_free_now(impostor);
	if (sl_erase(list, &item_at[u]->slot) != 0)
		fail("erase of unit %lx failed", u);
	item_free_rcu(item_at[u]);
	model_put(u, size_at[u], NULL, false);
}

static void do_lookup(struct sl_list *list)
{
	unsigned long u = rnd_below(SPACE);
	struct sl_slot *slot;

	rcu_read_lock();
	slot = sl_lookup(list, base + u);
	check_slot(slot, model_covering(u), "lookup");
	rcu_read_unlock();
}

static void do_overlap(struct sl_list *list)
{
	unsigned long a = rnd_below(SPACE);
	unsigned long b = a + rnd_below(min(4 * MAX_SIZE, SPACE - a) + 1);
	unsigned long want = model_covering(a);
	struct sl_slot *slot;

	if (want == SPACE) {
		want = model_next_start(a);
		if (want >= b)
			want = SPACE;
	}
	/* The top window cannot end past ULONG_MAX; 0 would mean empty. */
	if (base + b == 0)
		return;
	rcu_read_lock();
	slot = sl_first_overlap(list, base + a, base + b);
	check_slot(slot, b > a ? want : SPACE, "first_overlap");
	rcu_read_unlock();
}

static void do_iterate(struct sl_list *list)
{
	unsigned long pos = rnd_below(base + SPACE ? SPACE + 1 : SPACE);
	unsigned long steps = rnd_below(64), i, want;
	struct sl_iter iter;

	rcu_read_lock();
	sl_iter_start(&iter, list, base + pos);
	for (i = 0; i < steps; i++) {
		if (rnd_below(4)) {
			want = model_next_start(pos);
			check_slot(sl_iter_next(&iter), want, "iter_next");
			if (want != SPACE)
				pos = want + 1;
		} else {
			want = model_prev_start(pos);
			check_slot(sl_iter_prev(&iter), want, "iter_prev");
			if (want != SPACE)
				pos = want;
		}
	}
	rcu_read_unlock();
}

static void check_all(struct sl_list *list)
{
	struct sl_stats stats;
	struct sl_iter iter;
	struct sl_slot *slot;
	unsigned long u = 0, n = 0;

	if (sl_check(list))
		fail("sl_check");
	sl_stats(list, &stats);
	if (stats.items != model_count)
		fail("%lu items, model has %lu", stats.items, model_count);
	rcu_read_lock();
	sl_iter_start(&iter, list, 0);
	while ((slot = sl_iter_next(&iter))) {
		u = model_next_start(u);
		check_slot(slot, u, "full walk");
		u++;
		n++;
	}
	rcu_read_unlock();
	if (n != model_count)
		fail("full walk found %lu items, model has %lu", n, model_count);
}

static void run(struct sl_list *list, unsigned long ops, unsigned int ppm)
{
	unsigned long i;

	for (i = 0; i < ops; i++, op_no++) {
		/* Fill and drain in turns, so merges get their share. */
		unsigned int insert_pct = (i / 50000) % 2 ? 12 : 45;
		unsigned int r = rnd_below(100);

		/* Allocation failures in every other block of 25000 ops. */
		if (i % 25000 == 0)
			shim_fail_random((i / 25000) % 2 ? ppm : 0, rnd());
		if (i % 1000 == 0)
			alarm(WATCHDOG_SECONDS);
		if (r < insert_pct)
			do_insert(list);
		else if (r < insert_pct + 8)
			do_insert_hole(list);
		else if (r < 70)
			do_remove(list);
		else if (r < 74)
			do_erase(list);
		else if (r < 88)
			do_lookup(list);
		else if (r < 96)
			do_overlap(list);
		else
			do_iterate(list);
		if (i % 20000 == 0)
			check_all(list);
	}
	shim_fail_off();
	check_all(list);
	alarm(0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ops", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 's' },
		{ "fail-ppm", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const unsigned long bases[] = { 0, 1UL << 40, 0UL - SPACE };
	unsigned long ops = 2000000, b;
	unsigned int ppm = 50000;
	struct sl_list list;
	int c;

	seed = time(NULL);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'o')
			ops = strtoul(optarg, NULL, 0);
		else if (c == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (c == 'f')
			ppm = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	rng = seed | 1;
	shim_random_seed(seed);
	signal(SIGALRM, watchdog);
	printf("diff: seed %llu, %lu ops, %u ppm allocation failures\n",
	       (unsigned long long)seed, ops, ppm);
	shim_rcu_register();
	if (shim_modules_load())
		fail("module init");
	for (b = 0; b < ARRAY_SIZE(bases); b++) {
		base = bases[b];
		memset(start_bm, 0, sizeof(start_bm));
		memset(used_bm, 0, sizeof(used_bm));
		memset(size_at, 0, sizeof(size_at));
		memset(item_at, 0, sizeof(item_at));
		model_count = 0;
		if (sl_init(&list, GFP_KERNEL))
			fail("sl_init");
		run(&list, ops / ARRAY_SIZE(bases), ppm);
		sl_destroy(&list, item_destroy_slot, NULL);
	}
	shim_modules_unload();
	rcu_barrier();
	if (shim_kmalloc_live())
		fail("%ld objects leaked", shim_kmalloc_live());
	shim_rcu_unregister();
	printf("diff: %lu ops, %lu allocation failures injected, %lu -ENOMEM returns checked: PASS\n",
	       op_no, shim_failed_allocs(), enomem_seen);
	return 0;
}
