/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Skiplist internals: the leaf layout and the helpers every part of the
 * implementation shares.  Private to skiplist/.
 */
#ifndef _SKIPLIST_LEAF_H
#define _SKIPLIST_LEAF_H

#include <linux/kernel.h>
#include <linux/spinlock.h>
#include <linux/seqlock.h>
#include <linux/rcupdate.h>
#include <linux/percpu.h>
#include <linux/llist.h>
#include "skiplist.h"
#include "window.h"

/*
 * Keys per leaf.  64 won the sweep of 8 to 128 recorded in
 * Documentation/skiplist.rst (lookups, updates and bytes per item at 64K
 * and 1M items); the build may override it to repeat that measurement.
 */
#ifndef SL_LEAF_KEYS
#define SL_LEAF_KEYS	64
#endif

/*
 * The most leaves a walk of the whole list visits while it holds the CPU:
 * inside one RCU read-side section, or between two calls of
 * cond_resched().  Walks whose work grows with the list (the directory's
 * rebuild, sl_check(), sl_stats(), sl_destroy()) leave the section and
 * may reschedule after each chunk, so that none of them holds a CPU for a
 * time that grows with the list: 256 leaves are about 16K slots, well
 * under a millisecond natively.  Tests lower it to cross chunk boundaries
 * often.
 */
#ifndef SL_ATOMIC_LEAVES
#define SL_ATOMIC_LEAVES	256
#endif

/*
 * A delete that leaves a leaf with fewer than SL_MERGE_LOW items merges it
 * with a neighbour when both fit in SL_MERGE_MAX.  The gap between the
 * merged size and a full leaf keeps a merge from being undone by the next
 * few inserts.
 */
#define SL_MERGE_LOW	(SL_LEAF_KEYS / 3)
#define SL_MERGE_MAX	(SL_LEAF_KEYS * 3 / 4)

/*
 * Lock subclasses for lockdep: a writer holds at most three leaf locks at
 * once, always taken left to right (increasing @lo), so the n-th lock of a
 * chain gets subclass n.
 */
enum sl_lock_subclass {
	SL_LOCK_FIRST,
	SL_LOCK_SECOND,
	SL_LOCK_THIRD,
};

/**
 * struct sl_link - a forward link of the tower above level 0
 * @next: the next leaf at this level
 * @lo:   that leaf's lower fence, kept here so that a search can reject the
 *        next leaf without touching it.  A hint: it is not written together
 *        with @next, so a reader may see one change before the other, and a
 *        search led astray by it is put right at level 0 by the fences.
 * @gap:  an upper bound of the largest free gap owned by the keys this link
 *        spans, for gap searches (rules in gap.c)
 */
struct sl_link {
	struct sl_leaf __rcu *next;
	unsigned long lo;
	unsigned long gap;
};

/* The largest gap bound a link records; above it, a bound never prunes. */
#define SL_GAP_MAX	(ULONG_MAX >> 16)

/**
 * struct sl_leaf - a skiplist node holding a sorted run of slots
 * @lo:     lower fence: every key in the leaf is >= @lo.  Set when the leaf
 *          is created and never changed, so searches compare against it
 *          (and against copies of it in the links) without synchronisation.
 * @hi:     upper fence, inclusive: every key in the leaf is <= @hi, and the
 *          next leaf's @lo is @hi + 1.  Changes under @lock and @seq.
 * @next:   level 0 forward pointer.
 * @nr:     slots in use, keys[0..nr) and slots[0..nr).
 * @height: tower height, fixed at allocation: level 0 plus @height - 1
 *          links below the header (sl_up()).
 * @linked: tower levels linked so far; the upper levels are linked after
 *          the leaf is published at level 0.
 * @dead:   set once the leaf is unlinked from level 0; never cleared.
 * @seq:    readers snapshot the leaf between two reads of it.
 * @prev:   level 0 back pointer; a hint that writers and backward
 *          iteration confirm through prev->next.  Never followed from a
 *          dead leaf: it froze at death and may name a leaf freed since
 *          (sl_left_of_dead()).
 * @lock:   serialises writers of this leaf (rules in locking.c).
 * @keys:   start keys of the slots, sorted.
 * @rcu:    for freeing after a grace period.  It shares space with @keys,
 *          which nobody reads once the leaf is dead: readers check @dead
 *          in the same snapshot and throw away what they read, and writers
 *          check it under the lock.
 * @dying:  queues a leaf that died while the directory was being rebuilt
 *          until the rebuild is done with it (directory.c); before @rcu is
 *          used, in the same space.
 * @slots:  the slots, in key order; entries at @nr and above are NULL.
 *
 * The tower is not in the structure: its links sit below it in the same
 * slab object, the link at level 1 right under the header and higher
 * levels further down, so that a search that comes down a leaf's tower
 * reaches level 0 in the lines it is already reading.  The object is
 * cache-line aligned and the header starts SL_HEADER_OFFSET bytes into a
 * line, which puts the level 1 link and everything a search reads of the
 * header (@lo, @hi, @next, @nr, @dead, @seq in non-debug builds) in one
 * line; the keys follow.  At 1M items that took a lookup from 17.5 L1
 * misses to 13.9 under callgrind's cache model (make bench-lookup-cachesim;
 * Documentation/skiplist.rst, "Leaf layout").
 */
