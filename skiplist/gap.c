// SPDX-License-Identifier: GPL-2.0
/*
 * The gap index: finding a free range in O(log n) instead of walking every
 * slot.
 *
 * Every gap between two slots belongs to the slot after it: the gap of a
 * slot is the free run between the end of the slot before it (or 0) and
 * its key; the free run after the last slot belongs to key ULONG_MAX.
 * Ownership goes by key, so it never moves when leaves split or merge.
 *
 * Every tower link above level 0, from leaf P to leaf N at level L, spans
 * the keys [P->lo, N->lo) (to the end when N is NULL), and its @gap word
 * holds an upper bound of the gaps owned by keys in that span: of the
 * largest one, and of how aligned a unit and an aligned block they hold
 * (the word's layout is below).  A search skips every span whose bound
 * says no gap there can hold the size at the alignment it asks for, so it
 * visits O(log n) spans when the bounds are tight, misaligned gaps too.
 *
 * Bounds may be too high, never too low.  Too high only costs a search a
 * wasted descent, after which it tightens the bound.  Keeping them from
 * ever being too low is the whole protocol:
 *  - A writer that creates or grows a gap (a delete merging two gaps, an
 *    insert whose own gap is new) raises the bound of every link whose span
 *    holds the owner key, bottom up, after its change to the leaf (with a
 *    full barrier in between).  A raise that finds the bound high enough
 *    and no recomputation in progress only reads.
 *  - A search that tightens a link's bound first marks the word BUSY, then
 *    recomputes the bound from what lies one level below (the bounds of the
 *    links there, or the slots themselves at level 1), and stores it only
 *    if the word is unchanged.  Any raise meeting a BUSY word also sets
 *    DIRTY, so the store fails.  Either the raise of level L comes after
 *    BUSY was set, and the store fails; or it came before, and then the
 *    raiser's change below level L was already visible to the
 *    recomputation (both sides order their write before their read with a
 *    full barrier).
 *  - BUSY belongs to the tightening that set it: no other tightening starts
 *    on a BUSY word, and only the owner clears BUSY and DIRTY, by its store
 *    or, when that fails, by dropping the flags and keeping the raised
 *    bound.  Meanwhile the word only grows (a higher bound, DIRTY) or is
 *    sealed, so it can never come back to the value the owner set, however
 *    long the owner stalls (a reader preempted under preemptible RCU).  A
 *    generation counted in the word instead would come back: 2^15 raises
 *    and tightenings of a 15-bit one let a stalled store through
 *    (gap_generation_wrap in test_skiplist.c).  While a tightening is
 *    stalled, its link keeps whatever bound the raises leave, which is
 *    never too low, and is not tightened.
 *  - A new link starts unknown (sl_gap_unknown(): every part of its bound
 *    at the top), so splitting a span never needs its bound copied, and a
 *    raise that found the old cover re-checks whether a new link now
 *    covers its key.
 *  - Unlinking a dead leaf D from level L merges its span into that of its
 *    predecessor P.  Under P's lock the unlinker SEALs D's link first (an
 *    exchange, which returns D's last bound), then raises P's bound to it,
 *    and only then points P past D (sl_gap_absorb(), sl_unlink_level()).
 *    A raise either reaches D before the seal, and is carried over, or
 *    finds the seal.  A raise's walk looks through sealed links to the
 *    last unsealed one at or before its key: while D stays reachable its
 *    span is P's already.
 *  - Whoever reads a link reads its next pointer first and its bound after
 *    (a read barrier between).  So a pointer that already skips D comes
 *    with P's bound raised over D's span, and a pointer that still leads
 *    to D leads to D's own link: a search looks through it if sealed, and
 *    a recount of level L + 1 gives up on a sealed one.  Read the other
 *    way round, or with P pointed past D before the raise, a recount of
 *    level L + 1 could take P's bound from before the raise and its
 *    pointer from after the switch, skip D's span, and store a bound that
 *    misses it for good, and a search could skip it (gap_count_unlink,
 *    gap_unlink_window in test_skiplist.c).
 *  - A tightening of P's own link at level L ends its span past every
 *    sealed link after P, whose spans are becoming P's.  If it finds D's
 *    link not sealed yet, the seal, and the raise of P after it, come
 *    after its BUSY, so its store fails.
 *  - Linking a new leaf N after P at level L shortens P's span instead,
 *    and a tightening of P may then lower P's bound to the gaps before N.
 *    Whoever read P's pointer before the link and reads that bound would
 *    skip N's span.  So a tightening that lowers a bound first marks DIRTY
 *    the link one level up whose span holds it (sl_gap_lowering()): a
 *    recount of that link that read P's old pointer fails its store, and
 *    one that sets BUSY later reads the new pointer.  A search reads the
 *    pointer again after the bound and reads the link again if it changed
 *    (gap_count_link, gap_search_link in test_skiplist.c).  Only a leaf
 *    linked after P, P tightened, and the leaf merged away and unlinked
 *    again, all between a search's two reads of P's pointer, can still make
 *    that one search miss the leaf's gaps; no bound goes too low.
 *  - Until the first gap search of a list, no bound was ever tightened, so
 *    every one is still unknown (at the top) and no raise can change it.
 *    Raises are skipped then: a list nobody searches for gaps (an extent
 *    map, a memtable) pays no walk of the towers for them on each insert
 *    and delete.  The first search sets @list->gaps_searched, then a full
 *    barrier; a raise reads it after its own full barrier (after its
 *    change to the leaf).  A raise that reads it unset has its change seen
 *    by every tightening that follows a search's setting (or reading) of
 *    it: each tightening reads the leaves after its compare-and-exchange
 *    of BUSY, a full barrier, so store buffering (the setter) and
 *    read-write causality (a later search, which read it set) forbid it
 *    to miss the change.
 * Bounds saturate at SL_GAP_MAX (2^48 - 1 units on 64-bit): a saturated
 * size never prunes by size.  Insertions never lower a bound themselves;
 * only searches do, lazily.  The three parts of a bound are maxima over
 * the same gaps, so "higher" and "lower" go part by part and every rule
 * above holds for each part.
 *
 * Documentation/extent.rst has the proof sketch in full.
 */
