// SPDX-License-Identifier: GPL-2.0
/*
 * Damage to every kind of on-disk block of a store, one block at a time:
 * the store must notice it, at attach or at the read of the block, or be
 * unaffected by it; never return a wrong value as if valid, never lose a
 * write that was durable without saying so.
 *
 * A random workload (puts of points and ranges with small and large
 * values, punches, batches, SYNC writes, syncs, flushes, detach and
 * attach, on 6 KiB memtables so that runs, log segments, manifest edits
 * and roll-overs come often) makes a store and a model of its state after
 * every write.  Two images of it are kept: "clean", after a detach, and
 * "open", copied while the store is attached, right after a sync (a crash
 * at that moment).  Every block in use is classified from the superblock,
 * the manifest and the runs' footers: the two superblock copies,
 * manifest snapshot and edit blocks, log blocks, and run data, value,
 * index, Bloom filter, long-piece list and footer blocks; unused blocks
 * of allocated extents and free blocks are controls.
 *
 * Each case copies an image, damages one block (one random bit flipped;
 * the block zeroed; several bits; a sector of garbage; another block of
 * the store written in its place) and attaches:
 *  - a refused attach must be -EUCLEAN with a message naming the block;
 *  - an attach that succeeds must hold the model's state after some
 *    write s, and every get and a scan of everything must answer with
 *    that state or -EUCLEAN/-EIO; s must include every write durable in
 *    the image, except where Documentation/lsm.rst ("Corruption policy")
 *    says the damage cannot be told from a crash's torn tail (the open
 *    image's last log segment, and its manifest edits since the last
 *    superblock): then s must still reach the superblock's durable mark;
 *  - a damaged block that the attach, the gets or the scan read must
 *    have been noticed (refused, reported or failing the read), except
 *    a log block that now looks never written (no magic, or another
 *    block's content: the log's end) when nothing durable was lost;
 *  - the merges due at attach run before the gets and the scan (and
 *    the workload makes its merges at once too, so that the images do
 *    not depend on when the machine let a work item run); a merge that
 *    meets the damage must fail the store, naming the block, and close
 *    then returns -EIO; otherwise close succeeds; and (ASan) nothing
 *    leaks.
 * The gets and the scan read the same way every time, so the blocks the
 * undamaged image reads are known (baseline()): every single-bit flip in
 * one of those must be noticed; the others (a run's data or value block
 * whose pieces newer layers all hide) are counted apart.  A last kind of
 * damage flips bits and makes the checksum right again, which no check
 * can tell: only that attach is -EUCLEAN or succeeds and nothing crashes,
 * hangs or leaks, whatever the fields say.
 * Outcomes are counted per kind of block: refused at attach, reported at
 * attach (and repaired or recovered around), failing a read, harmless,
 * and tail cut (the documented case above).
 *
 * --long: three workloads, three flips per block, 1,500 cases of the
 * other kinds of damage per image (about 15,000 cases in all).
 *
 *   test_corrupt --seed N [--long] [--ops N] [--images N] [-v]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <asm/byteorder.h>
#include <linux/rcupdate.h>
#include "block.h"
#include "format.h"
#include "manifest.h"
#include "memdev.h"
#include "model.h"
#include "rnd.h"
#include "run_format.h"
#include "store.h"
#include "store_check.h"
#include "super.h"
#include "fail.h"

#define NR_BLOCKS	(2 * LSM_MIN_BLOCKS)

static u64 seed;
static const char *phase = "setup";
static int verbose;
static u64 rng_state;
static unsigned long merge_failures;
/* merge_cases(): merges that met the damage, and blocks no merge read. */
static unsigned long merge_met, merge_unneeded;

static u64 rnd(void)
{
	return xorshift64(&rng_state);
}

static struct lsm_options opts = {
	.memtable_bytes = 6 * 1024,
	.max_immutables = 2,
	/* Only explicit syncs: the images are the same for the same seed. */
	.commit_interval_ms = 3600000,
};

enum kind {
	K_SUPER_CUR,	/* the superblock copy attach takes */
	K_SUPER_OLD,	/* the other copy */
	K_SNAP,		/* manifest snapshot */
	K_EDIT,		/* manifest edit */
	K_WAL,		/* log block holding records */
	K_DATA,
	K_VALUE,
	K_INDEX,
	K_BLOOM,
	K_LONG,
	K_FOOTER,
	K_SLACK,	/* past the end of the manifest's or the log's extent */
	K_FREE,		/* not allocated */
	NR_KINDS,
};

static const char *const kind_name[NR_KINDS] = {
	[K_SUPER_CUR] = "superblock, current copy",
	[K_SUPER_OLD] = "superblock, other copy",
	[K_SNAP] = "manifest snapshot",
	[K_EDIT] = "manifest edit",
	[K_WAL] = "log",
	[K_DATA] = "run data",
	[K_VALUE] = "run value",
	[K_INDEX] = "run index",
	[K_BLOOM] = "run Bloom filter",
	[K_LONG] = "run long-piece list",
	[K_FOOTER] = "run footer",
	[K_SLACK] = "unused, in an extent",
	[K_FREE] = "free space",
};

