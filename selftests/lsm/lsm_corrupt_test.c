// SPDX-License-Identifier: GPL-2.0
/*
 * Damage to a detached store, in the kernel: a store made through
 * /dev/sl_lsm (64 KiB memtables and a flush, so that it has runs with
 * data, value, index, filter and footer blocks, a manifest, and a log
 * holding the last writes) is detached; then, one case at a time, a block
 * of each kind gets one bit flipped or is zeroed, straight on the disk,
 * and the store is attached again.  The attach must be refused with
 * -EUCLEAN and a kernel message naming the block (or its run), or
 * succeed and answer every lookup with the value last written or with
 * -EUCLEAN/-EIO; never a wrong value, and never a kernel complaint
 * (vm-run's log check).  The blocks the store used are written back
 * before the next case.  Every write was durable at the detach, so none
 * may be missing.  tools/testing/lsm/test_corrupt does the same in
 * thousands of cases in userspace; this is the small set that runs the
 * kernel's build of the same code.
 *
 * The disk is read and written with O_DIRECT (the store's bios bypass the
 * page cache).  The block layouts are Documentation/lsm.rst's, read here
 * byte by byte.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/types.h>
#include "lsm_ioctl.h"
#include "kselftest_harness.h"

#define NKEYS		200
#define COLD		180	/* keys from here get the large values */
#define MAX_VALUE	9000
#define MAX_EXTENTS	512
#define MEMTABLE	(64 * 1024)

enum kind {
	K_SUPER, K_SNAP, K_EDIT, K_LOG, K_DATA, K_VALUE, K_INDEX, K_BLOOM,
	K_LONG, K_FOOTER, NR_KINDS,
};

static const char *const kind_name[NR_KINDS] = {
	"superblock", "manifest snapshot", "manifest edit", "log",
	"run data", "run value", "run index", "run Bloom filter",
	"run long-piece list", "run footer",
};

/* A block of a kind, with the run it belongs to (0 if none). */
struct use {
	__u64 block;
	__u64 run;
};

struct layout {
	struct use use[NR_KINDS][4096];
	unsigned int nr[NR_KINDS];
	/* Every extent in use, saved whole: written back before each case. */
	__u64 start[MAX_EXTENTS], len[MAX_EXTENTS];
	void *saved[MAX_EXTENTS];
	unsigned int nr_ext;
};

/* The model: the version and value length last written to each key. */
static __u32 version[NKEYS], vlen_of[NKEYS];

static unsigned char value_byte(__u64 k, __u32 ver, __u32 i)
{
	return (unsigned char)(k * 31 + ver * 131 + i * 7 + 1);
}

/* ----- The disk, block by block ----- */

static int disk_io(const char *path, __u64 block, void *buf, size_t nr,
		   bool write)
{
	int fd = open(path, (write ? O_RDWR | O_SYNC : O_RDONLY) | O_DIRECT |
		      O_CLOEXEC);
	ssize_t want = (ssize_t)nr * LSM_BLOCK, got;

	if (fd < 0)
		return -errno;
	got = write ? pwrite(fd, buf, want, block * LSM_BLOCK) :
		      pread(fd, buf, want, block * LSM_BLOCK);
	close(fd);
	return got == want ? 0 : -EIO;
}

static void *block_alloc(size_t nr)
{
	void *p;

	return posix_memalign(&p, LSM_BLOCK, nr * LSM_BLOCK) ? NULL : p;
}

static __u64 get64(const unsigned char *p)
{
	__u64 x;

	memcpy(&x, p, 8);
	return x;	/* the test runs on little-endian machines only */
}

static __u32 get32(const unsigned char *p)
{
	__u32 x;

	memcpy(&x, p, 4);
	return x;
}

/* CRC32C as the store seals blocks (Documentation/lsm.rst, "Block header"). */
static __u32 crc32c(__u32 crc, const unsigned char *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (crc & 1 ? 0x82f63b78 : 0);
	}
	return crc;
}

