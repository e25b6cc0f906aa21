#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's Debian package (make deb-kernel, which make check runs after
# make deb; docs/packages.md): lintian found no error (kernel-deb.sh's
# log); it holds /boot/vmlinuz, config and System.map of its release and
# nothing outside /boot, its /lib/modules and its doc directory; and the vmlinuz unpacked from it (dpkg-deb -x, no
# install) boots in QEMU (scripts/guest-run.sh --kernel, as a user: no
# root, nothing of the host touched) as that release, the package's build,
# where the guest test of the deferred stacks passes. Not built: SKIP, FAIL
# under make check (USTACK_DEB_REQUIRED=1).
. "$(dirname "$0")/../lib/result.sh"

top=$USTACK_TOP
out=$top/build/deb/kernel
kdeb=$(ls "$out"/linux-image-*_amd64.deb 2>/dev/null | head -n 1)
if [ -z "$kdeb" ]; then
	if [ "${USTACK_DEB_REQUIRED:-0}" = 1 ]; then
		fail "the kernel's package" "no build/deb/kernel/linux-image-*.deb (build/deb-kernel.log)"
	else
		skip "the kernel's package" "not built (make deb-kernel)"
	fi
	finish
fi
pkg=$(dpkg-deb -f "$kdeb" Package)
release=${pkg#linux-image-}
version=$(dpkg-deb -f "$kdeb" Version)
check "lintian: no error in $(basename "$kdeb") ($(grep -c '^W:' "$out/lintian.log" 2>/dev/null) warnings)" \
	sh -c "test -s '$out/lintian.log' && ! grep -q '^E:' '$out/lintian.log'"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dpkg-deb -c "$kdeb" | awk '$1 !~ /^d/ { print $6 }' | sort > "$work/files"
other=$(grep -v -e "^\./boot/[^/]*-$release\$" -e "^\./lib/modules/$release/" \
	-e "^\./usr/share/doc/$pkg/" "$work/files" | tr '\n' ' ')
check "$pkg holds /boot's vmlinuz, config and System.map of $release" sh -c \
	"grep -qx ./boot/vmlinuz-$release '$work/files' && grep -qx ./boot/config-$release '$work/files' &&
	 grep -qx ./boot/System.map-$release '$work/files'"
check "and no file outside /boot, /lib/modules/$release and its doc directory${other:+ ($other)}" \
	test -z "$other"
check "its config has deferred user stacks" sh -c \
	"dpkg-deb --fsys-tarfile '$kdeb' | tar -xOf - ./boot/config-$release | grep -qx CONFIG_USER_STACKTRACE_DEFERRED=y"

# boot it: the packaged vmlinuz, the guest test of deferred stacks
dpkg-deb -x "$kdeb" "$work/root"
"$top/scripts/guest-run.sh" --kernel "$work/root/boot/vmlinuz-$release" --timeout 300 -- \
	"uname -rv; bash $top/tests/guest/deferred-stack.sh" > "$work/boot.log" 2>&1
rc=$?
booted=$(grep -m 1 "^$release " "$work/boot.log")
check "the packaged vmlinuz boots as $release, the package's build ($booted)" \
	sh -c "echo '$booted' | grep -q '^$release #${version##*-} '"
passed=$(grep -c '^PASS:' "$work/boot.log")
failed=$(grep -c '^FAIL:' "$work/boot.log")
check "and deferred user stacks work on it: tests/guest/deferred-stack.sh, $passed passed, $failed failed (exit $rc)" \
	test "$passed" -gt 0 -a "$failed" = 0 -a "$rc" = 0
[ "$failed" = 0 ] || grep '^FAIL:' "$work/boot.log" | head -n 5
finish
