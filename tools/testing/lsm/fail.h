/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a test of the store fails: FAIL() prints the program, the phase it
 * was in and the seed that reproduces the run, and exits 1; EXPECT_OK()
 * fails on a call that returns an error.  The test defines both
 * variables the messages read: "static u64 seed;" and "static const char
 * *phase;", the latter set as it moves from part to part.
 */
#ifndef _LSM_TEST_FAIL_H
#define _LSM_TEST_FAIL_H

#include <stdio.h>
#include <stdlib.h>

/* glibc's, declared by <errno.h> only under _GNU_SOURCE. */
extern char *program_invocation_short_name;

#define FAIL(fmt, ...) do {						\
	fprintf(stderr, "%s: FAIL (%s): " fmt				\
		" (reproduce: %s --seed %llu)\n",			\
		program_invocation_short_name, phase, ##__VA_ARGS__,	\
		program_invocation_short_name,				\
		(unsigned long long)seed);				\
	exit(1);							\
} while (0)

#define EXPECT_OK(call) do {						\
	int __err = (call);						\
	if (__err)							\
		FAIL("%s: %d", #call, __err);				\
} while (0)

#endif
