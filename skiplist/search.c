// SPDX-License-Identifier: GPL-2.0
/*
 * Lockless searches: descent through the towers, consistent snapshots of a
 * leaf, point and overlap lookups, and ordered iteration.  Everything here
 * runs under rcu_read_lock() alone and never writes shared memory.
 *
 * A descent is only a guess: towers may be stale while writers link and
 * unlink leaves.  What makes an answer correct is the snapshot of the leaf
 * it ends in, taken between two reads of the leaf's sequence count and
 * checked against the leaf's fences: inside a snapshot, the leaf holds
 * exactly the slots whose keys lie in [lo, hi], because every writer that
 * moves keys between leaves or changes a fence does so inside the write
 * sections of every leaf involved.
 *
 * Which pointers a search may follow.  A leaf is freed a grace period
 * after the list stops naming it, but a dead leaf that a tower or the
 * directory still names keeps its pointers frozen, and the leaves those
 * name may die and be freed meanwhile.  So:
 *  - A leaf's @next may be followed if the search read @dead == 0 in that
 *    leaf anywhere in its read-side section, before or after.  The leaf N
 *    it names is freed after the merge that kills N, under the lock of the
 *    leaf before N.  If that is our leaf, the merge overwrites our @next
 *    and we read the old value: our section began before the merge.  If
 *    not, our leaf died while it named N (only a live leaf's @next is ever
 *    rewritten), and its merge handed N to the leaf before it under that
 *    leaf's lock; every leaf that names N afterwards got it from the last
 *    under its lock, N's merge among them.  Either way the death of our
 *    leaf, which came after we read it alive, happens before N's
 *    call_rcu(), and the grace period waits for our section.  Leaves
 *    reached from the head along level 0, or from a leaf seen alive, are
 *    safe by the same argument, one step at a time.
 *  - A leaf found through the directory or a tower may have died before
 *    the search began.  Its @next may name a leaf merged away and queued
 *    to RCU before the search began, whose grace period does not wait for
 *    it (issue 18).  So its @next is never followed: the search descends
 *    again, aimed just below the dead leaf's lower fence, which lands on a
 *    live leaf left of it (or on another dead one, passed the same way;
 *    the head never dies), and walks on from there: a walk from a live
 *    leaf meets only leaves that died since, so it ends once merges stop.
 *    Handing the dead leaf back would do for readers, which go left of it
 *    anyway (sl_left_of_dead()), but a writer's sl_lock_covering() would
 *    then lock the leaf before it only to step over it.
 *  - A tower link may be followed from any leaf the descent reached
 *    through the towers, dead or alive.  A leaf N after a dead leaf D at
 *    level L is unlinked there only once D is (sl_tower_unlink() waits for
 *    a dying predecessor), and D is unlinked top down: the descent read the
 *    link that led it to D, at level L or above, before D's unlink there,
 *    which happens before N's unlink at L, before N's call_rcu().  Level 0
 *    breaks that order (a leaf dies there first, before its tower goes),
 *    which is why the rule above is needed.
 *  - A dead leaf's @prev is never followed: it froze at death
 *    (sl_left_of_dead()).
 */
#include <linux/export.h>
#include <linux/ktime.h>
#include "leaf.h"
#include <trace/events/skiplist.h>

/*
 * A reader's snapshot of @leaf did not hold (a writer was in it) and is
 * taken again: counted, for a published list, and traced.  Out of line,
 * so that the paths that do not retry carry nothing but the call.
 */
static noinline __cold void sl_read_retried(struct sl_list *list,
					    const struct sl_leaf *leaf,
					    unsigned long key,
					    unsigned int where)
{
	sl_count_stat(list, SL_COUNT_READ_RETRIES);
	trace_sl_read_retry(list, key, leaf->lo, where);
}

/*
 * The descent through the towers, for a list without a leaf directory or
 * a search the directory sends to a leaf split since its rebuild.  Above
 * level 0 it compares against the lower fence cached in the link it is
 * about to follow, so a leaf it rejects is never touched; at level 0 it
 * compares against the upper fence of the leaf it is in.  Each leaf it
 * moves into costs one cache line.
 *
 * The keys of the leaves it meets at level 0 are not prefetched: fetching
 * all eight of their lines while the binary search needs three made 1M
 * lookups 12% slower on these machines (make bench-user, with and without).
 */
