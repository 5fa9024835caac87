// SPDX-License-Identifier: GPL-2.0
/*
 * crash_check: judge every replay point of a dm-log-writes log of the
 * store (Documentation/lsm.rst, "Crash testing").
 *
 *   crash_check --log LOG --journal JOURNAL [--flush-trace TRACE]
 *               [--dumps DIR] [--variants N] [--gets N] [--reopen-every N]
 *               [--memtable BYTES]
 *               [--seed N] [--only-entry E] [-v]
 *
 * LOG is what dm-log-writes wrote while lsm_crash_workload ran on the
 * store in the guest (tools/crash/logwrites.h), JOURNAL what that
 * workload journalled (tools/crash/crash_journal.h).  The checker walks
 * the log and rebuilds the store's device entry by entry in memory,
 * from zeros as the guest's disk began, in the log's order or, with the
 * guest's trace of the flushes (--flush-trace), in the order that puts
 * right what the log gets wrong where two flushes overlapped
 * (logwrites.h).  A replay point is every entry
 * with FLUSH or FUA and every mark: the device as it stood there is a
 * state a power cut could leave.  At each, the store is opened with the
 * userspace build of lsm/ (the same sources as sl_lsm.ko) on a
 * copy-on-write overlay of the rebuilt device, so that what the open
 * and close write never reaches the base, and judged as the userspace
 * power-cut tests judge theirs:
 *
 *  - it opens (once the format had returned), and lsm_store_check()
 *    finds the manifest's and allocator's invariants true;
 *  - its newest sequence number S covers every write acknowledged as
 *    durable before that point (a SYNC write, or any write before a sync,
 *    flush or detach that returned 0, as the marks before the point say),
 *    and no write not yet made;
 *  - a scan of the whole key space gives exactly the model's state after
 *    the writes up to S (extents as stored, visible windows, every value
 *    byte), and N random lookups (--gets, 16) the model's extent and its
 *    whole visible window;
 *  - it closes without error; every --reopen-every (8th) one opens again
 *    and is judged again.
 *
 * The store opens with the workload's memtable size, or --memtable's:
 * --memtable 1 makes every write of the recovery a run of its own, and
 * the recoveries' flushes and merges (on threads of their own, as in the
 * kernel) write and read the device all at once.
 *
 * Points between which the log changed nothing on the device (marks
 * after marks) are the same device: it is opened once, at the last of
 * them, whose acknowledged writes include the others'.
 *
 * With --variants N, at every flush entry whose batch of writes was not
 * empty (the writes that completed before the flush was issued, logged
 * just before it), N more states are judged: the device before the batch
 * plus a random subset of its writes, and in every second one a write
 * torn at 512-byte sectors: what a power cut during the flush could
 * leave, which replaying in log order never shows.
 *
 * --dumps DIR: files dump-E.txt there are what the kernel's sl_lsm.ko
 * recovered on the device replayed to entry E (lsm_crash_workload dump
 * in the guest); each is judged as above, by its dump.
 *
 * Prints its counts; exits 1 at the first failure, naming the point and
 * how to get its device (lw_replay) and repeat its check (--only-entry).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/rcupdate.h>
#include "bdev.h"
#include "store.h"
#include "store_check.h"
#include "rnd.h"
#include "logwrites.h"
#include "crash_journal.h"

#define SCAN_PIECES	256
#define SCAN_BYTES	(2 * LSM_VALUE_MAX)

static u64 seed = 1;
static int verbose;
static unsigned int opt_variants;
static const char *log_path, *journal_path, *trace_path;

/* ----- The journal and the model ----- */

struct jop {
	char kind;		/* a w s f x */
	bool sync;
	int res;
	u64 seq;		/* w: its sequence number; a: the store's after */
	u64 blocks;		/* a: the device's size */
	u32 first, nops;	/* w: its operations in jwops[] */
};

struct jwop {
	char kind;		/* p d */
	u32 vlen;
	u64 unit, len;
};

/* One change of a unit: a put (id != 0) or a punch, at sequence number seq. */
struct hent {
	u64 seq;
	u64 id;
	u64 key, len;		/* the extent, in units */
	u32 op, vlen;
};

struct hist {
	struct hent *e;
	u32 n, cap;
};

static struct jop *jops;	/* [1, njops]: by id */
static u64 njops;
static struct jwop *jwops;
static u64 njwops;
static u64 base, units, memtable_bytes, dev_blocks;
static struct hist *hist;	/* per unit */
/* Per id: the newest seq acknowledged durable once op id had returned, and
 * the newest seq of a write made up to op id. */
static u64 *req_seq, *made_seq;
static u64 durable_writes;	/* writes acknowledged as durable, in all */
static u64 durable_acks;	/* calls that acknowledged durability */
static u64 max_seq;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

struct where {
	u64 entry;
	u64 mark;		/* the last mark "o<ID>" at or before it */
	const char *what;	/* "replay point", "variant 3 of ...", ... */
};

static const struct where *here;

