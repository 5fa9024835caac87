// SPDX-License-Identifier: GPL-2.0
/*
 * rocksdb_extent_bench: the extent workloads of lsm_bench, done as a
 * RocksDB user would have to do them, for make bench-lsm's comparison.
 * It links Debian's librocksdb (7.8.3, the library db_bench is built on)
 * and opens the database with the OPTIONS file that db_bench wrote in
 * the same run (--options_file), so that both RocksDB drivers of a run
 * have the same options; only the flags given here change them.
 *
 * Same flags, same keys (keys.h), same report lines and latency
 * histogram (hist.h) as lsm_bench, so that tools/bench/lsm/run.py runs
 * both with one set of flags and parses both with one parser.
 *
 * RocksDB has no extents: a key is a point.  An extent [k, k + len) with
 * a value is stored as the key k (8 bytes, big-endian, so that keys sort
 * as integers) whose value is len (8 bytes) followed by the value bytes.
 *
 *  - rangeoverwrite: one WriteBatch of DeleteRange(k, k + len) and
 *    Put(k, len + value) per operation: the starts inside the range go,
 *    the new extent starts at k.  An older extent that starts before k
 *    and reaches past k + len keeps its tail visible in the store
 *    (lsm_store_write() trims it); here that tail is lost, since nothing
 *    re-writes it at k + len: the emulation is cheaper than the
 *    semantics.  --exact_ranges pays for them: a SeekForPrev(k + len) on
 *    a new iterator before each write finds such an extent, and the batch
 *    puts its tail back at k + len; with writers serialised by a mutex,
 *    since the read and the write must be atomic together.
 *  - rangelookup: the extent covering a random unit u: SeekForPrev(u)
 *    gives the greatest start <= u, and it covers u if start + len > u.
 *    One iterator per thread, made before the timed loop and reused for
 *    every lookup (no writes run meanwhile): a new one per lookup, as a
 *    reader racing writers would need, would cost RocksDB more.
 *
 * Reads skip checksum verification, as db_bench does by default
 * (--verify_checksum=0).  fillseq and fillrandom write one key per put
 * (db_bench's, for the attach workloads' fill); flush, waitforcompaction,
 * stats (the STATISTICS db_bench prints), attach (the time this process
 * took to open the database) and crash (SIGKILL) are lsm_bench's.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/options_util.h>
#include <rocksdb/write_batch.h>

#include "hist.h"
#include "keys.h"

using ROCKSDB_NAMESPACE::ColumnFamilyDescriptor;
using ROCKSDB_NAMESPACE::ColumnFamilyHandle;
using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::DBOptions;
using ROCKSDB_NAMESPACE::FlushOptions;
using ROCKSDB_NAMESPACE::Iterator;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::WriteBatch;
using ROCKSDB_NAMESPACE::WriteOptions;

namespace {

struct Flags {
	std::string benchmarks = "rangeoverwrite,rangelookup";
	int64_t num = 1000000, reads = -1, writes = -1;
	int value_size = 100, threads = 1, max_range = 256, key_size = 8;
	int64_t write_buffer_size = 0;	/* 0: the OPTIONS file's */
	int max_write_buffer_number = 0;
	int64_t cache_size = 8 << 20;
	uint64_t seed = 0;
	bool sync = false, disable_wal = false, use_existing_db = false;
	bool exact_ranges = false, statistics = true, verify_checksum = false;
	std::string db = "/tmp/rocksdb_extent_bench", options_file, json;
} flags;

void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "rocksdb_extent_bench: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

void check(const Status &s, const char *what)
{
	if (!s.ok())
		die("%s: %s", what, s.ToString().c_str());
}

int64_t parse_int(const std::string &name, const char *v)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(v, &end, 0);
	if (errno || end == v || *end)
		die("--%s=%s: not an integer", name.c_str(), v);
	return x;
}

bool parse_bool(const std::string &name, const char *v)
{
	if (!v || !strcmp(v, "1") || !strcmp(v, "true"))
		return true;
	if (!strcmp(v, "0") || !strcmp(v, "false"))
		return false;
	die("--%s=%s: not a boolean", name.c_str(), v);
}