static struct sl_leaf *sl_descend_towers(struct sl_list *list,
					 unsigned long key,
					 unsigned int *loads)
{
	struct sl_leaf *leaf, *rejected, *next;
	unsigned long aim = key;
	int level;

again:
	leaf = list->head;
	rejected = NULL;
	for (level = READ_ONCE(list->level) - 1; level > 0; level--) {
		for (;;) {
			struct sl_link *link = sl_up(leaf, level);
			unsigned long lo;

			next = rcu_dereference(link->next);
			if (!next || sl_known_above(next, rejected))
				break;
			sl_count(*loads);
			lo = READ_ONCE(link->lo);
			if (aim < lo) {
				rejected = next;
				break;
			}
			leaf = next;
			/* Its range starts at @key: nothing below can help. */
			if (key == lo)
				return leaf;
		}
	}
	/* Aimed left of a dead leaf: what was rejected says nothing of @key. */
	if (aim != key)
		rejected = NULL;
	for (;;) {
		next = rcu_dereference(leaf->next);
		if (!next || sl_known_above(next, rejected))
			return leaf;
		sl_count(*loads);
		if (key <= READ_ONCE(leaf->hi))
			return leaf;
		sl_window(list, SL_WIN_SEARCH_HOP, .key = key, .leaf = leaf);
		/*
		 * A tower may have led here after it died: go on from the
		 * left of it instead (see the top).
		 */
		if (READ_ONCE(leaf->dead)) {
			aim = leaf->lo - 1;
			goto again;
		}
		leaf = next;
	}
}

/*
 * Where a search for @key should start: the leaf whose fences cover @key,
 * as far as the leaf directory or a lockless descent can tell.  The
 * directory's guess stands unless the leaf has split since the last
 * rebuild with @key on the far side.  Then the next leaf, most often the
 * split's right half, is tried once; beyond it the descent bounds the
 * search, where a walk along level 0 would not (appends past the last
 * entry).  The leaf the directory names may have died before the search
 * began, and then its next pointer may name a freed leaf: from a dead
 * leaf the search descends instead (top of the file).
 * Inline in the searches here, as is sl_locate(): under emulation every
 * call and return costs a lookup of the next translation block.
 *
 * Return: a leaf at or left of the one covering @key, possibly dead.
 */
static __always_inline struct sl_leaf *sl_start(struct sl_list *list,
						unsigned long key,
						unsigned int *loads)
{
	struct sl_leaf *leaf = sl_dir_guess(list, key, loads);

	if (leaf) {
		sl_count(*loads);
		if (key <= READ_ONCE(leaf->hi))
			return leaf;
		sl_window(list, SL_WIN_SEARCH_HOP, .key = key, .leaf = leaf);
		/* Dead before the search found it, maybe: see the top. */
		if (!READ_ONCE(leaf->dead)) {
			leaf = rcu_dereference(leaf->next);
			if (leaf) {
				sl_count(*loads);
				if (key <= READ_ONCE(leaf->hi))
					return leaf;
			}
		}
	}
	return sl_descend_towers(list, key, loads);
}

/* sl_start(), for the writers (locking.c). */
struct sl_leaf *sl_descend(struct sl_list *list, unsigned long key,
			   unsigned int *loads)
{
	return sl_start(list, key, loads);
}

static inline int sl_snapshot_nr(const struct sl_leaf *leaf)
{
	/* A torn snapshot is thrown away, but must not index out of bounds. */
	return min_t(int, READ_ONCE(leaf->nr), SL_LEAF_KEYS);
}

