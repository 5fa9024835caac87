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
 * holds an upper bound of the largest gap owned by a key in that span.  A
 * search for @size units skips every span whose bound is below @size, so
 * it visits O(log n) spans when the bounds are tight.
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
 *    if the word is unchanged.  Any raise meeting a BUSY word clears it and
 *    bumps the generation, so the store fails.  Either the raise of level L
 *    comes after BUSY was set, and the store fails; or it came before, and
 *    then the raiser's change below level L was already visible to the
 *    recomputation (both sides order their write before their read with a
 *    full barrier).
 *  - A new link starts at SL_GAP_MAX ("unknown"), so splitting a span
 *    never needs its bound copied, and a raise that found the old cover
 *    re-checks whether a new link now covers its key.
 *  - Unlinking a dead leaf from level L merges its span into the
 *    predecessor's: the dead link's bound is raised into the predecessor's
 *    and the dead link is SEALED in one compare-and-exchange loop, so a
 *    raise either reaches the dead link before the seal (and is carried
 *    over) or finds the seal and looks for the new cover.
 * Bounds saturate at SL_GAP_MAX (2^48 - 1 units on 64-bit): a saturated
 * bound never prunes.  Insertions never lower a bound themselves; only
 * searches do, lazily.
 *
 * Documentation/extent.rst has the proof sketch in full.
 */
#include <linux/export.h>
#include "leaf.h"

/*
 * The gap word: bit 0 BUSY, bits 1-15 generation, bits 16 and up the
 * bound.  SL_GAP_SEALED marks the link of a leaf unlinked from that level.
 */
#define SL_GAP_BUSY		1UL
#define SL_GAP_GEN_SHIFT	1
#define SL_GAP_GEN_MASK		0x7fffUL
#define SL_GAP_BOUND_SHIFT	16
#define SL_GAP_SEALED		ULONG_MAX

static inline unsigned long sl_gap_bound(unsigned long word)
{
	return word >> SL_GAP_BOUND_SHIFT;
}

static inline unsigned long sl_gap_gen(unsigned long word)
{
	return (word >> SL_GAP_GEN_SHIFT) & SL_GAP_GEN_MASK;
}

static inline unsigned long sl_gap_pack(unsigned long bound,
					unsigned long gen)
{
	return (min(bound, SL_GAP_MAX) << SL_GAP_BOUND_SHIFT) |
		((gen & SL_GAP_GEN_MASK) << SL_GAP_GEN_SHIFT);
}

/* Whether a span whose word is @word may hold a gap of @size units. */
static inline bool sl_gap_may_fit(unsigned long word, unsigned long size)
{
	unsigned long bound = sl_gap_bound(word);

	return bound == SL_GAP_MAX || bound >= size;
}

/* The word a link starts with: nothing known yet. */
unsigned long sl_gap_unknown(void)
{
	return sl_gap_pack(SL_GAP_MAX, 0);
}

/*
 * Raise a bound to at least @gap.  Returns false if the link is sealed and
 * the caller must find the link that took its span over.  Ordered: a
 * compare-and-exchange is a full barrier, and the read that decides to do
 * nothing is an acquire, so whatever the caller reads next comes after.
 */
