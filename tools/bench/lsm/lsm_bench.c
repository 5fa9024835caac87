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
 *  - seekrandom seeks to a random key and reads --seek_nexts more;
 *  - readwhilewriting runs --threads readers (readrandom) and one more
 *    thread writing random keys until they finish; only the readers
 *    are reported;
 *  - the database is destroyed at start unless --use_existing_db, and
 *    again before each benchmark that wants a fresh one (fill*);
 *  - ops/sec is every thread's operations over the wall time from the
 *    first start to the last finish; micros/op is the threads' summed
 *    time per operation; one latency sample per write call (a batch) or
 *    per read.
 *
 * Beyond db_bench, the extent workloads, which RocksDB can only emulate
 * (tools/bench/lsm/rocksdb_extent_bench.cc does, with the same flags and
 * the same keys, keys.h): rangeoverwrite puts random ranges of 1 to
 * --max_range units over a space of --num units, one extent per put;
 * rangelookup reads random units of that space (each a lookup of the
 * extent covering it).  And the pseudo-benchmarks crash (the process
 * kills itself with SIGKILL, nothing closed: what is on the file is what
 * a crash leaves), attach (how long this process's opening of the store
 * took: its recovery, with --use_existing_db) and waitforcompaction.
 *
 * Records of every benchmark also go, as JSON, to --json=FILE.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "hist.h"
#include "keys.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* --- flags ----------------------------------------------------------- */

/* Each build has its own backend: lsm_bench the library, lsm_bench_dev the kernel's. */
#ifdef LSMB_DEV
#define DEFAULT_BACKEND	"dev"
#define PROGRAM		"lsm_bench_dev"
#else
#define DEFAULT_BACKEND	"lib"
#define PROGRAM		"lsm_bench"
#endif

static struct {
	const char *benchmarks;
	int64_t num, reads, writes;
	int key_size, value_size, threads, batch_size, seek_nexts, max_range;
	bool sync, disable_wal, use_existing_db, histogram, db_in_place;
	int64_t write_buffer_size;
	int max_write_buffer_number;
	uint64_t seed, db_bytes, cache_size;
	const char *db, *json, *backend, *device;
} flags = {
	.benchmarks = "fillseq,fillrandom,readrandom,readseq",
	.num = 1000000, .reads = -1, .writes = -1,
	.key_size = 8, .value_size = 100, .threads = 1, .batch_size = 1,
	.max_range = 256,
	.write_buffer_size = 64 << 20, .max_write_buffer_number = 3,
	.db_bytes = 16ULL << 30, .db = "/tmp/lsm_bench.img", .backend = DEFAULT_BACKEND,
	.device = "/dev/sl_lsm",
};

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, PROGRAM ": ");
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
	printf("usage: " PROGRAM " [--flag=value ...]   (db_bench's flags)\n"
"  --benchmarks=LIST        comma list of: fillseq fillrandom overwrite fillsync\n"
"                           readrandom readseq seekrandom readwhilewriting\n"
"                           rangeoverwrite rangelookup flush waitforcompaction\n"
"                           stats memstats attach crash\n"
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
"  --max_range=N            units of rangeoverwrite's longest range (%d)\n"
"  --seed=N                 0: from the clock\n"
"  --use_existing_db        keep the store at --db\n"
"  --histogram              accepted; latency percentiles are always printed\n"
"  --db=PATH                the file (or block device) the store lives on\n"
"  --db_bytes=B             the size a new file is made (%" PRIu64 ")\n"
"  --db_in_place            a new store is formatted on the file --db as it\n"
"                           stands, as on a block device, not on a fresh\n"
"                           sparse file: on a file written through once,\n"
"                           writes allocate nothing in the file system\n"
"  --backend=lib|dev        lib: the userspace library on --db (lsm_bench);\n"
"                           dev: sl_lsm.ko through --device, attached to the\n"
"                           block device --db (lsm_bench_dev)\n"
"  --device=PATH            the kernel's character device (/dev/sl_lsm)\n"
"  --json=FILE              also write the records as JSON\n",
	       flags.num, flags.value_size, flags.threads, flags.batch_size,
	       flags.write_buffer_size, flags.max_write_buffer_number,
	       flags.max_range, flags.db_bytes);
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
	{ "max_range", F_INT, &flags.max_range },
	{ "sync", F_BOOL, &flags.sync },
	{ "disable_wal", F_BOOL, &flags.disable_wal },
	{ "use_existing_db", F_BOOL, &flags.use_existing_db },
	{ "histogram", F_BOOL, &flags.histogram },
	{ "write_buffer_size", F_I64, &flags.write_buffer_size },
	{ "max_write_buffer_number", F_INT, &flags.max_write_buffer_number },
	{ "seed", F_U64, &flags.seed },
	{ "db_bytes", F_U64, &flags.db_bytes },
	{ "db_in_place", F_BOOL, &flags.db_in_place },
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
	    flags.seek_nexts < 0 || flags.max_range < 1 ||
	    flags.write_buffer_size < 4096 ||
	    flags.max_write_buffer_number < 2)
		die("a flag is out of range (--help)");
	if (!flags.seed) {
		flags.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		fprintf(stderr, "Set seed to %" PRIu64 " because --seed was 0\n",
			flags.seed);
	}
}

