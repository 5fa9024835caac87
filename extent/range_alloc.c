// SPDX-License-Identifier: GPL-2.0
/*
 * The range allocator: live ranges are slots in a skiplist and free space
 * is the gaps between them, so an allocation is sl_insert_hole() and a
 * free is sl_erase().  The skiplist's gap index makes the search
 * logarithmic in the number of live ranges, and its per-leaf locks let
 * allocations in different parts of the space proceed in parallel: each
 * CPU starts its search where its last allocation ended, and the CPUs
 * start out spread over the space.
 *
 * The per-CPU caches (SL_RANGE_CACHE) keep freed ranges of up to
 * SL_RANGE_CACHE_SIZES units in the index, marked cached, and hand them out
 * again to sl_range_alloc_cpu() requests of the same size: a free is then
 * a push, an allocation a pop, each under the CPU's local lock (interrupts
 * off, no atomic instruction) with one compare-and-exchange on the range's
 * state.  No other CPU ever writes a cache's stacks: a request that finds
 * no room, or a reservation that collides, reads them (sl_range_reclaim()),
 * takes the cached ranges it finds there back by that same exchange,
 * erases them and tries once more, and the cache that still holds such a
 * range drops it when it comes to it.  Whichever of the two is last frees
 * its memory.  A reader of another CPU's stack loads the count with
 * acquire, which pairs with the push's release of it: the entries below
 * the count it read are those the pushes stored, never older ones.
 *
 * With the caches, each CPU also remembers the ranges it handed out last,
 * in a small table hashed by start, so that a free on the CPU that
 * allocated finds its range without a lookup in the index.  An entry is
 * only a hint: the free trusts it only if the range there starts at the
 * address freed, has the size freed, and is live, which it checks by
 * moving the range's state out of live with one compare-and-exchange, as
 * a free through the index does.  A range leaves every table before it is
 * erased, so that an entry read inside an RCU read-side section (the
 * local lock's, with interrupts off) never points to freed memory.  A free
 * that misses the table searches the index with interrupts on, and takes
 * the local lock again only to push.
 *
 * Nothing here holds a CPU atomically for work that grows with the number
 * of ranges: sl_range_stats() walks SL_RANGE_BATCH ranges per read-side
 * section, a reclaim reads one CPU's stacks per section and erases at most
 * SL_RANGE_RECLAIM_BATCH ranges between chances to reschedule.
 *
 * The shadow bitmap (SL_RANGE_SHADOW) is a debug mode: one bit per unit,
 * under one spinlock, set on every allocation and cleared on every free.
 * An allocation that finds a bit already set, or a free that finds one
 * clear, is an overlap or a leak the index let through; both are counted
 * and reported.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/bitmap.h>
#include <linux/log2.h>
#include <linux/cpumask.h>
#include <linux/hash.h>
#include <linux/local_lock.h>
#include <linux/sched.h>
#include <linux/build_bug.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "range_alloc.h"
#include "window.h"
#include <trace/events/sl_extent.h>

/* A reclaim reads a whole stack per step: its batch must hold one. */
static_assert(SL_RANGE_RECLAIM_BATCH >= SL_RANGE_CACHE_DEPTH);

/*
 * A range in the index; the allocator owns these.  A free moves its state
 * out of live only by compare-and-exchange, so that of two frees of one
 * range exactly one wins and the other is reported as the double free it
 * is.  Into live it moves only by the allocation that holds it.
 */
struct sl_range {
	struct sl_slot slot;
	struct rcu_head rcu;
	unsigned int state;
};

enum sl_range_state {
	SL_RANGE_LIVE,		/* allocated by a caller */
	SL_RANGE_CACHED,	/* freed into a CPU's cache, still indexed */
	SL_RANGE_FREEING,	/* claimed by a free or a reclaim: theirs alone */
	SL_RANGE_NEW,		/* indexed, not handed out yet */
	SL_RANGE_ORPHANED,	/* reclaimed and erased; its cache frees it */
	SL_RANGE_ABANDONED,	/* dropped by its cache; the reclaim frees it */
};

/*
 * One CPU's cache: stacks of freed ranges, one per size.  Only its own
 * CPU writes the stacks, under the local lock; a reclaim on another CPU
 * reads them, without the lock, inside an RCU read-side section.
 */
struct sl_range_cache {
	local_lock_t lock;	/* guards the stacks and the counts */
	/* Allocations the stacks served, and those they could not. */
	unsigned long hits;
	unsigned long misses;
	/* Frees the stacks kept. */
	unsigned long kept;
	unsigned char nr[SL_RANGE_CACHE_SIZES];
	struct sl_range *ranges[SL_RANGE_CACHE_SIZES][SL_RANGE_CACHE_DEPTH];
	/* Ranges this CPU handed out, by hash of start; lockless, hints. */
	struct sl_range *recent[SL_RANGE_RECENT];
};

static unsigned int sl_range_recent_slot(unsigned long start)
{
	return hash_long(start, SL_RANGE_RECENT_BITS);
}

/*
 * Take a range out of every CPU's table, before it is erased and its
 * memory handed to kfree_rcu(): a free still holding the entry it read is
 * inside its own RCU read-side section.  An entry is stored before its
 * range becomes live (sl_range_handed_out()), and a range stops being live
 * before it is erased, so no entry can appear behind this scan.
 */
static void sl_range_forget(struct sl_range_alloc *ra, struct sl_range *range)
{
	unsigned int slot = sl_range_recent_slot(range->slot.key), cpu;

	smp_mb();	/* the state leaves live, then the entries are read */
	for_each_possible_cpu(cpu) {
		struct sl_range **entry = &per_cpu_ptr(ra->cache, cpu)->recent[slot];

		if (READ_ONCE(*entry) == range)
			cmpxchg(entry, range, NULL);
	}
}

