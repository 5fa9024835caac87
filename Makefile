# SPDX-License-Identifier: GPL-2.0
#
# RCU skiplist range index: kernel modules, userspace tests, benchmarks.
#
#   make             build the modules against Debian 12's 6.1 headers
#                    (KDIR=/path/to/kernel/build overrides)
#   make setup       install every dependency (apt), idempotently
#   make check       the whole test suite: userspace tests under ASan and
#                    UBSan, the modules built against 6.1 and 6.12 with W=1
#                    and sparse and loaded into both kernels in a VM,
#                    checkpatch, the mutation checks, and the HTML
#                    documentation built without a warning
#   make check-soak  the store's soak for SOAK_SECONDS (300): threads of
#                    random operations against an oracle, power cuts and
#                    reopens (make check runs it beside lint and mutants)
#   make check-vm    only the VM part: the kernel suite in 6.1 and 6.12, on
#                    the modules as DKMS installs them (make check-dkms)
#   make check-dkms  make install and uninstall for real, as root, with DKMS
#                    building for 6.1 and (by the kernel's postinst hook)
#                    6.12, in a mount namespace whose writes vanish: the
#                    modules, modules.dep, a failing build's log, nothing
#                    left behind; leaves the builds for check-vm
#   make check-vm-lsm
#                    the store (sl_lsm.ko) in 6.1 and 6.12 on scratch
#                    virtio disks: its kselftests and its life cycle
#   make check-crash the store's crash safety on the kernel's I/O path in
#                    6.12: a workload on dm-log-writes, every replay
#                    point of its log recovered and judged on the host,
#                    the kernel's recovery at a sample of them, and
#                    failing writes, flushes and reads under dm-flakey
#   make check-crash-long
#                    the same for minutes (CRASH_LONG_SECONDS) on 6.1
#                    and 6.12
#   make check-crash-mutants
#                    the store's flushes and write ordering broken one
#                    way at a time: the crash test must catch each
#   make check-vm-stall
#                    every whole-index command of both devices on millions
#                    of extents in 6.1, booted with preempt=full and the
#                    lowest soft-lockup and RCU-stall thresholds; fails on
#                    any report, prints each command's time (STALL_N=)
#   make check-debug the kernel suite on debug kernels (lockdep, KASAN,
#                    KCSAN, kmemleak, failslab), built once and cached
#                    (make check runs it)
#   make check-debug-checkers
#                    break the modules once per checker; each must fire
#   make demo        build, drive one index and one store (on a disk image)
#                    in a VM, run the tests briefly, run a short benchmark
#                    and print its table, a short fio comparison of the
#                    IOMMU demo's allocators (about a minute of fio), and a
#                    short comparison of the store with RocksDB's db_bench
#   make bench-user  the full userspace benchmark; results in build/bench/
#   make bench-lookup-cachesim
#                    instructions and cache misses per lookup (callgrind)
#                    for the skiplist, the maple tree and the rbtree
#   make bench-kernel
#                    the in-kernel benchmark (sl_bench.ko) in a 6.1 VM:
#                    indexes and range allocators against the kernel's
#                    own; results in build/bench/kernel.{md,json,png}
#   make bench-tcg-profile
#                    where QEMU's time goes (host perf) while the VM runs
#                    1M-item lookups: software-TLB misses against guest
#                    code, per index; build/bench/tcg-profile.{md,json}
#   make bench-alloc-native
#                    sl_bench.ko's allocator workloads built as a native
#                    program, the kernel's IOVA allocator beside ours;
#                    results in build/bench/alloc-native.{md,json,png} and
#                    Documentation/extent.rst
#   make bench-iommu the IOMMU demo (sl_iommu.ko) in a 6.1 VM: every fio
#                    workload of tools/fio/ on every IOVA allocator; results
#                    in build/bench/iommu.{md,json,png,rst} and
#                    Documentation/iommu_demo.rst
#   make bench-scaling
#                    for a many-core host: bench-user's indexes, the
#                    native allocator churn and the IOMMU fio comparison
#                    (in a VM of as many vCPUs as the host has CPUs) at
#                    1, 2, 4, ... threads up to the host's CPUs, under
#                    SCALING_BUDGET seconds a part; results in
#                    build/bench/scaling.{md,json,png}
#   make bench-lsm-pool
#                    the memtable's allocators (pool, malloc, arena) on
#                    its insert path, ns per operation; results in
#                    build/bench/lsm-pool.{txt,json,rst}
#   make bench-lsm   the store (lsm_bench on the userspace library, on a
#                    file) against RocksDB's db_bench (and, for the extent
#                    and attach workloads, rocksdb_extent_bench on its
#                    library) on the same file system, rounds interleaved;
#                    build/bench/lsm.{md,json,png,rst} (about 30 min;
#                    BENCH_LSM_ARGS=--quick: 100K keys, one round, 2 min)
#   make bench-lsm-vm
#                    the same drivers in a VM (Debian's 6.1; BENCH_LSM_VM_
#                    KERNEL=6.12): lsm_bench_dev through /dev/sl_lsm on a
#                    raw virtio disk against db_bench on ext4 on another
#                    of the same size; build/bench/lsm-vm.{md,json,png,rst}
#                    and the VM section of Documentation/lsm-bench.rst
#                    (35-45 min under software emulation)
#   make btrfs       btrfs.ko from Debian's linux-source-6.1 with its extent
#                    map cache on the skiplist (btrfs/), in build/btrfs
#   make check-btrfs that btrfs.ko in a 6.1 VM: its sanity tests at load,
#                    a file of 10,000 extents read and verified beside
#                    splits and dropped caches, a create/punch/truncate/
#                    reflink/rename stress (plain, then compress=zstd),
#                    in a memory cgroup under proactive reclaim, btrfs
#                    check and scrub (part of make check)
#   make check-btrfs-long
#                    the same with 100,000 extents and 5 minutes of stress
#   make btrfs-debug, make check-btrfs-debug
#                    that btrfs.ko built against debug kernel a (lockdep,
#                    KASAN, kmemleak), and check-btrfs's test on it with
#                    2,500 extents and 30 s of stress (part of make check)
#   make btrfs-layout-cost
#                    what fragmenting a file into N extents costs btrfs,
#                    Debian's module against ours, by method and size
#   make bench-btrfs Debian's btrfs.ko against ours in one VM: O_DIRECT
#                    random and sequential reads on a file of 1M cached
#                    extents, extent-splitting writes, memory per cached
#                    extent, a profile; build/bench/btrfs.{md,json,png}
#                    and Documentation/btrfs.rst
#   make htmldocs    the HTML documentation, with the API reference from the
#                    sources' kernel-doc comments, in build/htmldocs (any
#                    warning fails it; part of make check)
#   make install     as root: the modules through DKMS for every kernel
#                    with headers (and each kernel installed later),
#                    slctl and lsm_bench_dev with their man pages, and the
#                    uapi headers under PREFIX/include/skiplist (PREFIX
#                    /usr; DESTDIR=DIR only stages the files, dkms not run;
#                    DKMS_KERNELS= picks the kernels); Documentation/install.rst
#   make uninstall   dkms remove, and every file make install put
#   make check-install
#                    make install into a DESTDIR on the host: the files,
#                    the man pages rendered without a warning, a program
#                    built against the installed headers alone, the
#                    refusals, make uninstall (part of make check; the
#                    real install is check-dkms's)
#   make help        this text

TOP := $(CURDIR)
BUILD := $(TOP)/build
SHELL := /bin/bash

# Newest installed header trees of each Debian 12 kernel line.
KREL_61 := $(shell ls /lib/modules 2>/dev/null | grep -E '^6\.1\.[0-9]+-[0-9]+-amd64$$' | sort -V | tail -1)
KREL_612 := $(shell ls /lib/modules 2>/dev/null | grep -E '^6\.12\.[0-9]+\+deb12-amd64$$' | sort -V | tail -1)
KDIR ?= /lib/modules/$(KREL_61)/build

