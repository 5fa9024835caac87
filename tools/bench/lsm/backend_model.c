// SPDX-License-Identifier: GPL-2.0
/*
 * The driver's own test double: keys in a plain array under a lock, so
 * that selftest.py can check lsm_bench's accounting (operations per
 * thread, keys found, a scan's length, the distinct keys memstats
 * counts, the units range puts cover) without the store.  Built only into lsm_bench_selftest; it
 * measures nothing and never appears in a report.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

struct lsmb_db {
	pthread_rwlock_t lock;
	uint32_t *vlen;		/* per key: value length + 1, 0 if absent */
	uint64_t nr, live, puts;
};

struct lsmb_scan {
	struct lsmb_db *db;
	uint64_t pos;
};

/* Kept across reopenings, as a file keeps the store. */
static struct lsmb_db model;

static int model_open(const struct lsmb_config *cfg, bool fresh,
		      struct lsmb_db **dbp)
{
	if (fresh || !model.vlen) {
		free(model.vlen);
		memset(&model, 0, sizeof(model));
		pthread_rwlock_init(&model.lock, NULL);
	}
	*dbp = &model;
	return 0;
}

static int model_close(struct lsmb_db *db)
{
	return 0;
}

static void model_thread(struct lsmb_db *db)
{
}

static int model_write(struct lsmb_db *db, const struct lsmb_put *puts,
		       unsigned int n, bool sync)
{
	unsigned int i;

	pthread_rwlock_wrlock(&db->lock);
	for (i = 0; i < n; i++) {
		uint64_t k, end = puts[i].key + puts[i].len;

		if (!puts[i].len || end < puts[i].key) {
			pthread_rwlock_unlock(&db->lock);
			return -EINVAL;
		}
		if (end > db->nr) {
			uint64_t nr = end * 2;
			uint32_t *v = realloc(db->vlen, nr * sizeof(*v));

			if (!v) {
				pthread_rwlock_unlock(&db->lock);
				return -ENOMEM;
			}
			memset(v + db->nr, 0, (nr - db->nr) * sizeof(*v));
			db->vlen = v;
			db->nr = nr;
		}
		/* An extent, unit by unit: each shows the newest put over it. */
		for (k = puts[i].key; k < end; k++) {
			if (!db->vlen[k])
				db->live++;
			db->vlen[k] = puts[i].vlen + 1;
		}
		db->puts++;
	}
	pthread_rwlock_unlock(&db->lock);
	return 0;
}

static int model_get(struct lsmb_db *db, uint64_t key, void *vbuf,
		     uint32_t size, uint32_t *vlen)
{
	int err = -ENOENT;

	pthread_rwlock_rdlock(&db->lock);
	if (key < db->nr && db->vlen[key]) {
		*vlen = db->vlen[key] - 1;
		err = 0;
	}
	pthread_rwlock_unlock(&db->lock);
	return err;
}

static int model_scan_start(struct lsmb_db *db, uint64_t from,
			    struct lsmb_scan **scanp)
{
	struct lsmb_scan *scan = malloc(sizeof(*scan));

	if (!scan)
		return -ENOMEM;
	scan->db = db;
	scan->pos = from;
	*scanp = scan;
	return 0;
}

static int model_scan_next(struct lsmb_scan *scan, unsigned int max)
{
	struct lsmb_db *db = scan->db;
	unsigned int n = 0;

	pthread_rwlock_rdlock(&db->lock);
	for (; scan->pos < db->nr && n < max; scan->pos++)
		n += !!db->vlen[scan->pos];
	pthread_rwlock_unlock(&db->lock);
	return n;
}

static void model_scan_end(struct lsmb_scan *scan)
{
	free(scan);
}

static int model_flush(struct lsmb_db *db)
{
	return 0;
}

/* memtable_bytes: the live keys (units), for selftest.py to compare. */
static int model_stats(struct lsmb_db *db, struct lsmb_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	stats->memtable_bytes = db->live;
	return 0;
}

const struct lsmb_backend lsmb_backend_model = {
	.name = "model",
	.open = model_open,
	.close = model_close,
	.thread_start = model_thread,
	.thread_stop = model_thread,
	.write = model_write,
	.get = model_get,
	.scan_start = model_scan_start,
	.scan_next = model_scan_next,
	.scan_end = model_scan_end,
	.flush = model_flush,
	.stats = model_stats,
};