void usage()
{
	printf("usage: rocksdb_extent_bench --options_file=OPTIONS [--flag=value ...]\n"
"  --benchmarks=LIST        comma list of: rangeoverwrite rangelookup fillseq\n"
"                           fillrandom flush waitforcompaction stats attach crash\n"
"  --options_file=PATH      db_bench's OPTIONS file of this run (required)\n"
"  --num=N                  units of the space, keys of the fills\n"
"  --reads=N --writes=N     operations per thread (-1: --num)\n"
"  --max_range=N            longest range of rangeoverwrite (256)\n"
"  --value_size=N           bytes per value (100)\n"
"  --threads=N              threads running each benchmark (1)\n"
"  --write_buffer_size=B    memtable bytes (default: the OPTIONS file's)\n"
"  --max_write_buffer_number=N  (default: the OPTIONS file's)\n"
"  --cache_size=B           block cache, LRU, 2^6 shards as db_bench's (8 MiB)\n"
"  --sync --disable_wal     WriteOptions, as db_bench's flags\n"
"  --exact_ranges           keep the tail of an extent a range splits (a read\n"
"                           per write, writers serialised)\n"
"  --statistics=0|1         RocksDB's statistics, printed by stats (1)\n"
"  --verify_checksum        verify blocks on reads (db_bench's default: 0)\n"
"  --seed=N --db=PATH --use_existing_db --json=FILE   as lsm_bench\n");
}

void parse_flags(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *a = argv[i], *v;
		std::string name;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage();
			exit(0);
		}
		if (a[0] != '-')
			die("%s: flags are --name=value", a);
		a += a[1] == '-' ? 2 : 1;
		v = strchr(a, '=');
		if (v)
			*v++ = '\0';
		name = a;
		auto need = [&]() -> const char * {
			if (!v)
				die("--%s needs a value", name.c_str());
			return v;
		};
		if (name == "benchmarks")
			flags.benchmarks = need();
		else if (name == "num")
			flags.num = parse_int(name, need());
		else if (name == "reads")
			flags.reads = parse_int(name, need());
		else if (name == "writes")
			flags.writes = parse_int(name, need());
		else if (name == "value_size")
			flags.value_size = parse_int(name, need());
		else if (name == "key_size")
			flags.key_size = parse_int(name, need());
		else if (name == "threads")
			flags.threads = parse_int(name, need());
		else if (name == "max_range")
			flags.max_range = parse_int(name, need());
		else if (name == "write_buffer_size")
			flags.write_buffer_size = parse_int(name, need());
		else if (name == "max_write_buffer_number")
			flags.max_write_buffer_number = parse_int(name, need());
		else if (name == "cache_size")
			flags.cache_size = parse_int(name, need());
		else if (name == "seed")
			flags.seed = parse_int(name, need());
		else if (name == "sync")
			flags.sync = parse_bool(name, v);
		else if (name == "disable_wal")
			flags.disable_wal = parse_bool(name, v);
		else if (name == "use_existing_db")
			flags.use_existing_db = parse_bool(name, v);
		else if (name == "exact_ranges")
			flags.exact_ranges = parse_bool(name, v);
		else if (name == "statistics")
			flags.statistics = parse_bool(name, v);
		else if (name == "verify_checksum")
			flags.verify_checksum = parse_bool(name, v);
		else if (name == "histogram")
			parse_bool(name, v);	/* percentiles are always printed */
		else if (name == "db")
			flags.db = need();
		else if (name == "options_file")
			flags.options_file = need();
		else if (name == "json")
			flags.json = need();
		else
			die("unknown flag --%s (--help lists them)", name.c_str());
	}
	if (flags.options_file.empty())
		die("--options_file is required: db_bench's OPTIONS file of this run");
	if (flags.key_size != 8)
		die("--key_size=%d: only 8-byte keys", flags.key_size);
	if (flags.num < 1 || flags.threads < 1 || flags.threads > 64 ||
	    flags.value_size < 0 || flags.value_size > 65536 ||
	    flags.max_range < 1 || flags.write_buffer_size < 0 ||
	    flags.max_write_buffer_number < 0 || flags.cache_size < 0)
		die("a flag is out of range (--help)");
	if (!flags.seed) {
		flags.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		fprintf(stderr, "Set seed to %" PRIu64 " because --seed was 0\n",
			flags.seed);
	}
}

