// SPDX-License-Identifier: GPL-2.0
/*
 * Leveled compaction's decisions (compact.h).
 *
 * Level sizes come from the bottom up.  The bottom level holds what it
 * holds; each level above it may hold a tenth of the one below; the base
 * level, the one level 0 merges into, is the highest level whose share
 * is still above base_bytes once divided down, and the levels above it
 * stay empty.  A young store thus has no middle levels at all (level 0
 * merges straight into the bottom), and as it grows the base level moves
 * up one level each time the bottom grows tenfold.  With every level at
 * its target, the levels above the bottom hold about a ninth of what the
 * bottom does, so the space taken stays within about 1.11 times the data
 * plus what level 0 and the memtables hold (space amplification).
 *
 * Which merge comes next: level 0 once it holds l0_trigger runs, before
 * anything else (so that writers, who stop on level 0, are served
 * first); otherwise the level furthest over its target, a level above
 * the base level that still holds runs counting as furthest.  A merge
 * from level n >= 1 takes one run, chosen round robin by key (a cursor
 * per level, as RocksDB's compact pointer), and the runs of level n + 1
 * that overlap it; one from level 0 takes every run of level 0 and the
 * runs of the base level that overlap their hull.  The runs left behind
 * in the level written to lie outside the hull of what was taken, so the
 * runs a merge writes, which lie inside it, overlap none of them.
 *
 * Every level holds data newer than the levels below it.  Merges keep
 * that as long as level 0 never passes a level that holds runs: when
 * the bottom shrinks (punches merged into it) the base level moves
 * down while the levels it leaves may still hold runs, and level 0 then
 * merges into the highest of them instead, until merges have moved
 * them down.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>
#include "compact.h"

/**
 * lsm_compact_targets() - the size each level should have now
 * @s:   the store's runs
 * @cfg: the configuration
 * @t:   filled in
 *
 * Context: any.
 */
void lsm_compact_targets(const struct lsm_shape *s,
			 const struct lsm_compact_config *cfg,
			 struct lsm_compact_targets *t)
{
	u64 share = s->bytes[LSM_BOTTOM], size[LSM_LEVELS];
	unsigned int base = LSM_BOTTOM, i;

	while (base > 1 && share > cfg->base_bytes) {
		share = div64_u64(share, LSM_FANOUT);
		base--;
	}
	memset(t, 0, sizeof(*t));
	t->base = base;
	t->target[LSM_BOTTOM] = U64_MAX;
	share = max_t(u64, share, 1);
	for (i = base; i < LSM_BOTTOM; i++) {
		t->target[i] = share;
		share = share > U64_MAX / LSM_FANOUT ? U64_MAX :
			share * LSM_FANOUT;
	}

	/*
	 * What merges must still write: level 0 with the base level, then
	 * each level's excess, which lands in the level below, along with
	 * the part of that level it overlaps (its share of the level below
	 * in proportion).
	 */
	memcpy(size, s->bytes, sizeof(size));
	if (s->nr[0] >= cfg->l0_trigger && s->nr[0]) {
		t->pending += size[0] + size[base];
		size[base] += size[0];
	}
	for (i = 1; i < LSM_BOTTOM; i++) {
		u64 excess;

		if (size[i] <= t->target[i])
			continue;
		excess = size[i] - t->target[i];
		t->pending += excess + mul_u64_u64_div_u64(excess,
							   s->bytes[i + 1],
							   size[i]);
		size[i + 1] += excess;
	}
}

