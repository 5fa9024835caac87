// SPDX-License-Identifier: GPL-2.0
/*
 * The dm-log-writes reader (logwrites.h) on logs written here, byte by
 * byte as the kernel's target lays them out: entries, data and marks
 * read back; damaged logs refused; and the replay order with a flush
 * trace, including the overlap seen in the store's crash test (a
 * PREFLUSH write issued before an empty flush that completed first:
 * the writes logged with the PREFLUSH move ahead of the empty flush),
 * and a reused block's writes kept in order under a slow flush.
 *
 *   test_logwrites        exits 0, or 1 naming the first failure
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "logwrites.h"

#define FAIL(fmt, ...) do {						\
	fprintf(stderr, "test_logwrites: FAIL: " fmt "\n", ##__VA_ARGS__);\
	exit(1);							\
} while (0)

/* A log being built: slots of 512 bytes. */
struct blog {
	unsigned char *b;
	size_t len;
	uint64_t nr;
};

static void put64(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static unsigned char *slot(struct blog *l)
{
	l->b = realloc(l->b, l->len + 512);
	if (!l->b)
		FAIL("out of memory");
	memset(l->b + l->len, 0, 512);
	l->len += 512;
	return l->b + l->len - 512;
}

static void begin(struct blog *l)
{
	memset(l, 0, sizeof(*l));
	slot(l);
}

/* An entry; @fill gives the data's bytes (the sector number plus @fill). */
static void entry(struct blog *l, uint64_t sector, uint64_t nr, uint64_t flags,
		  const char *label, int fill)
{
	unsigned char *h = slot(l);

	put64(h, sector);
	put64(h + 8, nr);
	put64(h + 16, flags);
	put64(h + 24, label ? strlen(label) : 0);
	if (label)
		memcpy(h + 32, label, strlen(label));
	if (!(flags & LW_DISCARD))
		for (uint64_t s = 0; s < nr; s++)
			memset(slot(l), (int)(sector + s + fill), 512);
	l->nr++;
}

/* Write the log, with @nr_entries in its superblock, to a temporary file. */
static char *finish(struct blog *l, uint64_t nr_entries, uint64_t magic)
{
	static char path[] = "/tmp/test_logwrites.XXXXXX";
	char *p = strdup(path);
	int fd = mkstemp(p);

	put64(l->b, magic);
	put64(l->b + 8, LW_VERSION);
	put64(l->b + 16, nr_entries);
	l->b[24] = 0;
	l->b[25] = 2;		/* 512, little-endian u32 */
	if (fd < 0 || write(fd, l->b, l->len) != (ssize_t)l->len)
		FAIL("writing %s", p);
	close(fd);
	free(l->b);
	return p;
}

static char *write_file(const char *text)
{
	char *p = strdup("/tmp/test_logwrites_trace.XXXXXX");
	int fd = mkstemp(p);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		FAIL("writing %s", p);
	close(fd);
	return p;
}

/* Entries, data and labels come back as written; bad logs are refused. */
static void test_read(void)
{
	struct blog l;
	struct lw_log log;
	struct lw_entry e;
	unsigned char data[1024];
	char *path;

	begin(&l);
	entry(&l, 16, 2, 0, NULL, 1);
	entry(&l, 0, 0, LW_FLUSH, NULL, 0);
	entry(&l, 0, 0, LW_MARK, "o1", 0);
	entry(&l, 40, 8, LW_DISCARD, NULL, 0);
	entry(&l, 8, 1, LW_FUA | LW_METADATA, NULL, 5);
	entry(&l, 0, 0, LW_MARK, LW_END_MARK, 0);
	path = finish(&l, l.nr, LW_MAGIC);
	if (lw_open(&log, path))
		FAIL("a good log refused");
	if (lw_next(&log, &e) != 1 || e.index != 0 || e.sector != 16 ||
	    e.nr_sectors != 2 || e.flags || !lw_has_data(&e))
		FAIL("entry 0 read wrong");
	if (lw_read_data(&log, &e, data) || data[0] != 17 || data[511] != 17 ||
	    data[512] != 18)
		FAIL("entry 0's data read wrong");
	if (lw_next(&log, &e) != 1 || e.flags != LW_FLUSH || lw_has_data(&e))
		FAIL("entry 1 read wrong");
	if (lw_next(&log, &e) != 1 || !(e.flags & LW_MARK) ||
	    strcmp(e.label, "o1"))
		FAIL("the mark read wrong: '%s'", e.label);
	if (lw_next(&log, &e) != 1 || !(e.flags & LW_DISCARD) ||
	    e.nr_sectors != 8 || lw_has_data(&e))
		FAIL("the discard read wrong");
	/* A discard has no data in the log: the next entry follows at once. */
	if (lw_next(&log, &e) != 1 || e.sector != 8 ||
	    lw_read_data(&log, &e, data) || data[0] != 13)
		FAIL("the entry after a discard read wrong");
	if (lw_next(&log, &e) != 1 || strcmp(e.label, LW_END_MARK) ||
	    lw_next(&log, &e) != 0)
		FAIL("the end read wrong");
	lw_close(&log);
	unlink(path);
	free(path);

	/* A bad magic; an entry count past the log's end; unknown flags. */
	begin(&l);
	entry(&l, 0, 0, LW_FLUSH, NULL, 0);
	path = finish(&l, 1, LW_MAGIC + 1);
	if (lw_open(&log, path) != -EINVAL)
		FAIL("a bad magic not refused");
	unlink(path);
	free(path);
	begin(&l);
	entry(&l, 0, 4, 0, NULL, 0);
	path = finish(&l, 2, LW_MAGIC);
	if (lw_open(&log, path) || lw_next(&log, &e) != 1 ||
	    lw_next(&log, &e) != -EUCLEAN)
		FAIL("an entry past the end not refused");
	lw_close(&log);
	unlink(path);
	free(path);
	begin(&l);
	entry(&l, 0, 0, 1 << 7, NULL, 0);
	path = finish(&l, 1, LW_MAGIC);
	if (lw_open(&log, path) || lw_next(&log, &e) != -EUCLEAN)
		FAIL("unknown flags not refused");
	lw_close(&log);
	unlink(path);
	free(path);
}

/* Replay order of @log with @trace (NULL: none); @want its indices. */
static void check_order(const char *what, const char *logpath,
			const char *trace, int want_err,
			const uint64_t *want, uint64_t n, uint64_t moved)
{
	struct lw_log log;
	struct lw_index ix;
	char *tpath = trace ? write_file(trace) : NULL;
	int err;

	if (lw_open(&log, logpath) || lw_index_load(&log, &ix))
		FAIL("%s: the log not read", what);
	err = tpath ? lw_index_reorder(&ix, tpath) : 0;
	if (err != want_err)
		FAIL("%s: reorder said %d, not %d", what, err, want_err);
	if (!err) {
		if (ix.n != n || ix.moved != moved)
			FAIL("%s: %llu entries, %llu moved; want %llu, %llu", what,
			     (unsigned long long)ix.n,
			     (unsigned long long)ix.moved,
			     (unsigned long long)n, (unsigned long long)moved);
		for (uint64_t i = 0; i < n; i++)
			if (ix.order[i] != want[i])
				FAIL("%s: position %llu holds entry %llu, not %llu",
				     what, (unsigned long long)i,
				     (unsigned long long)ix.order[i],
				     (unsigned long long)want[i]);
	}
	lw_index_free(&ix);
	lw_close(&log);
	if (tpath) {
		unlink(tpath);
		free(tpath);
	}
}

/* The counts of @log's reorder by @trace, which must be read. */
static void check_counts(const char *what, const char *logpath,
			 const char *trace, uint64_t moved, uint64_t kept,
			 uint64_t ambiguous)
{
	struct lw_log log;
	struct lw_index ix;
	char *tpath = write_file(trace);

	if (lw_open(&log, logpath) || lw_index_load(&log, &ix) ||
	    lw_index_reorder(&ix, tpath))
		FAIL("%s: not read", what);
	if (ix.moved != moved || ix.kept != kept || ix.ambiguous != ambiguous)
		FAIL("%s: %llu moved, %llu kept, %llu ambiguous; want %llu, %llu, %llu",
		     what, (unsigned long long)ix.moved,
		     (unsigned long long)ix.kept,
		     (unsigned long long)ix.ambiguous,
		     (unsigned long long)moved, (unsigned long long)kept,
		     (unsigned long long)ambiguous);
	lw_index_free(&ix);
	lw_close(&log);
	unlink(tpath);
	free(tpath);
}

#define Q(t, kind, rest) \
	"  w-1 [000] ..... " t ": block_bio_" kind ": 253,0 " rest " [w]\n"

/* A flush's remap to the disk below, as device-mapper traces it. */
#define R(t, rest, sector) \
	"  w-1 [000] ..... " t ": block_bio_remap: 254,0 " rest " <- (253,0) " sector "\n"

/*
 * A log block rewritten, as a run's, while a slow sync was in flight.
 * A manifest edit M (a PREFLUSH write at 304) that drops the log
 * segment is queued; the sync's empty flush G, queued just after,
 * reaches the target first and takes write 1 (sector 64, the segment's
 * last block).  M completes, the segment's space goes to a new run,
 * whose write 2 at sector 64 completes before the edit recording the
 * run, F (a PREFLUSH write at 312), is queued and takes it.  G completes
 * only then: logged after M and before F, after F was queued.  F's batch
 * must not move ahead of G's, which G's remap shows the target took
 * before F was even queued: write 1 replayed over write 2 is the log
 * block where the run's value block is (the check-crash failure this
 * reproduces).  G's batch moves ahead of M instead, which was remapped
 * after G was queued.  Without remaps in the trace (an older trace),
 * which was mapped first is unknown: the batch moves, and the reorder
 * says so.
 */
static void test_order_reused(void)
{
	static const uint64_t fixed[] = { 2, 0, 1, 3, 4, 5, 6, 7, 8 };
	static const uint64_t moved[] = { 2, 0, 1, 5, 3, 4, 6, 7, 8 };
	static const uint64_t by_queue[] = { 0, 1, 5, 2, 3, 4, 6, 7, 8 };
	struct blog l;
	char *path;

	begin(&l);
	entry(&l, 304, 0, LW_FLUSH | LW_FUA | LW_METADATA, NULL, 0); /* 0: M */
	entry(&l, 304, 8, LW_FUA | LW_METADATA, NULL, 0);	/* 1 */
	entry(&l, 64, 8, LW_METADATA, NULL, 0);			/* 2: write 1 */
	entry(&l, 0, 0, LW_FLUSH, NULL, 0);			/* 3: G */
	entry(&l, 0, 0, LW_MARK, "o1", 0);			/* 4 */
	entry(&l, 64, 8, LW_METADATA, NULL, 0);			/* 5: write 2 */
	entry(&l, 312, 0, LW_FLUSH | LW_FUA | LW_METADATA, NULL, 0); /* 6: F */
	entry(&l, 312, 8, LW_FUA | LW_METADATA, NULL, 0);	/* 7 */
	entry(&l, 0, 0, LW_MARK, LW_END_MARK, 0);		/* 8 */
	path = finish(&l, l.nr, LW_MAGIC);
#define M_REMAP R("3.000004", "FWFSM 304 + 0", "304")
#define REUSED(g_remap, f_remap) REUSED_M(g_remap, M_REMAP, f_remap)
#define REUSED_M(g_remap, m_remap, f_remap) \
	Q("3.000001", "queue", "FWFSM 304 + 8")				\
	Q("3.000002", "queue", "FWS 0 + 0") g_remap m_remap		\
	Q("3.000005", "complete", "WFSM 304 + 8")			\
	Q("3.000006", "queue", "FWFSM 312 + 8") f_remap			\
	Q("3.000008", "complete", "FWS 0 + 0")				\
	Q("3.000009", "complete", "WFSM 312 + 8")
	check_order("a block reused under a slow flush", path,
		    REUSED(R("3.000003", "FWS 0 + 0", "0"),
			   R("3.000007", "FWFSM 312 + 0", "312")),
		    0, fixed, 9, 1);
	check_counts("a block reused under a slow flush", path,
		     REUSED(R("3.000003", "FWS 0 + 0", "0"), ""), 1, 1, 0);
	/*
	 * No remap of G: either of G and F may have been mapped first, but
	 * G's batch moves ahead of M (remapped after G was queued), so the
	 * two writes stay in order all the same.
	 */
	check_order("a slow flush not remapped", path,
		    REUSED("", R("3.000007", "FWFSM 312 + 0", "312")),
		    0, moved, 9, 2);
	/* No remaps at all (an older trace): the inversion, said. */
	check_order("a trace without remaps", path, REUSED_M("", "", ""),
		    0, by_queue, 9, 1);
	check_counts("a trace without remaps", path, REUSED_M("", "", ""),
		     1, 0, 1);
	unlink(path);
	free(path);

	/*
	 * The same without M: a sector written in G's batch and again in
	 * F's, G remapped before F was queued, completing after.  Only G's
	 * remap keeps F's batch, the newer write, behind G's.
	 */
	begin(&l);
	entry(&l, 64, 8, LW_METADATA, NULL, 0);			/* 0: write 1 */
	entry(&l, 0, 0, LW_FLUSH, NULL, 0);			/* 1: G */
	entry(&l, 0, 0, LW_MARK, "o1", 0);			/* 2 */
	entry(&l, 64, 8, LW_METADATA, NULL, 0);			/* 3: write 2 */
	entry(&l, 312, 0, LW_FLUSH | LW_FUA | LW_METADATA, NULL, 0); /* 4: F */
	entry(&l, 312, 8, LW_FUA | LW_METADATA, NULL, 0);	/* 5 */
	entry(&l, 0, 0, LW_MARK, LW_END_MARK, 0);		/* 6 */
	path = finish(&l, l.nr, LW_MAGIC);
	{
		static const uint64_t in_order[] = { 0, 1, 2, 3, 4, 5, 6 };

		check_order("a rewrite behind a flush mapped first", path,
			    Q("5.000001", "queue", "FWS 0 + 0")
			    R("5.000002", "FWS 0 + 0", "0")
			    Q("5.000003", "queue", "FWFSM 312 + 8")
			    R("5.000004", "FWFSM 312 + 0", "312")
			    Q("5.000005", "complete", "FWS 0 + 0")
			    Q("5.000006", "complete", "WFSM 312 + 8"),
			    0, in_order, 7, 0);
	}
	unlink(path);
	free(path);

	/*
	 * A FUA write jumped: G (empty) is taken first, then a FUA write f
	 * and a plain write w to the same sector complete, w the newer;
	 * J (a PREFLUSH write queued before G completed, held up) takes w.
	 * Nothing tells which of G and J the target mapped first, so J's
	 * batch moves ahead of G's and f lands over w: said, not silent.
	 */
	begin(&l);
	entry(&l, 0, 0, LW_FLUSH, NULL, 0);			/* 0: G */
	entry(&l, 64, 8, LW_FUA | LW_METADATA, NULL, 0);	/* 1: f */
	entry(&l, 64, 8, LW_METADATA, NULL, 0);			/* 2: w */
	entry(&l, 312, 0, LW_FLUSH | LW_FUA | LW_METADATA, NULL, 0); /* 3: J */
	entry(&l, 312, 8, LW_FUA | LW_METADATA, NULL, 0);	/* 4 */
	entry(&l, 0, 0, LW_MARK, LW_END_MARK, 0);		/* 5 */
	path = finish(&l, l.nr, LW_MAGIC);
	check_counts("a FUA write jumped", path,
		     Q("6.000001", "queue", "FWS 0 + 0")
			   Q("6.000002", "queue", "FWFSM 312 + 8")
			   R("6.000003", "FWS 0 + 0", "0")
			   Q("6.000004", "complete", "FWS 0 + 0")
			   Q("6.000005", "queue", "WFSM 64 + 8")
			   Q("6.000006", "complete", "WFSM 64 + 8")
			   R("6.000008", "FWFSM 312 + 0", "312")
			   Q("6.000009", "complete", "WFSM 312 + 8"),
		     1, 0, 1);
	check_order("a PREFLUSH write's flush remapped with data", path,
		    Q("6.000001", "queue", "FWS 0 + 0")
		    Q("6.000002", "queue", "FWFSM 312 + 8")
		    R("6.000003", "FWFSM 312 + 8", "312"),
		    -EINVAL, NULL, 0, 0);
	check_order("a remap of a flush not issued", path,
		    R("3.000000", "FWS 0 + 0", "0") REUSED("", ""),
		    -EINVAL, NULL, 0, 0);
#undef REUSED_M
#undef REUSED
#undef M_REMAP
	unlink(path);
	free(path);
}

/*
 * A run's blocks taken by a sync's empty flush F that the target mapped
 * before the manifest edit E recording the run, although E (a PREFLUSH
 * write, from the background work on the other CPU) was queued first and
 * completed first.  The run's write was durable when E completed, and
 * F's batch must move ahead of E: E's remap shows it was mapped after F
 * was queued.  By E's queueing alone it stays behind E, and the replay
 * at E has the run recorded without its blocks.
 */
static void test_order_held_edit(void)
{
	static const uint64_t fixed[] = { 2, 0, 1, 3, 4, 5 };
	static const uint64_t as_logged[] = { 0, 1, 2, 3, 4, 5 };
	struct blog l;
	char *path;

	begin(&l);
	entry(&l, 304, 0, LW_FLUSH | LW_FUA | LW_METADATA, NULL, 0); /* 0: E */
	entry(&l, 304, 8, LW_FUA | LW_METADATA, NULL, 0);	/* 1 */
	entry(&l, 1032, 8, LW_METADATA, NULL, 0);		/* 2: the run */
	entry(&l, 0, 0, LW_FLUSH, NULL, 0);			/* 3: F */
	entry(&l, 0, 0, LW_MARK, "o1", 0);			/* 4 */
	entry(&l, 0, 0, LW_MARK, LW_END_MARK, 0);		/* 5 */
	path = finish(&l, l.nr, LW_MAGIC);
#define HELD(e_remap) \
	Q("4.000001", "queue", "FWFSM 304 + 8")				\
	Q("4.000002", "queue", "FWS 0 + 0")				\
	R("4.000003", "FWS 0 + 0", "0") e_remap				\
	Q("4.000005", "complete", "WFSM 304 + 8")			\
	Q("4.000006", "complete", "FWS 0 + 0")
	check_order("an edit queued first, mapped second", path,
		    HELD(R("4.000004", "FWFSM 304 + 0", "304")), 0, fixed, 6, 1);
	check_order("an edit queued first, not remapped", path,
		    HELD(""), 0, as_logged, 6, 0);
#undef HELD
	unlink(path);
	free(path);
}

static void test_order(void)
{
	/*
	 * The overlap: a PREFLUSH write at sector 4776 is issued (its empty
	 * flush takes writes 1 and 2, completed before), then a write 3
	 * completes and an empty flush is issued (taking write 3) and
	 * completes first; the mark o1 follows it; then the PREFLUSH's
	 * flush completes and its FUA data is logged.
	 */
	static const uint64_t fixed[] = { 3, 4, 0, 1, 2, 5, 6, 7 };
	static const uint64_t as_logged[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	const char *overlap =
		Q("1.000001", "queue", "FWFSM 4776 + 8")
		Q("1.000002", "queue", "FWS 0 + 0")
		Q("1.000003", "complete", "FWS 0 + 0")
		Q("1.000004", "complete", "WFSM 4776 + 8");
	/* A FUA write without PREFLUSH in flight meanwhile changes nothing. */
	const char *in_order =
		Q("1.000001", "queue", "FWS 0 + 0")
		Q("1.000002", "queue", "WFSM 96 + 8")
		Q("1.000003", "complete", "FWS 0 + 0")
		Q("1.000004", "queue", "FWFSM 4776 + 8")
		Q("1.000005", "complete", "WFSM 96 + 8")
		Q("1.000006", "complete", "WFSM 4776 + 8");
	struct blog l;
	char *path;

	begin(&l);
	entry(&l, 80, 8, LW_METADATA, NULL, 0);			/* 0: write 3 */
	entry(&l, 0, 0, LW_FLUSH, NULL, 0);			/* 1: empty flush */
	entry(&l, 0, 0, LW_MARK, "o1", 0);			/* 2 */
	entry(&l, 64, 8, LW_METADATA, NULL, 0);			/* 3: write 1 */
	entry(&l, 72, 8, LW_METADATA, NULL, 0);			/* 4: write 2 */
	entry(&l, 4776, 0, LW_FLUSH | LW_FUA | LW_METADATA, NULL, 0); /* 5 */
	entry(&l, 4776, 8, LW_FUA | LW_METADATA, NULL, 0);	/* 6 */
	entry(&l, 0, 0, LW_MARK, LW_END_MARK, 0);		/* 7 */
	path = finish(&l, l.nr, LW_MAGIC);

	check_order("no trace", path, NULL, 0, as_logged, 8, 0);
	check_order("overlapping flushes", path, overlap, 0, fixed, 8, 1);
	/* Issued in the order they completed: nothing moves. */
	check_order("flushes in order", path, in_order, 0, as_logged, 8, 0);
	/* Traces that do not fit the log are refused. */
	check_order("a flush missing from the trace", path,
		    Q("1.1", "queue", "FWS 0 + 0") Q("1.2", "complete", "FWS 0 + 0"),
		    -EINVAL, NULL, 0, 0);
	check_order("a PREFLUSH write at another sector", path,
		    Q("1.1", "queue", "FWFSM 4784 + 8")
		    Q("1.2", "queue", "FWS 0 + 0")
		    Q("1.3", "complete", "FWS 0 + 0")
		    Q("1.4", "complete", "WFSM 4784 + 8"),
		    -EINVAL, NULL, 0, 0);
	check_order("a write completing that was not issued", path,
		    Q("1.1", "queue", "FWS 0 + 0")
		    Q("1.2", "complete", "FWS 0 + 0")
		    Q("1.3", "queue", "FWFSM 4776 + 8")
		    Q("1.4", "complete", "WFSM 96 + 8"),
		    -EINVAL, NULL, 0, 0);
	check_order("two empty flushes in flight", path,
		    Q("1.1", "queue", "FWS 0 + 0") Q("1.2", "queue", "FWS 0 + 0")
		    Q("1.3", "complete", "FWS 0 + 0")
		    Q("1.4", "complete", "FWS 0 + 0"),
		    -EINVAL, NULL, 0, 0);
	check_order("a flush that never completes", path,
		    Q("1.1", "queue", "FWS 0 + 0")
		    Q("1.3", "queue", "FWFSM 4776 + 8")
		    Q("1.4", "complete", "WFSM 4776 + 8"),
		    -EINVAL, NULL, 0, 0);
	unlink(path);
	free(path);

	/*
	 * Seen on 6.1: the sync's empty flush is queued first, but the
	 * PREFLUSH write, queued just after, reaches the target first and
	 * takes writes 1 and 2; the empty flush takes nothing, completes
	 * first and is logged first.  The batch moves ahead of it all the
	 * same: it had completed before the empty flush completed.
	 */
	begin(&l);
	entry(&l, 0, 0, LW_FLUSH, NULL, 0);			/* 0: empty flush */
	entry(&l, 0, 0, LW_MARK, "o1", 0);			/* 1 */
	entry(&l, 64, 8, LW_METADATA, NULL, 0);			/* 2: write 1 */
	entry(&l, 72, 8, LW_METADATA, NULL, 0);			/* 3: write 2 */
	entry(&l, 304, 0, LW_FLUSH | LW_FUA | LW_METADATA, NULL, 0); /* 4 */
	entry(&l, 304, 8, LW_FUA | LW_METADATA, NULL, 0);	/* 5 */
	entry(&l, 0, 0, LW_MARK, LW_END_MARK, 0);		/* 6 */
	path = finish(&l, l.nr, LW_MAGIC);
	{
		static const uint64_t want[] = { 2, 3, 0, 1, 4, 5, 6 };

		check_order("queued first, mapped second", path,
			    Q("73.357423", "queue", "FWS 0 + 0")
			    Q("73.357748", "queue", "FWFSM 304 + 8")
			    Q("73.358924", "complete", "FWS 0 + 0")
			    Q("73.361246", "complete", "WFSM 304 + 8"),
			    0, want, 7, 1);
	}
	unlink(path);
	free(path);

	/*
	 * Seen on 6.1 in check-crash-long: a merge's manifest edit (a
	 * PREFLUSH write, queued before mark o1) has its flush logged
	 * before the mark, but its data completes only after the next
	 * operation's write and sync.  The log took the PREFLUSH entry
	 * before o1, so the sync's batch stays behind o1: timed at the
	 * data's completion, it moved ahead of the mark, a write of an
	 * operation not yet begun.
	 */
	begin(&l);
	entry(&l, 304, 0, LW_FLUSH | LW_FUA | LW_METADATA, NULL, 0); /* 0 */
	entry(&l, 304, 8, LW_FUA | LW_METADATA, NULL, 0);	/* 1 */
	entry(&l, 0, 0, LW_MARK, "o1", 0);			/* 2 */
	entry(&l, 64, 8, LW_METADATA, NULL, 0);			/* 3: op 2 */
	entry(&l, 0, 0, LW_FLUSH, NULL, 0);			/* 4: its sync */
	entry(&l, 0, 0, LW_MARK, "o2", 0);			/* 5 */
	entry(&l, 0, 0, LW_MARK, LW_END_MARK, 0);		/* 6 */
	path = finish(&l, l.nr, LW_MAGIC);
	check_order("a PREFLUSH write's data completing late", path,
		    Q("2.000001", "queue", "FWFSM 304 + 8")
		    Q("2.000003", "queue", "FWS 0 + 0")
		    Q("2.000004", "complete", "FWS 0 + 0")
		    Q("2.000005", "complete", "WFSM 304 + 8"),
		    0, as_logged, 7, 0);
	unlink(path);
	free(path);
	test_order_reused();
	test_order_held_edit();
}

int main(void)
{
	test_read();
	test_order();
	printf("test_logwrites: ok: reading, damaged logs, replay order with and without overlapping flushes\n");
	return 0;
}
