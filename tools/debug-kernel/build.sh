#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds debug kernel A or B from Debian's linux-source-6.1, or finds it
# already built, and prints its build directory as the last line.
#
#   tools/debug-kernel/build.sh [--cached] a|b
#
# With --cached it builds nothing: it prints the build directory if the
# kernel is already built, and fails otherwise.
#
# The configuration is tinyconfig plus base.config plus debug-<a|b>.config;
# every option the fragments ask for is checked in the result, since some
# drop out silently when a dependency is missing.  Builds are cached outside
# the checkout, in $SL_DEBUG_KERNEL_CACHE (default
# /var/cache/skiplist-debug-kernels), keyed by the source package version,
# the fragments and the compiler, so a second run on the same machine
# reuses them.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cached_only=no
if [ "${1:-}" = --cached ]; then
	cached_only=yes
	shift
fi
variant=${1:-}
case "$variant" in
a|b) ;;
*) echo "usage: $0 [--cached] a|b" >&2; exit 2 ;;
esac
tarball=/usr/src/linux-source-6.1.tar.xz
if [ ! -f "$tarball" ] && [ $cached_only = yes ]; then
	echo "build.sh: debug kernel $variant not built (no linux-source-6.1)" >&2
	exit 1
fi
if [ ! -f "$tarball" ]; then
	echo "build.sh: $tarball missing: run 'make setup'" >&2
	exit 1
fi
for tool in bc flex bison; do
	command -v "$tool" >/dev/null || {
		echo "build.sh: $tool missing: run 'make setup'" >&2
		exit 1
	}
done

cache=${SL_DEBUG_KERNEL_CACHE:-/var/cache/skiplist-debug-kernels}
srcver=$(dpkg-query -W -f '${Version}' linux-source-6.1)
key=$( { cat "$here/base.config" "$here/debug-$variant.config"; gcc --version | head -1; } |
      sha256sum | cut -c1-12)
src=$cache/src-$srcver
out=$cache/$variant-$srcver-$key
log=$out.log

if [ -f "$out/.built" ]; then
	echo "build.sh: debug kernel $variant cached in $out" >&2
	echo "$out"
	exit 0
fi
if [ $cached_only = yes ]; then
	echo "build.sh: debug kernel $variant not built in $out" >&2
	exit 1
fi

mkdir -p "$cache"
if [ ! -f "$src/.extracted" ]; then
	echo "build.sh: extracting linux-source $srcver into $src" >&2
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.extracted"
	mv "$src.tmp" "$src"
fi

rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
echo "build.sh: configuring debug kernel $variant in $out (log: $log)" >&2
{
	make -C "$src" O="$out" ARCH=x86_64 tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"$here/base.config" "$here/debug-$variant.config"
	make -C "$src" O="$out" ARCH=x86_64 olddefconfig
} > "$log" 2>&1

missing=$(cat "$here/base.config" "$here/debug-$variant.config" |
	  sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=\(.*\)$/\1=\2/p' |
	  while read -r want; do
		  grep -qx "$want" "$out/.config" || echo "$want"
	  done)
if [ -n "$missing" ]; then
	echo "build.sh: the configuration lost options the fragments ask for:" >&2
	echo "$missing" >&2
	exit 1
fi

echo "build.sh: building debug kernel $variant with -j$(( $(nproc) + 1 ))" >&2
if ! make -C "$src" O="$out" ARCH=x86_64 -j$(( $(nproc) + 1 )) bzImage modules \
	>> "$log" 2>&1; then
	tail -30 "$log" >&2
	echo "build.sh: kernel build failed; log: $log" >&2
	exit 1
fi
touch "$out/.built"
echo "build.sh: debug kernel $variant built in $(( $(date +%s) - start )) s" >&2
echo "$out"