/* The first run of @lvl whose last key is at or after @pos (or nr). */
static unsigned int lsm_shape_find(const struct lsm_shape *s,
				   unsigned int lvl, u64 pos)
{
	unsigned int lo = 0, hi = s->nr[lvl];

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (s->runs[lvl][mid]->last_key < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The runs of @lvl overlapping [@first, @last]: *@idx and how many. */
static unsigned int lsm_shape_overlap(const struct lsm_shape *s,
				      unsigned int lvl, u64 first, u64 last,
				      unsigned int *idx)
{
	unsigned int i = lsm_shape_find(s, lvl, first), n = 0;

	*idx = i;
	while (i + n < s->nr[lvl] && s->runs[lvl][i + n]->first_key <= last)
		n++;
	return n;
}

/*
 * A merge of every run of level 0 into the base level, or into the
 * highest level above it that still holds runs: the base level moves
 * down when the bottom shrinks (punches merged into it), and what the
 * levels above it hold is older than level 0, so level 0 must not pass
 * below them.
 */
static void lsm_compact_pick_l0(const struct lsm_shape *s, unsigned int base,
				struct lsm_compact_job *job)
{
	const struct lsm_run_info *const *r = s->runs[0];
	u64 first = U64_MAX, last = 0;
	unsigned int to = 1;
	bool apart = true;

	while (to < base && !s->nr[to])
		to++;

	for (unsigned int i = 0; i < s->nr[0]; i++) {
		first = min(first, r[i]->first_key);
		last = max(last, r[i]->last_key);
		for (unsigned int j = 0; j < i; j++)
			if (r[j]->first_key <= r[i]->last_key &&
			    r[i]->first_key <= r[j]->last_key)
				apart = false;
	}
	*job = (struct lsm_compact_job){
		.from = 0, .to = to, .from_first = 0, .from_nr = s->nr[0],
	};
	job->to_nr = lsm_shape_overlap(s, to, first, last, &job->to_first);
	job->move = apart && !job->to_nr;
}

/*
 * How far @lvl is over its target, in thousandths, rounded up: above
 * 1000 exactly when the level is over its target, as the backlog that
 * writers stop on counts it (lsm_compact_targets()), so that a backlog
 * always comes with a merge due.  A level above the base level that
 * holds anything is as far over as can be.
 */
static u64 lsm_compact_score(const struct lsm_shape *s,
			     const struct lsm_compact_targets *t,
			     unsigned int lvl)
{
	u64 scaled, score;

	if (!s->nr[lvl])
		return 0;
	if (lvl < t->base)
		return U64_MAX;
	scaled = min_t(u64, s->bytes[lvl], U64_MAX / 1000) * 1000;
	score = div64_u64(scaled, t->target[lvl]);
	return score + (score * t->target[lvl] < scaled);
}

/**
 * lsm_compact_pick() - the merge to do next, if any
 * @s:      the store's runs
 * @cfg:    the configuration
 * @t:      the targets, from lsm_compact_targets() on @s
 * @full:   whether any run above the bottom level is due, so that
 *          merges end with every run in the bottom level (the highest
 *          level first)
 * @cursor: per level, where its next merge starts looking (a key); moved
 *          past the run taken
 * @job:    filled in when a merge is due
 *
 * Context: any.
 * Return: true if a merge is due.
 */
bool lsm_compact_pick(const struct lsm_shape *s,
		      const struct lsm_compact_config *cfg,
		      const struct lsm_compact_targets *t, bool full,
		      u64 cursor[LSM_LEVELS], struct lsm_compact_job *job)
{
	const struct lsm_run_info *run;
	unsigned int best = 0, i;
	u64 best_score = 1000;

	if (s->nr[0] && (full || s->nr[0] >= cfg->l0_trigger)) {
		lsm_compact_pick_l0(s, t->base, job);
		return true;
	}
	for (i = 1; i < LSM_BOTTOM; i++) {
		u64 score = lsm_compact_score(s, t, i);

		if (full && s->nr[i]) {
			best = i;
			break;
		}
		if (score > best_score) {
			best_score = score;
			best = i;
		}
	}
	if (!best)
		return false;
	/* The first run at or after the cursor, round robin. */
	for (i = 0; i < s->nr[best]; i++)
		if (s->runs[best][i]->first_key >= cursor[best])
			break;
	if (i == s->nr[best])
		i = 0;
	run = s->runs[best][i];
	cursor[best] = run->last_key + 1;	/* U64_MAX + 1 wraps to 0 */
	*job = (struct lsm_compact_job){
		.from = best, .to = best + 1, .from_first = i, .from_nr = 1,
	};
	job->to_nr = lsm_shape_overlap(s, best + 1, run->first_key,
				       run->last_key, &job->to_first);
	job->move = !job->to_nr;
	return true;
}

/**
 * lsm_compact_below() - whether a level below another may hold data
 *                       under a range
 * @s:     the store's runs
 * @level: the level
 * @first: the range's first unit
 * @last:  its last
 *
 * A punch written into @level hides nothing if no run below it overlaps
 * its range, and may then be dropped.
 *
 * Context: any.
 * Return: true if a run of a level below @level overlaps the range.
 */
bool lsm_compact_below(const struct lsm_shape *s, unsigned int level,
		       u64 first, u64 last)
{
	unsigned int idx;

	for (unsigned int lvl = level + 1; lvl < LSM_LEVELS; lvl++)
		if (lsm_shape_overlap(s, lvl, first, last, &idx))
			return true;
	return false;
}