/* The largest space the shadow bitmap covers: 2^28 units, 32 MiB. */
#define SL_RANGE_SHADOW_MAX	BIT(28)

struct sl_range_shadow {
	spinlock_t lock;	/* guards @bits */
	unsigned long *bits;
	atomic_long_t errors;
};

/* Units in the space; 0 stands for the whole of unsigned long. */
static unsigned long sl_range_span(const struct sl_range_alloc *ra)
{
	return ra->end - ra->start;
}

static noinline void sl_shadow_claim_bits(struct sl_range_alloc *ra,
					  unsigned long start,
					  unsigned long size)
{
	struct sl_range_shadow *sh = ra->debug;
	unsigned long first = start - ra->start, flags;

	spin_lock_irqsave(&sh->lock, flags);
	if (find_next_bit(sh->bits, first + size, first) < first + size) {
		atomic_long_inc(&sh->errors);
		pr_err_ratelimited("sl_range: shadow: [%lu, +%lu) handed out while partly in use\n",
				   start, size);
	}
	bitmap_set(sh->bits, first, size);
	spin_unlock_irqrestore(&sh->lock, flags);
}

static noinline void sl_shadow_release_bits(struct sl_range_alloc *ra,
					    unsigned long start,
					    unsigned long size)
{
	struct sl_range_shadow *sh = ra->debug;
	unsigned long first = start - ra->start, flags;

	spin_lock_irqsave(&sh->lock, flags);
	if (find_next_zero_bit(sh->bits, first + size, first) < first + size) {
		atomic_long_inc(&sh->errors);
		pr_err_ratelimited("sl_range: shadow: [%lu, +%lu) freed while partly free\n",
				   start, size);
	}
	bitmap_clear(sh->bits, first, size);
	spin_unlock_irqrestore(&sh->lock, flags);
}

/*
 * The shadow's checks, when it is on; inline, so that without it the
 * cached paths make no call (under emulation each call and return costs
 * a lookup of the next translation block).
 */
static __always_inline void sl_shadow_claim(struct sl_range_alloc *ra,
					    unsigned long start,
					    unsigned long size)
{
	if (unlikely(ra->debug))
		sl_shadow_claim_bits(ra, start, size);
}

static __always_inline void sl_shadow_release(struct sl_range_alloc *ra,
					      unsigned long start,
					      unsigned long size)
{
	if (unlikely(ra->debug))
		sl_shadow_release_bits(ra, start, size);
}

static int sl_shadow_init(struct sl_range_alloc *ra, gfp_t gfp)
{
	unsigned long span = sl_range_span(ra);
	struct sl_range_shadow *sh;

	if (!span || span > SL_RANGE_SHADOW_MAX) {
		pr_err("sl_range: shadow bitmap needs a space of at most %lu units\n",
		       SL_RANGE_SHADOW_MAX);
		return -EINVAL;
	}
	sh = kzalloc(sizeof(*sh), gfp);
	if (!sh)
		return -ENOMEM;
	sh->bits = kvcalloc(BITS_TO_LONGS(span), sizeof(long), gfp);
	if (!sh->bits) {
		kfree(sh);
		return -ENOMEM;
	}
	spin_lock_init(&sh->lock);
	atomic_long_set(&sh->errors, 0);
	ra->debug = sh;
	return 0;
}

/**
 * sl_range_init() - set up an allocator for the space [start, end)
 * @ra:    the allocator
 * @start: first unit of the space
 * @end:   end of the space, exclusive, above @start; 0 means up to and
 *         including ULONG_MAX
 * @flags: 0, or any of SL_RANGE_SHADOW to check every operation on a
 *         bitmap (spaces of at most 2^28 units) and SL_RANGE_CACHE for
 *         per-CPU caches of freed ranges (see range_alloc.h)
 * @gfp:   allocation flags for the allocator's own memory (the per-CPU
 *         hints and caches, the index's first leaf, the bitmap of up to
 *         32 MiB): GFP_KERNEL, or GFP_KERNEL_ACCOUNT when a user asked
 *         for the allocator, so that its memory cgroup pays for it
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for an empty space, unknown flags or a shadow bitmap
 * on too large a space; -ENOMEM.
 */
int sl_range_init(struct sl_range_alloc *ra, unsigned long start,
		  unsigned long end, unsigned int flags, gfp_t gfp)
{
	unsigned long step;
	unsigned int cpu, n = 0;
	int ret;

	if (flags & ~(SL_RANGE_SHADOW | SL_RANGE_CACHE)) {
		pr_err("sl_range: unknown flags %#x\n", flags);
		return -EINVAL;
	}
	if (end && end <= start) {
		pr_err("sl_range: empty space [%lu, %lu)\n", start, end);
		return -EINVAL;
	}
	memset(ra, 0, sizeof(*ra));
	ra->start = start;
	ra->end = end;
	ra->hint = alloc_percpu_gfp(unsigned long, gfp);
	if (!ra->hint)
		return -ENOMEM;
	/* Spread the CPUs' first searches evenly over the space. */
	step = (sl_range_span(ra) ? sl_range_span(ra) : ULONG_MAX) /
		num_possible_cpus();
	for_each_possible_cpu(cpu) {
		unsigned long *hint = per_cpu_ptr(ra->hint, cpu);

		*hint = start + step * n++;
	}
	if (flags & SL_RANGE_CACHE) {
		ra->cache = alloc_percpu_gfp(struct sl_range_cache, gfp);
		if (!ra->cache) {
			ret = -ENOMEM;
			goto out_hint;
		}
		for_each_possible_cpu(cpu)
			local_lock_init(&per_cpu_ptr(ra->cache, cpu)->lock);
	}
	ret = sl_init(&ra->list, gfp);
	if (ret)
		goto out_cache;
	if (flags & SL_RANGE_SHADOW) {
		ret = sl_shadow_init(ra, gfp);
		if (ret)
			goto out_list;
	}
	return 0;

out_list:
	sl_destroy(&ra->list, NULL, NULL);
out_cache:
	free_percpu(ra->cache);
out_hint:
	free_percpu(ra->hint);
	return ret;
}
EXPORT_SYMBOL_GPL(sl_range_init);

