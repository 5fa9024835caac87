// SPDX-License-Identifier: GPL-2.0
/*
 * The dm-log-writes log reader (logwrites.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "logwrites.h"

/* Heads are read ahead in chunks of this many bytes. */
#define LW_READAHEAD	(1 << 20)

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static int read_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				  (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -ENODATA;
		done += n;
	}
	return 0;
}

/* @len bytes at @off of the log into @dst, through the read-ahead buffer. */
static int lw_read(struct lw_log *log, uint64_t off, size_t len, void *dst)
{
	int err;

	if (off + len > log->size || off + len < off)
		return -ENODATA;
	if (len > LW_READAHEAD / 2)
		return read_full(log->fd, dst, len, off);
	if (off < log->buf_off || off + len > log->buf_off + log->buf_len) {
		size_t want = LW_READAHEAD;

		if (want > log->size - off)
			want = log->size - off;
		err = read_full(log->fd, log->buf, want, off);
		if (err)
			return err;
		log->buf_off = off;
		log->buf_len = want;
	}
	memcpy(dst, log->buf + (off - log->buf_off), len);
	return 0;
}

int lw_open(struct lw_log *log, const char *path)
{
	unsigned char sb[32];
	struct stat st;
	uint64_t magic, version;
	int err;

	memset(log, 0, sizeof(*log));
	log->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (log->fd < 0) {
		err = -errno;
		fprintf(stderr, "lw: %s: %s\n", path, strerror(errno));
		return err;
	}
	if (fstat(log->fd, &st)) {
		err = -errno;
		goto fail;
	}
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(log->fd, BLKGETSIZE64, &log->size)) {
			err = -errno;
			goto fail;
		}
	} else {
		log->size = st.st_size;
	}
	log->buf = malloc(LW_READAHEAD);
	if (!log->buf) {
		err = -ENOMEM;
		goto fail;
	}
	err = read_full(log->fd, sb, sizeof(sb), 0);
	if (err) {
		fprintf(stderr, "lw: %s: cannot read the log superblock\n", path);
		goto fail;
	}
	magic = get64(sb);
	version = get64(sb + 8);
	log->nr_entries = get64(sb + 16);
	log->sectorsize = get32(sb + 24);
	err = -EINVAL;
	if (magic != LW_MAGIC) {
		fprintf(stderr, "lw: %s: not a dm-log-writes log (magic %#llx)\n",
			path, (unsigned long long)magic);
		goto fail;
	}
	if (version != LW_VERSION) {
		fprintf(stderr, "lw: %s: log version %llu, only %d is known\n",
			path, (unsigned long long)version, LW_VERSION);
		goto fail;
	}
	if (log->sectorsize < 512 || log->sectorsize > 65536 ||
	    (log->sectorsize & (log->sectorsize - 1))) {
		fprintf(stderr, "lw: %s: sector size %u out of range\n", path,
			log->sectorsize);
		goto fail;
	}
	lw_rewind(log);
	return 0;
fail:
	free(log->buf);
	close(log->fd);
	log->fd = -1;
	return err;
}

void lw_close(struct lw_log *log)
{
	if (log->fd >= 0)
		close(log->fd);
	free(log->buf);
	log->fd = -1;
	log->buf = NULL;
}

void lw_rewind(struct lw_log *log)
{
	log->next = 0;
	log->pos = log->sectorsize;
}