enum damage {
	D_FLIP,		/* one bit */
	D_ZERO,		/* the whole block */
	D_MULTI,	/* 2 to 16 bits */
	D_GARBAGE,	/* 512 random bytes at a random place */
	D_MISPLACE,	/* another block of the store written here */
	/*
	 * Bits flipped after the header, and the checksum made right
	 * again: no check can tell, so wrong answers are possible; what is
	 * tested is that every field read from the device is checked
	 * before use (no crash, hang or leak; attach -EUCLEAN or success).
	 */
	D_RESEAL,
	NR_DAMAGE,
};

static const char *const damage_name[NR_DAMAGE] = {
	"bit flip", "zeroed", "bits", "garbage", "misplaced", "resealed",
};

enum outcome {
	O_REFUSED,	/* attach -EUCLEAN, naming the block */
	O_REPORTED,	/* attach went on, a message naming the block */
	O_READ,		/* a read said -EUCLEAN or -EIO */
	O_HARMLESS,	/* nothing needed the block */
	O_TAIL,		/* the documented undetectable tail cut */
	NR_OUTCOMES,
};

static const char *const outcome_name[NR_OUTCOMES] = {
	"refused", "reported", "at read", "harmless", "tail cut",
};

struct use {
	u64 block;
	enum kind kind;
	bool last_seg;		/* K_WAL: in the last live segment */
	bool unread;		/* no attach, get or scan of the image reads it */
	u64 edit;		/* K_EDIT: index in the manifest's extent */
};

struct image {
	const char *name;
	struct memdev *md;
	bool clean;
	u64 need;		/* writes durable in the image */
	u64 mark;		/* the durable mark the image records */
	u64 manifest_used;	/* manifest blocks durable per the superblock */
	struct use *use;
	unsigned int nr_use;
};

static unsigned long count[2][NR_KINDS][NR_DAMAGE][NR_OUTCOMES];
/* Single-bit flips in blocks the undamaged image reads, and in others. */
static unsigned long flips_read[2][NR_KINDS], flips_unread[2][NR_KINDS];
static unsigned long violations;
static struct model_history hist;

/*
 * ----- messages: pr_err() writes to stderr; a case takes it over -----
 * Into a buffer that an abort (a WARN_ON, an assertion) still prints.
 */

static char *cap_buf;
static size_t cap_len, cap_size;
static FILE *cap_saved;

static ssize_t cap_write(void *cookie, const char *p, size_t n)
{
	if (cap_len + n + 1 > cap_size) {
		size_t size = 2 * (cap_len + n + 1);
		char *b = realloc(cap_buf, size);

		if (!b)
			return -1;
		cap_buf = b;
		cap_size = size;
	}
	memcpy(cap_buf + cap_len, p, n);
	cap_len += n;
	cap_buf[cap_len] = '\0';
	return n;
}