/* --- values ----------------------------------------------------------- */

/* Random bytes that values are cut from, at random offsets (keys.h). */
static unsigned char *value_pool;

static void make_values(void)
{
	value_pool = malloc(VALUE_POOL + VALUE_POOL_SLACK);
	if (!value_pool)
		die("out of memory");
	fill_value_pool(value_pool, flags.seed);
}

/* --- benchmarks ------------------------------------------------------ */

enum kind { FILL_SEQ, FILL_RANDOM, OVERWRITE, FILL_SYNC, READ_RANDOM,
	    READ_SEQ, SEEK_RANDOM, READ_WHILE_WRITING, RANGE_OVERWRITE,
	    RANGE_LOOKUP, FLUSH, WAIT_COMPACTION, STATS, MEMSTATS, ATTACH,
	    CRASH };

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
	{ "readwhilewriting", READ_WHILE_WRITING, false, false },
	/* Over what is there, as overwrite: a fresh store is the caller's. */
	{ "rangeoverwrite", RANGE_OVERWRITE, false, true },
	{ "rangelookup", RANGE_LOOKUP, false, false },
	{ "flush", FLUSH, false, false },
	{ "waitforcompaction", WAIT_COMPACTION, false, false },
	{ "stats", STATS, false, false },
	{ "memstats", MEMSTATS, false, false },
	{ "attach", ATTACH, false, false },
	{ "crash", CRASH, false, false },
};

static const struct lsmb_backend *backend;
static struct lsmb_config config;
static struct lsmb_db *db;
static uint64_t thread_seeds;	/* as db_bench's total_thread_count_ */
static uint64_t open_ns;	/* how long the last opening of the store took */

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
	bool background;	/* readwhilewriting's writer: not reported */
	uint64_t seed;
	pthread_barrier_t *barrier;
	struct timespec start, end;
	uint64_t done, bytes, found;
	int err;
	struct hist hist;
};

/* readwhilewriting: readers still running; the writer stops at 0. */
static int readers_left;

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

/* The @i-th put of a write benchmark: a key, or a range of units. */
static inline void next_put(enum kind kind, int64_t i, int64_t range,
			    uint64_t *rng, struct lsmb_put *put)
{
	put->len = 1;
	if (kind == FILL_SEQ)
		put->key = i;
	else if (kind == RANGE_OVERWRITE)
		range_shape(rng, range, flags.max_range, &put->key, &put->len);
	else
		put->key = next_rand(rng) % range;
}

/* The bytes a put hands over: a key's 8 and the value, or a range's 16. */
static inline uint64_t put_bytes(const struct lsmb_put *put, enum kind kind)
{
	return (kind == RANGE_OVERWRITE ? 16 : 8) + put->vlen;
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
			next_put(w->b->kind, i + k, range, &rng, &puts[k]);
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
		for (k = 0; k < n; k++)
			w->bytes += put_bytes(&puts[k], w->b->kind);
	}
}

/*
 * readwhilewriting's writer (db_bench's BGWriter): random keys, one put
 * per call, until every reader has finished.  Its count is printed, not
 * reported as the benchmark's.
 */
