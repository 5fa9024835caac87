// SPDX-License-Identifier: GPL-2.0
/*
 * The memtable's allocators side by side, in nanoseconds per operation as
 * seed 003 reports them: the pool's size classes (lsm/pool.c), malloc()
 * (kmalloc() in the kernel; the pool of kind LSM_POOL_KMALLOC), and a
 * per-memtable arena (lsm/arena.c).  Built with -O2, no sanitizers, the
 * fast shims (per-thread caches in front of malloc, QSBR RCU).
 *
 * Workloads, each thread on a memtable of its own, all sharing one pool:
 *  - fillrandom: N puts of random 8-byte keys (len 1) with values of V
 *    bytes into an empty memtable (N = --records, 1M, with 100-byte
 *    values; --size-records, 200K, with the other sizes; at most 512 MiB
 *    of records per cell);
 *  - overwrite:  N more puts over keys already there (each frees a record
 *    after a grace period; the arena keeps it until the memtable goes);
 *  - destroy:    the memtable freed, per record;
 *  - alloc-free: one allocation and its free, in a loop (seed 003's
 *    AllocAndFree), pool and malloc only.
 * Every cell runs --rounds times, the implementations interleaved within
 * each round; the median is reported, with the memtable's bytes per
 * record (lsm_mem_bytes()) after fillrandom and after overwrite.  Times
 * are each thread's CPU time (see now_ns()), averaged over the threads.
 *
 * Usage: lsm_pool_bench [--records N] [--size-records N] [--rounds R]
 *                       [--threads 1,2]
 *                       [--values 64,100,...] [--json FILE] [--quick]
 */
#include <getopt.h>
#include <pthread.h>
#include <time.h>
#include <sys/utsname.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <unistd.h>
#include "memtable.h"
#include "pool.h"

#define MAX_ROUNDS	9
#define MAX_THREADS	8

enum impl { IMPL_POOL, IMPL_MALLOC, IMPL_ARENA, IMPL_NR };
static const char *const impl_names[IMPL_NR] = { "pool", "malloc", "arena" };
static const enum lsm_pool_kind impl_kind[IMPL_NR] = {
	LSM_POOL_CLASSES, LSM_POOL_KMALLOC, LSM_POOL_ARENA,
};

enum wl { WL_FILL, WL_OVERWRITE, WL_DESTROY, WL_ALLOCFREE, WL_NR };
static const char *const wl_names[WL_NR] = {
	"fillrandom", "overwrite", "destroy", "alloc-free",
};

static unsigned long records = 1000000;	/* with 100-byte values */
static unsigned long size_records = 200000;	/* with the other sizes */
static unsigned long bytes_cap = 512UL << 20;
static unsigned int rounds = 3;
static unsigned int threads_list[4] = { 1, 2 }, nr_threads_list = 2;
static unsigned int values[16] = { 100, 64, 256, 1024, 4096 }, nr_values = 5;
static const char *json_path;

struct cell {
	double ns[WL_NR][MAX_ROUNDS];
	double bytes_fill, bytes_over;
	unsigned long n;
};

/* [value index][threads index][impl] */
static struct cell cells[16][4][IMPL_NR];

/*
 * The thread's own CPU time: these machines are shared and often run
 * several times more threads than they have CPUs, and wall-clock time
 * would count the time a thread waited for a CPU (runs side by side
 * differed up to 4x).  Locks here spin rather than sleep, so waiting for
 * one is counted.
 */
static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static u64 rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct job {
	struct lsm_pool *pool;
	unsigned long n;
	u32 vlen;
	unsigned int id;
	pthread_barrier_t *bar;
	double ns[WL_NR];
	double bytes_fill, bytes_over;
};

static void put_all(struct lsm_memtable *mt, u64 seed, unsigned long n,
		    unsigned long span, u64 seq0, u32 vlen, const u8 *value)
{
	struct lsm_extent ext = { .len = 1, .vlen = vlen, .value = value };
	u64 s = seed;
	unsigned long i;

	for (i = 0; i < n; i++) {
		ext.key = span ? rnd(&s) % span : rnd(&s);
		ext.seq = seq0 + i;
		if (lsm_mem_apply(mt, &ext, GFP_KERNEL))
			abort();
		if ((i & 1023) == 0)
			shim_rcu_quiescent();
	}
}

/*
 * Wait for the other threads of the cell, offline for RCU meanwhile: a
 * thread waiting here reports no quiescent state (QSBR), and a grace
 * period another thread waits for must not wait for it.
 */
static void barrier_wait(pthread_barrier_t *bar)
{
	urcu_qsbr_thread_offline();
	pthread_barrier_wait(bar);
	urcu_qsbr_thread_online();
}