static void cap_dump(int sig)
{
	static const char head[] = "test_corrupt: messages of the case:\n";

	if (cap_buf && write(STDERR_FILENO, head, sizeof(head) - 1) > 0)
		(void)!write(STDERR_FILENO, cap_buf, cap_len);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void capture_start(void)
{
	static const cookie_io_functions_t io = { .write = cap_write };
	FILE *f = fopencookie(NULL, "w", io);

	if (!f)
		abort();
	setvbuf(f, NULL, _IONBF, 0);
	cap_len = 0;
	if (cap_buf)
		cap_buf[0] = '\0';
	cap_saved = stderr;
	stderr = f;
}

static const char *capture_stop(void)
{
	FILE *f = stderr;

	stderr = cap_saved;
	fclose(f);
	return cap_buf ? cap_buf : "";
}

/* Whether @msg names block @b ("block N" with N not followed by a digit). */
static bool names_block(const char *msg, u64 b)
{
	char want[32];
	const char *p = msg;
	int n = snprintf(want, sizeof(want), "block %llu",
			 (unsigned long long)b);

	while ((p = strstr(p, want))) {
		p += n;
		if (*p < '0' || *p > '9')
			return true;
	}
	return false;
}

/* ----- making the images ----- */

/*
 * Wait until no memtable waits to be written, then make the merges due
 * now: the images are repeatable.  Left to the work item, merges ran
 * when the machine let them, and the open image's shape (how many runs
 * level 0 held when it was copied) changed from run to run with the
 * load beside the test.
 */
static void settle(struct lsm_store *st)
{
	struct lsm_stats s;

	for (int i = 0;; i++) {
		lsm_store_stats(st, &s);
		if (!s.immutables)
			break;
		if (s.read_only || i > 100000)
			FAIL("the store does not settle (read-only %d)",
			     s.read_only);
		usleep(100);
	}
	EXPECT_OK(lsm_store_compact(st, false));
}

static struct lsm_store *open_store(struct lsm_bdev *b, unsigned int flags)
{
	struct lsm_store *st;

	EXPECT_OK(lsm_store_open(b, &opts, flags, &st));
	return st;
}

/*
 * Power lost now: the store goes on from what the cut device holds, and
 * the history from the write it recovered, which must be the model's
 * state after it and include every write durable before the cut.
 */
static struct lsm_store *crash(struct lsm_store *st, struct memdev **mdp,
			       u64 durable)
{
	struct memdev *cut = memdev_power_cut(*mdp, rnd() % MEMDEV_NR_CUTS,
					      rnd());
	struct model_verdict v;
	struct lsm_stats s;

	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(*mdp);
	*mdp = cut;
	st = open_store(memdev_bdev(cut), 0);
	lsm_store_stats(st, &s);
	if (s.seq < durable || s.seq > hist.nr)
		FAIL("a crash recovered seq %llu (durable %llu, written %llu)",
		     (unsigned long long)s.seq, (unsigned long long)durable,
		     (unsigned long long)hist.nr);
	hist.nr = s.seq;
	model_verify(st, &hist.snap[s.seq], &rng_state, &v);
	if (v.wrong || v.errors)
		FAIL("after a crash: %s (%u errors)", v.why, v.errors);
	memdev_record(cut);
	return st;
}

/*
 * The workload: sessions of random length with memtables of 6 KiB (runs
 * every few writes), 64 KiB or, for the last one, 1 MiB (a log of
 * several segments at the end), ended by a detach or a power cut.
 */
static void build(u64 nops, struct image *clean, struct image *open)
{
	static struct model_write w;
	struct memdev *md = memdev_create(NR_BLOCKS, true);
	struct lsm_store *st;
	struct lsm_stats s;
	u64 durable = 0, crashes = 0, sessions = 1;

	phase = "workload";
	opts.memtable_bytes = 6 * 1024;
	st = open_store(memdev_bdev(md), LSM_OPEN_FORMAT);
	model_history_init(&hist);
	for (u64 i = 0; i < nops; i++) {
		unsigned int what = rnd() % 100;
		bool last = i + 1 >= nops * 3 / 4;

		if (what < 85) {
			bool sync = rnd() % 6 == 0;

			model_make_write(&w, hist.nr + 1, &rng_state);
			EXPECT_OK(lsm_store_write(st, w.ops, w.n,
						  sync ? LSM_WRITE_SYNC : 0));
			model_history_add(&hist, w.ops, w.n);
			if (sync)
				durable = hist.nr;
		} else if (what < 92) {
			EXPECT_OK(lsm_store_sync(st));
			durable = hist.nr;
		} else if (what < 95 && !last) {
			EXPECT_OK(lsm_store_flush(st));
			durable = hist.nr;
		} else if ((what < 98 || last) && i != nops / 2) {
			continue;
		} else {
			opts.memtable_bytes = i >= nops / 2 ? 1 << 20 :
					      rnd() % 3 ? 6 * 1024 : 64 * 1024;
			if (rnd() % 3) {
				EXPECT_OK(lsm_store_close(st));
				durable = hist.nr;
				st = open_store(memdev_bdev(md), 0);
				memdev_record(md);
			} else {
				st = crash(st, &md, durable);
				crashes++;
			}
			sessions++;
		}
		settle(st);
	}
	EXPECT_OK(lsm_store_sync(st));
	settle(st);
	lsm_store_stats(st, &s);
	*open = (struct image){ .name = "open", .md = memdev_clone(md),
				.need = hist.nr };
	EXPECT_OK(lsm_store_close(st));
	*clean = (struct image){ .name = "clean", .md = memdev_clone(md),
				 .clean = true, .need = hist.nr };
	memdev_destroy(md);
	printf("test_corrupt: %llu writes in %llu sessions (%llu ended by a power cut); at the end %llu runs, log %llu B, manifest %llu B\n",
	       (unsigned long long)hist.nr, (unsigned long long)sessions,
	       (unsigned long long)crashes, (unsigned long long)s.runs,
	       (unsigned long long)s.wal_bytes,
	       (unsigned long long)s.manifest_bytes);
}

/* ----- classifying the blocks of an image ----- */

static void add_use(struct image *img, u64 block, enum kind kind)
{
	if (!(img->nr_use % 256)) {
		img->use = realloc(img->use, (img->nr_use + 256) *
				   sizeof(*img->use));
		if (!img->use)
			abort();
	}
	img->use[img->nr_use++] = (struct use){ .block = block, .kind = kind };
}

static void read_block(struct lsm_bdev *b, u64 block, void *buf)
{
	if (b->ops->read(b, block, buf, 1))
		FAIL("read of block %llu", (unsigned long long)block);
}

/*
 * The image undamaged: attach, the checks and close must give the model's
 * state whole; which blocks they read (a run's data or value block whose
 * pieces are all hidden by newer layers is read by none: damage to it
 * changes no answer, and no read can notice it).
 */
static void baseline(struct image *img)
{
	struct memdev *md = memdev_clone(img->md);
	struct model_verdict v;
	struct lsm_store *st;
	struct lsm_stats s;

	memdev_count_reads(md);
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &opts, 0, &st));
	/* As run_case() does: the merges due at attach, before the reads. */
	EXPECT_OK(lsm_store_compact(st, false));
	lsm_store_stats(st, &s);
	if (s.seq != img->need)
		FAIL("%s image undamaged: recovered seq %llu of %llu",
		     img->name, (unsigned long long)s.seq,
		     (unsigned long long)img->need);
	model_verify(st, &hist.snap[s.seq], NULL, &v);
	if (v.wrong || v.errors)
		FAIL("%s image undamaged: %s (%u errors)", img->name, v.why,
		     v.errors);
	EXPECT_OK(lsm_store_close(st));
	for (unsigned int i = 0; i < img->nr_use; i++)
		img->use[i].unread = !memdev_block_reads(md,
							 img->use[i].block);
	memdev_destroy(md);
}

