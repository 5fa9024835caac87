# SPDX-License-Identifier: GPL-2.0
#
# The userspace build of lsm/ as a library: the store's sources compiled
# unchanged against the shims of tools/testing/skiplist (with skiplist/
# and extent/ under them), under AddressSanitizer and
# UndefinedBehaviorSanitizer with the precise RCU, plus the userspace
# devices and helpers of this directory.  Included by this directory's
# Makefile (the tests) and by tools/crash/Makefile (the crash checker).
#
# Set SL_TOP to the top of the tree first; BUILD (build/test-lsm) is
# where the objects go.  Defines LSM_CFLAGS, and LSM_OBJS and
# LSM_OBJS_SL, the objects a program of the library links.

BUILD ?= $(SL_TOP)/build/test-lsm
LSM_HERE := $(SL_TOP)/tools/testing/lsm

include $(SL_TOP)/tools/testing/skiplist/flavour.mk

SAN := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
       -fno-sanitize-recover=all -DSHIM_RCU_PRECISE
LIBS := -lpthread

# The shims have the shrinker of 6.7 and later (lsm/Kbuild says why).
$(eval $(call sl_flavour,LSM,$(BUILD),$(SAN) -I$(SL_TOP)/lsm -I$(LSM_HERE) -DLSM_SHRINKER_ALLOC))

# Every source of lsm/ but the kernel-only ones (the module, the device
# and the bio backend), and the userspace backends and helpers here.
LSM_KERNEL_ONLY := module dev bdev_bio
LSM_SRCS := $(filter-out $(LSM_KERNEL_ONLY),$(basename $(notdir $(wildcard $(SL_TOP)/lsm/*.c))))
LSM_LIB := $(basename $(notdir $(filter-out $(LSM_HERE)/test_%.c,$(wildcard $(LSM_HERE)/*.c))))
LSM_OBJS_SL := $(LSM_OBJS)
LSM_OBJS := $(LSM_SRCS:%=$(BUILD)/lsm/%.o) $(LSM_LIB:%=$(BUILD)/lib/%.o)

$(BUILD)/lsm/%.o: $(SL_TOP)/lsm/%.c $(SL_LSM_HEADERS)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)
	$(Q)$(CC) $(LSM_CFLAGS) -c -o $@ $<

$(BUILD)/lib/%.o: $(LSM_HERE)/%.c $(wildcard $(LSM_HERE)/*.h) $(SL_LSM_HEADERS)
	@mkdir -p $(@D)
	$(call quiet,CC,$@)
	$(Q)$(CC) $(LSM_CFLAGS) -c -o $@ $<

# Keep the objects between runs.
.SECONDARY:
