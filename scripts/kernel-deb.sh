#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb-kernel: the patched kernel as a Debian package, by the kernel's
# own bindeb-pkg, out of tree in build/deb/kernel/linux; the packages land
# in build/deb/kernel. build/linux and build/kernel are only read.
#   KCONFIG=guest    (default) the config make check boots: build/kernel's
#                    (tinyconfig + kernel/config/ustack.config; make kernel)
#   KCONFIG=debian   Debian's own config + kernel/config/debian.config
#                    (scripts/kernel-config-debian.sh): a kernel for a real
#                    machine, with modules and a headers package; hours on
#                    2 CPUs
# linux-image-RELEASE (RELEASE: 6.12.N-ustack), and linux-headers-RELEASE
# when the config has modules. The linux-libc-dev bindeb-pkg makes too is
# deleted: Debian's own is the one to keep. lintian checks the packages.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${USTACK_KTREE:-$top/build/linux}
out=$top/build/deb/kernel
obj=$out/linux
kconfig=${KCONFIG:-guest}
jobs=${JOBS:-$(nproc)}

die() { echo "kernel-deb: $*" >&2; exit 1; }

[ -e "$tree/.git" ] || die "$tree missing: make kernel-tree"
mkdir -p "$obj"
case $kconfig in
guest)
	[ -r "$top/build/kernel/.config" ] || die "build/kernel/.config missing: make kernel"
	cfg=$top/build/kernel/.config ;;
debian)
	"$top/scripts/kernel-config-debian.sh" "$out/config-debian"
	cfg=$out/config-debian/.config ;;
*) die "KCONFIG=$kconfig: guest or debian" ;;
esac
# The guest config: start from make kernel's objects (their .cmd files name
# the sources by absolute path and the objects relative to the build
# directory), so that only what the package's version changes is built
# again, not the whole kernel.
if [ $kconfig = guest ] && [ "$tree" = "$top/build/linux" ] &&
   [ "$top/build/kernel/vmlinux" -nt "$obj/vmlinux" ]; then
	rm -rf "$obj"
	cp -a "$top/build/kernel" "$obj"
fi
cmp -s "$cfg" "$obj/.config" || cp "$cfg" "$obj/.config"

. "$top/scripts/ccache-env.sh"
# as scripts/kernel-build.sh: the same version string, nothing rebuilt for it
export KBUILD_BUILD_USER=ustack KBUILD_BUILD_HOST=ustack
export KBUILD_BUILD_TIMESTAMP="Sat Nov 21 00:00:00 UTC 2026"
export KBUILD_BUILD_VERSION=$("$top/scripts/series-id.sh")
export DEBEMAIL=dev@ustack.invalid DEBFULLNAME="ustack developers"
# LOCALVERSION= as kernel-build.sh: no "+" for a tree with commits past its tag
kmake() { make -C "$tree" O="$obj" CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION= "$@"; }
kmake -s olddefconfig >/dev/null
release=$(kmake -s kernelrelease)
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
echo "kernel-deb: linux-image-$release ($kconfig config) with $jobs jobs"
kmake KDEB_SOURCENAME=linux-ustack KDEB_PKGVERSION="$release-1" KDEB_CHANGELOG_DIST=bookworm \
	-j"$jobs" bindeb-pkg
rm -f "$out"/linux-libc-dev_*.deb
# the .changes names the linux-libc-dev just deleted (lintian and dput stop
# there): there is no upload, so no .changes either
rm -f "$out"/*.changes
ls "$out"/*.deb | sed "s|^$top/|kernel-deb: |"
# lintian: any error fails, as make deb does; the rest in lintian.log
lintian --fail-on error "$out"/*.deb >"$out/lintian.log" 2>&1 ||
	die "lintian: errors in the packages ($out/lintian.log)"
echo "kernel-deb: lintian: no error, $(grep -c '^W:' "$out/lintian.log") warnings ($out/lintian.log)"