static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "crash_check: FAIL: ");
	if (here)
		fprintf(stderr, "%s at log entry %llu (after mark o%llu): ",
			here->what, (unsigned long long)here->entry,
			(unsigned long long)here->mark);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	if (here)
		fprintf(stderr,
			"crash_check: the device there: lw_replay --log %s%s%s --replay IMAGE --to %llu\n"
			"             onto a zeroed IMAGE of %llu blocks; this check alone:\n"
			"             crash_check --log %s --journal %s%s%s --seed %llu --variants %u --only-entry %llu\n",
			log_path, trace_path ? " --flush-trace " : "",
			trace_path ? trace_path : "",
			(unsigned long long)here->entry,
			(unsigned long long)dev_blocks, log_path, journal_path,
			trace_path ? " --flush-trace " : "",
			trace_path ? trace_path : "",
			(unsigned long long)seed, opt_variants,
			(unsigned long long)here->entry);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		fail("out of memory");
	return p;
}

static void hist_apply(u64 unit, const struct hent *h)
{
	struct hist *hs = &hist[unit];

	/* A later operation of the same write wins. */
	if (hs->n && hs->e[hs->n - 1].seq == h->seq) {
		hs->e[hs->n - 1] = *h;
		return;
	}
	if (hs->n == hs->cap) {
		hs->cap = hs->cap ? 2 * hs->cap : 4;
		hs->e = xrealloc(hs->e, hs->cap * sizeof(*hs->e));
	}
	hs->e[hs->n++] = *h;
}

/* Whether two units show the same operation of the same write. */
static bool same_put(const struct hent *a, const struct hent *b)
{
	return a && b && a->seq == b->seq && a->op == b->op;
}

/* What unit @u shows after the writes up to @seq: its put, or NULL. */
static const struct hent *state_at(u64 u, u64 seq)
{
	const struct hist *hs = &hist[u];
	u32 lo = 0, hi = hs->n;

	/* The first change with a higher sequence number. */
	while (lo < hi) {
		u32 mid = (lo + hi) / 2;

		if (hs->e[mid].seq <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !hs->e[lo - 1].id)
		return NULL;
	return &hs->e[lo - 1];
}

static void parse_op(char *tok, u64 id, u32 i)
{
	struct jwop *o;
	unsigned long long unit, len;
	unsigned int vlen = 0;
	char kind;

	if (sscanf(tok, "%c:%llu:%llu:%u", &kind, &unit, &len, &vlen) < 3 ||
	    (kind != 'p' && kind != 'd') || !len || unit + len > units)
		fail("journal: op %llu: bad operation '%s'",
		     (unsigned long long)id, tok);
	if (njwops % 1024 == 0)
		jwops = xrealloc(jwops, (njwops + 1024) * sizeof(*jwops));
	o = &jwops[njwops++];
	*o = (struct jwop){ .kind = kind, .vlen = vlen, .unit = unit,
			    .len = len };
}

static void load_journal(void)
{
	FILE *f = fopen(journal_path, "r");
	char *line = NULL, magic[64];
	size_t cap = 0;
	unsigned long long b, u, m, s;
	int fmt;
	bool ended = false;

	if (!f)
		fail("%s: %s", journal_path, strerror(errno));
	if (getline(&line, &cap, f) < 0 ||
	    sscanf(line, "%63s %d base %llu units %llu memtable %llu seed %llu",
		   magic, &fmt, &b, &u, &m, &s) != 6 ||
	    strcmp(magic, CRASH_JOURNAL_MAGIC) || fmt != CRASH_FORMAT || !u)
		fail("%s: not a crash journal of format %d", journal_path,
		     CRASH_FORMAT);
	base = b;
	units = u;
	memtable_bytes = m;
	hist = calloc(units, sizeof(*hist));
	jops = xrealloc(NULL, sizeof(*jops));
	while (getline(&line, &cap, f) > 0) {
		char *save, *tok = strtok_r(line, " \n", &save);
		unsigned long long id;
		struct jop *op;

		if (!tok)
			continue;
		if (ended)
			fail("journal: a line after its end");
		if (!strcmp(tok, "end")) {
			ended = true;
			continue;
		}
		tok = strtok_r(NULL, " \n", &save);
		id = tok ? strtoull(tok, NULL, 10) : 0;
		if (id != njops + 1)
			fail("journal: line of op %llu out of order",
			     (unsigned long long)njops + 1);
		jops = xrealloc(jops, (id + 1) * sizeof(*jops));
		op = &jops[id];
		memset(op, 0, sizeof(*op));
		op->kind = line[0];
		njops = id;
#define NEXT_NUM() ({ char *__t = strtok_r(NULL, " \n", &save);		\
		if (!__t)							\
			fail("journal: op %llu: line cut short", id);		\
		strtoll(__t, NULL, 10); })
		switch (op->kind) {
		case 'a':
			NEXT_NUM();	/* flags */
			op->res = NEXT_NUM();
			op->seq = NEXT_NUM();
			op->blocks = NEXT_NUM();
			if (!op->res && !dev_blocks)
				dev_blocks = op->blocks;
			break;
		case 'w':
			op->sync = NEXT_NUM();
			op->res = NEXT_NUM();
			op->seq = NEXT_NUM();
			op->nops = NEXT_NUM();
			op->first = njwops;
			if (!op->nops || op->nops > CRASH_MAX_OPS)
				fail("journal: op %llu: %u operations", id,
				     op->nops);
			for (u32 i = 0; i < op->nops; i++) {
				tok = strtok_r(NULL, " \n", &save);
				if (!tok)
					fail("journal: op %llu: line cut short", id);
				parse_op(tok, id, i);
			}
			break;
		case 's':
		case 'f':
		case 'x':
			op->res = NEXT_NUM();
			break;
		default:
			fail("journal: op %llu: unknown kind '%c'", id, op->kind);
		}
#undef NEXT_NUM
	}
	free(line);
	fclose(f);
	if (!njops || jops[1].kind != 'a' || jops[1].res)
		fail("journal: it does not begin with a successful attach");
	if (!ended)
		fprintf(stderr, "crash_check: warning: the journal has no end line (the workload stopped early?)\n");

	/* The model: every write that was applied, in sequence order. */
	req_seq = calloc(njops + 2, sizeof(*req_seq));
	made_seq = calloc(njops + 2, sizeof(*made_seq));
	if (!hist || !req_seq || !made_seq)
		fail("out of memory");
	{
		u64 cur = 0, req = 0;

		for (u64 id = 1; id <= njops; id++) {
			const struct jop *op = &jops[id];

			if (op->kind == 'w' && !op->res) {
				if (op->seq != cur + 1)
					fail("journal: op %llu: sequence number %llu after %llu",
					     (unsigned long long)id,
					     (unsigned long long)op->seq,
					     (unsigned long long)cur);
				cur = op->seq;
				for (u32 i = 0; i < op->nops; i++) {
					const struct jwop *o = &jwops[op->first + i];
					struct hent h = {
						.seq = op->seq,
						.id = o->kind == 'p' ? id : 0,
						.key = o->unit, .len = o->len,
						.op = i, .vlen = o->vlen,
					};

					for (u64 u = o->unit; u < o->unit + o->len; u++)
						hist_apply(u, &h);
				}
				if (op->sync && op->seq > req)
					req = op->seq;
				durable_acks += op->sync;
			} else if (op->kind == 'a' && !op->res) {
				if (op->seq != cur)
					fail("journal: op %llu: attach found seq %llu, %llu written",
					     (unsigned long long)id,
					     (unsigned long long)op->seq,
					     (unsigned long long)cur);
				if (op->seq > req)
					req = op->seq;
			} else if (strchr("sfx", op->kind) && !op->res) {
				req = cur;
				durable_acks++;
			}
			req_seq[id] = req;
			made_seq[id] = cur;
		}
		max_seq = cur;
		/* Every write whose seq some acknowledgment covered. */
		durable_writes = req;
	}
}