static void classify(struct image *img)
{
	struct lsm_bdev *b = memdev_bdev(img->md);
	static u8 buf[LSM_BLOCK_SIZE];
	static bool taken[NR_BLOCKS];
	struct lsm_super_info si;
	struct lsm_space space;
	struct lsm_manifest m;
	u64 gen[2];

	phase = "classify";
	memset(taken, 0, sizeof(taken));
	EXPECT_OK(lsm_super_read(b, &si));
	for (int i = 0; i < 2; i++) {
		read_block(b, i, buf);
		gen[i] = le64_to_cpu(((struct lsm_block_header *)buf)->epoch);
	}
	add_use(img, 0, gen[0] > gen[1] ? K_SUPER_CUR : K_SUPER_OLD);
	add_use(img, 1, gen[1] > gen[0] ? K_SUPER_CUR : K_SUPER_OLD);
	taken[0] = taken[1] = true;
	img->mark = si.durable_seq;
	img->manifest_used = si.manifest_used;

	EXPECT_OK(lsm_space_init(&space, si.nr_blocks));
	EXPECT_OK(lsm_manifest_load(&m, b, &space, &si));
	for (u64 i = 0; i < si.manifest_blocks; i++) {
		u64 at = si.manifest_start + i;

		taken[at] = true;
		if (i < m.snap_blocks)
			add_use(img, at, K_SNAP);
		else if (i < m.next_block)
			add_use(img, at, K_EDIT);
		else
			add_use(img, at, K_SLACK);
		img->use[img->nr_use - 1].edit = i;
	}
	for (unsigned int s = 0; s < m.nr_segs; s++) {
		const struct lsm_wal_seg *seg = &m.segs[s];
		struct lsm_block_id id = { .store_id = si.store_id,
					   .epoch = seg->id,
					   .type = LSM_BT_WAL };
		bool end = false;

		for (u64 j = 0; j < seg->nr; j++) {
			id.blocknr = seg->start + j;
			taken[id.blocknr] = true;
			read_block(b, id.blocknr, buf);
			end = end || lsm_block_check(buf, &id);
			add_use(img, id.blocknr, end ? K_SLACK : K_WAL);
			img->use[img->nr_use - 1].last_seg = s + 1 == m.nr_segs;
		}
	}
	for (unsigned int r = 0; r < m.nr_runs; r++) {
		const struct lsm_run_info *run = &m.runs[r];
		struct lsm_run_footer f;
		u64 data, index, bloom, longs;

		read_block(b, run->first_block + run->nr_blocks - 1, buf);
		memcpy(&f, buf + sizeof(struct lsm_block_header), sizeof(f));
		data = le32_to_cpu(f.data_blocks);
		index = data + le32_to_cpu(f.index_blocks);
		bloom = index + le32_to_cpu(f.bloom_blocks);
		longs = bloom + le32_to_cpu(f.long_blocks);
		if (longs + 1 != run->nr_blocks)
			FAIL("run %llu: footer does not add up",
			     (unsigned long long)run->id);
		for (u64 j = 0; j < run->nr_blocks; j++) {
			u64 at = run->first_block + j;
			enum kind k = j < data ? K_DATA : j < index ? K_INDEX :
				      j < bloom ? K_BLOOM : j < longs ? K_LONG :
				      K_FOOTER;

			if (k == K_DATA) {
				read_block(b, at, buf);
				if (le16_to_cpu(((struct lsm_block_header *)
						 buf)->type) == LSM_BT_RUN_VALUE)
					k = K_VALUE;
			}
			taken[at] = true;
			add_use(img, at, k);
		}
	}
	/* A few free blocks: some never written, some left from earlier use. */
	for (int n = 0, tries = 0; n < 12 && tries < 100000; tries++) {
		u64 at = rnd() % si.nr_blocks;

		if (taken[at])
			continue;
		taken[at] = true;
		add_use(img, at, K_FREE);
		n++;
	}
	lsm_manifest_destroy(&m);
	lsm_space_destroy(&space);
	baseline(img);
}

/* ----- one case ----- */

static void damage(struct image *img, struct memdev *md, const struct use *u,
		   enum damage d)
{
	struct lsm_bdev *b = memdev_bdev(md);
	static u8 buf[LSM_BLOCK_SIZE], orig[LSM_BLOCK_SIZE];

