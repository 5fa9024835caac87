// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/sl_lsm: what each command does on a store on SL_LSM_DISK (which
 * every test formats): extent semantics of put, delete and atomic
 * batches, lookups one and many at a time, scans and their cursor, the
 * counters, and persistence across detach and attach, across close, and
 * after a flush to runs.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "lsm_ioctl.h"
#include "kselftest_harness.h"

FIXTURE(lsm)
{
	int fd;
	const char *disk;
	char vbuf[SL_LSM_VALUE_MAX];
};

FIXTURE_SETUP(lsm)
{
	self->disk = lsm_disk();
	self->fd = lsm_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, lsm_attach(self->fd, self->disk, SL_LSM_ATTACH_FORMAT));
}

FIXTURE_TEARDOWN(lsm)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The lookup of @key shows extent [ek, +el) through [vs, +vl), value @v. */
static void expect_get(struct __test_metadata *_metadata, int fd, __u64 key,
		       __u64 ek, __u64 el, __u64 vs, __u64 vl, const char *v)
{
	struct sl_lsm_ioc_get_rec r;
	char buf[256];

	ASSERT_EQ(0, lsm_get(fd, key, &r, buf, sizeof(buf))) {
		TH_LOG("get %llu", (unsigned long long)key);
	}
	EXPECT_EQ(ek, r.ext_key);
	EXPECT_EQ(el, r.ext_len);
	EXPECT_EQ(vs, r.start);
	EXPECT_EQ(vl, r.len);
	ASSERT_EQ(strlen(v), r.vlen);
	EXPECT_EQ(0, memcmp(buf, v, r.vlen)) {
		TH_LOG("get %llu: value '%.*s', expected '%s'",
		       (unsigned long long)key, (int)r.vlen, buf, v);
	}
}

#define PUT(key, len, s) lsm_put(self->fd, key, len, s, strlen(s), 0)

TEST_F(lsm, put_trims_older_extents)
{
	ASSERT_EQ(0, PUT(100, 50, "A"));
	ASSERT_EQ(0, PUT(120, 10, "B"));
	expect_get(_metadata, self->fd, 100, 100, 50, 100, 20, "A");
	expect_get(_metadata, self->fd, 119, 100, 50, 100, 20, "A");
	expect_get(_metadata, self->fd, 125, 120, 10, 120, 10, "B");
	expect_get(_metadata, self->fd, 149, 100, 50, 130, 20, "A");
	EXPECT_EQ(-ENOENT, lsm_get(self->fd, 99, NULL, NULL, 0));
	EXPECT_EQ(-ENOENT, lsm_get(self->fd, 150, NULL, NULL, 0));
	/* A put covering everything replaces all of it. */
	ASSERT_EQ(0, PUT(90, 100, "C"));
	expect_get(_metadata, self->fd, 125, 90, 100, 90, 100, "C");
}

TEST_F(lsm, delete_punches)
{
	ASSERT_EQ(0, PUT(100, 50, "A"));
	ASSERT_EQ(0, lsm_delete(self->fd, 110, 5, 0));
	EXPECT_EQ(-ENOENT, lsm_get(self->fd, 110, NULL, NULL, 0));
	EXPECT_EQ(-ENOENT, lsm_get(self->fd, 114, NULL, NULL, 0));
	expect_get(_metadata, self->fd, 109, 100, 50, 100, 10, "A");
	expect_get(_metadata, self->fd, 115, 100, 50, 115, 35, "A");
	/* A punch where nothing is succeeds. */
	EXPECT_EQ(0, lsm_delete(self->fd, 1000, 1, 0));
	/* One that covers the rest leaves nothing. */
	EXPECT_EQ(0, lsm_delete(self->fd, 0, 1000, 0));
	EXPECT_EQ(-ENOENT, lsm_get(self->fd, 100, NULL, NULL, 0));
	EXPECT_EQ(-ENOENT, lsm_get(self->fd, 149, NULL, NULL, 0));
}

