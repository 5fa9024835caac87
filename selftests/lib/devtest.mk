# SPDX-License-Identifier: GPL-2.0
#
# Included by the Makefile of every device's selftests: the compiler
# flags, kselftest_harness.h and kselftest.h (taken from Debian's
# linux-source-6.1 at build time, not kept in the tree), and the shared
# scaffolding (devtest.c), linked into every test.
#   TOP      the top of the tree
#   UAPI     the directory of the device's uapi header
#   HEADERS  what every test of the directory depends on

HARNESS := $(TOP)/build/tools/kselftest
DEVTEST := $(TOP)/selftests/lib
CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter \
	  -Wno-missing-field-initializers -Wno-sign-compare -pthread \
	  -I$(HARNESS) -I$(DEVTEST) -I$(UAPI)

$(HARNESS)/kselftest_harness.h:
	@test -f /usr/src/linux-source-6.1.tar.xz || \
		{ echo "linux-source-6.1 missing: run 'make setup'"; exit 1; }
	mkdir -p $(HARNESS)
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C $(HARNESS) \
		--strip-components=4 \
		linux-source-6.1/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.1/tools/testing/selftests/kselftest.h

$(BUILD)/%: %.c $(HEADERS) $(DEVTEST)/devtest.h $(DEVTEST)/devtest.c \
	    $(HARNESS)/kselftest_harness.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(DEVTEST)/devtest.c
