/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs and seq_file in userspace: enough for the files the project
 * publishes (DEFINE_SHOW_ATTRIBUTE() files in directories), so that the
 * code that makes them runs here unchanged and a test can read what a
 * file shows (shim_debugfs_read()).
 *
 * As in the kernel, removing a file waits for the reads of it in
 * progress, and for no others: each file counts the reads under way,
 * and a removal takes its entries out of the tree first, then waits
 * until none of them is being read.  Entries are the shim's own allocations,
 * outside the kmalloc accounting and its failure injection; a test
 * checks that none is left (shim_debugfs_live()).
 */
#ifndef _SHIM_DEBUGFS_H
#define _SHIM_DEBUGFS_H

#include <stdarg.h>
#include "base.h"
#include "err.h"

typedef unsigned short umode_t;

/* What a show function writes to: a growing buffer. */
struct seq_file {
	char *buf;
	size_t size;
	size_t count;
	void *private;
};

void seq_printf(struct seq_file *m, const char *fmt, ...) __printf(2, 3);
void seq_puts(struct seq_file *m, const char *s);
void seq_putc(struct seq_file *m, char c);

/* A file's operations: here, only what DEFINE_SHOW_ATTRIBUTE() makes. */
struct file_operations {
	int (*show)(struct seq_file *m, void *unused);
};

#define DEFINE_SHOW_ATTRIBUTE(__name)					\
	static const struct file_operations __name##_fops = {		\
		.show = __name##_show,					\
	}

struct dentry;

struct dentry *debugfs_create_dir(const char *name, struct dentry *parent);
struct dentry *debugfs_create_file(const char *name, umode_t mode,
				   struct dentry *parent, void *data,
				   const struct file_operations *fops);
void debugfs_remove(struct dentry *dentry);
#define debugfs_remove_recursive(dentry)	debugfs_remove(dentry)

/*
 * What a read of the file at @path ("skiplist/NAME/stats", from the top
 * of debugfs) shows, as a string the caller frees; NULL if there is no
 * such file.
 */
char *shim_debugfs_read(const char *path);
/* Whether a file or directory is at @path. */
bool shim_debugfs_exists(const char *path);
/*
 * Write the tree under the directory @path, each file as a read shows
 * it: a copy of debugfs for tools that read it (slctl top's test).
 * 0 or -errno.
 */
int shim_debugfs_dump(const char *path);
/* Entries made and not removed, the top directories included. */
long shim_debugfs_live(void);
/*
 * Removals waiting for reads of their files to end: a test that stalls
 * a read sees a removal of that file wait before it lets the read go.
 */
long shim_debugfs_removals_waiting(void);

#endif /* _SHIM_DEBUGFS_H */