	read_block(b, u->block, buf);
	memcpy(orig, buf, sizeof(buf));
	switch (d) {
	case D_FLIP:
		buf[rnd() % LSM_BLOCK_SIZE] ^= 1 << (rnd() % 8);
		break;
	case D_ZERO:
		memset(buf, 0, sizeof(buf));
		break;
	case D_MULTI:
		for (int i = 2 + rnd() % 15; i > 0; i--)
			buf[rnd() % LSM_BLOCK_SIZE] ^= 1 << (rnd() % 8);
		break;
	case D_GARBAGE: {
		u32 at = rnd() % (LSM_BLOCK_SIZE - 512);

		for (int i = 0; i < 512; i++)
			buf[at + i] = rnd();
		break;
	}
	case D_MISPLACE: {
		const struct use *o;

		do {
			o = &img->use[rnd() % img->nr_use];
		} while (o->block == u->block || o->kind == K_FREE ||
			 o->kind == K_SLACK);
		read_block(b, o->block, buf);
		break;
	}
	case D_RESEAL: {
		const struct lsm_block_header *h = (const void *)buf;
		struct lsm_block_id id = {
			.blocknr = le64_to_cpu(h->blocknr),
			.store_id = le64_to_cpu(h->store_id),
			.epoch = le64_to_cpu(h->epoch),
			.type = le16_to_cpu(h->type),
		};
		u32 used = le32_to_cpu(h->used);

		if (used <= sizeof(*h) || used > LSM_BLOCK_SIZE)
			used = LSM_BLOCK_SIZE;
		for (int i = 1 + rnd() % 3; i > 0; i--) {
			u32 at = sizeof(*h) + rnd() % (used - sizeof(*h));

			buf[at] ^= 1 << (rnd() % 8);
		}
		lsm_block_seal(buf, &id, le32_to_cpu(h->used));
		break;
	}
	default:
		abort();
	}
	/* Damage that undid itself (the same bit twice): one more bit. */
	if (d != D_ZERO && !memcmp(buf, orig, sizeof(buf)))
		buf[rnd() % 40] ^= 1 << (rnd() % 8);
	if (d == D_RESEAL && !memcmp(buf, orig, sizeof(buf)))
		buf[sizeof(struct lsm_block_header)] ^= 1;
	EXPECT_OK(lsm_bdev_write_sync(b, u->block, buf, 1, 0));
}

/*
 * Documentation/lsm.rst, "Corruption policy": what an attach cannot tell
 * from a crash's torn tail, in an image of a store that did not detach.
 */
static bool tail_class(const struct image *img, const struct use *u)
{
	return !img->clean &&
	       ((u->kind == K_WAL && u->last_seg) ||
		(u->kind == K_EDIT && u->edit >= img->manifest_used));
}

static void violation(const struct image *img, const struct use *u,
		      enum damage d, const char *msg, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void violation(const struct image *img, const struct use *u,
		      enum damage d, const char *msg, const char *fmt, ...)
{
	va_list ap;

	if (violations++ < 20) {
		fprintf(stderr, "test_corrupt: VIOLATION: %s image, %s block %llu, %s: ",
			img->name, kind_name[u->kind],
			(unsigned long long)u->block, damage_name[d]);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\n%s%s", msg && *msg ? "  its messages:\n" : "",
			msg ? msg : "");
	}
}

