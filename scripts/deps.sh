#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages ustack needs; only the missing ones, with one
# 'apt-get update' first. Idempotent: a no-op when everything is there.
set -eu

pkgs="
	linux-source-6.12 build-essential gcc-multilib make bc bison flex cpio xz-utils
	libssl-dev libelf-dev libdw-dev libc6-dbg libdebuginfod-dev libiberty-dev zlib1g-dev liblzma-dev dwarves kmod python3 python3-ply perl rsync git ccache
	qemu-system-x86 busybox-static
	trace-cmd libtracefs-dev libtraceevent-dev libtracecmd-dev libcunit1-dev pkg-config time strace
	clang libclang-rt-14-dev
	kernelshark libkshark-dev libjson-c-dev qtbase5-dev libgl-dev libglu1-mesa-dev valgrind
	xvfb xauth xdotool x11-apps imagemagick chromium gnuplot-nox
	debhelper dpkg-dev fakeroot lintian bash-completion linux-config-6.12 fuse-overlayfs
	protobuf-c-compiler libprotobuf-c-dev protobuf-compiler python3-protobuf golang-go
"

missing=
for p in $pkgs; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "deps: installing:$missing"
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "deps: missing packages:$missing; run as root or install them" >&2
		exit 1
	fi
else
	SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get update -qq; then
	echo "deps: apt-get update failed: no package lists, cannot install:$missing" >&2
	exit 1
fi
# shellcheck disable=SC2086
if ! $SUDO apt-get install -y -qq --no-install-recommends $missing >/tmp/ustack-deps.log 2>&1; then
	tail -n 20 /tmp/ustack-deps.log >&2
	echo "deps: apt-get install failed for:$missing (log: /tmp/ustack-deps.log)" >&2
	exit 1
fi
echo "deps: done"
