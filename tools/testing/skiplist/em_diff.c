// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of the extent map: random adds (with and without
 * SL_EM_MERGE), removes, punches, lookups, overlap searches and iteration
 * steps on the map and on a model, compared after every operation.  The
 * model keeps, per unit of a window of SPACE offsets, the id of the extent
 * holding it, and per id the extent; every operation on it is a plain loop
 * over units.  The window sits at 0, in the middle and at the top of the
 * offset space, and disk addresses near the top of theirs, so the limits
 * are covered.  Allocations fail at random in every other block of ops:
 * an operation that returns -ENOMEM must leave the map as it was.
 *
 * Usage: em_diff [--ops N] [--seed S] [--fail-ppm P]
 * A failure prints the seed and the operation number; the same seed
 * replays the same run.
 */
#include <getopt.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include "extent_map.h"

#define SPACE		4096
#define MAX_LEN		48
#define NONE		0U

static u64 seed, rng;
static unsigned long op_no, enomem_seen, merges_seen, splits_seen;

struct model_extent {
	u64 start;		/* relative to base */
	u64 len;
	u64 disk;
	u32 flags;
};

/* The model: per unit an extent id, per id an extent; ids recycled. */
static u32 unit_id[SPACE];
static struct model_extent ext[SPACE + 1];
static u32 free_ids[SPACE], nr_free;
static unsigned long model_count;
static u64 base, disk_base;

static struct sl_extent_map em;

static u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static u64 rnd_below(u64 n)
{
	return n ? rnd() % n : 0;
}

#define WATCHDOG_SECONDS	10

static void watchdog(int sig)
{
	char msg[160];
	int len = snprintf(msg, sizeof(msg),
			   "em_diff: FAILED: op %lu did not return within %d s (seed %llu)\n",
			   op_no, WATCHDOG_SECONDS, (unsigned long long)seed);

	if (write(STDERR_FILENO, msg, len) < 0)
		_exit(2);
	_exit(1);
}

#define fail(fmt, ...) do {						\
	fprintf(stderr, "em_diff: FAILED at op %lu (seed %llu, base %llx): " \
		fmt "\n", op_no, (unsigned long long)seed,		\
		(unsigned long long)base, ##__VA_ARGS__);		\
	exit(1);							\
} while (0)

static void model_reset(void)
{
	u32 i;

	memset(unit_id, 0, sizeof(unit_id));
	for (i = 0; i < SPACE; i++)
		free_ids[i] = SPACE - i;
	nr_free = SPACE;
	model_count = 0;
}

static u32 model_new(u64 start, u64 len, u64 disk, u32 flags)
{
	u32 id = free_ids[--nr_free];
	u64 u;

	ext[id] = (struct model_extent){ start, len, disk, flags };
	for (u = start; u < start + len; u++)
		unit_id[u] = id;
	model_count++;
	return id;
}

static void model_free_id(u32 id)
{
	free_ids[nr_free++] = id;
	model_count--;
}

static void model_assign(u32 id, u64 from, u64 to)
{
	for (; from < to; from++)
		unit_id[from] = id;
}

/* @b's extent goes on from @a's on disk, with the same flags. */
static bool model_contiguous(const struct model_extent *a,
			     const struct model_extent *b)
{
	return a->flags == b->flags && a->disk + (a->len - 1) != U64_MAX &&
	       a->disk + a->len == b->disk;
}

static int model_add(u64 s, u64 len, u64 disk, u32 flags, bool merge)
{
	struct model_extent *e;
	u32 id, left, right;
	u64 u;

	for (u = s; u < s + len; u++)
		if (unit_id[u] != NONE)
			return -EEXIST;
	id = model_new(s, len, disk, flags);
	if (!merge)
		return 0;
	e = &ext[id];
	left = s ? unit_id[s - 1] : NONE;
	if (left != NONE && model_contiguous(&ext[left], e)) {
		ext[left].len += len;
		model_assign(left, s, s + len);
		model_free_id(id);
		id = left;
		e = &ext[id];
		merges_seen++;
	}
	right = s + len < SPACE ? unit_id[s + len] : NONE;
	if (right != NONE && model_contiguous(e, &ext[right])) {
		model_assign(id, s + len, s + len + ext[right].len);
		e->len += ext[right].len;
		model_free_id(right);
		merges_seen++;
	}
	return 0;
}

