/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What sl_lsm.ko's two kernel-only files share: the module (module.c:
 * its parameters, load and unload) and the device (dev.c: /dev/sl_lsm
 * and its ioctls).
 */
#ifndef _LSM_DEV_H
#define _LSM_DEV_H

#include "store.h"

struct dentry;

int lsm_dev_register(struct dentry *debugfs_root);
void lsm_dev_unregister(void);

void lsm_module_options(struct lsm_options *opt);

#endif /* _LSM_DEV_H */
