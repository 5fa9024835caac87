// SPDX-License-Identifier: GPL-2.0
/*
 * lsm_bench: RocksDB's db_bench, for the store.  Same benchmark names,
 * same flags where they exist, same key generation and the same report
 * lines, so that tools/bench/lsm/run.py runs both drivers with one set of
 * flags and parses both outputs with one parser.
 *
 * As db_bench does:
 *  - keys are integers below --num, 8 bytes (big-endian in db_bench, so
 *    their order is the integers' order, which is the store's);
 *  - --num, --reads and --writes count per thread: with two threads,
 *    fillseq writes keys 0..num-1 twice, once from each thread;
 *  - fillrandom, overwrite and readrandom draw keys uniformly from each
 *    thread's generator, seeded from --seed and a counter of threads;
 *  - fillsync writes --writes keys drawn from num / 1000, each durable
 *    when its write returns;
 *  - the database is destroyed at start unless --use_existing_db, and
 *    again before each benchmark that wants a fresh one (fill*);
 *  - ops/sec is every thread's operations over the wall time from the
 *    first start to the last finish; micros/op is the threads' summed
 *    time per operation; one latency sample per write call (a batch) or
 *    per read.
 *
 * Records of every benchmark also go, as JSON, to --json=FILE.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* --- flags ----------------------------------------------------------- */

/* Each build has its own backend: lsm_bench the library, lsm_bench_dev the kernel's. */
#ifdef LSMB_DEV
#define DEFAULT_BACKEND	"dev"
#else
#define DEFAULT_BACKEND	"lib"
#endif

static struct {
	const char *benchmarks;
	int64_t num, reads, writes;
	int key_size, value_size, threads, batch_size, seek_nexts;
	bool sync, disable_wal, use_existing_db, histogram;
	int64_t write_buffer_size;
	int max_write_buffer_number;
	uint64_t seed, db_bytes, cache_size;
	const char *db, *json, *backend, *device;
} flags = {
	.benchmarks = "fillseq,fillrandom,readrandom,readseq",
	.num = 1000000, .reads = -1, .writes = -1,
	.key_size = 8, .value_size = 100, .threads = 1, .batch_size = 1,
	.write_buffer_size = 64 << 20, .max_write_buffer_number = 3,
	.db_bytes = 16ULL << 30, .db = "/tmp/lsm_bench.img", .backend = DEFAULT_BACKEND,
	.device = "/dev/sl_lsm",
};

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "lsm_bench: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static int64_t parse_int(const char *name, const char *v)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(v, &end, 0);
	if (errno || end == v || *end)
		die("--%s=%s: not an integer", name, v);
	return x;
}

static bool parse_bool(const char *name, const char *v)
{
	if (!v || !strcmp(v, "1") || !strcmp(v, "true"))
		return true;
	if (!strcmp(v, "0") || !strcmp(v, "false"))
		return false;
	die("--%s=%s: not a boolean", name, v);
}

static void usage(void)
{
	printf("usage: lsm_bench [--flag=value ...]   (db_bench's flags)\n"
"  --benchmarks=LIST        comma list of: fillseq fillrandom overwrite fillsync\n"
"                           readrandom readseq seekrandom flush stats memstats\n"
"  --num=N                  keys (and operations) per thread (%" PRId64 ")\n"
"  --reads=N --writes=N     operations per thread of reads, writes (-1: --num)\n"
"  --key_size=8             8 only: keys are integers below --num\n"
"  --value_size=N           bytes per value (%d)\n"
"  --threads=N              threads running each benchmark (%d)\n"
"  --batch_size=N           puts per write call, applied atomically (%d)\n"
"  --sync                   every write durable on return\n"
"  --disable_wal            no write-ahead log (a crash loses the memtables)\n"
"  --write_buffer_size=B    memtable bytes (%" PRId64 ")\n"
"  --max_write_buffer_number=N  memtables, the active one included (%d)\n"
"  --seek_nexts=N           keys read after each seek of seekrandom (0)\n"
"  --cache_size=B           the store's block cache (0: its default, 8 MiB;\n"
"                           dev: in MiB, set through the module parameter)\n"
"  --seed=N                 0: from the clock\n"
"  --use_existing_db        keep the store at --db\n"
"  --histogram              accepted; latency percentiles are always printed\n"
"  --db=PATH                the file (or block device) the store lives on\n"
"  --db_bytes=B             the size a new file is made (%" PRIu64 ")\n"
"  --backend=lib|dev        lib: the userspace library on --db (lsm_bench);\n"
"                           dev: sl_lsm.ko through --device, attached to the\n"
"                           block device --db (lsm_bench_dev)\n"
"  --device=PATH            the kernel's character device (/dev/sl_lsm)\n"
"  --json=FILE              also write the records as JSON\n",
	       flags.num, flags.value_size, flags.threads, flags.batch_size,
	       flags.write_buffer_size, flags.max_write_buffer_number,
	       flags.db_bytes);
}