static void model_drop(u64 s, u64 len)
{
	u64 end = s + len, u;
	u32 id;

	/* An extent going on past the hole keeps its tail as a new one. */
	if (end < SPACE && unit_id[end] != NONE &&
	    ext[unit_id[end]].start < end) {
		struct model_extent *e = &ext[unit_id[end]];
		u64 e_end = e->start + e->len;

		model_new(end, e_end - end, e->disk + (end - e->start), e->flags);
		e->len = end - e->start;
		if (e->start < s)
			splits_seen++;
	}
	/* An extent coming from before it keeps its head. */
	if (s && unit_id[s] != NONE && ext[unit_id[s]].start < s)
		ext[unit_id[s]].len = s - ext[unit_id[s]].start;
	for (u = s; u < end; u++) {
		id = unit_id[u];
		if (id == NONE)
			continue;
		unit_id[u] = NONE;
		if (ext[id].start == u && ext[id].start + ext[id].len <= end)
			model_free_id(id);
	}
}

static void model_info(u32 id, struct sl_extent_info *out)
{
	out->start = base + ext[id].start;
	out->len = ext[id].len;
	out->disk_start = ext[id].disk;
	out->flags = ext[id].flags;
}

static void check_info(int ret, const struct sl_extent_info *got, u32 id,
		       const char *what)
{
	struct sl_extent_info want;

	if (id == NONE) {
		if (ret != -ENOENT)
			fail("%s: got %d [%llx, +%llx), expected -ENOENT", what,
			     ret, (unsigned long long)got->start,
			     (unsigned long long)got->len);
		return;
	}
	model_info(id, &want);
	if (ret)
		fail("%s: got %d, expected [%llx, +%llx)", what, ret,
		     (unsigned long long)want.start,
		     (unsigned long long)want.len);
	if (got->start != want.start || got->len != want.len ||
	    got->disk_start != want.disk_start || got->flags != want.flags)
		fail("%s: got [%llx, +%llx) disk %llx flags %x, expected [%llx, +%llx) disk %llx flags %x",
		     what, (unsigned long long)got->start,
		     (unsigned long long)got->len,
		     (unsigned long long)got->disk_start, got->flags,
		     (unsigned long long)want.start,
		     (unsigned long long)want.len,
		     (unsigned long long)want.disk_start, want.flags);
}

/* Units [from, to) of the window, one lookup each. */
static void check_units(u64 from, u64 to)
{
	struct sl_extent_info e;
	u64 u;

	for (u = from; u < to && u < SPACE; u++)
		check_info(sl_em_lookup(&em, base + u, &e), &e, unit_id[u],
			   "lookup after change");
}

/* The whole map against the model, by iteration, and its count. */
static void check_all(void)
{
	struct sl_em_cursor cur = SL_EM_CURSOR(base);
	struct sl_extent_info e;
	unsigned long n = 0;
	u64 u = 0;

	while (sl_em_walk(&em, &cur, &e)) {
		while (u < SPACE && unit_id[u] == NONE)
			u++;
		if (u == SPACE)
			fail("walk: extent at %llx beyond the model's last",
			     (unsigned long long)e.start);
		check_info(0, &e, unit_id[u], "walk");
		u = ext[unit_id[u]].start + ext[unit_id[u]].len;
		n++;
	}
	if (n != model_count)
		fail("walk found %lu extents, model has %lu", n, model_count);
	if (sl_em_count(&em) != model_count)
		fail("count %lu, model has %lu", sl_em_count(&em), model_count);
}

static void random_range(u64 *s, u64 *len)
{
	*s = rnd_below(SPACE);
	*len = 1 + rnd_below(MAX_LEN);
	if (*s + *len > SPACE)
		*len = SPACE - *s;
}