struct sl_leaf {
	unsigned long lo;
	unsigned long hi;
	struct sl_leaf __rcu *next;
	u8 nr;
	u8 height;
	u8 linked;
	u8 dead;
	seqcount_spinlock_t seq;
	struct sl_leaf __rcu *prev;
	spinlock_t lock;		/* rules in locking.c */
	union {
		unsigned long keys[SL_LEAF_KEYS];
		struct rcu_head rcu;
		struct llist_node dying;
	};
	struct sl_slot *slots[SL_LEAF_KEYS];
};

/* Where the header sits in its cache line (struct sl_leaf). */
#define SL_LEAF_ALIGN		64
#define SL_HEADER_OFFSET	32

/*
 * Bytes of a slab object below the header: the tower's links, padded so
 * that the header lands SL_HEADER_OFFSET into a line.  A leaf without a
 * tower starts its object, header first.
 */
static inline size_t sl_tower_bytes(unsigned int height)
{
	size_t links = (height - 1) * sizeof(struct sl_link);

	if (height == 1)
		return 0;
	return links + ((SL_HEADER_OFFSET - links) & (SL_LEAF_ALIGN - 1));
}

static inline size_t sl_leaf_size(unsigned int height)
{
	return sizeof(struct sl_leaf) + sl_tower_bytes(height);
}

/* The link at @level >= 1: the tower sits below the header, level 1 nearest. */
static inline struct sl_link *sl_up(const struct sl_leaf *leaf,
				    unsigned int level)
{
	return (struct sl_link *)leaf - level;
}

/* The forward pointer of @leaf at @level (0 included). */
static inline struct sl_leaf __rcu **sl_next_ptr(struct sl_leaf *leaf,
						 unsigned int level)
{
	return level ? &sl_up(leaf, level)->next : &leaf->next;
}

/*
 * Key-load accounting (seed 001): every key a search loads to compare is
 * counted, so tests and benchmarks can report loads per lookup.  Searches
 * count in a local and add it once, so the counter costs one per-CPU add.
 */
#ifdef SL_COUNT_KEY_LOADS
DECLARE_PER_CPU(unsigned long, sl_key_load_count);
#define sl_count(loads)		((loads)++)
#define sl_count_flush(loads)	this_cpu_add(sl_key_load_count, (loads))
#else
#define sl_count(loads)		((void)0)
#define sl_count_flush(loads)	((void)(loads))
#endif

/*
 * The seed-001 optimisation: when a search descends a level and the next
 * leaf there is the one it just rejected above, it already knows the key is
 * below that leaf's fence and skips the load.  Building with
 * SL_NO_SKIP_REJECTED turns it off so the saving can be measured.
 */
#ifdef SL_NO_SKIP_REJECTED
#define sl_known_above(next, rejected)	((void)(rejected), false)
#else
#define sl_known_above(next, rejected)	((next) == (rejected))
#endif

