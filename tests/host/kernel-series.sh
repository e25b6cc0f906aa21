#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel series workflow on a tiny stand-in for linux-source-6.12:
# extract + base tag, apply the series, export it stably (empty and
# one-patch series), remake on a new Debian version, and fail naming a
# patch that no longer applies.
. "$(dirname "$0")/../lib/result.sh"

w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export USTACK_KTREE=$w/linux USTACK_PATCHES=$w/patches USTACK_KSRC_TARBALL=$w/src.tar.xz
export USTACK_KSRC_VERSION=1.0 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t
tree() { "$USTACK_TOP/scripts/kernel-tree.sh" "$@"; }
export_series() { "$USTACK_TOP/scripts/kernel-patches.sh"; }

mkdir -p "$w/src/linux-source-6.12/kernel" "$w/patches"
printf 'int x;\n' > "$w/src/linux-source-6.12/kernel/a.c"
printf '*.o\n#\n# Debian packaging: ignore everything at the top level\n#\n/*\n!/debian/\n' > "$w/src/linux-source-6.12/.gitignore"
tar -C "$w/src" -cJf "$USTACK_KSRC_TARBALL" linux-source-6.12

check "empty series: tree made" tree
check "empty series: base tag" git -C "$USTACK_KTREE" rev-parse -q --verify base
check "empty series: exports nothing" sh -c "'$USTACK_TOP/scripts/kernel-patches.sh' >/dev/null && [ -z \"\$(ls '$USTACK_PATCHES')\" ]"

printf 'int y;\n' > "$USTACK_KTREE/kernel/b.c"
check "new files are visible to git" sh -c "git -C '$USTACK_KTREE' status --porcelain | grep -q 'kernel/b.c'"
git -C "$USTACK_KTREE" add kernel/b.c
git -C "$USTACK_KTREE" commit -q -m "kernel: add b" -m "Adds b."
export_series >/dev/null
check "one-patch series exported" test "$(ls "$USTACK_PATCHES")" = "0001-kernel-add-b.patch"
check "no version signature, zeroed From" sh -c "! grep -q '^-- \$' '$USTACK_PATCHES'/0001*.patch && head -n 1 '$USTACK_PATCHES'/0001*.patch | grep -q '^From 0000000000000000000000000000000000000000'"
sum=$(md5sum "$USTACK_PATCHES"/*.patch)
out=$(export_series)
check "re-export without changes changes nothing" sh -c "[ '$sum' = \"\$(md5sum '$USTACK_PATCHES'/*.patch)\" ] && echo '$out' | grep -q ', 0 file(s) changed'"

check "reset re-applies the series" tree --reset
check "the series is in the tree after a reset" test -f "$USTACK_KTREE/kernel/b.c"
USTACK_KSRC_VERSION=2.0 tree >/dev/null 2>&1
check "new Debian version: tree remade, series applied" sh -c "[ \"\$(cat '$USTACK_KTREE/.git/ustack-source-version')\" = 2.0 ] && [ -f '$USTACK_KTREE/kernel/b.c' ]"

# A new source where the patch no longer applies: fails naming it.
printf 'int y;\n' > "$w/src/linux-source-6.12/kernel/b.c"
tar -C "$w/src" -cJf "$USTACK_KSRC_TARBALL" linux-source-6.12
out=$(USTACK_KSRC_VERSION=3.0 tree 2>&1)
rc=$?
if [ $rc != 0 ] && echo "$out" | grep -q '0001-kernel-add-b.patch does not apply'; then
	pass "a patch that no longer applies fails, named"
else
	fail "a patch that no longer applies fails, named" "exit $rc: $out"
fi

rm -f "$USTACK_PATCHES"/*.patch
rm -rf "$USTACK_KTREE"
check "empty series after removing it: tree made" tree
finish