/* ----- The device: the rebuilt base and a copy-on-write overlay ----- */

/*
 * The store's flush and merge work write and read from threads of their
 * own, so @lock serializes @over and @touched among them (an unlocked
 * overlay once lost a block from @touched, and the next point's store
 * read what an earlier one had written there as its own run's block).
 */
struct ovdev {
	struct lsm_bdev bdev;
	pthread_mutex_t lock;
	u8 **base;		/* [dev_blocks], NULL: zeros */
	u8 **over;		/* [dev_blocks], what the store wrote since reset */
	u64 *touched;
	u64 ntouched, cap;
};

static const u8 zero_block[LSM_BLOCK_SIZE];
static struct ovdev dev;

static struct ovdev *ov_of(struct lsm_bdev *b)
{
	return container_of(b, struct ovdev, bdev);
}

static const u8 *ov_block(struct ovdev *o, u64 b)
{
	if (o->over[b])
		return o->over[b];
	return o->base[b] ? o->base[b] : zero_block;
}

static int ov_read(struct lsm_bdev *bdev, u64 block, void *buf, u32 nr)
{
	struct ovdev *o = ov_of(bdev);

	if (!nr || block >= bdev->nr_blocks || nr > bdev->nr_blocks - block)
		return -EINVAL;
	pthread_mutex_lock(&o->lock);
	for (u32 i = 0; i < nr; i++)
		memcpy((u8 *)buf + (size_t)i * LSM_BLOCK_SIZE,
		       ov_block(o, block + i), LSM_BLOCK_SIZE);
	pthread_mutex_unlock(&o->lock);
	return 0;
}

/* The overlay's own copy of block @b, made from what it shows now.  Under
 * @o->lock while the store is open. */
