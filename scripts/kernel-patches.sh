#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export build/linux base..HEAD to kernel/patches/NNNN-subject.patch in a
# stable form: no version signature, zeroed "From <sha>" lines, files written
# only when their content changed, stale patches removed. An empty base..HEAD
# empties the series.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${USTACK_KTREE:-$top/build/linux}
out=${USTACK_PATCHES:-$top/kernel/patches}

die() { echo "kernel-patches: $*" >&2; exit 1; }

[ -d "$tree/.git" ] || die "build/linux missing: run 'make kernel-tree'"
git -C "$tree" rev-parse -q --verify base >/dev/null || die "build/linux has no 'base' tag"
if [ -n "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; then
	echo "kernel-patches: WARNING: build/linux has uncommitted changes; they are not exported" >&2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$tree" format-patch -q --no-signature --zero-commit --no-cover-letter \
	--no-numbered --full-index -o "$tmp" base..HEAD

mkdir -p "$out"
changed=0
for f in "$out"/*.patch; do
	[ -e "$f" ] || continue
	if [ ! -e "$tmp/$(basename "$f")" ]; then
		rm -f "$f"
		changed=$((changed + 1))
	fi
done
for f in "$tmp"/*.patch; do
	[ -e "$f" ] || continue
	if ! cmp -s "$f" "$out/$(basename "$f")"; then
		cp "$f" "$out/"
		changed=$((changed + 1))
	fi
done
n=$(find "$out" -name '*.patch' | wc -l)
echo "kernel-patches: $n patch(es) in kernel/patches, $changed file(s) changed"
