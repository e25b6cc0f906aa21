#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A user who builds ustack's kernel from Debian's own 6.12 config gets the
# options it needs: kernel/config/debian.config merged on top of
# linux-config-6.12's config.amd64_none_amd64.xz survives olddefconfig line
# by line (scripts/kernel-config-debian.sh, as docs/kernel.md tells users),
# and so does the guest's fragment (ustack.config) but for the guest's size
# NR_CPUS (Debian's MAXSMP fixes 8192); every option of debian.config has
# the same value in the guest's fragment, so the guest tests test what a user
# runs. Only Kconfig files are used, from build/linux's base tag with the
# Kconfig hunks of kernel/patches applied, in a scratch copy: neither
# build/linux (another build may be rebasing it) nor build/kernel is used.
. "$(dirname "$0")/../lib/result.sh"

top=$USTACK_TOP
base=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
if [ ! -r "$base" ]; then
	fail "Debian's config" "no $base (make deps installs linux-config-6.12)"
	finish
fi
if ! git -C "$top/build/linux" rev-parse -q --verify base >/dev/null 2>&1; then
	fail "the kernel tree" "no build/linux with its base tag (make kernel-tree)"
	finish
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the Kconfig side of the patched tree
tree=$work/tree
mkdir -p "$tree"
git -C "$top/build/linux" archive --format=tar base -- ':(glob)**/Kconfig*' \
	':(glob)**/Makefile*' ':(glob)**/Kbuild' scripts | tar -C "$tree" -xf -
bad=
for p in "$top"/kernel/patches/*.patch; do
	(cd "$tree" && git apply --include='*Kconfig*' "$p") 2>>"$work/apply.log" ||
		bad="$bad $(basename "$p")"
done
check "the Kconfig hunks of kernel/patches apply on the base tree${bad:+ (not:$bad)}" \
	test -z "$bad"

check "kernel/config/debian.config on Debian's config: every line survives olddefconfig" \
	env USTACK_KTREE="$tree" "$top/scripts/kernel-config-debian.sh" "$work/debian"
for o in USER_STACKTRACE_DEFERRED UNWIND_DEFERRED SFRAME_DEV; do
	check "Debian's config + debian.config: CONFIG_$o=y" \
		grep -qx "CONFIG_$o=y" "$work/debian/.config"
done
check "Debian's config + debian.config: the release ends in -ustack" \
	grep -qx 'CONFIG_LOCALVERSION="-ustack"' "$work/debian/.config"

USTACK_KTREE="$tree" USTACK_KCONFIG_FRAGMENT=$top/kernel/config/ustack.config \
	"$top/scripts/kernel-config-debian.sh" "$work/guest" >/dev/null 2>"$work/guest.err"
lost=$(sed -n 's/^kernel-config-debian: \(CONFIG_[A-Z0-9_]*\)=.* did not survive.*/\1/p' \
	"$work/guest.err" | grep -vx CONFIG_NR_CPUS | tr '\n' ' ')
check "kernel/config/ustack.config on Debian's config: every line but NR_CPUS survives${lost:+ (lost: $lost)}" \
	test -s "$work/guest/.config" -a -z "$lost"

# each option of debian.config as the guest's fragment sets it, or as
# tinyconfig does (then the guest's .config must have it)
differ=
while IFS= read -r line; do
	case $line in CONFIG_*) ;; *) continue ;; esac
	opt=${line%%=*}
	g=$(grep -E "^$opt=" "$top/kernel/config/ustack.config" || true)
	[ -z "$g" ] || [ "$g" = "$line" ] || differ="$differ $opt"
	if [ -z "$g" ] && [ -r "$top/build/kernel/.config" ] &&
	   ! grep -qxF "$line" "$top/build/kernel/.config"; then
		differ="$differ $opt(guest .config)"
	fi
done <"$top/kernel/config/debian.config"
check "every option of debian.config has its value in the guest's config${differ:+ (not:$differ)}" \
	test -z "$differ"
finish