#include <linux/export.h>
#include <linux/log2.h>
#include "leaf.h"
#include <trace/events/skiplist.h>

/*
 * Spans and slots that gap searches looked at, tightenings included, so
 * that tests can bound a search's work by counts rather than times.
 * Counted where key loads are (leaf.h); a search adds its count once.
 */
#ifdef SL_COUNT_KEY_LOADS
static DEFINE_PER_CPU(unsigned long, sl_gap_visit_count);
#endif

/**
 * sl_gap_visits() - spans and slots gap searches have looked at so far
 *
 * Context: Any context.
 * Return: the count over all lists and CPUs, or 0 in builds that do not
 * count (SL_COUNT_KEY_LOADS).
 */
unsigned long sl_gap_visits(void)
{
	unsigned long sum = 0;
#ifdef SL_COUNT_KEY_LOADS
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(sl_gap_visit_count, cpu);
#endif
	return sum;
}
EXPORT_SYMBOL_GPL(sl_gap_visits);	/* test_skiplist.ko; declared in leaf.h */

/**
 * sl_gap_retried() - count and trace a gap-index step taken again
 * @list:  the list
 * @level: the tower level concerned (0 for a hole taken by another writer)
 * @why:   SL_TRACE_GAP_* (trace/events/skiplist.h)
 *
 * Out of line: only the paths that retry call it.
 *
 * Context: rcu_read_lock() held.
 */
noinline __cold void sl_gap_retried(struct sl_list *list, unsigned int level,
				    unsigned int why)
{
	sl_count_stat(list, SL_COUNT_GAP_RETRIES);
	trace_sl_gap_retry(list, level, why);
}

/*
 * The gap word: bit 0 BUSY, bit 1 DIRTY, the rest the bound.  A bound
 * holds three upper bounds on the gaps of a span, each the largest over
 * its gaps:
 *  - bits 16 and up, the size: the largest gap, saturating at SL_GAP_MAX,
 *    which stands for any size;
 *  - bits 2-7, the alignment: the largest a such that some free unit is a
 *    multiple of 2^a (0 is a multiple of everything: SL_GAP_LOG_MAX);
 *  - bits 8-13, the block: the largest b such that some gap holds 2^b
 *    units starting at a multiple of 2^b.
 * A request for @size units aligned to 2^k fits in a gap only if that gap
 * is at least @size long, has a free unit aligned to 2^k (where it starts)
 * and holds an aligned block of 2^min(k, log2 @size) units (its first
 * ones), so a span whose bound falls short on any of the three is pruned.
 * Where every gap is a single odd unit, for instance, an alignment of 2
 * prunes everything.  Each is a maximum, so bounds join and meet field by
 * field, and raising or tightening one works as for a single number.
 * Bits 14-15 are zero in every bound: SL_GAP_SEALED, all ones, marks the
 * link of a leaf unlinked from that level and is never a word in use.
 */
#define SL_GAP_BUSY		1UL
#define SL_GAP_DIRTY		2UL
#define SL_GAP_FLAGS		(SL_GAP_BUSY | SL_GAP_DIRTY)
#define SL_GAP_ALIGN_SHIFT	2
#define SL_GAP_BLOCK_SHIFT	8
#define SL_GAP_LOG_MASK		0x3fUL
#define SL_GAP_LOG_MAX		(8 * sizeof(unsigned long) - 1)
#define SL_GAP_SPARE		0xc000UL
#define SL_GAP_SIZE_SHIFT	16
#define SL_GAP_SEALED		ULONG_MAX

static inline unsigned long sl_gap_size(unsigned long bound)
{
	return bound >> SL_GAP_SIZE_SHIFT;
}

static inline unsigned int sl_gap_align_log(unsigned long bound)
{
	return (bound >> SL_GAP_ALIGN_SHIFT) & SL_GAP_LOG_MASK;
}