static u8 *ov_own(struct ovdev *o, u64 b)
{
	if (!o->over[b]) {
		u8 *p = malloc(LSM_BLOCK_SIZE);

		if (!p)
			fail("out of memory");
		memcpy(p, ov_block(o, b), LSM_BLOCK_SIZE);
		o->over[b] = p;
		if (o->ntouched == o->cap) {
			o->cap = o->cap ? 2 * o->cap : 1024;
			o->touched = xrealloc(o->touched,
					      o->cap * sizeof(*o->touched));
		}
		o->touched[o->ntouched++] = b;
	}
	return o->over[b];
}

static int ov_write(struct lsm_bdev *bdev, u64 block, const void *buf, u32 nr,
		    unsigned int flags, lsm_io_done_t done, void *priv)
{
	struct ovdev *o = ov_of(bdev);

	if (!nr || block >= bdev->nr_blocks || nr > bdev->nr_blocks - block)
		return -EINVAL;
	pthread_mutex_lock(&o->lock);
	for (u32 i = 0; i < nr; i++)
		memcpy(ov_own(o, block + i),
		       (const u8 *)buf + (size_t)i * LSM_BLOCK_SIZE,
		       LSM_BLOCK_SIZE);
	pthread_mutex_unlock(&o->lock);
	done(priv, 0);
	return 0;
}

static int ov_flush(struct lsm_bdev *bdev)
{
	return 0;
}

static void ov_release(struct lsm_bdev *bdev)
{
}

static const struct lsm_bdev_ops ov_ops = {
	.read = ov_read,
	.write = ov_write,
	.flush = ov_flush,
	.release = ov_release,
};

/* Drop what the overlay holds: the device is the base again. */
static void ov_reset(struct ovdev *o)
{
	for (u64 i = 0; i < o->ntouched; i++) {
		free(o->over[o->touched[i]]);
		o->over[o->touched[i]] = NULL;
	}
	o->ntouched = 0;
}

/*
 * Write the sectors of @e (its data in @data) whose bit in @keep is set
 * (all with @keep NULL) onto the base, or onto the overlay.
 */
static void apply_entry(const struct lw_entry *e, const u8 *data,
			const u8 *keep, bool to_overlay)
{
	for (u64 s = 0; s < e->nr_sectors; s++) {
		u64 byte = (e->sector + s) * 512, b = byte / LSM_BLOCK_SIZE;
		u8 *blk;

		if (keep && !(keep[s / 8] & (1 << (s % 8))))
			continue;
		if (b >= dev_blocks)
			fail("log entry %llu writes sector %llu, past the store's %llu blocks",
			     (unsigned long long)e->index,
			     (unsigned long long)(e->sector + s),
			     (unsigned long long)dev_blocks);
		if (to_overlay) {
			blk = ov_own(&dev, b);
		} else {
			if (!dev.base[b]) {
				dev.base[b] = calloc(1, LSM_BLOCK_SIZE);
				if (!dev.base[b])
					fail("out of memory");
			}
			blk = dev.base[b];
		}
		if (e->flags & LW_DISCARD)
			memset(blk + byte % LSM_BLOCK_SIZE, 0, 512);
		else
			memcpy(blk + byte % LSM_BLOCK_SIZE, data + s * 512, 512);
	}
}

/* ----- Judging a state ----- */

struct got {
	u64 start, len, ext_key, ext_len, seq;
	u32 vlen;
	const u8 *value;	/* or, from a dump, its hash: */
	u64 hash;
};

static u64 value_hash(u64 id, u32 op, u32 vlen)
{
	u64 h = CRASH_HASH_INIT;

	for (u32 b = 0; b < vlen; b++) {
		u8 c = crash_value_byte(id, op, b);

		h = crash_hash(h, &c, 1);
	}
	return h;
}

/*
 * Compare pieces in key order, as a scan gave them, with the model's
 * state after the writes up to @seq; @next is the unit the previous call
 * ended at (0 to start).  Returns where this call ended.
 */