TEST_F(lsm, batch_applies_in_order)
{
	struct sl_lsm_ioc_rec recs[] = {
		{ .key = 0, .len = 10, .value = (unsigned long)"X", .vlen = 1,
		  .kind = SL_LSM_REC_PUT },
		{ .key = 5, .len = 1, .value = (unsigned long)"Y", .vlen = 1,
		  .kind = SL_LSM_REC_PUT },
		{ .key = 8, .len = 1, .kind = SL_LSM_REC_DELETE },
	};

	ASSERT_EQ(0, lsm_batch(self->fd, recs, 3, 0));
	expect_get(_metadata, self->fd, 0, 0, 10, 0, 5, "X");
	expect_get(_metadata, self->fd, 5, 5, 1, 5, 1, "Y");
	expect_get(_metadata, self->fd, 6, 0, 10, 6, 2, "X");
	EXPECT_EQ(-ENOENT, lsm_get(self->fd, 8, NULL, NULL, 0));
	expect_get(_metadata, self->fd, 9, 0, 10, 9, 1, "X");
}

TEST_F(lsm, multi_get)
{
	struct sl_lsm_ioc_get_rec recs[64];
	static char vals[64][8];
	struct sl_lsm_ioc_get req = {
		.recs = (unsigned long)recs, .count = 64,
	};
	char v[16];
	int i;

	for (i = 0; i < 64; i += 2) {
		snprintf(v, sizeof(v), "v%05d", i);
		ASSERT_EQ(0, PUT(i * 10, 5, v));
	}
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < 64; i++) {
		recs[i].key = i * 10 + 4;
		recs[i].value = (unsigned long)vals[i];
		/* A short buffer: the value is cut, its length is not. */
		recs[i].vbuf_size = i == 2 ? 3 : 8;
	}
	ASSERT_EQ(0, lsm_ioc(self->fd, SL_LSM_IOC_GET, &req));
	EXPECT_EQ(32, req.found);
	for (i = 0; i < 64; i++) {
		if (i % 2) {
			EXPECT_EQ(-ENOENT, recs[i].result);
			EXPECT_EQ(0, recs[i].vlen);
			continue;
		}
		snprintf(v, sizeof(v), "v%05d", i);
		EXPECT_EQ(0, recs[i].result);
		EXPECT_EQ(i * 10, recs[i].ext_key);
		EXPECT_EQ(5, recs[i].len);
		EXPECT_EQ(6, recs[i].vlen);
		EXPECT_EQ(0, memcmp(vals[i], v, i == 2 ? 3 : 6));
	}
	EXPECT_NE('0', vals[2][3]);
}

/* Every piece of a scan from @from, @max at a time. */
static int scan_all(int fd, __u64 from, unsigned int max,
		    struct sl_lsm_ioc_piece *out, int room, char *values,
		    size_t *used)
{
	struct sl_lsm_ioc_piece p[64];
	static char buf[SL_LSM_SCAN_BYTES];
	struct sl_lsm_ioc_scan s = { .pos = from };
	int n = 0, i, ret;

	*used = 0;
	do {
		s.pieces = (unsigned long)p;
		s.values = (unsigned long)buf;
		s.values_size = sizeof(buf);
		s.max = max;
		ret = lsm_ioc(fd, SL_LSM_IOC_SCAN, &s);
		if (ret)
			return ret;
		for (i = 0; i < (int)s.count && n < room; i++, n++) {
			out[n] = p[i];
			memcpy(values + *used, buf + p[i].value_off, p[i].vlen);
			out[n].value_off = *used;
			*used += p[i].vlen;
		}
	} while (s.count && !s.done);
	return n;
}

