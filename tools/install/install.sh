#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install and make uninstall (Documentation/install.rst).
#
#   tools/install/install.sh install|uninstall
#
# install puts, under DESTDIR:
#   PREFIX/bin/slctl, PREFIX/bin/lsm_bench_dev
#   PREFIX/share/man/man1/slctl.1, PREFIX/share/man/man1/lsm_bench_dev.1
#   PREFIX/include/skiplist/skiplist_dev.h, sl_extent_dev.h, sl_lsm_dev.h
#   /usr/src/skiplist-VERSION/: dkms.conf, the top-level Kbuild and the
#     module sources (DKMS's source tree, whatever PREFIX is)
# and then, when DESTDIR is empty, has DKMS add that source tree, build
# the modules and install them for each kernel of DKMS_KERNELS (default:
# every kernel whose headers are installed, /lib/modules/*/build); dkms
# runs depmod, so that modprobe finds them.  With DESTDIR the files are
# only staged, and dkms is not needed: a package's postinst runs dkms.
# Installing a version again replaces it (dkms remove, then add).
#
# uninstall takes away what install put for this VERSION: dkms remove
# first (every kernel), then the files.
#
# The Makefile gives the environment: PREFIX (/usr), DESTDIR, DKMS_KERNELS,
# KMOD_DIRS (the module source directories), SLCTL, LSM_BENCH_DEV and
# MAN_DIR (the programs and pages it built).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
action=${1:-}
version=$(cat "$top/VERSION")
name=skiplist
destdir=${DESTDIR:-}
prefix=${PREFIX:-/usr}
src=$destdir/usr/src/$name-$version
bindir=$destdir$prefix/bin
man1=$destdir$prefix/share/man/man1
incdir=$destdir$prefix/include/$name
programs=(slctl lsm_bench_dev)
headers=(skiplist/uapi/skiplist_dev.h extent/uapi/sl_extent_dev.h lsm/uapi/sl_lsm_dev.h)

die() {
	echo "make $action: $*" >&2
	exit 1
}

case "$action" in
install|uninstall) ;;
*) echo "usage: install.sh install|uninstall" >&2; exit 2 ;;
esac

# What a real install needs; a staged one (DESTDIR) needs neither.
if [ -z "$destdir" ]; then
	[ "$(id -u)" = 0 ] ||
		die "needs root: run it as root or with sudo, or give DESTDIR=DIR to stage the files"
	command -v dkms >/dev/null ||
		die "dkms is not installed: apt-get install dkms (make setup installs it)"
fi

# Where DKMS keeps its builds: its default, unless its configuration
# (which it sources, as here) moves it.
dkms_tree() {
	local dkms_tree=/var/lib/dkms f

	for f in /etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf; do
		# shellcheck disable=SC1090
		[ -r "$f" ] && . "$f"
	done
	echo "$dkms_tree"
}

dkms_added() {
	[ -n "$(dkms status -m "$name" -v "$version" 2>/dev/null)" ]
}

# The module sources, as the Makefile's per-kernel trees have them.
install_sources() {
	local d f

	rm -rf "$src"
	mkdir -p "$src"
	sed "s/@VERSION@/$version/" "$top/dkms.conf" > "$src/dkms.conf"
	cp "$top/Kbuild" "$top/VERSION" "$src/"
	for d in ${KMOD_DIRS:?KMOD_DIRS not set: run make install}; do
		mkdir -p "$src/$d"
		for f in "$top/$d"/Kbuild "$top/$d"/*.[ch] "$top/$d"/uapi/*.h \
			 "$top/$d"/trace/events/*.h; do
			[ -f "$f" ] || continue
			install -D -m 644 "$f" "$src/$d/${f#"$top/$d/"}"
		done
	done
}

kernels_with_headers() {
	local k

	for k in /lib/modules/*/build/Makefile; do
		[ -e "$k" ] || continue
		k=${k%/build/Makefile}
		echo "${k##*/}"
	done
}

install_modules() {
	local k log

	if dkms_added; then
		echo "make install: replacing $name $version in DKMS"
		dkms remove -m "$name" -v "$version" --all
	fi
	dkms add -m "$name" -v "$version"
	log=$(dkms_tree)/$name/$version/build/make.log
	for k in $kernels; do
		dkms install -m "$name" -v "$version" -k "$k" ||
			die "DKMS could not build or install the modules for $k: its build log is $log"
	done
}

if [ "$action" = install ]; then
	kernels=${DKMS_KERNELS:-$(kernels_with_headers)}
	[ -n "$destdir" ] || [ -n "$kernels" ] ||
		die "no kernel headers in /lib/modules/*/build: apt-get install linux-headers-$(uname -r)"
	install -D -m 755 "${SLCTL:?}" "$bindir/slctl"
	install -D -m 755 "${LSM_BENCH_DEV:?}" "$bindir/lsm_bench_dev"
	for p in "${programs[@]}"; do
		install -D -m 644 "${MAN_DIR:?}/$p.1" "$man1/$p.1"
	done
	for h in "${headers[@]}"; do
		install -D -m 644 "$top/$h" "$incdir/$(basename "$h")"
	done
	install_sources
	if [ -n "$destdir" ]; then
		echo "make install: staged in $destdir (no dkms run)"
	else
		install_modules
		echo "make install: $name $version: modules for" $kernels "by DKMS, programs in $bindir"
	fi
	exit 0
fi

if [ -z "$destdir" ] && dkms_added; then
	dkms remove -m "$name" -v "$version" --all
fi
rm -rf "$src"
for p in "${programs[@]}"; do
	rm -f "$bindir/$p" "$man1/$p.1"
done
for h in "${headers[@]}"; do
	rm -f "$incdir/$(basename "$h")"
done
rmdir "$incdir" 2>/dev/null || true
echo "make uninstall: $name $version removed${destdir:+ from $destdir}"