static void *job_main(void *arg)
{
	struct job *j = arg;
	u8 *value = malloc(j->vlen + 1);
	struct lsm_memtable *mt;
	u64 seed = 0x9e3779b97f4a7c15ULL * (j->id + 1);
	unsigned long i;
	double t;

	shim_rcu_register();
	memset(value, 0xa5, j->vlen + 1);
	mt = lsm_mem_create(j->pool, GFP_KERNEL);
	if (!mt)
		abort();

	barrier_wait(j->bar);
	t = now_ns();
	put_all(mt, seed, j->n, 0, 1, j->vlen, value);
	j->ns[WL_FILL] = (now_ns() - t) / j->n;
	j->bytes_fill = (double)lsm_mem_bytes(mt) / j->n;

	/* The same keys again, in another order: every put replaces one. */
	barrier_wait(j->bar);
	{
		struct lsm_extent ext = { .len = 1, .vlen = j->vlen,
					  .value = value };
		u64 s = seed;
		u64 *keys = malloc(j->n * sizeof(*keys));

		for (i = 0; i < j->n; i++)
			keys[i] = rnd(&s);
		t = now_ns();
		for (i = 0; i < j->n; i++) {
			ext.key = keys[(i * 7919) % j->n];
			ext.seq = j->n + 1 + i;
			if (lsm_mem_apply(mt, &ext, GFP_KERNEL))
				abort();
			if ((i & 1023) == 0)
				shim_rcu_quiescent();
		}
		j->ns[WL_OVERWRITE] = (now_ns() - t) / j->n;
		free(keys);
	}
	/* The records retired and past their grace period are freed at a put. */
	synchronize_rcu();
	rcu_barrier();
	{
		struct lsm_extent ext = { .key = seed, .len = 1, .seq = 3 * j->n,
					  .vlen = j->vlen, .value = value };

		if (lsm_mem_apply(mt, &ext, GFP_KERNEL))
			abort();
	}
	j->bytes_over = (double)lsm_mem_bytes(mt) / j->n;

	barrier_wait(j->bar);
	t = now_ns();
	lsm_mem_destroy(mt);
	j->ns[WL_DESTROY] = (now_ns() - t) / j->n;

	/* Seed 003's loop: one allocation and its free. */
	j->ns[WL_ALLOCFREE] = 0;
	if (lsm_pool_kind(j->pool) != LSM_POOL_ARENA) {
		size_t size = 64 + j->vlen;
		unsigned long n = 4 * j->n;

		barrier_wait(j->bar);
		t = now_ns();
		for (i = 0; i < n; i++) {
			void *obj = lsm_pool_alloc(j->pool, size, GFP_KERNEL);

			if (!obj)
				abort();
			*(volatile u8 *)obj = (u8)i;
			lsm_pool_free(j->pool, obj, size);
		}
		j->ns[WL_ALLOCFREE] = (now_ns() - t) / n;
	} else {
		barrier_wait(j->bar);
	}
	free(value);
	shim_rcu_unregister();
	return NULL;
}

static void run_cell(unsigned int vi, unsigned int ti, enum impl im,
		     unsigned int round)
{
	unsigned int nt = threads_list[ti], i, w;
	u32 vlen = values[vi];
	unsigned long n = min(vlen == 100 ? records : size_records,
			      bytes_cap / (vlen + 200) / nt);
	struct lsm_pool *pool = lsm_pool_create(impl_kind[im], GFP_KERNEL);
	struct job jobs[MAX_THREADS];
	pthread_t tids[MAX_THREADS];
	pthread_barrier_t bar;
	struct cell *c = &cells[vi][ti][im];

	if (!pool)
		abort();
	pthread_barrier_init(&bar, NULL, nt);
	for (i = 0; i < nt; i++) {
		jobs[i] = (struct job){ .pool = pool, .n = n, .vlen = vlen,
					.id = i, .bar = &bar };
		if (pthread_create(&tids[i], NULL, job_main, &jobs[i]))
			abort();
	}
	for (i = 0; i < nt; i++)
		pthread_join(tids[i], NULL);
	pthread_barrier_destroy(&bar);
	/* Per thread, averaged over the threads. */
	for (w = 0; w < WL_NR; w++) {
		double sum = 0;

		for (i = 0; i < nt; i++)
			sum += jobs[i].ns[w];
		c->ns[w][round] = sum / nt;
	}
	c->bytes_fill = jobs[0].bytes_fill;
	c->bytes_over = jobs[0].bytes_over;
	c->n = n;
	lsm_pool_drain(pool);
	if (lsm_pool_bytes(pool))
		abort();
	lsm_pool_destroy(pool);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, unsigned int n)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static unsigned int parse_list(const char *arg, unsigned int *out,
			       unsigned int max)
{
	unsigned int n = 0;
	char *end;

	while (*arg && n < max) {
		out[n++] = strtoul(arg, &end, 0);
		arg = *end == ',' ? end + 1 : end;
		if (!*end)
			break;
	}
	return n;
}