/* Every flag: its name, as db_bench spells it, and where it goes. */
enum flag_type { F_INT, F_I64, F_U64, F_BOOL, F_STR };

static const struct flag {
	const char *name;
	enum flag_type type;
	void *p;
} flag_table[] = {
	{ "benchmarks", F_STR, &flags.benchmarks },
	{ "num", F_I64, &flags.num },
	{ "reads", F_I64, &flags.reads },
	{ "writes", F_I64, &flags.writes },
	{ "key_size", F_INT, &flags.key_size },
	{ "value_size", F_INT, &flags.value_size },
	{ "threads", F_INT, &flags.threads },
	{ "batch_size", F_INT, &flags.batch_size },
	{ "seek_nexts", F_INT, &flags.seek_nexts },
	{ "sync", F_BOOL, &flags.sync },
	{ "disable_wal", F_BOOL, &flags.disable_wal },
	{ "use_existing_db", F_BOOL, &flags.use_existing_db },
	{ "histogram", F_BOOL, &flags.histogram },
	{ "write_buffer_size", F_I64, &flags.write_buffer_size },
	{ "max_write_buffer_number", F_INT, &flags.max_write_buffer_number },
	{ "seed", F_U64, &flags.seed },
	{ "db_bytes", F_U64, &flags.db_bytes },
	{ "cache_size", F_U64, &flags.cache_size },
	{ "db", F_STR, &flags.db },
	{ "json", F_STR, &flags.json },
	{ "backend", F_STR, &flags.backend },
	{ "device", F_STR, &flags.device },
};

static void set_flag(const struct flag *f, char *v)
{
	int64_t x;

	if (f->type == F_BOOL) {
		*(bool *)f->p = parse_bool(f->name, v);
		return;
	}
	if (!v)
		die("--%s needs a value", f->name);
	if (f->type == F_STR) {
		*(const char **)f->p = v;
		return;
	}
	x = parse_int(f->name, v);
	if (f->type == F_INT) {
		if (x < INT32_MIN || x > INT32_MAX)
			die("--%s=%s: out of range", f->name, v);
		*(int *)f->p = x;
	} else if (f->type == F_I64) {
		*(int64_t *)f->p = x;
	} else {
		*(uint64_t *)f->p = x;
	}
}

static void parse_flags(int argc, char **argv)
{
	size_t k;
	int i;

	for (i = 1; i < argc; i++) {
		char *a = argv[i], *name, *v;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage();
			exit(0);
		}
		if (a[0] != '-')
			die("%s: flags are --name=value", a);
		name = a + (a[1] == '-' ? 2 : 1);
		v = strchr(name, '=');
		if (v)
			*v++ = '\0';
		for (k = 0; k < ARRAY_SIZE(flag_table); k++)
			if (!strcmp(name, flag_table[k].name))
				break;
		if (k == ARRAY_SIZE(flag_table))
			die("unknown flag --%s (--help lists them)", name);
		set_flag(&flag_table[k], v);
	}
	if (flags.key_size != 8)
		die("--key_size=%d: only 8-byte keys (the store's keys are 64-bit integers)",
		    flags.key_size);
	if (flags.num < 1 || flags.threads < 1 || flags.threads > 64 ||
	    flags.batch_size < 1 || flags.batch_size > 4096 ||
	    flags.value_size < 0 || flags.value_size > 65536 ||
	    flags.seek_nexts < 0 || flags.write_buffer_size < 4096 ||
	    flags.max_write_buffer_number < 2)
		die("a flag is out of range (--help)");
	if (!flags.seed) {
		flags.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		fprintf(stderr, "Set seed to %" PRIu64 " because --seed was 0\n",
			flags.seed);
	}
}

