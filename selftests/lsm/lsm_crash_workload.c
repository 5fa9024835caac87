// SPDX-License-Identifier: GPL-2.0
/*
 * The store's crash workload (Documentation/lsm.rst, "Crash testing"),
 * run in the guest by tools/vm/guest-crash.sh on a dm-log-writes device,
 * and the dump of a recovered store's state.
 *
 *   lsm_crash_workload run --journal FILE --dm NAME [--ops N] [--seconds S]
 *                          [--seed N] [--units U] [--memtable BYTES]
 *   lsm_crash_workload dump --out FILE [--memtable BYTES]
 *
 * The store's device is SL_LSM_DISK.  "run" formats a store there and
 * makes random operations until N of them (default 2000) or S seconds
 * have passed: puts of points and ranges with values from 0 to 12 KiB,
 * punches, batches of 2 to 12 of both (a quarter of the writes with
 * SL_LSM_SYNC), syncs, flushes, and now and then a detach and an attach;
 * a small memtable (BYTES, default 64 KiB, the least an attach takes)
 * makes runs, log segment changes and manifest roll-overs come often.
 * After each operation returns it journals it (tools/crash/crash_journal.h)
 * and sends the mark "o<ID>" to the log-writes target NAME through the DM
 * ioctl, so that the host's checker can tell, at every point of the log,
 * which operations had been acknowledged.  It also checks the store as it
 * goes: every write's sequence number, and a lookup in fifty against its
 * own model; the last operation is a detach.
 *
 * "dump" attaches the store on SL_LSM_DISK as it is, writes its newest
 * sequence number and every visible piece to FILE for the checker,
 * detaches, attaches again and checks that the same state comes back.
 *
 * Exits 0, or 1 with a message naming the operation and the seed.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdint.h>
#include <time.h>
#include "lsm_ioctl.h"
#include "lsm_dm.h"
#include "crash_journal.h"

#define BASE		0x100000000ULL	/* the first unit's key */
#define MAX_VLEN	(12 * 1024)
#define SCAN_PIECES	4096
#define SCAN_BYTES	(1024 * 1024)

static unsigned long long seed, rng;
static __u64 units = 2048;
static __u64 memtable = 64 * 1024;
static int fd = -1;
static const char *disk;

#define DIE(fmt, ...) do {						\
	fprintf(stderr, "lsm_crash_workload: FAIL: " fmt " (seed %llu)\n",\
		##__VA_ARGS__, seed);					\
	exit(1);							\
} while (0)

/* What the workload believes unit u shows: the put's journal id, or 0. */
struct unit {
	__u64 id;
	__u64 seq;
	__u64 key;
	__u64 len;
	__u32 op;
	__u32 vlen;
};

static struct unit *model;
static unsigned char vbuf[SL_LSM_VALUE_MAX];

static __u64 dev_blocks;

/* Attach SL_LSM_DISK; the device's size goes to dev_blocks. */
static int attach(__u32 flags)
{
	struct sl_lsm_ioc_attach r = {
		.path = (unsigned long)disk,
		.flags = flags,
		.memtable_bytes = memtable,
		.commit_interval_ms = 200,
	};
	int err = lsm_ioc(fd, SL_LSM_IOC_ATTACH, &r);

	if (!err)
		dev_blocks = r.nr_blocks;
	return err;
}

static __u64 store_seq(void)
{
	struct sl_lsm_ioc_stats s;
	int err = lsm_stats(fd, &s);

	if (err)
		DIE("SL_LSM_IOC_STATS: %d", err);
	return s.seq;
}

/* Merges since attach (the counters start again at each attach). */
static __u64 merges, merge_bytes;

static void count_merges(void)
{
	struct sl_lsm_ioc_stats s;
	int err = lsm_stats(fd, &s);

	if (err)
		DIE("SL_LSM_IOC_STATS: %d", err);
	merges += s.compactions;
	merge_bytes += s.compact_write_bytes;
}