static void sl_range_free_slot(struct sl_slot *slot, void *arg)
{
	kfree(container_of(slot, struct sl_range, slot));
}

/**
 * sl_range_destroy() - free an allocator and every range still in it
 * @ra: the allocator
 *
 * An allocator still in debugfs is taken out first
 * (sl_range_debugfs_remove()).
 *
 * Context: Process context; no other function may run on @ra.
 */
void sl_range_destroy(struct sl_range_alloc *ra)
{
	unsigned int cpu, i, n;

	sl_range_debugfs_remove(ra);
	/*
	 * Reclaimed ranges a cache still holds are only there; the others
	 * are in the index and go with it, after this reads their state.
	 */
	for_each_possible_cpu(cpu) {
		struct sl_range_cache *cache;

		if (!ra->cache)
			break;
		cache = per_cpu_ptr(ra->cache, cpu);
		for (i = 0; i < SL_RANGE_CACHE_SIZES; i++)
			for (n = 0; n < cache->nr[i]; n++)
				if (cache->ranges[i][n]->state == SL_RANGE_ORPHANED)
					kfree(cache->ranges[i][n]);
	}
	sl_destroy(&ra->list, sl_range_free_slot, NULL);
	free_percpu(ra->cache);
	free_percpu(ra->hint);
	if (ra->debug) {
		kvfree(ra->debug->bits);
		kfree(ra->debug);
		ra->debug = NULL;
	}
}
EXPORT_SYMBOL_GPL(sl_range_destroy);

/* Whether [start, start + size) lies inside the space. */
static bool sl_range_inside(const struct sl_range_alloc *ra,
			    unsigned long start, unsigned long size)
{
	unsigned long last = start + (size - 1);

	if (!size || last < start || start < ra->start)
		return false;
	return !ra->end || last < ra->end;
}

/* Erase a range whose state the caller moved to FREEING. */
static void sl_range_erase(struct sl_range_alloc *ra, struct sl_range *range)
{
	if (ra->cache)
		sl_range_forget(ra, range);
	/* Only the caller could take it out: it is there. */
	WARN_ON_ONCE(sl_erase(&ra->list, &range->slot));
	kfree_rcu(range, rcu);
}

/*
 * A cache's part in giving up a range that sl_range_reclaim() took back:
 * if the reclaim is still erasing it, leave it the memory to free;
 * otherwise the reclaim is done with it.
 */
static void sl_range_drop_reclaimed(struct sl_range *range)
{
	if (cmpxchg(&range->state, SL_RANGE_FREEING,
		    SL_RANGE_ABANDONED) != SL_RANGE_FREEING)
		kfree_rcu(range, rcu);	/* ORPHANED; readers may hold it */
}

/*
 * A cached range of @size units aligned to @align from this CPU's cache,
 * moved to NEW; NULL if there is none.  Ranges reclaimed meanwhile are
 * dropped on the way.  Called with the cache's local lock held.
 */
static struct sl_range *sl_range_cache_pop(struct sl_range_cache *cache,
					   unsigned long size,
					   unsigned long align)
{
	struct sl_range **stack = cache->ranges[size - 1];
	unsigned int nr = cache->nr[size - 1];

	while (nr) {
		struct sl_range *range = stack[nr - 1];

		/*
		 * The stack owns what it holds: its start stays readable.  A
		 * cached range without the alignment stays for a later
		 * request; a reclaimed one goes, or it would block the stack.
		 */
		if ((range->slot.key & (align - 1)) &&
		    READ_ONCE(range->state) == SL_RANGE_CACHED)
			return NULL;
		WRITE_ONCE(cache->nr[size - 1], --nr);
		if (!(range->slot.key & (align - 1)) &&
		    cmpxchg(&range->state, SL_RANGE_CACHED,
			    SL_RANGE_NEW) == SL_RANGE_CACHED)
			return range;
		sl_range_drop_reclaimed(range);
	}
	return NULL;
}

/*
 * Drop the reclaimed ranges from a full stack, keeping the order of the
 * others.  A state read as anything but cached cannot turn cached again.
 * Called with the cache's local lock held.
 *
 * A reclaim may be reading the stack meanwhile: the dropped ranges are
 * handed to sl_range_drop_reclaimed(), which may queue their memory for
 * freeing, only once the count that hides them is stored.  A reader whose
 * section began before that call_rcu() is waited for; one that began
 * after it sees the new count (the grace period's guarantee), and below
 * it only ranges kept.
 */
static noinline unsigned int sl_range_cache_compact(struct sl_range_cache *cache,
						    unsigned long i)
{
	struct sl_range *dropped[SL_RANGE_CACHE_DEPTH];
	struct sl_range **stack = cache->ranges[i];
	unsigned int n, kept = 0, gone = 0;

	for (n = 0; n < SL_RANGE_CACHE_DEPTH; n++) {
		if (READ_ONCE(stack[n]->state) == SL_RANGE_CACHED)
			WRITE_ONCE(stack[kept++], stack[n]);
		else
			dropped[gone++] = stack[n];
	}
	/* Pairs with the reclaim's acquire: the kept entries are below it. */
	smp_store_release(&cache->nr[i], kept);
	for (n = 0; n < gone; n++)
		sl_range_drop_reclaimed(dropped[n]);
	return kept;
}

