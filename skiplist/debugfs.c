// SPDX-License-Identifier: GPL-2.0
/*
 * Lists in debugfs.  A list is embedded in its user's object and has no
 * name, so its user publishes it under one (sl_debugfs_add()): a
 * directory with a "stats" file of "name value" lines (what sl_stats()
 * counts, the tower levels, the directory's size and age, and the retry
 * counters), listed in Documentation/tracing.rst.  `slctl top` reads
 * them.  Without debugfs nothing is published and nothing is counted;
 * the list works the same.
 *
 * The counters (struct sl_counters) exist only while the list is
 * published: readers and writers that retry bump them per CPU, inside
 * their read-side sections, and a list nobody publishes pays one load of
 * a NULL pointer on the paths that retry, nothing on the others.
 *
 * Lifetimes, and the interleavings they rule out:
 *  - A read of "stats" against the list's destruction: the read walks the
 *    list (sl_stats()) and must not run once its memory may go.
 *    sl_debugfs_remove() removes the files first, and debugfs_remove()
 *    waits for every read of them in progress to finish (debugfs's file
 *    operations hold a reference the removal waits for), though not for
 *    reads of other files; a descriptor opened before reads -EIO after.
 *    sl_destroy() removes the files too, so a user that forgets still
 *    cannot leave a file on a freed list.
 *  - A retry counting against the counters' freeing: a retry loads the
 *    pointer and bumps the counter inside rcu_read_lock(); removal clears
 *    the pointer, then frees the counters after a grace period, which
 *    waits for every section that may have loaded it.
 *  - Publication against a retry: the counters are zeroed before
 *    rcu_assign_pointer() makes them visible.
 *  - Publication against removal, or two of either: the caller's to
 *    serialise (the list's own life cycle, as for sl_init() and
 *    sl_destroy()).
 * The reads walk the list in chunks, in process context, outside any
 * read-side section (sl_stats()), like every whole-list walk.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/export.h>
#include "leaf.h"

/* /sys/kernel/debug/skiplist; NULL or an error pointer without debugfs. */
static struct dentry *sl_debugfs_root;

/* What the directory says, read in one read-side section. */
static void sl_debugfs_show_dir(struct seq_file *m, struct sl_list *list)
{
	unsigned long entries = 0, age_ms = 0;
	struct sl_dir *dir;

	rcu_read_lock();
	dir = rcu_dereference(list->dir);
	if (dir) {
		entries = dir->nr;
		age_ms = div_u64(ktime_get_ns() - dir->built_ns, NSEC_PER_MSEC);
	}
	rcu_read_unlock();
	/* No directory: 0 entries, and an age of 0. */
	seq_printf(m, "dir_entries %lu\n", entries);
	seq_printf(m, "dir_age_ms %lu\n", age_ms);
	seq_printf(m, "dir_changes %ld\n", atomic_long_read(&list->dir_changes));
}

static int sl_list_stats_show(struct seq_file *m, void *unused)
{
	struct sl_list *list = m->private;
	struct sl_counters sum = {};
	struct sl_debugfs *dbg;
	struct sl_stats st;
	unsigned int h, i;
	int cpu;

	/*
	 * The list is published while its file is read: removal waits for
	 * this read to end before it clears the pointer.
	 */
	dbg = rcu_dereference_protected(list->debugfs, true);
	sl_stats(list, &st);
	seq_printf(m, "id %p\n", list);
	seq_printf(m, "items %lu\n", st.items);
	seq_printf(m, "leaves %lu\n", st.leaves);
	seq_printf(m, "bytes %lu\n", st.bytes);
	seq_printf(m, "levels %u\n", READ_ONCE(list->level));
	for (h = 0; h < SL_MAX_HEIGHT; h++)
		if (st.height[h])
			seq_printf(m, "height_%u %lu\n", h + 1, st.height[h]);
	sl_debugfs_show_dir(m, list);
	for_each_possible_cpu(cpu) {
		struct sl_counters *c = per_cpu_ptr(dbg->counters, cpu);

		for (i = 0; i < SL_COUNT_NR; i++)
			sum.n[i] += READ_ONCE(c->n[i]);
	}
	seq_printf(m, "dir_rebuilds %lu\n", sum.n[SL_COUNT_DIR_REBUILDS]);
	seq_printf(m, "read_retries %lu\n", sum.n[SL_COUNT_READ_RETRIES]);
	seq_printf(m, "gap_retries %lu\n", sum.n[SL_COUNT_GAP_RETRIES]);
	seq_printf(m, "gaps_searched %d\n", READ_ONCE(list->gaps_searched));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sl_list_stats);

