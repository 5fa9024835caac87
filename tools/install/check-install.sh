#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-install: make install and make uninstall into a scratch
# DESTDIR on the host, so that nothing outside it changes.  Fails unless
#  - every file lands where Documentation/install.rst says, the DKMS
#    source tree with its dkms.conf at the VERSION file's version;
#  - each program runs, and man --warnings and groff -ww render its page
#    without a word;
#  - a program that includes the three uapi headers and uses an ioctl
#    of each builds, as C and as C++, with -I the staged include
#    directory alone, and takes the headers from there;
#  - a real install (no DESTDIR) refuses with its one line without root
#    and without dkms;
#  - make uninstall leaves nothing in DESTDIR.
# The real install, with dkms, is make check-dkms's (in a mount namespace
# whose writes vanish), and modprobe of what it installed check-vm's.
#
# The Makefile gives the environment of tools/install/install.sh, with
# DESTDIR the scratch directory.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
stage=${DESTDIR:?DESTDIR: the scratch directory}
prefix=${PREFIX:-/usr}
version=$(cat "$top/VERSION")
install_sh=$top/tools/install/install.sh
work=$stage.work
fail=0
bad() {
	echo "check-install: $*" >&2
	fail=1
}

rm -rf "$stage" "$work"
mkdir -p "$work"
"$install_sh" install > "$work/install.log" ||
	{ cat "$work/install.log"; echo "check-install: make install DESTDIR=$stage failed" >&2; exit 1; }

src=/usr/src/skiplist-$version
for f in "$prefix/bin/slctl" "$prefix/bin/lsm_bench_dev" \
	 "$prefix/share/man/man1/slctl.1" "$prefix/share/man/man1/lsm_bench_dev.1" \
	 "$prefix/include/skiplist/skiplist_dev.h" \
	 "$prefix/include/skiplist/sl_extent_dev.h" \
	 "$prefix/include/skiplist/sl_lsm_dev.h" \
	 "$src/dkms.conf" "$src/Kbuild" "$src/VERSION" "$src/skiplist/Kbuild"; do
	[ -f "$stage$f" ] || bad "make install put no $f"
done
grep -qx "PACKAGE_VERSION=\"$version\"" "$stage$src/dkms.conf" ||
	bad "$src/dkms.conf does not say PACKAGE_VERSION=\"$version\""

for p in slctl lsm_bench_dev; do
	"$stage$prefix/bin/$p" --help > /dev/null || bad "$p --help exited $?"
	page=$stage$prefix/share/man/man1/$p.1
	# man's --warnings sends groff's warnings to stderr, as groff -ww does.
	w=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 > /dev/null)
	[ -z "$w" ] || bad "man --warnings -l $p.1: $w"
	w=$(groff -ww -man -z "$page" 2>&1)
	[ -z "$w" ] || bad "groff -ww $p.1: $w"
	text=$(MANWIDTH=80 man -l "$page" 2>/dev/null)
	[[ $text == *$'\nOPTIONS\n'* ]] || bad "$p.1 renders without its OPTIONS"
done

# One ioctl number and one structure of each header, as a user would.
cat > "$work/uapi_user.c" <<'EOF'
#include <string.h>
#include <skiplist/skiplist_dev.h>
#include <skiplist/sl_extent_dev.h>
#include <skiplist/sl_lsm_dev.h>

int main(void)
{
	unsigned long cmds[] = { SL_IOC_INSERT, SL_EM_IOC_ADD, SL_LSM_IOC_PUT };
	struct sl_ioc_insert i;
	struct sl_em_ioc_add a;
	struct sl_lsm_ioc_put p;

	memset(&i, 0, sizeof(i));
	memset(&a, 0, sizeof(a));
	memset(&p, 0, sizeof(p));
	return (cmds[0] + cmds[1] + cmds[2] == 0) + (int)i.key +
	       (int)a.flags + (int)p.key;
}
EOF
inc=$stage$prefix/include
for lang in "gcc -x c -std=c11" "g++ -x c++ -std=c++17"; do
	if ! $lang -Wall -Wextra -Werror -pedantic -I"$inc" -MD -MF "$work/deps" \
		-o "$work/uapi_user" "$work/uapi_user.c" 2> "$work/cc.log"; then
		bad "a program using the installed headers does not build (${lang%% *}): $(head -5 "$work/cc.log")"
		continue
	fi
	for h in skiplist_dev.h sl_extent_dev.h sl_lsm_dev.h; do
		grep -q "$inc/skiplist/$h" "$work/deps" ||
			bad "${lang%% *} took $h from elsewhere than $inc"
	done
done

# A real install: without root, then as root without dkms on the PATH
# (dkms is /usr/sbin's); each must stop before it changes anything.
refusal() {	# expected message, command...
	local want=$1 out
	shift
	if out=$("$@" 2>&1); then
		bad "'$*' succeeded: expected '$want'"
	elif [ "$out" != "$want" ]; then
		bad "'$*' said '$out', expected '$want'"
	fi
}
real_env=(env -u DESTDIR PREFIX="$stage/refused")
refusal "make install: needs root: run it as root or with sudo, or give DESTDIR=DIR to stage the files" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "${real_env[@]}" "$install_sh" install
if [ "$(id -u)" = 0 ]; then
	refusal "make install: dkms is not installed: apt-get install dkms (make setup installs it)" \
		"${real_env[@]}" PATH=/usr/bin:/bin "$install_sh" install
else
	echo "check-install: not root: the refusal without dkms is not checked"
fi
[ ! -e "$stage/refused" ] || bad "a refused install still wrote $stage/refused"

"$install_sh" uninstall > "$work/uninstall.log" ||
	{ cat "$work/uninstall.log"; bad "make uninstall DESTDIR=$stage failed"; }
left=$(find "$stage" -type f -o -type l)
[ -z "$left" ] || bad "make uninstall left: $left"

[ $fail -eq 0 ] || exit 1
rm -rf "$stage" "$work"
echo "check-install: make install and uninstall with DESTDIR: files, man pages, uapi headers (C and C++) and refusals as documented"
