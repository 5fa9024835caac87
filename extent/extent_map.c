// SPDX-License-Identifier: GPL-2.0
/*
 * The extent map: which disk extent backs each range of a file, one
 * skiplist slot per extent, keyed by file offset.
 *
 * Concurrency contract:
 *  - Readers (sl_em_lookup(), sl_em_first_overlap(), sl_em_next(),
 *    sl_em_count()) take rcu_read_lock() and copy the extent out between
 *    read_seqcount_begin() and read_seqcount_retry() of @em->seq.  They
 *    never lock and never write shared memory.
 *  - A writer that changes one extent (sl_em_add() without SL_EM_MERGE,
 *    sl_em_remove(), sl_em_replace()) holds @em->lock shared and makes its
 *    change with one sl_insert(), sl_remove() or sl_replace(), which the
 *    skiplist's leaf locks make atomic; such writers run in parallel.
 *    Each change is a single step, so it needs no write section.
 *  - A writer that changes several extents (sl_em_add() with SL_EM_MERGE,
 *    sl_em_drop_range()) holds @em->lock exclusively and makes all of its
 *    changes inside one write section of @em->seq, so that a reader sees
 *    all of them or none: a reader that overlapped the section retries.
 *    A punch over more than SL_EM_BATCH extents is several such writers
 *    in a row, each punching a part of the range, from its end down:
 *    nobody waits for the whole punch, neither readers spinning on
 *    @em->seq nor writers on @em->lock, and the CPU may reschedule in
 *    between.  A reader may therefore see the end of the range unmapped
 *    and its start still mapped, as a punch of only that end would leave
 *    it, but never a step half done.
 *  - The count of extents (@em->nr) changes with every insert and erase,
 *    inside the write section for multi-extent writers, so that counting
 *    is O(1) and sees no half of a merge or a punch step.
 *  - An extent's key, disk_start and flags never change while it is in
 *    the list.  Its slot's size does: an exclusive writer grows the extent
 *    that absorbs its neighbours and shrinks the ones a punch trims, in
 *    place, inside its write section.  The skiplist forbids that to its
 *    callers in general, because its writers check overlaps against the
 *    sizes and its readers test containment with them.  Here every writer
 *    of the list holds @em->lock, so no skiplist writer runs while a size
 *    changes, and every reader of the map validates what it read against
 *    @em->seq, so a skiplist answer computed from a size in flux is thrown
 *    away.  Sizes change through sl_resize(), which readers see whole.
 *  - Why in place: the only step of a merge or a punch that can fail is
 *    an sl_insert() whose leaf split cannot allocate.  With sizes changed
 *    in place, each operation makes at most one insert, before any change
 *    it cannot undo (merge), or right after a size change that it undoes
 *    if the insert fails (punch), so -ENOMEM leaves the map unchanged.
 *    Removing and re-inserting the neighbours instead could fail halfway
 *    with no way back: the re-insert may need a split as well.
 *  - An extent leaves the list by sl_erase(), sl_remove() or sl_replace()
 *    and is freed after a grace period (call_rcu()), since readers may
 *    still hold it.
 *  - @em->lock is taken with bottom halves disabled, so the map may be
 *    used from process and softirq context.  Not from hardirq or NMI
 *    context: a reader interrupting a write section on its own CPU would
 *    wait for it forever.
 *  - No function holds the lock, a write section or a read-side section
 *    over more than SL_EM_BATCH extents (or a constant number of
 *    searches), however large the map.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/build_bug.h>
#include "extent_map.h"
#include "window.h"

/**
 * struct sl_extent - an extent in the map
 * @slot:       file offset (@slot.key) and length (@slot.size)
 * @disk_start: disk address of the first unit
 * @flags:      the caller's flags
 * @rcu:        frees it after a grace period
 */
struct sl_extent {
	struct sl_slot slot;
	u64 disk_start;
	u32 flags;
	struct rcu_head rcu;
};

/* File offsets are slot keys. */
static_assert(sizeof(unsigned long) == sizeof(u64));

/* Tries after a failed leaf allocation, when the caller may sleep. */
#define SL_EM_NOMEM_RETRIES	3

/* sl_em_add_merge(): the new extent was absorbed by the one before it. */
#define SL_EM_ABSORBED		1