/* --- the database ------------------------------------------------------ */

DB *db;
std::vector<ColumnFamilyHandle *> handles;
std::shared_ptr<ROCKSDB_NAMESPACE::Statistics> statistics;
uint64_t open_ns;
unsigned char *value_pool;

uint64_t now_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Keys sort as integers: big-endian, as db_bench's. */
void encode_key(uint64_t k, char out[8])
{
	for (int i = 0; i < 8; i++)
		out[i] = (char)(k >> (56 - 8 * i));
}

uint64_t decode_key(const Slice &s)
{
	uint64_t k = 0;

	for (int i = 0; i < 8 && i < (int)s.size(); i++)
		k = k << 8 | (unsigned char)s[i];
	return k;
}

/*
 * db_bench's options as its OPTIONS file says, with a block cache of
 * --cache_size made as db_bench makes it, and the flags given here.
 */
void open_db(bool fresh)
{
	ConfigOptions cfg;
	DBOptions dbo;
	std::vector<ColumnFamilyDescriptor> cfs;
	std::shared_ptr<ROCKSDB_NAMESPACE::Cache> cache =
		ROCKSDB_NAMESPACE::NewLRUCache(flags.cache_size, 6, false, 0.0);
	uint64_t t0;

	cfg.ignore_unknown_options = false;
	check(LoadOptionsFromFile(cfg, flags.options_file, &dbo, &cfs, &cache),
	      flags.options_file.c_str());
	for (auto &cf : cfs) {
		if (flags.write_buffer_size)
			cf.options.write_buffer_size = flags.write_buffer_size;
		if (flags.max_write_buffer_number)
			cf.options.max_write_buffer_number = flags.max_write_buffer_number;
	}
	dbo.create_if_missing = true;
	if (flags.statistics) {
		statistics = ROCKSDB_NAMESPACE::CreateDBStatistics();
		dbo.statistics = statistics;
	}
	if (fresh) {
		ROCKSDB_NAMESPACE::Options o(dbo, cfs[0].options);

		check(ROCKSDB_NAMESPACE::DestroyDB(flags.db, o, cfs), "DestroyDB");
	}
	t0 = now_ns();
	check(DB::Open(dbo, flags.db, cfs, &handles, &db), "DB::Open");
	open_ns = now_ns() - t0;
}

void close_db()
{
	for (auto *h : handles)
		check(db->DestroyColumnFamilyHandle(h), "DestroyColumnFamilyHandle");
	handles.clear();
	check(db->Close(), "DB::Close");
	delete db;
	db = nullptr;
}

/* --- benchmarks ------------------------------------------------------ */

enum Kind { FILL_SEQ, FILL_RANDOM, RANGE_OVERWRITE, RANGE_LOOKUP, FLUSH,
	    WAIT_COMPACTION, STATS, ATTACH, CRASH };

struct Bench {
	const char *name;
	Kind kind;
	bool writes;
};

const Bench benches[] = {
	{ "fillseq", FILL_SEQ, true },
	{ "fillrandom", FILL_RANDOM, true },
	{ "rangeoverwrite", RANGE_OVERWRITE, true },
	{ "rangelookup", RANGE_LOOKUP, false },
	{ "flush", FLUSH, false },
	{ "waitforcompaction", WAIT_COMPACTION, false },
	{ "stats", STATS, false },
	{ "attach", ATTACH, false },
	{ "crash", CRASH, false },
};

const Bench *find_bench(const std::string &name)
{
	for (const auto &b : benches)
		if (name == b.name)
			return &b;
	return nullptr;
}

struct Worker {
	pthread_t thread;
	const Bench *b;
	int tid;
	uint64_t seed;
	pthread_barrier_t *barrier;
	uint64_t start, end, done, bytes, found;
	std::string err;
	struct hist hist;
};

uint64_t thread_seeds;	/* threads started so far, as lsm_bench counts */
std::mutex exact_mutex;	/* --exact_ranges: a read and a write as one */
FILE *json;
int nr_records;