static void print_table(void)
{
	unsigned int vi, ti, w;

	printf("%-11s %6s %3s %9s %9s %9s %12s %12s\n", "workload", "value",
	       "thr", "pool", "malloc", "arena", "malloc/pool", "arena/pool");
	for (w = 0; w < WL_NR; w++)
		for (vi = 0; vi < nr_values; vi++)
			for (ti = 0; ti < nr_threads_list; ti++) {
				double m[IMPL_NR];
				unsigned int im;

				for (im = 0; im < IMPL_NR; im++)
					m[im] = median(cells[vi][ti][im].ns[w],
						       rounds);
				printf("%-11s %6u %3u %9.1f %9.1f ", wl_names[w],
				       values[vi], threads_list[ti], m[0], m[1]);
				if (w == WL_ALLOCFREE)
					printf("%9s %12.2f %12s\n", "-",
					       m[1] / m[0], "-");
				else
					printf("%9.1f %12.2f %12.2f\n", m[2],
					       m[1] / m[0], m[2] / m[0]);
			}
	printf("\n%-11s %6s %3s %9s %9s %9s   (memtable bytes per record)\n",
	       "after", "value", "thr", "pool", "malloc", "arena");
	for (w = 0; w < 2; w++)
		for (vi = 0; vi < nr_values; vi++) {
			const struct cell *c = cells[vi][0];

			printf("%-11s %6u %3u", wl_names[w], values[vi],
			       threads_list[0]);
			for (unsigned int im = 0; im < IMPL_NR; im++)
				printf(" %9.1f", w ? c[im].bytes_over :
				       c[im].bytes_fill);
			printf("\n");
		}
}

static void write_json(const char *path)
{
	FILE *f = fopen(path, "w");
	struct utsname u;
	unsigned int vi, ti, w, im, r;
	bool first = true;
	double load[3] = { 0 };

	if (!f) {
		perror(path);
		exit(1);
	}
	uname(&u);
	getloadavg(load, 3);
	fprintf(f, "{\n  \"machine\": {\"kernel\": \"%s\", \"nproc\": %ld, "
		"\"compiler\": \"%s\", \"rounds\": %u, \"loadavg\": %.2f},\n"
		"  \"results\": [",
		u.release, sysconf(_SC_NPROCESSORS_ONLN), __VERSION__, rounds,
		load[0]);
	for (w = 0; w < WL_NR; w++)
		for (vi = 0; vi < nr_values; vi++)
			for (ti = 0; ti < nr_threads_list; ti++)
				for (im = 0; im < IMPL_NR; im++) {
					const struct cell *c = &cells[vi][ti][im];
					double m = median(c->ns[w], rounds);

					if (w == WL_ALLOCFREE && im == IMPL_ARENA)
						continue;
					fprintf(f, "%s\n    {\"workload\": \"%s\", \"impl\": \"%s\", "
						"\"threads\": %u, \"value_size\": %u, "
						"\"records\": %lu, \"ns_per_op\": %.1f, "
						"\"ops_per_sec\": %.1f, \"samples_ns\": [",
						first ? "" : ",", wl_names[w],
						impl_names[im], threads_list[ti],
						values[vi], c->n, m,
						1e9 / m * threads_list[ti]);
					for (r = 0; r < rounds; r++)
						fprintf(f, "%s%.1f", r ? ", " : "",
							c->ns[w][r]);
					fprintf(f, "]");
					if (w == WL_FILL)
						fprintf(f, ", \"bytes_per_record\": %.1f",
							c->bytes_fill);
					if (w == WL_OVERWRITE)
						fprintf(f, ", \"bytes_per_record\": %.1f",
							c->bytes_over);
					fprintf(f, "}");
					first = false;
				}
	fprintf(f, "\n  ]\n}\n");
	fclose(f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "records", required_argument, NULL, 'n' },
		{ "size-records", required_argument, NULL, 'S' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "values", required_argument, NULL, 'v' },
		{ "json", required_argument, NULL, 'j' },
		{ "quick", no_argument, NULL, 'q' },
		{}
	};
	unsigned int vi, ti, r, im;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			records = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			size_records = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			rounds = min(max(strtoul(optarg, NULL, 0), 1UL),
				     (unsigned long)MAX_ROUNDS);
			break;
		case 't':
			nr_threads_list = parse_list(optarg, threads_list, 4);
			break;
		case 'v':
			nr_values = parse_list(optarg, values, 16);
			break;
		case 'j':
			json_path = optarg;
			break;
		case 'q':
			records = 100000;
			size_records = 20000;
			rounds = 1;
			break;
		default:
			fprintf(stderr, "usage: lsm_pool_bench [--records N] [--size-records N] [--rounds R] [--threads 1,2] [--values 64,100] [--json FILE] [--quick]\n");
			return 2;
		}
	}
	for (ti = 0; ti < nr_threads_list; ti++)
		if (!threads_list[ti] || threads_list[ti] > MAX_THREADS)
			return 2;
	shim_rcu_register();
	if (shim_modules_load())
		return 1;
	/*
	 * Rounds outermost, implementations innermost: interleaved.  This
	 * thread only waits meanwhile, offline for RCU.
	 */
	urcu_qsbr_thread_offline();
	for (r = 0; r < rounds; r++)
		for (vi = 0; vi < nr_values; vi++)
			for (ti = 0; ti < nr_threads_list; ti++)
				for (im = 0; im < IMPL_NR; im++)
					run_cell(vi, ti, (im + r) % IMPL_NR, r);
	urcu_qsbr_thread_online();
	print_table();
	if (json_path)
		write_json(json_path);
	shim_modules_unload();
	shim_rcu_unregister();
	return 0;
}