static struct kmem_cache *sl_extent_cache;

static struct sl_extent *sl_extent_of(struct sl_slot *slot)
{
	return container_of(slot, struct sl_extent, slot);
}

static void sl_extent_free_cb(struct rcu_head *head)
{
	kmem_cache_free(sl_extent_cache,
			container_of(head, struct sl_extent, rcu));
}

static void sl_extent_free_rcu(struct sl_extent *ext)
{
	call_rcu(&ext->rcu, sl_extent_free_cb);
}

/* A range [start, start + len) that is not empty and does not wrap. */
static bool sl_em_range_ok(u64 start, u64 len)
{
	return len && start + (len - 1) >= start;
}

/*
 * Leaf allocations of the index happen under @em->lock, so they may not
 * sleep whatever the caller allows; sl_em_retry() waits outside instead.
 */
static gfp_t sl_em_gfp_locked(gfp_t gfp)
{
	return (gfp & ~__GFP_DIRECT_RECLAIM) | __GFP_NOWARN;
}

/* After -ENOMEM from under the lock: wait and try again, if allowed. */
static bool sl_em_retry(int ret, gfp_t gfp, int *tries)
{
	if (ret != -ENOMEM || !gfpflags_allow_blocking(gfp) ||
	    ++*tries > SL_EM_NOMEM_RETRIES)
		return false;
	memalloc_retry_wait(gfp);
	return true;
}

/* The first slot overlapping [@start, @last]; under rcu_read_lock(). */
static struct sl_slot *sl_em_first_slot(struct sl_list *list, u64 start,
					u64 last)
{
	struct sl_slot *slot;

	if (start == last)
		return sl_lookup(list, start);
	if (last != U64_MAX)
		return sl_first_overlap(list, start, last + 1);
	/* No exclusive end exists for the last unit: it is looked up alone. */
	slot = sl_first_overlap(list, start, U64_MAX);
	return slot ?: sl_lookup(list, U64_MAX);
}

/*
 * The first extent overlapping [@start, @last], copied out as of one
 * moment at which no multi-extent change was in progress.
 */
static int sl_em_read(struct sl_extent_map *em, u64 start, u64 last,
		      struct sl_extent_info *out)
{
	struct sl_extent_info copy = {};
	struct sl_slot *slot;
	unsigned int seq;

	rcu_read_lock();
	do {
		seq = read_seqcount_begin(&em->seq);
		slot = sl_em_first_slot(&em->list, start, last);
		if (slot) {
			const struct sl_extent *ext = sl_extent_of(slot);

			copy.start = slot->key;
			copy.len = READ_ONCE(slot->size);
			copy.disk_start = ext->disk_start;
			copy.flags = ext->flags;
		}
	} while (read_seqcount_retry(&em->seq, seq));
	rcu_read_unlock();
	if (!slot)
		return -ENOENT;
	*out = copy;
	return 0;
}

/**
 * sl_em_init() - initialise an empty extent map
 * @em:  the map
 * @gfp: allocation flags for the index's first leaf
 *
 * Context: Any context; may sleep if @gfp allows.
 * Return: 0, or -ENOMEM.
 */
int sl_em_init(struct sl_extent_map *em, gfp_t gfp)
{
	rwlock_init(&em->lock);
	seqcount_rwlock_init(&em->seq, &em->lock);
	atomic_long_set(&em->nr, 0);
	return sl_init(&em->list, gfp);
}
EXPORT_SYMBOL_GPL(sl_em_init);

static void sl_em_free_slot(struct sl_slot *slot, void *arg)
{
	sl_extent_free_rcu(sl_extent_of(slot));
}

/**
 * sl_em_destroy() - free a map and every extent in it
 * @em: the map; no other function may run on it any more
 *
 * Extents and leaves are freed after a grace period, so readers that found
 * the map before the caller stopped them are safe.
 *
 * Context: Process context (sl_destroy() may sleep); the caller excludes
 * every other user of @em.
 */
void sl_em_destroy(struct sl_extent_map *em)
{
	sl_destroy(&em->list, sl_em_free_slot, NULL);
}
EXPORT_SYMBOL_GPL(sl_em_destroy);

