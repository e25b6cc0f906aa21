#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the user-space Debian packages (debian/, docs/packages.md) into
# build/deb, built from a copy of HEAD (build/deb/src/ustack-VERSION, so
# that nothing of the build is left in the clone, uncommitted work is not
# packaged, and the packages get Debian's flags, not the objects of build/),
# then checked by lintian: any error (E:) fails it. VERSION is the library's
# with the date and commit of HEAD (1.2.0+git20261129.c3a2562): a native
# package, binary only.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=${USTACK_DEB_OUT:-$top/build/deb}

die() { echo "deb-build: $*" >&2; exit 1; }

# HEAD once: another engineer may commit while this runs
commit=$(git -C "$top" rev-parse HEAD)
# the library's version as HEAD has it (the work tree's, for USTACK_DEB_WORKTREE=1)
if [ "${USTACK_DEB_WORKTREE:-0}" = 1 ]; then
	libmk=$(cat "$top/libtracefs-ext/Makefile")
else
	libmk=$(git -C "$top" show "$commit:libtracefs-ext/Makefile")
fi
libver=$(echo "$libmk" | sed -n 's/^VERSION[[:space:]]*:= *\$(VERSION_MAJOR)\(\.[0-9.]*\)$/\1/p')
major=$(echo "$libmk" | sed -n 's/^VERSION_MAJOR[[:space:]]*:= *\([0-9]*\)$/\1/p')
[ -n "$major" ] && [ -n "$libver" ] || die "no VERSION in libtracefs-ext/Makefile"
version=$major$libver+git$(git -C "$top" log -1 --format=%cd --date=format:%Y%m%d "$commit").$(git -C "$top" rev-parse --short=7 "$commit")

src=$out/src/ustack-$version
rm -rf "$out/src"
mkdir -p "$src"
# the files of HEAD, without the kernel series and the tests: the packages
# are of the commit their version names, whatever else the work tree holds
# (USTACK_DEB_WORKTREE=1: the work tree's files instead, tracked and new)
if [ "${USTACK_DEB_WORKTREE:-0}" = 1 ]; then
	git -C "$top" ls-files -z --cached --others --exclude-standard -- . \
		':!kernel' ':!tests' ':!build' |
		(cd "$top" && xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh) |
		tar -C "$top" --null -T - -cf - | tar -C "$src" -xf -
	version=$version.worktree
	mv "$src" "$out/src/ustack-$version"
	src=$out/src/ustack-$version
else
	git -C "$top" archive --format=tar "$commit" -- . ':!kernel' ':!tests' | tar -C "$src" -xf -
fi

cat >"$src/debian/changelog" <<EOC
ustack ($version) bookworm; urgency=medium

  * Snapshot of $commit, built by make deb.

 -- ustack developers <dev@ustack.invalid>  $(git -C "$top" log -1 --format=%cD "$commit")
EOC

echo "deb-build: building ustack $version in ${src#$top/}"
rm -f "$out"/*.deb "$out"/*.ddeb "$out"/*.changes "$out"/*.buildinfo
log=$out/build.log
if ! (cd "$src" && dpkg-buildpackage -b --no-sign -j"$(nproc)") >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "dpkg-buildpackage failed (log: ${log#$top/})"
fi
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out"/
mv "$out"/src/*.ddeb "$out"/ 2>/dev/null || true
changes=$(ls "$out"/*.changes)
# the .changes names the files where they are now
echo "deb-build: lintian"
if ! lintian --fail-on error --info "$changes" >"$out/lintian.log" 2>&1; then
	cat "$out/lintian.log" >&2
	die "lintian found errors (log: ${out#$top/}/lintian.log)"
fi
sed 's/^/  /' "$out/lintian.log"
ls "$out"/*.deb | sed "s|^$top/|deb-build: |"
