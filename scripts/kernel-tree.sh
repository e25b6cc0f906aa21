#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make build/linux: Debian's linux-source-6.12 as a git tree whose first
# commit is tagged "base", with the series in kernel/patches/ applied on top.
#
#   kernel-tree.sh          create the tree if missing or made from another
#                           Debian version; otherwise leave it alone and warn
#                           when it differs from the series
#   kernel-tree.sh --reset  throw away base..HEAD and apply the series again
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# The overrides are for tests/host/kernel-series.sh.
tree=${USTACK_KTREE:-$top/build/linux}
patches=${USTACK_PATCHES:-$top/kernel/patches}
tarball=${USTACK_KSRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
stamp=$tree/.git/ustack-source-version

die() { echo "kernel-tree: $*" >&2; exit 1; }

[ -r "$tarball" ] || die "$tarball missing: run scripts/deps.sh"
version=${USTACK_KSRC_VERSION:-$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)} ||
	die "linux-source-6.12 is not installed: run scripts/deps.sh"

git_tree() { git -C "$tree" "$@"; }

series() { ls "$patches"/*.patch 2>/dev/null | sort; }

apply_series() {
	local p
	for p in $(series); do
		if ! git_tree am -q --keep-cr "$p" >/dev/null 2>&1; then
			git_tree am --abort >/dev/null 2>&1 || true
			die "patch $(basename "$p") does not apply on linux-source-6.12 $version"
		fi
	done
}

# Patch ids of the series and of base..HEAD: equal when the tree holds
# exactly the series (commit ids and dates do not matter).
series_ids() { series | xargs -r cat | git patch-id --stable | cut -d' ' -f1 | sort; }
tree_ids() { git_tree log -p --reverse base..HEAD | git patch-id --stable | cut -d' ' -f1 | sort; }

# Debian's .gitignore ignores everything at the top level ("/*"), which
# hides new kernel files from git status and git add. Drop that block in
# the work tree only; base stays the pristine Debian source.
unignore() {
	git -C "$1" update-index --skip-worktree .gitignore
	sed -i '/^# Debian packaging: ignore everything/,$d' "$1/.gitignore"
}

create_tree() {
	echo "kernel-tree: extracting linux-source-6.12 $version into ${tree#$top/}"
	rm -rf "$tree" "$tree.new"
	mkdir -p "$tree.new"
	tar -C "$tree.new" --strip-components=1 -xJf "$tarball"
	git -C "$tree.new" init -q
	git -C "$tree.new" config user.name "${GIT_AUTHOR_NAME:-ustack developers}"
	git -C "$tree.new" config user.email "${GIT_AUTHOR_EMAIL:-dev@ustack.invalid}"
	git -C "$tree.new" config core.autocrlf false
	git -C "$tree.new" config gc.auto 0
	# Fixed dates keep the base commit id the same on every machine.
	git -C "$tree.new" add -A -f .
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		git -C "$tree.new" commit -q -m "Debian linux-source-6.12 $version"
	git -C "$tree.new" tag base
	unignore "$tree.new"
	echo "$version" > "$tree.new/.git/ustack-source-version"
	mv "$tree.new" "$tree"
	apply_series
	echo "kernel-tree: applied $(series | wc -l) patch(es)"
}

if [ ! -d "$tree/.git" ] || [ ! -f "$stamp" ]; then
	create_tree
elif [ "$(cat "$stamp")" != "$version" ]; then
	echo "kernel-tree: tree was made from $(cat "$stamp"), Debian now ships $version: remaking"
	create_tree
elif [ "${1:-}" = "--reset" ]; then
	git_tree am --abort >/dev/null 2>&1 || true
	git_tree reset -q --hard base
	git_tree clean -q -fdx
	unignore "$tree"
	apply_series
	echo "kernel-tree: reset to base and applied $(series | wc -l) patch(es)"
elif [ "$(series_ids)" != "$(tree_ids)" ]; then
	echo "kernel-tree: WARNING: build/linux (base..HEAD) differs from kernel/patches;" >&2
	echo "kernel-tree:          building the tree as it is. 'make kernel-patches' exports it," >&2
	echo "kernel-tree:          'make kernel-tree-reset' re-applies the series." >&2
fi
exit 0