/*
 * Keep @range, which the caller moved to FREEING, in this CPU's cache if
 * it has room for its size, and mark it cached: from then on a reclaim
 * may take it.  Called with the cache's local lock held.  Inline, and the
 * compaction out of line: under emulation a call on the cached free's
 * path costs it 10% (Documentation/extent.rst).
 */
static __always_inline bool sl_range_cache_push(struct sl_range_cache *cache,
						struct sl_range *range)
{
	unsigned long i = range->slot.size - 1;
	unsigned int nr = cache->nr[i];

	/* Full, perhaps of ranges reclaimed since, on a CPU that rarely pops. */
	if (nr == SL_RANGE_CACHE_DEPTH)
		nr = sl_range_cache_compact(cache, i);
	if (nr == SL_RANGE_CACHE_DEPTH)
		return false;
	WRITE_ONCE(cache->ranges[i][nr], range);
	/*
	 * Pairs with the reclaim's acquire of the count: a reclaim that sees
	 * the new count sees this entry, not the one an earlier push left
	 * there, whose range may have been freed since.  (x86 keeps stores
	 * in order anyway; arm64 and others do not.)
	 */
	smp_store_release(&cache->nr[i], nr + 1);
	/* Pairs with the reclaim's cmpxchg: the shadow is already clear. */
	smp_store_release(&range->state, SL_RANGE_CACHED);
	return true;
}

/*
 * Take back the ranges still cached on the stacks of @cache, from the
 * stack for size *@i + 1 on, that start in [@first, @last]: move each from
 * cached to claimed, as a free does, and put it in @batch.  Reads whole
 * stacks, up to all of them (at most SL_RANGE_CACHE_SIZES x
 * SL_RANGE_CACHE_DEPTH entries, whatever the number of ranges), while
 * @batch has room for one more; advances *@i past them.  Returns how many
 * it took.
 *
 * The stacks are read without their CPU's lock, inside a read-side
 * section.  An entry below the count read (with acquire, against the
 * push's release) names a range that was pushed, and a range leaves a
 * stack (the count drops below it) before its memory is queued for
 * freeing after a grace period: the entry and its range stay readable.
 * The range may have been popped or reclaimed meanwhile, which the
 * exchange sees; and as nothing changes a key while its range is
 * indexed, the key read is the one it was cached with.
 */
static unsigned int sl_range_reclaim_scan(struct sl_range_cache *cache,
					  unsigned int *i, unsigned long first,
					  unsigned long last,
					  struct sl_range **batch)
{
	unsigned int n, nr, taken = 0;

	rcu_read_lock();
	for (; *i < SL_RANGE_CACHE_SIZES; ++*i) {
		if (taken + SL_RANGE_CACHE_DEPTH > SL_RANGE_RECLAIM_BATCH)
			break;
		/* Pairs with the push's release: the entries it stored. */
		nr = min_t(unsigned int, smp_load_acquire(&cache->nr[*i]),
			   SL_RANGE_CACHE_DEPTH);
		for (n = 0; n < nr; n++) {
			struct sl_range *r = READ_ONCE(cache->ranges[*i][n]);

			if (r->slot.key < first || r->slot.key > last)
				continue;
			if (READ_ONCE(r->state) == SL_RANGE_CACHED &&
			    cmpxchg(&r->state, SL_RANGE_CACHED,
				    SL_RANGE_FREEING) == SL_RANGE_CACHED)
				batch[taken++] = r;
		}
	}
	rcu_read_unlock();
	return taken;
}

/*
 * Erase a range that a reclaim moved to FREEING.  Its pointer is still on
 * its CPU's stack, and the stack owns it: whichever of this and the pop or
 * push that drops it from the stack comes last frees its memory.
 */
static void sl_range_reclaim_one(struct sl_range_alloc *ra,
				 struct sl_range *range)
{
	sl_range_forget(ra, range);
	WARN_ON_ONCE(sl_erase(&ra->list, &range->slot));
	if (xchg(&range->state, SL_RANGE_ORPHANED) == SL_RANGE_ABANDONED)
		kfree_rcu(range, rcu);
}

/*
 * Take the cached ranges that start in [@first, @last] back from the
 * caches and erase them, so that their space can be allocated.  Runs only
 * when a request found no room or a reservation collided.  It reads the
 * caches, not the index: O(entries on the stacks of every CPU), however
 * many ranges there are, each CPU's stacks in one read-side section, and
 * it erases SL_RANGE_RECLAIM_BATCH ranges at most before it may
 * reschedule (when @gfp allows sleeping; otherwise the caller's atomic
 * section lasts as long as it takes to erase what the caches held, at
 * most SL_RANGE_CACHE_SIZES x SL_RANGE_CACHE_DEPTH ranges per CPU).
 * Returns how many ranges it erased: when 0, trying again cannot help.
 */
static unsigned long sl_range_reclaim(struct sl_range_alloc *ra,
				      unsigned long first, unsigned long last,
				      gfp_t gfp)
{
	struct sl_range *batch[SL_RANGE_RECLAIM_BATCH];
	unsigned int cpu, i, n, taken;
	unsigned long reclaimed = 0;

	if (!ra->cache)
		return 0;
	for_each_possible_cpu(cpu) {
		struct sl_range_cache *cache = per_cpu_ptr(ra->cache, cpu);

		for (i = 0; i < SL_RANGE_CACHE_SIZES;) {
			taken = sl_range_reclaim_scan(cache, &i, first, last,
						      batch);
			if (!taken)
				continue;
			for (n = 0; n < taken; n++)
				sl_range_reclaim_one(ra, batch[n]);
			reclaimed += taken;
			sl_window(&ra->list, SL_WIN_RANGE_RECLAIM_STEP,
				  .key = cpu);
			if (gfpflags_allow_blocking(gfp))
				cond_resched();
		}
	}
	return reclaimed;
}