static inline unsigned int sl_gap_block_log(unsigned long bound)
{
	return (bound >> SL_GAP_BLOCK_SHIFT) & SL_GAP_LOG_MASK;
}

static inline unsigned long sl_gap_pack(unsigned long size, unsigned int align,
					unsigned int block)
{
	return min(size, SL_GAP_MAX) << SL_GAP_SIZE_SHIFT |
		(unsigned long)block << SL_GAP_BLOCK_SHIFT |
		(unsigned long)align << SL_GAP_ALIGN_SHIFT;
}

/* The bound in a word in use. */
static inline unsigned long sl_gap_bound(unsigned long word)
{
	return word & ~SL_GAP_FLAGS;
}

/* A bound of the gaps bounded by @a or by @b. */
static inline unsigned long sl_gap_join(unsigned long a, unsigned long b)
{
	return sl_gap_pack(max(sl_gap_size(a), sl_gap_size(b)),
			   max(sl_gap_align_log(a), sl_gap_align_log(b)),
			   max(sl_gap_block_log(a), sl_gap_block_log(b)));
}

/* The tightest bound that both @a and @b allow. */
static inline unsigned long sl_gap_meet(unsigned long a, unsigned long b)
{
	return sl_gap_pack(min(sl_gap_size(a), sl_gap_size(b)),
			   min(sl_gap_align_log(a), sl_gap_align_log(b)),
			   min(sl_gap_block_log(a), sl_gap_block_log(b)));
}

/* Whether bound @a allows every gap that bound @b does. */
static inline bool sl_gap_holds(unsigned long a, unsigned long b)
{
	return sl_gap_meet(a, b) == sl_gap_bound(b);
}

/*
 * The bound of the one free run [@first, @last]: its length; its most
 * aligned unit, a multiple of 2^h where h is the highest bit in which
 * @first - 1 and @last differ (no multiple of 2^(h + 1) lies between
 * them, a multiple of 2^h does); and its largest aligned block, of the
 * largest power of two not above the length if one fits, else of half
 * that, which always does.
 */
static unsigned long sl_gap_run(unsigned long first, unsigned long last)
{
	unsigned long len = last - first + 1, step, start;
	unsigned int align, block;

	align = first ? ilog2((first - 1) ^ last) : SL_GAP_LOG_MAX;
	if (!len)
		return sl_gap_pack(SL_GAP_MAX, SL_GAP_LOG_MAX, SL_GAP_LOG_MAX);
	block = ilog2(len);
	step = 1UL << block;
	start = (first + step - 1) & ~(step - 1);
	if (start < first || start > last || last - start < step - 1)
		block--;
	return sl_gap_pack(len, align, block);
}

/* The word a link starts with: nothing known yet. */
unsigned long sl_gap_unknown(void)
{
	return sl_gap_pack(SL_GAP_MAX, SL_GAP_LOG_MAX, SL_GAP_LOG_MAX);
}

/*
 * Raise a word's bound to allow at least what @bound does.  Returns false
 * if the link is sealed and the caller must find the link that took its
 * span over.  A word that a tightening holds BUSY is marked DIRTY, which
 * fails that tightening's store; once DIRTY, a raise that finds the bound
 * high enough only reads.  Ordered: a compare-and-exchange is a full
 * barrier, and the read that decides to do nothing is an acquire, so
 * whatever the caller reads next comes after.
 */
static bool sl_gap_raise_word(unsigned long *word, unsigned long bound)
{
	/* Acquire: what the caller reads after a no-op raise comes after. */
	unsigned long old = smp_load_acquire(word), new, seen;

	for (;;) {
		if (old == SL_GAP_SEALED)
			return false;
		if (sl_gap_holds(old, bound) &&
		    (old & SL_GAP_FLAGS) != SL_GAP_BUSY)
			return true;
		new = sl_gap_join(old, bound);
		if (old & SL_GAP_BUSY)
			new |= SL_GAP_FLAGS;
		seen = cmpxchg(word, old, new);
		if (seen == old)
			return true;
		old = seen;
	}
}

/* The link of @leaf at @level, which must be at least 1. */
static inline struct sl_link *sl_gap_link(struct sl_leaf *leaf,
					  unsigned int level)
{
	return sl_up(leaf, level);
}

static inline bool sl_gap_sealed(struct sl_leaf *leaf, unsigned int level)
{
	return READ_ONCE(sl_gap_link(leaf, level)->gap) == SL_GAP_SEALED;
}

/*
 * The leaf whose link at @level a raise for @key must reach: the last one
 * at that level whose lower fence is at or below @key and whose link there
 * is not sealed.  A sealed link stays reachable until its unlinker points
 * the predecessor past it, but its span is the predecessor's already
 * (sl_gap_absorb()), so the walk looks through it.
 *
 * One descent fills @cover[level] for @bottom <= level < @top, going down
 * from the cover found at each level.  If that cover's link one level down
 * turns out sealed, it was unlinked from both levels since it was read:
 * the descent starts again, and no longer meets it above (unlinks go top
 * down).  So it repeats only as often as other contexts unlink leaves.
 */