/**
 * sl_em_debugfs_add() - publish a map's index in debugfs under a name
 * @em:     an initialised map, not published yet
 * @parent: the debugfs directory to publish it in; NULL for
 *          sl_debugfs_dir() (/sys/kernel/debug/skiplist)
 * @name:   the name of its directory there, unique in @parent
 *
 * Makes @parent/@name/stats, the index's statistics (sl_debugfs_add()):
 * its items are the map's extents.  sl_em_destroy() takes it out again,
 * as does sl_em_debugfs_remove().
 *
 * Context: Process context; may sleep.  Not concurrently with
 * sl_em_debugfs_add(), sl_em_debugfs_remove() or sl_em_destroy() on @em.
 * Return: as sl_debugfs_add().
 */
int sl_em_debugfs_add(struct sl_extent_map *em, struct dentry *parent,
		      const char *name)
{
	return sl_debugfs_add(&em->list, parent, name);
}
EXPORT_SYMBOL_GPL(sl_em_debugfs_add);

/**
 * sl_em_debugfs_remove() - take a map out of debugfs
 * @em: the map; published with sl_em_debugfs_add(), or not
 *
 * Context: Process context; sleeps (sl_debugfs_remove()).  Not
 * concurrently with sl_em_debugfs_add() or sl_em_destroy() on @em.
 */
void sl_em_debugfs_remove(struct sl_extent_map *em)
{
	sl_debugfs_remove(&em->list);
}
EXPORT_SYMBOL_GPL(sl_em_debugfs_remove);

/* Whether @b, which follows @a (of @a_len units) in the file, goes on it. */
static bool sl_em_contiguous(const struct sl_extent *a, u64 a_len,
			     const struct sl_extent *b)
{
	return a->flags == b->flags &&
	       a->disk_start + (a_len - 1) != U64_MAX &&
	       a->disk_start + a_len == b->disk_start;
}

/* Insert @ext as it is: one step, under the lock shared. */
static int sl_em_add_one(struct sl_extent_map *em, struct sl_extent *ext,
			 gfp_t gfp)
{
	int ret;

	read_lock_bh(&em->lock);
	ret = sl_insert(&em->list, &ext->slot, sl_em_gfp_locked(gfp));
	if (!ret)
		atomic_long_inc(&em->nr);
	read_unlock_bh(&em->lock);
	return ret;
}

/*
 * Merge @ext with @prev and/or @next, inside the write section.  @prev
 * absorbs the others if there is one; else @ext is inserted, the one step
 * that can fail, and absorbs @next.  Erasing @next before growing the
 * absorbing extent keeps the slots from ever overlapping.
 */
static int sl_em_merge_locked(struct sl_extent_map *em,
			      struct sl_extent *prev, struct sl_extent *ext,
			      struct sl_extent *next, gfp_t gfp)
{
	struct sl_extent *into = prev;
	u64 size;
	int ret;

	lockdep_assert_held_write(&em->lock);
	if (!into) {
		ret = sl_insert(&em->list, &ext->slot, gfp);
		if (ret)
			return ret;
		atomic_long_inc(&em->nr);
		into = ext;
	}
	size = into->slot.size;
	if (into != ext)
		size += ext->slot.size;
	if (next && !WARN_ON_ONCE(sl_erase(&em->list, &next->slot))) {
		atomic_long_dec(&em->nr);
		size += next->slot.size;
		sl_extent_free_rcu(next);
	}
	ASSERT_EXCLUSIVE_WRITER(into->slot.size);
	sl_resize(&em->list, &into->slot, size);
	return into == ext ? 0 : SL_EM_ABSORBED;
}

