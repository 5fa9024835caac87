/* SPDX-License-Identifier: GPL-2.0 */
/* What slctl's devices share: the output mode and number parsing. */
#ifndef _SLCTL_H
#define _SLCTL_H

#include <stdbool.h>
#include <linux/types.h>

/* --json: one JSON object per command on stdout. */
extern bool slctl_json;

/* A decimal or 0x-prefixed number, the whole string. */
bool slctl_parse_u64(const char *s, __u64 *out);

/* "slctl lsm ...", from "lsm" on: the exit status. */
int slctl_lsm(int argc, char **argv);

/* "slctl top ...", from "top" on (top.c): the exit status. */
int slctl_top(int argc, char **argv);

#endif /* _SLCTL_H */