static void sl_gap_covers(struct sl_list *list, unsigned long key,
			  unsigned int top, unsigned int bottom,
			  struct sl_leaf **cover, unsigned long *visits)
{
	struct sl_leaf *leaf, *live, *next;
	int l;

again:
	leaf = list->head;
	for (l = top - 1; l >= (int)bottom; l--) {
		live = sl_gap_sealed(leaf, l) ? NULL : leaf;
		for (;;) {
			if (visits)
				(*visits)++;
			next = rcu_dereference(sl_gap_link(leaf, l)->next);
			if (!next || next->lo > key)
				break;
			leaf = next;
			if (!sl_gap_sealed(leaf, l))
				live = leaf;
		}
		if (!live) {
			sl_gap_retried(list, l, SL_TRACE_GAP_SEALED);
			/* The seal before the pointers read again. */
			smp_rmb();
			goto again;
		}
		leaf = live;
		cover[l] = leaf;
	}
}

/*
 * The first leaf after @leaf at @level whose link there is not sealed, or
 * NULL: where @leaf's span ends once the unlinks in progress are done.
 * A sealed link's leaf is dead, so its pointer no longer changes.
 */
static struct sl_leaf *sl_gap_next_live(struct sl_leaf *leaf,
					unsigned int level)
{
	struct sl_leaf *next = rcu_dereference(sl_gap_link(leaf, level)->next);

	while (next && sl_gap_sealed(next, level))
		next = rcu_dereference(sl_gap_link(next, level)->next);
	return next;
}

/**
 * sl_gap_raise() - make every bound over a key allow a gap
 * @list: the list
 * @key:  the key that owns the gap (ULONG_MAX for the free run at the end)
 * @gap:  the size of the gap, at least 1: it ends just below @key (or at
 *        ULONG_MAX, for the free run at the end)
 *
 * Called by a writer after the change that created or grew the gap is
 * visible in its leaf.
 *
 * Context: rcu_read_lock() held; no leaf lock needed.
 */
void sl_gap_raise(struct sl_list *list, unsigned long key, unsigned long gap)
{
	struct sl_leaf *covers[SL_MAX_HEIGHT];
	unsigned int level, top;
	unsigned long bound = sl_gap_run(key - gap, key - 1);

	/*
	 * Owned by ULONG_MAX, the gap may also be the run at the end, which
	 * includes its owner: bound both.
	 */
	if (key == ULONG_MAX)
		bound = sl_gap_join(bound, sl_gap_run(key - gap + 1, key));

	/* Our change to the leaf before any bound is read (see above). */
	smp_mb();
	/* No search yet: every bound is still unknown (see above). */
	if (!READ_ONCE(list->gaps_searched))
		return;
	top = READ_ONCE(list->level);
	sl_gap_covers(list, key, top, 1, covers, NULL);
	/* The list may grow a level meanwhile: re-read the level each time. */
	for (level = 1; level < READ_ONCE(list->level); level++) {
		struct sl_leaf *cover, *next;

		/* A level above the list's: only the head has a link there. */
		if (level >= top)
			sl_gap_covers(list, key, level + 1, level, covers,
				      NULL);
		cover = covers[level];
		for (;;) {
			if (!sl_gap_raise_word(&sl_gap_link(cover, level)->gap,
					       bound)) {
				/* Sealed since: its span went to its predecessor. */
				sl_gap_retried(list, level, SL_TRACE_GAP_SEALED);
				sl_gap_covers(list, key, level + 1, level, covers,
					      NULL);
				cover = covers[level];
				continue;
			}
			/* A link made meanwhile may have taken the key over. */
			next = sl_gap_next_live(cover, level);
			if (!next || next->lo > key)
				break;
			cover = next;
		}
	}
}

/**
 * sl_gap_absorb() - hand a dead link's span over to its predecessor
 * @dead:  the link of a dead leaf about to be unlinked at this level
 * @pred:  the predecessor's link at the same level, still pointing at it
 *
 * Seals the dead link, then raises the predecessor's bound to what the
 * dead one held; the caller points the predecessor past the dead leaf
 * only afterwards.  In that order, whoever reads the predecessor's new
 * pointer and then its bound sees the dead span's gaps in it, and a
 * tightening of the predecessor that read the old pointer either sees the
 * seal (and counts the dead span too) or is made to fail by the raise
 * (header of this file).
 *
 * Context: the predecessor's lock held, before its pointer is switched.
 */
void sl_gap_absorb(struct sl_link *dead, struct sl_link *pred)
{
	/* A full barrier: the seal before the raise below. */
	unsigned long old = xchg(&dead->gap, SL_GAP_SEALED);

	if (WARN_ON_ONCE(old == SL_GAP_SEALED))
		return;
	/* The predecessor is alive and locked: its link cannot be sealed. */
	sl_gap_raise_word(&pred->gap, sl_gap_bound(old));
}