int lw_next(struct lw_log *log, struct lw_entry *e)
{
	unsigned char head[32];
	uint64_t data_len, scale = log->sectorsize / 512;
	int err;

	if (log->next >= log->nr_entries)
		return 0;
	err = lw_read(log, log->pos, sizeof(head), head);
	if (err) {
		fprintf(stderr, "lw: entry %llu: its head at byte %llu is past the end of the log\n",
			(unsigned long long)log->next,
			(unsigned long long)log->pos);
		return -EUCLEAN;
	}
	memset(e, 0, sizeof(*e));
	e->index = log->next;
	e->sector = get64(head) * scale;
	e->nr_sectors = get64(head + 8) * scale;
	e->flags = get64(head + 16);
	data_len = get64(head + 24);
	e->data_off = log->pos + log->sectorsize;
	if (e->flags & ~(uint64_t)LW_KNOWN_FLAGS) {
		fprintf(stderr, "lw: entry %llu: unknown flags %#llx\n",
			(unsigned long long)e->index,
			(unsigned long long)e->flags);
		return -EUCLEAN;
	}
	if (e->flags & LW_MARK) {
		if (data_len >= log->sectorsize - sizeof(head) ||
		    data_len >= LW_LABEL_MAX || e->nr_sectors) {
			fprintf(stderr, "lw: entry %llu: a mark of %llu bytes and %llu sectors\n",
				(unsigned long long)e->index,
				(unsigned long long)data_len,
				(unsigned long long)e->nr_sectors);
			return -EUCLEAN;
		}
		err = lw_read(log, log->pos + sizeof(head), data_len, e->label);
		if (err)
			return -EUCLEAN;
		e->label[data_len] = 0;
	} else if (data_len) {
		/* The target writes inline data only for marks. */
		fprintf(stderr, "lw: entry %llu: %llu bytes of inline data on a non-mark\n",
			(unsigned long long)e->index,
			(unsigned long long)data_len);
		return -EUCLEAN;
	}
	log->pos = e->data_off;
	if (!(e->flags & LW_DISCARD))
		log->pos += e->nr_sectors * 512;
	if (log->pos > log->size) {
		fprintf(stderr, "lw: entry %llu: its data runs past the end of the log\n",
			(unsigned long long)e->index);
		return -EUCLEAN;
	}
	log->next++;
	return 1;
}

int lw_read_data(struct lw_log *log, const struct lw_entry *e, void *buf)
{
	return lw_read(log, e->data_off, e->nr_sectors * 512, buf);
}

const char *lw_flag_names(uint64_t flags, char *buf, size_t len)
{
	static const char *const names[] = {
		"FLUSH", "FUA", "DISCARD", "MARK", "METADATA",
	};
	size_t at = 0;

	buf[0] = 0;
	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & (1ULL << i))
			at += snprintf(buf + at, at < len ? len - at : 0, "%s%s",
				       at ? "|" : "", names[i]);
	if (!at)
		snprintf(buf, len, "WRITE");
	return buf;
}

int lw_index_load(struct lw_log *log, struct lw_index *ix)
{
	uint64_t cap = 0;
	int err;

	memset(ix, 0, sizeof(*ix));
	lw_rewind(log);
	for (;;) {
		if (ix->n == cap) {
			struct lw_entry *e;

			cap = cap ? 2 * cap : 1024;
			e = realloc(ix->e, cap * sizeof(*e));
			if (!e) {
				err = -ENOMEM;
				goto fail;
			}
			ix->e = e;
		}
		err = lw_next(log, &ix->e[ix->n]);
		if (err < 0)
			goto fail;
		if (!err)
			break;
		ix->n++;
	}
	ix->order = malloc((ix->n ? ix->n : 1) * sizeof(*ix->order));
	if (!ix->order) {
		err = -ENOMEM;
		goto fail;
	}
	for (uint64_t i = 0; i < ix->n; i++)
		ix->order[i] = i;
	lw_rewind(log);
	return 0;
fail:
	lw_index_free(ix);
	return err;
}

void lw_index_free(struct lw_index *ix)
{
	free(ix->e);
	free(ix->order);
	memset(ix, 0, sizeof(*ix));
}

/*
 * A flush of the trace: its kind (0 empty, 1 PREFLUSH write), sector,
 * and when it was queued and completed (microseconds of the trace clock).
 */
/*
 * A flush of the trace: when it was queued, when device-mapper had
 * mapped it (its remap to the disk below, UINT64_MAX where the trace
 * does not have it), and when it completed, in us.
 */
struct lw_tflush {
	int kind;
	uint64_t sector;
	uint64_t queued, mapped, completed;
};