/*
 * The first key a search of a leaf snapshot probes: the place @key would
 * have if the @nr keys were spread evenly between the leaf's fences.
 * Extents packed into a space (an allocator's ranges, a file's extents)
 * come close to that, and then this key and its neighbour, most often in
 * one cache line, settle the search; where they do not, the binary search
 * that follows costs two loads more than it would have alone.  -1 (no
 * guess: halve from the start) for a key above the lower fence of the
 * last leaf, whose upper fence is the end of the key space and says
 * nothing of where its keys lie.  The fences may be torn like the rest of
 * the snapshot; whatever they say, a guess is below @nr when @nr > 0 (and
 * sl_snapshot_floor() reads nothing when @nr is 0).
 */
static int sl_snapshot_guess(const struct sl_leaf *leaf, int nr,
			     unsigned long key, unsigned int *loads)
{
	unsigned long lo = leaf->lo, hi = READ_ONCE(leaf->hi), span, off;
	unsigned int shift;

	sl_count(*loads);
	sl_count(*loads);
	if (key <= lo)
		return 0;
	if (hi == ULONG_MAX)
		return -1;
	span = hi - lo;
	off = key - lo;
	if (off >= span)
		return nr - 1;
	/*
	 * Scale both below 2^25, so that off * nr (nr <= 64) stays below
	 * 2^31 whatever the width of a long; 25 bits place a key among 64
	 * closely enough.
	 */
	shift = fls_long(span >> 25);
	return (off >> shift) * nr / ((span >> shift) + 1);
}

/*
 * Index of the last key <= @key among the first @nr keys of a snapshot, -1
 * if none; *exact tells whether it equals @key.  Probes @guess first (if
 * it is not -1) and then its neighbour on @key's side, and goes on by
 * halving what is left; leaves as soon as it meets @key.
 */
static int sl_snapshot_floor(const unsigned long *keys, int nr, int guess,
			     unsigned long key, bool *exact,
			     unsigned int *loads)
{
	int lo = 0, hi = nr - 1, found = -1, mid = guess;
	bool near = guess >= 0;

	*exact = false;
	if (!near)
		mid = hi / 2;
	while (lo <= hi) {
		unsigned long k = READ_ONCE(keys[mid]);

		sl_count(*loads);
		if (k == key) {
			*exact = true;
			return mid;
		}
		if (k < key) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
		if (near)
			mid = k < key ? lo : hi;
		else
			mid = (lo + hi) / 2;
		near = false;
	}
	return found;
}

/*
 * The outcome of checking a leaf snapshot against the key it was read for:
 * the key is covered, or the search must move to a neighbour and repeat.
 */
enum sl_fence {
	SL_COVERED,
	SL_GO_LEFT,
	SL_GO_RIGHT,
};

/*
 * Whether the open snapshot of @leaf covers @key, given the floor index the
 * caller found in it.  The fences are loaded only when the keys themselves
 * cannot prove coverage: a key found with a larger key after it is inside
 * the leaf, and any key >= keys[0] is above the lower fence.
 */
static enum sl_fence sl_snapshot_fence(const struct sl_leaf *leaf, int nr,
				       int idx, bool exact, unsigned long key,
				       unsigned int *loads)
{
	if (idx < 0) {
		sl_count(*loads);
		if (key < leaf->lo)
			return SL_GO_LEFT;
	}
	if (idx == nr - 1 && !exact) {
		sl_count(*loads);
		if (key > READ_ONCE(leaf->hi))
			return SL_GO_RIGHT;
	}
	return SL_COVERED;
}

/*
 * Move a search off a live leaf that cannot answer it.  A live leaf's
 * neighbours are live, or died after it was read and outlive this read-side
 * section.
 */
static struct sl_leaf *sl_step(struct sl_leaf *leaf, enum sl_fence dir)
{
	if (dir == SL_GO_RIGHT)
		return rcu_dereference(leaf->next);
	return rcu_dereference(leaf->prev);
}

/**
 * sl_left_of_dead() - a leaf left of a dead one, to search on from
 * @list: the list
 * @dead: a dead leaf, still reachable through a tower
 *
 * A dead leaf's keys went to the leaf before it, but its back pointer froze
 * when it died and may name a leaf that has died and been freed since (the
 * dead leaf stays reachable until its own tower is unlinked).  So it is
 * never followed: a fresh descent to the last key below the dead leaf
 * reaches only leaves reachable now, and ends strictly left of it; another
 * dead leaf met there is passed the same way, and the head never dies.
 *
 * Context: rcu_read_lock() held.
 * Return: a live leaf whose lower fence is below @dead's.
 */