static u64 judge_pieces(const struct got *g, unsigned int n, u64 seq, u64 next)
{
	for (unsigned int i = 0; i < n; i++) {
		const struct hent *h;
		u64 s, e;

		if (g[i].start < base || g[i].start - base >= units ||
		    g[i].len > units - (g[i].start - base))
			fail("a piece [%#llx +%llu) outside the key space the workload used",
			     (unsigned long long)g[i].start,
			     (unsigned long long)g[i].len);
		s = g[i].start - base;
		e = s + g[i].len;
		if (s < next)
			fail("pieces out of order or overlapping at unit %llu",
			     (unsigned long long)s);
		for (u64 u = next; u < s; u++)
			if (state_at(u, seq))
				fail("unit %llu shows nothing, the model after seq %llu has the put of op %llu",
				     (unsigned long long)u,
				     (unsigned long long)seq,
				     (unsigned long long)state_at(u, seq)->id);
		h = state_at(s, seq);
		if (!h)
			fail("unit %llu shows seq %llu where the model after seq %llu has nothing",
			     (unsigned long long)s,
			     (unsigned long long)g[i].seq,
			     (unsigned long long)seq);
		if (g[i].seq != h->seq || g[i].ext_key != base + h->key ||
		    g[i].ext_len != h->len || g[i].vlen != h->vlen)
			fail("unit %llu: extent seq %llu [%llu +%llu) vlen %u, the model after seq %llu: seq %llu [%llu +%llu) vlen %u",
			     (unsigned long long)s,
			     (unsigned long long)g[i].seq,
			     (unsigned long long)(g[i].ext_key - base),
			     (unsigned long long)g[i].ext_len, g[i].vlen,
			     (unsigned long long)seq,
			     (unsigned long long)h->seq,
			     (unsigned long long)h->key,
			     (unsigned long long)h->len, h->vlen);
		if (g[i].value) {
			for (u32 b = 0; b < g[i].vlen; b++)
				if (g[i].value[b] !=
				    crash_value_byte(h->id, h->op, b))
					fail("unit %llu: value byte %u of the put of op %llu is wrong",
					     (unsigned long long)s, b,
					     (unsigned long long)h->id);
		} else if (g[i].hash != value_hash(h->id, h->op, h->vlen)) {
			fail("unit %llu: the value of the put of op %llu is wrong",
			     (unsigned long long)s, (unsigned long long)h->id);
		}
		for (u64 u = s + 1; u < e; u++)
			if (!same_put(state_at(u, seq), h))
				fail("the piece [%llu +%llu) of op %llu covers unit %llu, which the model after seq %llu does not give it",
				     (unsigned long long)s,
				     (unsigned long long)g[i].len,
				     (unsigned long long)h->id,
				     (unsigned long long)u,
				     (unsigned long long)seq);
		next = e;
	}
	return next;
}

static void judge_end(u64 next, u64 seq)
{
	for (u64 u = next; u < units; u++)
		if (state_at(u, seq))
			fail("the scan ended before unit %llu, which the model after seq %llu has",
			     (unsigned long long)u, (unsigned long long)seq);
}

static void judge_seq(u64 s, u64 mark)
{
	u64 need = req_seq[mark], most = made_seq[mark + 1 <= njops ? mark + 1 : njops];

	if (s < need)
		fail("recovered seq %llu, but writes up to seq %llu were acknowledged as durable: %llu lost",
		     (unsigned long long)s, (unsigned long long)need,
		     (unsigned long long)(need - s));
	if (s > most)
		fail("recovered seq %llu, but no write past seq %llu had been made",
		     (unsigned long long)s, (unsigned long long)most);
}

static u64 rng;
static u8 scan_vals[SCAN_BYTES];

/* A full scan and @gets lookups of an open store against the model. */
static void judge_store(struct lsm_store *st, u64 mark, unsigned int gets)
{
	static struct lsm_piece p[SCAN_PIECES];
	static struct got g[SCAN_PIECES];
	static u8 vbuf[LSM_VALUE_MAX];
	struct lsm_scan_cursor cur = { .pos = 0 };
	struct lsm_stats stats;
	u64 next = 0, seq;
	int n, err;

	err = lsm_store_check(st);
	if (err)
		fail("the store's check: %d", err);
	lsm_store_stats(st, &stats);
	seq = stats.seq;
	judge_seq(seq, mark);
	while (!cur.done) {
		n = lsm_store_scan(st, &cur, p, SCAN_PIECES, scan_vals,
				   sizeof(scan_vals));
		if (n < 0)
			fail("scan from %#llx: %d", (unsigned long long)cur.pos, n);
		for (int i = 0; i < n; i++)
			g[i] = (struct got){
				.start = p[i].start, .len = p[i].len,
				.ext_key = p[i].ext.key, .ext_len = p[i].ext.len,
				.seq = p[i].ext.seq, .vlen = p[i].ext.vlen,
				.value = p[i].ext.value,
			};
		next = judge_pieces(g, n, seq, next);
	}
	judge_end(next, seq);
	for (unsigned int i = 0; i < gets; i++) {
		u64 u = xorshift64(&rng) % units, from = u, to = u;
		const struct hent *h = state_at(u, seq);
		struct lsm_piece one;

		err = lsm_store_get(st, base + u, &one, vbuf, sizeof(vbuf));
		if (!h) {
			if (err != -ENOENT)
				fail("get unit %llu: %d where the model has nothing",
				     (unsigned long long)u, err);
			continue;
		}
		if (err)
			fail("get unit %llu: %d", (unsigned long long)u, err);
		while (from > 0 && same_put(state_at(from - 1, seq), h))
			from--;
		while (to + 1 < units && same_put(state_at(to + 1, seq), h))
			to++;
		if (one.ext.seq != h->seq || one.start != base + from ||
		    one.len != to - from + 1)
			fail("get unit %llu: seq %llu window [%llu +%llu), the model: seq %llu window [%llu +%llu)",
			     (unsigned long long)u,
			     (unsigned long long)one.ext.seq,
			     (unsigned long long)(one.start - base),
			     (unsigned long long)one.len,
			     (unsigned long long)h->seq,
			     (unsigned long long)from,
			     (unsigned long long)(to - from + 1));
	}
}