/* Seconds spent attaching, checking and closing, over all cases. */
static double spent[3];

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void run_case(struct image *img, const struct use *u, enum damage d)
{
	double t[4];
	struct memdev *md = memdev_clone(img->md);
	struct lsm_bdev *b = memdev_bdev(md);
	struct lsm_store *st;
	struct model_verdict v;
	struct lsm_stats s;
	enum outcome o = O_HARMLESS;
	const char *msg;
	u8 head[LSM_BLOCK_SIZE];
	bool damaged, named;
	int err, cerr = 0, merr = 0;

	damage(img, md, u, d);
	read_block(b, u->block, head);
	damaged = lsm_block_damaged(head);
	memdev_count_reads(md);
	capture_start();
	t[0] = now();
	err = lsm_store_open(b, &opts, 0, &st);
	t[1] = now();
	if (!err) {
		/*
		 * The merges due at attach run before the reads, as in
		 * baseline().  One that meets the damage fails the store
		 * (-EIO, read-only, the block named), as a failed flush
		 * would, and close then reports that with -EIO.
		 */
		merr = lsm_store_compact(st, false);
		merge_failures += merr == -EIO;
		lsm_store_stats(st, &s);
		/* Read as the baseline read it: see baseline(). */
		if (s.seq <= hist.nr)
			model_verify(st, &hist.snap[s.seq], NULL, &v);
		t[2] = now();
		cerr = lsm_store_close(st);
	} else {
		t[2] = t[1];
	}
	t[3] = now();
	msg = capture_stop();
	for (int i = 0; i < 3; i++)
		spent[i] += t[i + 1] - t[i];
	if (verbose && t[3] - t[0] > 0.5)
		printf("  slow case (%.2f s): %s %s block %llu %s\n",
		       t[3] - t[0], img->name, kind_name[u->kind],
		       (unsigned long long)u->block, damage_name[d]);
	named = names_block(msg, u->block);

	if (d == D_RESEAL) {
		/*
		 * Only that nothing broke (see enum damage); a superblock
		 * that passes may claim a store larger than the device.
		 */
		if (err && err != -EUCLEAN &&
		    !(err == -ENOSPC && (u->kind == K_SUPER_CUR ||
					 u->kind == K_SUPER_OLD)))
			violation(img, u, d, msg, "attach: %d, not -EUCLEAN",
				  err);
		else if (!err && cerr && !(merr == -EIO && cerr == -EIO))
			violation(img, u, d, msg, "close: %d", cerr);
		o = err ? O_REFUSED : v.errors ? O_READ : named ? O_REPORTED :
		    O_HARMLESS;
	} else if (err) {
		o = O_REFUSED;
		if (err != -EUCLEAN)
			violation(img, u, d, msg, "attach: %d, not -EUCLEAN",
				  err);
		else if (!named)
			violation(img, u, d, msg,
				  "attach refused without naming the block");
	} else if (s.seq > hist.nr) {
		violation(img, u, d, msg, "recovered seq %llu never written",
			  (unsigned long long)s.seq);
	} else if (v.wrong) {
		violation(img, u, d, msg, "recovered seq %llu: %s",
			  (unsigned long long)s.seq, v.why);
	} else if (s.seq < img->need &&
		   (!tail_class(img, u) || s.seq < img->mark)) {
		violation(img, u, d, msg,
			  "silent loss: recovered seq %llu of %llu durable (mark %llu)",
			  (unsigned long long)s.seq,
			  (unsigned long long)img->need,
			  (unsigned long long)img->mark);
	} else {
		if (s.seq < img->need)
			o = O_TAIL;
		else if (v.errors)
			o = O_READ;
		else if (named)
			o = O_REPORTED;
		else
			o = O_HARMLESS;
		if (merr && (merr != -EIO || !named))
			violation(img, u, d, msg,
				  "a merge after attach: %d, %s", merr,
				  named ? "named the block" :
				  "without naming the block");
		if (cerr && !(merr == -EIO && cerr == -EIO))
			violation(img, u, d, msg, "close: %d", cerr);
		if (o == O_READ && !named)
			violation(img, u, d, msg,
				  "read error %d without a message naming the block",
				  v.first_err);
		/*
		 * Harmless only if no read needed the block; but the end of
		 * a log is found by reading the block after it, and a log
		 * block that lost its magic, or that another block of the
		 * store overwrote, looks like one never written: the log
		 * ends there quietly, which is right if runs hold what it
		 * lost (else it was refused above).
		 */
		if (o == O_HARMLESS && memdev_block_reads(md, u->block) &&
		    u->kind != K_SLACK && u->kind != K_FREE &&
		    !(u->kind == K_WAL && !damaged) && !tail_class(img, u))
			violation(img, u, d, msg,
				  "the damaged block was read, and nothing said so");
	}
	if (verbose > 1)
		printf("  %s %s block %llu %s: %s\n", img->name,
		       kind_name[u->kind], (unsigned long long)u->block,
		       damage_name[d], outcome_name[o]);
	count[img->clean][u->kind][d][o]++;
	if (d == D_FLIP && u->unread)
		flips_unread[img->clean][u->kind]++;
	else if (d == D_FLIP)
		flips_read[img->clean][u->kind]++;
	/* Every flip in a block a read needs is noticed, or a tail cut. */
	if (d == D_FLIP && !u->unread && u->kind != K_SLACK &&
	    u->kind != K_FREE && o == O_HARMLESS)
		violation(img, u, d, msg, "a flip in a block read went unnoticed");
	memdev_destroy(md);
}

/*
 * Two cases pinned down, at the store's interface: a log of three
 * segments or more (4 MiB memtables: no runs) after a detach, a bit flipped in
 * the first segment's second block, then in the last block the last
 * segment holds.  Both lose writes the device shows were durable (the
 * later segments were recorded after the first was flushed; the detach
 * made everything durable): attach must refuse.  The code before
 * lsm_wal_recover() attached both, without the writes after the damage.
 */
