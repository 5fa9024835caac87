#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Installs everything the build, the tests and the benchmarks need on
# Debian 12, and nothing twice: packages already present are left alone.
# Prints what it installed.  Needs root (or sudo) only when something is
# missing.
set -euo pipefail

# The newest Debian 12 6.12 release whose headers and kernel image can
# both be installed, unless some 6.12 headers are installed already; the
# image is Debian's signed one, or its -unsigned build where the signed
# one is not published yet (as for 6.12.118 on 2026-12-02).  Prints the
# two package names.
# Without a pipe into grep -q, which pipefail would fail on SIGPIPE.
installable() {
	local out
	out=$(dpkg-query -W -f '${Status}' "$1" 2>/dev/null || true)
	[ "$out" = "install ok installed" ] && return 0
	out=$(apt-cache policy "$1" 2>/dev/null || true)
	[[ $out == *"Candidate: "[0-9]* ]]
}
kernel_612() {
	local have rel image
	have=$(dpkg-query -W -f '${Package} ${Status}\n' 'linux-headers-6.12.*-amd64' 2>/dev/null |
	       awk '/install ok installed/ && $1 !~ /cloud|rt/ {print $1}' | sort -V | tail -1)
	for rel in $(if [ -n "$have" ]; then echo "${have#linux-headers-}"; else
			apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
			awk '{print $1}' | sed 's/^linux-headers-//' | sort -rV; fi); do
		for image in "linux-image-$rel" "linux-image-$rel-unsigned"; do
			if installable "$image"; then
				echo "linux-headers-$rel $image"
				return
			fi
		done
	done
}

as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		echo "setup: need root to run: $*" >&2
		echo "setup: run 'make setup' as root, or install sudo" >&2
		exit 1
	fi
}

if ! command -v apt-get >/dev/null || ! grep -q 'VERSION_ID="12"' /etc/os-release 2>/dev/null; then
	echo "setup: this project targets Debian 12 (apt); install by hand:" >&2
	echo "  gcc g++ make sparse liburcu-dev libtbb-dev libcds-dev python3-matplotlib" >&2
	echo "  rocksdb-tools librocksdb-dev (RocksDB 7.8.3: db_bench and its library)" >&2
	echo "  linux-headers for 6.1 and 6.12, linux-source-6.1" >&2
	echo "  python3-sphinx python3-sphinx-rtd-theme graphviz (make htmldocs)" >&2
	exit 1
fi

pkgs=(build-essential make gcc g++ xz-utils perl python3 python3-matplotlib
      python3-venv sparse liburcu-dev libtbb-dev libcds-dev linux-source-6.1
      linux-headers-amd64 linux-image-amd64 qemu-system-x86 busybox-static
      bc flex bison libelf-dev libssl-dev fio valgrind
      rocksdb-tools  # RocksDB's db_bench, the peer of make bench-lsm
      librocksdb-dev  # its library, for the extent workloads' RocksDB side
      btrfs-progs  # mkfs.btrfs, btrfs check and scrub for make check-btrfs
      python3-sphinx python3-sphinx-rtd-theme  # make htmldocs and its theme
      graphviz  # dot, for the pictures of make htmldocs
      trace-cmd  # records the modules' events in check-vm (guest-observe.sh)
      dkms  # make install builds the modules with it, check-vm tests that
      file)  # virtme-ng runs file(1) on the guest's init
p612=$(kernel_612 || true)
if [ -z "$p612" ]; then
	as_root apt-get update -qq
	p612=$(kernel_612)
fi
if [ -z "$p612" ]; then
	echo "setup: no Debian 12 6.12 kernel with both headers and an image in apt" >&2
	exit 1
fi
read -r -a p612 <<<"$p612"
pkgs+=("${p612[@]}")

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "setup: all ${#pkgs[@]} packages already installed"
else
	echo "setup: installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	if ! as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
		as_root apt-get update -qq
		as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
	fi
	echo "setup: installed: ${missing[*]}"
fi

# virtme-ng (the VM runner) from PyPI, into the tree's own venv.
top=$(cd "$(dirname "$0")/.." && pwd)
venv=$top/build/venv
if [ ! -x "$venv/bin/vng" ]; then
	/usr/bin/python3 -m venv "$venv"
	"$venv/bin/pip" install -q virtme-ng
	echo "setup: installed: virtme-ng $("$venv/bin/vng" --version | awk '{print $2}') in $venv"
fi