static bool sl_gap_raise_word(unsigned long *word, unsigned long gap)
{
	/* Acquire: what the caller reads after a no-op raise comes after. */
	unsigned long old = smp_load_acquire(word), new, seen;

	gap = min(gap, SL_GAP_MAX);
	for (;;) {
		if (old == SL_GAP_SEALED)
			return false;
		if (sl_gap_bound(old) >= gap && !(old & SL_GAP_BUSY))
			return true;
		new = sl_gap_pack(max(sl_gap_bound(old), gap),
				  sl_gap_gen(old) + 1);
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

/*
 * The leaf whose link at @level spans @key: the last one at that level
 * whose lower fence is at or below @key.
 */
static struct sl_leaf *sl_gap_cover(struct sl_list *list, unsigned long key,
				    unsigned int level)
{
	struct sl_leaf *leaf = list->head, *next;
	int l;

	for (l = READ_ONCE(list->level) - 1; l >= (int)level; l--) {
		for (;;) {
			next = rcu_dereference(sl_gap_link(leaf, l)->next);
			if (!next || next->lo > key)
				break;
			leaf = next;
		}
	}
	/* A level above the list's: only the head has a link there. */
	return leaf;
}

/*
 * The leaf whose link spans @key at every level below @top, in one
 * descent: @cover[level] for 1 <= level < @top.
 */
static void sl_gap_covers(struct sl_list *list, unsigned long key,
			  unsigned int top, struct sl_leaf **cover)
{
	struct sl_leaf *leaf = list->head, *next;
	int l;

	for (l = top - 1; l >= 1; l--) {
		for (;;) {
			next = rcu_dereference(sl_gap_link(leaf, l)->next);
			if (!next || next->lo > key)
				break;
			leaf = next;
		}
		cover[l] = leaf;
	}
}

/**
 * sl_gap_raise() - make every bound over a key at least a gap's size
 * @list: the list
 * @key:  the key that owns the gap (ULONG_MAX for the free run at the end)
 * @gap:  the size of the gap, at least 1
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

	/* Our change to the leaf before any bound is read (see above). */
	smp_mb();
	top = READ_ONCE(list->level);
	sl_gap_covers(list, key, top, covers);
	/* The list may grow a level meanwhile: re-read the level each time. */
	for (level = 1; level < READ_ONCE(list->level); level++) {
		struct sl_leaf *cover, *next;

		cover = level < top ? covers[level] :
			sl_gap_cover(list, key, level);

		for (;;) {
			if (!sl_gap_raise_word(&sl_gap_link(cover, level)->gap,
					       gap)) {
				cover = sl_gap_cover(list, key, level);
				continue;
			}
			/* A link made meanwhile may have taken the key over. */
			next = rcu_dereference(sl_gap_link(cover, level)->next);
			if (!next || next->lo > key)
				break;
			cover = next;
		}
	}
}

/**
 * sl_gap_absorb() - hand a dead link's span over to its predecessor
 * @dead:  the link of the leaf just unlinked at this level
 * @pred:  the predecessor's link at the same level, now pointing past it
 *
 * Context: the predecessor's lock held, after the unlink.
 */
void sl_gap_absorb(struct sl_link *dead, struct sl_link *pred)
{
	unsigned long old;

	/* The unlink before any bound is read. */
	smp_mb();
	old = READ_ONCE(dead->gap);
	for (;;) {
		unsigned long seen;

		if (old == SL_GAP_SEALED)
			return;
		sl_gap_raise_word(&pred->gap, sl_gap_bound(old));
		seen = cmpxchg(&dead->gap, old, SL_GAP_SEALED);
		if (seen == old)
			return;
		old = seen;
	}
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
	unsigned long found;
	bool count;		/* only measure the gaps, find nothing */
};

/* The outcome of a scan of one span's slots. */
enum sl_gap_scan {
	SL_GAP_NONE,	/* nothing fits in this span */
	SL_GAP_FOUND,	/* req->found is set */
	SL_GAP_STOP,	/* nothing fits here or anywhere after */
};

/*
 * Whether [@start, @start + size) fits in the free run [@start, @limit]
 * and under the request's room.
 */
static inline bool sl_gap_fits(const struct sl_gap_req *req,
			       unsigned long start, unsigned long limit)
{
	unsigned long last;

	if (req->count)
		return false;
	if (start > req->room || req->room - start < req->size - 1)
		return false;
	last = start + (req->size - 1);
	return last <= limit;
}

/*
 * Walk the gaps owned by keys in [@lo, @end) (to the end of the space and
 * the final free run if !@bounded), from req->from on, and return the
 * first that fits.  *largest is the largest gap seen, for tightening; it
 * covers the whole span only if req->from <= @lo.
 */
static enum sl_gap_scan sl_gap_scan(struct sl_list *list,
				    struct sl_leaf *owner, unsigned long end,
				    bool bounded, struct sl_gap_req *req,
				    unsigned long *largest)
{
	unsigned long pos = max(owner->lo, req->from), gap_start, start;
	unsigned long key = 0, prev_key = 0;
	struct sl_slot *slot, *prev;
	struct sl_iter iter;

	*largest = 0;
	sl_iter_start_near(&iter, list, pos, owner);
	/* The slot before the first owner ends where its gap begins. */
	prev = sl_iter_prev(&iter);
	if (prev) {
		prev_key = iter.pos;
		sl_iter_next(&iter);
	}
	for (;;) {
		slot = sl_iter_next(&iter);
		if (slot) {
			/* The cursor knows the key: no need to touch the slot. */
			key = iter.past_end ? ULONG_MAX : iter.pos - 1;
			if (bounded && key >= end)
				return SL_GAP_NONE;
			/*
			 * The slot before takes at least one unit, so the keys
			 * alone bound the gap: a search skips the look at the
			 * slot when that bound is already too small.
			 */
			if (prev && !req->count && key - prev_key - 1 < req->size) {
				*largest = max(*largest, key - prev_key - 1);
				goto next;
			}
		}
		gap_start = 0;
		if (prev && !sl_gap_after(prev, &gap_start))
			return SL_GAP_STOP;
		if (!slot) {
			if (bounded)
				return SL_GAP_NONE;
			/* The final free run, [gap_start, ULONG_MAX]. */
			*largest = max(*largest, ULONG_MAX - gap_start + 1 ?
				       ULONG_MAX - gap_start + 1 : ULONG_MAX);
			if (sl_gap_align(max(gap_start, req->from), req->align,
					 &start) &&
			    sl_gap_fits(req, start, ULONG_MAX)) {
				req->found = start;
				return SL_GAP_FOUND;
			}
			return SL_GAP_STOP;
		}
		if (key > gap_start) {
			*largest = max(*largest, key - gap_start);
			if (sl_gap_align(max(gap_start, req->from), req->align,
					 &start) &&
			    start < key && sl_gap_fits(req, start, key - 1)) {
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
 * The largest gap owned by keys in [@owner->lo, @end), counted from the
 * slots.
 */
static unsigned long sl_gap_count_slots(struct sl_list *list,
					struct sl_leaf *owner,
					unsigned long end, bool bounded)
{
	struct sl_gap_req all = {
		.from = owner->lo, .room = ULONG_MAX, .size = 1, .align = 1,
		.count = true,
	};
	unsigned long largest;

	sl_gap_scan(list, owner, end, bounded, &all, &largest);
	return largest;
}

/*
 * The largest bound among the links at @level - 1 whose spans lie in
 * [@owner->lo, @end).
 */
static unsigned long sl_gap_count_links(struct sl_list *list,
					struct sl_leaf *owner,
					unsigned int level, unsigned long end,
					bool bounded)
{
	struct sl_leaf *leaf = owner;
	unsigned long largest = 0;

	while (leaf && (!bounded || leaf->lo < end)) {
		struct sl_link *link = sl_gap_link(leaf, level - 1);
		/* Acquire: the next link is read after this bound. */
		unsigned long word = smp_load_acquire(&link->gap);

		/*
		 * A sealed link's span went to its predecessor, which may have
		 * been read here before it took the span over: give up.
		 */
		if (word == SL_GAP_SEALED)
			return SL_GAP_MAX;
		largest = max(largest, sl_gap_bound(word));
		sl_window(list, SL_WIN_GAP_COUNT_LINK, .leaf = leaf,
			  .level = level);
		leaf = rcu_dereference(link->next);
	}
	return largest;
}

/*
 * Recompute the bound of @owner's link at @level from the level below,
 * unless a raise or another search gets in the way.
 */
static void sl_gap_tighten(struct sl_list *list, struct sl_leaf *owner,
			   unsigned int level)
{
	struct sl_link *link = sl_gap_link(owner, level);
	/* Acquire, though only the compare-and-exchange below orders. */
	unsigned long old = smp_load_acquire(&link->gap), busy, bound, end = 0;
	struct sl_leaf *next;

	if (old == SL_GAP_SEALED || (old & SL_GAP_BUSY))
		return;
	busy = sl_gap_pack(sl_gap_bound(old), sl_gap_gen(old) + 1) |
		SL_GAP_BUSY;
	if (cmpxchg(&link->gap, old, busy) != old)
		return;
	/* Everything read from here on comes after BUSY was set. */
	next = rcu_dereference(link->next);
	if (next)
		end = next->lo;
	if (READ_ONCE(owner->dead))
		bound = sl_gap_bound(old);
	else if (level == 1)
		bound = sl_gap_count_slots(list, owner, end, !!next);
	else
		bound = sl_gap_count_links(list, owner, level, end, !!next);
	bound = min(bound, sl_gap_bound(old));
	sl_window(list, SL_WIN_GAP_TIGHTEN, .key = owner->lo, .leaf = owner,
		  .level = level, .end = end);
	cmpxchg(&link->gap, busy, sl_gap_pack(bound, sl_gap_gen(busy) + 1));
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
	unsigned long largest;
	enum sl_gap_scan got;

	if (!top)
		return sl_gap_scan(list, list->head, 0, false, req,
				   &largest) == SL_GAP_FOUND;
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
		next = rcu_dereference(link->next);
		f->next = next;
		/* The word first: it shares the line, next->lo is a miss. */
		word = smp_load_acquire(&link->gap);
		/*
		 * A sealed link was unlinked after this walk passed its
		 * predecessor, whose bound was read without its span: look
		 * through it, its links still lead on.
		 */
		if (word != SL_GAP_SEALED && !sl_gap_may_fit(word, req->size))
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
				  !!next, req, &largest);
		if (got == SL_GAP_FOUND)
			return true;
		if (got == SL_GAP_STOP)
			return false;
		if (whole && largest < sl_gap_bound(word))
			sl_gap_tighten(list, leaf, level);
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
			sl_gap_tighten(list, f->leaf, level);
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
 *
 * Context: rcu_read_lock() held.
 * Return: true if a range was found (free when it was looked at).
 */
bool sl_gap_find(struct sl_list *list, unsigned long from, unsigned long room,
		 unsigned long size, unsigned long align, unsigned long *found)
{
	struct sl_gap_req req = {
		.from = from, .room = room, .size = size, .align = align,
	};

	if (from > room || room - from < size - 1)
		return false;
	if (!sl_gap_search(list, &req))
		return false;
	*found = req.found;
	return true;
}

/*
 * For sl_check(): the bound of @owner's link at @level must be at least
 * @largest, the largest gap owned by a key in its span, which the check
 * counted from the slots.  Only meaningful with no writer running.
 */
int sl_gap_check_link(struct sl_leaf *owner, unsigned int level,
		      unsigned long largest)
{
	unsigned long word = READ_ONCE(sl_gap_link(owner, level)->gap);

	if (word == SL_GAP_SEALED || (word & SL_GAP_BUSY)) {
		pr_err("skiplist: check failed: gap word %lx of a live link at level %u\n",
		       word, level);
		return -EUCLEAN;
	}
	if (sl_gap_bound(word) < min(largest, SL_GAP_MAX)) {
		pr_err("skiplist: check failed: level %u span from %lx bounds gaps by %lx, holds one of %lx\n",
		       level, owner->lo, sl_gap_bound(word), largest);
		return -EUCLEAN;
	}
	return 0;
}
