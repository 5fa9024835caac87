/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's backend of struct lsm_bdev (bdev.h): a block device opened
 * exclusively by path, read and written with bios.  Kernel only; the
 * userspace library and the tests have backends of their own.
 */
#ifndef _LSM_BDEV_BIO_H
#define _LSM_BDEV_BIO_H

#include "bdev.h"

/* Room for the kernel's name of a block device (BDEVNAME_SIZE). */
#define LSM_BDEV_NAME_SIZE	32

int lsm_bdev_bio_open(const char *path, u64 min_blocks,
		      struct lsm_bdev **bdevp);
void lsm_bdev_bio_disk_name(struct lsm_bdev *bdev, char *buf, size_t size);

#endif /* _LSM_BDEV_BIO_H */
