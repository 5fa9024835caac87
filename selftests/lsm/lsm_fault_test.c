// SPDX-License-Identifier: GPL-2.0
/*
 * The store when its device fails: failing writes, a failing flush, and
 * failing or corrupted reads, injected under sl_lsm.ko by swapping the
 * table of a device-mapper device (lsm_dm.h) between "linear" and
 * dm-flakey in its down state: "error_writes" fails every write and
 * flush and lets reads through, no feature fails every read too, and
 * "corrupt_bio_byte" changes a byte of every read.  Run by
 * tools/vm/guest-crash.sh ("make check-crash").
 *
 * What must hold, each test on a freshly formatted store:
 *  - a write, sync or flush that meets a failed write or flush returns
 *    -EIO, never 0; the store turns read-only (stats say so) and refuses
 *    every later write with -EROFS and every sync and flush with -EIO;
 *    lookups go on, with the answers the store held;
 *  - detaching a failed store says -EIO, and an attach on the healthy
 *    device afterwards succeeds, finds the manifest's and allocator's
 *    invariants true (attach checks them) and gives back the state after
 *    some prefix of the writes made that includes every write
 *    acknowledged as durable, no more than were made; the store is
 *    writable again;
 *  - a failed or corrupted read is -EIO or -EUCLEAN for the lookup or
 *    scan that needed it, never a wrong answer, and does not turn the
 *    store read-only; an attach that cannot read its superblocks says
 *    -EIO (-EUCLEAN for corrupted ones), and succeeds once they can be
 *    read.
 *
 * SL_LSM_DISK is the device-mapper device (/dev/mapper/SL_LSM_FAULT_DM)
 * over SL_LSM_FAULT_UNDER, which the test may erase.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <linux/fs.h>
#include "lsm_ioctl.h"
#include "lsm_dm.h"
#include "crash_journal.h"
#include "kselftest_harness.h"

#define UNITS		256
#define BASE		0x7000000000ULL
#define MAX_VLEN	3000		/* of a random put */
#define VBUF		4096		/* room for a value in a lookup */
#define MAX_WRITES	1024
/* A SL_LSM_IOC_ATTACH commit interval that never comes during a test. */
#define NEVER_MS	SL_LSM_COMMIT_MS_MAX
/* A log block's body, less a record's head and one operation's. */
#define BLOCK_FILL	(4096 - 40 - 32 - 24)

struct put {
	__u64 unit, len;
	__u32 vlen;
};

/* What each unit shows: the id of its put, or 0. */
struct state {
	__u32 unit[UNITS];
};

static struct put made[MAX_WRITES + 1];
static __u32 nmade;
/* after[k]: the state after the first k writes that took a sequence number. */
static struct state after[MAX_WRITES + 1];
static __u32 napplied;	/* writes with a sequence number, maybe durable */
static __u32 ndurable;	/* of them, the first ndurable acknowledged durable */
static struct sl_lsm_ioc_get_rec recs[UNITS];
static unsigned char vals[UNITS][VBUF];
static unsigned long long rng = 0x5eed;

static const char *fault_dm(void)
{
	return getenv("SL_LSM_FAULT_DM");
}

static const char *fault_under(void)
{
	return getenv("SL_LSM_FAULT_UNDER");
}

static unsigned long long under_sectors(void)
{
	unsigned long long bytes = 0;
	int fd = open(fault_under(), O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (ioctl(fd, BLKGETSIZE64, &bytes))
			bytes = 0;
		close(fd);
	}
	return bytes / 512;
}

enum table { HEALTHY, ERROR_WRITES, ALL_FAIL, CORRUPT_READS };