TEST_F(lsm, scan_clips_and_resumes)
{
	struct sl_lsm_ioc_piece a[16], b[16];
	static char va[1024], vb[1024];
	size_t ua, ub;
	int n;

	ASSERT_EQ(0, PUT(100, 50, "A"));
	ASSERT_EQ(0, PUT(120, 10, "BB"));
	ASSERT_EQ(0, lsm_delete(self->fd, 140, 5, 0));
	ASSERT_EQ(0, PUT(~0ULL, 1, "E"));
	n = scan_all(self->fd, 0, 64, a, 16, va, &ua);
	/* A, BB, A, the punch, the rest of A, E. */
	ASSERT_EQ(5, n);
	EXPECT_EQ(100, a[0].start);
	EXPECT_EQ(20, a[0].len);
	EXPECT_EQ(120, a[1].start);
	EXPECT_EQ(10, a[1].len);
	EXPECT_EQ(2, a[1].vlen);
	EXPECT_EQ(130, a[2].start);
	EXPECT_EQ(10, a[2].len);
	EXPECT_EQ(100, a[2].ext_key);
	EXPECT_EQ(50, a[2].ext_len);
	EXPECT_EQ(145, a[3].start);
	EXPECT_EQ(5, a[3].len);
	EXPECT_EQ(100, a[3].ext_key);
	EXPECT_EQ(~0ULL, a[4].start);
	EXPECT_EQ(1, a[4].len);
	EXPECT_EQ(6, ua);
	EXPECT_EQ(0, memcmp(va, "ABBAAE", 6));
	/* One piece per call gives the same. */
	ASSERT_EQ(5, scan_all(self->fd, 0, 1, b, 16, vb, &ub));
	EXPECT_EQ(0, memcmp(a, b, sizeof(a[0]) * 5));
	/* From inside a piece: its visible rest. */
	ASSERT_EQ(4, scan_all(self->fd, 125, 64, b, 16, vb, &ub));
	EXPECT_EQ(120, b[0].ext_key);
	EXPECT_LE(b[0].start, 125);
	EXPECT_LT(125, b[0].start + b[0].len);
}

TEST_F(lsm, scan_done_at_the_end)
{
	struct sl_lsm_ioc_piece p[4];
	static char buf[SL_LSM_VALUE_MAX];
	struct sl_lsm_ioc_scan s = {
		.pos = 0, .pieces = (unsigned long)p,
		.values = (unsigned long)buf, .values_size = sizeof(buf),
		.max = 4,
	};

	ASSERT_EQ(0, PUT(~0ULL - 1, 2, "Z"));
	ASSERT_EQ(0, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &s));
	ASSERT_EQ(1, s.count);
	EXPECT_EQ(~0ULL - 1, p[0].start);
	if (!s.done) {
		ASSERT_EQ(0, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &s));
		EXPECT_EQ(0, s.count);
	}
	EXPECT_EQ(1, s.done);
	/* With done set, nothing more. */
	ASSERT_EQ(0, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &s));
	EXPECT_EQ(0, s.count);
}

/* An extent that starts at the last unit of the key space is scanned. */
TEST_F(lsm, scan_last_unit)
{
	struct sl_lsm_ioc_piece p[4];
	static char buf[SL_LSM_VALUE_MAX];
	struct sl_lsm_ioc_scan s = {
		.pos = 0, .pieces = (unsigned long)p,
		.values = (unsigned long)buf, .values_size = sizeof(buf),
		.max = 4,
	};

	ASSERT_EQ(0, PUT(~0ULL, 1, "L"));
	ASSERT_EQ(0, lsm_get(self->fd, ~0ULL, NULL, NULL, 0));
	ASSERT_EQ(0, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &s));
	ASSERT_EQ(1, s.count);
	EXPECT_EQ(~0ULL, p[0].start);
	EXPECT_EQ(1, p[0].len);
	EXPECT_EQ('L', buf[p[0].value_off]);
	/* From the last unit itself, too. */
	s = (struct sl_lsm_ioc_scan){
		.pos = ~0ULL, .pieces = (unsigned long)p,
		.values = (unsigned long)buf, .values_size = sizeof(buf),
		.max = 4,
	};
	ASSERT_EQ(0, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &s));
	EXPECT_EQ(1, s.count);
}