static struct {
	u64 entries, writes, write_bytes, flushes, fuas, marks, discards;
	u64 points, opened, unformatted, reopened, variants, dumps;
	u64 max_runs, max_recovered;
} cnt;

static unsigned int opt_gets = 16, opt_reopen = 8;
static u64 opt_memtable;
static long long only_entry = -1;

/* Open the store on the device as it stands, judge it, close it. */
static void judge_device(u64 mark)
{
	struct lsm_options opt = {
		.memtable_bytes = opt_memtable ?: memtable_bytes,
		.commit_interval_ms = 3600000,
	};
	struct lsm_store *st;
	struct lsm_stats stats;
	int err;

	err = lsm_store_open(&dev.bdev, &opt, 0, &st);
	/* Before the format returned, there may be no store yet. */
	if (err == -EUCLEAN && !mark) {
		cnt.unformatted++;
		ov_reset(&dev);
		return;
	}
	if (err)
		fail("open: %d", err);
	judge_store(st, mark, opt_gets);
	lsm_store_stats(st, &stats);
	if (stats.runs > cnt.max_runs)
		cnt.max_runs = stats.runs;
	if (stats.seq > cnt.max_recovered)
		cnt.max_recovered = stats.seq;
	err = lsm_store_close(st);
	if (err)
		fail("close after recovery: %d", err);
	cnt.opened++;
	if (opt_reopen && cnt.opened % opt_reopen == 0) {
		err = lsm_store_open(&dev.bdev, &opt, 0, &st);
		if (err)
			fail("open again after recovery and close: %d", err);
		judge_store(st, mark, opt_gets);
		err = lsm_store_close(st);
		if (err)
			fail("close after the second open: %d", err);
		cnt.reopened++;
	}
	ov_reset(&dev);
}

/* ----- Kernel dumps ----- */

static char *dumps_dir;
static u64 *dump_entries;
static u64 ndumps;

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void find_dumps(void)
{
	DIR *d = opendir(dumps_dir);
	struct dirent *de;

	if (!d)
		fail("%s: %s", dumps_dir, strerror(errno));
	while ((de = readdir(d))) {
		unsigned long long e;
		char tail[8];

		if (sscanf(de->d_name, "dump-%llu.tx%1s", &e, tail) != 2 ||
		    strcmp(tail, "t"))
			continue;
		dump_entries = xrealloc(dump_entries,
					(ndumps + 1) * sizeof(*dump_entries));
		dump_entries[ndumps++] = e;
	}
	closedir(d);
	qsort(dump_entries, ndumps, sizeof(*dump_entries), cmp_u64);
}

static bool has_dump(u64 entry)
{
	return bsearch(&entry, dump_entries, ndumps, sizeof(*dump_entries),
		       cmp_u64) != NULL;
}

static void judge_dump(u64 entry, u64 mark)
{
	char path[4096], magic[64], *line = NULL;
	size_t cap = 0;
	unsigned long long seq, npieces = 0, want;
	struct got g;
	FILE *f;
	u64 next = 0;
	int fmt;
	bool ended = false;

	snprintf(path, sizeof(path), "%s/dump-%llu.txt", dumps_dir,
		 (unsigned long long)entry);
	f = fopen(path, "r");
	if (!f)
		fail("%s: %s", path, strerror(errno));
	if (getline(&line, &cap, f) < 0 ||
	    sscanf(line, "%63s %d seq %llu", magic, &fmt, &seq) != 3 ||
	    strcmp(magic, CRASH_DUMP_MAGIC) || fmt != CRASH_FORMAT)
		fail("%s: not a dump of format %d", path, CRASH_FORMAT);
	judge_seq(seq, mark);
	while (getline(&line, &cap, f) > 0) {
		unsigned long long s, l, k, kl, sq, h;
		unsigned int vlen;

		if (sscanf(line, "end %llu", &want) == 1) {
			ended = true;
			break;
		}
		if (sscanf(line, "p %llu %llu %llu %llu %llu %u %llx", &s, &l,
			   &k, &kl, &sq, &vlen, &h) != 7)
			fail("%s: bad line '%s'", path, line);
		g = (struct got){ .start = s, .len = l, .ext_key = k,
				  .ext_len = kl, .seq = sq, .vlen = vlen,
				  .hash = h };
		next = judge_pieces(&g, 1, seq, next);
		npieces++;
	}
	if (!ended || want != npieces)
		fail("%s: cut short", path);
	judge_end(next, seq);
	free(line);
	fclose(f);
	cnt.dumps++;
}

/* ----- The walk ----- */

static struct lw_log lw;
static struct lw_index ix;
static u8 *data_buf;
static size_t data_cap;

static const u8 *entry_data(const struct lw_entry *e)
{
	size_t len = e->nr_sectors * 512;

	if (e->flags & LW_DISCARD)
		return NULL;
	if (len > data_cap) {
		data_cap = len;
		data_buf = xrealloc(data_buf, data_cap);
	}
	if (lw_read_data(&lw, e, data_buf))
		fail("log entry %llu: cannot read its data",
		     (unsigned long long)e->index);
	return data_buf;
}