/**
 * sl_gap_note() - raise the bounds over the free run at a unit
 * @list: the list
 * @key:  a unit that just became free: the key of a slot just removed, or
 *        the first unit a slot just gave up
 *
 * The run containing @key is owned by the next slot (or by ULONG_MAX at
 * the end).  Its neighbours are looked up after a full barrier, so that of
 * two neighbours removed at once from two leaves at least one sees the
 * other gone.
 *
 * Context: rcu_read_lock() held; no leaf lock.
 */
void sl_gap_note(struct sl_list *list, unsigned long key)
{
	struct sl_slot *before, *after;
	unsigned long start = 0, owner = ULONG_MAX, gap;
	struct sl_iter iter;

	/* The removal before the neighbours are read: see above. */
	smp_mb();
	/* No search yet: nothing to raise (file header). */
	if (!READ_ONCE(list->gaps_searched))
		return;
	sl_iter_start(&iter, list, key);
	after = sl_iter_next(&iter);
	if (after) {
		owner = after->key;
		sl_iter_prev(&iter);
	}
	before = sl_iter_prev(&iter);
	if (before) {
		if (sl_slot_last(before) == ULONG_MAX)
			return;
		start = sl_slot_last(before) + 1;
	}
	if (after)
		gap = owner - start;
	else
		gap = ULONG_MAX - start + 1 ? ULONG_MAX - start + 1 : ULONG_MAX;
	if (gap)
		sl_gap_raise(list, owner, gap);
}

/* End of a slot as the start of the next gap; false if it ends the space. */
static inline bool sl_gap_after(const struct sl_slot *slot,
				unsigned long *next)
{
	if (sl_slot_last(slot) == ULONG_MAX)
		return false;
	*next = sl_slot_last(slot) + 1;
	return true;
}

/* Round @x up to @align (a power of two); false if that wraps. */
static inline bool sl_gap_align(unsigned long x, unsigned long align,
				unsigned long *out)
{
	unsigned long up = (x + align - 1) & ~(align - 1);

	if (up < x)
		return false;
	*out = up;
	return true;
}

/* What a search is looking for. */
struct sl_gap_req {
	unsigned long from;	/* lowest start allowed */
	unsigned long room;	/* highest last unit allowed */
	unsigned long size;
	unsigned long align;
	unsigned int align_log;	/* log2(align) */
	unsigned int block_log;	/* a fit holds an aligned block of 2^this */
	unsigned long found;
	unsigned long visits;	/* spans and slots looked at */
	bool count;		/* only measure the gaps, find nothing */
};

/* Whether a span whose bound is @bound may hold what @req asks for. */
static inline bool sl_gap_may_fit(unsigned long bound,
				  const struct sl_gap_req *req)
{
	unsigned long size = sl_gap_size(bound);

	return (size == SL_GAP_MAX || size >= req->size) &&
		sl_gap_align_log(bound) >= req->align_log &&
		sl_gap_block_log(bound) >= req->block_log;
}

/* The outcome of a scan of one span's slots. */
enum sl_gap_scan {
	SL_GAP_NONE,	/* nothing fits in this span */
	SL_GAP_FOUND,	/* req->found is set */
	SL_GAP_STOP,	/* nothing fits here or anywhere after */
};

/*
 * The lowest start in the free run [@first, @last] where the request fits,
 * aligned, at or above req->from and under req->room.
 */
static inline bool sl_gap_start(const struct sl_gap_req *req,
				unsigned long first, unsigned long last,
				unsigned long *start)
{
	if (req->count ||
	    !sl_gap_align(max(first, req->from), req->align, start))
		return false;
	if (*start > last || *start > req->room ||
	    req->room - *start < req->size - 1)
		return false;
	return last - *start >= req->size - 1;
}

/*
 * Walk the gaps owned by keys in [@lo, @end) (to the end of the space and
 * the final free run if !@bounded), from req->from on, and return the
 * first that fits.  *seen bounds the gaps walked, for tightening; it
 * covers the whole span only if req->from <= @lo.
 */