/* Put @t under the store: I/O from now on meets it. */
static int set_table(enum table t)
{
	char table[512];

	switch (t) {
	case HEALTHY:
		snprintf(table, sizeof(table), "linear %s 0", fault_under());
		break;
	case ERROR_WRITES:
		snprintf(table, sizeof(table),
			 "flakey %s 0 0 3600 1 error_writes", fault_under());
		break;
	case ALL_FAIL:
		snprintf(table, sizeof(table), "flakey %s 0 0 3600",
			 fault_under());
		break;
	case CORRUPT_READS:
		/* Byte 1000 of every read bio becomes 0x5a. */
		snprintf(table, sizeof(table),
			 "flakey %s 0 0 3600 5 corrupt_bio_byte 1000 r 90 0",
			 fault_under());
		break;
	}
	return dm_swap_table(fault_dm(), under_sectors(), table);
}

static int attach(int fd, __u32 flags)
{
	struct sl_lsm_ioc_attach r = {
		.path = (unsigned long)lsm_disk(),
		.flags = flags,
		.commit_interval_ms = NEVER_MS,
	};

	return lsm_ioc(fd, SL_LSM_IOC_ATTACH, &r);
}

static void make_value(__u32 id, unsigned char *v)
{
	for (__u32 b = 0; b < made[id].vlen; b++)
		v[b] = crash_value_byte(id, 0, b);
}

/*
 * A put of @vlen bytes (a random one if 0) over a random range, or a
 * punch if @punch; the call's result.  A write that took a sequence
 * number (0, or -EIO: it may be in the log) joins the writes made;
 * @live says whether it is in the memtable too (and so in lookups).
 */
static int write_one(int fd, __u32 flags, __u32 vlen, bool punch, bool *live)
{
	static unsigned char v[SL_LSM_VALUE_MAX];
	__u64 len = dt_rnd(&rng) % 4 ? 1 : 1 + dt_rnd(&rng) % 16;
	__u64 u = dt_rnd(&rng) % (UNITS - len + 1);
	__u32 id = ++nmade;
	int err;

	made[id] = (struct put){ u, len, punch ? 0 : vlen ? vlen :
				 dt_rnd(&rng) % MAX_VLEN };
	make_value(id, v);
	if (punch)
		err = lsm_delete(fd, BASE + u, len, flags);
	else
		err = lsm_put(fd, BASE + u, len, v, made[id].vlen, flags);
	*live = false;
	if (err && err != -EIO)
		return err;
	/*
	 * A SYNC write whose commit failed is in the memtable and maybe in
	 * the log; a write whose log block failed is in neither, but a
	 * device could have taken the block before failing it.
	 */
	*live = !err || (flags & SL_LSM_SYNC);
	after[napplied + 1] = after[napplied];
	for (__u64 i = u; i < u + len; i++)
		after[napplied + 1].unit[i] = punch ? 0 : id;
	napplied++;
	if (!err && (flags & SL_LSM_SYNC))
		ndurable = napplied;
	return err;
}

/* Every unit in one SL_LSM_IOC_GET; 0 or the call's -errno. */
static int read_units(int fd)
{
	struct sl_lsm_ioc_get req = { .recs = (unsigned long)recs,
				      .count = UNITS };

	memset(recs, 0, sizeof(recs));
	for (__u32 u = 0; u < UNITS; u++) {
		recs[u].key = BASE + u;
		recs[u].value = (unsigned long)vals[u];
		recs[u].vbuf_size = VBUF;
	}
	return lsm_ioc(fd, SL_LSM_IOC_GET, &req);
}

/* Whether lookup @u agrees with @s: the put, its window and its value. */
static bool unit_is(const struct state *s, __u32 u)
{
	__u32 id = s->unit[u], a = u, b = u;
	const struct sl_lsm_ioc_get_rec *r = &recs[u];

	if (!id)
		return r->result == -ENOENT;
	while (a > 0 && s->unit[a - 1] == id)
		a--;
	while (b + 1 < UNITS && s->unit[b + 1] == id)
		b++;
	if (r->result || r->ext_key != BASE + made[id].unit ||
	    r->ext_len != made[id].len || r->vlen != made[id].vlen ||
	    r->start != BASE + a || r->len != b - a + 1)
		return false;
	for (__u32 i = 0; i < made[id].vlen; i++)
		if (vals[u][i] != crash_value_byte(id, 0, i))
			return false;
	return true;
}