/* --- random numbers and values --------------------------------------- */

/* splitmix64: each thread's stream of keys, from its own seed. */
static inline uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Random bytes that values are cut from, at random offsets. */
#define VALUE_POOL	(1 << 20)
static unsigned char *value_pool;

static void make_values(void)
{
	uint64_t s = flags.seed;
	size_t i;

	value_pool = malloc(VALUE_POOL + 65536);
	if (!value_pool)
		die("out of memory");
	for (i = 0; i < VALUE_POOL + 65536; i += 8) {
		uint64_t r = next_rand(&s);

		memcpy(value_pool + i, &r, 8);
	}
}

/* --- latency histogram ----------------------------------------------- */

/*
 * Nanoseconds in buckets of 1/64 of a power of two (under 1.6% wide):
 * exact below 128 ns.  Percentiles interpolate within a bucket, as
 * db_bench's histogram does within its (much wider) buckets.
 */
#define HIST_SUB	64
#define HIST_BUCKETS	(128 + 57 * HIST_SUB)

struct hist {
	uint64_t count, sum_ns, min_ns, max_ns;
	double sum_sq;
	uint64_t bucket[HIST_BUCKETS];
};

static unsigned int hist_index(uint64_t ns)
{
	int e;

	if (ns < 128)
		return ns;
	e = 63 - __builtin_clzll(ns);
	return 128 + (e - 7) * HIST_SUB + ((ns >> (e - 6)) & (HIST_SUB - 1));
}

static void hist_bounds(unsigned int i, double *lo, double *hi)
{
	unsigned int e, sub;

	if (i < 128) {
		*lo = i;
		*hi = i + 1;
		return;
	}
	e = (i - 128) / HIST_SUB + 7;
	sub = (i - 128) % HIST_SUB;
	*lo = (double)(HIST_SUB + sub) * (double)(1ULL << (e - 6));
	*hi = *lo + (double)(1ULL << (e - 6));
}

static inline void hist_add(struct hist *h, uint64_t ns)
{
	h->count++;
	h->sum_ns += ns;
	h->sum_sq += (double)ns * ns;
	if (ns < h->min_ns || h->count == 1)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->bucket[hist_index(ns)]++;
}

static void hist_merge(struct hist *to, const struct hist *from)
{
	unsigned int i;

	if (!from->count)
		return;
	if (!to->count || from->min_ns < to->min_ns)
		to->min_ns = from->min_ns;
	if (from->max_ns > to->max_ns)
		to->max_ns = from->max_ns;
	to->count += from->count;
	to->sum_ns += from->sum_ns;
	to->sum_sq += from->sum_sq;
	for (i = 0; i < HIST_BUCKETS; i++)
		to->bucket[i] += from->bucket[i];
}

/* The @p-th percentile, in microseconds. */
static double hist_pct(const struct hist *h, double p)
{
	double want = h->count * p / 100, seen = 0, lo, hi;
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		if (seen + h->bucket[i] >= want) {
			hist_bounds(i, &lo, &hi);
			if (hi > h->max_ns + 1)
				hi = h->max_ns + 1;
			return (lo + (hi - lo) * (want - seen) / h->bucket[i]) / 1e3;
		}
		seen += h->bucket[i];
	}
	return h->max_ns / 1e3;
}

/* --- benchmarks ------------------------------------------------------ */

enum kind { FILL_SEQ, FILL_RANDOM, OVERWRITE, FILL_SYNC, READ_RANDOM,
	    READ_SEQ, SEEK_RANDOM, FLUSH, STATS, MEMSTATS };

static const struct bench {
	const char *name;
	enum kind kind;
	bool fresh;	/* wants a new, empty store */
	bool writes;
} benches[] = {
	{ "fillseq", FILL_SEQ, true, true },
	{ "fillrandom", FILL_RANDOM, true, true },
	{ "overwrite", OVERWRITE, false, true },
	{ "fillsync", FILL_SYNC, true, true },
	{ "readrandom", READ_RANDOM, false, false },
	{ "readseq", READ_SEQ, false, false },
	{ "seekrandom", SEEK_RANDOM, false, false },
	{ "flush", FLUSH, false, false },
	{ "stats", STATS, false, false },
	{ "memstats", MEMSTATS, false, false },
};

static const struct lsmb_backend *backend;
static struct lsmb_config config;
static struct lsmb_db *db;
static uint64_t thread_seeds;	/* as db_bench's total_thread_count_ */