/* The kind of a FLUSH entry of the log: 0 an empty flush, 1 a PREFLUSH write. */
static int lw_flush_kind(const struct lw_entry *e)
{
	return (e->flags & (LW_FUA | LW_METADATA)) || e->sector || e->nr_sectors;
}

/* The timestamp of a trace line, "... 73.357748: block_bio_...", in us. */
static bool lw_trace_time(const char *line, const char *event, uint64_t *us)
{
	const char *p = event;
	unsigned long long sec, usec;

	/* Back over ": " to the start of the number. */
	if (p - line < 3)
		return false;
	p -= 2;
	while (p > line && p[-1] != ' ')
		p--;
	if (sscanf(p, "%llu.%6llu:", &sec, &usec) != 2)
		return false;
	*us = sec * 1000000 + usec;
	return true;
}

/*
 * The flushes of the trace at @path in the order they were queued, into
 * *@out; each kind's must not overlap.  0 or -EINVAL with a message.
 */
static int lw_read_trace(const char *path, struct lw_tflush **out, uint64_t *nout)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t lcap = 0;
	uint64_t n = 0, cap = 0, lineno = 0;
	uint64_t fua[64], nfua = 0, i, busy[2] = { 0, 0 };
	int err = 0;

	if (!f) {
		fprintf(stderr, "lw: %s: %s\n", path, strerror(errno));
		return -EINVAL;
	}
	*out = NULL;
	while (getline(&line, &lcap, f) > 0) {
		char rwbs[16];
		unsigned long long sector, nr;
		uint64_t us;
		bool queue;
		char *p, *ev, *remap = NULL;
		int kind;

		lineno++;
		if (line[0] == '#')
			continue;
		ev = strstr(line, "block_bio_queue: ");
		queue = ev;
		if (!ev)
			ev = strstr(line, "block_bio_complete: ");
		if (!ev) {
			remap = strstr(line, "block_bio_remap: ");
			ev = remap;
		}
		if (!ev)
			continue;
		p = strchr(ev, ':') + 1;
		if (sscanf(p, " %*u,%*u %15s %llu + %llu", rwbs, &sector, &nr) != 3 ||
		    !lw_trace_time(line, ev, &us)) {
			fprintf(stderr, "lw: %s:%llu: not a block event of the trace's form\n",
				path, (unsigned long long)lineno);
			err = -EINVAL;
			break;
		}
		/*
		 * A flush's remap to the disk below ("254,0 FWS 0 + 0 <-
		 * (253,0) 0", or "FWFSM 8 + 0" for a PREFLUSH write's flush)
		 * comes just after the target mapped it, which is when it
		 * took its batch.  The writes' own remaps ("WFSM 8 + 8") are
		 * not flushes.
		 */
		if (remap) {
			if (rwbs[0] != 'F')
				continue;
			kind = !!strchr(rwbs + 1, 'F');
			if (!busy[kind] ||
			    (kind && (nr || (*out)[busy[kind] - 1].sector != sector))) {
				fprintf(stderr, "lw: %s:%llu: a flush is remapped that was not issued\n",
					path, (unsigned long long)lineno);
				err = -EINVAL;
				break;
			}
			if ((*out)[busy[kind] - 1].mapped == UINT64_MAX)
				(*out)[busy[kind] - 1].mapped = us;
			continue;
		}
		/*
		 * "F..." is a PREFLUSH (empty, or with a write); a PREFLUSH
		 * write completes as "WF..." (its FUA), the block layer having
		 * dropped the PREFLUSH by then.  "WF..." issued is a FUA
		 * write without PREFLUSH: not a flush, but its completion
		 * must not be taken for a PREFLUSH write's.
		 */
		if (rwbs[0] == 'W' && strchr(rwbs, 'F') && nr) {
			if (queue) {
				if (nfua == sizeof(fua) / sizeof(fua[0])) {
					fprintf(stderr, "lw: %s:%llu: too many FUA writes in flight\n",
						path, (unsigned long long)lineno);
					err = -EINVAL;
					break;
				}
				fua[nfua++] = sector;
				continue;
			}
			if (busy[1] && (*out)[busy[1] - 1].sector == sector) {
				(*out)[busy[1] - 1].completed = us;
				busy[1] = 0;
				continue;
			}
			for (i = 0; i < nfua && fua[i] != sector; i++)
				;
			if (i == nfua) {
				fprintf(stderr, "lw: %s:%llu: a write completes that was not issued\n",
					path, (unsigned long long)lineno);
				err = -EINVAL;
				break;
			}
			fua[i] = fua[--nfua];
			continue;
		}
		if (rwbs[0] != 'F')
			continue;
		kind = nr > 0;
		if (!queue) {
			if (!busy[kind] || kind) {
				fprintf(stderr, "lw: %s:%llu: a flush completes that was not issued\n",
					path, (unsigned long long)lineno);
				err = -EINVAL;
				break;
			}
			(*out)[busy[kind] - 1].completed = us;
			busy[kind] = 0;
			continue;
		}
		if (busy[kind]) {
			fprintf(stderr, "lw: %s:%llu: two %s in flight at once: the log cannot be ordered\n",
				path, (unsigned long long)lineno,
				kind ? "PREFLUSH writes" : "empty flushes");
			err = -EINVAL;
			break;
		}
		if (n == cap) {
			struct lw_tflush *t;

			cap = cap ? 2 * cap : 1024;
			t = realloc(*out, cap * sizeof(*t));
			if (!t) {
				err = -ENOMEM;
				break;
			}
			*out = t;
		}
		(*out)[n++] = (struct lw_tflush){ kind, sector, us, UINT64_MAX,
						  UINT64_MAX };
		busy[kind] = n;
	}
	free(line);
	fclose(f);
	if (!err && (busy[0] || busy[1])) {
		fprintf(stderr, "lw: %s: a flush never completes\n", path);
		err = -EINVAL;
	}
	if (err) {
		free(*out);
		*out = NULL;
		return err;
	}
	*nout = n;
	return 0;
}