struct sl_leaf *sl_left_of_dead(struct sl_list *list, struct sl_leaf *dead)
{
	struct sl_leaf *leaf = dead;
	unsigned int loads = 0;

	do {
		leaf = sl_descend(list, leaf->lo - 1, &loads);
	} while (READ_ONCE(leaf->dead));
	sl_count_flush(loads);
	return leaf;
}

/*
 * An open snapshot of the leaf covering a key: what was read of it between
 * @seq and now.  The caller reads whatever else it needs from the leaf and
 * then closes the snapshot with read_seqcount_retry(&leaf->seq, seq); if
 * that fails, it locates again from @leaf.
 */
struct sl_pos {
	struct sl_leaf *leaf;
	unsigned int seq;
	int nr;
	int idx;	/* the last key <= the search key, -1 if none */
	bool exact;	/* keys[idx] is the search key */
};

/*
 * Open a snapshot of the leaf covering @key, starting from @leaf (a guess
 * from the descent) and moving left or right by the fences until the
 * snapshot proves it covers @key.
 */
static __always_inline void sl_locate(struct sl_list *list,
				      struct sl_pos *pos,
				      struct sl_leaf *leaf, unsigned long key,
				      unsigned int *loads)
{
	for (;;) {
		unsigned int seq = read_seqcount_begin(&leaf->seq);
		enum sl_fence fence;
		struct sl_leaf *next;

		if (READ_ONCE(leaf->dead)) {
			leaf = sl_left_of_dead(list, leaf);
			continue;
		}
		pos->nr = sl_snapshot_nr(leaf);
		pos->idx = sl_snapshot_floor(leaf->keys, pos->nr,
					     sl_snapshot_guess(leaf, pos->nr,
							       key, loads),
					     key, &pos->exact, loads);
		fence = sl_snapshot_fence(leaf, pos->nr, pos->idx, pos->exact,
					  key, loads);
		if (fence == SL_COVERED) {
			pos->leaf = leaf;
			pos->seq = seq;
			return;
		}
		next = sl_step(leaf, fence);
		if (!read_seqcount_retry(&leaf->seq, seq))
			leaf = next;
		else
			sl_read_retried(list, leaf, key, SL_TRACE_RETRY_LOCATE);
	}
}

/*
 * Read the last slot of the leaf before @leaf, from a snapshot of its own,
 * while the caller's snapshot of @leaf is still open.  Returns false if the
 * back pointer was stale or the snapshot torn, and the caller must retry.
 * *slot is NULL when there is no earlier slot (only the head can be empty).
 */
static bool sl_read_prev_last(const struct sl_leaf *leaf,
			      struct sl_slot **slot, unsigned long *start,
			      unsigned int *loads)
{
	struct sl_leaf *prev = rcu_dereference(leaf->prev);
	unsigned int seq;
	int nr;

	*slot = NULL;
	if (!prev)
		return true;
	seq = read_seqcount_begin(&prev->seq);
	if (READ_ONCE(prev->dead) || rcu_dereference(prev->next) != leaf)
		return false;
	nr = sl_snapshot_nr(prev);
	if (nr) {
		sl_count(*loads);
		*start = READ_ONCE(prev->keys[nr - 1]);
		*slot = READ_ONCE(prev->slots[nr - 1]);
	}
	return !read_seqcount_retry(&prev->seq, seq);
}

