#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every patch of the series builds alone: for each commit of build/linux
# (base..HEAD) in turn, in a worktree of its own (build/series/linux), build
# the directories of every C file the commit adds or changes, with the
# guest kernel's config (build/kernel/.config, made again for that commit
# with olddefconfig) plus CONFIG_SFRAME_VALIDATION; a warning in one of
# those files fails the commit. A file the config does not build at that
# commit (nothing selects its symbol yet) is reported as "not built": the
# patch adds code that no config of that commit compiles. A file that the
# config of the whole series does not build either (a tracer or debugger
# it leaves out) is named "not in the config" and is no failure.
#
#   kernel-series-build.sh [FIRST]   from commit number FIRST (1-based) on
#
# Exit status 1 when a commit fails to build or leaves a file not built.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
wt=$top/build/series/linux
obj=$top/build/series/kernel
first=${1:-1}

die() { echo "kernel-series-build: $*" >&2; exit 1; }

[ -e "$tree/.git" ] || die "$tree missing: run make kernel-tree"
[ -r "$top/build/kernel/.config" ] || die "no build/kernel/.config: run make kernel"
. "$top/scripts/ccache-env.sh"
export KBUILD_BUILD_USER=ustack KBUILD_BUILD_HOST=ustack

if ! git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$wt"
	mkdir -p "$(dirname "$wt")"
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --detach "$wt" base || die "cannot make $wt"
fi
mkdir -p "$obj"
kmake() { make -s -C "$wt" O="$obj" CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }

bad=0 n=0
for c in $(git -C "$tree" rev-list --reverse base..HEAD); do
	n=$((n + 1))
	[ $n -ge "$first" ] || continue
	subject=$(git -C "$tree" log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c" || die "checkout $c"
	cp "$top/build/kernel/.config" "$obj/.config"
	echo "CONFIG_SFRAME_VALIDATION=y" >> "$obj/.config"
	kmake olddefconfig >/dev/null 2>&1 || { echo "$n $subject: olddefconfig failed"; bad=1; continue; }
	files=$(git -C "$tree" diff-tree --no-commit-id --name-only --diff-filter=AM -r "$c" -- '*.c' |
		grep -v '^tools/\|^samples/\|^Documentation/')
	if [ -z "$files" ]; then
		echo "$n $subject: no C file"
		continue
	fi
	status=ok notbuilt=
	# the directories, as a build makes them: only what the config builds
	for d in $(for f in $files; do dirname "$f"; done | sort -u); do
		out=$(kmake -j"$(nproc)" "$d/" 2>&1)
		if [ $? != 0 ]; then
			status=FAILED
			echo "$out" | grep -E "error|Error" | head -n 5 | sed "s/^/    /"
		fi
		for f in $files; do
			[ "$(dirname "$f")" = "$d" ] || continue
			if echo "$out" | grep -q "${f}:[0-9]*:[0-9]*: warning"; then
				status=FAILED
				echo "$out" | grep "${f}:[0-9]*:[0-9]*: warning" | head -n 3 | sed "s/^/    /"
			fi
		done
	done
	# a file the whole series' config does not build either (another
	# tracer, kdb) is outside the config: named, not a failure
	outside=
	for f in $files; do
		[ -e "$obj/${f%.c}.o" ] && continue
		if [ -e "$top/build/kernel/${f%.c}.o" ]; then
			notbuilt="$notbuilt $f"
		else
			outside="$outside $f"
		fi
	done
	echo "$n $subject: $status${notbuilt:+; not built:$notbuilt}${outside:+; not in the config:$outside}"
	[ "$status" = ok ] && [ -z "$notbuilt" ] || bad=1
done
exit $bad