static enum sl_gap_scan sl_gap_scan(struct sl_list *list,
				    struct sl_leaf *owner, unsigned long end,
				    bool bounded, struct sl_gap_req *req,
				    unsigned long *seen)
{
	unsigned long pos = max(owner->lo, req->from), gap_start, start;
	unsigned long key = 0, prev_key = 0;
	struct sl_slot *slot, *prev;
	struct sl_iter iter;

	*seen = 0;
	sl_iter_start_near(&iter, list, pos, owner);
	/* The slot before the first owner ends where its gap begins. */
	prev = sl_iter_prev(&iter);
	if (prev) {
		prev_key = iter.pos;
		sl_iter_next(&iter);
	}
	for (;;) {
		slot = sl_iter_next(&iter);
		req->visits++;
		if (slot) {
			/* The cursor knows the key: no need to touch the slot. */
			key = iter.past_end ? ULONG_MAX : iter.pos - 1;
			if (bounded && key >= end)
				return SL_GAP_NONE;
			/*
			 * The slot before takes at least one unit, so the keys
			 * alone bound the gap by [prev_key + 1, key - 1]: a
			 * search skips the look at the slot when even that run
			 * cannot hold what it asks for, misaligned or too short.
			 */
			if (prev && !req->count) {
				if (key - prev_key < 2)
					goto next;
				if (!sl_gap_start(req, prev_key + 1, key - 1,
						  &start)) {
					*seen = sl_gap_join(*seen,
							    sl_gap_run(prev_key + 1,
								       key - 1));
					goto next;
				}
			}
		}
		gap_start = 0;
		if (prev && !sl_gap_after(prev, &gap_start))
			return SL_GAP_STOP;
		if (!slot) {
			if (bounded)
				return SL_GAP_NONE;
			/* The final free run, [gap_start, ULONG_MAX]. */
			*seen = sl_gap_join(*seen, sl_gap_run(gap_start,
							      ULONG_MAX));
			if (sl_gap_start(req, gap_start, ULONG_MAX, &start)) {
				req->found = start;
				return SL_GAP_FOUND;
			}
			return SL_GAP_STOP;
		}
		if (key > gap_start) {
			*seen = sl_gap_join(*seen, sl_gap_run(gap_start, key - 1));
			if (sl_gap_start(req, gap_start, key - 1, &start)) {
				req->found = start;
				return SL_GAP_FOUND;
			}
		}
next:
		/* Every later gap starts beyond this slot. */
		if (!req->count && key > req->room)
			return SL_GAP_STOP;
		prev = slot;
		prev_key = key;
	}
}

/*
 * The bound of the gaps owned by keys in [@owner->lo, @end), counted from
 * the slots.
 */
static unsigned long sl_gap_count_slots(struct sl_list *list,
					struct sl_leaf *owner,
					unsigned long end, bool bounded,
					unsigned long *visits)
{
	struct sl_gap_req all = {
		.from = owner->lo, .room = ULONG_MAX, .size = 1, .align = 1,
		.count = true,
	};
	unsigned long bound;

	sl_gap_scan(list, owner, end, bounded, &all, &bound);
	*visits += all.visits;
	return bound;
}

/*
 * The join of the bounds of the links at @level - 1 whose spans lie in
 * [@owner->lo, @end).
 */
static unsigned long sl_gap_count_links(struct sl_list *list,
					struct sl_leaf *owner,
					unsigned int level, unsigned long end,
					bool bounded, unsigned long *visits)
{
	struct sl_leaf *leaf = owner;
	unsigned long bound = 0;

	while (leaf && (!bounded || leaf->lo < end)) {
		struct sl_link *link = sl_gap_link(leaf, level - 1);
		struct sl_leaf *next = rcu_dereference(link->next);
		unsigned long word;

		(*visits)++;
		/*
		 * The pointer before the bound: a pointer that skips a leaf
		 * unlinked here comes with a bound that holds its span, since
		 * the unlinker raised this bound before switching the pointer.
		 */
		smp_rmb();
		sl_window(list, SL_WIN_GAP_COUNT_LINK, .leaf = leaf,
			  .level = level);
		word = READ_ONCE(link->gap);
		/*
		 * A sealed link's span went to its predecessor, whose bound
		 * may have been read here before it took the span over: give
		 * up.
		 */
		if (word == SL_GAP_SEALED)
			return sl_gap_unknown();
		bound = sl_gap_join(bound, sl_gap_bound(word));
		leaf = next;
	}
	return bound;
}

/*
 * The cover of @key at @level (as sl_gap_covers()), found from @hint, a
 * leaf at that level at or before @key; NULL if none is found that way.
 * Every leaf linked at @level after @hint since is reachable from it,
 * unless @hint is sealed, which a later live leaf makes up for.  @hint's
 * link was just read by the search: only the leaves past it count.
 */
static struct sl_leaf *sl_gap_cover_near(struct sl_leaf *hint,
					 unsigned long key, unsigned int level,
					 unsigned long *visits)
{
	struct sl_leaf *leaf = hint, *live, *next;

	live = sl_gap_sealed(leaf, level) ? NULL : leaf;
	for (;;) {
		next = rcu_dereference(sl_gap_link(leaf, level)->next);
		if (!next || next->lo > key)
			return live;
		(*visits)++;
		leaf = next;
		if (!sl_gap_sealed(leaf, level))
			live = leaf;
	}
}

/*
 * Before a tightening of @owner's link at @level stores a lower bound:
 * mark DIRTY, as a raise would, the recount in progress (if any) of the
 * link one level up whose span holds @owner, so that its store fails.
 * That recount may have read @owner's next pointer before a leaf was
 * linked after @owner, and would pair it with the lower bound, which no
 * longer holds the new leaf's gaps: it would skip them and store a bound
 * that misses them for good (gap_count_link in test_skiplist.c).  A
 * recount that sets BUSY after this reads @owner's pointer after our
 * tightening read it (both sides order with a full barrier), and so pairs
 * the lower bound with the pointer to the new leaf, or a later one.
 * @above is the leaf whose span at @level + 1 held @owner when the search
 * passed there, or NULL.
 */