static int sl_em_add_merge(struct sl_extent_map *em, struct sl_extent *ext,
			   gfp_t gfp)
{
	u64 start = ext->slot.key, last = sl_slot_last(&ext->slot);
	struct sl_extent *prev = NULL, *next = NULL;
	struct sl_slot *slot;
	int ret;

	gfp = sl_em_gfp_locked(gfp);
	/* For the searches; the lock alone keeps the neighbours in place. */
	rcu_read_lock();
	write_lock_bh(&em->lock);
	if (sl_em_first_slot(&em->list, start, last)) {
		ret = -EEXIST;
		goto unlock;
	}
	if (start) {
		slot = sl_lookup(&em->list, start - 1);
		if (slot && sl_em_contiguous(sl_extent_of(slot), slot->size, ext))
			prev = sl_extent_of(slot);
	}
	if (last != U64_MAX) {
		slot = sl_lookup(&em->list, last + 1);
		if (slot && slot->key == last + 1 &&
		    sl_em_contiguous(ext, ext->slot.size, sl_extent_of(slot)))
			next = sl_extent_of(slot);
	}
	/* One extent over all 2^64 offsets would not fit in a size. */
	if ((prev ? prev->slot.key : start) == 0 &&
	    (next ? sl_slot_last(&next->slot) : last) == U64_MAX) {
		if (next)
			next = NULL;
		else
			prev = NULL;
	}
	if (!prev && !next) {
		ret = sl_insert(&em->list, &ext->slot, gfp);
		if (!ret)
			atomic_long_inc(&em->nr);
		goto unlock;
	}
	write_seqcount_begin(&em->seq);
	ret = sl_em_merge_locked(em, prev, ext, next, gfp);
	write_seqcount_end(&em->seq);
unlock:
	write_unlock_bh(&em->lock);
	rcu_read_unlock();
	return ret;
}

/*
 * A new extent object for @info in *@extp: 0, -EINVAL if its range is
 * empty or wraps in the file or on disk, or -ENOMEM.
 */
static int sl_em_new(const struct sl_extent_info *info, gfp_t gfp,
		     struct sl_extent **extp)
{
	struct sl_extent *ext;

	if (!sl_em_range_ok(info->start, info->len) ||
	    !sl_em_range_ok(info->disk_start, info->len))
		return -EINVAL;
	ext = kmem_cache_alloc(sl_extent_cache, gfp);
	if (!ext)
		return -ENOMEM;
	ext->slot.key = info->start;
	ext->slot.size = info->len;
	ext->disk_start = info->disk_start;
	ext->flags = info->flags;
	*extp = ext;
	return 0;
}

/**
 * sl_em_add() - map a range of the file
 * @em:   the map
 * @info: the extent: file offset, length, disk start and flags
 * @mode: 0, or SL_EM_MERGE to merge the extent with the extents right
 *        before and after it in the file when they also continue it on
 *        disk (the previous one ends on disk where it starts, or it ends
 *        where the next one starts) and have the same flags
 * @gfp:  allocation flags for the extent object; the index's own leaf
 *        allocation, under the map's lock, never sleeps, but is retried
 *        after memalloc_retry_wait() when @gfp allows sleeping
 *
 * The extent must not overlap one in the map.  Without SL_EM_MERGE this
 * changes one extent and runs in parallel with other such changes; with
 * it, the map is locked exclusively and readers see the merge whole.  An
 * extent that would cover all 2^64 offsets is not merged at its end.
 *
 * Context: Process or softirq context; takes @em->lock with bottom halves
 * disabled (shared without SL_EM_MERGE, exclusive with it).  May sleep if
 * @gfp allows, and then must not be called under rcu_read_lock() or a
 * spinlock.
 * Return: 0; -EINVAL if the length is 0, the range wraps past U64_MAX in
 * the file or on disk, or @mode has unknown bits; -EEXIST if the range
 * overlaps an extent in the map; -ENOMEM.  On any error the map is
 * unchanged.
 */
int sl_em_add(struct sl_extent_map *em, const struct sl_extent_info *info,
	      unsigned int mode, gfp_t gfp)
{
	struct sl_extent *ext;
	int ret, tries = 0;

	if (mode & ~SL_EM_MERGE)
		return -EINVAL;
	ret = sl_em_new(info, gfp, &ext);
	if (ret)
		return ret;
	do {
		if (mode & SL_EM_MERGE)
			ret = sl_em_add_merge(em, ext, gfp);
		else
			ret = sl_em_add_one(em, ext, gfp);
	} while (sl_em_retry(ret, gfp, &tries));
	/* Never published, or absorbed before anyone could see it. */
	if (ret)
		kmem_cache_free(sl_extent_cache, ext);
	return ret == SL_EM_ABSORBED ? 0 : ret;
}
EXPORT_SYMBOL_GPL(sl_em_add);

/**
 * sl_em_lookup() - find the extent containing an offset
 * @em:     the map
 * @offset: the file offset
 * @out:    filled in with a copy of the extent
 *
 * Context: Any context but hardirq and NMI; takes rcu_read_lock().
 * Return: 0, or -ENOENT if no extent contains @offset (@out untouched).
 */