TEST_F(lsm, large_values)
{
	static char v[SL_LSM_VALUE_MAX], got[SL_LSM_VALUE_MAX];
	struct sl_lsm_ioc_get_rec r;
	int i;

	for (i = 0; i < SL_LSM_VALUE_MAX; i++)
		v[i] = i * 7 + (i >> 8);
	ASSERT_EQ(0, lsm_put(self->fd, 5, 1, v, SL_LSM_VALUE_MAX, 0));
	ASSERT_EQ(0, lsm_put(self->fd, 6, 1, v, 0, 0));
	ASSERT_EQ(0, lsm_get(self->fd, 5, &r, got, sizeof(got)));
	ASSERT_EQ(SL_LSM_VALUE_MAX, r.vlen);
	EXPECT_EQ(0, memcmp(v, got, sizeof(v)));
	ASSERT_EQ(0, lsm_flush(self->fd));
	ASSERT_EQ(0, lsm_get(self->fd, 5, &r, got, sizeof(got)));
	EXPECT_EQ(0, memcmp(v, got, sizeof(v)));
	ASSERT_EQ(0, lsm_get(self->fd, 6, &r, got, sizeof(got)));
	EXPECT_EQ(0, r.vlen);
}

/* Records and values at odd addresses are read as well as aligned ones. */
TEST_F(lsm, unaligned_user_memory)
{
	static char raw[2 * sizeof(struct sl_lsm_ioc_rec) + 64];
	struct sl_lsm_ioc_rec rec = {
		.key = 7, .len = 3, .vlen = 5, .kind = SL_LSM_REC_PUT,
	};
	char *odd = raw + 3;
	char v[16];

	memcpy(odd + sizeof(rec), "hello", 5);
	rec.value = (unsigned long)(odd + sizeof(rec));
	memcpy(odd, &rec, sizeof(rec));
	ASSERT_EQ(0, lsm_batch(self->fd, (void *)odd, 1, 0));
	ASSERT_EQ(0, lsm_get(self->fd, 8, NULL, v + 1, 5));
	EXPECT_EQ(0, memcmp(v + 1, "hello", 5));
}

static void expect_ab(struct __test_metadata *_metadata, int fd)
{
	expect_get(_metadata, fd, 10, 10, 5, 10, 5, "alpha");
	expect_get(_metadata, fd, 1ULL << 60, 1ULL << 60, 1, 1ULL << 60, 1,
		   "beta");
	EXPECT_EQ(-ENOENT, lsm_get(fd, 12345, NULL, NULL, 0));
}

TEST_F(lsm, persists_across_detach_and_attach)
{
	ASSERT_EQ(0, PUT(10, 5, "alpha"));
	ASSERT_EQ(0, lsm_put(self->fd, 1ULL << 60, 1, "beta", 4, SL_LSM_SYNC));
	ASSERT_EQ(0, PUT(12345, 1, "gone"));
	ASSERT_EQ(0, lsm_delete(self->fd, 12345, 1, 0));
	ASSERT_EQ(0, lsm_detach(self->fd));
	EXPECT_EQ(-ENOTCONN, lsm_get(self->fd, 10, NULL, NULL, 0));
	ASSERT_EQ(0, lsm_attach(self->fd, self->disk, 0));
	expect_ab(_metadata, self->fd);

	/* The last close detaches as well. */
	close(self->fd);
	self->fd = lsm_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, lsm_attach(self->fd, self->disk, 0));
	expect_ab(_metadata, self->fd);

	/* From runs, after a flush. */
	ASSERT_EQ(0, lsm_flush(self->fd));
	ASSERT_EQ(0, lsm_detach(self->fd));
	ASSERT_EQ(0, lsm_attach(self->fd, self->disk, 0));
	expect_ab(_metadata, self->fd);

	/* A new format forgets all of it. */
	ASSERT_EQ(0, lsm_detach(self->fd));
	ASSERT_EQ(0, lsm_attach(self->fd, self->disk, SL_LSM_ATTACH_FORMAT));
	EXPECT_EQ(-ENOENT, lsm_get(self->fd, 10, NULL, NULL, 0));
}

/*
 * Many memtables' worth through a small memtable: runs, then back.  A
 * debug kernel under emulation needs more than the harness's 30 s.
 */