/* sl_lookup(), inline in both of its callers below. */
static __always_inline struct sl_slot *sl_lookup_slot(struct sl_list *list,
						      unsigned long key)
{
	struct sl_leaf *leaf;
	struct sl_slot *slot;
	unsigned long start = 0;
	unsigned int loads = 0;
	struct sl_pos pos;

	leaf = sl_start(list, key, &loads);
	for (;;) {
		sl_locate(list, &pos, leaf, key, &loads);
		leaf = pos.leaf;
		sl_window(list, SL_WIN_LOOKUP_SNAPSHOT, .key = key, .leaf = leaf);
		if (pos.idx >= 0) {
			start = READ_ONCE(leaf->keys[pos.idx]);
			slot = READ_ONCE(leaf->slots[pos.idx]);
		} else if (!sl_read_prev_last(leaf, &slot, &start, &loads)) {
			sl_read_retried(list, leaf, key, SL_TRACE_RETRY_LOOKUP);
			continue;
		}
		if (!read_seqcount_retry(&leaf->seq, pos.seq))
			break;
		sl_read_retried(list, leaf, key, SL_TRACE_RETRY_LOOKUP);
	}
	sl_count_flush(loads);
	/*
	 * The snapshot held: @slot was in the list and its extent is stable.
	 * A slot starting at @key contains it without a look at its size.
	 */
	if (slot && (pos.exact || key - start < READ_ONCE(slot->size)))
		return slot;
	return NULL;
}

/* sl_lookup() while its event is enabled: timed, out of the way. */
static noinline struct sl_slot *sl_lookup_traced(struct sl_list *list,
						 unsigned long key)
{
	u64 t0 = ktime_get_ns();
	struct sl_slot *slot = sl_lookup_slot(list, key);

	trace_sl_lookup(list, key, !!slot, ktime_get_ns() - t0);
	return slot;
}

/**
 * sl_lookup() - find the slot containing a key
 * @list: the list
 * @key:  the unit to look for
 *
 * Context: Any context; caller holds rcu_read_lock().
 * Return: the slot whose extent contains @key, or NULL if none does.
 */
struct sl_slot *sl_lookup(struct sl_list *list, unsigned long key)
{
	/* A disabled event costs its static branch alone. */
	if (trace_sl_lookup_enabled())
		return sl_lookup_traced(list, key);
	return sl_lookup_slot(list, key);
}
EXPORT_SYMBOL_GPL(sl_lookup);

/*
 * First slot of the leaf after @leaf, from a snapshot of its own taken
 * while the caller's snapshot of @leaf is open.  Returns false on a torn
 * snapshot; *slot is NULL at the end of the list.
 */
static bool sl_read_next_first(const struct sl_leaf *leaf,
			       struct sl_slot **slot, unsigned long *start,
			       unsigned int *loads)
{
	struct sl_leaf *next = rcu_dereference(leaf->next);
	unsigned int seq;

	*slot = NULL;
	if (!next)
		return true;
	seq = read_seqcount_begin(&next->seq);
	if (READ_ONCE(next->dead))
		return false;
	if (sl_snapshot_nr(next)) {
		sl_count(*loads);
		*start = READ_ONCE(next->keys[0]);
		*slot = READ_ONCE(next->slots[0]);
	}
	return !read_seqcount_retry(&next->seq, seq);
}

/**
 * sl_first_overlap() - find the first slot overlapping a range
 * @list:  the list
 * @start: first unit of the range
 * @end:   one past the last unit of the range; must be above @start
 *
 * Context: Any context; caller holds rcu_read_lock().
 * Return: the slot with the lowest key whose extent overlaps
 * [@start, @end), or NULL if none does or the range is empty.
 */
