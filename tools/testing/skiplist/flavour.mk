# SPDX-License-Identifier: GPL-2.0
#
# Builds skiplist/, extent/ and the userspace shims as one "flavour": the
# same sources with a given set of flags, in a directory of their own.
#
#   $(eval $(call sl_flavour,NAME,DIR,CFLAGS))
#
# defines $(NAME_OBJS), the core, extent and shim objects under DIR, and
# the rules that build them.  SL_TOP must point at the top of the tree.

# Short "CC file" lines unless V=1, as in the kernel build.
ifneq ($(V),1)
Q := @
quiet = @echo "  $(1)	$(2)";
endif

SL_CORE := list leaf search locking insert delete tower gap hole check directory \
	   debugfs trace preload
SL_SHIM := base lock irq rcu slab workqueue crc32c shrinker trace debugfs
SL_EXTENT := extent_map range_alloc trace
SL_INCLUDES = -I$(SL_TOP)/tools/testing/skiplist/include -I$(SL_TOP)/skiplist \
	      -I$(SL_TOP)/extent
# Every header an object of lsm/ may see: its own, the extent map's and
# the skiplist's (whose struct layouts it embeds), and the shims'.
SL_LSM_HEADERS = $(wildcard $(SL_TOP)/lsm/*.h $(SL_TOP)/extent/*.h \
	$(SL_TOP)/skiplist/*.h $(SL_TOP)/tools/testing/skiplist/shim/*.h \
	$(SL_TOP)/tools/testing/skiplist/include/*/*.h)
SL_WARN := -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	   -Wno-missing-field-initializers

define sl_flavour
$(1)_OBJS := $(SL_CORE:%=$(2)/core/%.o) $(SL_SHIM:%=$(2)/shim/%.o) \
	    $(SL_EXTENT:%=$(2)/extent/%.o)
$(1)_CFLAGS := -std=gnu11 -g $(SL_WARN) $$(SL_INCLUDES) -pthread $(3)

$(2)/core/%.o: $$(SL_TOP)/skiplist/%.c $$(wildcard $$(SL_TOP)/skiplist/*.h) $$(wildcard $$(SL_TOP)/tools/testing/skiplist/shim/*.h)
	@mkdir -p $$(@D)
	$$(call quiet,CC,$$@)
	$$(Q)$$(CC) $$($(1)_CFLAGS) -c -o $$@ $$<

$(2)/extent/%.o: $$(SL_TOP)/extent/%.c $$(wildcard $$(SL_TOP)/extent/*.h) $$(wildcard $$(SL_TOP)/skiplist/*.h) $$(wildcard $$(SL_TOP)/tools/testing/skiplist/shim/*.h)
	@mkdir -p $$(@D)
	$$(call quiet,CC,$$@)
	$$(Q)$$(CC) $$($(1)_CFLAGS) -c -o $$@ $$<

$(2)/shim/%.o: $$(SL_TOP)/tools/testing/skiplist/shim/%.c $$(wildcard $$(SL_TOP)/tools/testing/skiplist/shim/*.h)
	@mkdir -p $$(@D)
	$$(call quiet,CC,$$@)
	$$(Q)$$(CC) $$($(1)_CFLAGS) -c -o $$@ $$<
endef
