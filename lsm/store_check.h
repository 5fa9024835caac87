/* SPDX-License-Identifier: GPL-2.0 */
/* The store's self-check, for its tests (store.c). */
#ifndef _LSM_STORE_CHECK_H
#define _LSM_STORE_CHECK_H

struct lsm_store;

int lsm_store_check(struct lsm_store *st);

#endif /* _LSM_STORE_CHECK_H */
