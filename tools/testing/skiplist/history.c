// SPDX-License-Identifier: GPL-2.0
/*
 * Linearizability checker for per-key set histories.
 *
 * Events are grouped by key and each key is checked on its own, which is
 * sound and complete because the model is a map from keys to independent
 * cells (P-compositionality).
 *
 * Per key, this is the Wing & Gong search made "just in time": the events are
 * swept in timestamp order and an operation is only linearized when forced,
 * i.e. when it returns.  Between two returns the search carries the set of
 * configurations it can be in, where a configuration is the subset of the
 * operations now in flight that were already linearized, plus the model
 * state.  Operations that returned are always linearized and operations not
 * yet called never are, so neither needs to be remembered: a configuration
 * is a bitmask over at most HIST_MAX_OVERLAP in-flight slots and a state, and
 * the cost depends on how many operations overlap, not on history length.
 *
 * When an operation returns, every configuration that has not linearized it
 * is extended by linearizing in-flight operations, in every order allowed by
 * the model, until it has; the results (with the returning slot freed)
 * become the new set, deduplicated.  Every in-flight operation was called
 * after everything not in flight returned, so any order among them respects
 * real time.  If the set becomes empty the key is not linearizable.
 *
 * Two observations keep the sets tiny:
 *  - An operation that does not change the state (a lookup, a failed insert
 *    or remove) can be linearized as soon as it is in flight and the state
 *    matches its result: taking a valid linearization and moving such an
 *    operation to that point changes no other result and breaks no real-time
 *    order.  So configurations are kept closed under this, and the search
 *    only ever branches on successful inserts and removes.
 *  - Configurations are extended only up to the returning operation; going
 *    further is left to later returns, which may still do it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"

/*
 * A key whose search needs more configurations than this (in flight at one
 * return) is given up on rather than eating all memory.  Realistic histories
 * need a handful.
 */
#define HIST_MAX_CONFIGS	(1u << 22)

/* Bit of cfg.mask above all slot bits that says the key is present. */
#define PRESENT_BIT		(1ULL << HIST_MAX_OVERLAP)

/* What an event needs from, and does to, the model state. */
enum kind {
	K_RO_ABSENT,	/* needs absent; lookup 0, remove -ENOENT */
	K_RO_PRESENT,	/* needs present(any); insert -EEXIST */
	K_RO_ID,	/* needs present(value); lookup 1 */
	K_INSERT,	/* absent -> present(value); insert 0 */
	K_REMOVE,	/* present(value) -> absent; remove 0 */
	K_BAD,
};

static enum kind classify(const struct hist_event *e)
{
	switch (e->op) {
	case H_INSERT:
		if (e->result == 0)
			return K_INSERT;
		if (e->result == -EEXIST)
			return K_RO_PRESENT;
		break;
	case H_REMOVE:
		if (e->result == 0)
			return K_REMOVE;
		if (e->result == -ENOENT)
			return K_RO_ABSENT;
		break;
	case H_LOOKUP:
		if (e->result == 1)
			return K_RO_ID;
		if (e->result == 0)
			return K_RO_ABSENT;
		break;
	}
	return K_BAD;
}

/*
 * A configuration: which in-flight slots are linearized, whether the key is
 * present and, if so, the id stored.  id is 0 when absent so that equal
 * configurations compare equal bit for bit.
 */
struct cfg {
	uint64_t mask;
	uint64_t id;
};

static inline bool cfg_eq(struct cfg a, struct cfg b)
{
	return a.mask == b.mask && a.id == b.id;
}