/*
 * The puts since the store was made, so that memstats can count the
 * distinct keys in the memtable by generating them again (counting them
 * while timing would cost the timed loop).
 */
#define MAX_FILLS	16
static struct fill {
	enum kind kind;
	int64_t ops, range;
	int threads;
	uint64_t seed0;
} fills[MAX_FILLS];
static int nr_fills;
static uint64_t puts_since_fresh;

struct worker {
	pthread_t thread;
	const struct bench *b;
	int tid;
	uint64_t seed;
	pthread_barrier_t *barrier;
	struct timespec start, end;
	uint64_t done, bytes, found;
	int err;
	struct hist hist;
};

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static double ts_sec(const struct timespec *ts)
{
	return ts->tv_sec + ts->tv_nsec * 1e-9;
}

static int64_t per_thread(int64_t n)
{
	return n < 0 ? flags.num : n;
}

/* The keys a fill draws from, and how many it writes per thread. */
static void fill_shape(enum kind kind, int64_t *range, int64_t *ops)
{
	*range = flags.num;
	*ops = per_thread(flags.writes);
	if (kind == FILL_SYNC) {
		/* db_bench's fillsync: num / 1000 keys, --writes writes. */
		*range = flags.num / 1000 ? flags.num / 1000 : 1;
	}
}

static inline uint64_t fill_key(enum kind kind, int64_t i, int64_t range,
				uint64_t *rng)
{
	return kind == FILL_SEQ ? (uint64_t)i : next_rand(rng) % range;
}

static void do_write(struct worker *w)
{
	struct lsmb_put puts[4096];
	int64_t range, ops, i;
	uint64_t rng = w->seed;
	bool sync = flags.sync || w->b->kind == FILL_SYNC;
	int n, k;

	fill_shape(w->b->kind, &range, &ops);
	for (i = 0; i < ops; i += n) {
		uint64_t t0;
		int err;

		n = ops - i < flags.batch_size ? ops - i : flags.batch_size;
		for (k = 0; k < n; k++) {
			puts[k].key = fill_key(w->b->kind, i + k, range, &rng);
			puts[k].value = value_pool + next_rand(&rng) % VALUE_POOL;
			puts[k].vlen = flags.value_size;
		}
		t0 = now_ns();
		err = backend->write(db, puts, n, sync);
		hist_add(&w->hist, now_ns() - t0);
		if (err) {
			w->err = err;
			return;
		}
		w->done += n;
		w->bytes += n * (8 + flags.value_size);
	}
}

static void do_read_random(struct worker *w)
{
	int64_t i, ops = per_thread(flags.reads);
	uint64_t rng = w->seed;
	unsigned char vbuf[65536];

	for (i = 0; i < ops; i++) {
		uint64_t key = next_rand(&rng) % flags.num, t0;
		uint32_t vlen;
		int err;

		t0 = now_ns();
		err = backend->get(db, key, vbuf, sizeof(vbuf), &vlen);
		hist_add(&w->hist, now_ns() - t0);
		if (err && err != -ENOENT) {
			w->err = err;
			return;
		}
		if (!err) {
			w->found++;
			w->bytes += 8 + vlen;
		}
		w->done++;
	}
}

/*
 * A full scan from the first key, --reads keys at most.  The store hands
 * keys over in batches; each key of a batch counts the batch's time
 * shared out, which is what db_bench's per-Next() samples see of its
 * iterator's block reads too.
 */
#define SCAN_BATCH	256

static void do_read_seq(struct worker *w)
{
	int64_t ops = per_thread(flags.reads);
	struct lsmb_scan *scan;
	int err, n, k;

	err = backend->scan_start(db, 0, &scan);
	if (err) {
		w->err = err;
		return;
	}
	while (w->done < (uint64_t)ops) {
		int64_t left = ops - w->done;
		uint64_t t0 = now_ns(), each;

		n = backend->scan_next(scan, left < SCAN_BATCH ? left : SCAN_BATCH);
		if (n <= 0) {
			if (n < 0)
				w->err = n;
			break;
		}
		each = (now_ns() - t0) / n;
		for (k = 0; k < n; k++)
			hist_add(&w->hist, each);
		w->done += n;
		w->bytes += (uint64_t)n * (8 + flags.value_size);
	}
	backend->scan_end(scan);
}

