// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/sl_lsm: the store's block cache in the kernel.  A store on
 * SL_LSM_DISK gets a run of a few MiB; reading it fills the cache (its
 * counters say so, within the module parameter block_cache_mb); reading
 * it again reads nothing from the disk; "echo 2 >
 * /proc/sys/vm/drop_caches", which calls every shrinker, empties it; the
 * next read is right and fills it again; and an attach after
 * block_cache_mb=1 keeps at most 1 MiB.  Needs root (drop_caches and the
 * parameter); prints what each step took.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include "lsm_ioctl.h"
#include "kselftest_harness.h"

#define PARAM		"/sys/module/sl_lsm/parameters/block_cache_mb"
#define KEYS		16000
#define VLEN		200
#define PER_CALL	4000

/* Value byte @i of key @k: a mix-up between keys or blocks shows. */
static char vbyte(__u64 k, unsigned int i)
{
	return (char)(k * 131 + i * 7 + 1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = -errno;
	close(fd);
	return ret;
}

static long read_param(void)
{
	char buf[32] = "";
	int fd = open(PARAM, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -EIO;
}

FIXTURE(cache)
{
	int fd;
	const char *disk;
	long param;
	struct sl_lsm_ioc_get_rec *recs;
	char *vals;
};

FIXTURE_SETUP(cache)
{
	self->disk = lsm_disk();
	self->param = read_param();
	ASSERT_LT(0, self->param) {
		TH_LOG("%s: %s", PARAM, strerror(-self->param));
	}
	self->recs = calloc(PER_CALL, sizeof(*self->recs));
	self->vals = malloc((size_t)PER_CALL * VLEN);
	ASSERT_TRUE(self->recs && self->vals);
	self->fd = lsm_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(cache)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", self->param);
	write_file(PARAM, buf);
	if (self->fd >= 0)
		close(self->fd);
	free(self->recs);
	free(self->vals);
}

/* Keys 0..KEYS-1 with their values, in batches; then a run of them. */
static void fill(struct __test_metadata *_metadata, int fd)
{
	static struct sl_lsm_ioc_rec recs[1000];
	static char vals[1000][VLEN];
	__u64 k = 0;

	while (k < KEYS) {
		unsigned int n;

		for (n = 0; n < 1000 && k < KEYS; n++, k++) {
			for (unsigned int i = 0; i < VLEN; i++)
				vals[n][i] = vbyte(k, i);
			recs[n] = (struct sl_lsm_ioc_rec){
				.key = k, .len = 1, .value = (unsigned long)vals[n],
				.vlen = VLEN, .kind = SL_LSM_REC_PUT,
			};
		}
		ASSERT_EQ(0, lsm_batch(fd, recs, n, 0));
	}
	ASSERT_EQ(0, lsm_flush(fd));
}

/* Every key read back, PER_CALL per call, each value checked. */
static void read_all(struct __test_metadata *_metadata,
		     FIXTURE_DATA(cache) *self)
{
	for (__u64 k = 0; k < KEYS; k += PER_CALL) {
		struct sl_lsm_ioc_get g = {
			.recs = (unsigned long)self->recs, .count = PER_CALL,
		};

		for (unsigned int j = 0; j < PER_CALL; j++)
			self->recs[j] = (struct sl_lsm_ioc_get_rec){
				.key = k + j,
				.value = (unsigned long)(self->vals + (size_t)j * VLEN),
				.vbuf_size = VLEN,
			};
		ASSERT_EQ(0, lsm_ioc(self->fd, SL_LSM_IOC_GET, &g));
		ASSERT_EQ(PER_CALL, g.found);
		for (unsigned int j = 0; j < PER_CALL; j++) {
			ASSERT_EQ(0, self->recs[j].result);
			ASSERT_EQ(VLEN, self->recs[j].vlen);
			for (unsigned int i = 0; i < VLEN; i++) {
				ASSERT_EQ(vbyte(k + j, i),
					  self->vals[(size_t)j * VLEN + i]) {
					TH_LOG("key %llu byte %u",
					       (unsigned long long)(k + j), i);
				}
			}
		}
	}
}

/* A debug kernel under emulation needs more than the harness's 30 s. */
TEST_F_TIMEOUT(cache, fill_hit_shrink_refill_bound, 300)
{
	struct sl_lsm_ioc_stats a, b, c, d, e;
	__u64 bound = (__u64)self->param << 20;
	double t0 = now_s(), t;

	ASSERT_EQ(0, lsm_attach_mt(self->fd, self->disk, SL_LSM_ATTACH_FORMAT,
				   1 << 20));
	fill(_metadata, self->fd);
	ASSERT_EQ(0, lsm_stats(self->fd, &a));
	ASSERT_LE(1, a.runs);
	/* Nothing is cached by writing. */
	EXPECT_EQ(0, a.cache_bytes);
	t = now_s();
	TH_LOG("%u keys of %u bytes written and flushed: %.2f s", KEYS, VLEN,
	       t - t0);

	/* The first read fills the cache: one miss per block. */
	read_all(_metadata, self);
	ASSERT_EQ(0, lsm_stats(self->fd, &b));
	EXPECT_LT(0, b.cache_misses - a.cache_misses);
	EXPECT_LT(0, b.cache_bytes);
	EXPECT_GE(bound, b.cache_bytes);
	/* About 225 bytes a record: the run is smaller than the cache. */
	EXPECT_GT(KEYS * 225ULL + (1 << 20), b.cache_bytes);
	/* Again: every block from the cache, nothing from the disk. */
	read_all(_metadata, self);
	ASSERT_EQ(0, lsm_stats(self->fd, &c));
	EXPECT_EQ(b.cache_misses, c.cache_misses);
	EXPECT_LE(KEYS, c.cache_hits - b.cache_hits);
	TH_LOG("read twice: %llu blocks read, then %llu hits and no read; %llu KiB cached: %.2f s",
	       (unsigned long long)(b.cache_misses - a.cache_misses),
	       (unsigned long long)(c.cache_hits - b.cache_hits),
	       (unsigned long long)c.cache_bytes >> 10, now_s() - t);

	/* Memory pressure: drop_caches calls every shrinker, ours too. */
	t = now_s();
	ASSERT_EQ(0, write_file("/proc/sys/vm/drop_caches", "2\n"));
	ASSERT_EQ(0, lsm_stats(self->fd, &d));
	EXPECT_EQ(0, d.cache_bytes) {
		TH_LOG("%llu bytes still cached after drop_caches",
		       (unsigned long long)d.cache_bytes);
	}
	/* Read right after it, and the cache fills again. */
	read_all(_metadata, self);
	ASSERT_EQ(0, lsm_stats(self->fd, &e));
	EXPECT_LT(d.cache_misses, e.cache_misses);
	EXPECT_LT(0, e.cache_bytes);
	TH_LOG("drop_caches: %llu KiB to %llu KiB; read again: %llu blocks read, %llu KiB cached: %.2f s",
	       (unsigned long long)c.cache_bytes >> 10,
	       (unsigned long long)d.cache_bytes >> 10,
	       (unsigned long long)(e.cache_misses - d.cache_misses),
	       (unsigned long long)e.cache_bytes >> 10, now_s() - t);
	ASSERT_EQ(0, lsm_detach(self->fd));

	/* The module parameter bounds the next attach's cache. */
	t = now_s();
	ASSERT_EQ(0, write_file(PARAM, "1\n"));
	ASSERT_EQ(0, lsm_attach(self->fd, self->disk, 0));
	read_all(_metadata, self);
	ASSERT_EQ(0, lsm_stats(self->fd, &e));
	EXPECT_LT(0, e.cache_bytes);
	EXPECT_GE(1ULL << 20, e.cache_bytes);
	TH_LOG("block_cache_mb=1: %llu KiB cached after a read of all: %.2f s",
	       (unsigned long long)e.cache_bytes >> 10, now_s() - t);
	ASSERT_EQ(0, lsm_detach(self->fd));
	TH_LOG("whole test: %.2f s", now_s() - t0);
}

TEST_HARNESS_MAIN