struct sl_slot *sl_first_overlap(struct sl_list *list, unsigned long start,
				 unsigned long end)
{
	struct sl_slot *floor, *succ;
	unsigned long floor_key = 0, succ_key = 0;
	struct sl_leaf *leaf;
	unsigned int loads = 0;
	struct sl_pos pos;

	if (end <= start)
		return NULL;
	leaf = sl_start(list, start, &loads);
	for (;;) {
		sl_locate(list, &pos, leaf, start, &loads);
		leaf = pos.leaf;
		if (pos.idx >= 0) {
			floor_key = READ_ONCE(leaf->keys[pos.idx]);
			floor = READ_ONCE(leaf->slots[pos.idx]);
		} else if (!sl_read_prev_last(leaf, &floor, &floor_key,
					      &loads)) {
			sl_read_retried(list, leaf, start,
					SL_TRACE_RETRY_OVERLAP);
			continue;
		}
		succ = NULL;
		if (!pos.exact) {
			if (pos.idx + 1 < pos.nr) {
				sl_count(loads);
				succ_key = READ_ONCE(leaf->keys[pos.idx + 1]);
				succ = READ_ONCE(leaf->slots[pos.idx + 1]);
			} else if (!sl_read_next_first(leaf, &succ, &succ_key,
						       &loads)) {
				sl_read_retried(list, leaf, start,
						SL_TRACE_RETRY_OVERLAP);
				continue;
			}
		}
		if (!read_seqcount_retry(&leaf->seq, pos.seq))
			break;
		sl_read_retried(list, leaf, start, SL_TRACE_RETRY_OVERLAP);
	}
	sl_count_flush(loads);
	if (floor && start - floor_key < READ_ONCE(floor->size))
		return floor;
	if (succ && succ_key < end)
		return succ;
	return NULL;
}
EXPORT_SYMBOL_GPL(sl_first_overlap);

/*
 * Position the cursor: a snapshot of the leaf covering the first key >=
 * iter->pos (or the last leaf when past the end), with iter->idx the index
 * of that key in it (nr if the key lies in a later leaf).
 */
static void sl_iter_seek_from(struct sl_iter *iter, struct sl_leaf *leaf,
			      unsigned int loads)
{
	unsigned long key = iter->past_end ? ULONG_MAX : iter->pos;
	struct sl_pos pos;

	do {
		sl_locate(iter->list, &pos, leaf, key, &loads);
		leaf = pos.leaf;
		iter->leaf = leaf;
		iter->seq = pos.seq;
		/* First index with a key >= pos; past the end, after all. */
		if (iter->past_end)
			iter->idx = pos.nr;
		else
			iter->idx = pos.exact ? pos.idx : pos.idx + 1;
	} while (read_seqcount_retry(&leaf->seq, pos.seq));
	sl_count_flush(loads);
}

static void sl_iter_seek(struct sl_iter *iter)
{
	unsigned long key = iter->past_end ? ULONG_MAX : iter->pos;
	unsigned int loads = 0;

	sl_iter_seek_from(iter, sl_start(iter->list, key, &loads), loads);
}

/* The cursor's snapshot of @leaf did not hold: search again. */
static void sl_iter_reseek(struct sl_iter *iter, const struct sl_leaf *leaf)
{
	sl_read_retried(iter->list, leaf, iter->pos, SL_TRACE_RETRY_ITER);
	sl_iter_seek(iter);
}

/**
 * sl_iter_start_near() - sl_iter_start(), with a leaf known to be near @pos
 * @iter: the cursor
 * @list: the list to iterate
 * @pos:  where to start
 * @near: a leaf (live or dead) at or near the one covering @pos; the
 *        cursor is placed by walking from it along level 0, without a
 *        descent from the top (from a dead one, sl_locate() goes left by
 *        a descent: its next pointer is not followed, see the top)
 *
 * Context: rcu_read_lock() held.
 */
void sl_iter_start_near(struct sl_iter *iter, struct sl_list *list,
			unsigned long pos, struct sl_leaf *near)
{
	sl_iter_start(iter, list, pos);
	sl_iter_seek_from(iter, near, 0);
}

/*
 * Reuse the cursor's snapshot if its leaf has not changed since; otherwise
 * search again from the cursor's key.
 */
static void sl_iter_revalidate(struct sl_iter *iter)
{
	if (!iter->leaf || read_seqcount_begin(&iter->leaf->seq) != iter->seq)
		sl_iter_seek(iter);
}

/**
 * sl_iter_start() - place a cursor before the first slot with key >= @pos
 * @iter: the cursor
 * @list: the list to iterate
 * @pos:  where to start
 *
 * The cursor moves with sl_iter_next() and sl_iter_prev().  Under
 * concurrent updates every slot returned was in the list at some moment of
 * the call that returned it, keys come back in strictly increasing (or, for
 * sl_iter_prev(), decreasing) order, and a slot that stays in the list for
 * the whole walk is never skipped.
 *
 * Context: Any context; caller holds rcu_read_lock() for the whole walk.
 */