/* The number of units that differ from @s (after read_units()). */
static int units_wrong(const struct state *s)
{
	int wrong = 0;

	for (__u32 u = 0; u < UNITS; u++)
		wrong += !unit_is(s, u);
	return wrong;
}

static __u64 stat_seq(int fd, bool *read_only)
{
	struct sl_lsm_ioc_stats st;

	if (lsm_stats(fd, &st))
		return ~0ULL;
	if (read_only)
		*read_only = st.read_only;
	return st.seq;
}

FIXTURE(fault) {
	int fd;
};

FIXTURE_SETUP(fault)
{
	if (!fault_dm() || !fault_under())
		SKIP(return, "SL_LSM_FAULT_DM and SL_LSM_FAULT_UNDER not set");
	ASSERT_EQ(0, set_table(HEALTHY));
	self->fd = lsm_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, attach(self->fd, SL_LSM_ATTACH_FORMAT));
	memset(after, 0, sizeof(after[0]));
	nmade = napplied = ndurable = 0;
}

FIXTURE_TEARDOWN(fault)
{
	if (self->fd >= 0) {
		lsm_detach(self->fd);
		close(self->fd);
	}
	set_table(HEALTHY);
}

/*
 * The device is healthy again: an attach finds the state after a prefix
 * of the writes made, every acknowledged one included, and takes writes.
 */
static void recovered(struct __test_metadata *_metadata, int fd)
{
	bool ro = true, live;
	__u64 seq;

	ASSERT_EQ(0, set_table(HEALTHY));
	ASSERT_EQ(0, attach(fd, 0));
	seq = stat_seq(fd, &ro);
	TH_LOG("recovered seq %llu: %u writes made, %u acknowledged durable",
	       seq, napplied, ndurable);
	ASSERT_LE(ndurable, seq);
	ASSERT_GE(napplied, seq);
	ASSERT_FALSE(ro);
	ASSERT_EQ(0, read_units(fd));
	ASSERT_EQ(0, units_wrong(&after[seq]));
	/* Writable again; the next write continues from the recovered state. */
	napplied = ndurable = seq;
	ASSERT_EQ(0, write_one(fd, SL_LSM_SYNC, 0, false, &live));
	ASSERT_EQ(0, lsm_detach(fd));
	ASSERT_EQ(0, attach(fd, 0));
	ASSERT_EQ(0, read_units(fd));
	ASSERT_EQ(0, units_wrong(&after[napplied]));
}

/* After a failed device write: read-only, every write refused. */
static void read_only(struct __test_metadata *_metadata, int fd)
{
	struct sl_lsm_ioc_rec rec = { .key = BASE, .len = 1,
				      .kind = SL_LSM_REC_DELETE };
	bool ro = false, live;
	__u32 before = napplied;

	stat_seq(fd, &ro);
	ASSERT_TRUE(ro);
	ASSERT_EQ(-EROFS, write_one(fd, 0, 10, false, &live));
	ASSERT_EQ(-EROFS, write_one(fd, SL_LSM_SYNC, 10, false, &live));
	ASSERT_EQ(-EROFS, write_one(fd, 0, 0, true, &live));
	ASSERT_EQ(-EROFS, lsm_batch(fd, &rec, 1, 0));
	ASSERT_EQ(before, napplied);
	ASSERT_EQ(-EIO, lsm_sync(fd));
	ASSERT_EQ(-EIO, lsm_flush(fd));
}

/* Some writes, the first half SYNC: acknowledged durable. */
static void some_writes(struct __test_metadata *_metadata, int fd, int n)
{
	bool live;

	for (int i = 0; i < n; i++)
		ASSERT_EQ(0, write_one(fd, i < n / 2 ? SL_LSM_SYNC : 0, 0,
				       i % 7 == 6, &live));
}

/*
 * Writes fail: the write whose log block cannot be written gets -EIO,
 * every later one -EROFS; lookups still answer from the memtable.
 */
