#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-dkms: the real make install and make uninstall, as root,
# with DKMS, on the host, in a mount namespace of its own whose writes
# all land on a tmpfs (tools/install/sandbox.sh) and vanish with it, so
# the host is left as it was.  Natively, DKMS builds the modules for
# both kernels in a minute or two; in a guest under emulation one build
# had not finished after 20 minutes (Documentation/install.rst).  Checks:
#  - a build that fails (headers whose make fails) says where its log
#    is, and the log is there;
#  - make install DKMS_KERNELS=<6.1>: dkms add, build and install;
#  - a kernel update: the kernel package's hook,
#    /etc/kernel/postinst.d/dkms <6.12>, builds and installs them for
#    6.12 (AUTOINSTALL);
#  - for each kernel, every module dkms.conf names is where modprobe
#    finds it (updates/dkms), at the VERSION file's version, and
#    modules.dep has skiplist_dev pull in skiplist and sl_lsm pull in
#    libcrc32c;
#  - make uninstall: dkms status empty, and nothing left behind in
#    /usr/src, /lib/modules, /var/lib/dkms, /usr/bin, /usr/share/man,
#    /usr/include, /etc and /boot but DKMS's own signing key.
# Before the uninstall, what the install changed in /lib/modules is saved
# in build/dkms/lib-modules: check-vm's guests lay it over their own
# /lib/modules, load the modules with modprobe and run the kernel suite on
# them (tools/vm/guest-dkms.sh says why the guests do not run dkms).
#
#   tools/install/check-dkms.sh KREL_6.1 KREL_6.12
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
k61=${1:?usage: check-dkms.sh KREL_6.1 KREL_6.12}
k612=${2:?usage: check-dkms.sh KREL_6.1 KREL_6.12}
build=$top/build
out=$build/dkms
version=$(cat "$top/VERSION")
name=skiplist

if [ "${SL_DKMS_INSIDE:-}" != 1 ]; then
	[ "$(id -u)" = 0 ] || { echo "check-dkms: needs root (a mount namespace, and dkms)" >&2; exit 1; }
	command -v dkms > /dev/null ||
		{ echo "check-dkms: dkms is not installed: run 'make setup'" >&2; exit 1; }
	SL_DKMS_INSIDE=1 exec unshare --mount --propagation private "$0" "$@"
fi

. "$top/tools/install/sandbox.sh"
fail=0
bad() {
	echo "check-dkms: $*" >&2
	fail=1
}

# A DKMS build log lives in the sandbox and vanishes with it: keep a copy
# in build/dkms, and show its end, so a failure can be read afterwards.
dkms_log() {
	local log
	log=$(sed -n 's/^make install: DKMS could not build.*its build log is //p; s/^Consult \(.*make.log\) for more.*/\1/p' "$1" | tail -1)
	[ -n "$log" ] && [ -f "$log" ] || return 0
	cp "$log" "$out/make.log"
	echo "check-dkms: the end of DKMS's build log (kept in $out/make.log):" >&2
	tail -40 "$log" >&2
}

rm -rf "$out"
mkdir -p "$out"
# Not /tmp: the tree itself may be there (a clone in /tmp), and its build/
# must keep what this leaves for check-vm.
sandboxed=(/usr/src /usr/lib/modules /var/lib/dkms /usr/bin /usr/share/man
	   /usr/include /etc /boot)