/* Whether @b is a sound block number @nr of store @id, @type and @epoch. */
static bool block_ok(const unsigned char *b, __u64 nr, __u64 id,
		     unsigned int type, __u64 epoch)
{
	static const unsigned char zero[4];
	__u32 crc = ~0U;

	if (get32(b) != 0x4d534c53 || get64(b + 8) != nr ||
	    get64(b + 16) != id || get64(b + 24) != epoch ||
	    (b[32] | b[33] << 8) != type)
		return false;
	crc = crc32c(crc, b, 4);
	crc = crc32c(crc, zero, 4);
	crc = crc32c(crc, b + 8, LSM_BLOCK - 8);
	return ~crc == get32(b + 4);
}

static void add(struct layout *l, enum kind k, __u64 block, __u64 run)
{
	if (l->nr[k] < 4096)
		l->use[k][l->nr[k]++] = (struct use){ block, run };
}

static void add_extent(struct layout *l, __u64 start, __u64 len)
{
	if (l->nr_ext < MAX_EXTENTS) {
		l->start[l->nr_ext] = start;
		l->len[l->nr_ext++] = len;
	}
}

/*
 * Read the superblock and the manifest as the store does (a clean
 * detach: every manifest block counted in manifest_used), and sort every
 * block in use by kind.  0, or why not.
 */
static const char *map_store(const char *disk, struct layout *l)
{
	unsigned char *b = block_alloc(1), *m = NULL;
	__u64 store, mstart, mblocks, mid, used, gen[2];
	__u64 runs[256][2], runid[256], segs[64][3];
	unsigned int nruns = 0, nsegs = 0, snap;
	int best;

	memset(l, 0, sizeof(*l));
	for (int i = 0; i < 2; i++) {
		if (disk_io(disk, i, b, 1, false))
			return "read of a superblock";
		gen[i] = get64(b + 24);
	}
	best = gen[1] > gen[0];
	if (disk_io(disk, best, b, 1, false))
		return "read of the superblock";
	store = get64(b + 16);
	if (!block_ok(b, best, store, 1, gen[best]))
		return "the current superblock does not pass";
	mstart = get64(b + 56);
	mblocks = get64(b + 64);
	mid = get64(b + 72);
	used = get32(b + 84);
	if (!used || used > mblocks)
		return "the superblock has no manifest_used";
	add(l, K_SUPER, 0, 0);
	add(l, K_SUPER, 1, 0);
	add_extent(l, 0, 2);
	add_extent(l, mstart, mblocks);
	m = block_alloc(used);
	if (!m || disk_io(disk, mstart, m, used, false))
		return "read of the manifest";
	snap = get32(m + 48);
	for (__u64 i = 0; i < used; i++) {
		const unsigned char *mb = m + i * LSM_BLOCK;
		unsigned int n = get32(mb + 44);

		if (!block_ok(mb, mstart + i, store, 3, mid))
			return "a manifest block does not pass";
		add(l, i < snap ? K_SNAP : K_EDIT, mstart + i, 0);
		for (unsigned int r = 0; r < n && r < 63; r++) {
			const unsigned char *rec = mb + 64 + 64 * r;
			__u32 type = get32(rec);
			__u64 v0 = get64(rec + 8), v1 = get64(rec + 16),
			      v2 = get64(rec + 24);
			unsigned int j;

			if (type == 2 && nruns < 256) {		/* RUN_ADD */
				runid[nruns] = v0;
				runs[nruns][0] = v1;
				runs[nruns++][1] = v2;
			} else if (type == 3) {			/* RUN_DEL */
				for (j = 0; j < nruns && runid[j] != v0; j++)
					;
				if (j < nruns) {
					nruns--;
					runid[j] = runid[nruns];
					runs[j][0] = runs[nruns][0];
					runs[j][1] = runs[nruns][1];
				}
			} else if (type == 4 && nsegs < 64) {	/* SEG_ADD */
				segs[nsegs][0] = v0;
				segs[nsegs][1] = v1;
				segs[nsegs++][2] = v2;
			} else if (type == 5) {			/* SEG_DEL */
				for (j = 0; j < nsegs && segs[j][0] != v0; j++)
					;
				if (j < nsegs) {
					nsegs--;
					memmove(segs[j], segs[j + 1],
						(nsegs - j) * sizeof(segs[0]));
				}
			}
		}
	}
	free(m);
	for (unsigned int s = 0; s < nsegs; s++) {
		add_extent(l, segs[s][1], segs[s][2]);
		for (__u64 j = 0; j < segs[s][2]; j++) {
			if (disk_io(disk, segs[s][1] + j, b, 1, false))
				return "read of a log block";
			if (!block_ok(b, segs[s][1] + j, store, 2, segs[s][0]))
				break;
			add(l, K_LOG, segs[s][1] + j, 0);
		}
	}
	for (unsigned int r = 0; r < nruns; r++) {
		__u64 first = runs[r][0], nr = runs[r][1];
		__u64 data, index, bloom, longs;

		add_extent(l, first, nr);
		if (disk_io(disk, first + nr - 1, b, 1, false))
			return "read of a run footer";
		data = get32(b + 104);
		index = data + get32(b + 112);
		bloom = index + get32(b + 116);
		longs = bloom + get32(b + 132);
		if (longs + 1 != nr)
			return "a run footer does not add up";
		for (__u64 j = 0; j < nr; j++) {
			enum kind k = j < data ? K_DATA : j < index ? K_INDEX :
				      j < bloom ? K_BLOOM : j < longs ? K_LONG :
				      K_FOOTER;

			if (k == K_DATA) {
				if (disk_io(disk, first + j, b, 1, false))
					return "read of a run block";
				if ((b[32] | b[33] << 8) == 8)
					k = K_VALUE;
			}
			add(l, k, first + j, runid[r]);
		}
	}
	for (unsigned int e = 0; e < l->nr_ext; e++) {
		l->saved[e] = block_alloc(l->len[e]);
		if (!l->saved[e] ||
		    disk_io(disk, l->start[e], l->saved[e], l->len[e], false))
			return "saving an extent";
	}
	free(b);
	return NULL;
}