TEST_F(fault, failing_writes)
{
	__u32 live_upto;
	bool live;
	int err = 0, tries;

	some_writes(_metadata, self->fd, 40);
	ASSERT_EQ(0, set_table(ERROR_WRITES));
	/* Non-SYNC writes fill the log block in memory until one writes it. */
	for (tries = 0; tries < 20 && !err; tries++)
		err = write_one(self->fd, 0, 1500, false, &live);
	ASSERT_EQ(-EIO, err);
	ASSERT_FALSE(live);
	live_upto = napplied - 1;
	read_only(_metadata, self->fd);
	ASSERT_EQ(0, read_units(self->fd));
	ASSERT_EQ(0, units_wrong(&after[live_upto]));
	ASSERT_EQ(-EIO, lsm_detach(self->fd));
	recovered(_metadata, self->fd);
}

/* A SYNC write whose log block cannot be written: -EIO, not durable. */
TEST_F(fault, failing_sync_write)
{
	bool live;

	some_writes(_metadata, self->fd, 40);
	ASSERT_EQ(0, set_table(ERROR_WRITES));
	ASSERT_EQ(-EIO, write_one(self->fd, SL_LSM_SYNC, 100, false, &live));
	ASSERT_TRUE(live);
	read_only(_metadata, self->fd);
	ASSERT_EQ(0, read_units(self->fd));
	ASSERT_EQ(0, units_wrong(&after[napplied]));
	ASSERT_EQ(-EIO, lsm_detach(self->fd));
	recovered(_metadata, self->fd);
}

/*
 * Only the flush fails.  After a SYNC write the log's open block is
 * empty; a put whose record fills exactly one block (BLOCK_FILL bytes of
 * value) has that block written as it fills, so the log holds nothing
 * more to write and a sync afterwards is the flush alone.
 */
TEST_F(fault, failing_flush)
{
	struct sl_lsm_ioc_stats a, b;
	bool live;

	some_writes(_metadata, self->fd, 20);
	ASSERT_EQ(0, write_one(self->fd, SL_LSM_SYNC, 10, false, &live));
	ASSERT_EQ(0, lsm_stats(self->fd, &a));
	ASSERT_EQ(0, write_one(self->fd, 0, BLOCK_FILL, false, &live));
	ASSERT_EQ(0, lsm_stats(self->fd, &b));
	/* One log block written whole, none left open. */
	ASSERT_EQ(a.wal_bytes + 4096, b.wal_bytes);
	ASSERT_EQ(0, set_table(ERROR_WRITES));
	ASSERT_EQ(-EIO, lsm_sync(self->fd));
	read_only(_metadata, self->fd);
	ASSERT_EQ(0, read_units(self->fd));
	ASSERT_EQ(0, units_wrong(&after[napplied]));
	ASSERT_EQ(-EIO, lsm_detach(self->fd));
	recovered(_metadata, self->fd);
}

/* The memtable's write-out as a run fails: SL_LSM_IOC_FLUSH says -EIO. */
TEST_F(fault, failing_run_write)
{
	some_writes(_metadata, self->fd, 60);
	ASSERT_EQ(0, set_table(ERROR_WRITES));
	ASSERT_EQ(-EIO, lsm_flush(self->fd));
	read_only(_metadata, self->fd);
	ASSERT_EQ(0, read_units(self->fd));
	ASSERT_EQ(0, units_wrong(&after[napplied]));
	ASSERT_EQ(-EIO, lsm_detach(self->fd));
	recovered(_metadata, self->fd);
}

/*
 * Reads that fail (@t ALL_FAIL: -EIO) or come back corrupted
 * (CORRUPT_READS: -EUCLEAN): a lookup or scan that needs a run's block
 * says so, never gives a wrong answer, and the store stays writable;
 * an attach that cannot read its superblocks is refused.
 */