for d in "${sandboxed[@]}"; do
	case "$top/" in
	"$d"/*) echo "check-dkms: the tree is under $d, which the sandbox covers" >&2; exit 1 ;;
	esac
done
sandbox_begin "$build/dkms-sandbox" "${sandboxed[@]}"
trap sandbox_end EXIT

# First a build that fails, on a kernel whose build directory's make
# fails: it must say where its log is.  (The install after it then also
# shows that installing again replaces what was added.)
fake=9.9.9-check-dkms
mkdir -p "/usr/lib/modules/$fake/build/include"
printf 'modules clean:\n\t@echo "check-dkms: this kernel fails every build" >&2; exit 1\n' \
	> "/usr/lib/modules/$fake/build/Makefile"
touch "/usr/lib/modules/$fake/build/.config"
if msg=$(make -C "$top" --no-print-directory install DKMS_KERNELS="$fake" 2>&1); then
	bad "make install for a kernel whose build fails succeeded"
else
	log=$(echo "$msg" | sed -n 's/^make install: DKMS could not build.*its build log is //p')
	if [ -z "$log" ]; then
		bad "a failed DKMS build did not say where its log is: $(echo "$msg" | tail -3)"
	elif ! grep -q 'this kernel fails every build' "$log"; then
		bad "the log a failed DKMS build names ($log) does not hold its failure"
	fi
fi
rm -rf "/usr/lib/modules/$fake"

t=$(date +%s)
make -C "$top" --no-print-directory install DKMS_KERNELS="$k61" > "$out/install.log" 2>&1 ||
	{ tail -20 "$out/install.log"; dkms_log "$out/install.log"; bad "make install failed ($out/install.log)"; exit 1; }
echo "check-dkms: make install for $k61 took $(( $(date +%s) - t )) s"
t=$(date +%s)
/etc/kernel/postinst.d/dkms "$k612" > "$out/postinst.log" 2>&1 ||
	{ tail -20 "$out/postinst.log"; dkms_log "$out/postinst.log"; bad "the kernel's postinst hook failed ($out/postinst.log)"; exit 1; }
echo "check-dkms: /etc/kernel/postinst.d/dkms $k612 took $(( $(date +%s) - t )) s"

for k in "$k61" "$k612"; do
	st=$(dkms status -m "$name" -v "$version" -k "$k" 2>/dev/null)
	[[ $st == *": installed"* ]] || bad "dkms status for $k: $st"
	modules=$(kernel_config=/lib/modules/$k/build/.config bash -c \
		'. "$1"; echo "${BUILT_MODULE_NAME[@]}"' dkms-conf "$top/dkms.conf")
	for m in $modules; do
		path=$(modinfo -k "$k" -n "$m" 2>/dev/null) || { bad "$k: modprobe finds no $m"; continue; }
		case "$path" in
		/lib/modules/$k/updates/dkms/$m.ko*) ;;
		*) bad "$k: $m is $path, not DKMS's" ;;
		esac
		[ "$(modinfo -k "$k" -F version "$m")" = "$version" ] ||
			bad "$k: $m is not version $version"
	done
	[[ $(modprobe -S "$k" --show-depends skiplist_dev) == *"/updates/dkms/skiplist.ko"* ]] ||
		bad "$k: modules.dep: skiplist_dev does not pull in skiplist"
	[[ $(modprobe -S "$k" --show-depends sl_lsm) == *"/libcrc32c.ko"* ]] ||
		bad "$k: modules.dep: sl_lsm does not pull in libcrc32c"
done
# What DKMS put in /lib/modules for both kernels (its modules in
# updates/dkms, and depmod's modules.dep and the rest), for check-vm's
# guests to lay over their own /lib/modules.
cp -a "$(sandbox_upper /usr/lib/modules)" "$out/lib-modules"
[ -z "$(find "$out/lib-modules" -type c)" ] ||
	bad "the install removed something from /lib/modules: $(find "$out/lib-modules" -type c)"


make -C "$top" --no-print-directory uninstall > "$out/uninstall.log" 2>&1 ||
	{ tail -20 "$out/uninstall.log"; bad "make uninstall failed ($out/uninstall.log)"; }
st=$(dkms status -m "$name" 2>/dev/null)
[ -z "$st" ] || bad "dkms status after uninstall: $st"
# DKMS makes its signing key the first time it signs a module and keeps it
# for every later DKMS package (it is what Secure Boot users enroll).
left=$(sandbox_leftovers | grep -vE '^left behind: /var/lib/dkms/mok\.(key|pub)$' || true)
[ -z "$left" ] || bad "make uninstall left the system changed:"$'\n'"$left"

[ $fail -eq 0 ] || exit 1
echo "check-dkms: make install and uninstall with DKMS for $k61 and, by the kernel's hook, $k612: clean; build/dkms/lib-modules for the guests"