TEST_F_TIMEOUT(lsm, flushes_to_runs_and_reads_back, 300)
{
	struct sl_lsm_ioc_stats s0, s;
	char v[200];
	int i;

	ASSERT_EQ(0, lsm_detach(self->fd));
	ASSERT_EQ(0, lsm_attach_mt(self->fd, self->disk, SL_LSM_ATTACH_FORMAT,
				   SL_LSM_MEMTABLE_MIN));
	ASSERT_EQ(0, lsm_stats(self->fd, &s0));
	memset(v, 'q', sizeof(v));
	for (i = 0; i < 2000; i++) {
		v[0] = i;
		v[1] = i >> 8;
		ASSERT_EQ(0, lsm_put(self->fd, i * 3, 2, v, sizeof(v), 0));
	}
	ASSERT_EQ(0, lsm_sync(self->fd));
	ASSERT_EQ(0, lsm_stats(self->fd, &s));
	EXPECT_LT(0, s.flushes);
	EXPECT_LT(0, s.runs);
	EXPECT_EQ(s0.seq + 2000, s.seq);
	EXPECT_LT(2000ULL * sizeof(v), s.user_bytes);
	EXPECT_LT(0, s.run_bytes);
	EXPECT_EQ(0, s.read_only);
	ASSERT_EQ(0, lsm_detach(self->fd));
	ASSERT_EQ(0, lsm_attach(self->fd, self->disk, 0));
	for (i = 0; i < 2000; i += 7) {
		struct sl_lsm_ioc_get_rec r;
		char got[200];

		ASSERT_EQ(0, lsm_get(self->fd, i * 3 + 1, &r, got, sizeof(got)));
		EXPECT_EQ(i * 3, r.ext_key);
		EXPECT_EQ((char)i, got[0]);
		EXPECT_EQ((char)(i >> 8), got[1]);
		EXPECT_EQ(-ENOENT, lsm_get(self->fd, i * 3 + 2, NULL, NULL, 0));
	}
}

TEST_F(lsm, stats_count_writes)
{
	struct sl_lsm_ioc_stats a, b;
	struct stat st;
	int i;

	ASSERT_EQ(0, lsm_stats(self->fd, &a));
	ASSERT_EQ(0, stat(self->disk, &st));
	EXPECT_LT(0, a.nr_blocks);
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, lsm_put(self->fd, i, 1, "x", 1, SL_LSM_SYNC));
	ASSERT_EQ(0, lsm_stats(self->fd, &b));
	EXPECT_EQ(a.seq + 10, b.seq);
	EXPECT_LT(a.user_bytes, b.user_bytes);
	EXPECT_LT(a.wal_bytes, b.wal_bytes);
	EXPECT_LE(a.group_commits + 1, b.group_commits);
	EXPECT_EQ(a.group_writers + 10, b.group_writers);
	EXPECT_EQ(a.nr_blocks, b.nr_blocks);
}

/* The debugfs counters say what SL_LSM_IOC_STATS says. */
TEST_F(lsm, debugfs_counters)
{
	const char *name = strrchr(self->disk, '/');
	struct sl_lsm_ioc_stats s;
	char path[256], line[128];
	unsigned long long seq = ~0ULL, v;
	FILE *f;

	if (access("/sys/kernel/debug/sl_lsm", F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	snprintf(path, sizeof(path), "/sys/kernel/debug/sl_lsm/%s/stats",
		 name ? name + 1 : self->disk);
	ASSERT_EQ(0, PUT(1, 1, "d"));
	f = fopen(path, "r");
	if (!f)
		SKIP(return, "no %s (debugfs off?)", path);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "seq %llu", &v) == 1)
			seq = v;
	fclose(f);
	ASSERT_EQ(0, lsm_stats(self->fd, &s));
	EXPECT_EQ(s.seq, seq);
	/* Gone with the store. */
	ASSERT_EQ(0, lsm_detach(self->fd));
	EXPECT_NE(0, access(path, F_OK));
}

TEST_HARNESS_MAIN