/*
 * What a published list counts, per CPU (struct sl_counters), only on the
 * paths that retry, never on a lookup that does not, and only while the
 * list is in debugfs (debugfs.c):
 *  - SL_COUNT_READ_RETRIES: reader snapshots that did not hold (a writer
 *    was in the leaf) and were taken again;
 *  - SL_COUNT_GAP_RETRIES: gap searches, raises and tightenings that had
 *    to look again (sl_gap_retry's reasons), and holes another writer
 *    took first;
 *  - SL_COUNT_DIR_REBUILDS: directory rebuilds that ran to the end.
 */
enum sl_counter {
	SL_COUNT_READ_RETRIES,
	SL_COUNT_GAP_RETRIES,
	SL_COUNT_DIR_REBUILDS,
	SL_COUNT_NR
};

struct sl_counters {
	unsigned long n[SL_COUNT_NR];
};

/**
 * struct sl_debugfs - a list published in debugfs
 * @dir:      its directory
 * @counters: its counters, per CPU
 * @rcu:      for freeing after the counters' last users, who hold only
 *            rcu_read_lock(), are done
 */
struct sl_debugfs {
	struct dentry *dir;
	struct sl_counters __percpu *counters;
	struct rcu_head rcu;
};

/*
 * Count an event of a published list; nothing for a list that is not.
 * Caller holds rcu_read_lock(), which keeps the counters from being freed
 * under it (sl_debugfs_remove()).
 */
static inline void sl_count_stat(struct sl_list *list, enum sl_counter which)
{
	struct sl_debugfs *dbg = rcu_dereference(list->debugfs);

	if (dbg)
		this_cpu_inc(dbg->counters->n[which]);
}

/* A forward pointer of a leaf whose lock the caller holds. */
static inline struct sl_leaf *sl_next_locked(struct sl_leaf *leaf,
					     unsigned int level)
{
	return rcu_dereference_protected(*sl_next_ptr(leaf, level),
					 lockdep_is_held(&leaf->lock));
}

static inline bool sl_leaf_covers(const struct sl_leaf *leaf,
				  unsigned long key)
{
	return key >= leaf->lo && key <= READ_ONCE(leaf->hi);
}