int64_t per_thread(int64_t n)
{
	return n < 0 ? flags.num : n;
}

/*
 * --exact_ranges: before [k, end) is written, the extent covering the
 * unit end, if it starts before end and reaches past it, must show its
 * tail [end, its end) afterwards: put that tail back at end.  SeekForPrev
 * on a new iterator, so that it sees the writes before it.
 */
void keep_tail(uint64_t end, WriteBatch *batch, std::string *tail)
{
	ReadOptions ro;

	ro.verify_checksums = flags.verify_checksum;
	std::unique_ptr<Iterator> it(db->NewIterator(ro));
	char kbuf[8];

	encode_key(end, kbuf);
	it->SeekForPrev(Slice(kbuf, 8));
	if (!it->Valid())
		return;
	uint64_t s = decode_key(it->key()), slen;
	Slice v = it->value();

	if (v.size() < 8)
		die("extent at %" PRIu64 ": value of %zu bytes", s, v.size());
	memcpy(&slen, v.data(), 8);
	if (s >= end || s + slen <= end)
		return;
	uint64_t rest = s + slen - end;

	tail->assign((const char *)&rest, 8);
	tail->append(v.data() + 8, v.size() - 8);
	check(batch->Put(Slice(kbuf, 8), *tail), "WriteBatch::Put");
}

void do_write(Worker *w)
{
	int64_t ops = per_thread(flags.writes);
	uint64_t rng = w->seed;
	WriteOptions wo;
	std::string val, tail;

	wo.sync = flags.sync;
	wo.disableWAL = flags.disable_wal;
	for (int64_t i = 0; i < ops; i++) {
		uint64_t key, len = 1, t0;
		char kbuf[8], ebuf[8];
		WriteBatch batch;
		Status s;

		if (w->b->kind == FILL_SEQ)
			key = i;
		else if (w->b->kind == FILL_RANDOM)
			key = next_rand(&rng) % flags.num;
		else
			range_shape(&rng, flags.num, flags.max_range, &key, &len);
		const char *v = (const char *)value_pool + next_rand(&rng) % VALUE_POOL;

		encode_key(key, kbuf);
		t0 = now_ns();
		if (w->b->kind == RANGE_OVERWRITE) {
			std::unique_lock<std::mutex> lock(exact_mutex, std::defer_lock);

			val.assign((const char *)&len, 8);
			val.append(v, flags.value_size);
			encode_key(key + len, ebuf);
			if (flags.exact_ranges) {
				lock.lock();
				keep_tail(key + len, &batch, &tail);
			}
			check(batch.DeleteRange(Slice(kbuf, 8), Slice(ebuf, 8)),
			      "WriteBatch::DeleteRange");
			check(batch.Put(Slice(kbuf, 8), val), "WriteBatch::Put");
			s = db->Write(wo, &batch);
		} else {
			s = db->Put(wo, Slice(kbuf, 8), Slice(v, flags.value_size));
		}
		hist_add(&w->hist, now_ns() - t0);
		if (!s.ok()) {
			w->err = s.ToString();
			return;
		}
		w->done++;
		w->bytes += (w->b->kind == RANGE_OVERWRITE ? 16 : 8) + flags.value_size;
	}
}

void do_range_lookup(Worker *w)
{
	int64_t ops = per_thread(flags.reads);
	uint64_t rng = w->seed;
	ReadOptions ro;

	ro.verify_checksums = flags.verify_checksum;
	std::unique_ptr<Iterator> it(db->NewIterator(ro));
	for (int64_t i = 0; i < ops; i++) {
		uint64_t u = next_rand(&rng) % flags.num, t0, s, len;
		bool found = false;
		char kbuf[8];

		encode_key(u, kbuf);
		t0 = now_ns();
		it->SeekForPrev(Slice(kbuf, 8));
		if (it->Valid()) {
			Slice v = it->value();

			s = decode_key(it->key());
			if (v.size() >= 8) {
				memcpy(&len, v.data(), 8);
				found = s + len > u;
			}
			if (found)
				w->bytes += 8 + v.size();
		}
		hist_add(&w->hist, now_ns() - t0);
		w->found += found;
		w->done++;
	}
	if (!it->status().ok())
		w->err = it->status().ToString();
}