static void sl_gap_lowering(struct sl_list *list, struct sl_leaf *owner,
			    unsigned int level, struct sl_leaf *above,
			    unsigned long *visits)
{
	struct sl_leaf *covers[SL_MAX_HEIGHT], *cover = NULL;
	unsigned int top;

	/* Our read of @owner's pointer before the word above is read. */
	smp_mb();
	top = READ_ONCE(list->level);
	if (level + 1 >= top)
		return;
	if (above)
		cover = sl_gap_cover_near(above, owner->lo, level + 1, visits);
	/*
	 * Raising by nothing only marks a BUSY word DIRTY.  A sealed cover's
	 * recount cannot store; its predecessor's may now run over @owner.
	 */
	while (!cover || !sl_gap_raise_word(&sl_gap_link(cover, level + 1)->gap,
					    0)) {
		sl_gap_covers(list, owner->lo, top, level + 1, covers, visits);
		cover = covers[level + 1];
	}
}

/*
 * Recompute the bound of @owner's link at @level from the level below,
 * unless a raise or another search gets in the way.
 */
static void sl_gap_tighten(struct sl_list *list, struct sl_leaf *owner,
			   unsigned int level, struct sl_leaf *above,
			   unsigned long *visits)
{
	struct sl_link *link = sl_gap_link(owner, level);
	/* Acquire, though only the compare-and-exchange below orders. */
	unsigned long old = smp_load_acquire(&link->gap), busy, bound, end = 0;
	unsigned long seen;
	struct sl_leaf *next;

	/* BUSY is this tightening's alone until it clears it: see above. */
	if (old == SL_GAP_SEALED || (old & SL_GAP_BUSY))
		return;
	busy = old | SL_GAP_BUSY;
	if (cmpxchg(&link->gap, old, busy) != old)
		return;
	/*
	 * Everything read from here on comes after BUSY was set.  The span
	 * ends where it will once the unlinks in progress are done: a sealed
	 * link after this one is handing its span over to it.
	 */
	next = sl_gap_next_live(owner, level);
	if (next)
		end = next->lo;
	if (READ_ONCE(owner->dead))
		bound = old;
	else if (level == 1)
		bound = sl_gap_count_slots(list, owner, end, !!next, visits);
	else
		bound = sl_gap_count_links(list, owner, level, end, !!next,
					   visits);
	bound = sl_gap_meet(bound, old);
	sl_window(list, SL_WIN_GAP_TIGHTEN, .key = owner->lo, .leaf = owner,
		  .level = level, .end = end);
	if (bound != sl_gap_bound(old))
		sl_gap_lowering(list, owner, level, above, visits);
	seen = cmpxchg(&link->gap, busy, bound);
	if (seen != busy)
		sl_gap_retried(list, level, SL_TRACE_GAP_TIGHTEN_LOST);
	/*
	 * A raise got in (DIRTY) or the link was sealed: keep the bound they
	 * left and give BUSY back.  Only raises change the word meanwhile, so
	 * this ends as soon as they pause.
	 */
	while (seen != busy && seen != SL_GAP_SEALED) {
		old = seen;
		seen = cmpxchg(&link->gap, old, old & ~SL_GAP_FLAGS);
		if (seen == old)
			break;
	}
}

/* One level of a search in progress: the span being walked there. */
struct sl_gap_frame {
	struct sl_leaf *leaf;	/* owner of the span being looked at */
	struct sl_leaf *next;	/* where the span ends, NULL for the end */
	unsigned long end;	/* key where this level's walk must stop */
	bool bounded;		/* false: walk to the end of the space */
};

/*
 * The lowest start at or above req->from, aligned, where req->size units
 * fit with their last unit at or below req->room.  Descends only into
 * spans whose bound allows the size, left to right, and tightens each span
 * it had to look through in full without finding anything.
 */
