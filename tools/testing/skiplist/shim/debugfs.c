// SPDX-License-Identifier: GPL-2.0
/* Userspace shim: a debugfs tree and seq_file buffers (debugfs.h). */
#include <pthread.h>
#include <sys/stat.h>
#include "debugfs.h"

struct dentry {
	char name[64];
	struct dentry *parent;
	struct dentry *child;		/* first child, for a directory */
	struct dentry *sibling;		/* next child of the parent */
	const struct file_operations *fops;	/* NULL for a directory */
	void *data;
	int active;			/* reads of the file under way */
};

/* The top of debugfs: the parent of entries made with a NULL parent. */
static struct dentry shim_debugfs_top;
/*
 * Guards the tree and the read counts; not held while a show function
 * runs.  A removal waits on @shim_debugfs_idle for the reads of the
 * files it removes, and of no others, as the kernel's does (each file
 * counts its active users): a removal that a read of another file held
 * up here would hide an order of removals that the kernel lets race.
 */
static pthread_mutex_t shim_debugfs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t shim_debugfs_idle = PTHREAD_COND_INITIALIZER;
static long shim_debugfs_entries;
/* debugfs_remove() calls waiting for reads (removals_waiting()). */
static long shim_debugfs_removing;

static struct dentry *shim_debugfs_child(struct dentry *dir, const char *name,
					 size_t len)
{
	struct dentry *d;

	for (d = dir->child; d; d = d->sibling)
		if (strlen(d->name) == len && !strncmp(d->name, name, len))
			return d;
	return NULL;
}

static struct dentry *shim_debugfs_create(const char *name,
					  struct dentry *parent,
					  const struct file_operations *fops,
					  void *data)
{
	struct dentry *d;

	if (IS_ERR(parent))
		return parent;
	if (!parent)
		parent = &shim_debugfs_top;
	if (parent->fops || strlen(name) >= sizeof(d->name) ||
	    strchr(name, '/'))
		return ERR_PTR(-EINVAL);
	pthread_mutex_lock(&shim_debugfs_lock);
	if (shim_debugfs_child(parent, name, strlen(name))) {
		pthread_mutex_unlock(&shim_debugfs_lock);
		return ERR_PTR(-EEXIST);
	}
	d = calloc(1, sizeof(*d));
	SHIM_ASSERT(d, "out of memory for a debugfs entry");
	strcpy(d->name, name);
	d->parent = parent;
	d->fops = fops;
	d->data = data;
	d->sibling = parent->child;
	parent->child = d;
	shim_debugfs_entries++;
	pthread_mutex_unlock(&shim_debugfs_lock);
	return d;
}

struct dentry *debugfs_create_dir(const char *name, struct dentry *parent)
{
	return shim_debugfs_create(name, parent, NULL, NULL);
}

struct dentry *debugfs_create_file(const char *name, umode_t mode,
				   struct dentry *parent, void *data,
				   const struct file_operations *fops)
{
	SHIM_ASSERT(fops && fops->show, "a debugfs file without a show");
	return shim_debugfs_create(name, parent, fops, data);
}

static void shim_debugfs_free(struct dentry *d)
{
	while (d->child) {
		struct dentry *c = d->child;

		d->child = c->sibling;
		shim_debugfs_free(c);
	}
	free(d);
	shim_debugfs_entries--;
}

/* Whether a read of a file at or under @d is under way; the lock held. */
static bool shim_debugfs_busy(const struct dentry *d)
{
	const struct dentry *c;

	if (d->active)
		return true;
	for (c = d->child; c; c = c->sibling)
		if (shim_debugfs_busy(c))
			return true;
	return false;
}

void debugfs_remove(struct dentry *dentry)
{
	struct dentry **link;

	if (IS_ERR_OR_NULL(dentry))
		return;
	pthread_mutex_lock(&shim_debugfs_lock);
	for (link = &dentry->parent->child; *link != dentry;
	     link = &(*link)->sibling)
		SHIM_ASSERT(*link, "debugfs_remove() of an entry not in its parent");
	/* Out of the tree first: no read starts on it after this. */
	*link = dentry->sibling;
	/* Then wait for the reads of its files in progress, and only those. */
	if (shim_debugfs_busy(dentry)) {
		shim_debugfs_removing++;
		do
			pthread_cond_wait(&shim_debugfs_idle, &shim_debugfs_lock);
		while (shim_debugfs_busy(dentry));
		shim_debugfs_removing--;
	}
	shim_debugfs_free(dentry);
	pthread_mutex_unlock(&shim_debugfs_lock);
}