void *worker_main(void *arg)
{
	Worker *w = (Worker *)arg;

	pthread_barrier_wait(w->barrier);
	w->start = now_ns();
	if (w->b->kind == RANGE_LOOKUP)
		do_range_lookup(w);
	else
		do_write(w);
	w->end = now_ns();
	return nullptr;
}

void json_record(const char *name, uint64_t ops, double secs,
		 double us_op, const struct hist *h, int64_t found)
{
	if (!json)
		return;
	fprintf(json, "%s\n  {\"workload\": \"%s\", \"impl\": \"rocksdb\", "
		"\"threads\": %d, \"num\": %" PRId64 ", \"value_size\": %d, "
		"\"exact_ranges\": %s, \"ops\": %" PRIu64 ", \"seconds\": %.6f, "
		"\"ops_per_sec\": %.1f, \"micros_per_op\": %.4f, \"p50_us\": %.3f, "
		"\"p99_us\": %.3f, \"p999_us\": %.3f",
		nr_records++ ? "," : "", name, flags.threads, flags.num,
		flags.value_size, flags.exact_ranges ? "true" : "false", ops,
		secs, secs > 0 ? ops / secs : 0, us_op, hist_pct(h, 50),
		hist_pct(h, 99), hist_pct(h, 99.9));
	if (found >= 0)
		fprintf(json, ", \"found\": %" PRId64, found);
	fprintf(json, "}");
}

void run_threads(const Bench *b)
{
	std::vector<Worker> w(flags.threads);
	std::unique_ptr<struct hist> all(new struct hist());
	uint64_t first = 0, last = 0, done = 0, bytes = 0, found = 0;
	double thread_secs = 0, elapsed;
	pthread_barrier_t barrier;
	char msg[96] = "";

	pthread_barrier_init(&barrier, nullptr, flags.threads);
	for (int i = 0; i < flags.threads; i++) {
		w[i].b = b;
		w[i].tid = i;
		w[i].seed = thread_seed(flags.seed, thread_seeds, i);
		w[i].barrier = &barrier;
		w[i].done = w[i].bytes = w[i].found = 0;
		memset(&w[i].hist, 0, sizeof(w[i].hist));
		if (pthread_create(&w[i].thread, nullptr, worker_main, &w[i]))
			die("cannot start a thread");
	}
	thread_seeds += flags.threads;
	for (int i = 0; i < flags.threads; i++) {
		pthread_join(w[i].thread, nullptr);
		if (!w[i].err.empty())
			die("%s: thread %d: %s", b->name, i, w[i].err.c_str());
		if (!i || w[i].start < first)
			first = w[i].start;
		if (w[i].end > last)
			last = w[i].end;
		thread_secs += (w[i].end - w[i].start) / 1e9;
		done += w[i].done;
		bytes += w[i].bytes;
		found += w[i].found;
		hist_merge(all.get(), &w[i].hist);
	}
	pthread_barrier_destroy(&barrier);
	elapsed = (last - first) / 1e9;
	if (b->kind == RANGE_LOOKUP)
		snprintf(msg, sizeof(msg), " (%" PRIu64 " of %" PRIu64 " found)",
			 found, done);
	printf("%-12s : %11.3f micros/op %ld ops/sec %.3f seconds %" PRIu64
	       " operations; %6.1f MB/s%s\n", b->name,
	       done ? thread_secs * 1e6 / done : 0.0,
	       (long)(elapsed > 0 ? done / elapsed : 0), elapsed, done,
	       elapsed > 0 ? bytes / 1048576.0 / elapsed : 0.0, msg);
	if (b->writes)
		printf("rocksdb.bench-user-bytes: %" PRIu64 "\n", bytes);
	hist_print(all.get(), b->writes);
	json_record(b->name, done, elapsed, done ? thread_secs * 1e6 / done : 0,
		    all.get(), b->kind == RANGE_LOOKUP ? (int64_t)found : -1);
}

/*
 * db_bench's waitforcompaction: until no flush or compaction is pending
 * or running, twice 200 ms apart, so that a job that finishes and starts
 * another is waited for too.
 */