static bool plain_write(const struct lw_entry *e)
{
	return !(e->flags & (LW_FLUSH | LW_FUA | LW_MARK)) && e->nr_sectors;
}

/*
 * The states a power cut during flush @flush could leave: the device
 * before the batch of @n writes logged with it, plus a random subset of
 * them, one of them torn in every second state.
 */
static void judge_variants(const struct lw_entry *batch, u64 n,
			   const struct lw_entry *flush, u64 mark)
{
	static u8 keep[512];
	char what[96];

	for (unsigned int v = 0; v < opt_variants; v++) {
		u64 r = (seed ^ (flush->index * 0x9e3779b97f4a7c15ULL) ^
			 (v + 1) * 0xbf58476d1ce4e5b9ULL) | 1;
		u64 torn = v % 2 ? xorshift64(&r) % n : U64_MAX;
		struct where w = { flush->index, mark, what };

		snprintf(what, sizeof(what),
			 "variant %u (a subset of the %llu writes before the flush%s)",
			 v + 1, (unsigned long long)n,
			 torn != U64_MAX ? ", one torn" : "");
		here = &w;
		for (u64 i = 0; i < n; i++) {
			const u8 *data;

			if (i == torn) {
				/* Each 512-byte sector of it written or not. */
				u64 ns = batch[i].nr_sectors;
				u8 *bits = ns / 8 + 1 <= sizeof(keep) ? keep :
					   xrealloc(NULL, ns / 8 + 1);

				for (u64 s = 0; s < ns / 8 + 1; s++)
					bits[s] = xorshift64(&r);
				data = entry_data(&batch[i]);
				apply_entry(&batch[i], data, bits, true);
				if (bits != keep)
					free(bits);
				continue;
			}
			if (xorshift64(&r) % 2)
				continue;
			data = entry_data(&batch[i]);
			apply_entry(&batch[i], data, NULL, true);
		}
		judge_device(mark);
		cnt.variants++;
		here = NULL;
	}
}