static void do_background_write(struct worker *w)
{
	uint64_t rng = w->seed;

	while (__atomic_load_n(&readers_left, __ATOMIC_ACQUIRE) > 0) {
		struct lsmb_put put = {
			.key = next_rand(&rng) % flags.num, .len = 1,
			.vlen = flags.value_size,
		};
		int err;

		put.value = value_pool + next_rand(&rng) % VALUE_POOL;
		err = backend->write(db, &put, 1, flags.sync);
		if (err) {
			w->err = err;
			return;
		}
		w->done++;
		w->bytes += put_bytes(&put, OVERWRITE);
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

/*
 * db_bench's seekrandom: a cursor at a random key, then --seek_nexts
 * keys after it, one latency sample for the lot; found when the seek
 * lands on a key (every key is there in a store filled by fillseq).
 */
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
		w->bytes += (uint64_t)n * (8 + flags.value_size);
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
	case RANGE_OVERWRITE:
		do_write(w);
		break;
	case READ_WHILE_WRITING:
		if (w->background) {
			do_background_write(w);
			break;
		}
		do_read_random(w);
		__atomic_sub_fetch(&readers_left, 1, __ATOMIC_RELEASE);
		break;
	case READ_RANDOM:
	case RANGE_LOOKUP:
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

static bool counts_found(enum kind kind)
{
	return kind == READ_RANDOM || kind == SEEK_RANDOM ||
	       kind == READ_WHILE_WRITING || kind == RANGE_LOOKUP;
}

static void run_threads(const struct bench *b)
{
	/* readwhilewriting: one more thread, the writer, as db_bench's 0. */
	int extra = b->kind == READ_WHILE_WRITING, n = flags.threads + extra;
	struct worker *w = calloc(n, sizeof(*w));
	struct hist *all = calloc(1, sizeof(*all));
	double first = 0, last = 0, thread_secs = 0, elapsed;
	uint64_t done = 0, bytes = 0, found = 0;
	pthread_barrier_t barrier;
	bool any = false;
	char msg[96] = "";
	int i;

	if (!w || !all)
		die("out of memory");
	pthread_barrier_init(&barrier, NULL, n);
	readers_left = flags.threads;
	for (i = 0; i < n; i++) {
		w[i].b = b;
		w[i].tid = i;
		w[i].background = extra && i == 0;
		w[i].seed = thread_seed(flags.seed, thread_seeds, i);
		w[i].barrier = &barrier;
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]))
			die("cannot start a thread");
	}
	thread_seeds += n;
	for (i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		if (w[i].err)
			die("%s: thread %d: %s", b->name, i, strerror(-w[i].err));
		if (w[i].background)
			continue;
		if (!any || ts_sec(&w[i].start) < first)
			first = ts_sec(&w[i].start);
		if (ts_sec(&w[i].end) > last)
			last = ts_sec(&w[i].end);
		any = true;
		thread_secs += ts_sec(&w[i].end) - ts_sec(&w[i].start);
		done += w[i].done;
		bytes += w[i].bytes;
		found += w[i].found;
		hist_merge(all, &w[i].hist);
	}
	pthread_barrier_destroy(&barrier);
	elapsed = last - first;
	if (counts_found(b->kind))
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
	if (extra)
		printf("%s writer : %" PRIu64 " puts, %.0f puts/sec\n", b->name,
		       w[0].done, elapsed > 0 ? w[0].done / elapsed : 0.0);
	/* What the callers handed over, for write amplification. */
	if (b->writes)
		printf("lsm.bench-user-bytes: %" PRIu64 "\n", bytes);
	hist_print(all, b->writes);
	json_record(b->name, flags.threads, done, elapsed,
		    elapsed > 0 ? done / elapsed : 0,
		    done ? thread_secs * 1e6 / done : 0, all,
		    counts_found(b->kind) ? (int64_t)found : -1);
	if (b->writes) {
		int64_t range, ops;

		fill_shape(b->kind, &range, &ops);
		puts_since_fresh += done;
		if (nr_fills < MAX_FILLS)
			fills[nr_fills] = (struct fill){ b->kind, ops, range,
				flags.threads, thread_seeds - flags.threads };
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
		if (fills[f].kind == RANGE_OVERWRITE)
			return free(bits), -1;	/* units, not keys */
		for (t = 0; t < fills[f].threads; t++) {
			uint64_t rng = thread_seed(flags.seed, fills[f].seed0, t);
			int64_t i;

			for (i = 0; i < fills[f].ops; i++) {
				struct lsmb_put put;
				uint64_t k;

				next_put(fills[f].kind, i, fills[f].range, &rng, &put);
				k = put.key;
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

static void get_stats(struct lsmb_stats *s)
{
	int err = backend->stats(db, s);

	if (err)
		die("stats: %s", strerror(-err));
}

/*
 * The store's counters since this process opened it (they start at 0
 * at every opening), as "lsm.NAME: VALUE" lines that run.py reads.
 */
static void print_stats(bool memstats)
{
	struct lsmb_stats s;

	get_stats(&s);
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
	printf("lsm.slowdowns: %" PRIu64 "\n", s.slowdowns);
	printf("lsm.slowdown-ns: %" PRIu64 "\n", s.slowdown_ns);
	printf("lsm.wal-bytes: %" PRIu64 "\n", s.wal_bytes);
	printf("lsm.run-bytes: %" PRIu64 "\n", s.run_bytes);
	printf("lsm.manifest-bytes: %" PRIu64 "\n", s.manifest_bytes);
	printf("lsm.user-bytes: %" PRIu64 "\n", s.user_bytes);
	printf("lsm.compactions: %" PRIu64 "\n", s.compactions);
	printf("lsm.compact-read-bytes: %" PRIu64 "\n", s.compact_read_bytes);
	printf("lsm.compact-write-bytes: %" PRIu64 "\n", s.compact_write_bytes);
	printf("lsm.pending-compact-bytes: %" PRIu64 "\n", s.pending_compact_bytes);
	printf("lsm.space-used-bytes: %" PRIu64 "\n", s.space_used_bytes);
	printf("lsm.file-alloc-bytes: %" PRIu64 "\n", s.alloc_bytes);
	printf("lsm.cache-hits: %" PRIu64 "\n", s.cache_hits);
	printf("lsm.cache-misses: %" PRIu64 "\n", s.cache_misses);
	printf("lsm.group-commits: %" PRIu64 "\n", s.group_commits);
	printf("lsm.group-writers: %" PRIu64 "\n", s.group_writers);
	printf("lsm.cache-hits: %" PRIu64 "\n", s.cache_hits);
	printf("lsm.cache-misses: %" PRIu64 "\n", s.cache_misses);
	printf("lsm.cache-bytes: %" PRIu64 "\n", s.cache_bytes);
}

/*
 * db_bench's waitforcompaction: until no immutable memtable waits, no
 * merge is owed (pending_compact_bytes) and nothing has been written to
 * runs for 200 ms, so that a background merge in progress is finished
 * too.  Not timed; the counters printed after it include that work.
 */
#define SETTLE_POLL_MS	50
#define SETTLE_QUIET_MS	200
#define SETTLE_MAX_S	1800

static void wait_for_compaction(void)
{
	uint64_t t0 = now_ns(), quiet_since = 0, last_bytes = UINT64_MAX;
	struct timespec nap = { 0, SETTLE_POLL_MS * 1000000L };

	for (;;) {
		struct lsmb_stats s;

		get_stats(&s);
		if (s.immutables || s.pending_compact_bytes ||
		    s.run_bytes != last_bytes) {
			quiet_since = now_ns();
			last_bytes = s.run_bytes;
		} else if (now_ns() - quiet_since >= SETTLE_QUIET_MS * 1000000ULL) {
			break;
		}
		if (now_ns() - t0 > SETTLE_MAX_S * 1000000000ULL)
			die("waitforcompaction: still busy after %d s", SETTLE_MAX_S);
		nanosleep(&nap, NULL);
	}
	printf("%-12s : waited %.3f seconds\n", "waitforcompaction",
	       (now_ns() - t0) / 1e9);
}

static void open_store(bool fresh)
{
	uint64_t t0 = now_ns();
	int err = backend->open(&config, fresh, &db);

	open_ns = now_ns() - t0;
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

/*
 * The last opening's time as a report line run.py reads like the others
 * (one operation); with --use_existing_db it is the recovery of what the
 * previous process left, after a clean close or a crash.
 */
static void print_attach(void)
{
	printf("%-12s : %11.3f micros/op %ld ops/sec %.3f seconds 1 operations; "
	       "%6.1f MB/s\n", "attach", open_ns / 1e3,
	       (long)(open_ns ? 1e9 / open_ns : 0), open_ns / 1e9, 0.0);
	if (json) {
		struct hist h = { 0 };

		hist_add(&h, open_ns);
		json_record("attach", 1, 1, open_ns / 1e9, 1e9 / open_ns,
			    open_ns / 1e3, &h, -1);
	}
}

static void finish_json(void)
{
	if (!json)
		return;
	fprintf(json, "\n]}\n");
	if (fclose(json))
		die("%s: %s", flags.json, strerror(errno));
	json = NULL;
}

/*
 * kill -9 of this process, as its own last act: nothing is closed,
 * synced or written out, so the file holds what a crash at this point
 * leaves (the page cache keeps what the store wrote; what it still held
 * in memory is lost).  The report so far is flushed first.
 */
static void __attribute__((noreturn)) crash(void)
{
#ifdef LSMB_DEV
	/* The kernel's store outlives this process; its release detaches it. */
	die("crash: through /dev/sl_lsm, killing this process detaches the "
	    "kernel's store cleanly; a crash of sl_lsm.ko is a reboot");
#endif
	printf("%-12s : killing the process (SIGKILL) with the store open\n",
	       "crash");
	finish_json();
	fflush(NULL);
	raise(SIGKILL);
	abort();
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
	if (flags.db_in_place)
		die("--db_in_place: the kernel's store is always on the block device --db as it is");
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
		.db_bytes = flags.db_bytes, .in_place = flags.db_in_place,
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
		case WAIT_COMPACTION:
			wait_for_compaction();
			break;
		case STATS:
			print_stats(false);
			break;
		case MEMSTATS:
			print_stats(true);
			break;
		case ATTACH:
			print_attach();
			break;
		case CRASH:
			crash();
		default:
			run_threads(b);
		}
	}
	free(list);
	close_store();
	finish_json();
	return 0;
}