int sl_em_lookup(struct sl_extent_map *em, u64 offset,
		 struct sl_extent_info *out)
{
	return sl_em_read(em, offset, offset, out);
}
EXPORT_SYMBOL_GPL(sl_em_lookup);

/**
 * sl_em_first_overlap() - find the first extent overlapping a range
 * @em:    the map
 * @start: first file offset of the range
 * @len:   units in the range
 * @out:   filled in with a copy of the extent
 *
 * Context: Any context but hardirq and NMI; takes rcu_read_lock().
 * Return: 0 with the extent of lowest offset that overlaps
 * [@start, @start + @len); -EINVAL if @len is 0 or the range wraps past
 * U64_MAX; -ENOENT if no extent overlaps it (@out untouched).
 */
int sl_em_first_overlap(struct sl_extent_map *em, u64 start, u64 len,
			struct sl_extent_info *out)
{
	if (!sl_em_range_ok(start, len))
		return -EINVAL;
	return sl_em_read(em, start, start + (len - 1), out);
}
EXPORT_SYMBOL_GPL(sl_em_first_overlap);

/**
 * sl_em_next() - find the first extent that ends after an offset
 * @em:  the map
 * @pos: the file offset
 * @out: filled in with a copy of the extent
 *
 * The extent containing @pos, or else the first one after it.  To walk a
 * range, start at its first offset and go on from the end of each extent
 * found, until one reaches U64_MAX (sl_em_walk() does that).
 *
 * Context: Any context but hardirq and NMI; takes rcu_read_lock().
 * Return: 0, or -ENOENT if no extent ends after @pos (@out untouched).
 */
int sl_em_next(struct sl_extent_map *em, u64 pos, struct sl_extent_info *out)
{
	return sl_em_read(em, pos, U64_MAX, out);
}
EXPORT_SYMBOL_GPL(sl_em_next);

/**
 * sl_em_remove() - remove the extent starting at an offset
 * @em:    the map
 * @start: the extent's first file offset, exactly
 *
 * The extent is freed after a grace period.
 *
 * Context: Process or softirq context; takes @em->lock shared, with
 * bottom halves disabled.
 * Return: 0, or -ENOENT if no extent starts at @start.
 */
int sl_em_remove(struct sl_extent_map *em, u64 start)
{
	struct sl_slot *slot;

	read_lock_bh(&em->lock);
	slot = sl_remove(&em->list, start);
	if (slot)
		atomic_long_dec(&em->nr);
	read_unlock_bh(&em->lock);
	if (!slot)
		return -ENOENT;
	sl_extent_free_rcu(sl_extent_of(slot));
	return 0;
}
EXPORT_SYMBOL_GPL(sl_em_remove);

/**
 * sl_em_replace() - map a range again that one extent maps exactly
 * @em:   the map
 * @info: the new extent: file offset, length, disk start and flags
 * @old:  filled in with a copy of the extent replaced, or NULL
 * @gfp:  allocation flags for the extent object
 *
 * The extent that starts at @info->start with @info->len units, if there
 * is one, gives its place to @info in one step (sl_replace()), as
 * sl_em_remove() and sl_em_add() would in two: readers see the old
 * extent or the new one.  The old one is freed after a grace period.
 * Nothing is merged.
 *
 * Context: Process or softirq context; takes @em->lock shared, with
 * bottom halves disabled.  May sleep if @gfp allows, and then must not
 * be called under rcu_read_lock() or a spinlock.
 * Return: 0; -EINVAL if the length is 0 or the range wraps past U64_MAX
 * in the file or on disk; -ENOENT if no extent has exactly that range;
 * -ENOMEM.  On any error the map is unchanged.
 */
int sl_em_replace(struct sl_extent_map *em, const struct sl_extent_info *info,
		  struct sl_extent_info *old, gfp_t gfp)
{
	struct sl_extent *ext, *prev;
	struct sl_slot *slot;
	int ret;