static void bad_reads(struct __test_metadata *_metadata, int fd, enum table t,
		      int err_want)
{
	static struct sl_lsm_ioc_piece pieces[64];
	static unsigned char scan_vals[SL_LSM_VALUE_MAX];
	struct sl_lsm_ioc_scan scan = {
		.pieces = (unsigned long)pieces, .values = (unsigned long)scan_vals,
		.values_size = sizeof(scan_vals), .max = 64,
	};
	struct sl_lsm_ioc_stats s0, s1;
	int errs = 0, wrong = 0, err;
	bool ro = true, live;

	/* Most units in a run on the device, some in the memtable. */
	some_writes(_metadata, fd, 120);
	ASSERT_EQ(0, lsm_flush(fd));
	for (int i = 0; i < 10; i++)
		ASSERT_EQ(0, write_one(fd, 0, 0, false, &live));
	ASSERT_EQ(0, lsm_sync(fd));
	ndurable = napplied;
	ASSERT_EQ(0, lsm_stats(fd, &s0));
	ASSERT_EQ(0, set_table(t));
	for (__u32 u = 0; u < UNITS; u++) {
		struct sl_lsm_ioc_get_rec *r = &recs[u];

		err = lsm_get(fd, BASE + u, r, vals[u], VBUF);
		r->result = err;
		if (err == err_want)
			errs++;
		else if (!unit_is(&after[napplied], u))
			wrong++;
	}
	ASSERT_EQ(0, lsm_stats(fd, &s1));
	TH_LOG("%d of %d lookups said %d, %d wrong; block cache hits %llu",
	       errs, UNITS, err_want, wrong,
	       (unsigned long long)(s1.cache_hits - s0.cache_hits));
	ASSERT_EQ(0, wrong);
	/* Every lookup reached a run's block, unless a cache held them. */
	ASSERT_TRUE(errs > 0 || s1.cache_hits > s0.cache_hits);
	err = lsm_ioc(fd, SL_LSM_IOC_SCAN, &scan);
	ASSERT_TRUE(err == err_want || (!err && s1.cache_hits > s0.cache_hits));
	stat_seq(fd, &ro);
	ASSERT_FALSE(ro);

	/* Healthy again: the same store answers and writes. */
	ASSERT_EQ(0, set_table(HEALTHY));
	ASSERT_EQ(0, read_units(fd));
	ASSERT_EQ(0, units_wrong(&after[napplied]));
	ASSERT_EQ(0, write_one(fd, SL_LSM_SYNC, 0, false, &live));
	ASSERT_EQ(0, lsm_detach(fd));
	ndurable = napplied;

	/* An attach that cannot read the superblocks is refused. */
	ASSERT_EQ(0, set_table(t));
	ASSERT_EQ(err_want, attach(fd, 0));
	recovered(_metadata, fd);
}

TEST_F(fault, failing_reads)
{
	bad_reads(_metadata, self->fd, ALL_FAIL, -EIO);
}

/*
 * Whether dm-flakey corrupts reads here: 6.1's corrupts nothing (it
 * walks the bio's segments after completion, when none are left).  The
 * superblock's byte 1000 is zero; read through the flakey table it must
 * come back as 0x5a.
 */
static bool reads_corrupted(void)
{
	unsigned char *b;
	bool yes = false;
	int fd = open(lsm_disk(), O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd < 0 || posix_memalign((void **)&b, LSM_BLOCK, LSM_BLOCK))
		return false;
	if (pread(fd, b, LSM_BLOCK, 0) == LSM_BLOCK)
		yes = b[999] == 0x5a;
	free(b);
	close(fd);
	return yes;
}

TEST_F(fault, corrupted_reads)
{
	ASSERT_EQ(0, set_table(CORRUPT_READS));
	if (!reads_corrupted())
		SKIP(return, "dm-flakey's corrupt_bio_byte changes no read on this kernel");
	ASSERT_EQ(0, set_table(HEALTHY));
	bad_reads(_metadata, self->fd, CORRUPT_READS, -EUCLEAN);
}

TEST_HARNESS_MAIN