static void walk(void)
{
	struct lw_entry *batch = NULL;
	u64 nbatch = 0, capb = 0, mark = 0;
	struct where pending = { .what = "replay point" };
	bool have_pending = false;

	for (u64 i = 0; i < ix.n; i++) {
		const struct lw_entry e = ix.e[ix.order[i]];

		cnt.entries++;
		if (plain_write(&e)) {
			if (have_pending) {
				here = &pending;
				if (only_entry < 0 || (u64)only_entry == pending.entry)
					judge_device(pending.mark);
				here = NULL;
				have_pending = false;
			}
			if (nbatch == capb) {
				capb = capb ? 2 * capb : 64;
				batch = xrealloc(batch, capb * sizeof(*batch));
			}
			batch[nbatch++] = e;
			continue;
		}
		if (nbatch) {
			if ((e.flags & LW_FLUSH) && opt_variants &&
			    (only_entry < 0 || (u64)only_entry == e.index))
				judge_variants(batch, nbatch, &e, mark);
			for (u64 i = 0; i < nbatch; i++) {
				apply_entry(&batch[i], entry_data(&batch[i]),
					    NULL, false);
				cnt.writes++;
				cnt.write_bytes += batch[i].nr_sectors * 512;
			}
			nbatch = 0;
		}
		if (e.nr_sectors && !(e.flags & LW_MARK)) {
			if (have_pending) {
				here = &pending;
				if (only_entry < 0 || (u64)only_entry == pending.entry)
					judge_device(pending.mark);
				here = NULL;
				have_pending = false;
			}
			apply_entry(&e, entry_data(&e), NULL, false);
			if (e.flags & LW_DISCARD)
				cnt.discards++;
			else
				cnt.writes++;
			cnt.write_bytes += e.nr_sectors * 512;
		}
		if (e.flags & LW_FLUSH)
			cnt.flushes++;
		if (e.flags & LW_FUA)
			cnt.fuas++;
		if (e.flags & LW_MARK) {
			unsigned long long id;
			char tail;

			cnt.marks++;
			if (sscanf(e.label, "o%llu%c", &id, &tail) == 1) {
				if (id != mark + 1 || id > njops)
					fail("log entry %llu: mark o%llu after o%llu, the journal has %llu",
					     (unsigned long long)e.index, id,
					     (unsigned long long)mark,
					     (unsigned long long)njops);
				mark = id;
			} else if (strcmp(e.label, LW_END_MARK)) {
				fail("log entry %llu: unknown mark '%s'",
				     (unsigned long long)e.index, e.label);
			}
		}
		if (e.flags & (LW_FLUSH | LW_FUA | LW_MARK)) {
			cnt.points++;
			pending.entry = e.index;
			pending.mark = mark;
			have_pending = true;
		}
		if (ndumps && has_dump(e.index)) {
			struct where w = { e.index, mark, "kernel dump" };

			here = &w;
			judge_dump(e.index, mark);
			here = NULL;
		}
	}
	for (u64 i = 0; i < nbatch; i++)
		apply_entry(&batch[i], entry_data(&batch[i]), NULL, false);
	if (have_pending) {
		here = &pending;
		if (only_entry < 0 || (u64)only_entry == pending.entry)
			judge_device(pending.mark);
		here = NULL;
	}
	if (mark != njops)
		fail("the log's last mark is o%llu, the journal has %llu operations",
		     (unsigned long long)mark, (unsigned long long)njops);
	free(batch);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: crash_check --log LOG --journal JOURNAL [--flush-trace TRACE] [--dumps DIR]\n"
		"                   [--variants N] [--gets N] [--reopen-every N] [--seed N]\n"
		"                   [--memtable BYTES]\n"
		"                   [--only-entry E] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "log", required_argument, NULL, 'l' },
		{ "journal", required_argument, NULL, 'j' },
		{ "dumps", required_argument, NULL, 'd' },
		{ "variants", required_argument, NULL, 'V' },
		{ "gets", required_argument, NULL, 'g' },
		{ "reopen-every", required_argument, NULL, 'r' },
		{ "memtable", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 's' },
		{ "only-entry", required_argument, NULL, 'o' },
		{ "flush-trace", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct timespec t0, t1;
	int c;

	while ((c = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (c) {
		case 'l': log_path = optarg; break;
		case 'j': journal_path = optarg; break;
		case 'd': dumps_dir = optarg; break;
		case 'V': opt_variants = strtoul(optarg, NULL, 0); break;
		case 'g': opt_gets = strtoul(optarg, NULL, 0); break;
		case 'r': opt_reopen = strtoul(optarg, NULL, 0); break;
		case 'm': opt_memtable = strtoull(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0) ?: 1; break;
		case 'o': only_entry = strtoll(optarg, NULL, 0); break;
		case 'T': trace_path = optarg; break;
		case 'v': verbose++; break;
		default: usage();
		}
	}
	if (!log_path || !journal_path || optind != argc)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rng = seed * 0x9e3779b97f4a7c15ULL | 1;
	shim_random_seed(seed);
	shim_rcu_register();
	if (shim_modules_load())
		fail("module init");
	load_journal();
	if (!dev_blocks)
		fail("journal: no attach says the device's size");
	if (lw_open(&lw, log_path) || lw_index_load(&lw, &ix))
		fail("%s: cannot read the log", log_path);
	if (trace_path && lw_index_reorder(&ix, trace_path))
		fail("%s: the flush trace does not fit the log", trace_path);
	if (dumps_dir)
		find_dumps();
	dev.base = calloc(dev_blocks, sizeof(*dev.base));
	dev.over = calloc(dev_blocks, sizeof(*dev.over));
	if (!dev.base || !dev.over)
		fail("out of memory");
	pthread_mutex_init(&dev.lock, NULL);
	dev.bdev = (struct lsm_bdev){ .ops = &ov_ops, .nr_blocks = dev_blocks,
				      .name = "crash-replay" };
	walk();
	if (cnt.dumps != ndumps)
		fail("%llu kernel dumps judged, %llu in %s: some name no replay point",
		     (unsigned long long)cnt.dumps,
		     (unsigned long long)ndumps, dumps_dir);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("crash_check: ok: %llu log entries (%llu writes, %.1f MiB; %llu flushes, %llu FUA, %llu marks); %llu replay points judged in %llu recoveries (%llu before the format), %llu reopened; %llu torn/subset variants; %llu kernel dumps; %llu batches moved by the flush trace (%llu kept behind a flush mapped first; %llu writes of them in an order it cannot tell); %llu operations, %llu writes, %llu durability acknowledgments covering %llu writes, 0 lost; up to %llu runs recovered; %.1f s (seed %llu)\n",
	       (unsigned long long)cnt.entries, (unsigned long long)cnt.writes,
	       cnt.write_bytes / 1048576.0, (unsigned long long)cnt.flushes,
	       (unsigned long long)cnt.fuas, (unsigned long long)cnt.marks,
	       (unsigned long long)cnt.points,
	       (unsigned long long)(cnt.opened + cnt.unformatted -
				    cnt.variants),
	       (unsigned long long)cnt.unformatted,
	       (unsigned long long)cnt.reopened,
	       (unsigned long long)cnt.variants,
	       (unsigned long long)cnt.dumps, (unsigned long long)ix.moved,
	       (unsigned long long)ix.kept,
	       (unsigned long long)ix.ambiguous,
	       (unsigned long long)njops,
	       (unsigned long long)max_seq,
	       (unsigned long long)durable_acks,
	       (unsigned long long)durable_writes,
	       (unsigned long long)cnt.max_runs,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       (unsigned long long)seed);
	lw_index_free(&ix);
	lw_close(&lw);
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	return 0;
}