	ret = sl_em_new(info, gfp, &ext);
	if (ret)
		return ret;
	/* Shared: sizes, which sl_replace() compares, change only exclusive. */
	read_lock_bh(&em->lock);
	slot = sl_replace(&em->list, &ext->slot);
	read_unlock_bh(&em->lock);
	if (!slot) {
		kmem_cache_free(sl_extent_cache, ext);
		return -ENOENT;
	}
	prev = sl_extent_of(slot);
	if (old) {
		old->start = slot->key;
		old->len = slot->size;
		old->disk_start = prev->disk_start;
		old->flags = prev->flags;
	}
	sl_extent_free_rcu(prev);
	return 0;
}
EXPORT_SYMBOL_GPL(sl_em_replace);

/*
 * Cut the part of @ext after @last into @tail, a new extent: shrink @ext
 * to end at @last, then insert @tail; if the insert fails, @ext gets its
 * size back and nothing has changed.
 */
static int sl_em_cut_tail(struct sl_extent_map *em, struct sl_extent *ext,
			  u64 last, struct sl_extent *tail, gfp_t gfp)
{
	u64 key = ext->slot.key, size = ext->slot.size;
	int ret;

	lockdep_assert_held_write(&em->lock);
	tail->slot.key = last + 1;
	tail->slot.size = key + (size - 1) - last;
	tail->disk_start = ext->disk_start + (last + 1 - key);
	tail->flags = ext->flags;
	ASSERT_EXCLUSIVE_WRITER(ext->slot.size);
	sl_resize(&em->list, &ext->slot, last + 1 - key);
	ret = sl_insert(&em->list, &tail->slot, gfp);
	if (ret)
		sl_resize(&em->list, &ext->slot, size);
	else
		atomic_long_inc(&em->nr);
	return ret;
}

/*
 * Where a step of a punch of [@start, @last] begins, so that it changes at
 * most SL_EM_BATCH extents: @start if no more overlap [@start, @last],
 * else the key of the SL_EM_BATCH-th of them counted down from @last.
 * Walks SL_EM_BATCH + 2 slots at most.  Under @em->lock held exclusively,
 * inside rcu_read_lock().
 */
static u64 sl_em_step_low(struct sl_extent_map *em, u64 start, u64 last)
{
	struct sl_slot *slot;
	struct sl_iter iter;
	unsigned int n = 0;
	u64 low = start;

	lockdep_assert_held_write(&em->lock);
	/* Past the slot at or after @last, to walk back from there. */
	sl_iter_start(&iter, &em->list, last);
	sl_iter_next(&iter);
	while ((slot = sl_iter_prev(&iter)) && sl_slot_last(slot) >= start) {
		if (slot->key > last)
			continue;
		if (++n > SL_EM_BATCH)
			return low;
		/* Only the first extent can start below @start. */
		low = max_t(u64, slot->key, start);
	}
	return start;
}

/*
 * One step of a punch of [@start, @last] under the lock: punch [*@low,
 * @last], where *@low is chosen by sl_em_step_low(), inside one write
 * section.  Returns -EAGAIN if an extent goes on past @last and there is
 * no @spare for its tail; the caller allocates one and calls again.
 * Takes *@spare when it uses it.
 */
static int sl_em_punch(struct sl_extent_map *em, u64 start, u64 last,
		       u64 *low, struct sl_extent **spare, gfp_t gfp)
{
	struct sl_extent *left = NULL, *right = NULL;
	struct sl_slot *slot;
	int ret = 0;

	rcu_read_lock();
	write_lock_bh(&em->lock);
	start = sl_em_step_low(em, start, last);
	*low = start;
	if (last != U64_MAX) {
		slot = sl_lookup(&em->list, last);
		if (slot && sl_slot_last(slot) > last)
			right = sl_extent_of(slot);
	}
	if (start) {
		slot = sl_lookup(&em->list, start);
		if (slot && slot->key < start)
			left = sl_extent_of(slot);
	}
	if (right && !*spare) {
		ret = -EAGAIN;
		goto unlock;
	}
	if (!left && !right && !sl_em_first_slot(&em->list, start, last))
		goto unlock;

	write_seqcount_begin(&em->seq);
	/* The step that can fail, first. */
	if (right) {
		ret = sl_em_cut_tail(em, right, last, *spare,
				     sl_em_gfp_locked(gfp));
		if (ret)
			goto end;
		*spare = NULL;
	}
	/* @left may be @right, now cut at @last: either way it ends here. */
	if (left)
		sl_resize(&em->list, &left->slot, start - left->slot.key);
	/* What still overlaps lies inside the hole. */
	while ((slot = sl_em_first_slot(&em->list, start, last))) {
		if (WARN_ON_ONCE(slot->key < start ||
				 sl_erase(&em->list, slot)))
			break;
		atomic_long_dec(&em->nr);
		sl_extent_free_rcu(sl_extent_of(slot));
	}
end:
	write_seqcount_end(&em->seq);
unlock:
	write_unlock_bh(&em->lock);
	rcu_read_unlock();
	return ret;
}