static void pinned_cases(void)
{
	static struct model_write w;
	struct lsm_options big = opts;
	struct memdev *md = memdev_create(NR_BLOCKS, false);
	struct lsm_bdev *b = memdev_bdev(md);
	static u8 buf[LSM_BLOCK_SIZE];
	struct lsm_super_info si;
	struct lsm_space space;
	struct lsm_manifest m;
	struct lsm_store *st;
	u64 at[2], seq = 0;

	phase = "pinned cases";
	big.memtable_bytes = 4 << 20;
	EXPECT_OK(lsm_store_open(b, &big, LSM_OPEN_FORMAT, &st));
	for (int i = 0; i < 700; i++) {
		model_make_write(&w, ++seq, &rng_state);
		EXPECT_OK(lsm_store_write(st, w.ops, w.n, 0));
	}
	EXPECT_OK(lsm_store_close(st));
	EXPECT_OK(lsm_super_read(b, &si));
	EXPECT_OK(lsm_space_init(&space, si.nr_blocks));
	EXPECT_OK(lsm_manifest_load(&m, b, &space, &si));
	if (m.nr_runs || m.nr_segs < 3)
		FAIL("pinned: %u runs, %u segments; want 0 and 3 or more",
		     m.nr_runs, m.nr_segs);
	at[0] = m.segs[0].start + 1;
	at[1] = m.segs[m.nr_segs - 1].start;
	for (u64 j = 0; j < m.segs[m.nr_segs - 1].nr; j++) {
		struct lsm_block_id id = {
			.blocknr = m.segs[m.nr_segs - 1].start + j,
			.store_id = si.store_id,
			.epoch = m.segs[m.nr_segs - 1].id,
			.type = LSM_BT_WAL,
		};

		read_block(b, id.blocknr, buf);
		if (lsm_block_check(buf, &id))
			break;
		at[1] = id.blocknr;
	}
	lsm_manifest_destroy(&m);
	lsm_space_destroy(&space);
	for (int c = 0; c < 2; c++) {
		struct memdev *d = memdev_clone(md);
		const char *msg;
		int err;

		read_block(memdev_bdev(d), at[c], buf);
		buf[100] ^= 4;
		EXPECT_OK(lsm_bdev_write_sync(memdev_bdev(d), at[c], buf, 1, 0));
		capture_start();
		err = lsm_store_open(memdev_bdev(d), &big, 0, &st);
		msg = capture_stop();
		if (!err)
			lsm_store_close(st);
		if (err != -EUCLEAN || !names_block(msg, at[c]))
			FAIL("pinned: a flip in log block %llu (%s segment): attach %d%s\n%s",
			     (unsigned long long)at[c], c ? "last" : "first",
			     err, err ? "" : " (writes lost silently)", msg);
		memdev_destroy(d);
	}
	memdev_destroy(md);
	printf("test_corrupt: pinned: flips in the first and the last log segment refused\n");
}

/*
 * A merge that meets damage, made certain: each block of a run's data,
 * values or long-piece list gets one flipped bit, the image is attached
 * and every run above the bottom level merged into it.  A merge that
 * reads the block must fail the store (-EIO, read-only) with a message
 * naming it, after which close returns -EIO; a block no merge reads (a
 * bottom run's, or one whose pieces newer ones all hide) must leave the
 * model's state, and close succeeds.  run_case() meets this only when a
 * merge is due at attach, which the workload's images seldom leave (CI
 * met it once, on a loaded machine, before settle() made the workload's
 * merges itself).
 */
static void merge_cases(struct image *img)
{
	for (unsigned int i = 0; i < img->nr_use; i++) {
		const struct use *u = &img->use[i];
		struct model_verdict v = { 0 };
		struct lsm_store *st;
		struct lsm_stats s;
		struct memdev *md;
		const char *msg;
		int err, merr, cerr;
		u64 reads;

		if (u->kind != K_DATA && u->kind != K_VALUE &&
		    u->kind != K_LONG)
			continue;
		md = memdev_clone(img->md);
		damage(img, md, u, D_FLIP);
		memdev_count_reads(md);
		capture_start();
		err = lsm_store_open(memdev_bdev(md), &opts, 0, &st);
		if (err) {
			msg = capture_stop();
			if (err != -EUCLEAN || !names_block(msg, u->block))
				violation(img, u, D_FLIP, msg,
					  "merge case: attach %d", err);
			memdev_destroy(md);
			continue;
		}
		reads = memdev_block_reads(md, u->block);
		merr = lsm_store_compact(st, true);
		reads = memdev_block_reads(md, u->block) - reads;
		lsm_store_stats(st, &s);
		if (!merr && s.seq <= hist.nr)
			model_verify(st, &hist.snap[s.seq], NULL, &v);
		cerr = lsm_store_close(st);
		msg = capture_stop();
		if (merr == -EIO) {
			merge_met++;
			if (!names_block(msg, u->block))
				violation(img, u, D_FLIP, msg,
					  "a merge failed without naming the block");
			if (!s.read_only)
				violation(img, u, D_FLIP, msg,
					  "a merge failed and the store still takes writes");
			if (cerr != -EIO)
				violation(img, u, D_FLIP, msg,
					  "close after a failed merge: %d", cerr);
		} else if (merr) {
			violation(img, u, D_FLIP, msg, "a full merge: %d", merr);
		} else {
			merge_unneeded++;
			if (reads)
				violation(img, u, D_FLIP, msg,
					  "a merge read the damaged block and went on");
			if (s.seq > hist.nr || v.wrong)
				violation(img, u, D_FLIP, msg,
					  "after a full merge, seq %llu: %s",
					  (unsigned long long)s.seq,
					  v.wrong ? v.why : "never written");
			if (cerr)
				violation(img, u, D_FLIP, msg, "close: %d",
					  cerr);
		}
		memdev_destroy(md);
	}
}