/* A lookup of unit @u against the model. */
static void check_unit(__u64 u)
{
	struct sl_lsm_ioc_get_rec g;
	const struct unit *m = &model[u];
	int err = lsm_get(fd, BASE + u, &g, vbuf, sizeof(vbuf));

	if (!m->id) {
		if (err != -ENOENT)
			DIE("get unit %llu: %d where nothing is", u, err);
		return;
	}
	if (err)
		DIE("get unit %llu: %d, the put of op %llu is there", u, err,
		    m->id);
	if (g.seq != m->seq || g.ext_key != BASE + m->key ||
	    g.ext_len != m->len || g.vlen != m->vlen)
		DIE("get unit %llu: seq %llu [%llu +%llu) vlen %u, the model's seq %llu [%llu +%llu) vlen %u",
		    u, g.seq, g.ext_key - BASE, g.ext_len, g.vlen, m->seq,
		    m->key, m->len, m->vlen);
	for (__u32 b = 0; b < g.vlen; b++)
		if (vbuf[b] != crash_value_byte(m->id, m->op, b))
			DIE("get unit %llu: value byte %u wrong", u, b);
}

static __u32 random_vlen(void)
{
	unsigned long long r = dt_rnd(&rng) % 100;

	if (r < 70)
		return dt_rnd(&rng) % 200;
	if (r < 95)
		return 200 + dt_rnd(&rng) % 1800;
	return 2000 + dt_rnd(&rng) % (MAX_VLEN - 2000);
}

struct wop {
	struct sl_lsm_ioc_rec rec;
	__u64 unit;
	unsigned char *value;
};

static struct wop wops[CRASH_MAX_OPS];

/*
 * A write of @n operations (1: a PUT or DELETE ioctl, else a BATCH),
 * journalled; returns its sequence number.
 */
static __u64 do_write(FILE *j, __u64 id, unsigned int n, bool sync)
{
	struct sl_lsm_ioc_rec recs[CRASH_MAX_OPS];
	__u32 flags = sync ? SL_LSM_SYNC : 0;
	__u64 seq;
	int err;

	for (unsigned int i = 0; i < n; i++) {
		struct wop *w = &wops[i];
		__u64 len = dt_rnd(&rng) % 3 ? 1 : 1 + dt_rnd(&rng) % 64;

		if (len > units)
			len = units;
		w->unit = dt_rnd(&rng) % (units - len + 1);
		w->rec = (struct sl_lsm_ioc_rec){
			.key = BASE + w->unit, .len = len,
			.kind = dt_rnd(&rng) % 5 ? SL_LSM_REC_PUT :
						    SL_LSM_REC_DELETE,
		};
		if (w->rec.kind == SL_LSM_REC_PUT) {
			w->rec.vlen = random_vlen();
			for (__u32 b = 0; b < w->rec.vlen; b++)
				w->value[b] = crash_value_byte(id, i, b);
			w->rec.value = (unsigned long)w->value;
		}
		recs[i] = w->rec;
	}
	if (n > 1)
		err = lsm_batch(fd, recs, n, flags);
	else if (recs[0].kind == SL_LSM_REC_PUT)
		err = lsm_put(fd, recs[0].key, recs[0].len, wops[0].value,
			      recs[0].vlen, flags);
	else
		err = lsm_delete(fd, recs[0].key, recs[0].len, flags);
	if (err)
		DIE("write op %llu of %u operations: %d", id, n, err);
	seq = store_seq();
	fprintf(j, "w %llu %d 0 %llu %u", id, sync, seq, n);
	for (unsigned int i = 0; i < n; i++) {
		const struct wop *w = &wops[i];

		if (w->rec.kind == SL_LSM_REC_PUT)
			fprintf(j, " p:%llu:%llu:%u", w->unit, w->rec.len,
				w->rec.vlen);
		else
			fprintf(j, " d:%llu:%llu", w->unit, w->rec.len);
		for (__u64 u = w->unit; u < w->unit + w->rec.len; u++)
			model[u] = w->rec.kind == SL_LSM_REC_PUT ?
				(struct unit){ id, seq, w->unit, w->rec.len, i,
					       w->rec.vlen } :
				(struct unit){ 0 };
	}
	fprintf(j, "\n");
	return seq;
}

static void mark(const char *dm, __u64 id)
{
	char m[40];
	int err;

	snprintf(m, sizeof(m), "mark o%llu", id);
	err = dm_message(dm, m);
	if (err)
		DIE("mark o%llu on %s: %d", id, dm, err);
}