/*
 * Reclaims an allocation or a reservation makes before it gives up.  More
 * than one: a reclaim may reschedule between its batches, and other CPUs
 * may meanwhile cache again the space it took back (with one round, and
 * the reclaim yielding the CPU between batches, range_test's stress, sized
 * so that every request fits, failed with -ENOSPC in two runs of four).
 * Each round is worth it only if the last one took something.
 */
#define SL_RANGE_RECLAIM_ROUNDS	4

/*
 * Reclaim the cached ranges that overlap [@first, @last]: a cached range
 * has at most SL_RANGE_CACHE_SIZES units, so any that reaches @first
 * starts at most that far below it.
 */
static unsigned long sl_range_reclaim_overlapping(struct sl_range_alloc *ra,
						  unsigned long first,
						  unsigned long last,
						  gfp_t gfp)
{
	unsigned long reclaimed;

	first -= min(first - ra->start, SL_RANGE_CACHE_SIZES - 1UL);
	reclaimed = sl_range_reclaim(ra, first, last, gfp);
	if (ra->cache) {
		atomic_long_add(reclaimed, &ra->reclaimed);
		trace_sl_range_reclaim(ra, first, last, reclaimed);
	}
	return reclaimed;
}

/*
 * The last steps of every allocation, for a range in the index that no
 * free can take yet (new or cached): the shadow, the table of recent
 * ranges of @cache (this CPU's, or NULL without caches), the start for the
 * caller, and only then the live state.  From that store on, a free (even
 * a caller's mistaken one) may erase the range, so nothing of it is read
 * after; and its table entry is already there for the erase to remove.
 */
static void sl_range_handed_out(struct sl_range_alloc *ra,
				struct sl_range_cache *cache,
				struct sl_range *range, unsigned long *out)
{
	unsigned long start = range->slot.key;

	sl_shadow_claim(ra, start, range->slot.size);
	if (cache)
		WRITE_ONCE(cache->recent[sl_range_recent_slot(start)], range);
	if (out)
		*out = start;
	/* Pairs with the free's cmpxchg: it sees the entry it must forget. */
	smp_store_release(&range->state, SL_RANGE_LIVE);
}

/**
 * sl_range_alloc() - allocate a range
 * @ra:    the allocator
 * @size:  units, at least 1
 * @align: alignment of the start, a power of two (relative to unit 0)
 * @min:   lowest start allowed; below the space means the space's start
 * @max:   the range must end at or before @max; 0, or beyond the space,
 *         means the space's end
 * @hint:  where to start looking; the search wraps to @min if nothing fits
 *         above it.  Pass @min for first fit.
 * @out:   the start of the range, on success
 * @gfp:   allocation flags
 *
 * Context: Any context that may take a spinlock; may sleep if @gfp allows.
 * Return: 0; -EINVAL for a zero size, an alignment that is not a power of
 * two or an empty window; -ENOSPC if no free range fits; -ENOMEM.
 */
int sl_range_alloc(struct sl_range_alloc *ra, unsigned long size,
		   unsigned long align, unsigned long min, unsigned long max,
		   unsigned long hint, unsigned long *out, gfp_t gfp)
{
	struct sl_range *range;
	unsigned int round;
	int ret;

	if (!size || !is_power_of_2(align))
		return -EINVAL;
	min = max(min, ra->start);
	if (!max || (ra->end && max > ra->end))
		max = ra->end;
	if (max && min >= max)
		return -EINVAL;
	range = kmalloc(sizeof(*range), gfp);
	if (!range)
		return -ENOMEM;
	range->state = SL_RANGE_NEW;
	ret = sl_insert_hole(&ra->list, &range->slot, size, align, min, max,
			     hint, NULL, gfp);
	/* Cached ranges may be all that is in the way. */
	for (round = 0; ret == -ENOSPC && round < SL_RANGE_RECLAIM_ROUNDS &&
	     sl_range_reclaim_overlapping(ra, min, max ? max - 1 : ULONG_MAX,
					  gfp); round++)
		ret = sl_insert_hole(&ra->list, &range->slot, size, align, min,
				     max, hint, NULL, gfp);
	if (ret) {
		kfree(range);
		return ret;
	}
	sl_range_handed_out(ra, ra->cache ? raw_cpu_ptr(ra->cache) : NULL,
			    range, out);
	return 0;
}
EXPORT_SYMBOL_GPL(sl_range_alloc);

/**
 * sl_range_alloc_cpu() - allocate a range near this CPU's last one
 * @ra:    the allocator
 * @size:  units, at least 1
 * @align: alignment of the start, a power of two
 * @out:   the start of the range, on success
 * @gfp:   allocation flags
 *
 * Anywhere in the space, searching first from where this CPU's last
 * allocation ended, so that CPUs allocating at once work in different
 * leaves.  A migration between reading and writing the hint only costs a
 * less useful hint.  With SL_RANGE_CACHE, a range of the same size that
 * this CPU freed comes first, if it has the alignment.
 *
 * Context: As sl_range_alloc().
 * Return: As sl_range_alloc().
 */