static void do_seek_random(struct worker *w)
{
	int64_t i, ops = per_thread(flags.reads);
	uint64_t rng = w->seed;

	for (i = 0; i < ops; i++) {
		uint64_t key = next_rand(&rng) % flags.num, t0;
		struct lsmb_scan *scan;
		int err, n;

		t0 = now_ns();
		err = backend->scan_start(db, key, &scan);
		if (err) {
			w->err = err;
			return;
		}
		n = backend->scan_next(scan, 1 + flags.seek_nexts);
		backend->scan_end(scan);
		hist_add(&w->hist, now_ns() - t0);
		if (n < 0) {
			w->err = n;
			return;
		}
		if (n > 0)
			w->found++;
		w->done++;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	backend->thread_start(db);
	pthread_barrier_wait(w->barrier);
	clock_gettime(CLOCK_MONOTONIC, &w->start);
	switch (w->b->kind) {
	case FILL_SEQ:
	case FILL_RANDOM:
	case OVERWRITE:
	case FILL_SYNC:
		do_write(w);
		break;
	case READ_RANDOM:
		do_read_random(w);
		break;
	case READ_SEQ:
		do_read_seq(w);
		break;
	case SEEK_RANDOM:
		do_seek_random(w);
		break;
	default:
		break;
	}
	clock_gettime(CLOCK_MONOTONIC, &w->end);
	backend->thread_stop(db);
	return NULL;
}

static FILE *json;
static int nr_records;

static void json_record(const char *name, int threads, uint64_t ops,
			double secs, double ops_s, double us_op,
			const struct hist *h, int64_t found)
{
	if (!json)
		return;
	fprintf(json, "%s\n  {\"workload\": \"%s\", \"impl\": \"lsm\", \"backend\": \"%s\", "
		"\"threads\": %d, \"num\": %" PRId64 ", \"value_size\": %d, "
		"\"batch_size\": %d, \"sync\": %s, \"disable_wal\": %s, "
		"\"ops\": %" PRIu64 ", \"seconds\": %.6f, \"ops_per_sec\": %.1f, "
		"\"micros_per_op\": %.4f, \"p50_us\": %.3f, \"p99_us\": %.3f, "
		"\"p999_us\": %.3f",
		nr_records++ ? "," : "", name, backend->name, threads, flags.num,
		flags.value_size, flags.batch_size, flags.sync ? "true" : "false",
		flags.disable_wal ? "true" : "false", ops, secs, ops_s, us_op,
		hist_pct(h, 50), hist_pct(h, 99), hist_pct(h, 99.9));
	if (found >= 0)
		fprintf(json, ", \"found\": %" PRId64, found);
	fprintf(json, "}");
}

static void print_hist(const struct hist *h, bool writes)
{
	double avg = h->count ? (double)h->sum_ns / h->count : 0;
	double var = h->count ? h->sum_sq / h->count - avg * avg : 0;

	printf("Microseconds per %s:\n", writes ? "write" : "read");
	printf("Count: %" PRIu64 " Average: %.4f  StdDev: %.2f\n", h->count,
	       avg / 1e3, sqrt(var > 0 ? var : 0) / 1e3);
	printf("Min: %.3f  Median: %.4f  Max: %.3f\n", h->min_ns / 1e3,
	       hist_pct(h, 50), h->max_ns / 1e3);
	printf("Percentiles: P50: %.2f P75: %.2f P99: %.2f P99.9: %.2f P99.99: %.2f\n",
	       hist_pct(h, 50), hist_pct(h, 75), hist_pct(h, 99),
	       hist_pct(h, 99.9), hist_pct(h, 99.99));
	printf("------------------------------------------------------\n");
}

static void run_threads(const struct bench *b)
{
	struct worker *w = calloc(flags.threads, sizeof(*w));
	struct hist *all = calloc(1, sizeof(*all));
	double first = 0, last = 0, thread_secs = 0, elapsed;
	uint64_t done = 0, bytes = 0, found = 0;
	pthread_barrier_t barrier;
	char msg[96] = "";
	int i;

	if (!w || !all)
		die("out of memory");
	pthread_barrier_init(&barrier, NULL, flags.threads);
	for (i = 0; i < flags.threads; i++) {
		w[i].b = b;
		w[i].tid = i;
		w[i].seed = flags.seed + ++thread_seeds;
		w[i].barrier = &barrier;
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]))
			die("cannot start a thread");
	}
	for (i = 0; i < flags.threads; i++) {
		pthread_join(w[i].thread, NULL);
		if (w[i].err)
			die("%s: thread %d: %s", b->name, i, strerror(-w[i].err));
		if (!i || ts_sec(&w[i].start) < first)
			first = ts_sec(&w[i].start);
		if (ts_sec(&w[i].end) > last)
			last = ts_sec(&w[i].end);
		thread_secs += ts_sec(&w[i].end) - ts_sec(&w[i].start);
		done += w[i].done;
		bytes += w[i].bytes;
		found += w[i].found;
		hist_merge(all, &w[i].hist);
	}
	pthread_barrier_destroy(&barrier);
	elapsed = last - first;
	if (b->kind == READ_RANDOM || b->kind == SEEK_RANDOM)
		snprintf(msg, sizeof(msg), " (%" PRIu64 " of %" PRIu64 " found)",
			 found, done);
	if (b->kind == FILL_SYNC)
		snprintf(msg, sizeof(msg), " (%" PRId64 " keys)",
			 flags.num / 1000 ? flags.num / 1000 : 1);
	printf("%-12s : %11.3f micros/op %ld ops/sec %.3f seconds %" PRIu64
	       " operations; %6.1f MB/s%s\n", b->name,
	       done ? thread_secs * 1e6 / done : 0.0,
	       (long)(elapsed > 0 ? done / elapsed : 0), elapsed, done,
	       elapsed > 0 ? bytes / 1048576.0 / elapsed : 0.0, msg);
	print_hist(all, b->writes);
	json_record(b->name, flags.threads, done, elapsed,
		    elapsed > 0 ? done / elapsed : 0,
		    done ? thread_secs * 1e6 / done : 0, all,
		    b->kind == READ_RANDOM || b->kind == SEEK_RANDOM ? (int64_t)found : -1);
	if (b->writes) {
		int64_t range, ops;

		fill_shape(b->kind, &range, &ops);
		puts_since_fresh += done;
		if (nr_fills < MAX_FILLS)
			fills[nr_fills] = (struct fill){ b->kind, ops, range,
				flags.threads, flags.seed + thread_seeds - flags.threads };
		nr_fills++;
	}
	free(all);
	free(w);
}