void wait_for_compaction()
{
	const std::string props[] = {
		DB::Properties::kMemTableFlushPending,
		DB::Properties::kNumRunningFlushes,
		DB::Properties::kCompactionPending,
		DB::Properties::kNumRunningCompactions,
	};
	uint64_t t0 = now_ns();
	int quiet = 0;

	while (quiet < 2) {
		bool busy = false;

		for (const auto &p : props) {
			uint64_t v = 0;

			if (!db->GetIntProperty(p, &v))
				die("property %s missing", p.c_str());
			busy |= v != 0;
		}
		quiet = busy ? 0 : quiet + 1;
		usleep(busy ? 50000 : 200000);
		if (now_ns() - t0 > 1800ULL * 1000000000ULL)
			die("waitforcompaction: still busy after 1800 s");
	}
	printf("%-12s : waited %.3f seconds\n", "waitforcompaction",
	       (now_ns() - t0) / 1e9);
}

void print_stats()
{
	std::string s;

	if (db->GetProperty("rocksdb.stats", &s))
		printf("%s\n", s.c_str());
	if (statistics)
		printf("STATISTICS:\n%s\n", statistics->ToString().c_str());
}

void print_attach()
{
	struct hist h = {};

	printf("%-12s : %11.3f micros/op %ld ops/sec %.3f seconds 1 operations; "
	       "%6.1f MB/s\n", "attach", open_ns / 1e3,
	       (long)(open_ns ? 1e9 / open_ns : 0), open_ns / 1e9, 0.0);
	hist_add(&h, open_ns);
	json_record("attach", 1, open_ns / 1e9, open_ns / 1e3, &h, -1);
}

void finish_json()
{
	if (!json)
		return;
	fprintf(json, "\n]}\n");
	if (fclose(json))
		die("%s: %s", flags.json.c_str(), strerror(errno));
	json = nullptr;
}

} // namespace

int main(int argc, char **argv)
{
	std::vector<const Bench *> list;

	setvbuf(stdout, nullptr, _IOLBF, 0);
	parse_flags(argc, argv);
	for (size_t pos = 0; pos <= flags.benchmarks.size();) {
		size_t comma = flags.benchmarks.find(',', pos);
		std::string name = flags.benchmarks.substr(pos, comma - pos);

		if (!name.empty()) {
			const Bench *b = find_bench(name);

			if (!b)
				die("unknown benchmark '%s'", name.c_str());
			list.push_back(b);
		}
		if (comma == std::string::npos)
			break;
		pos = comma + 1;
	}
	if (!flags.json.empty()) {
		json = fopen(flags.json.c_str(), "w");
		if (!json)
			die("%s: %s", flags.json.c_str(), strerror(errno));
		fprintf(json, "{\"records\": [");
	}
	value_pool = (unsigned char *)malloc(VALUE_POOL + VALUE_POOL_SLACK);
	if (!value_pool)
		die("out of memory");
	fill_value_pool(value_pool, flags.seed);
	printf("Keys:       8 bytes each (extents: 8-byte start, 8-byte length in the value)\n"
	       "Values:     %d bytes each\nEntries:    %" PRId64 "\n"
	       "RocksDB:    %s, options from %s%s\n"
	       "------------------------------------------------\n",
	       flags.value_size, flags.num, flags.db.c_str(),
	       flags.options_file.c_str(),
	       flags.exact_ranges ? "; exact ranges" : "");
	open_db(!flags.use_existing_db);
	for (const Bench *b : list) {
		switch (b->kind) {
		case FLUSH: {
			FlushOptions fo;

			fo.wait = true;
			check(db->Flush(fo), "Flush");
			break;
		}
		case WAIT_COMPACTION:
			wait_for_compaction();
			break;
		case STATS:
			print_stats();
			break;
		case ATTACH:
			print_attach();
			break;
		case CRASH:
			/* kill -9, as lsm_bench's: nothing closed or flushed. */
			printf("%-12s : killing the process (SIGKILL) with the database open\n",
			       "crash");
			finish_json();
			fflush(nullptr);
			raise(SIGKILL);
			abort();
		default:
			run_threads(b);
		}
	}
	close_db();
	finish_json();
	return 0;
}