/* The entry at @path; the caller holds the lock. */
static struct dentry *shim_debugfs_find(const char *path)
{
	struct dentry *d = &shim_debugfs_top;

	while (d && *path) {
		size_t len = strcspn(path, "/");

		d = shim_debugfs_child(d, path, len);
		path += len;
		path += *path == '/';
	}
	return d == &shim_debugfs_top ? NULL : d;
}

bool shim_debugfs_exists(const char *path)
{
	bool found;

	pthread_mutex_lock(&shim_debugfs_lock);
	found = shim_debugfs_find(path);
	pthread_mutex_unlock(&shim_debugfs_lock);
	return found;
}

char *shim_debugfs_read(const char *path)
{
	struct seq_file m = { .size = 256 };
	struct dentry *d;

	pthread_mutex_lock(&shim_debugfs_lock);
	d = shim_debugfs_find(path);
	if (!d || !d->fops) {
		pthread_mutex_unlock(&shim_debugfs_lock);
		return NULL;
	}
	/* A removal of the file waits for this read; other removals do not. */
	d->active++;
	pthread_mutex_unlock(&shim_debugfs_lock);
	m.buf = malloc(m.size);
	SHIM_ASSERT(m.buf, "out of memory for a debugfs read");
	m.buf[0] = '\0';
	m.private = d->data;
	SHIM_ASSERT(!d->fops->show(&m, NULL), "a debugfs show failed");
	pthread_mutex_lock(&shim_debugfs_lock);
	d->active--;
	pthread_cond_broadcast(&shim_debugfs_idle);
	pthread_mutex_unlock(&shim_debugfs_lock);
	return m.buf;
}

/* Write @d's files, what a read shows, under @path; the lock held. */
static int shim_debugfs_dump_at(struct dentry *d, const char *path)
{
	struct dentry *c;
	char sub[1024];

	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	for (c = d->child; c; c = c->sibling) {
		snprintf(sub, sizeof(sub), "%s/%s", path, c->name);
		if (!c->fops) {
			int ret = shim_debugfs_dump_at(c, sub);

			if (ret)
				return ret;
		} else {
			struct seq_file m = { .size = 256 };
			FILE *f;

			m.buf = malloc(m.size);
			SHIM_ASSERT(m.buf, "out of memory for a debugfs read");
			m.buf[0] = '\0';
			m.private = c->data;
			SHIM_ASSERT(!c->fops->show(&m, NULL), "a debugfs show failed");
			f = fopen(sub, "w");
			if (!f || fputs(m.buf, f) < 0 || fclose(f)) {
				free(m.buf);
				return -EIO;
			}
			free(m.buf);
		}
	}
	return 0;
}

/* The whole tree under the lock, show functions included: for a tool. */
int shim_debugfs_dump(const char *path)
{
	int ret;

	pthread_mutex_lock(&shim_debugfs_lock);
	ret = shim_debugfs_dump_at(&shim_debugfs_top, path);
	pthread_mutex_unlock(&shim_debugfs_lock);
	return ret;
}

long shim_debugfs_live(void)
{
	long n;

	pthread_mutex_lock(&shim_debugfs_lock);
	n = shim_debugfs_entries;
	pthread_mutex_unlock(&shim_debugfs_lock);
	return n;
}

long shim_debugfs_removals_waiting(void)
{
	long n;

	pthread_mutex_lock(&shim_debugfs_lock);
	n = shim_debugfs_removing;
	pthread_mutex_unlock(&shim_debugfs_lock);
	return n;
}

static void shim_seq_vprintf(struct seq_file *m, const char *fmt, va_list ap)
{
	for (;;) {
		va_list aq;
		int n;

		va_copy(aq, ap);
		n = vsnprintf(m->buf + m->count, m->size - m->count, fmt, aq);
		va_end(aq);
		SHIM_ASSERT(n >= 0, "a seq_printf() format failed");
		if (m->count + n < m->size) {
			m->count += n;
			return;
		}
		m->size = 2 * (m->count + n + 1);
		m->buf = realloc(m->buf, m->size);
		SHIM_ASSERT(m->buf, "out of memory for a debugfs read");
	}
}

void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	shim_seq_vprintf(m, fmt, ap);
	va_end(ap);
}

void seq_puts(struct seq_file *m, const char *s)
{
	seq_printf(m, "%s", s);
}

void seq_putc(struct seq_file *m, char c)
{
	seq_printf(m, "%c", c);
}