static bool sl_gap_search(struct sl_list *list, struct sl_gap_req *req)
{
	struct sl_gap_frame frame[SL_MAX_HEIGHT];
	unsigned int top = READ_ONCE(list->level) - 1, level = top;
	unsigned long seen;
	enum sl_gap_scan got;

	if (!top)
		return sl_gap_scan(list, list->head, 0, false, req,
				   &seen) == SL_GAP_FOUND;
	frame[top].leaf = list->head;
	frame[top].bounded = false;
	frame[top].end = 0;
	for (;;) {
		struct sl_gap_frame *f = &frame[level];
		struct sl_leaf *leaf = f->leaf, *next;
		struct sl_link *link;
		unsigned long word;
		bool whole;

		if (!leaf || (f->bounded && leaf->lo >= f->end))
			goto up;
		link = sl_gap_link(leaf, level);
		req->visits++;
		next = rcu_dereference(link->next);
		f->next = next;
		/*
		 * The pointer before the word: a pointer past a leaf unlinked
		 * here comes with a word that holds its span (as in
		 * sl_gap_count_links()).
		 */
		smp_rmb();
		sl_window(list, SL_WIN_GAP_SEARCH_LINK, .leaf = leaf,
			  .level = level);
		/* The word before next->lo: it shares the line, next is a miss. */
		word = smp_load_acquire(&link->gap);
		/*
		 * And the pointer again (after the acquire): a leaf linked
		 * after this one since the first read shortened the span, and
		 * the word may hold a bound tightened to the shorter span,
		 * without the new leaf's gaps (gap_search_link).
		 */
		if (unlikely(rcu_access_pointer(link->next) != next)) {
			sl_gap_retried(list, level, SL_TRACE_GAP_RELINKED);
			continue;
		}
		/*
		 * A sealed link was unlinked after this walk passed its
		 * predecessor, whose bound was read without its span: look
		 * through it, its links still lead on.
		 */
		if (word != SL_GAP_SEALED &&
		    !sl_gap_may_fit(sl_gap_bound(word), req))
			goto right;
		/* Every key the span owns is below req->from. */
		if (next && next->lo <= req->from)
			goto right;
		whole = req->from <= leaf->lo;
		if (level > 1) {
			frame[level - 1].leaf = leaf;
			frame[level - 1].end = next ? next->lo : 0;
			frame[level - 1].bounded = !!next;
			level--;
			continue;
		}
		got = sl_gap_scan(list, leaf, next ? next->lo : 0,
				  !!next, req, &seen);
		if (got == SL_GAP_FOUND)
			return true;
		if (got == SL_GAP_STOP)
			return false;
		/* Worth a recount only if the gaps seen fall short of it. */
		if (whole && !sl_gap_holds(seen, sl_gap_bound(word)))
			sl_gap_tighten(list, leaf, level,
				       level < top ? frame[level + 1].leaf : NULL,
				       &req->visits);
right:
		f->leaf = f->next;
		continue;
up:
		if (level == top)
			return false;
		level++;
		f = &frame[level];
		/* The span below was looked through: tighten it if whole. */
		if (req->from <= f->leaf->lo)
			sl_gap_tighten(list, f->leaf, level,
				       level < top ? frame[level + 1].leaf : NULL,
				       &req->visits);
		f->leaf = f->next;
	}
}

/**
 * sl_gap_find() - find the lowest free aligned range in a window
 * @list:  the list
 * @from:  lowest start allowed
 * @room:  highest last unit allowed
 * @size:  units, at least 1
 * @align: alignment, a power of two
 * @found: the start, on success
 * @visits: spans and slots the search looked at are added here, or NULL
 *
 * Context: rcu_read_lock() held.
 * Return: true if a range was found (free when it was looked at).
 */
bool sl_gap_find(struct sl_list *list, unsigned long from, unsigned long room,
		 unsigned long size, unsigned long align, unsigned long *found,
		 unsigned long *visits)
{
	struct sl_gap_req req = {
		.from = from, .room = room, .size = size, .align = align,
		.align_log = ilog2(align),
		.block_log = min(ilog2(align), ilog2(size)),
	};
	bool ok;

	if (from > room || room - from < size - 1)
		return false;
	if (!READ_ONCE(list->gaps_searched)) {
		WRITE_ONCE(list->gaps_searched, 1);
		/* Raises are made from now on: the flag before any leaf read. */
		smp_mb();
	}
	ok = sl_gap_search(list, &req);
#ifdef SL_COUNT_KEY_LOADS
	this_cpu_add(sl_gap_visit_count, req.visits);
#endif
	if (visits)
		*visits += req.visits;
	if (ok)
		*found = req.found;
	return ok;
}

/* For sl_check(): the bound of the free run [@first, @last]. */
unsigned long sl_gap_check_run(unsigned long first, unsigned long last)
{
	return sl_gap_run(first, last);
}

/* For sl_check(): a bound of the gaps bounded by @a or by @b. */
unsigned long sl_gap_check_join(unsigned long a, unsigned long b)
{
	return sl_gap_join(a, b);
}

/*
 * For sl_check(): the bound of @owner's link at @level must allow every
 * gap that @real does, the join of the bounds of the gaps owned by a key
 * in its span, which the check counted from the slots.  Only meaningful
 * with no writer running.
 */
int sl_gap_check_link(struct sl_leaf *owner, unsigned int level,
		      unsigned long real)
{
	unsigned long word = READ_ONCE(sl_gap_link(owner, level)->gap);

	if (word & (SL_GAP_FLAGS | SL_GAP_SPARE)) {
		pr_err("skiplist: check failed: gap word %lx of a live link at level %u\n",
		       word, level);
		return -EUCLEAN;
	}
	if (sl_gap_size(word) < sl_gap_size(real)) {
		pr_err("skiplist: check failed: level %u span from %lx bounds gaps by %lx, holds one of %lx\n",
		       level, owner->lo, sl_gap_size(word), sl_gap_size(real));
		return -EUCLEAN;
	}
	if (!sl_gap_holds(word, real)) {
		pr_err("skiplist: check failed: level %u span from %lx bounds alignment by 2^%u and blocks by 2^%u, holds a unit aligned to 2^%u and a block of 2^%u\n",
		       level, owner->lo, sl_gap_align_log(word),
		       sl_gap_block_log(word), sl_gap_align_log(real),
		       sl_gap_block_log(real));
		return -EUCLEAN;
	}
	return 0;
}
