#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench, part "floor": the least a deferred user stack costs in the
# eq8 row, measured. tests/bench/floor.patch goes on top of the series in
# a git worktree of build/linux (build/floor/linux), whose kernel is built
# into build/floor/kernel (the same relative paths as build/linux and
# build/kernel, so ccache has all but the patched files); then the
# instruction profile of part "profile" runs on it, and its groups are
# printed next to the series' (OUT/profile.txt, from part "profile").
#
#   floor.sh OUT [CALLS]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?OUT}
calls=${2:-20000}
tree=$top/build/floor/linux
kobj=$top/build/floor/kernel

head=$(git -C "$top/build/linux" rev-parse HEAD) || exit 1
# a worktree of this build/linux (not one left from a tree made again, and
# never the repository around it)
if [ "$(git -C "$tree" rev-parse --show-toplevel 2>/dev/null)" != "$tree" ] ||
   [ "$(git -C "$tree" rev-parse --git-common-dir)" != "$(git -C "$top/build/linux" rev-parse --absolute-git-dir)" ]; then
	rm -rf "$tree"
	git -C "$top/build/linux" worktree prune
	mkdir -p "$top/build/floor"
	git -C "$top/build/linux" worktree add -q --detach "$tree" "$head" || exit 1
fi
# the series as it is now, the last floor patch dropped
git -C "$tree" checkout -q -f --detach "$head" || exit 1
git -C "$tree" apply "$top/tests/bench/floor.patch" ||
	{ echo "floor: tests/bench/floor.patch does not apply to the series"; exit 1; }
if ! USTACK_KTREE=$tree USTACK_KOBJ=$kobj "$top/scripts/kernel-build.sh" > "$out/floor-build.log" 2>&1; then
	echo "floor: the floor kernel did not build:"
	tail -n 20 "$out/floor-build.log"
	exit 1
fi
"$top/tests/bench/profile-run.sh" "$kobj" "$calls" "$out/floor-profile.csv" > "$out/floor-profile.txt" ||
	{ cat "$out/floor-profile.txt"; exit 1; }
[ -s "$out/profile.txt" ] || { echo "floor: no $out/profile.txt (part profile) to compare with"; exit 1; }
awk -f "$top/tests/bench/floor-table.awk" "$out/profile.txt" "$out/floor-profile.txt"