PY := /usr/bin/python3
CHECKPATCH := $(BUILD)/tools/checkpatch/checkpatch.pl
KERNEL_C := $(wildcard skiplist/*.[ch] skiplist/uapi/*.h extent/*.[ch] \
	extent/uapi/*.h iommu_demo/*.[ch] tools/bench/kernel/*.c tools/peers/*.h \
	lsm/*.[ch] lsm/uapi/*.h btrfs/*.[ch])
# The trace headers are laid out as the kernel's own (TRACE_EVENT() with
# one part per line), which --strict's two layout checks below reject.
TRACE_H := $(wildcard skiplist/trace/events/*.h extent/trace/events/*.h \
	lsm/trace/events/*.h)

.PHONY: all modules setup check check-user check-soak check-kernel check-vm check-vm-lsm check-crash \
	check-crash-long check-crash-mutants crash-run check-vm-stall check-debug \
	debug-run check-debug-checkers debug-modules lint mutants \
	demo bench-build bench-smoke bench-user bench-user-quick bench-leaf-sweep \
	bench-lookup-cachesim \
	bench-kernel bench-tcg-profile bench-native-build bench-alloc-native bench-iommu \
	bench-scaling \
	bench-lsm bench-lsm-vm bench-lsm-pool btrfs check-btrfs check-btrfs-long btrfs-layout-cost \
	btrfs-debug btrfs-debug-current check-btrfs-debug \
	bench-btrfs htmldocs install install-programs uninstall check-install check-dkms clean help

all: modules

help:
	@awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' Makefile

setup:
	@$(TOP)/tools/setup.sh

# Module builds use every CPU on their own: a jobserver of ours would not
# reach through the pipe to tee, and kbuild needs none of our variables.
NPROC := $(shell nproc)

# The directories the top-level Kbuild builds from (with the headers they
# include); make install gives DKMS the same (tools/install/install.sh).
KMOD_DIRS := skiplist extent iommu_demo lsm tools/bench/kernel tools/peers

# Each kernel gets its own tree of symlinks to the sources, so objects for
# different kernels never mix and the source tree stays clean.
#   $(call kmod,KERNEL_BUILD_DIR,NAME,EXTRA_MAKE_ARGS)
# builds into build/kmod-NAME.
define kmod
	@test -f $(1)/Makefile || \
		{ echo "no kernel headers in $(1): run 'make setup'"; exit 1; }
	@out=$(BUILD)/kmod-$(2); mkdir -p $$out; \
	cp -f Kbuild VERSION $$out/; \
	for d in $(KMOD_DIRS); do \
		mkdir -p $$out/$$(dirname $$d); cp -rsf $(TOP)/$$d $$out/$$(dirname $$d)/; \
	done; \
	echo "modules for $(2) in $$out"; \
	MAKEFLAGS= $(MAKE) -j$(NPROC) --no-print-directory -C $(1) M=$$out $(3) \
		modules 2>&1 | \
		tee $$out/build.log | grep -v '^  [A-Z]' | grep -v 'Skipping BTF' || true; \
	test $${PIPESTATUS[0]} -eq 0 || exit 1
endef

# Named after the kernel the headers belong to.
KNAME_OF = $(if $(filter /lib/modules/%/build,$(1)),$(patsubst /lib/modules/%/build,%,$(1)),custom)

modules:
	$(call kmod,$(KDIR),$(call KNAME_OF,$(KDIR)),)

# W=1 and sparse must say nothing: any warning fails the build.
no_warnings = test -s $(1) && ! grep -iE 'warning|error' $(1)
check-kernel:
	@test -n "$(KREL_61)" -a -n "$(KREL_612)" || \
		{ echo "6.1 and 6.12 headers needed: run 'make setup'"; exit 1; }
	@command -v sparse >/dev/null || { echo "sparse missing: run 'make setup'"; exit 1; }
	$(call kmod,/lib/modules/$(KREL_61)/build,$(KREL_61),W=1 C=2 CF=-Wsparse-error)
	@$(call no_warnings,$(BUILD)/kmod-$(KREL_61)/build.log)
	$(call kmod,/lib/modules/$(KREL_612)/build,$(KREL_612),W=1 C=2 CF=-Wsparse-error)
	@$(call no_warnings,$(BUILD)/kmod-$(KREL_612)/build.log)
	@echo "check-kernel: 6.1 and 6.12 build clean with W=1 and sparse"
	@for k in $(KREL_61) $(KREL_612); do \
		$(TOP)/tools/install/check-modules.sh $(BUILD)/kmod-$$k \
			/lib/modules/$$k/build || exit 1; \
	done

$(CHECKPATCH):
	@test -f /usr/src/linux-source-6.1.tar.xz || \
		{ echo "linux-source-6.1 missing: run 'make setup'"; exit 1; }
	mkdir -p $(@D)
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C $(@D) --strip-components=2 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch

# btrfs.ko with its extent map cache on the skiplist: the skiplist's
# module first, for its symbol versions.
btrfs: setup
	test -f $(BUILD)/kmod-$(KREL_61)/Module.symvers || \
		$(MAKE) modules KDIR=/lib/modules/$(KREL_61)/build
	$(TOP)/btrfs/build.sh $(TOP) $(BUILD) $(KREL_61)

# The benchmarks rebuild btrfs.ko (five minutes here) only when its sources
# or the skiplist's changed.
BTRFS_KO := $(BUILD)/btrfs/fs/btrfs/btrfs.ko
$(BTRFS_KO): $(wildcard btrfs/*.[ch] btrfs/edit_callers.py btrfs/build.sh skiplist/*.[ch])
	$(MAKE) btrfs

# The file of BTRFS_EXTENTS extents costs btrfs about 3 ms an extent under
# TCG with slab debugging, at 10,000 (make check) as at the issue's
# 100,000 (make check-btrfs-long): make btrfs-layout-cost,
# Documentation/btrfs.rst.
BTRFS_EXTENTS ?= 10000
BTRFS_STRESS_SECONDS ?= 60
check-btrfs: btrfs
	@mkdir -p $(BUILD)/vm
	rm -f $(BUILD)/vm/btrfs.img && truncate -s 2G $(BUILD)/vm/btrfs.img
	$(TOP)/tools/vm/vm-run --kernel 6.1 --timeout 3000 \
		--drive $(BUILD)/vm/btrfs.img:slbtrfs -- \
		BTRFS_KO=$(BUILD)/btrfs/fs/btrfs/btrfs.ko \
		SKIPLIST_KO=$(BUILD)/kmod-$(KREL_61)/skiplist/skiplist.ko \
		BTRFS_EXTENTS=$(BTRFS_EXTENTS) \
		BTRFS_STRESS_SECONDS=$(BTRFS_STRESS_SECONDS) btrfs/guest-btrfs.sh

check-btrfs-long:
	$(MAKE) check-btrfs BTRFS_EXTENTS=100000 BTRFS_STRESS_SECONDS=300

# The same btrfs.ko built against debug kernel a (lockdep, PROVE_RCU,
# KASAN, kmemleak; tools/debug-kernel, which builds btrfs's dependencies
# in), into build/btrfs-RELEASE, with the skiplist's modules for that
# kernel; check-btrfs-debug runs guest-btrfs.sh on it, smaller (each
# operation costs several times what it does on Debian's kernel), and
# make check runs both (the build beside check-vm, the run at the end of
# kernel a's guest in check-debug).
BTRFS_DEBUG_EXTENTS ?= 2500
BTRFS_DEBUG_STRESS_SECONDS ?= 30
DEBUG_BTRFS_IMG = $(BUILD)/vm/btrfs-debug.img
#   $(call debug_btrfs_env,RELEASE): guest-btrfs.sh's environment there.
debug_btrfs_env = BTRFS_KO=$(BUILD)/btrfs-$(1)/fs/btrfs/btrfs.ko \
	SKIPLIST_KO=$(BUILD)/kmod-$(1)/skiplist/skiplist.ko \
	BTRFS_EXTENTS=$(BTRFS_DEBUG_EXTENTS) \
	BTRFS_STRESS_SECONDS=$(BTRFS_DEBUG_STRESS_SECONDS)
debug_kdir_a = $$($(TOP)/tools/debug-kernel/build.sh a | tail -1)
btrfs-debug: setup
	@kdir=$(debug_kdir_a) && test -n "$$kdir" || exit 1; \
	rel=$$(cat $$kdir/include/config/kernel.release); \
	$(MAKE) --no-print-directory debug-modules DEBUG_KDIR=$$kdir DEBUG_REL=$$rel && \
	$(TOP)/btrfs/build.sh $(TOP) $(BUILD) $$rel $$kdir

# The build again only when it is missing or older than its sources.
BTRFS_DEBUG_SOURCES := $(wildcard btrfs/*.[ch] btrfs/edit_callers.py btrfs/build.sh skiplist/*.[ch])
btrfs-debug-current:
	@kdir=$(debug_kdir_a) && test -n "$$kdir" || exit 1; \
	ko=$(BUILD)/btrfs-$$(cat $$kdir/include/config/kernel.release)/fs/btrfs/btrfs.ko; \
	if [ ! -f $$ko ] || [ -n "$$(find $(BTRFS_DEBUG_SOURCES) -newer $$ko)" ]; then \
		$(MAKE) --no-print-directory btrfs-debug || exit 1; \
	fi

# On its own boot; make check-debug runs the same at the end of kernel a's
# debug-run instead, which saves a boot.
check-btrfs-debug: btrfs-debug-current
	@kdir=$(debug_kdir_a) && test -n "$$kdir" || exit 1; \
	rel=$$(cat $$kdir/include/config/kernel.release); \
	mkdir -p $(BUILD)/vm; \
	rm -f $(DEBUG_BTRFS_IMG) && truncate -s 2G $(DEBUG_BTRFS_IMG) && \
	$(TOP)/tools/vm/vm-run --append "$(DEBUG_BOOT)" --no-udev \
		--kernel $$kdir/arch/x86/boot/bzImage --timeout 2400 \
		--drive $(DEBUG_BTRFS_IMG):slbtrfs -- \
		$(call debug_btrfs_env,$$rel) btrfs/guest-btrfs.sh

# make install (tools/install/install.sh, Documentation/install.rst).
# The modules are DKMS's to build; the programs and their man pages
# (tools/install/manpage.py: each page's commands and flags come from the
# program's own --help) are built here.
PREFIX ?= /usr
DESTDIR ?=
DKMS_KERNELS ?=
VERSION := $(shell cat $(TOP)/VERSION)
MAN_DIR := $(BUILD)/man
MAN_DATE := $(shell git -C $(TOP) log -1 --format=%cd --date=format:'%B %Y' 2>/dev/null || \
	date +'%B %Y')
SLCTL_BIN := $(BUILD)/tools/slctl
LSM_BENCH_DEV_BIN := $(BUILD)/bench-obj/lsm/lsm_bench_dev
INSTALL_ENV = DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" DKMS_KERNELS="$(DKMS_KERNELS)" \
	KMOD_DIRS="$(KMOD_DIRS)" SLCTL=$(SLCTL_BIN) LSM_BENCH_DEV=$(LSM_BENCH_DEV_BIN) \
	MAN_DIR=$(MAN_DIR)

install-programs:
	$(MAKE) -C tools/slctl
	$(MAKE) -C tools/bench/lsm dev BUILD=$(BUILD)/bench-obj/lsm
	@mkdir -p $(MAN_DIR)
	$(PY) tools/install/manpage.py $(SLCTL_BIN) tools/slctl/slctl.1.in \
		$(VERSION) "$(MAN_DATE)" > $(MAN_DIR)/slctl.1.tmp
	$(PY) tools/install/manpage.py $(LSM_BENCH_DEV_BIN) \
		tools/bench/lsm/lsm_bench_dev.1.in $(VERSION) "$(MAN_DATE)" \
		> $(MAN_DIR)/lsm_bench_dev.1.tmp
	mv $(MAN_DIR)/slctl.1.tmp $(MAN_DIR)/slctl.1
	mv $(MAN_DIR)/lsm_bench_dev.1.tmp $(MAN_DIR)/lsm_bench_dev.1

install: install-programs
	@$(INSTALL_ENV) $(TOP)/tools/install/install.sh install

uninstall:
	@$(INSTALL_ENV) $(TOP)/tools/install/install.sh uninstall

# Host-side, into a scratch DESTDIR: nothing outside build/ is touched.
check-install: install-programs
	@$(INSTALL_ENV) DESTDIR=$(BUILD)/install-test $(TOP)/tools/install/check-install.sh

# What fragmenting one file into N extents costs btrfs, Debian's module
# against ours, by method and size (btrfs/guest-layout-cost.sh);
# build/bench/btrfs-layout/layout.txt.  LAYOUT_PERF=1 adds a profile of
# the largest size of each method.  LAYOUT_OUT names the run's directory:
# the tables of every run under build/bench/btrfs-layout*/ are printed and
# written into Documentation/btrfs.rst's BENCH-BTRFS-LAYOUT section
# (LAYOUT_REPORT_ARGS= leaves it alone).
LAYOUT_OUT ?= $(BENCH_DIR)/btrfs-layout
LAYOUT_SIZES ?= 5000 10000 20000
LAYOUT_METHODS ?= prealloc2 prealloc sparse direct
LAYOUT_PERF ?= 0
# Slab debugging off by default; LAYOUT_BOOT= leaves vm-run's slub_debug=FZPU
# (make check-btrfs's boot) on.
LAYOUT_BOOT ?= slub_debug=-
LAYOUT_REPORT_ARGS ?= --doc $(TOP)/Documentation/btrfs.rst
btrfs-layout-cost: setup $(BTRFS_KO)
	@mkdir -p $(BUILD)/vm $(LAYOUT_OUT)
	rm -f $(BUILD)/vm/btrfs-layout.img && truncate -s 2G $(BUILD)/vm/btrfs-layout.img
	$(TOP)/tools/vm/vm-run --kernel 6.1 --timeout 7200 \
		--append "$(LAYOUT_BOOT)" --out $(LAYOUT_OUT) \
		--drive $(BUILD)/vm/btrfs-layout.img:slbtrfs -- \
		BTRFS_KO=$(BUILD)/btrfs/fs/btrfs/btrfs.ko \
		SKIPLIST_KO=$(BUILD)/kmod-$(KREL_61)/skiplist/skiplist.ko \
		LAYOUT_OUT=$(LAYOUT_OUT) LAYOUT_SIZES="'$(LAYOUT_SIZES)'" \
		LAYOUT_METHODS="'$(LAYOUT_METHODS)'" LAYOUT_PERF=$(LAYOUT_PERF) \
		btrfs/guest-layout-cost.sh
	rm -f $(BUILD)/vm/btrfs-layout.img
	$(PY) tools/bench/btrfs/layout_report.py \
		$$(ls -d $(BENCH_DIR)/btrfs-layout*/ | sort) $(LAYOUT_REPORT_ARGS)

# Debian's btrfs.ko against ours in one VM (btrfs/guest-bench-btrfs.sh):
# one btrfs on a RAM disk with a file of BENCH_BTRFS_EXTENTS extents, made
# once; BENCH_BTRFS_ROUNDS rounds of both modules in turn (unmount, swap,
# mount), each caching every extent map and then running O_DIRECT random
# reads from 1, 2 and 16 jobs, sequential reads and extent-splitting
# writes for BENCH_BTRFS_SECONDS each (BENCH_BTRFS_WORKLOADS); then a
# profile of each workload of BENCH_BTRFS_PROFILE on each (empty: none).
# Slab debugging off, each cache apart (slab_nomerge, vm-run's default),
# the TSC as the clock.  Results: build/bench/btrfs.{md,json,png}
# and the BENCH-BTRFS section of Documentation/btrfs.rst
# (BENCH_BTRFS_REPORT_ARGS= leaves it alone).  24 minutes here at the
# default 3 rounds (2026-12-03).
BENCH_BTRFS_EXTENTS ?= 1048576
BENCH_BTRFS_BASE ?= 16384
BENCH_BTRFS_ROUNDS ?= 3
BENCH_BTRFS_SECONDS ?= 10
BENCH_BTRFS_MEMORY ?= 4G
BENCH_BTRFS_PROFILE ?= randread-16 splitwrite
BENCH_BTRFS_WORKLOADS ?= randread-1 randread-2 randread-16 seqread splitwrite
BENCH_BTRFS_RANDOM_EXTENTS ?= 131072
BENCH_BTRFS_REPORT_ARGS ?= --doc $(TOP)/Documentation/btrfs.rst
bench-btrfs: setup $(BTRFS_KO)
	rm -rf $(BENCH_DIR)/btrfs-vm
	mkdir -p $(BENCH_DIR)/btrfs-vm
	start=$$(date +%s); \
	$(TOP)/tools/vm/vm-run --kernel 6.1 --timeout 7200 --memory $(BENCH_BTRFS_MEMORY) \
		--append "slub_debug=- clocksource=tsc tsc=reliable" \
		--out $(BENCH_DIR)/btrfs-vm -- \
		BTRFS_KO=$(BTRFS_KO) \
		SKIPLIST_KO=$(BUILD)/kmod-$(KREL_61)/skiplist/skiplist.ko \
		BENCH_EXTENTS=$(BENCH_BTRFS_EXTENTS) BENCH_BASE=$(BENCH_BTRFS_BASE) \
		BENCH_ROUNDS=$(BENCH_BTRFS_ROUNDS) BENCH_SECONDS=$(BENCH_BTRFS_SECONDS) \
		BENCH_PROFILE="'$(BENCH_BTRFS_PROFILE)'" \
		BENCH_WORKLOADS="'$(BENCH_BTRFS_WORKLOADS)'" \
		BENCH_RANDOM_EXTENTS=$(BENCH_BTRFS_RANDOM_EXTENTS) \
		btrfs/guest-bench-btrfs.sh $(BENCH_DIR)/btrfs-vm && \
	$(PY) tools/bench/btrfs/report.py $(BENCH_DIR)/btrfs-vm --out $(BENCH_DIR) \
		--wall-seconds $$(($$(date +%s) - start)) $(BENCH_BTRFS_REPORT_ARGS) > /dev/null
	@cat $(BENCH_DIR)/btrfs.md

lint: $(CHECKPATCH)
	perl $(CHECKPATCH) --no-tree --strict --quiet --ignore FILE_PATH_CHANGES \
		-f $(KERNEL_C)
	perl $(CHECKPATCH) --no-tree --strict --quiet \
		--ignore FILE_PATH_CHANGES,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT \
		-f $(TRACE_H)
	@echo "lint: checkpatch --strict clean on $(words $(KERNEL_C) $(TRACE_H)) files"

# HTML documentation from Documentation/ with Sphinx.  The API reference
# comes from the sources' kernel-doc comments through the kernel's own
# kernel-doc extension and script, extracted from Debian's
# linux-source-6.1 into build/kernel-doc (the project carries none of the
# kernel's code).  Any warning, kernel-doc's included, fails the build; -E
# reads every page each time, so that a warning is never hidden by a page
# left unread because it did not change.
KDOC_DIR := $(BUILD)/kernel-doc
KDOC_FILES := scripts/kernel-doc Documentation/sphinx/kerneldoc.py \
	Documentation/sphinx/kernellog.py
$(KDOC_DIR)/.extracted:
	@test -f /usr/src/linux-source-6.1.tar.xz || \
		{ echo "linux-source-6.1 missing: run 'make setup'"; exit 1; }
	rm -rf $(KDOC_DIR) && mkdir -p $(KDOC_DIR)
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C $(KDOC_DIR) \
		--strip-components=1 $(addprefix linux-source-6.1/,$(KDOC_FILES))
	touch $@

htmldocs: $(KDOC_DIR)/.extracted
	@$(PY) -c 'import sphinx, sphinx_rtd_theme' 2>/dev/null || \
		{ echo "Sphinx or its theme missing: run 'make setup'"; exit 1; }
	@command -v dot >/dev/null || \
		{ echo "graphviz (dot) missing: run 'make setup'"; exit 1; }
	rm -rf $(BUILD)/htmldocs
	SL_KERNELDOC_DIR=$(KDOC_DIR) $(PY) -m sphinx -b html -E -W --keep-going -q \
		-d $(BUILD)/htmldocs-doctrees Documentation $(BUILD)/htmldocs
	@echo "htmldocs: no warnings; open $(BUILD)/htmldocs/index.html"

check-user:
	$(MAKE) -j$(NPROC) -C tools/testing/skiplist all
	$(MAKE) -C tools/testing/skiplist check
	$(MAKE) -C tools/slctl
	tools/slctl/test-top.sh $(BUILD)/test/debugfs_dump $(BUILD)/tools/slctl
	$(MAKE) -j$(NPROC) -C tools/testing/lsm all
	$(MAKE) -C tools/testing/lsm check

# The store's soak: threads of random operations against an expected-state
# oracle, power cuts and reopens at random points (test_soak).
SOAK_SECONDS ?= 300
check-soak:
	$(MAKE) -C tools/testing/lsm soak SOAK_SECONDS=$(SOAK_SECONDS)

# Break the code on purpose, one way at a time; each test must notice.
mutants:
	$(PY) $(TOP)/tools/testing/skiplist/mutants.py

# The benchmark must keep building and running: a tiny run of every index,
# workload and key set, the rbtree peer's own test against a model,
# lsm_bench's driver on its test double (tools/bench/lsm/selftest.py), and
# bench-scaling's host parts at 1 and 2 threads through its report (it
# fails on any figure missing).
bench-smoke: bench-build bench-native-build
	$(MAKE) -C tools/bench/user BUILD=$(BUILD)/bench-obj/driver rbtree_selftest
	$(MAKE) -C tools/bench/lsm BUILD=$(BUILD)/bench-obj/lsm selftest
	$(BUILD)/bench-obj/driver/bench_user --items 1000 --threads 1,2 \
		--seconds 0.01 --rounds 1 --out $(BUILD)/bench/smoke > /dev/null
	mkdir -p $(BUILD)/bench/smoke
	$(NATIVE_OBJ)/sl_bench_native --items 1024 --threads 1,2 --cell-ms 20 \
		--rounds 1 > $(BUILD)/bench/smoke/alloc-native.txt
	$(PY) tools/bench/kernel/report.py $(BUILD)/bench/smoke/alloc-native.txt \
		--out $(BUILD)/bench/smoke --name alloc-native
	$(PY) tools/bench/scaling/run.py --out $(BUILD)/bench/smoke --threads 1,2 \
		--parts user,native --user-items 1000 --user-seconds 0.01 \
		--user-rounds 1 --native-cell-ms 20 --native-rounds 1 \
		> $(BUILD)/bench/smoke/scaling.log 2>&1 || \
		{ tail -20 $(BUILD)/bench/smoke/scaling.log; exit 1; }

# Real kernels: both Debian 12 kernels boot under virtme-ng, load the
# modules and run test_skiplist.ko; the kernel log must stay clean.
# The guest runs test_skiplist.ko, the kselftests of /dev/skiplist (with
# FUZZ_IOCTLS random ioctls) and /dev/sl_extent, the IOMMU demo's test (fio
# verify on every backend) and a module life-cycle test.
# The guest also checks the modules' events, debugfs and slctl top
# (tools/vm/guest-observe.sh) and leaves its trace in OBSERVE_61/_612,
# which tools/trace/trace_plot.py turns into pictures here.
# The modules the guests load are the ones DKMS built on the host
# (check-dkms) and installs in the guest: modprobe loads them, and dkms
# remove takes them away at the end (tools/vm/guest-dkms.sh).
FUZZ_IOCTLS ?= 100000
OBSERVE_61 = $(BUILD)/vm/$(KREL_61)/observe
OBSERVE_612 = $(BUILD)/vm/$(KREL_612)/observe
check-vm: check-kernel check-dkms
	$(MAKE) -C selftests/skiplist
	$(MAKE) -C selftests/extent
	$(MAKE) -C tools/slctl
	$(TOP)/tools/vm/test-scan.sh
	rm -rf $(OBSERVE_61) $(OBSERVE_612)
	$(TOP)/tools/vm/vm-run --kernel 6.1 --timeout 1200 -- \
		SL_FUZZ_IOCTLS=$(FUZZ_IOCTLS) SL_OBSERVE_OUT=$(OBSERVE_61) \
		SL_DKMS_DIR=build/dkms tools/vm/guest-selftests.sh
	$(PY) tools/trace/trace_plot.py $(OBSERVE_61)/trace.txt -o $(OBSERVE_61)
	$(TOP)/tools/vm/vm-run --kernel 6.12 --timeout 1200 -- \
		SL_FUZZ_IOCTLS=$(FUZZ_IOCTLS) SL_OBSERVE_OUT=$(OBSERVE_612) \
		SL_DKMS_DIR=build/dkms tools/vm/guest-selftests.sh
	$(PY) tools/trace/trace_plot.py $(OBSERVE_612)/trace.txt -o $(OBSERVE_612)

# make install and make uninstall for real, with DKMS building for 6.1
# and, through the kernel package's hook, 6.12, in a mount namespace whose
# writes land on a tmpfs (tools/install/check-dkms.sh); it leaves each
# kernel's build in build/dkms for check-vm's guests.
check-dkms:
	@test -n "$(KREL_61)" -a -n "$(KREL_612)" || \
		{ echo "6.1 and 6.12 headers needed: run 'make setup'"; exit 1; }
	$(TOP)/tools/install/check-dkms.sh $(KREL_61) $(KREL_612)

# The store in both kernels (tools/vm/guest-lsm.sh), each on a fresh
# sparse image of LSM_DISK_MB as a virtio disk with serial "sllsm", and a
# 2 MiB one ("sllsmsmall") for the too-small refusal; SL_LSM_SECONDS of
# eight threads against a model; a few thousand keys of lsm_bench_dev,
# make bench-lsm-vm's driver.  The 6.12 boot is also the reboot: it first
# reads back what the 6.1 boot left on its image (another kernel reading
# the store is the stronger test, and a boot fewer).
LSM_DISK_MB ?= 256
LSM_SECONDS ?= 4
check-vm-lsm: check-kernel
	$(MAKE) -C selftests/lsm
	$(MAKE) -C tools/slctl
	$(MAKE) -C tools/bench/lsm dev BUILD=$(BUILD)/bench-obj/lsm
	@mkdir -p $(BUILD)/vm
	@prev=; for k in 6.1 6.12; do \
		img=$(BUILD)/vm/lsm-$$k.img small=$(BUILD)/vm/lsm-small-$$k.img; \
		rm -f $$img $$small; \
		truncate -s $(LSM_DISK_MB)M $$img && truncate -s 2M $$small && \
		$(TOP)/tools/vm/vm-run --kernel $$k --timeout 1200 \
			--drive $$img:sllsm --drive $$small:sllsmsmall \
			$${prev:+--drive $$prev:sllsmprev} -- \
			SL_LSM_SECONDS=$(LSM_SECONDS) tools/vm/guest-lsm.sh || exit 1; \
		prev=$$img; \
	done

# The store's crash test on the kernel's I/O path (tools/vm/guest-crash.sh,
# Documentation/lsm.rst, "Crash testing"), in each kernel of CRASH_KERNELS:
# lsm_crash_workload on a dm-log-writes target over a fresh image of
# CRASH_DISK_MB (CRASH_OPS operations, or CRASH_SECONDS of them), the
# kernel's own recovery at CRASH_SAMPLES replay points of the log, and
# lsm_fault_test under dm-flakey; then, on the host, crash_check judges
# every replay point of the log with the userspace build of the store
# under ASan, CRASH_VARIANTS torn and reordered states at every flush,
# and the kernel's recoveries, replaying the log in the order the guest's
# trace of the flushes gives (dm-log-writes misorders overlapping ones).
# The drives use QEMU's cache=unsafe: the guest still sees a write cache
# and flushes it, but the host does not fsync the images for it (a crash
# of the host is not what is tested).
# A second pass judges every point again with a memtable of one byte:
# the recoveries' flushes and merges then write and read the device at
# once from their threads, as the first pass's rarely do.
# make check runs this on 6.12, whose dm-flakey also corrupts reads;
# check-crash-long runs minutes of it on both kernels.
CRASH_KERNELS ?= 6.12
CRASH_OPS ?= 1500
CRASH_SECONDS ?=
CRASH_SEED ?=
CRASH_DISK_MB ?= 64
CRASH_LOG_MB ?= 4096
CRASH_SAMPLES ?= 4
CRASH_VARIANTS ?= 2
CRASH_TIMEOUT ?= 1800
check-crash: check-kernel
	@$(MAKE) --no-print-directory crash-run

# check-crash on the modules as they are built: make check runs it beside
# another guest, after its own check-kernel, which must not run twice at
# once on one build tree.
crash-run:
	$(MAKE) -C selftests/lsm
	$(MAKE) -C tools/crash all check
	@seed=$(or $(CRASH_SEED),$$(date +%s)); for k in $(CRASH_KERNELS); do \
		out=$(BUILD)/vm/crash-$$k; mkdir -p $$out; \
		rm -f $$out/*.img && \
		truncate -s $(CRASH_DISK_MB)M $$out/data.img && \
		truncate -s $(CRASH_LOG_MB)M $$out/log.img && \
		truncate -s $(CRASH_DISK_MB)M $$out/base.img && \
		truncate -s $(CRASH_DISK_MB)M $$out/cow.img && \
		truncate -s 64M $$out/fault.img && \
		$(TOP)/tools/vm/vm-run --kernel $$k --timeout $(CRASH_TIMEOUT) \
			--cache unsafe --out $$out \
			--drive $$out/data.img:slcrdata --drive $$out/log.img:slcrlog \
			--drive $$out/base.img:slcrbase --drive $$out/cow.img:slcrcow \
			--drive $$out/fault.img:slfault -- \
			SL_CRASH_OUT=$$out SL_CRASH_SEED=$$seed SL_CRASH_OPS=$(CRASH_OPS) \
			SL_CRASH_SECONDS=$(CRASH_SECONDS) SL_CRASH_SAMPLES=$(CRASH_SAMPLES) \
			tools/vm/guest-crash.sh || exit 1; \
		echo "check-crash: judging every replay point of $$k's log on the host"; \
		timeout 3600 $(BUILD)/crash/crash_check --log $$out/log.img \
			--journal $$out/journal.txt --dumps $$out/dumps \
			--flush-trace $$out/flush-trace.txt \
			--variants $(CRASH_VARIANTS) --seed $$seed || exit 1; \
		echo "check-crash: every replay point again, each recovery's write a run of its own"; \
		timeout 3600 $(BUILD)/crash/crash_check --log $$out/log.img \
			--journal $$out/journal.txt \
			--flush-trace $$out/flush-trace.txt \
			--variants 0 --memtable 1 --seed $$seed || exit 1; \
		rm -f $$out/*.img; \
	done

# Minutes of the crash workload on both kernels, with more of the
# kernel's recoveries and more torn and reordered states per flush.
CRASH_LONG_SECONDS ?= 300
check-crash-long:
	$(MAKE) check-crash CRASH_KERNELS="6.1 6.12" CRASH_SECONDS=$(CRASH_LONG_SECONDS) \
		CRASH_DISK_MB=256 CRASH_SAMPLES=16 CRASH_VARIANTS=1 CRASH_TIMEOUT=3600

# The store's durability broken on purpose, one way at a time
# (tools/crash/mutants.py): each mutant module runs the crash test, and
# crash_check or the guest must catch it.  About 2 minutes a mutant.
check-crash-mutants: check-kernel
	$(MAKE) -C selftests/lsm
	$(MAKE) -C tools/crash all
	$(PY) tools/crash/mutants.py --kernel $(firstword $(CRASH_KERNELS))

# Whole-index commands at scale (tools/vm/guest-stall.sh): STALL_N extents
# per index (the review that found the stalls used 5.6M), in Debian's 6.1
# with preempt=full, watchdog_thresh=1 (a soft lockup after 2 s) and
# rcu_cpu_stall_timeout=3 (the kernel's floor), under each preemption model
# of STALL_MODES, switched at run time.  Any soft lockup or RCU stall
# report fails the run.  A larger log buffer keeps every report of a run
# that has them (each is some 40 lines), so that each is traced to its
# command.
STALL_N ?= 2000000
STALL_MODES ?= full none
# make check's shorter run (about 5 minutes): one million extents, under
# the no-preemption model alone, which reports everything the full one
# does at these thresholds (a soft lockup after 2 s of any section that
# does not reschedule, RCU read-side ones included) and loops that never
# reach cond_resched() besides.  Before the chunking, CHECK took 2.5 s
# there and EM_CHECK and EM_DROP 5.7 and 6.5 s.
STALL_CHECK_N ?= 1000000
STALL_MEMORY ?= 4G
STALL_BOOT := preempt=full watchdog_thresh=1 rcupdate.rcu_cpu_stall_timeout=3 \
	log_buf_len=16M
check-vm-stall: modules
	$(MAKE) -C selftests/stall
	$(TOP)/tools/vm/vm-run --kernel 6.1 --memory $(STALL_MEMORY) --timeout 5400 \
		--append "$(STALL_BOOT)" --out $(BUILD)/vm/whole-index-6.1 -- \
		SL_STALL_N=$(STALL_N) SL_STALL_MODES="'$(STALL_MODES)'" \
		tools/vm/guest-stall.sh

# Debug kernels from Debian's linux-source-6.1 (tools/debug-kernel): kernel
# a with lockdep, PROVE_RCU, KASAN, kmemleak, failslab and KUnit, kernel b
# with KCSAN and lockdep; built once per machine and cached outside the
# tree.  The modules are built against each and the guest suite
# (tools/vm/guest-debug.sh) runs on each, one after the other: two guests
# at once, four vCPUs on two cores, spin on locks whose holder's vCPU the
# host descheduled (kernel a's KUnit suite went from 205 s to over 10
# minutes that way).  Their drivers are built in: the guests boot without
# udev (vm-run --no-udev), which saves about 70 s a boot.  Kernel a's
# guest ends with btrfs on the skiplist (check-btrfs-debug's test, without
# a boot of its own).
DEBUG_VARIANTS ?= a b
check-debug: setup
	$(MAKE) -C selftests/skiplist
	$(MAKE) -C selftests/extent
	$(MAKE) -C selftests/lsm
	$(MAKE) -C tools/slctl
	$(MAKE) -C tools/bench/lsm dev BUILD=$(BUILD)/bench-obj/lsm
	@for v in $(DEBUG_VARIANTS); do \
		kdir=$$($(TOP)/tools/debug-kernel/build.sh $$v | tail -1) || exit 1; \
		btrfs=; \
		if [ $$v = a ]; then \
			$(MAKE) --no-print-directory btrfs-debug-current || exit 1; \
			btrfs=1; \
		fi; \
		$(MAKE) --no-print-directory debug-run DEBUG_KDIR=$$kdir \
			DEBUG_VARIANT=$$v DEBUG_BTRFS=$$btrfs || exit 1; \
	done
	@echo "check-debug: passed on debug kernels $(DEBUG_VARIANTS)"

# Fewer fuzzed ioctls than check-vm: the debug kernels run them ~10x slower.
# The index's caches are marked for failslab (A), which its cache-filter
# then targets; nothing fails until the guest sets a probability.
DEBUG_BOOT := slub_debug=FZPU;FZPUA,skiplist_leaf_*
DEBUG_FUZZ_IOCTLS ?= 20000
# The store's scratch disks (tools/vm/guest-lsm.sh names them by serial).
DEBUG_LSM_IMG = $(BUILD)/vm/lsm-debug-$(DEBUG_VARIANT).img
DEBUG_LSM_SMALL = $(BUILD)/vm/lsm-small-debug-$(DEBUG_VARIANT).img
# DEBUG_BTRFS=1 (kernel a, make check-debug) adds btrfs on the skiplist
# at the end (check-btrfs-debug's guest-btrfs.sh, on btrfs-debug's build).
debug-run:
	$(MAKE) --no-print-directory debug-modules DEBUG_KDIR=$(DEBUG_KDIR) \
		DEBUG_REL=$$(cat $(DEBUG_KDIR)/include/config/kernel.release)
	@mkdir -p $(BUILD)/vm
	rm -f $(DEBUG_LSM_IMG) $(DEBUG_LSM_SMALL)
	truncate -s $(LSM_DISK_MB)M $(DEBUG_LSM_IMG)
	truncate -s 2M $(DEBUG_LSM_SMALL)
	$(if $(DEBUG_BTRFS),rm -f $(DEBUG_BTRFS_IMG) && truncate -s 2G $(DEBUG_BTRFS_IMG))
	rel=$$(cat $(DEBUG_KDIR)/include/config/kernel.release); \
	$(TOP)/tools/vm/vm-run --append "$(DEBUG_BOOT)" --no-udev \
		--kernel $(DEBUG_KDIR)/arch/x86/boot/bzImage \
		--timeout $(if $(DEBUG_BTRFS),3600,2400) \
		--drive $(DEBUG_LSM_IMG):sllsm --drive $(DEBUG_LSM_SMALL):sllsmsmall \
		$(if $(DEBUG_BTRFS),--drive $(DEBUG_BTRFS_IMG):slbtrfs) -- \
		SL_FUZZ_IOCTLS=$(DEBUG_FUZZ_IOCTLS) \
		$(if $(DEBUG_BTRFS),$(call debug_btrfs_env,$$rel)) \
		tools/vm/guest-debug.sh $(DEBUG_VARIANT)

# Break the modules on purpose, one checker at a time, and watch the debug
# kernels catch each break (not part of make check: a VM boot per break).
check-debug-checkers: setup
	$(MAKE) -C selftests/skiplist
	$(MAKE) -C selftests/extent
	$(PY) $(TOP)/tools/debug-kernel/prove-checkers.py

# From clean, so that the log the warning check reads is never empty.
debug-modules:
	rm -rf $(BUILD)/kmod-$(DEBUG_REL)
	$(call kmod,$(DEBUG_KDIR),$(DEBUG_REL),W=1)
	@$(call no_warnings,$(BUILD)/kmod-$(DEBUG_REL)/build.log)

# Each part says how long it took, and the end sums them up, so that the
# suite's time (CI allows 90 minutes; we keep it under 45) is watched.
CHECK_TIMES = $(BUILD)/check-times.txt
timed = t=$$(date +%s); $(MAKE) $(1) || exit 1; \
	echo "$$(( $$(date +%s) - t )) s	$(firstword $(1))" >> $(CHECK_TIMES)
# $(call timed_beside,BG ...,FG ...[,NICE]): each BG job runs in the
# background (at nice NICE) while each FG target runs in turn; a job of
# several targets joined by "+" runs them one after the other.  Each is
# timed, and any failure fails the check (a job's log, in build/JOB.log,
# is shown then), stopping the jobs.  A guest under emulation keeps the
# host's two cores about 65% busy (its tests are mostly one thread), so
# host-side work beside it fills the rest; at nice 19 it takes only what
# the guest leaves, so that it seldom deschedules a vCPU that holds a lock
# the other vCPU spins on.
timed_beside = t0=$$(date +%s); pids=; \
	for j in $(1); do \
		log=$(BUILD)/$$(echo $$j | tr + -).log; rm -f $$log.rc; \
		( nice -n $(or $(3),0) $(MAKE) $$(echo $$j | tr + ' ') > $$log 2>&1; \
		  echo $$? > $$log.rc; \
		  echo "$$(( $$(date +%s) - t0 )) s	$$j (beside $(2))" >> $(CHECK_TIMES) ) & \
		pids="$$pids $$!"; \
	done; \
	trap 'kill $$pids 2>/dev/null' EXIT; \
	for p in $(2); do $(call timed,$$p); done; \
	wait $$pids; trap - EXIT; fail=0; \
	for j in $(1); do \
		log=$(BUILD)/$$(echo $$j | tr + -).log; tail -3 $$log; \
		test "$$(cat $$log.rc)" = 0 || { echo "$$j failed: $$log"; tail -30 $$log; fail=1; }; \
	done; \
	exit $$fail
check: setup
	@mkdir -p $(BUILD) && : > $(CHECK_TIMES) && date +%s > $(BUILD)/check-start
	@$(call timed,check-kernel)
	@# What both sides below build, built once before they start.
	@$(MAKE) --no-print-directory -C selftests/lsm && $(MAKE) --no-print-directory -C tools/slctl
	@$(call timed_beside,check-user+check-btrfs+btrfs-debug+crash-run,check-vm check-vm-lsm)
	@# Alone: it measures how long the index stalls its callers.
	@$(call timed,check-vm-stall STALL_N=$(STALL_CHECK_N) STALL_MODES=none)
	@$(call timed_beside,check-soak mutants+lint+bench-smoke+htmldocs+check-install,check-debug,19)
	@echo "check: all passed; seconds per part (parts beside others overlap them):"
	@cat $(CHECK_TIMES)
	@echo "$$(( $$(date +%s) - $$(cat $(BUILD)/check-start) )) s	in all, wall clock"

# Userspace benchmark: the skiplist built with the fast shims against its
# peers, plus the skiplist-only figures in three more builds: as shipped
# (LOADS), and without the leaf directory with and without the seed-001
# skip (DESCENT, NOSKIP), so that the skip's saving in the descent is
# measured where the directory does not hide it.
include tools/testing/skiplist/flavour.mk
SL_TOP := $(TOP)
# BENCH_CFLAGS=-DSHIM_FAST_TRACE keeps the tracepoints in, disabled, as a
# load and a branch each: what they may cost at most (Documentation/
# tracing.rst, "Cost"); build into another BUILD= to compare.
BENCH_CFLAGS ?=
$(eval $(call sl_flavour,FAST,$(BUILD)/bench-obj/fast,-O2 -DSHIM_FAST -DSHIM_RCU_QSBR $(BENCH_CFLAGS)))
$(eval $(call sl_flavour,LOADS,$(BUILD)/bench-obj/loads,-O2 -DSHIM_FAST -DSL_COUNT_KEY_LOADS))
$(eval $(call sl_flavour,DESCENT,$(BUILD)/bench-obj/descent,-O2 -DSHIM_FAST -DSL_COUNT_KEY_LOADS -DSL_NO_DIRECTORY))
$(eval $(call sl_flavour,NOSKIP,$(BUILD)/bench-obj/noskip,-O2 -DSHIM_FAST -DSL_COUNT_KEY_LOADS -DSL_NO_DIRECTORY -DSL_NO_SKIP_REJECTED))

BENCH_DIR := $(BUILD)/bench
BENCH_ARGS ?=
# A full run rewrites the README's benchmark section and the goals in
# Documentation/skiplist.rst; a quick one does not.
REPORT_ARGS ?= --readme $(TOP)/README.md --doc $(TOP)/Documentation/skiplist.rst

$(BUILD)/bench-obj/fast/skiplist_impl.o: tools/bench/user/skiplist_impl.c $(wildcard skiplist/*.h)
	$(CC) $(FAST_CFLAGS) -Itools/bench/user -c -o $@ $<

$(BUILD)/bench-obj/%/skiplist_extras: tools/bench/user/skiplist_extras.c \
		tools/bench/kernel/keyset.h $(wildcard skiplist/*.h)
	$(CC) $($(shell echo $* | tr a-z A-Z)_CFLAGS) -Itools/bench/kernel -o $@ $< \
		$($(shell echo $* | tr a-z A-Z)_OBJS) -lurcu -lpthread

$(BUILD)/bench-obj/loads/skiplist_extras: $(LOADS_OBJS)
$(BUILD)/bench-obj/descent/skiplist_extras: $(DESCENT_OBJS)
$(BUILD)/bench-obj/noskip/skiplist_extras: $(NOSKIP_OBJS)

bench-build: $(FAST_OBJS) $(BUILD)/bench-obj/fast/skiplist_impl.o \
		$(BUILD)/bench-obj/loads/skiplist_extras \
		$(BUILD)/bench-obj/descent/skiplist_extras \
		$(BUILD)/bench-obj/noskip/skiplist_extras
	$(MAKE) -C tools/bench/user BUILD=$(BUILD)/bench-obj/driver \
		EXTRA_OBJS="$(FAST_OBJS) $(BUILD)/bench-obj/fast/skiplist_impl.o" \
		EXTRA_CFLAGS=-DHAVE_SKIPLIST EXTRA_LIBS=-lurcu-qsbr

bench-user: setup bench-build
	mkdir -p $(BENCH_DIR)
	$(BUILD)/bench-obj/loads/skiplist_extras --variant directory $(EXTRAS_ARGS) \
		> $(BENCH_DIR)/extras-dir.json
	$(BUILD)/bench-obj/descent/skiplist_extras --variant skip-rejected $(EXTRAS_ARGS) \
		> $(BENCH_DIR)/extras-skip.json
	$(BUILD)/bench-obj/noskip/skiplist_extras --variant no-skip $(EXTRAS_ARGS) \
		> $(BENCH_DIR)/extras-noskip.json
	$(BUILD)/bench-obj/driver/bench_user --out $(BENCH_DIR) $(BENCH_ARGS) > /dev/null
	$(PY) tools/bench/user/report.py $(BENCH_DIR) $(REPORT_ARGS)
	$(PY) tools/bench/user/plot_user.py $(BENCH_DIR)/user.json -o $(BENCH_DIR)/user.png
	@cat $(BENCH_DIR)/user.md

# The memtable's allocators side by side (Documentation/lsm-memory.rst):
# lsm/'s pool, arena and memtable built with the fast shims, no sanitizers.
# LSM_POOL_ARGS go to the program (e.g. --quick, --records 200000).
LSM_POOL_ARGS ?=
LSM_BENCH_OBJ := $(BUILD)/bench-obj/lsm
$(LSM_BENCH_OBJ)/%.o: lsm/%.c $(wildcard lsm/*.h)
	@mkdir -p $(@D)
	$(CC) $(FAST_CFLAGS) -Ilsm -c -o $@ $<

$(LSM_BENCH_OBJ)/lsm_pool_bench: tools/bench/lsm-pool/lsm_pool_bench.c \
		$(LSM_BENCH_OBJ)/pool.o $(LSM_BENCH_OBJ)/arena.o \
		$(LSM_BENCH_OBJ)/memtable.o $(FAST_OBJS)
	$(CC) $(FAST_CFLAGS) -Ilsm -o $@ $^ -lurcu-qsbr -lpthread

bench-lsm-pool: setup $(LSM_BENCH_OBJ)/lsm_pool_bench
	mkdir -p $(BENCH_DIR)
	$(LSM_BENCH_OBJ)/lsm_pool_bench --json $(BENCH_DIR)/lsm-pool.json \
		$(LSM_POOL_ARGS) > $(BENCH_DIR)/lsm-pool.txt
	$(PY) tools/bench/lsm-pool/report.py $(BENCH_DIR)/lsm-pool.json \
		-o $(BENCH_DIR)/lsm-pool.rst

# In-kernel benchmark: sl_bench.ko runs every index and allocator workload
# in Debian's 6.1 kernel in a VM (tools/bench/kernel/README), with slab
# debugging off, since it would weigh on every allocation.  About 20
# minutes under software emulation.  BENCH_KERNEL_ARGS go to sl_bench.ko (e.g.
# cell_ms=200 threads=1,2); BENCH_KERNEL_ITEMS are the item counts.  The
# modules are built without key-load counting (SL_KEY_LOADS=0), a
# diagnostic that costs lookups about a third of their speed under
# emulation (Documentation/extent.rst, "Benchmarks").
BENCH_KERNEL_ARGS ?=
BENCH_KERNEL_ITEMS ?= 1024,65536,1048576
# A full run rewrites the BENCH-KERNEL sections of the README and of
# Documentation/extent.rst; BENCH_KERNEL_REPORT_ARGS= leaves them alone.
BENCH_KERNEL_REPORT_ARGS ?= --readme $(TOP)/README.md --doc $(TOP)/Documentation/extent.rst
# About 20 minutes on a quiet host; a loaded one takes two or three times.
BENCH_KERNEL_TIMEOUT ?= 5400
bench-kernel: setup
	$(MAKE) modules SL_KEY_LOADS=0
	rm -rf $(BENCH_DIR)/kernel-vm
	mkdir -p $(BENCH_DIR)/kernel-vm
	start=$$(date +%s); \
	$(TOP)/tools/vm/vm-run --kernel 6.1 --timeout $(BENCH_KERNEL_TIMEOUT) \
		--append "slub_debug=-" --out $(BENCH_DIR)/kernel-vm -- \
		SL_BENCH_ITEMS=$(BENCH_KERNEL_ITEMS) tools/bench/kernel/guest-bench-kernel.sh \
		$(BENCH_DIR)/kernel-vm $(BENCH_KERNEL_ARGS) && \
	$(PY) tools/bench/kernel/report.py $(BENCH_DIR)/kernel-vm/results.txt \
		--out $(BENCH_DIR) --wall-seconds $$(($$(date +%s) - start)) \
		$(BENCH_KERNEL_REPORT_ARGS)
	@cat $(BENCH_DIR)/kernel.md

# The IOMMU demo: sl_iommu.ko with one 64 MiB RAM device per IOVA
# allocator backend, every fio workload of tools/fio/ on every device for
# BENCH_IOMMU_SECONDS each, BENCH_IOMMU_ROUNDS times (medians), in
# Debian's 6.1 kernel in a VM with slab debugging off and the TSC as the
# clock: emulated HPET reads took a third of the guest's CPU time
# (Documentation/iommu_demo.rst).  The defaults, 3 rounds of 25 cells of
# 8 s, take about 16 minutes under software emulation.
BENCH_IOMMU_SECONDS ?= 8
BENCH_IOMMU_ROUNDS ?= 3
BENCH_IOMMU_WORKLOADS ?= seqwrite,randread,randwrite,randread-1job,mixed
BENCH_IOMMU_BACKENDS ?= none,rbtree,iova,maple,skiplist,skiplist-nocache
# Profiled afterwards on random reads (perf; build/bench/iommu-vm/profile--*.txt).
BENCH_IOMMU_PROFILE ?= none,iova,skiplist,skiplist-nocache
# A run rewrites the Results section of Documentation/iommu_demo.rst;
# BENCH_IOMMU_REPORT_ARGS= leaves it alone (make demo's short run).
BENCH_IOMMU_REPORT_ARGS ?= --doc $(TOP)/Documentation/iommu_demo.rst
bench-iommu: setup
	$(MAKE) modules SL_KEY_LOADS=0
	rm -rf $(BENCH_DIR)/iommu-vm
	mkdir -p $(BENCH_DIR)/iommu-vm
	start=$$(date +%s); \
	$(TOP)/tools/vm/vm-run --kernel 6.1 --timeout 3000 \
		--append "slub_debug=- clocksource=tsc tsc=reliable" \
		--out $(BENCH_DIR)/iommu-vm -- \
		SLB_PROFILE=$(BENCH_IOMMU_PROFILE) SLB_ROUNDS=$(BENCH_IOMMU_ROUNDS) \
		tools/bench/iommu/guest-bench-iommu.sh $(BENCH_DIR)/iommu-vm \
		$(BENCH_IOMMU_SECONDS) $(BENCH_IOMMU_WORKLOADS) $(BENCH_IOMMU_BACKENDS) && \
	$(PY) tools/bench/iommu/report.py $(BENCH_DIR)/iommu-vm \
		--out $(BENCH_DIR) --wall-seconds $$(($$(date +%s) - start)) \
		$(BENCH_IOMMU_REPORT_ARGS) > /dev/null
	@cat $(BENCH_DIR)/iommu.md

# The comparisons at 1 to N threads, for a host of 16 or more CPUs
# (tools/bench/scaling/run.py): bench_user's lookups, 50/50 mix and
# insert_hole on every index, sl_bench_native's churn on every allocator,
# and the IOMMU demo's multi-job fio workloads with numjobs set to each
# count, in one VM of Debian's 6.1 with as many vCPUs as the host has CPUs
# (KVM where vm-run's probe finds it working, else TCG).  Each part has
# SCALING_BUDGET seconds: a count predicted to end past it is skipped,
# and the run then fails after writing its report.  SCALING_THREADS
# defaults to the powers of two up to the host's CPUs and the CPU count;
# SCALING_PARTS picks parts; SCALING_ARGS go to run.py (cell times,
# rounds, key set, backends, the VM's vCPUs and memory: run.py --help).
# Results: build/bench/scaling.{md,json,png}, the parts' own reports
# under build/bench/scaling/.  A complete run on 16 or more CPUs rewrites
# the README's BENCH-SCALING section (SCALING_README= leaves it alone).
SCALING_THREADS ?=
SCALING_PARTS ?= user,native,iommu
SCALING_BUDGET ?= 540
SCALING_ARGS ?=
SCALING_README ?= --readme $(TOP)/README.md
bench-scaling: setup
	$(MAKE) bench-build bench-native-build
	$(if $(findstring iommu,$(SCALING_PARTS)),$(MAKE) modules SL_KEY_LOADS=0)
	@rc=0; $(PY) tools/bench/scaling/run.py --out $(BENCH_DIR) \
		--parts $(SCALING_PARTS) --budget $(SCALING_BUDGET) \
		$(if $(SCALING_THREADS),--threads $(SCALING_THREADS)) \
		$(SCALING_README) $(SCALING_ARGS) || rc=$$?; \
	test ! -f $(BENCH_DIR)/scaling.md || cat $(BENCH_DIR)/scaling.md; \
	exit $$rc

# The store against RocksDB (tools/bench/lsm/run.py): lsm_bench, the
# store's sources at -O2 on the fast shims, on a file, and Debian's
# db_bench (rocksdb_extent_bench, on Debian's librocksdb, for the range
# and attach workloads), with the same db_bench flags, in one run with
# rounds interleaved.  1M keys and 3 rounds by default (BENCH_LSM_ARGS: --quick
# for 100K keys and one round, --big for 10M, --rounds N).  A full run
# rewrites the generated part of Documentation/lsm-bench.rst; a quick one
# does not.
BENCH_LSM_ARGS ?=
bench-lsm: setup
	$(MAKE) -C tools/bench/lsm BUILD=$(BUILD)/bench-obj/lsm
	mkdir -p $(BENCH_DIR)
	$(PY) tools/bench/lsm/run.py --out $(BENCH_DIR) \
		--lsm-bench $(BUILD)/bench-obj/lsm/lsm_bench \
		--doc $(TOP)/Documentation/lsm-bench.rst $(BENCH_LSM_ARGS)
	@cat $(BENCH_DIR)/lsm.md

# The store through /dev/sl_lsm in a VM against db_bench on ext4 in the
# same VM (tools/bench/lsm/guest-bench-lsm-vm.sh): two sparse raw images
# of BENCH_LSM_VM_DISK_MB as virtio-blk disks, one the store's, one made
# ext4 in the guest; BENCH_LSM_VM_CPUS vCPUs, slab debugging off and the
# TSC as the clock (both drivers read the clock around every operation:
# emulated HPET reads would be measured).  BENCH_LSM_VM_ARGS go to
# run.py: 30K keys per thread, 4 MiB memtables, 30000 reads per thread
# for readrandom and readwhilewriting (a tenth for seekrandom and
# rangelookup) and 3 rounds by default (Documentation/lsm-bench.rst says
# why).  The guest cannot write to the
# tree: the host regenerates the reports and, unless BENCH_LSM_VM_DOC is
# empty, the page's section from the guest's lsm-vm.json.  A smoke run:
# BENCH_LSM_VM_ARGS="--rounds 1 --num 5000" BENCH_LSM_VM_DOC=
BENCH_LSM_VM_KERNEL ?= 6.1
BENCH_LSM_VM_CPUS ?= 2
BENCH_LSM_VM_DISK_MB ?= 2048
BENCH_LSM_VM_ARGS ?= --num 30000 --memtable-bytes 4194304 --reads 30000 --rounds 3
BENCH_LSM_VM_DOC ?= --doc $(TOP)/Documentation/lsm-bench.rst
BENCH_LSM_VM_KREL = $(if $(filter 6.12,$(BENCH_LSM_VM_KERNEL)),$(KREL_612),$(KREL_61))
bench-lsm-vm: setup
	$(MAKE) modules KDIR=/lib/modules/$(BENCH_LSM_VM_KREL)/build
	$(MAKE) -C tools/bench/lsm dev rocksdb BUILD=$(BUILD)/bench-obj/lsm
	rm -rf $(BENCH_DIR)/lsm-vm-guest
	mkdir -p $(BENCH_DIR)/lsm-vm-guest $(BUILD)/vm
	rm -f $(BUILD)/vm/bench-lsm.img $(BUILD)/vm/bench-ext4.img
	truncate -s $(BENCH_LSM_VM_DISK_MB)M $(BUILD)/vm/bench-lsm.img
	truncate -s $(BENCH_LSM_VM_DISK_MB)M $(BUILD)/vm/bench-ext4.img
	$(TOP)/tools/vm/vm-run --kernel $(BENCH_LSM_VM_KERNEL) --timeout 5400 \
		--cpus $(BENCH_LSM_VM_CPUS) --memory 3G \
		--append "slub_debug=- clocksource=tsc tsc=reliable" \
		--drive $(BUILD)/vm/bench-lsm.img:slbenchlsm \
		--drive $(BUILD)/vm/bench-ext4.img:slbenchext4 \
		--out $(BENCH_DIR)/lsm-vm-guest -- \
		tools/bench/lsm/guest-bench-lsm-vm.sh $(BENCH_DIR)/lsm-vm-guest \
		$(BENCH_LSM_VM_ARGS)
	$(PY) tools/bench/lsm/run.py --name lsm-vm --out $(BENCH_DIR) \
		--from-json $(BENCH_DIR)/lsm-vm-guest/lsm-vm.json \
		$(BENCH_LSM_VM_DOC) > /dev/null
	rm -f $(BUILD)/vm/bench-lsm.img $(BUILD)/vm/bench-ext4.img
	@cat $(BENCH_DIR)/lsm-vm.md

# The allocator workloads of sl_bench.ko built as a native program
# (tools/bench/kernel/native/): the module's own workload and allocator
# files on the fast shim, with the kernel's IOVA allocator and rbtree
# (drivers/iommu/iova.c, tools/lib/rbtree.c) taken from Debian's
# linux-source-6.1 at build time.
NATIVE_OBJ := $(BUILD)/bench-obj/native
NATIVE_SRC := $(TOP)/tools/bench/kernel/native
NATIVE_LINUX := drivers/iommu/iova.c include/linux/iova.h tools/lib/rbtree.c \
	tools/include/linux/rbtree.h tools/include/linux/rbtree_augmented.h
# The module prints u64 with %llu; the shim's u64 is glibc's uint64_t.
NATIVE_CFLAGS = $(FAST_CFLAGS) -Wno-format -I$(TOP)/tools/bench/kernel -I$(TOP)/tools/peers \
	-I$(NATIVE_SRC)/include -I$(NATIVE_OBJ)/include -include $(NATIVE_SRC)/bench_native.h
NATIVE_OURS := $(addprefix $(NATIVE_OBJ)/,alloc_work.o alloc_skiplist.o \
	alloc_rbtree.o alloc_iova.o measure.o run_threads.o sl_bench_native.o)

$(NATIVE_OBJ)/.extracted:
	@test -f /usr/src/linux-source-6.1.tar.xz || \
		{ echo "linux-source-6.1 missing: run 'make setup'"; exit 1; }
	rm -rf $(NATIVE_OBJ)/linux $(NATIVE_OBJ)/include
	mkdir -p $(NATIVE_OBJ)/linux $(NATIVE_OBJ)/include/linux
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C $(NATIVE_OBJ)/linux \
		--strip-components=1 $(addprefix linux-source-6.1/,$(NATIVE_LINUX))
	cp $(NATIVE_OBJ)/linux/include/linux/iova.h \
		$(NATIVE_OBJ)/linux/tools/include/linux/rbtree*.h $(NATIVE_OBJ)/include/linux/
	touch $@

# The module's files embed the allocator's and the skiplist's structures:
# they are rebuilt when any header they may include changes.
NATIVE_HEADERS := tools/bench/kernel/bench.h $(NATIVE_SRC)/bench_native.h \
	$(wildcard extent/*.h skiplist/*.h tools/testing/skiplist/shim/*.h)

$(NATIVE_OBJ)/%.o: tools/bench/kernel/%.c $(NATIVE_HEADERS) $(NATIVE_OBJ)/.extracted
	$(CC) $(NATIVE_CFLAGS) -c -o $@ $<

$(NATIVE_OBJ)/%.o: $(NATIVE_SRC)/%.c $(NATIVE_HEADERS) $(NATIVE_OBJ)/.extracted
	$(CC) $(NATIVE_CFLAGS) -c -o $@ $<

# The kernel's files, as they are: their warnings are not ours to fix.
$(NATIVE_OBJ)/iova.o $(NATIVE_OBJ)/rbtree.o: $(NATIVE_OBJ)/.extracted $(NATIVE_SRC)/bench_native.h
	$(CC) $(NATIVE_CFLAGS) -w -c -o $@ \
		$(NATIVE_OBJ)/linux/$(if $(filter %iova.o,$@),drivers/iommu/iova.c,tools/lib/rbtree.c)

$(NATIVE_OBJ)/sl_bench_native: $(NATIVE_OURS) $(NATIVE_OBJ)/iova.o \
		$(NATIVE_OBJ)/rbtree.o $(FAST_OBJS)
	$(CC) $(FAST_CFLAGS) -o $@ $^ -lurcu-qsbr -lpthread

# BENCH_NATIVE_ARGS go to sl_bench_native (--threads, --cell-ms, --rounds,
# --items, --allocators, --workloads); the defaults take about a minute.
BENCH_NATIVE_ARGS ?= --threads 1,2 --cell-ms 500 --rounds 5
bench-native-build: $(NATIVE_OBJ)/sl_bench_native

# A run rewrites the BENCH-ALLOC-NATIVE section of Documentation/extent.rst
# (BENCH_NATIVE_REPORT_ARGS= leaves it alone), naming the host's load
# average at the start and the end, since the host may be shared.
BENCH_NATIVE_REPORT_ARGS ?= --doc $(TOP)/Documentation/extent.rst
bench-alloc-native: setup bench-native-build
	mkdir -p $(BENCH_DIR)
	{ echo "load before=$$(cut -d' ' -f1 /proc/loadavg)"; \
	  $(NATIVE_OBJ)/sl_bench_native $(BENCH_NATIVE_ARGS) && \
	  echo "load after=$$(cut -d' ' -f1 /proc/loadavg)"; } > $(BENCH_DIR)/alloc-native.txt
	$(PY) tools/bench/kernel/report.py $(BENCH_DIR)/alloc-native.txt \
		--out $(BENCH_DIR) --name alloc-native $(BENCH_NATIVE_REPORT_ARGS)
	@cat $(BENCH_DIR)/alloc-native.md

# Keys per leaf, chosen by measurement: the benchmark and the memory figures
# for each size in SWEEP_KEYS, side by side (build/bench/leaf-sweep.md).
SWEEP_KEYS ?= 8 16 32 64
DRIVER_OBJS = $(addprefix $(BUILD)/bench-obj/driver/,bench_user.o bench_impls.o \
	rbtree.o tbb_map.o cds_map.o)
define sweep_variant
$(eval $(call sl_flavour,K$(1),$(BUILD)/bench-obj/k$(1),-O2 -DSHIM_FAST -DSHIM_RCU_QSBR -DSL_COUNT_KEY_LOADS -DSL_LEAF_KEYS=$(1)))
$(BUILD)/bench-obj/k$(1)/skiplist_impl.o: tools/bench/user/skiplist_impl.c $(wildcard skiplist/*.h)
	$$(CC) $$(K$(1)_CFLAGS) -Itools/bench/user -c -o $$@ $$<
$(BUILD)/bench-obj/k$(1)/bench_user: bench-build $$(K$(1)_OBJS) $(BUILD)/bench-obj/k$(1)/skiplist_impl.o
	$$(CXX) -pthread -o $$@ $$(DRIVER_OBJS) $$(K$(1)_OBJS) $(BUILD)/bench-obj/k$(1)/skiplist_impl.o \
		-lurcu-qsbr -ltbb -lcds -lpthread
$(BUILD)/bench-obj/k$(1)/skiplist_extras: tools/bench/user/skiplist_extras.c \
		tools/bench/kernel/keyset.h $$(K$(1)_OBJS)
	$$(CC) $$(K$(1)_CFLAGS) -Itools/bench/kernel -o $$@ $$< $$(K$(1)_OBJS) -lurcu-qsbr -lpthread
endef
$(foreach k,$(SWEEP_KEYS),$(eval $(call sweep_variant,$(k))))

bench-leaf-sweep: setup $(foreach k,$(SWEEP_KEYS),$(BUILD)/bench-obj/k$(k)/bench_user $(BUILD)/bench-obj/k$(k)/skiplist_extras)
	mkdir -p $(BENCH_DIR)/sweep
	for k in $(SWEEP_KEYS); do \
		$(BUILD)/bench-obj/k$$k/bench_user --impls skiplist --items 65536,1048576 \
			--threads 1,2 --workloads insert,lookup,mix50,delete \
			--out $(BENCH_DIR)/sweep/k$$k $(SWEEP_ARGS) > /dev/null || exit 1; \
		$(BUILD)/bench-obj/k$$k/skiplist_extras --items 1048576 \
			> $(BENCH_DIR)/sweep/k$$k/extras.json || exit 1; \
	done
	$(PY) tools/bench/user/leaf_sweep.py $(BENCH_DIR)/sweep $(SWEEP_KEYS)

# Instructions, data reads and cache misses per lookup at 1M items under
# callgrind's cache model, for the skiplist, the maple tree and the rwlock
# rbtree: exact counts, where timed runs on these machines are noisy
# (about 6 minutes).
bench-tcg-profile: setup
	$(TOP)/tools/bench/kernel/tcg-profile.sh

# CACHESIM_KEYSET picks the key set (tools/bench/kernel/keyset.h).
CACHESIM_KEYSET ?= even
bench-lookup-cachesim: setup bench-build
	@command -v valgrind >/dev/null || { echo "valgrind missing: run 'make setup'"; exit 1; }
	$(PY) tools/bench/user/lookup_cachesim.py $(BUILD)/bench-obj/driver/bench_user \
		--impls skiplist,maple,rbtree-rw --keyset $(CACHESIM_KEYSET) --out $(BENCH_DIR)

bench-user-quick:
	$(MAKE) bench-user BENCH_ARGS=--quick EXTRAS_ARGS="--items 1000,65536" \
		REPORT_ARGS=

# Every target that needs what setup installs runs the rest through a new
# make: KREL_61 and KDIR are computed when make reads this file, which on a
# fresh machine is before setup has installed the headers.
demo: setup
	$(MAKE) modules
	$(MAKE) -C tools/slctl
	@mkdir -p $(BUILD)/vm
	rm -f $(BUILD)/vm/demo-lsm.img && truncate -s 64M $(BUILD)/vm/demo-lsm.img
	$(TOP)/tools/vm/vm-run --kernel 6.1 --drive $(BUILD)/vm/demo-lsm.img:sldemo \
		-- tools/vm/guest-demo.sh
	$(MAKE) -C tools/testing/skiplist all
	$(BUILD)/test/unit
	$(BUILD)/test/diff --ops 300000
	$(BUILD)/test/stress --seconds 8 --phases 4
	$(MAKE) bench-user-quick
	$(MAKE) bench-iommu BENCH_IOMMU_SECONDS=4 BENCH_IOMMU_ROUNDS=1 \
		BENCH_IOMMU_WORKLOADS=randread,randwrite BENCH_IOMMU_PROFILE= \
		BENCH_IOMMU_REPORT_ARGS=
	$(MAKE) bench-lsm BENCH_LSM_ARGS=--quick

clean:
	rm -rf $(BUILD)