static gfp_t random_gfp(void)
{
	return rnd_below(2) ? GFP_KERNEL : GFP_NOWAIT;
}

static void after_change(int ret, u64 s, u64 len)
{
	if (ret == -ENOMEM) {
		enomem_seen++;
		check_all();
	} else {
		/* Around the change: both neighbours may have been merged. */
		check_units(s > MAX_LEN ? s - MAX_LEN : 0, s + len + MAX_LEN);
	}
}

static void do_add(void)
{
	bool merge = rnd_below(3);
	u64 s, len, disk;
	u32 flags = rnd_below(2);
	int ret, want;

	random_range(&s, &len);
	/* Often right after an extent, into the hole that follows it. */
	if (rnd_below(2)) {
		u64 u = s;

		while (u < SPACE && unit_id[u] == NONE)
			u++;
		while (u < SPACE && unit_id[u] != NONE)
			u++;
		if (u < SPACE) {
			s = u;
			for (len = 0; s + len < SPACE && len < MAX_LEN &&
			     unit_id[s + len] == NONE; len++)
				;
			if (rnd_below(2))
				len = 1 + rnd_below(len);
		}
	}
	/* Often contiguous with a neighbour on disk, so merges happen. */
	if (s && unit_id[s - 1] != NONE && rnd_below(4)) {
		struct model_extent *l = &ext[unit_id[s - 1]];

		disk = l->disk + l->len;
		flags = l->flags;
	} else {
		disk = disk_base + rnd_below(1 << 20);
	}
	if (s + len < SPACE && unit_id[s + len] != NONE && !rnd_below(3)) {
		struct model_extent *r = &ext[unit_id[s + len]];

		if (r->disk >= len)
			disk = r->disk - len;
	}
	/* Past the top of the disk: refused. */
	if (disk + (len - 1) < disk) {
		struct sl_extent_info info = { base + s, len, disk, flags };

		if (sl_em_add(&em, &info, merge ? SL_EM_MERGE : 0, GFP_KERNEL) !=
		    -EINVAL)
			fail("add wrapping on disk at %llx not refused",
			     (unsigned long long)disk);
		return;
	}
	{
		struct sl_extent_info info = { base + s, len, disk, flags };

		ret = sl_em_add(&em, &info, merge ? SL_EM_MERGE : 0,
				random_gfp());
	}
	if (ret == -ENOMEM) {
		after_change(ret, s, len);
		return;
	}
	want = model_add(s, len, disk, flags, merge);
	if (ret != want)
		fail("add [%llx, +%llx) merge %d: got %d, expected %d",
		     (unsigned long long)(base + s), (unsigned long long)len,
		     merge, ret, want);
	after_change(ret, s, len);
}

static void do_remove(void)
{
	u64 s = rnd_below(SPACE);
	u32 id = unit_id[s];
	bool present = id != NONE && ext[id].start == s;
	u64 len = present ? ext[id].len : 1;
	int ret = sl_em_remove(&em, base + s);

	if (ret != (present ? 0 : -ENOENT))
		fail("remove %llx: got %d, expected %d",
		     (unsigned long long)(base + s), ret, present ? 0 : -ENOENT);
	if (present)
		model_drop(s, len);
	after_change(ret, s, len);
}

static void do_drop(void)
{
	u64 s, len;
	int ret;

	random_range(&s, &len);
	/* Sometimes a wide one, over many extents. */
	if (!rnd_below(8))
		len = min_t(u64, SPACE - s, 1 + rnd_below(8 * MAX_LEN));
	ret = sl_em_drop_range(&em, base + s, len, random_gfp());
	if (ret == -ENOMEM) {
		after_change(ret, s, len);
		return;
	}
	if (ret)
		fail("drop [%llx, +%llx): got %d", (unsigned long long)(base + s),
		     (unsigned long long)len, ret);
	model_drop(s, len);
	after_change(ret, s, len);
}

static void do_lookup(void)
{
	struct sl_extent_info e;
	u64 u = rnd_below(SPACE);

	check_info(sl_em_lookup(&em, base + u, &e), &e, unit_id[u], "lookup");
}

