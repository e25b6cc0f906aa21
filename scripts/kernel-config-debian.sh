#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-config-debian.sh OUTDIR: OUTDIR/.config, Debian's own 6.12 config
# with kernel/config/debian.config merged on top and olddefconfig run, for
# the patched tree (build/linux, USTACK_KTREE), out of tree: the tree is only
# read. Every line of the fragment must survive olddefconfig (else it says
# which and fails). Debian's config: USTACK_DEBIAN_CONFIG, else
# linux-config-6.12's config.amd64_none_amd64.xz (a plain or .xz file); the
# fragment: USTACK_KCONFIG_FRAGMENT (the test tries the guest's too).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${USTACK_KTREE:-$top/build/linux}
base=${USTACK_DEBIAN_CONFIG:-/usr/src/linux-config-6.12/config.amd64_none_amd64.xz}
frag=${USTACK_KCONFIG_FRAGMENT:-$top/kernel/config/debian.config}

die() { echo "kernel-config-debian: $*" >&2; exit 1; }

[ $# = 1 ] || die "usage: kernel-config-debian.sh OUTDIR"
out=$1
[ -e "$tree/Makefile" ] || die "$tree missing: make kernel-tree"
[ -r "$base" ] || die "$base missing: apt-get install linux-config-6.12 (make deps)"
mkdir -p "$out"
case $base in
*.xz) xzcat "$base" >"$out/.config" ;;
*) cp "$base" "$out/.config" ;;
esac
"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" \
	>"$out/merge.log" 2>&1 || { cat "$out/merge.log" >&2; die "merge_config.sh failed"; }
make -s -C "$tree" O="$out" olddefconfig >"$out/olddefconfig.log" 2>&1 ||
	{ cat "$out/olddefconfig.log" >&2; die "olddefconfig failed"; }
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n) want="# ${line%=n} is not set" ;;
	CONFIG_*) want=$line ;;
	*) continue ;;
	esac
	if ! grep -qxF "$want" "$out/.config"; then
		echo "kernel-config-debian: $line did not survive olddefconfig:" \
			"$(grep -E "^(# )?${line%%=*}[= ]" "$out/.config" || echo unset)" >&2
		bad=1
	fi
done <"$frag"
[ $bad = 0 ] || die "${frag#$top/} is not satisfied on $(basename "$base")"
echo "kernel-config-debian: $out/.config ($(basename "$base") + ${frag#$top/})"