/* The distinct keys written since the store was made, or -1 if unknown. */
static int64_t distinct_keys(void)
{
	uint64_t *bits = calloc((flags.num + 63) / 64, 8), count = 0;
	int f, t;

	if (!bits || nr_fills > MAX_FILLS)
		return free(bits), -1;
	for (f = 0; f < nr_fills; f++) {
		for (t = 0; t < fills[f].threads; t++) {
			uint64_t rng = fills[f].seed0 + t + 1;
			int64_t i;

			for (i = 0; i < fills[f].ops; i++) {
				uint64_t k = fill_key(fills[f].kind, i,
						      fills[f].range, &rng);

				next_rand(&rng);	/* the value's offset */
				if (k < (uint64_t)flags.num &&
				    !(bits[k / 64] & (1ULL << (k % 64)))) {
					bits[k / 64] |= 1ULL << (k % 64);
					count++;
				}
			}
		}
	}
	free(bits);
	return count;
}

static void print_stats(bool memstats)
{
	struct lsmb_stats s;
	int err = backend->stats(db, &s);

	if (err)
		die("stats: %s", strerror(-err));
	printf("lsm.memtable-bytes: %" PRIu64 "\n", s.memtable_bytes);
	printf("lsm.immutables: %" PRIu64 "\n", s.immutables);
	printf("lsm.flushes: %" PRIu64 "\n", s.flushes);
	if (memstats) {
		printf("lsm.memtable-puts: %" PRIu64 "\n", puts_since_fresh);
		printf("lsm.memtable-keys: %" PRId64 "\n", distinct_keys());
		return;
	}
	printf("lsm.runs: %" PRIu64 "\n", s.runs);
	printf("lsm.stalls: %" PRIu64 "\n", s.stalls);
	printf("lsm.stall-ns: %" PRIu64 "\n", s.stall_ns);
	printf("lsm.wal-bytes: %" PRIu64 "\n", s.wal_bytes);
	printf("lsm.run-bytes: %" PRIu64 "\n", s.run_bytes);
	printf("lsm.manifest-bytes: %" PRIu64 "\n", s.manifest_bytes);
	printf("lsm.user-bytes: %" PRIu64 "\n", s.user_bytes);
	printf("lsm.group-commits: %" PRIu64 "\n", s.group_commits);
	printf("lsm.group-writers: %" PRIu64 "\n", s.group_writers);
	printf("lsm.cache-hits: %" PRIu64 "\n", s.cache_hits);
	printf("lsm.cache-misses: %" PRIu64 "\n", s.cache_misses);
	printf("lsm.cache-bytes: %" PRIu64 "\n", s.cache_bytes);
}