static void do_overlap(void)
{
	struct sl_extent_info e;
	u64 s, len, u;

	random_range(&s, &len);
	for (u = s; u < s + len && unit_id[u] == NONE; u++)
		;
	check_info(sl_em_first_overlap(&em, base + s, len, &e), &e,
		   u < s + len ? unit_id[u] : NONE, "first_overlap");
}

/* A few steps of iteration from a random offset. */
static void do_next(void)
{
	struct sl_extent_info e;
	u64 u = rnd_below(SPACE), pos = base + u;
	int steps;

	for (steps = 0; steps < 4; steps++) {
		for (; u < SPACE && unit_id[u] == NONE; u++)
			;
		check_info(sl_em_next(&em, pos, &e), &e,
			   u < SPACE ? unit_id[u] : NONE, "next");
		if (u == SPACE)
			break;
		pos = e.start + e.len;
		u = ext[unit_id[u]].start + ext[unit_id[u]].len;
		if (!pos)
			break;
	}
}

static void do_bad(void)
{
	struct sl_extent_info e = { base + rnd_below(SPACE), 0, 0, 0 };

	if (sl_em_add(&em, &e, 0, GFP_KERNEL) != -EINVAL ||
	    sl_em_first_overlap(&em, e.start, 0, &e) != -EINVAL ||
	    sl_em_drop_range(&em, e.start, 0, GFP_KERNEL) != -EINVAL)
		fail("length 0 not refused");
	e.len = U64_MAX;
	if (e.start > 1 && sl_em_add(&em, &e, SL_EM_MERGE, GFP_KERNEL) != -EINVAL)
		fail("wrapping add not refused");
}

static void run(unsigned long ops, unsigned int ppm)
{
	unsigned long i;

	for (i = 0; i < ops; i++, op_no++) {
		/* Fill and drain in turns. */
		unsigned int add_pct = (i / 20000) % 2 ? 15 : 40;
		unsigned int r = rnd_below(100);

		/* Allocation failures in every other block of 10000 ops. */
		if (i % 10000 == 0)
			shim_fail_random((i / 10000) % 2 ? ppm : 0, rnd());
		if (i % 1000 == 0)
			alarm(WATCHDOG_SECONDS);
		if (r < add_pct)
			do_add();
		else if (r < add_pct + 10)
			do_remove();
		else if (r < add_pct + 25)
			do_drop();
		else if (r < 80)
			do_lookup();
		else if (r < 90)
			do_overlap();
		else if (r < 99)
			do_next();
		else
			do_bad();
		if (i % 1000 == 0)
			check_all();
		if (i % 20000 == 0 && sl_em_check(&em))
			fail("sl_em_check");
	}
	shim_fail_off();
	check_all();
	if (sl_em_check(&em))
		fail("sl_em_check");
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
	const u64 bases[] = { 0, 1ULL << 63, U64_MAX - SPACE + 1 };
	const u64 disk_bases[] = { 0, 1ULL << 40, U64_MAX - (1 << 20) };
	unsigned long ops = 600000, b;
	unsigned int ppm = 20000;
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
	printf("em_diff: seed %llu, %lu ops, %u ppm allocation failures\n",
	       (unsigned long long)seed, ops, ppm);
	shim_rcu_register();
	if (shim_modules_load())
		fail("module init");
	for (b = 0; b < ARRAY_SIZE(bases); b++) {
		base = bases[b];
		disk_base = disk_bases[b];
		model_reset();
		if (sl_em_init(&em, GFP_KERNEL))
			fail("sl_em_init");
		run(ops / ARRAY_SIZE(bases), ppm);
		sl_em_destroy(&em);
	}
	shim_modules_unload();
	rcu_barrier();
	if (shim_kmalloc_live())
		fail("%ld objects leaked", shim_kmalloc_live());
	shim_rcu_unregister();
	printf("em_diff: %lu ops, %lu merges, %lu splits, %lu allocation failures injected, %lu -ENOMEM returns checked: PASS\n",
	       op_no, merges_seen, splits_seen, shim_failed_allocs(),
	       enomem_seen);
	return 0;
}