/* The first index of @pm (non-decreasing) whose value is >= @v. */
static uint64_t lw_first_at_least(const uint64_t *pm, uint64_t n, uint64_t v)
{
	uint64_t lo = 0, hi = n;

	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;

		if (pm[mid] >= v)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Moved batches: by the flush they move to, then by when theirs was queued. */
static const uint64_t *lw_sort_target, *lw_sort_queued;

static int cmp_moved(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	if (lw_sort_target[x] != lw_sort_target[y])
		return lw_sort_target[x] < lw_sort_target[y] ? -1 : 1;
	return lw_sort_queued[x] < lw_sort_queued[y] ? -1 :
	       lw_sort_queued[x] > lw_sort_queued[y];
}

static bool lw_plain_write(const struct lw_entry *e)
{
	return !(e->flags & (LW_FLUSH | LW_FUA | LW_MARK)) && e->nr_sectors;
}

/* A write of the device's contents: data (FUA or not) or a discard. */
static bool lw_device_write(const struct lw_entry *e)
{
	return !(e->flags & (LW_FLUSH | LW_MARK)) && e->nr_sectors;
}

static bool lw_overlap(const struct lw_entry *a, const struct lw_entry *b)
{
	return a->sector < b->sector + b->nr_sectors &&
	       b->sector < a->sector + a->nr_sectors;
}

/*
 * Flush @j's batch moved ahead of the entries logged from flush @g's
 * batch to its own.  Where one of those writes a sector of the batch and
 * is replayed after the batch's write (@pos: each entry's place in the
 * replay order), the two writes' order is the order the target mapped
 * the two flushes in.  When the trace shows @j mapped before @g
 * (@certain) that is the replay order; when it cannot tell, say so: the
 * replay shows the other write last, which may be the older one.
 * Returns how many such writes of the batch there are when not @certain.
 */
static uint64_t lw_batch_conflicts(const struct lw_index *ix,
				   const uint64_t *bstart, const uint64_t *fl,
				   const uint64_t *pos, uint64_t g, uint64_t j,
				   bool certain)
{
	uint64_t n = 0;

	if (certain)
		return 0;
	for (uint64_t w = bstart[j]; w < fl[j]; w++)
		for (uint64_t o = bstart[g]; o < bstart[j]; o++) {
			if (!lw_device_write(&ix->e[o]) || pos[o] < pos[w] ||
			    !lw_overlap(&ix->e[o], &ix->e[w]))
				continue;
			fprintf(stderr, "lw: entries %llu and %llu both write sector %llu, in batches of flushes (entries %llu and %llu) that overlapped, in an order the trace cannot tell: replayed with entry %llu last\n",
				(unsigned long long)o, (unsigned long long)w,
				(unsigned long long)ix->e[w].sector,
				(unsigned long long)fl[g],
				(unsigned long long)fl[j],
				(unsigned long long)o);
			n++;
			break;
		}
	return n;
}

int lw_index_reorder(struct lw_index *ix, const char *path)
{
	struct lw_tflush *t;
	uint64_t nt, nf = 0, seen[2] = { 0, 0 }, at[2] = { 0, 0 };
	uint64_t *fl = NULL, *queued = NULL, *mapped = NULL, *pm = NULL;
	uint64_t *target = NULL;
	uint64_t *bstart = NULL, *moved = NULL, *pos = NULL, nmoved, o = 0;
	int err;

	err = lw_read_trace(path, &t, &nt);
	if (err)
		return err;
	for (uint64_t i = 0; i < ix->n; i++)
		nf += !!(ix->e[i].flags & LW_FLUSH);
	err = -ENOMEM;
	fl = malloc((nf + 1) * sizeof(*fl));
	queued = malloc((nf + 1) * sizeof(*queued));
	mapped = malloc((nf + 1) * sizeof(*mapped));
	pm = malloc((nf + 1) * sizeof(*pm));
	target = malloc((nf + 1) * sizeof(*target));
	bstart = malloc((nf + 1) * sizeof(*bstart));
	moved = malloc((nf + 1) * sizeof(*moved));
	if (!fl || !queued || !mapped || !pm || !target || !bstart || !moved)
		goto out;

	/*
	 * Pair the log's FLUSH entries (completion order) with the trace's
	 * flushes, kind by kind: the n-th of a kind in one is the n-th of
	 * that kind in the other (the kinds never overlap, the trace showed).
	 */
	nf = 0;
	for (uint64_t i = 0; i < ix->n; i++) {
		const struct lw_entry *e = &ix->e[i];
		int kind;

		if (!(e->flags & LW_FLUSH))
			continue;
		kind = lw_flush_kind(e);
		while (at[kind] < nt && t[at[kind]].kind != kind)
			at[kind]++;
		if (at[kind] == nt ||
		    (kind && t[at[kind]].sector != e->sector)) {
			fprintf(stderr, "lw: %s: the log's flush entry %llu (the %llu-th %s) has no match in the trace\n",
				path, (unsigned long long)e->index,
				(unsigned long long)seen[kind] + 1,
				kind ? "PREFLUSH write" : "empty flush");
			err = -EINVAL;
			goto out;
		}
		queued[nf] = t[at[kind]].queued;
		mapped[nf] = t[at[kind]].mapped;
		/*
		 * When the log took the entry: an empty flush's completion;
		 * a PREFLUSH write's entry is its flush, which device-mapper
		 * sends ahead of the data and which completes before the
		 * write the trace times does (a manifest edit in the
		 * background can complete after the next operation's mark).
		 * Its remap (or, without one, its queueing) is the latest
		 * time known not to be late: the flush completes after it
		 * was passed on to the disk below.  The data's completion
		 * moved batches ahead of marks they followed, writes of an
		 * operation not yet begun; the queueing alone left behind
		 * it the batch of an empty flush queued after it but mapped
		 * before it (its writes durable when it completed).
		 */
		pm[nf] = t[at[kind]].completed;
		if (kind)
			pm[nf] = mapped[nf] != UINT64_MAX ? mapped[nf] : queued[nf];
		if (nf && pm[nf - 1] > pm[nf])
			pm[nf] = pm[nf - 1];
		at[kind]++;
		seen[kind]++;
		fl[nf] = i;
		/* Its batch: the plain writes logged right before it. */
		bstart[nf] = i;
		while (bstart[nf] > 0 && lw_plain_write(&ix->e[bstart[nf] - 1]))
			bstart[nf]--;
		nf++;
	}
	for (int k = 0; k < 2; k++) {
		uint64_t total = 0;

		for (uint64_t i = 0; i < nt; i++)
			total += t[i].kind == k;
		if (total != seen[k]) {
			fprintf(stderr, "lw: %s: %llu %s in the trace, %llu in the log\n",
				path, (unsigned long long)total,
				k ? "PREFLUSH writes" : "empty flushes",
				(unsigned long long)seen[k]);
			err = -EINVAL;
			goto out;
		}
	}

	/*
	 * Each batch is durable no later than the completion of the first
	 * flush, in log order, that completed after the batch's own flush
	 * was queued and that the target did not map before it: a flush
	 * mapped after the batch's own covers the batch, whose writes had
	 * completed by then.  One mapped before it does not, and its batch
	 * holds writes that completed before the batch's (the target takes
	 * all of them at each flush), so the batch must not move ahead of
	 * it.  It was mapped before if its remap came before the batch's
	 * flush was queued.  The moved ones go ahead of that flush's batch,
	 * by when their flushes were queued.
	 */
	nmoved = 0;
	ix->ambiguous = 0;
	ix->kept = 0;
	for (uint64_t j = 0; j < nf; j++) {
		uint64_t by_time = lw_first_at_least(pm, nf, queued[j]);

		target[j] = by_time;
		while (target[j] < j && mapped[target[j]] < queued[j])
			target[j]++;
		ix->kept += target[j] != by_time && bstart[j] != fl[j];
		if (target[j] != j && bstart[j] != fl[j])
			moved[nmoved++] = j;
	}
	ix->moved = nmoved;
	lw_sort_target = target;
	lw_sort_queued = queued;
	qsort(moved, nmoved, sizeof(*moved), cmp_moved);

	/* The replay order: moved batches ahead of their target's batch. */
	for (uint64_t i = 0, j = 0, m = 0; i < ix->n; i++) {
		/* j: the first flush at or after entry i. */
		while (j < nf && fl[j] < i)
			j++;
		if (j < nf && i == bstart[j]) {
			for (; m < nmoved && target[moved[m]] == j; m++)
				for (uint64_t w = bstart[moved[m]];
				     w < fl[moved[m]]; w++)
					ix->order[o++] = w;
		}
		if (j < nf && i >= bstart[j] && i < fl[j] && target[j] != j)
			continue;	/* moved ahead */
		ix->order[o++] = i;
	}
	err = o == ix->n ? 0 : -EINVAL;
	if (err) {
		fprintf(stderr, "lw: internal error: %llu of %llu entries ordered\n",
			(unsigned long long)o, (unsigned long long)ix->n);
		goto out;
	}
	err = -ENOMEM;
	pos = malloc((ix->n + 1) * sizeof(*pos));
	if (!pos)
		goto out;
	for (uint64_t i = 0; i < ix->n; i++)
		pos[ix->order[i]] = i;
	for (uint64_t m = 0; m < nmoved; m++) {
		uint64_t j = moved[m];

		ix->ambiguous += lw_batch_conflicts(ix, bstart, fl, pos, target[j], j,
						   mapped[j] < queued[target[j]]);
	}
	err = 0;
out:
	free(pos);
	free(t);
	free(fl);
	free(queued);
	free(mapped);
	free(pm);
	free(target);
	free(bstart);
	free(moved);
	return err;
}
