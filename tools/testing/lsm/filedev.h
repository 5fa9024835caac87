/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The store's userspace block device (lsm/bdev.h) on a file or a block
 * device: pread, pwrite and fdatasync, optionally with O_DIRECT.  A FUA
 * write is a write followed by fdatasync; PREFLUSH is fdatasync first.
 */
#ifndef _LSM_TEST_FILEDEV_H
#define _LSM_TEST_FILEDEV_H

#include "bdev.h"

#define FILEDEV_DIRECT	0x1	/* O_DIRECT */
#define FILEDEV_CREATE	0x2	/* create or extend the file to the size */

/*
 * Open @path; @nr_blocks 0 takes the file's or device's size.  Returns
 * the device, or NULL with errno set.  lsm_bdev.ops->release closes it.
 */
struct lsm_bdev *filedev_open(const char *path, u64 nr_blocks,
			      unsigned int flags);

#endif /* _LSM_TEST_FILEDEV_H */