int sl_range_alloc_cpu(struct sl_range_alloc *ra, unsigned long size,
		       unsigned long align, unsigned long *out, gfp_t gfp)
{
	/*
	 * A task moved to another CPU meanwhile may still write this one's
	 * hint while its new owner reads it: marked accesses, a lost update
	 * is harmless.
	 */
	unsigned long *hint, flags;
	int ret;

	if (ra->cache && size && size <= SL_RANGE_CACHE_SIZES &&
	    is_power_of_2(align)) {
		struct sl_range_cache *cache;
		struct sl_range *range;
		unsigned long start = 0;

		local_lock_irqsave(&ra->cache->lock, flags);
		cache = this_cpu_ptr(ra->cache);
		range = sl_range_cache_pop(cache, size, align);
		if (range) {
			/* Read while it is ours: once live, a free may take it. */
			start = range->slot.key;
			/* Marked: debugfs reads the counts from other CPUs. */
			WRITE_ONCE(cache->hits, cache->hits + 1);
			sl_range_handed_out(ra, cache, range, out);
		} else {
			WRITE_ONCE(cache->misses, cache->misses + 1);
		}
		local_unlock_irqrestore(&ra->cache->lock, flags);
		if (range) {
			trace_sl_range_cache_hit(ra, size, align, start);
			return 0;
		}
		trace_sl_range_cache_miss(ra, size, align);
	}
	hint = raw_cpu_ptr(ra->hint);
	ret = sl_range_alloc(ra, size, align, ra->start, ra->end,
			     READ_ONCE(*hint), out, gfp);
	if (!ret)
		WRITE_ONCE(*hint, *out + size);
	return ret;
}
EXPORT_SYMBOL_GPL(sl_range_alloc_cpu);

/**
 * sl_range_reserve() - mark a fixed range as in use
 * @ra:    the allocator
 * @start: first unit
 * @size:  units, at least 1
 * @gfp:   allocation flags
 *
 * A reserved range is an ordinary live range: sl_range_free() returns it.
 *
 * Context: As sl_range_alloc().
 * Return: 0; -EINVAL for a zero size or a range that wraps; -ERANGE if it
 * is not inside the space; -EEXIST if any of it is in use; -ENOMEM.
 */
int sl_range_reserve(struct sl_range_alloc *ra, unsigned long start,
		     unsigned long size, gfp_t gfp)
{
	struct sl_range *range;
	unsigned int round;
	int ret;

	if (!size || start + (size - 1) < start)
		return -EINVAL;
	if (!sl_range_inside(ra, start, size))
		return -ERANGE;
	range = kmalloc(sizeof(*range), gfp);
	if (!range)
		return -ENOMEM;
	range->slot.key = start;
	range->slot.size = size;
	range->state = SL_RANGE_NEW;
	ret = sl_insert(&ra->list, &range->slot, gfp);
	for (round = 0; ret == -EEXIST && round < SL_RANGE_RECLAIM_ROUNDS &&
	     sl_range_reclaim_overlapping(ra, start, start + (size - 1), gfp);
	     round++)
		ret = sl_insert(&ra->list, &range->slot, gfp);
	if (ret) {
		kfree(range);
		return ret;
	}
	sl_range_handed_out(ra, ra->cache ? raw_cpu_ptr(ra->cache) : NULL,
			    range, NULL);
	return 0;
}
EXPORT_SYMBOL_GPL(sl_range_reserve);

/*
 * The live range at @start, of @size units, moved to FREEING, if the
 * table of @cache (this CPU's) knows it; NULL if it does not, and the
 * index must tell.  Called inside an RCU read-side critical section.
 */
static struct sl_range *sl_range_claim_recent(struct sl_range_cache *cache,
					      unsigned long start,
					      unsigned long size)
{
	struct sl_range *range;

	range = READ_ONCE(cache->recent[sl_range_recent_slot(start)]);
	/* A range's start and size never change while it is indexed. */
	if (!range || range->slot.key != start || range->slot.size != size)
		return NULL;
	if (cmpxchg(&range->state, SL_RANGE_LIVE,
		    SL_RANGE_FREEING) != SL_RANGE_LIVE)
		return NULL;
	return range;
}

/*
 * The live range at @start, found in the index and moved to FREEING.
 * Returns 0; -ENOENT if no live range starts there; -EINVAL if it has
 * another size than @size.
 */
static int sl_range_claim_indexed(struct sl_range_alloc *ra,
				  unsigned long start, unsigned long size,
				  struct sl_range **found)
{
	struct sl_range *range;
	struct sl_slot *slot;
	int ret = -ENOENT;

	rcu_read_lock();
	slot = sl_lookup(&ra->list, start);
	if (!slot || slot->key != start)
		goto out;
	range = container_of(slot, struct sl_range, slot);
	if (READ_ONCE(range->state) != SL_RANGE_LIVE)
		goto out;
	if (slot->size != size) {
		pr_err_ratelimited("sl_range: free of [%lu, +%lu): the range there has %lu units\n",
				   start, size, slot->size);
		ret = -EINVAL;
		goto out;
	}
	/* Once it is FREEING, only this free may erase it: no RCU needed. */
	if (cmpxchg(&range->state, SL_RANGE_LIVE,
		    SL_RANGE_FREEING) == SL_RANGE_LIVE) {
		*found = range;
		ret = 0;
	}
out:
	rcu_read_unlock();
	return ret;
}

/*
 * A free with the caches on, if this CPU's table of ranges it handed out
 * knows the range: claim it, and push it on the CPU's stack for its size,
 * in one section with interrupts off.  Returns true when it is cached;
 * else *@claimed is the range, claimed but to be erased (too large, or the
 * stack is full), or NULL if the table did not know it.
 */
