// SPDX-License-Identifier: GPL-2.0
/*
 * The store on a file or block device (filedev.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "filedev.h"
#include "record.h"

struct filedev {
	struct lsm_bdev bdev;
	int fd;
	bool direct;
	char *path;
};

static struct filedev *fd_of(struct lsm_bdev *bdev)
{
	return container_of(bdev, struct filedev, bdev);
}

/* O_DIRECT needs aligned buffers: copy through one when the caller's is not. */
static void *bounce(struct filedev *f, const void *buf, size_t len)
{
	void *b;

	if (!f->direct || !((uintptr_t)buf % LSM_BLOCK_SIZE))
		return (void *)buf;
	if (posix_memalign(&b, LSM_BLOCK_SIZE, len))
		return NULL;
	return b;
}

static int fdev_read(struct lsm_bdev *bdev, u64 block, void *buf, u32 nr)
{
	struct filedev *f = fd_of(bdev);
	size_t len = (size_t)nr * LSM_BLOCK_SIZE, done = 0;
	void *b;

	if (!nr || block >= bdev->nr_blocks || nr > bdev->nr_blocks - block)
		return -EINVAL;
	b = bounce(f, buf, len);
	if (!b)
		return -ENOMEM;
	while (done < len) {
		ssize_t n = pread(f->fd, (u8 *)b + done, len - done,
				  (off_t)(block << LSM_BLOCK_SHIFT) + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* Past the end of a sparse file reads as zero. */
			if (!n) {
				memset((u8 *)b + done, 0, len - done);
				break;
			}
			if (b != buf)
				free(b);
			return -EIO;
		}
		done += n;
	}
	if (b != buf) {
		memcpy(buf, b, len);
		free(b);
	}
	return 0;
}

static int fdev_sync(struct filedev *f)
{
	return fdatasync(f->fd) ? -EIO : 0;
}

static int fdev_write(struct lsm_bdev *bdev, u64 block, const void *buf,
		      u32 nr, unsigned int flags, lsm_io_done_t done_fn,
		      void *priv)
{
	struct filedev *f = fd_of(bdev);
	size_t len = (size_t)nr * LSM_BLOCK_SIZE, done = 0;
	void *b;
	int err = 0;

	if (!nr || block >= bdev->nr_blocks || nr > bdev->nr_blocks - block)
		return -EINVAL;
	b = bounce(f, buf, len);
	if (!b)
		return -ENOMEM;
	if (b != buf)
		memcpy(b, buf, len);
	if (flags & LSM_IO_PREFLUSH)
		err = fdev_sync(f);
	while (!err && done < len) {
		ssize_t n = pwrite(f->fd, (const u8 *)b + done, len - done,
				   (off_t)(block << LSM_BLOCK_SHIFT) + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			err = -EIO;
		else
			done += n;
	}
	if (!err && (flags & LSM_IO_FUA))
		err = fdev_sync(f);
	if (b != buf)
		free(b);
	done_fn(priv, err);
	return 0;
}

static int fdev_flush(struct lsm_bdev *bdev)
{
	return fdev_sync(fd_of(bdev));
}

static void fdev_release(struct lsm_bdev *bdev)
{
	struct filedev *f = fd_of(bdev);

	close(f->fd);
	free(f->path);
	free(f);
}

static const struct lsm_bdev_ops filedev_ops = {
	.read = fdev_read,
	.write = fdev_write,
	.flush = fdev_flush,
	.release = fdev_release,
};

struct lsm_bdev *filedev_open(const char *path, u64 nr_blocks,
			      unsigned int flags)
{
	struct filedev *f = calloc(1, sizeof(*f));
	int oflags = O_RDWR | O_CLOEXEC;
	struct stat st;
	u64 size;

	if (!f)
		return NULL;
	if (flags & FILEDEV_DIRECT)
		oflags |= O_DIRECT;
	if (flags & FILEDEV_CREATE)
		oflags |= O_CREAT;
	f->fd = open(path, oflags, 0600);
	if (f->fd < 0)
		goto fail;
	if (fstat(f->fd, &st))
		goto fail_close;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(f->fd, BLKGETSIZE64, &size))
			goto fail_close;
	} else {
		size = st.st_size;
		if ((flags & FILEDEV_CREATE) &&
		    size < (nr_blocks << LSM_BLOCK_SHIFT)) {
			if (ftruncate(f->fd, nr_blocks << LSM_BLOCK_SHIFT))
				goto fail_close;
			size = nr_blocks << LSM_BLOCK_SHIFT;
		}
	}
	if (!nr_blocks)
		nr_blocks = size >> LSM_BLOCK_SHIFT;
	if (nr_blocks > size >> LSM_BLOCK_SHIFT) {
		errno = ENOSPC;
		goto fail_close;
	}
	f->direct = flags & FILEDEV_DIRECT;
	f->path = strdup(path);
	f->bdev.ops = &filedev_ops;
	f->bdev.nr_blocks = nr_blocks;
	f->bdev.name = f->path;
	return &f->bdev;
fail_close:
	close(f->fd);
fail:
	free(f);
	return NULL;
}