/**
 * sl_debugfs_dir() - the skiplist module's directory in debugfs
 *
 * Where sl_debugfs_add() publishes lists given no parent, and where users
 * of the index may make directories of their own for their lists.
 *
 * Context: Any context.
 * Return: the dentry of /sys/kernel/debug/skiplist; NULL or an error
 * pointer when debugfs is not available (debugfs's calls take either as
 * a parent and do nothing).
 */
struct dentry *sl_debugfs_dir(void)
{
	return sl_debugfs_root;
}
EXPORT_SYMBOL_GPL(sl_debugfs_dir);

/**
 * sl_debugfs_add() - publish a list in debugfs under a name
 * @list:   an initialised list, not published yet
 * @parent: the debugfs directory to publish it in; NULL for
 *          sl_debugfs_dir()
 * @name:   the name of the list's directory there, unique in @parent
 *
 * Makes @parent/@name/stats (Documentation/tracing.rst lists its lines)
 * and starts counting the list's retries and directory rebuilds.  The
 * list must be taken out again with sl_debugfs_remove() before its memory
 * goes; sl_destroy() takes it out if it is still published.
 *
 * Context: Process context; may sleep.  Not concurrently with
 * sl_debugfs_add(), sl_debugfs_remove() or sl_destroy() on @list.
 * Return: 0, also when debugfs is not available (nothing is published
 * then, and sl_debugfs_remove() has nothing to do); -EBUSY if @list is
 * published already; -ENOMEM; or the error debugfs gave for @name
 * (-EEXIST if @parent has an entry of that name).
 */
int sl_debugfs_add(struct sl_list *list, struct dentry *parent,
		   const char *name)
{
	struct sl_debugfs *dbg;
	struct dentry *dir;

	might_sleep();
	if (rcu_access_pointer(list->debugfs))
		return -EBUSY;
	if (!parent)
		parent = sl_debugfs_root;
	if (IS_ERR_OR_NULL(parent))
		return 0;
	dbg = kzalloc(sizeof(*dbg), GFP_KERNEL);
	if (!dbg)
		return -ENOMEM;
	dbg->counters = alloc_percpu(struct sl_counters);
	if (!dbg->counters) {
		kfree(dbg);
		return -ENOMEM;
	}
	dir = debugfs_create_dir(name, parent);
	if (IS_ERR(dir)) {
		free_percpu(dbg->counters);
		kfree(dbg);
		/* debugfs turned off (debugfs=off): as without it. */
		return PTR_ERR(dir) == -ENODEV || PTR_ERR(dir) == -EPERM ?
		       0 : PTR_ERR(dir);
	}
	dbg->dir = dir;
	/* Zeroed counters first: a retry that finds the pointer uses them. */
	rcu_assign_pointer(list->debugfs, dbg);
	debugfs_create_file("stats", 0400, dir, list, &sl_list_stats_fops);
	return 0;
}
EXPORT_SYMBOL_GPL(sl_debugfs_add);

static void sl_debugfs_free(struct rcu_head *head)
{
	struct sl_debugfs *dbg = container_of(head, struct sl_debugfs, rcu);

	free_percpu(dbg->counters);
	kfree(dbg);
}

/**
 * sl_debugfs_remove() - take a list out of debugfs
 * @list: the list; published with sl_debugfs_add(), or not (nothing to do)
 *
 * Removes the list's directory, waiting for reads of its files in
 * progress to end, and stops counting.  Its counters are freed after a
 * grace period (skiplist.ko's exit waits for that).
 *
 * Context: Process context; sleeps.  Not concurrently with
 * sl_debugfs_add(), sl_debugfs_remove() or sl_destroy() on @list.
 */
void sl_debugfs_remove(struct sl_list *list)
{
	/* The caller serialises publication and removal (see above). */
	struct sl_debugfs *dbg = rcu_dereference_protected(list->debugfs, true);

	might_sleep();
	if (!dbg)
		return;
	/* No read of the list's files runs once this returns. */
	debugfs_remove(dbg->dir);
	RCU_INIT_POINTER(list->debugfs, NULL);
	/* Retries that loaded the pointer count on until they leave. */
	call_rcu(&dbg->rcu, sl_debugfs_free);
}
EXPORT_SYMBOL_GPL(sl_debugfs_remove);

/* The module's directory, made at load; its lack is not an error. */
void sl_debugfs_init(void)
{
	sl_debugfs_root = debugfs_create_dir("skiplist", NULL);
}

/* At unload: every user's list is gone already (they depend on us). */
void sl_debugfs_exit(void)
{
	debugfs_remove(sl_debugfs_root);
	sl_debugfs_root = NULL;
}
