#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest kernel from build/linux out of tree:
#   kernel-build.sh           -> build/kernel/arch/x86/boot/bzImage
#   DEBUG=1 kernel-build.sh   -> build/kernel-debug/... (KASAN, lockdep, kmemleak)
# USTACK_KTREE and USTACK_KOBJ name another tree (a git worktree will do) and
# build dir: make bench's floor kernel (tests/bench/floor.sh).
# The config is tinyconfig plus the fragments in kernel/config/. ccache keeps
# its cache outside the repository, so a fresh clone starts warm.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${USTACK_KTREE:-$top/build/linux}
frags=$top/kernel/config/ustack.config
obj=${USTACK_KOBJ:-$top/build/kernel}
if [ "${DEBUG:-0}" = 1 ]; then
	frags="$frags $top/kernel/config/debug.config"
	obj=$top/build/kernel-debug
fi
jobs=${JOBS:-$(nproc)}

die() { echo "kernel-build: $*" >&2; exit 1; }

[ -e "$tree/.git" ] || die "$tree missing: run scripts/kernel-tree.sh"

. "$top/scripts/ccache-env.sh"
# Reproducible version strings: same object files on every machine.
export KBUILD_BUILD_USER=ustack KBUILD_BUILD_HOST=ustack
export KBUILD_BUILD_TIMESTAMP="Sat Nov 21 00:00:00 UTC 2026"
# uname -v says which series the kernel was built from.
export KBUILD_BUILD_VERSION=$("$top/scripts/series-id.sh")

kmake() { make -s -C "$tree" O="$obj" CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION= "$@"; }
# The source as the build sees it: a change during the build (a rebase)
# leaves objects made from the old files that make will not redo.
tree_state() {
	{ git -C "$tree" rev-parse HEAD; git -C "$tree" diff HEAD
	  git -C "$tree" ls-files --others --exclude-standard; } | md5sum
}

mkdir -p "$obj"
# One build at a time in $obj: two at once (make demo's beside make
# kernel's) wrote the same objects and left a bzImage that did not boot.
exec 9>"$obj/.ustack-build.lock"
flock 9
# Make the config in a scratch dir so that an unchanged config leaves the
# build dir's .config (and so every object) untouched.
cfg=$obj/.ustack-cfg
rm -rf "$cfg"
mkdir -p "$cfg"
make -s -C "$tree" O="$cfg" tinyconfig >/dev/null
"$tree/scripts/kconfig/merge_config.sh" -m -O "$cfg" "$cfg/.config" $frags >"$cfg/merge.log" 2>&1
make -s -C "$tree" O="$cfg" olddefconfig >/dev/null
# Every option a fragment asks for must survive: a typo or an unmet
# dependency fails here instead of silently building another kernel.
bad=0
for f in $frags; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n) want="# ${line%=n} is not set" ;;
		CONFIG_*) want=$line ;;
		*) continue ;;
		esac
		if ! grep -qxF "$want" "$cfg/.config"; then
			echo "kernel-build: $(basename "$f"): $line did not make it into .config" >&2
			bad=1
		fi
	done < "$f"
done
[ $bad = 0 ] || die "config fragments are not satisfied"
if ! cmp -s "$cfg/.config" "$obj/.config"; then
	cp "$cfg/.config" "$obj/.config"
fi
rm -rf "$cfg"

echo "kernel-build: building $(basename "$obj") with $jobs jobs"
before=$(tree_state)
kmake -j"$jobs" olddefconfig >/dev/null
kmake -j"$jobs" bzImage
[ "$(tree_state)" = "$before" ] ||
	die "build/linux changed during the build: objects may be stale; remove $obj and build again"
echo "$KBUILD_BUILD_VERSION" > "$obj/ustack-series"
echo "kernel-build: $obj/arch/x86/boot/bzImage ($(cat "$obj/include/config/kernel.release"))"