/* A hint, without the lock: does an extent go on past @last? */
static bool sl_em_needs_spare(struct sl_extent_map *em, u64 last)
{
	struct sl_slot *slot;
	bool need = false;

	if (last == U64_MAX)
		return false;
	rcu_read_lock();
	slot = sl_lookup(&em->list, last);
	if (slot)
		need = READ_ONCE(slot->size) - 1 > last - slot->key;
	rcu_read_unlock();
	return need;
}

/**
 * sl_em_drop_range() - unmap a range of the file (punch a hole)
 * @em:    the map
 * @start: first file offset of the hole
 * @len:   units in the hole
 * @gfp:   allocation flags for the new extent a split needs (allocated
 *         before the lock is taken); the index's leaf allocations are made
 *         as in sl_em_add().  When it allows sleeping, the CPU may also
 *         reschedule between the steps of a long punch.
 *
 * Removes the extents inside [@start, @start + @len), trims those that
 * straddle either end of it, and splits in two one that contains it with
 * room on both sides.  Readers see each step of the punch whole or not at
 * all.  A punch over at most SL_EM_BATCH extents is one step; a longer one
 * runs in steps of at most SL_EM_BATCH extents from the end of the range
 * down, and between two steps readers see the range's end already
 * unmapped and its start still mapped, and other writers may run.  Each
 * step punches the part of the range it covers as the map is then: a
 * writer that maps an offset in a part not yet punched loses it, one that
 * maps it in a part already punched keeps it.
 *
 * Context: Process or softirq context; takes @em->lock exclusively, with
 * bottom halves disabled, once per step.  May sleep if @gfp allows, and
 * then must not be called under rcu_read_lock() or a spinlock.
 * Return: 0 (also when nothing was mapped there); -EINVAL if @len is 0 or
 * the range wraps past U64_MAX; -ENOMEM, with the map unchanged unless
 * another writer grew an extent across a step boundary meanwhile: then
 * the steps already made stay made.
 */
int sl_em_drop_range(struct sl_extent_map *em, u64 start, u64 len, gfp_t gfp)
{
	struct sl_extent *spare = NULL;
	int ret, tries = 0;
	u64 last, low;
	bool need;

	if (!sl_em_range_ok(start, len))
		return -EINVAL;
	last = start + (len - 1);
	need = sl_em_needs_spare(em, last);
	for (;;) {
		if (need && !spare) {
			spare = kmem_cache_alloc(sl_extent_cache, gfp);
			if (!spare)
				return -ENOMEM;
		}
		ret = sl_em_punch(em, start, last, &low, &spare, gfp);
		/* The hint was stale: an extent grew past @last meanwhile. */
		need = ret == -EAGAIN;
		if (need || sl_em_retry(ret, gfp, &tries))
			continue;
		if (ret || low == start)
			break;
		/* [@low, @last] is punched: let the others in, then go on. */
		last = low - 1;
		sl_window(&em->list, SL_WIN_EM_DROP_STEP, .key = low);
		if (gfpflags_allow_blocking(gfp))
			cond_resched();
	}
	if (spare)
		kmem_cache_free(sl_extent_cache, spare);
	return ret;
}
EXPORT_SYMBOL_GPL(sl_em_drop_range);

/**
 * sl_em_count() - count the extents in a map
 * @em: the map
 *
 * O(1): the map keeps the count.
 *
 * Context: Any context but hardirq and NMI.
 * Return: the number of extents, as of a moment with no merge or punch
 * step in progress; single-extent changes running meanwhile may or may
 * not be counted.
 */
unsigned long sl_em_count(struct sl_extent_map *em)
{
	unsigned int seq;
	long nr;

	do {
		seq = read_seqcount_begin(&em->seq);
		nr = atomic_long_read(&em->nr);
	} while (read_seqcount_retry(&em->seq, seq));
	return nr;
}
EXPORT_SYMBOL_GPL(sl_em_count);