/* Index of the last key <= @key, -1 if none.  Caller holds the lock. */
static inline int sl_floor_locked(const struct sl_leaf *leaf,
				  unsigned long key)
{
	const unsigned long *keys = leaf->keys;
	int lo = 0, hi = leaf->nr - 1, found = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (keys[mid] == key)
			return mid;
		if (keys[mid] < key) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

/*
 * The leaf locks a writer holds, in the order it took them.  The first is
 * taken with interrupts disabled, so that the list may be updated from any
 * context; the others nest inside it with increasing lockdep subclasses.
 *
 * Sparse cannot follow a lock set whose size is decided at run time, so
 * these two helpers present themselves to it as balanced (__release()
 * after taking, __acquire() before dropping).  Lockdep checks the real
 * thing: one lock class for all leaves, the subclass order above, and
 * lockdep_assert_held() in every function that needs a leaf locked.
 */
struct sl_locked {
	struct sl_leaf *leaf[3];
	unsigned int nr;
	unsigned long flags;
};

static inline void sl_lock_leaf(struct sl_locked *held, struct sl_leaf *leaf)
{
	/*
	 * Lockdep sees one class for every leaf, so it cannot see two
	 * writers take the same two leaves in opposite orders: check the
	 * left-to-right rule here (fences are immutable; a dead leaf may
	 * share its fence with the live one that replaced it).
	 */
	WARN_ON_ONCE(held->nr && leaf->lo < held->leaf[held->nr - 1]->lo);
	if (!held->nr)
		spin_lock_irqsave(&leaf->lock, held->flags);
	else
		spin_lock_nested(&leaf->lock, held->nr);
	__release(&leaf->lock);
	held->leaf[held->nr++] = leaf;
}

static inline void sl_unlock_all(struct sl_locked *held)
{
	struct sl_leaf *leaf;

	while (held->nr > 1) {
		leaf = held->leaf[--held->nr];
		__acquire(&leaf->lock);
		spin_unlock(&leaf->lock);
	}
	if (held->nr) {
		leaf = held->leaf[--held->nr];
		__acquire(&leaf->lock);
		spin_unlock_irqrestore(&leaf->lock, held->flags);
	}
}

/*
 * Drop every lock held but leave interrupts off, and return the flags to
 * restore them with.  For a delete whose merge killed a leaf: nothing else
 * may run on this CPU until the leaf is out of its tower (tower.c).
 */
static inline unsigned long sl_unlock_all_irqs_off(struct sl_locked *held)
{
	struct sl_leaf *leaf;

	WARN_ON_ONCE(!held->nr);
	while (held->nr) {
		leaf = held->leaf[--held->nr];
		__acquire(&leaf->lock);
		spin_unlock(&leaf->lock);
	}
	return held->flags;
}

/*
 * Open a write section on a leaf whose lock is held.  The subclass is the
 * lock's position in the chain, so lockdep sees the same nesting for the
 * sequence counts as for the locks.
 */
static inline void sl_write_begin(struct sl_locked *held, struct sl_leaf *leaf)
{
	unsigned int i;

	for (i = 0; i < held->nr; i++)
		if (held->leaf[i] == leaf)
			break;
	WARN_ON_ONCE(i == held->nr);
	write_seqcount_begin_nested(&leaf->seq, i);
}

static inline void sl_write_end(struct sl_leaf *leaf)
{
	write_seqcount_end(&leaf->seq);
}

/*
 * The finger only ever points at a leaf that was live when a writer holding
 * its lock set it; the writer that kills a leaf holds that lock too and
 * drops the finger if it still points there, before the grace period that
 * frees the leaf starts.  Losing a finger to a racing writer is harmless.
 */
static inline void sl_finger_set(struct sl_list *list, struct sl_leaf *leaf)
{
	lockdep_assert_held(&leaf->lock);
	if (rcu_access_pointer(list->finger) != leaf) {
		WRITE_ONCE(list->finger_lo, leaf->lo);
		rcu_assign_pointer(list->finger, leaf);
	}
}

static inline void sl_finger_forget(struct sl_list *list, struct sl_leaf *dead)
{
	lockdep_assert_held(&dead->lock);
	if (rcu_access_pointer(list->finger) == dead)
		RCU_INIT_POINTER(list->finger, NULL);
}

/* leaf.c */
struct sl_leaf *sl_leaf_alloc(unsigned int height, gfp_t gfp);
void sl_leaf_free(struct sl_leaf *leaf);
void sl_leaf_free_rcu(struct sl_leaf *leaf);
unsigned int sl_random_height(unsigned int level);
#ifndef __KERNEL__
extern unsigned int sl_test_next_height;
#endif
int sl_caches_init(void);
void sl_caches_exit(void);

/* preload.c */
struct sl_leaf *sl_split_leaf_alloc(unsigned int height, gfp_t gfp);
void sl_split_leaf_unused(struct sl_leaf *leaf);
int sl_preload_init(void);
void sl_preload_exit(void);

/* insert.c */
int sl_insert_slot(struct sl_list *list, struct sl_slot *slot, gfp_t gfp);

/* search.c */
struct sl_leaf *sl_descend(struct sl_list *list, unsigned long key,
			   unsigned int *loads);
struct sl_leaf *sl_left_of_dead(struct sl_list *list, struct sl_leaf *dead);

void sl_iter_start_near(struct sl_iter *iter, struct sl_list *list,
			unsigned long pos, struct sl_leaf *near);

/* locking.c */
struct sl_leaf *sl_lock_covering(struct sl_list *list, unsigned long key,
				 struct sl_locked *held);
bool sl_lock_with_prev(struct sl_locked *held, unsigned long key);

/* gap.c */
unsigned long sl_gap_unknown(void);
void sl_gap_raise(struct sl_list *list, unsigned long key, unsigned long gap);
void sl_gap_absorb(struct sl_link *dead, struct sl_link *pred);
void sl_gap_note(struct sl_list *list, unsigned long key);
bool sl_gap_find(struct sl_list *list, unsigned long from, unsigned long room,
		 unsigned long size, unsigned long align, unsigned long *found,
		 unsigned long *visits);
void sl_gap_retried(struct sl_list *list, unsigned int level,
		    unsigned int why);
int sl_gap_check_link(struct sl_leaf *owner, unsigned int level,
		      unsigned long real);
unsigned long sl_gap_check_run(unsigned long first, unsigned long last);
unsigned long sl_gap_check_join(unsigned long a, unsigned long b);
unsigned long sl_gap_visits(void);

/* directory.c */
/*
 * One leaf in the directory: its lower fence, and the leaf, or NULL once
 * it has died.  Side by side, so that a search loads the fence and the
 * leaf from one cache line (and, under emulation, one page).
 */
struct sl_dir_entry {
	unsigned long lo;
	struct sl_leaf __rcu *leaf;
};

/**
 * struct sl_dir - the directory of a list's leaves
 * @rcu:  for freeing after a grace period
 * @built_ns: when it was published (ktime_get_ns()), for its age in
 *        debugfs
 * @cap:  room for entries
 * @nr:   entries
 * @entry: the leaves, by lower fence, strictly increasing; @entry[0] is
 *        the head's, 0
 * @bucket: @bucket[b] is the floor entry of the first key whose top bits
 *        (@key >> @shift) are b; the floor of every key in bucket b lies
 *        between @bucket[b] and @bucket[b + 1]; @bucket[@buckets] is
 *        @nr - 1
 * @shift: bits of a key below its bucket number
 * @buckets: buckets, a power of two near @cap; the highest fence's bucket
 *        is below it
 * @mem:  storage for both arrays
 */
struct sl_dir {
	struct rcu_head rcu;
	u64 built_ns;
	unsigned long cap;
	unsigned long nr;
	struct sl_dir_entry *entry;
	u32 *bucket;
	unsigned int shift;
	unsigned long buckets;
	unsigned long mem[];
};

/*
 * Index of the last fence <= @key in @dir; entry 0's is 0, so it exists.  The
 * bucket of @key's top bits bounds the binary search to the entries
 * between its first key's floor and the next bucket's: about two when the
 * fences are spread over the key space, all of them at worst.  The loop
 * has no exit but the count, which compilers turn into conditional moves.
 */
static inline unsigned long sl_dir_floor(const struct sl_dir *dir,
					 unsigned long key,
					 unsigned int *loads)
{
	const struct sl_dir_entry *entry = dir->entry;
	unsigned long b = key >> dir->shift, base, n;

	if (b >= dir->buckets)
		return dir->nr - 1;
	base = dir->bucket[b];
	for (n = dir->bucket[b + 1] - base + 1; n > 1; n -= n / 2) {
		sl_count(*loads);
		if (entry[base + n / 2].lo <= key)
			base += n / 2;
	}
	return base;
}

#ifndef SL_NO_DIRECTORY
/**
 * sl_dir_guess() - the leaf the directory names for a key
 * @list:  the list
 * @key:   the key searched for
 * @loads: key loads, counted (seed 001)
 *
 * Inline: under emulation every call and return costs a lookup of the
 * next translation block (Documentation/extent.rst).
 *
 * Context: rcu_read_lock() held.
 * Return: a leaf whose lower fence is at most @key, live when the
 * directory was last swept; or NULL if the list has no directory or the
 * leaf found has died since, and the caller must descend.
 */
static inline struct sl_leaf *sl_dir_guess(struct sl_list *list,
					   unsigned long key,
					   unsigned int *loads)
{
	struct sl_dir *dir = rcu_dereference(list->dir);

	if (!dir)
		return NULL;
	return rcu_dereference(dir->entry[sl_dir_floor(dir, key, loads)].leaf);
}
#else
static inline struct sl_leaf *sl_dir_guess(struct sl_list *list,
					   unsigned long key,
					   unsigned int *loads)
{
	return NULL;
}
#endif

void sl_dir_changed(struct sl_list *list);
void sl_dir_retire(struct sl_list *list, struct sl_leaf *leaf);
void sl_dir_init(struct sl_list *list, gfp_t gfp);
void sl_dir_quiesce(struct sl_list *list);
void sl_dir_destroy(struct sl_list *list);
unsigned long sl_dir_bytes(struct sl_list *list);
int sl_dir_check(struct sl_list *list);

/* debugfs.c */
void sl_debugfs_init(void);
void sl_debugfs_exit(void);

/* tower.c */
void sl_tower_link(struct sl_list *list, struct sl_leaf *leaf);
void sl_tower_unlink(struct sl_list *list, struct sl_leaf *leaf,
		     unsigned long flags);

#endif /* _SKIPLIST_LEAF_H */