static inline uint64_t cfg_hash(struct cfg c)
{
	uint64_t h = c.mask * 0x9e3779b97f4a7c15ULL;

	h ^= (c.id + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

struct cfg_vec {
	struct cfg *v;
	size_t n, cap;
};

static int cfg_vec_push(struct cfg_vec *vec, struct cfg c)
{
	if (vec->n == vec->cap) {
		size_t ncap = vec->cap ? vec->cap * 2 : 16;
		struct cfg *nv = realloc(vec->v, ncap * sizeof(*nv));

		if (!nv)
			return -1;
		vec->v = nv;
		vec->cap = ncap;
	}
	vec->v[vec->n++] = c;
	return 0;
}

/*
 * Open-addressed set of configurations.  It is cleared at every return, so
 * entries carry a generation number and clearing just bumps it instead of
 * touching the whole table.
 */
struct cfg_ent {
	struct cfg c;
	uint32_t gen;
};

struct cfg_set {
	struct cfg_ent *tab;
	size_t cap;		/* power of two, or 0 */
	size_t count;
	uint32_t gen;		/* entries with another gen are empty */
};

static void cfg_set_clear(struct cfg_set *s)
{
	s->count = 0;
	if (++s->gen == 0) {
		/* Wrapped: old generations could alias, wipe for real. */
		if (s->tab)
			memset(s->tab, 0, s->cap * sizeof(*s->tab));
		s->gen = 1;
	}
}

static void cfg_set_put(struct cfg_ent *tab, size_t cap, uint32_t gen,
			struct cfg c)
{
	size_t i = cfg_hash(c) & (cap - 1);

	while (tab[i].gen == gen)
		i = (i + 1) & (cap - 1);
	tab[i].c = c;
	tab[i].gen = gen;
}

static int cfg_set_grow(struct cfg_set *s)
{
	size_t ncap = s->cap ? s->cap * 2 : 64;
	struct cfg_ent *nt = calloc(ncap, sizeof(*nt));
	size_t i;

	if (!nt)
		return -1;
	for (i = 0; i < s->cap; i++)
		if (s->tab[i].gen == s->gen)
			cfg_set_put(nt, ncap, 1, s->tab[i].c);
	free(s->tab);
	s->tab = nt;
	s->cap = ncap;
	s->gen = 1;
	return 0;
}

/* Returns 1 if @c was added, 0 if it was already there, -1 without memory. */
static int cfg_set_add(struct cfg_set *s, struct cfg c)
{
	size_t i;

	if ((s->count + 1) * 2 > s->cap && cfg_set_grow(s))
		return -1;
	i = cfg_hash(c) & (s->cap - 1);
	while (s->tab[i].gen == s->gen) {
		if (cfg_eq(s->tab[i].c, c))
			return 0;
		i = (i + 1) & (s->cap - 1);
	}
	s->tab[i].c = c;
	s->tab[i].gen = s->gen;
	s->count++;
	return 1;
}

/* State of the check of one key; reused from key to key. */
struct checker {
	/* Events of the key, sorted by call. */
	struct hist_event *ev;
	size_t nev, ev_cap;

	/* In-flight operations, one slot (bit) each, with a mask per kind. */
	uint64_t active;
	uint64_t m_absent, m_present, m_id, m_ins, m_rem;
	uint8_t kind[HIST_MAX_OVERLAP];
	uint64_t val[HIST_MAX_OVERLAP];
	size_t idx[HIST_MAX_OVERLAP];	/* index into ev */

	struct cfg_vec cur, next, work;
	struct cfg_set seen, visited;

	/* Why and where the last check_key() failed. */
	size_t fail_idx;
	const char *fail_why;
	bool fail_search;	/* cur holds the configurations before it */
};

/* Does a read-only event of kind @k with value @v fit state @c? */
static inline bool ro_fits(enum kind k, uint64_t v, struct cfg c)
{
	bool present = c.mask & PRESENT_BIT;

	switch (k) {
	case K_RO_ABSENT:
		return !present;
	case K_RO_PRESENT:
		return present;
	case K_RO_ID:
		return present && c.id == v;
	default:
		return false;
	}
}

/* The unlinearized in-flight read-only slots that fit the state of @c. */
static inline uint64_t ro_closure(const struct checker *ck, struct cfg c)
{
	uint64_t pend = ~c.mask;
	uint64_t m, ids;

	if (!(c.mask & PRESENT_BIT))
		return ck->m_absent & pend;
	m = ck->m_present & pend;
	for (ids = ck->m_id & pend; ids; ids &= ids - 1) {
		int s = __builtin_ctzll(ids);

		if (ck->val[s] == c.id)
			m |= 1ULL << s;
	}
	return m;
}

static uint64_t *kind_mask(struct checker *ck, enum kind k)
{
	switch (k) {
	case K_RO_ABSENT:
		return &ck->m_absent;
	case K_RO_PRESENT:
		return &ck->m_present;
	case K_RO_ID:
		return &ck->m_id;
	case K_INSERT:
		return &ck->m_ins;
	default:
		return &ck->m_rem;
	}
}

/* Put event @i in flight; its slot goes to @slot. */
static int ck_call(struct checker *ck, size_t i, int *slot)
{
	const struct hist_event *e = &ck->ev[i];
	uint64_t avail = ~ck->active & (PRESENT_BIT - 1);
	enum kind k = classify(e);
	uint64_t bit;
	size_t j;
	int s;

	if (!avail) {
		ck->fail_idx = i;
		ck->fail_why = "more than HIST_MAX_OVERLAP operations overlap";
		return -2;
	}
	s = __builtin_ctzll(avail);
	*slot = s;
	bit = 1ULL << s;
	ck->active |= bit;
	ck->kind[s] = k;
	ck->val[s] = e->value;
	ck->idx[s] = i;
	*kind_mask(ck, k) |= bit;

	/*
	 * Linearize a read-only operation at once wherever it fits.  No two
	 * configurations can become equal, as all of them had this bit clear.
	 */
	if (k != K_INSERT && k != K_REMOVE)
		for (j = 0; j < ck->cur.n; j++)
			if (ro_fits(k, e->value, ck->cur.v[j]))
				ck->cur.v[j].mask |= bit;
	return 0;
}

/* Record a configuration that has linearized the returning slot @bit. */
static int ck_out(struct checker *ck, struct cfg c, uint64_t bit)
{
	int r;

	c.mask &= ~bit;
	r = cfg_set_add(&ck->seen, c);
	if (r <= 0)
		return r;
	return cfg_vec_push(&ck->next, c);
}

static int ck_ret(struct checker *ck, int s)
{
	uint64_t bit = 1ULL << s;
	struct cfg_vec tmp;
	bool all = true;
	size_t j;

	for (j = 0; j < ck->cur.n; j++)
		if (!(ck->cur.v[j].mask & bit)) {
			all = false;
			break;
		}
	if (all) {
		/*
		 * The common case: nothing to search.  Clearing the same bit
		 * everywhere keeps distinct configurations distinct.
		 */
		for (j = 0; j < ck->cur.n; j++)
			ck->cur.v[j].mask &= ~bit;
		goto free_slot;
	}

	ck->next.n = 0;
	ck->work.n = 0;
	cfg_set_clear(&ck->seen);
	cfg_set_clear(&ck->visited);
	for (j = 0; j < ck->cur.n; j++) {
		struct cfg c = ck->cur.v[j];
		int r;

		if (c.mask & bit)
			r = ck_out(ck, c, bit);
		else if ((r = cfg_set_add(&ck->visited, c)) > 0)
			r = cfg_vec_push(&ck->work, c);
		if (r < 0)
			goto nomem;
	}

	/*
	 * Depth-first over the updates that can be linearized next.  Read-only
	 * slots that fit are already linearized in every configuration (the
	 * closure), so only successful inserts and removes can branch.
	 */
	while (ck->work.n) {
		struct cfg c = ck->work.v[--ck->work.n];
		uint64_t cand;

		if (c.mask & PRESENT_BIT)
			cand = ck->m_rem & ~c.mask;
		else
			cand = ck->m_ins & ~c.mask;
		for (; cand; cand &= cand - 1) {
			int f = __builtin_ctzll(cand);
			struct cfg d = c;
			int r;

			if (c.mask & PRESENT_BIT) {
				if (ck->val[f] != c.id)
					continue;
				d.mask &= ~PRESENT_BIT;
				d.id = 0;
			} else {
				d.mask |= PRESENT_BIT;
				d.id = ck->val[f];
			}
			d.mask |= 1ULL << f;
			d.mask |= ro_closure(ck, d);
			if (d.mask & bit)
				r = ck_out(ck, d, bit);
			else if ((r = cfg_set_add(&ck->visited, d)) > 0)
				r = cfg_vec_push(&ck->work, d);
			if (r < 0)
				goto nomem;
		}
		if (ck->visited.count + ck->next.n > HIST_MAX_CONFIGS) {
			ck->fail_idx = ck->idx[s];
			ck->fail_why = "search space too large";
			return -2;
		}
	}

	if (!ck->next.n) {
		/* cur is left alone so that the report can show it. */
		ck->fail_search = true;
		ck->fail_idx = ck->idx[s];
		ck->fail_why = "no linearization allows this result";
		return -1;
	}
	tmp = ck->cur;
	ck->cur = ck->next;
	ck->next = tmp;

free_slot:
	ck->active &= ~bit;
	*kind_mask(ck, ck->kind[s]) &= ~bit;
	return 0;

nomem:
	ck->fail_idx = ck->idx[s];
	ck->fail_why = "out of memory";
	return -2;
}

/* The in-flight slot that returns first, or -1 if none. */
static int first_ret(const struct checker *ck)
{
	uint64_t best = UINT64_MAX;
	uint64_t m;
	int s = -1;

	for (m = ck->active; m; m &= m - 1) {
		int t = __builtin_ctzll(m);
		uint64_t r = ck->ev[ck->idx[t]].ret;

		if (r < best) {
			best = r;
			s = t;
		}
	}
	return s;
}

/*
 * Check the events in ck->ev (sorted by call) against the model starting
 * in the given state.  0: linearizable; -1: not (or malformed); -2: gave up.
 */
static int check_key(struct checker *ck, bool present, uint64_t id)
{
	struct cfg init = { present ? PRESENT_BIT : 0, present ? id : 0 };
	size_t i;
	int s = -1;

	ck->fail_why = NULL;
	ck->fail_search = false;
	for (i = 0; i < ck->nev; i++) {
		if (ck->ev[i].call >= ck->ev[i].ret) {
			ck->fail_idx = i;
			ck->fail_why = "malformed event: call >= ret";
			return -1;
		}
		if (classify(&ck->ev[i]) == K_BAD) {
			ck->fail_idx = i;
			ck->fail_why = "malformed event: bad op or result";
			return -1;
		}
	}

	ck->active = 0;
	ck->m_absent = ck->m_present = ck->m_id = 0;
	ck->m_ins = ck->m_rem = 0;
	ck->cur.n = 0;
	if (cfg_vec_push(&ck->cur, init)) {
		ck->fail_idx = 0;
		ck->fail_why = "out of memory";
		return -2;
	}

	/*
	 * Merge calls (in call order) with returns (earliest in-flight one
	 * first); timestamps are distinct, so there are no ties to break.
	 */
	i = 0;
	while (i < ck->nev || ck->active) {
		int r;

		if (ck->active && (i == ck->nev ||
				   ck->ev[ck->idx[s]].ret < ck->ev[i].call)) {
			r = ck_ret(ck, s);
			if (r)
				return r;
			s = first_ret(ck);
		} else {
			int ns;

			r = ck_call(ck, i, &ns);
			if (r)
				return r;
			if (s < 0 || ck->ev[i].ret < ck->ev[ck->idx[s]].ret)
				s = ns;
			i++;
		}
	}
	return 0;
}

static void checker_free(struct checker *ck)
{
	free(ck->ev);
	free(ck->cur.v);
	free(ck->next.v);
	free(ck->work.v);
	free(ck->seen.tab);
	free(ck->visited.tab);
}

/* The events of one key and where they lie in the caller's array. */
struct group {
	unsigned long key;
	size_t count;
	size_t start;		/* first index in perm[] */
	size_t fill;		/* next index in perm[] while filling it */
	uint64_t init_id;
	bool has_init;
};

/* Open-addressed map from key to index in g[]. */
struct key_map {
	size_t *tab;		/* group index, or SIZE_MAX for empty */
	size_t cap;		/* power of two */
	struct group *g;
	size_t ng, gcap;
};

static inline size_t key_hash(unsigned long key)
{
	uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ULL;

	/* Keys are often small or strided: fold the high bits down. */
	return (size_t)(h ^ (h >> 32));
}

static size_t km_find(const struct key_map *km, unsigned long key)
{
	size_t i = key_hash(key) & (km->cap - 1);

	while (km->tab[i] != SIZE_MAX) {
		if (km->g[km->tab[i]].key == key)
			return km->tab[i];
		i = (i + 1) & (km->cap - 1);
	}
	return SIZE_MAX;
}

static int km_grow(struct key_map *km)
{
	size_t ncap = km->cap ? km->cap * 2 : 1024;
	size_t *nt = malloc(ncap * sizeof(*nt));
	size_t i;

	if (!nt)
		return -1;
	memset(nt, 0xff, ncap * sizeof(*nt));
	for (i = 0; i < km->ng; i++) {
		size_t j = key_hash(km->g[i].key) & (ncap - 1);

		while (nt[j] != SIZE_MAX)
			j = (j + 1) & (ncap - 1);
		nt[j] = i;
	}
	free(km->tab);
	km->tab = nt;
	km->cap = ncap;
	return 0;
}

/* Find or create the group of @key; SIZE_MAX without memory. */
static size_t km_add(struct key_map *km, unsigned long key)
{
	size_t i;

	if ((km->ng + 1) * 2 > km->cap && km_grow(km))
		return SIZE_MAX;
	i = key_hash(key) & (km->cap - 1);
	while (km->tab[i] != SIZE_MAX) {
		if (km->g[km->tab[i]].key == key)
			return km->tab[i];
		i = (i + 1) & (km->cap - 1);
	}
	if (km->ng == km->gcap) {
		size_t ncap = km->gcap ? km->gcap * 2 : 1024;
		struct group *ng = realloc(km->g, ncap * sizeof(*ng));

		if (!ng)
			return SIZE_MAX;
		km->g = ng;
		km->gcap = ncap;
	}
	memset(&km->g[km->ng], 0, sizeof(km->g[km->ng]));
	km->g[km->ng].key = key;
	km->tab[i] = km->ng;
	return km->ng++;
}

static int cmp_call(const void *a, const void *b)
{
	const struct hist_event *x = a, *y = b;

	return x->call < y->call ? -1 : x->call > y->call;
}

/* Copy the events of @g into ck->ev, sorted by call. */
static int load_group(struct checker *ck, const struct hist_event *ev,
		      const size_t *perm, const struct group *g)
{
	size_t j;

	if (g->count > ck->ev_cap) {
		struct hist_event *ne = realloc(ck->ev, g->count * sizeof(*ne));

		if (!ne)
			return -1;
		ck->ev = ne;
		ck->ev_cap = g->count;
	}
	for (j = 0; j < g->count; j++)
		ck->ev[j] = ev[perm[g->start + j]];
	ck->nev = g->count;

	/*
	 * Most keys have few events, and an insertion sort beats qsort()'s
	 * callbacks there; long runs (hot keys) go to qsort().
	 */
	if (g->count > 24) {
		qsort(ck->ev, g->count, sizeof(*ck->ev), cmp_call);
		return 0;
	}
	for (j = 1; j < g->count; j++) {
		struct hist_event t = ck->ev[j];
		size_t k = j;

		while (k && ck->ev[k - 1].call > t.call) {
			ck->ev[k] = ck->ev[k - 1];
			k--;
		}
		ck->ev[k] = t;
	}
	return 0;
}

static const char *op_name(uint32_t op)
{
	switch (op) {
	case H_INSERT:
		return "insert";
	case H_REMOVE:
		return "remove";
	case H_LOOKUP:
		return "lookup";
	}
	return "op?";
}

static void fmt_result(char *buf, size_t len, const struct hist_event *e)
{
	if (e->op == H_INSERT && e->result == -EEXIST)
		snprintf(buf, len, "-EEXIST");
	else if (e->op == H_REMOVE && e->result == -ENOENT)
		snprintf(buf, len, "-ENOENT");
	else if (e->op == H_LOOKUP && e->result == 1)
		snprintf(buf, len, "found");
	else if (e->op == H_LOOKUP && e->result == 0)
		snprintf(buf, len, "missing");
	else
		snprintf(buf, len, "%" PRId32, e->result);
}

static void fmt_state(char *buf, size_t len, struct cfg c)
{
	if (c.mask & PRESENT_BIT)
		snprintf(buf, len, "present(%" PRIu64 ")", c.id);
	else
		snprintf(buf, len, "absent");
}

/*
 * Around the failure is what matters in a long history; printing thousands
 * of lines before it would only bury it.
 */
#define REPORT_ALL	400
#define REPORT_BEFORE	300
#define REPORT_AFTER	100

static void report_key(FILE *f, struct checker *ck, const struct group *g,
		       int err, size_t nfail, size_t nkeys)
{
	size_t lo = 0, hi = ck->nev, i;
	char buf[64];

	fprintf(f, "hist_check: key %lu %s: %s\n", g->key,
		err == -1 ? "is NOT linearizable" : "could not be checked",
		ck->fail_why);
	fprintf(f, "  %zu of %zu keys %s; this is the lowest such key\n",
		nfail, nkeys, err == -1 ? "failed" : "could not be checked");
	fprintf(f, "  initial state: ");
	if (g->has_init)
		fprintf(f, "present(%" PRIu64 ")\n", g->init_id);
	else
		fprintf(f, "absent\n");
	if (ck->fail_search) {
		/* The distinct states the search could be in before it. */
		size_t shown = 0;

		fprintf(f, "  states possible just before event #%zu returned:",
			ck->fail_idx);
		for (i = 0; i < ck->cur.n && shown < 8; i++) {
			size_t j;
			bool dup = false;

			for (j = 0; j < i; j++)
				if (ck->cur.v[j].id == ck->cur.v[i].id &&
				    !((ck->cur.v[j].mask ^ ck->cur.v[i].mask) &
				      PRESENT_BIT))
					dup = true;
			if (dup)
				continue;
			fmt_state(buf, sizeof(buf), ck->cur.v[i]);
			fprintf(f, " %s", buf);
			shown++;
		}
		fprintf(f, "%s\n", i < ck->cur.n ? " ..." : "");
	}
	if (ck->nev > REPORT_ALL) {
		lo = ck->fail_idx > REPORT_BEFORE ?
		     ck->fail_idx - REPORT_BEFORE : 0;
		hi = ck->fail_idx + REPORT_AFTER < ck->nev ?
		     ck->fail_idx + REPORT_AFTER : ck->nev;
	}
	fprintf(f, "  %zu events on key %lu, sorted by call:\n", ck->nev,
		g->key);
	fprintf(f, "  %7s %6s %-6s %-8s %12s %12s %12s\n",
		"#", "thread", "op", "result", "value", "call", "ret");
	if (lo)
		fprintf(f, "  ... %zu earlier events not shown\n", lo);
	for (i = lo; i < hi; i++) {
		const struct hist_event *e = &ck->ev[i];

		fmt_result(buf, sizeof(buf), e);
		fprintf(f, "  %7zu %6" PRIu32 " %-6s %-8s %12" PRIu64
			" %12" PRIu64 " %12" PRIu64 "%s\n",
			i, e->thread, op_name(e->op), buf, e->value,
			e->call, e->ret,
			i == ck->fail_idx ? "  <-- fails here" : "");
	}
	if (hi < ck->nev)
		fprintf(f, "  ... %zu later events not shown\n", ck->nev - hi);
}

int hist_check_with_initial(struct hist_event *ev, size_t n,
			    const struct hist_initial *init, size_t ninit,
			    FILE *report)
{
	struct key_map km = { 0 };
	struct checker ck = { 0 };
	size_t *perm = NULL;
	size_t bad = SIZE_MAX, unk = SIZE_MAX, nbad = 0, nunk = 0, nkeys = 0;
	size_t i, pos;
	int ret = 0;

	/* Group the events by key: count them, then place their indices. */
	for (i = 0; i < ninit; i++) {
		size_t g = km_add(&km, init[i].key);

		if (g == SIZE_MAX)
			goto nomem;
		if (km.g[g].has_init) {
			if (report)
				fprintf(report, "hist_check: key %lu is %s\n",
					init[i].key,
					"listed twice in the initial state");
			ret = -1;
			goto out;
		}
		km.g[g].has_init = true;
		km.g[g].init_id = init[i].id;
	}
	for (i = 0; i < n; i++) {
		size_t g = km_add(&km, ev[i].key);

		if (g == SIZE_MAX)
			goto nomem;
		km.g[g].count++;
	}
	perm = malloc((n ? n : 1) * sizeof(*perm));
	if (!perm)
		goto nomem;
	for (i = 0, pos = 0; i < km.ng; i++) {
		km.g[i].start = km.g[i].fill = pos;
		pos += km.g[i].count;
	}
	for (i = 0; i < n; i++)
		perm[km.g[km_find(&km, ev[i].key)].fill++] = i;

	/*
	 * Check every key and report the lowest failing one, so that the
	 * report does not depend on how threads' logs were concatenated.
	 */
	for (i = 0; i < km.ng; i++) {
		struct group *g = &km.g[i];
		int r;

		if (!g->count)
			continue;
		nkeys++;
		if (load_group(&ck, ev, perm, g))
			goto nomem;
		r = check_key(&ck, g->has_init, g->init_id);
		if (r == -1) {
			nbad++;
			if (bad == SIZE_MAX || g->key < km.g[bad].key)
				bad = i;
		} else if (r) {
			nunk++;
			if (unk == SIZE_MAX || g->key < km.g[unk].key)
				unk = i;
		}
	}

	if (bad != SIZE_MAX || unk != SIZE_MAX) {
		struct group *g = &km.g[bad != SIZE_MAX ? bad : unk];

		/* Run it again to get the failure details back. */
		if (load_group(&ck, ev, perm, g))
			goto nomem;
		ret = check_key(&ck, g->has_init, g->init_id);
		if (report)
			report_key(report, &ck, g, ret,
				   bad != SIZE_MAX ? nbad : nunk, nkeys);
	}
out:
	checker_free(&ck);
	free(perm);
	free(km.tab);
	free(km.g);
	return ret;

nomem:
	if (report)
		fprintf(report, "hist_check: out of memory\n");
	ret = -2;
	goto out;
}

int hist_check(struct hist_event *ev, size_t n, FILE *report)
{
	return hist_check_with_initial(ev, n, NULL, 0, report);
}