/*
 * Every block in use: a bit flip and a zeroed block; @extra more cases of
 * the other kinds of damage at random blocks.
 */
static void run_image(struct image *img, unsigned int flips,
		      unsigned int extra)
{
	phase = img->name;
	for (unsigned int i = 0; i < img->nr_use; i++) {
		for (unsigned int f = 0; f < flips; f++)
			run_case(img, &img->use[i], D_FLIP);
		run_case(img, &img->use[i], D_ZERO);
	}
	for (unsigned int i = 0; i < extra; i++) {
		const struct use *u = &img->use[rnd() % img->nr_use];

		/* Resealing makes sense only of a block of the store. */
		run_case(img, u, D_MULTI + rnd() % (NR_DAMAGE - D_MULTI -
			 (u->kind == K_SLACK || u->kind == K_FREE)));
	}
}

static unsigned long total(int clean, int k, int d, int o)
{
	unsigned long n = 0;

	for (int c = 0; c < 2; c++) {
		if (clean >= 0 && c != clean)
			continue;
		for (int dd = 0; dd < NR_DAMAGE; dd++) {
			if (d >= 0 && dd != d)
				continue;
			for (int oo = 0; oo < NR_OUTCOMES; oo++)
				if (o < 0 || oo == o)
					n += count[c][k][dd][oo];
		}
	}
	return n;
}

/* Cases of damage the checksum tells, of kind @k, ending in @o. */
static unsigned long told(int c, int k, int o)
{
	return total(c, k, -1, o) - total(c, k, D_RESEAL, o);
}

static void report(void)
{
	for (int c = 1; c >= 0; c--) {
		unsigned long reseal[NR_OUTCOMES] = { 0 };

		printf("test_corrupt: %s image: single-bit flips noticed (refused, reported or failing the read) of those in blocks a read needs, [and in blocks no read needs]; then every damage but resealing by outcome\n",
		       c ? "clean" : "open");
		for (int k = 0; k < NR_KINDS; k++) {
			unsigned long seen = total(c, k, D_FLIP, O_REFUSED) +
					     total(c, k, D_FLIP, O_REPORTED) +
					     total(c, k, D_FLIP, O_READ);

			if (!total(c, k, -1, -1))
				continue;
			printf("  %-26s %4lu of %4lu", kind_name[k], seen,
			       flips_read[c][k]);
			if (flips_unread[c][k])
				printf(" [%lu]", flips_unread[c][k]);
			printf(" |");
			for (int o = 0; o < NR_OUTCOMES; o++) {
				printf(" %s %lu", outcome_name[o],
				       told(c, k, o));
				reseal[o] += total(c, k, D_RESEAL, o);
			}
			printf("\n");
		}
		printf("  %-26s", "resealed, all kinds");
		for (int o = 0; o < NR_OUTCOMES; o++)
			printf(" %s %lu", outcome_name[o], reseal[o]);
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'o' },
		{ "images", required_argument, NULL, 'i' },
		{ "long", no_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long nops = 400, images = 1, flips = 1, extra = 400;
	unsigned long cases = 0;
	struct timespec t0, t1;
	int c;

	seed = time(NULL);
	while ((c = getopt_long(argc, argv, "s:o:i:lv", lopts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'o': nops = strtoul(optarg, NULL, 0); break;
		case 'i': images = strtoul(optarg, NULL, 0); break;
		case 'l': images = 3; flips = 3; extra = 1500; break;
		case 'v': verbose++; break;
		default:
			fprintf(stderr, "usage: test_corrupt --seed N [--long] [--ops N] [--images N] [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	rng_state = seed * 0x9e3779b97f4a7c15ull | 1;
	shim_random_seed(seed);
	shim_rcu_register();
	if (shim_modules_load())
		FAIL("module init");
	/* Every message of every case is checked: none may be dropped. */
	shim_ratelimit_burst = 1 << 30;
	signal(SIGABRT, cap_dump);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pinned_cases();
	for (unsigned long i = 0; i < images; i++) {
		struct image img[2];

		build(nops, &img[0], &img[1]);
		for (int j = 0; j < 2; j++) {
			classify(&img[j]);
			run_image(&img[j], flips, extra);
			merge_cases(&img[j]);
			free(img[j].use);
			memdev_destroy(img[j].md);
		}
		model_history_free(&hist);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (int k = 0; k < NR_KINDS; k++)
		cases += total(-1, k, -1, -1);
	report();
	printf("test_corrupt: a full merge after a bit flipped in a run's data, value or long-piece block: %lu failed the store naming the block, %lu blocks no merge read\n",
	       merge_met, merge_unneeded);
	printf("test_corrupt: %lu cases (%lu failed the store in a merge after attach), %.1f s (attach %.1f s, checks %.1f s, close %.1f s), %lu violations (seed %llu)\n",
	       cases, merge_failures,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       spent[0], spent[1], spent[2], violations,
	       (unsigned long long)seed);
	free(cap_buf);
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	if (violations)
		FAIL("%lu violations", violations);
	return 0;
}
