#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What an installed module shows its user, checked on the modules one
# kernel's build made (make check-kernel runs it for 6.1 and 6.12):
#  - dkms.conf names exactly the modules the Kbuild files built, so that
#    DKMS neither misses one nor fails on one this kernel does not get;
#  - modinfo of each shows a license, an author, a description and the
#    VERSION file's version, and every parameter (parmtype) has a
#    description (parm, from MODULE_PARM_DESC).
#
#   tools/install/check-modules.sh KMOD_DIR KERNEL_BUILD_DIR
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kmod=${1:?usage: check-modules.sh KMOD_DIR KERNEL_BUILD_DIR}
kbuild=${2:?usage: check-modules.sh KMOD_DIR KERNEL_BUILD_DIR}
version=$(cat "$top/VERSION")
fail=0
bad() {
	echo "check-modules: $*" >&2
	fail=1
}

# dkms.conf, read the way DKMS reads it (sourced, with $kernel_config).
listed=$(kernel_config=$kbuild/.config bash -c '
	. "$1"
	for i in "${!BUILT_MODULE_NAME[@]}"; do
		echo "${BUILT_MODULE_LOCATION[$i]%/}/${BUILT_MODULE_NAME[$i]}"
	done' dkms-conf "$top/dkms.conf" | sort)
built=$(cd "$kmod" && find . -name '*.ko' -printf '%P\n' | sed 's/\.ko$//' | sort)
[ -n "$built" ] || { echo "check-modules: no modules in $kmod: build them first" >&2; exit 1; }
while read -r m; do
	bad "$m.ko is built but dkms.conf does not name it"
done < <(comm -13 <(echo "$listed") <(echo "$built") | grep .)
while read -r m; do
	bad "dkms.conf names $m.ko, which this kernel's build did not make"
done < <(comm -23 <(echo "$listed") <(echo "$built") | grep .)

modules=0 params=0
for m in $built; do
	ko=$kmod/$m.ko
	modules=$((modules + 1))
	for field in license author description; do
		[ -n "$(modinfo -F "$field" "$ko")" ] || bad "$m.ko: no MODULE_${field^^}"
	done
	v=$(modinfo -F version "$ko")
	[ "$v" = "$version" ] || bad "$m.ko: version '$v', not VERSION's '$version'"
	# parmtype lists every parameter; modinfo -F parm prints each as
	# "NAME:DESCRIPTION (TYPE)", with nothing before " (TYPE)" when
	# MODULE_PARM_DESC is missing.
	parms=$(modinfo -F parm "$ko")
	while IFS=: read -r name type; do
		params=$((params + 1))
		line=$(grep -m1 "^$name:" <<< "$parms" || true)
		desc=${line#"$name:"}
		desc=${desc%" ($type)"}
		[ -n "${desc// /}" ] || bad "$m.ko: parameter $name has no MODULE_PARM_DESC"
	done < <(modinfo -F parmtype "$ko")
done
[ $fail -eq 0 ] || exit 1
echo "check-modules: $(basename "$kmod"): dkms.conf names the $modules modules built;" \
	"each has license, author, description, version $version; $params parameters, each described"