static int run(const char *journal, const char *dm, __u64 ops, double seconds)
{
	FILE *j = fopen(journal, "w");
	__u64 id = 1, last_seq, writes = 0, syncs = 0, flushes = 0;
	__u64 reattaches = 0, gets = 0;
	double t0 = dt_now();
	int err;

	if (!j)
		DIE("%s: %s", journal, strerror(errno));
	model = calloc(units, sizeof(*model));
	for (unsigned int i = 0; i < CRASH_MAX_OPS; i++)
		wops[i].value = malloc(MAX_VLEN);
	if (!model || !wops[CRASH_MAX_OPS - 1].value)
		DIE("out of memory");
	fprintf(j, "%s %d base %llu units %llu memtable %llu seed %llu\n",
		CRASH_JOURNAL_MAGIC, CRASH_FORMAT, BASE, units, memtable, seed);
	err = attach(SL_LSM_ATTACH_FORMAT);
	if (err)
		DIE("attach with format on %s: %d", disk, err);
	last_seq = store_seq();
	fprintf(j, "a %llu 1 0 %llu %llu\n", id, last_seq, dev_blocks);
	mark(dm, id++);
	for (;;) {
		unsigned int what = dt_rnd(&rng) % 1000;
		__u64 seq;

		if (seconds ? dt_now() - t0 >= seconds : id > ops)
			break;
		if (what < 850) {
			/* Four in ten a batch, the rest one put or punch. */
			unsigned int n = what < 340 ? 2 + dt_rnd(&rng) % 11 : 1;

			seq = do_write(j, id, n, dt_rnd(&rng) % 4 == 0);
			if (seq != last_seq + 1)
				DIE("op %llu: sequence number %llu after %llu",
				    id, seq, last_seq);
			last_seq = seq;
			writes++;
		} else if (what < 930) {
			err = lsm_sync(fd);
			fprintf(j, "s %llu %d\n", id, err);
			if (err)
				DIE("sync op %llu: %d", id, err);
			syncs++;
		} else if (what < 960) {
			err = lsm_flush(fd);
			fprintf(j, "f %llu %d\n", id, err);
			if (err)
				DIE("flush op %llu: %d", id, err);
			flushes++;
		} else if (what < 965) {
			count_merges();
			err = lsm_detach(fd);
			fprintf(j, "x %llu %d\n", id, err);
			if (err)
				DIE("detach op %llu: %d", id, err);
			mark(dm, id++);
			err = attach(0);
			if (err)
				DIE("attach op %llu: %d", id, err);
			seq = store_seq();
			fprintf(j, "a %llu 0 0 %llu %llu\n", id, seq, dev_blocks);
			if (seq != last_seq)
				DIE("attach op %llu: sequence number %llu after a clean detach at %llu",
				    id, seq, last_seq);
			reattaches++;
		} else {
			/* Lookups are not journalled: they change nothing. */
			check_unit(dt_rnd(&rng) % units);
			gets++;
			continue;
		}
		mark(dm, id++);
		if (id % 128 == 0)
			fflush(j);
	}
	for (__u64 u = 0; u < units; u++)
		check_unit(u);
	count_merges();
	err = lsm_detach(fd);
	fprintf(j, "x %llu %d\n", id, err);
	if (err)
		DIE("the last detach, op %llu: %d", id, err);
	mark(dm, id++);
	fprintf(j, "end %llu\n", id);
	if (fclose(j))
		DIE("%s: %s", journal, strerror(errno));
	printf("lsm_crash_workload: %llu operations in %.1f s: %llu writes (last seq %llu), %llu syncs, %llu flushes, %llu reattaches, %llu merges (%.1f MiB written), %llu lookups checked, %llu units checked at the end (seed %llu)\n",
	       id - 1, dt_now() - t0, writes, last_seq, syncs, flushes,
	       reattaches, merges, merge_bytes / 1048576.0, gets, units,
	       seed);
	/* The crash points must include merges in flight. */
	if (writes >= 1000 && !merges)
		DIE("%llu writes and no merge: the replay points cover no compaction",
		    writes);
	return 0;
}