void sl_iter_start(struct sl_iter *iter, struct sl_list *list,
		   unsigned long pos)
{
	iter->list = list;
	iter->leaf = NULL;
	iter->pos = pos;
	iter->past_end = false;
}
EXPORT_SYMBOL_GPL(sl_iter_start);

/**
 * sl_iter_next() - return the slot after the cursor and move past it
 * @iter: a cursor set up by sl_iter_start()
 *
 * Context: Any context; caller holds rcu_read_lock().
 * Return: the first slot whose key is >= the cursor, or NULL at the end.
 */
struct sl_slot *sl_iter_next(struct sl_iter *iter)
{
	struct sl_slot *slot;
	unsigned long key;

	if (iter->past_end)
		return NULL;
	sl_iter_revalidate(iter);
	for (;;) {
		struct sl_leaf *leaf = iter->leaf;
		unsigned int seq = iter->seq;
		struct sl_leaf *next;
		int nr = sl_snapshot_nr(leaf);

		if (iter->idx < nr) {
			key = READ_ONCE(leaf->keys[iter->idx]);
			slot = READ_ONCE(leaf->slots[iter->idx]);
			if (read_seqcount_retry(&leaf->seq, seq)) {
				sl_iter_reseek(iter, leaf);
				continue;
			}
			iter->idx++;
			break;
		}
		/* The next key is further right: step along level 0. */
		next = rcu_dereference(leaf->next);
		if (read_seqcount_retry(&leaf->seq, seq)) {
			sl_iter_reseek(iter, leaf);
			continue;
		}
		if (!next)
			return NULL;
		iter->leaf = next;
		iter->seq = read_seqcount_begin(&next->seq);
		iter->idx = 0;
		if (READ_ONCE(next->dead) || next->lo < iter->pos)
			sl_iter_seek(iter);
	}
	if (key == ULONG_MAX)
		iter->past_end = true;
	else
		iter->pos = key + 1;
	return slot;
}
EXPORT_SYMBOL_GPL(sl_iter_next);

/**
 * sl_iter_prev() - return the slot before the cursor and move before it
 * @iter: a cursor set up by sl_iter_start()
 *
 * Context: Any context; caller holds rcu_read_lock().
 * Return: the last slot whose key is below the cursor, or NULL at the
 * start of the list.
 */
struct sl_slot *sl_iter_prev(struct sl_iter *iter)
{
	struct sl_slot *slot;
	unsigned long key;

	if (!iter->past_end && !iter->pos)
		return NULL;
	sl_iter_revalidate(iter);
	for (;;) {
		struct sl_leaf *leaf = iter->leaf;
		unsigned int seq = iter->seq;
		struct sl_leaf *prev;
		int nr = sl_snapshot_nr(leaf);

		if (iter->idx > 0) {
			int idx = iter->idx - 1;

			/* The leaf changed under the cursor (a torn count). */
			if (idx >= nr) {
				sl_iter_reseek(iter, leaf);
				continue;
			}
			key = READ_ONCE(leaf->keys[idx]);
			slot = READ_ONCE(leaf->slots[idx]);
			if (read_seqcount_retry(&leaf->seq, seq)) {
				sl_iter_reseek(iter, leaf);
				continue;
			}
			iter->idx = idx;
			break;
		}
		/* The key before lies further left: confirm the back link. */
		prev = rcu_dereference(leaf->prev);
		if (read_seqcount_retry(&leaf->seq, seq)) {
			sl_iter_reseek(iter, leaf);
			continue;
		}
		if (!prev)
			return NULL;
		iter->leaf = prev;
		iter->seq = read_seqcount_begin(&prev->seq);
		iter->idx = sl_snapshot_nr(prev);
		if (READ_ONCE(prev->dead) ||
		    rcu_dereference(prev->next) != leaf)
			sl_iter_seek(iter);
	}
	iter->pos = key;
	iter->past_end = false;
	return slot;
}
EXPORT_SYMBOL_GPL(sl_iter_prev);