static bool sl_range_free_recent(struct sl_range_alloc *ra,
				 unsigned long start, unsigned long size,
				 struct sl_range **claimed)
{
	struct sl_range_cache *cache;
	struct sl_range *range;
	unsigned long flags;
	bool cached = false;

	local_lock_irqsave(&ra->cache->lock, flags);
	cache = this_cpu_ptr(ra->cache);
	/* Interrupts are off (on PREEMPT_RT, a lock that implies it). */
	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(),
			 "sl_range: cache table read outside RCU");
	range = sl_range_claim_recent(cache, start, size);
	if (range) {
		/* The shadow first: once cached, a reclaim may hand it out. */
		sl_shadow_release(ra, start, size);
		cached = size <= SL_RANGE_CACHE_SIZES &&
			 sl_range_cache_push(cache, range);
		WRITE_ONCE(cache->kept, cache->kept + cached);
	}
	local_unlock_irqrestore(&ra->cache->lock, flags);
	*claimed = cached ? NULL : range;
	return cached;
}

/* Push a range the caller claimed on this CPU's stack, if it has room. */
static bool sl_range_cache_keep(struct sl_range_alloc *ra,
				struct sl_range *range)
{
	struct sl_range_cache *cache;
	unsigned long flags;
	bool cached;

	if (range->slot.size > SL_RANGE_CACHE_SIZES)
		return false;
	local_lock_irqsave(&ra->cache->lock, flags);
	cache = this_cpu_ptr(ra->cache);
	cached = sl_range_cache_push(cache, range);
	WRITE_ONCE(cache->kept, cache->kept + cached);
	local_unlock_irqrestore(&ra->cache->lock, flags);
	return cached;
}

/**
 * sl_range_free() - return a range
 * @ra:    the allocator
 * @start: its first unit, as allocated
 * @size:  its size, as allocated
 *
 * With SL_RANGE_CACHE, a range of up to SL_RANGE_CACHE_SIZES units goes to
 * this CPU's cache, while it has room for that size, and stays in the
 * index until it is handed out again or reclaimed; and a range this CPU
 * handed out recently is found without a lookup in the index.  A lookup
 * in the index runs with interrupts on.
 *
 * Context: Any context that may take a spinlock.
 * Return: 0; -ENOENT if no live range starts at @start (a double free);
 * -EINVAL if the range there has another size (it stays allocated).
 */
int sl_range_free(struct sl_range_alloc *ra, unsigned long start,
		  unsigned long size)
{
	struct sl_range *range = NULL;
	int ret;

	if (ra->cache && sl_range_free_recent(ra, start, size, &range))
		return 0;
	if (!range) {
		ret = sl_range_claim_indexed(ra, start, size, &range);
		if (ret == -ENOENT)
			pr_err_ratelimited("sl_range: free of [%lu, +%lu): not allocated\n",
					   start, size);
		if (ret)
			return ret;
		sl_shadow_release(ra, start, size);
		if (ra->cache && sl_range_cache_keep(ra, range))
			return 0;
	}
	/* Claimed (FREEING): only this free may erase it. */
	sl_range_erase(ra, range);
	return 0;
}
EXPORT_SYMBOL_GPL(sl_range_free);

/**
 * sl_range_stats() - report free space and fragmentation
 * @ra:    the allocator
 * @stats: filled in
 *
 * Walks every range in the index, so it costs O(ranges), SL_RANGE_BATCH
 * ranges per read-side section with a chance to reschedule between them.
 * Exact while nobody else allocates or frees; otherwise a blend of the
 * states the walk passed through.  Ranges in the per-CPU caches count as
 * free: an allocation that needs their space reclaims them.
 *
 * Context: Process context; may sleep.
 */
void sl_range_stats(struct sl_range_alloc *ra, struct sl_range_stats *stats)
{
	unsigned long next = ra->start, gap, largest = 0, ranges = 0;
	unsigned long used = 0, pos = ra->start;
	struct sl_slot *slot;
	struct sl_iter iter;
	bool at_end = false, done = false;
	unsigned int n;

	might_sleep();
	while (!done) {
		rcu_read_lock();
		sl_iter_start(&iter, &ra->list, pos);
		for (n = 0; n < SL_RANGE_BATCH && !done; n++) {
			struct sl_range *range;

			slot = sl_iter_next(&iter);
			if (!slot) {
				done = true;
				break;
			}
			/* The next step starts after this key, if there is one. */
			pos = slot->key + 1;
			done = !pos;
			range = container_of(slot, struct sl_range, slot);
			if (READ_ONCE(range->state) == SL_RANGE_CACHED)
				continue;
			if (!at_end && slot->key > next) {
				gap = slot->key - next;
				largest = max(largest, gap);
			}
			ranges++;
			used += slot->size;
			if (sl_slot_last(slot) == ULONG_MAX)
				at_end = true;
			else
				next = sl_slot_last(slot) + 1;
		}
		rcu_read_unlock();
		if (done)
			break;
		sl_window(&ra->list, SL_WIN_RANGE_STATS_STEP, .key = pos);
		cond_resched();
	}
	/*
	 * The tail, up to the end of the space.  A space of the whole of
	 * unsigned long has 2^BITS_PER_LONG units, one more than the fields
	 * hold: its figures saturate at ULONG_MAX.
	 */
	if (!at_end)
		largest = max(largest, !ra->end && !next ? ULONG_MAX :
			      ra->end - next);
	stats->size = sl_range_span(ra) ? sl_range_span(ra) : ULONG_MAX;
	stats->free = stats->size - used;
	stats->ranges = ranges;
	stats->largest_free = largest;
	stats->fragmentation = 0;
	if (stats->free >= 1000)
		stats->fragmentation = 1000 - min(1000UL, largest / (stats->free / 1000));
	else if (stats->free)
		stats->fragmentation = 1000 - largest * 1000 / stats->free;
}
EXPORT_SYMBOL_GPL(sl_range_stats);