static int restore(const char *disk, const struct layout *l)
{
	for (unsigned int e = 0; e < l->nr_ext; e++) {
		int ret = disk_io(disk, l->start[e], l->saved[e], l->len[e],
				  true);

		if (ret)
			return ret;
	}
	return 0;
}

/* ----- The kernel log since a mark ----- */

static int kmsg_mark(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* The messages logged since @fd's mark, their text only, one a line. */
static void kmsg_read(int fd, char *out, size_t size)
{
	char rec[1024];
	size_t at = 0;
	ssize_t n;

	out[0] = '\0';
	while (fd >= 0 && (n = read(fd, rec, sizeof(rec) - 1)) > 0) {
		char *text = memchr(rec, ';', n), *end;

		rec[n] = '\0';
		if (!text)
			continue;
		text++;
		end = strchr(text, '\n');
		if (end)
			*end = '\0';
		at += snprintf(out + at, size - at, "%s\n", text);
		if (at >= size)
			break;
	}
}

/* "block N" (N not followed by a digit), or "run R" for a run's block. */
static bool names(const char *log, const struct use *u)
{
	char want[40];
	const char *p;
	int n;

	for (int pass = 0; pass < 2; pass++) {
		if (pass && !u->run)
			break;
		n = pass ? snprintf(want, sizeof(want), "run %llu",
				    (unsigned long long)u->run) :
			   snprintf(want, sizeof(want), "block %llu",
				    (unsigned long long)u->block);
		for (p = log; (p = strstr(p, want)); )
			if (p += n, *p < '0' || *p > '9')
				return true;
	}
	return false;
}

/* ----- The store ----- */

static int put(int fd, __u64 k, __u32 vlen, bool sync)
{
	static unsigned char v[MAX_VALUE];
	__u32 ver = version[k] + 1 + NKEYS;	/* never 0 */

	for (__u32 i = 0; i < vlen; i++)
		v[i] = value_byte(k, ver, i);
	if (lsm_put(fd, k, 1, v, vlen, sync ? SL_LSM_SYNC : 0))
		return -1;
	version[k] = ver;
	vlen_of[k] = vlen;
	return 0;
}

/*
 * Every key against the model: 0 if all are right or fail with -EUCLEAN
 * or -EIO (counted in *@errors), -1 with @why at a wrong answer.
 */
static int check_all(int fd, unsigned int *errors, char *why, size_t size)
{
	static unsigned char v[MAX_VALUE];

	*errors = 0;
	for (__u64 k = 0; k < NKEYS; k++) {
		struct sl_lsm_ioc_get_rec r = { 0 };
		int ret = lsm_get(fd, k, &r, v, sizeof(v));

		if (ret == -EUCLEAN || ret == -EIO) {
			++*errors;
			continue;
		}
		if (!version[k] ? ret != -ENOENT :
		    ret || r.vlen != vlen_of[k] || r.ext_key != k) {
			snprintf(why, size, "key %llu: %d (vlen %u), model version %u vlen %u",
				 (unsigned long long)k, ret, ret ? 0 : r.vlen,
				 version[k], vlen_of[k]);
			return -1;
		}
		for (__u32 i = 0; version[k] && i < r.vlen; i++)
			if (v[i] != value_byte(k, version[k], i)) {
				snprintf(why, size, "key %llu: value byte %u wrong",
					 (unsigned long long)k, i);
				return -1;
			}
	}
	return 0;
}

FIXTURE(store) {
	int unused;
};

/*
 * Merges change the store under the test: it maps the blocks once and
 * writes the damaged ones back between cases, and a merge reading a
 * damaged block turns the store read-only.  So the workload's merges
 * are let finish, and the damage phase runs with level 0's trigger out
 * of reach (the store is then as the map says at every attach).
 */
#define L0_PARAMS	"/sys/module/sl_lsm/parameters/"
static const char *const l0_params[] = {
	"l0_compact_runs", "l0_slowdown_runs", "l0_stop_runs",
};
static char l0_saved[3][32];

static int param_io(const char *name, char *buf, size_t size, bool store)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), L0_PARAMS "%s", name);
	fd = open(path, (store ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = store ? write(fd, buf, strlen(buf)) : read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	if (!store)
		buf[n] = 0;
	return 0;
}

/* Wait until no merge is due (level 0 below its trigger, no backlog). */
static int merges_settle(int fd)
{
	for (int i = 0; i < 600; i++) {
		struct sl_lsm_ioc_stats st = { 0 };

		if (lsm_stats(fd, &st))
			return -errno;
		if (!st.immutables && st.level_runs[0] < 4 &&
		    !st.pending_compact_bytes)
			return 0;
		usleep(100 * 1000);
	}
	return -ETIMEDOUT;
}

FIXTURE_SETUP(store)
{
}

FIXTURE_TEARDOWN(store)
{
	for (int i = 0; i < 3; i++)
		if (l0_saved[i][0])
			param_io(l0_params[i], l0_saved[i], 0, true);
}

/* Software emulation is slow: a hundred attaches take a while there. */
TEST_F_TIMEOUT(store, damaged_blocks, 600)
{
	const char *disk = lsm_disk();
	static struct layout l;
	static char log[65536];
	unsigned long long s = dt_seed("SL_LSM_SEED");
	unsigned int refused = 0, reported = 0, at_read = 0, harmless = 0;
	unsigned int cases = 0, errors;
	const char *why;
	char wrong[256];
	double t0 = dt_now();
	int fd = lsm_open();

	ASSERT_LE(0, fd);
	TH_LOG("seed %llu (SL_LSM_SEED)", s);
	ASSERT_EQ(0, lsm_attach_mt(fd, disk, SL_LSM_ATTACH_FORMAT, MEMTABLE));
	/* Runs (a memtable fills every ~200 writes), a flush, and a log. */
	for (int i = 0; i < 1400; i++) {
		__u64 k = dt_rnd(&s) % COLD;
		__u32 vlen = 20 + dt_rnd(&s) % 400;

		if (dt_rnd(&s) % 25 == 0) {
			k = COLD + dt_rnd(&s) % (NKEYS - COLD);
			vlen = 4100 + dt_rnd(&s) % (MAX_VALUE - 4100);
		}
		if (dt_rnd(&s) % 12 == 0) {
			ASSERT_EQ(0, lsm_delete(fd, k, 1, 0));
			version[k] = 0;
			continue;
		}
		ASSERT_EQ(0, put(fd, k, vlen, dt_rnd(&s) % 16 == 0));
		if (i == 700)
			ASSERT_EQ(0, lsm_flush(fd));
	}
	/* Pieces longer than 8 units: the runs' long-piece lists. */
	for (__u64 k = 0; k + 20 < COLD; k += 40) {
		ASSERT_EQ(0, lsm_delete(fd, k, 20, 0));
		for (__u64 j = k; j < k + 20; j++)
			version[j] = 0;
	}
	ASSERT_EQ(0, lsm_flush(fd));
	for (int i = 0; i < 150; i++)
		ASSERT_EQ(0, put(fd, dt_rnd(&s) % COLD, 50 + dt_rnd(&s) % 300,
				 false));
	ASSERT_EQ(0, merges_settle(fd));
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, param_io(l0_params[i], l0_saved[i],
				      sizeof(l0_saved[i]), false));
		ASSERT_EQ(0, param_io(l0_params[i], (char *)"1000", 0, true));
	}
	ASSERT_EQ(0, lsm_detach(fd));
	why = map_store(disk, &l);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	for (int k = 0; k < NR_KINDS; k++)
		TH_LOG("%-20s %u blocks", kind_name[k], l.nr[k]);

	for (int k = 0; k < NR_KINDS; k++) {
		for (int c = 0; c < 3 && l.nr[k]; c++) {
			const struct use *u = &l.use[k][dt_rnd(&s) % l.nr[k]];
			unsigned char *b = block_alloc(1);
			int km, ret;

			ASSERT_NE(NULL, b);
			ASSERT_EQ(0, disk_io(disk, u->block, b, 1, false));
			if (c == 2)
				memset(b, 0, LSM_BLOCK);
			else
				b[dt_rnd(&s) % LSM_BLOCK] ^= 1 << dt_rnd(&s) % 8;
			ASSERT_EQ(0, disk_io(disk, u->block, b, 1, true));
			free(b);
			km = kmsg_mark();
			ret = lsm_attach_mt(fd, disk, 0, MEMTABLE);
			errors = 0;
			if (!ret) {
				ASSERT_EQ(0, check_all(fd, &errors, wrong,
						       sizeof(wrong)))
					TH_LOG("%s block %llu %s: %s",
					       kind_name[k],
					       (unsigned long long)u->block,
					       c == 2 ? "zeroed" : "flipped",
					       wrong);
				ASSERT_EQ(0, lsm_detach(fd));
			}
			kmsg_read(km, log, sizeof(log));
			if (km >= 0)
				close(km);
			cases++;
			if (ret) {
				ASSERT_EQ(-EUCLEAN, ret)
					TH_LOG("%s block %llu", kind_name[k],
					       (unsigned long long)u->block);
				/* -EUCLEAN's line names the block or run. */
				ASSERT_TRUE(km < 0 || names(log, u))
					TH_LOG("%s block %llu refused; the log:\n%s",
					       kind_name[k],
					       (unsigned long long)u->block, log);
				refused++;
			} else if (errors) {
				at_read++;
			} else if (km >= 0 && names(log, u)) {
				reported++;
			} else {
				harmless++;
			}
			TH_LOG("%s block %llu %s: %s", kind_name[k],
			       (unsigned long long)u->block,
			       c == 2 ? "zeroed" : "flipped",
			       ret ? "refused" : errors ? "failing reads" :
			       names(log, u) ? "reported" : "no effect");
			ASSERT_EQ(0, restore(disk, &l));
		}
	}
	/* Whole again: every write there. */
	ASSERT_EQ(0, lsm_attach_mt(fd, disk, 0, MEMTABLE));
	ASSERT_EQ(0, check_all(fd, &errors, wrong, sizeof(wrong)))
		TH_LOG("%s", wrong);
	ASSERT_EQ(0, errors);
	ASSERT_EQ(0, lsm_detach(fd));
	close(fd);
	for (unsigned int e = 0; e < l.nr_ext; e++)
		free(l.saved[e]);
	TH_LOG("%u cases in %.1f s: %u refused, %u reported, %u failing reads, %u with no effect",
	       cases, dt_now() - t0, refused, reported, at_read, harmless);
}

TEST_HARNESS_MAIN