/* Every visible piece, in key order, into @out as the dump has them. */
static __u64 scan_all(FILE *out, const char *what)
{
	static struct sl_lsm_ioc_piece p[SCAN_PIECES];
	static unsigned char vals[SCAN_BYTES];
	struct sl_lsm_ioc_scan s = {
		.pieces = (unsigned long)p, .values = (unsigned long)vals,
		.values_size = sizeof(vals), .max = SCAN_PIECES,
	};
	__u64 n = 0;
	int err;

	do {
		err = lsm_ioc(fd, SL_LSM_IOC_SCAN, &s);
		if (err)
			DIE("%s: scan from %llu: %d", what, s.pos, err);
		for (__u32 i = 0; i < s.count; i++, n++)
			fprintf(out, "p %llu %llu %llu %llu %llu %u %016llx\n",
				p[i].start, p[i].len, p[i].ext_key,
				p[i].ext_len, p[i].seq, p[i].vlen,
				(unsigned long long)crash_hash(CRASH_HASH_INIT,
					vals + p[i].value_off, p[i].vlen));
	} while (!s.done);
	return n;
}

/* Attach, write the state found to a string, detach. */
static char *state_of(const char *what, __u64 *seq, __u64 *pieces)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int err;

	if (!f)
		DIE("out of memory");
	err = attach(0);
	if (err)
		DIE("%s: attach %s: %d", what, disk, err);
	*seq = store_seq();
	fprintf(f, "%s %d seq %llu\n", CRASH_DUMP_MAGIC, CRASH_FORMAT, *seq);
	*pieces = scan_all(f, what);
	fprintf(f, "end %llu\n", *pieces);
	err = lsm_detach(fd);
	if (err)
		DIE("%s: detach: %d", what, err);
	if (fclose(f))
		DIE("out of memory");
	return text;
}

static int dump(const char *path)
{
	FILE *f = fopen(path, "w");
	__u64 seq, n, seq2, n2;
	char *first, *second;

	if (!f)
		DIE("%s: %s", path, strerror(errno));
	first = state_of("dump", &seq, &n);
	/* Recovered once, it must attach again, to the same state. */
	second = state_of("second attach", &seq2, &n2);
	if (strcmp(first, second))
		DIE("a second attach of %s shows seq %llu and %llu pieces, the first seq %llu and %llu",
		    disk, seq2, n2, seq, n);
	if (fputs(first, f) < 0 || fclose(f))
		DIE("%s: %s", path, strerror(errno));
	free(first);
	free(second);
	printf("lsm_crash_workload: dump of %s: seq %llu, %llu pieces; a second attach agrees\n",
	       disk, seq, n);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: lsm_crash_workload run --journal FILE --dm NAME [--ops N] [--seconds S]\n"
		"                              [--seed N] [--units U] [--memtable BYTES]\n"
		"       lsm_crash_workload dump --out FILE [--memtable BYTES]\n"
		"the store's device is SL_LSM_DISK\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "journal", required_argument, NULL, 'j' },
		{ "dm", required_argument, NULL, 'd' },
		{ "ops", required_argument, NULL, 'o' },
		{ "seconds", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "units", required_argument, NULL, 'u' },
		{ "memtable", required_argument, NULL, 'm' },
		{ "out", required_argument, NULL, 'O' },
		{ NULL, 0, NULL, 0 },
	};
	const char *journal = NULL, *dm = NULL, *out = NULL;
	__u64 ops = 2000;
	double seconds = 0;
	int c;

	if (argc < 2)
		usage();
	seed = dt_seed("SL_LSM_SEED");
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j': journal = optarg; break;
		case 'd': dm = optarg; break;
		case 'o': ops = strtoull(optarg, NULL, 0); break;
		case 's': seconds = atof(optarg); break;
		case 'S': seed = strtoull(optarg, NULL, 0) ?: 1; break;
		case 'u': units = strtoull(optarg, NULL, 0); break;
		case 'm': memtable = strtoull(optarg, NULL, 0); break;
		case 'O': out = optarg; break;
		default: usage();
		}
	}
	if (optind != argc || !units)
		usage();
	rng = seed;
	setvbuf(stdout, NULL, _IOLBF, 0);
	disk = lsm_disk();
	fd = lsm_open();
	if (fd < 0)
		DIE("%s: %s", LSM_DEVICE, strerror(errno));
	if (!strcmp(argv[1], "run") && journal && dm)
		return run(journal, dm, ops, seconds);
	if (!strcmp(argv[1], "dump") && out)
		return dump(out);
	usage();
	return 2;
}