#define sl_em_fail(fmt, ...) ({						\
	pr_err("sl_extent: check failed: " fmt "\n", ##__VA_ARGS__);	\
	-EUCLEAN;							\
})

/* What sl_em_check() carries from one step of its walk to the next. */
struct sl_em_check_walk {
	u64 pos;		/* the next step starts at this key */
	u64 prev_last;		/* last unit of the extent before it */
	unsigned long count;	/* extents walked */
	bool done;
};

/* One step: at most SL_EM_BATCH extents, inside one read-side section. */
static int sl_em_check_step(struct sl_extent_map *em,
			    struct sl_em_check_walk *w)
{
	const struct sl_extent *ext;
	struct sl_slot *slot = NULL;
	struct sl_iter iter;
	unsigned int n;
	int ret = 0;

	rcu_read_lock();
	sl_iter_start(&iter, &em->list, w->pos);
	for (n = 0; n < SL_EM_BATCH && !ret; n++) {
		slot = sl_iter_next(&iter);
		if (!slot)
			break;
		ext = sl_extent_of(slot);
		if (!sl_em_range_ok(slot->key, slot->size))
			ret = sl_em_fail("extent at %lx has bad length %lx",
					 slot->key, slot->size);
		else if (!sl_em_range_ok(ext->disk_start, slot->size))
			ret = sl_em_fail("extent at %lx wraps on disk",
					 slot->key);
		else if (w->count && (w->prev_last == U64_MAX ||
				      slot->key <= w->prev_last))
			ret = sl_em_fail("extent at %lx overlaps or precedes the one before",
					 slot->key);
		w->prev_last = sl_slot_last(slot);
		w->count++;
		/* Past the last key, the walk is over. */
		w->pos = slot->key + 1;
		if (!w->pos)
			slot = NULL;
	}
	rcu_read_unlock();
	w->done = !slot;
	return ret;
}

/**
 * sl_em_check() - verify a map's invariants
 * @em: the map; the caller keeps every writer out for the whole call
 *
 * The index's own invariants (sl_check()), and for the extents: each has
 * a length and wraps neither in the file nor on disk, they come in
 * increasing order without overlapping, and there are as many as the map
 * counts.  The first violation is logged.  For tests and debugging: it
 * walks everything, SL_EM_BATCH extents per read-side section, with a
 * chance to reschedule between them; a writer running meanwhile could
 * make it report what is no violation.
 *
 * Context: Process context; may sleep.  The caller excludes writers of
 * @em (for /dev/sl_extent, the file's semaphore held exclusive does).
 * Return: 0, or -EUCLEAN if an invariant does not hold.
 */
int sl_em_check(struct sl_extent_map *em)
{
	struct sl_em_check_walk w = {};
	int ret;

	might_sleep();
	/* Once, before the walk: it sleeps, and walks the whole index. */
	ret = sl_check(&em->list);
	while (!ret && !w.done) {
		ret = sl_em_check_step(em, &w);
		if (ret || w.done)
			break;
		sl_window(&em->list, SL_WIN_EM_CHECK_STEP, .key = w.pos);
		cond_resched();
	}
	if (!ret && w.count != sl_em_count(em))
		ret = sl_em_fail("%lu extents in the index, the map counts %lu",
				 w.count, sl_em_count(em));
	return ret;
}
EXPORT_SYMBOL_GPL(sl_em_check);

static int __init sl_extent_init(void)
{
	sl_extent_cache = kmem_cache_create("sl_extent",
					    sizeof(struct sl_extent), 0, 0,
					    NULL);
	return sl_extent_cache ? 0 : -ENOMEM;
}

static void __exit sl_extent_exit(void)
{
	/* Extents freed by the maps' last removals may still be queued. */
	rcu_barrier();
	kmem_cache_destroy(sl_extent_cache);
}

module_init(sl_extent_init);
module_exit(sl_extent_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Extent map and range allocator on the RCU skiplist");
MODULE_AUTHOR("Seed 86df1db9 maintainers <maintainers@users.noreply.a-seed-86df1db9.example>");
MODULE_VERSION(SL_VERSION);