/**
 * sl_range_shadow_errors() - overlaps and bad frees the shadow bitmap saw
 * @ra: the allocator
 *
 * Context: Any context.
 * Return: the count, or -ENODATA if the allocator has no shadow bitmap.
 */
long sl_range_shadow_errors(struct sl_range_alloc *ra)
{
	if (!ra->debug)
		return -ENODATA;
	return atomic_long_read(&ra->debug->errors);
}
EXPORT_SYMBOL_GPL(sl_range_shadow_errors);

/* The allocator's "alloc" file in debugfs: Documentation/tracing.rst. */
static int sl_range_debugfs_show(struct seq_file *m, void *unused)
{
	unsigned long hits = 0, misses = 0, kept = 0, entries = 0;
	struct sl_range_alloc *ra = m->private;
	struct sl_range_stats st;
	unsigned int cpu, i;
	long errors;

	/* Removal waits for this read: @ra is alive until it returns. */
	sl_range_stats(ra, &st);
	for_each_possible_cpu(cpu) {
		struct sl_range_cache *c;

		if (!ra->cache)
			break;
		c = per_cpu_ptr(ra->cache, cpu);
		hits += READ_ONCE(c->hits);
		misses += READ_ONCE(c->misses);
		kept += READ_ONCE(c->kept);
		for (i = 0; i < SL_RANGE_CACHE_SIZES; i++)
			entries += READ_ONCE(c->nr[i]);
	}
	seq_printf(m, "id %p\n", ra);
	seq_printf(m, "start %lu\n", ra->start);
	seq_printf(m, "end %lu\n", ra->end);
	seq_printf(m, "size %lu\n", st.size);
	seq_printf(m, "free %lu\n", st.free);
	seq_printf(m, "ranges %lu\n", st.ranges);
	seq_printf(m, "largest_free %lu\n", st.largest_free);
	seq_printf(m, "fragmentation %u\n", st.fragmentation);
	seq_printf(m, "cache %u\n", ra->cache ? 1 : 0);
	seq_printf(m, "cache_hits %lu\n", hits);
	seq_printf(m, "cache_misses %lu\n", misses);
	seq_printf(m, "cache_kept %lu\n", kept);
	seq_printf(m, "cache_entries %lu\n", entries);
	seq_printf(m, "reclaimed %ld\n", atomic_long_read(&ra->reclaimed));
	errors = sl_range_shadow_errors(ra);
	if (errors >= 0)
		seq_printf(m, "shadow_errors %ld\n", errors);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sl_range_debugfs);

/**
 * sl_range_debugfs_add() - publish an allocator in debugfs under a name
 * @ra:     an initialised allocator, not published yet
 * @parent: the debugfs directory to publish it in; NULL for
 *          sl_debugfs_dir() (/sys/kernel/debug/skiplist)
 * @name:   the name of the allocator's directory there, unique in @parent
 *
 * Makes @parent/@name/alloc, the allocator's free space, fragmentation
 * and cache counters, and publishes its index as @parent/@name/index
 * (sl_debugfs_add()); Documentation/tracing.rst lists every line.  The
 * allocator must be taken out with sl_range_debugfs_remove() before its
 * memory goes; sl_range_destroy() takes it out if it is still published.
 *
 * Context: Process context; may sleep.  Not concurrently with
 * sl_range_debugfs_add(), sl_range_debugfs_remove() or
 * sl_range_destroy() on @ra.
 * Return: 0, also when debugfs is not available (nothing is published
 * then); -EBUSY if @ra is published already; -ENOMEM; or the error
 * debugfs gave for @name (-EEXIST if @parent has an entry of that name).
 */
int sl_range_debugfs_add(struct sl_range_alloc *ra, struct dentry *parent,
			 const char *name)
{
	struct dentry *dir;
	int ret;

	might_sleep();
	if (ra->debugfs)
		return -EBUSY;
	if (!parent)
		parent = sl_debugfs_dir();
	if (IS_ERR_OR_NULL(parent))
		return 0;
	dir = debugfs_create_dir(name, parent);
	if (IS_ERR(dir))
		/* debugfs turned off (debugfs=off): as without it. */
		return PTR_ERR(dir) == -ENODEV || PTR_ERR(dir) == -EPERM ?
		       0 : PTR_ERR(dir);
	ret = sl_debugfs_add(&ra->list, dir, "index");
	if (ret) {
		debugfs_remove(dir);
		return ret;
	}
	debugfs_create_file("alloc", 0400, dir, ra, &sl_range_debugfs_fops);
	ra->debugfs = dir;
	return 0;
}
EXPORT_SYMBOL_GPL(sl_range_debugfs_add);

/**
 * sl_range_debugfs_remove() - take an allocator out of debugfs
 * @ra: the allocator; published with sl_range_debugfs_add(), or not
 *
 * Removes its directory, waiting for reads of its files in progress to
 * end (as sl_debugfs_remove() does for its index).
 *
 * Context: Process context; sleeps.  Not concurrently with
 * sl_range_debugfs_add(), sl_range_debugfs_remove() or
 * sl_range_destroy() on @ra.
 */
void sl_range_debugfs_remove(struct sl_range_alloc *ra)
{
	might_sleep();
	if (!ra->debugfs)
		return;
	sl_debugfs_remove(&ra->list);
	debugfs_remove(ra->debugfs);
	ra->debugfs = NULL;
}
EXPORT_SYMBOL_GPL(sl_range_debugfs_remove);