static void open_store(bool fresh)
{
	int err = backend->open(&config, fresh, &db);

	if (err)
		die("%s: cannot open the store: %s", config.path, strerror(-err));
	if (fresh) {
		nr_fills = 0;
		puts_since_fresh = 0;
	}
}

static void close_store(void)
{
	int err = backend->close(db);

	db = NULL;
	if (err)
		die("%s: closing the store failed: %s", config.path, strerror(-err));
}

static const struct bench *find_bench(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(benches); i++)
		if (!strcmp(benches[i].name, name))
			return &benches[i];
	return NULL;
}

int main(int argc, char **argv)
{
	char *list, *name, *save;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_flags(argc, argv);
#ifdef LSMB_SELFTEST
	/* lsm_bench_selftest: the driver on its test double, nothing else. */
	if (strcmp(flags.backend, "model"))
		die("--backend=%s: the self-test build has only --backend=model",
		    flags.backend);
	backend = &lsmb_backend_model;
#elif defined(LSMB_DEV)
	/* lsm_bench_dev: sl_lsm.ko through --device, nothing of the store linked in. */
	if (strcmp(flags.backend, "dev"))
		die("--backend=%s: lsm_bench_dev has only --backend=dev (lsm_bench has lib)",
		    flags.backend);
	backend = &lsmb_backend_dev;
#else
	if (!strcmp(flags.backend, "lib"))
		backend = &lsmb_backend_lib;
	else
		die("--backend=%s: lsm_bench has only lib (the userspace library); "
		    "lsm_bench_dev has dev", flags.backend);
#endif
	config = (struct lsmb_config){
		.path = flags.db, .device = flags.device,
		.db_bytes = flags.db_bytes,
		.memtable_bytes = flags.write_buffer_size,
		.max_immutables = flags.max_write_buffer_number - 1,
		.no_wal = flags.disable_wal,
		.cache_bytes = flags.cache_size,
	};
	/* Every name is checked before anything runs, as db_bench does. */
	list = strdup(flags.benchmarks);
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save))
		if (!find_bench(name))
			die("unknown benchmark '%s'", name);
	free(list);
	if (flags.json) {
		json = fopen(flags.json, "w");
		if (!json)
			die("%s: %s", flags.json, strerror(errno));
		fprintf(json, "{\"records\": [");
	}
	make_values();
	printf("Keys:       8 bytes each\nValues:     %d bytes each\n"
	       "Entries:    %" PRId64 "\nBackend:    %s on %s\n"
	       "Memtable:   %" PRId64 " bytes, %d memtables; WAL %s\n"
	       "------------------------------------------------\n",
	       flags.value_size, flags.num, backend->name, flags.db,
	       flags.write_buffer_size, flags.max_write_buffer_number,
	       flags.disable_wal ? "off" : "on");
	open_store(!flags.use_existing_db);

	list = strdup(flags.benchmarks);
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		const struct bench *b = find_bench(name);
		int err;

		if (b->fresh) {
			if (flags.use_existing_db) {
				printf("%-12s : skipped (--use_existing_db is true)\n", b->name);
				continue;
			}
			close_store();
			open_store(true);
		}
		switch (b->kind) {
		case FLUSH:
			err = backend->flush(db);
			if (err)
				die("flush: %s", strerror(-err));
			break;
		case STATS:
			print_stats(false);
			break;
		case MEMSTATS:
			print_stats(true);
			break;
		default:
			run_threads(b);
		}
	}
	free(list);
	close_store();
	if (json) {
		fprintf(json, "\n]}\n");
		if (fclose(json))
			die("%s: %s", flags.json, strerror(errno));
	}
	return 0;
}
