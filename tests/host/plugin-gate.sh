#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The plugin's workaround for libtracecmd before 1.5.1 (the file opened again,
# pages dropped: ustack-reopen.c, ustack-drop.c) is built only for those
# libraries. Checks that the plugin built here follows pkg-config, that builds
# for libtracecmd 1.5.0 and 1.5.1 (as pkg-config says) fall on either side of
# the gate, and that a build with the gate forced to "fixed"
# (ZPAGE_WORKAROUND=0) compiles without that code and passes the host plugin
# tests.
. "$(dirname "$0")/../lib/result.sh"

PLUGIN_DIR=${USTACK_PLUGIN_DIR:-$USTACK_TOP/build/trace-cmd-plugin}
LIBEXT_O=${USTACK_LIBEXT_O:-$USTACK_TOP/build/libtracefs-ext}
WORKAROUND_SYMS='up_reader_reopen|up_reopen_[a-z]*|up_drop_[a-z]*'

if ! pkg-config --exists libtracecmd || ! command -v nm >/dev/null; then
	skip "plugin build gate" "no libtracecmd-dev or no nm"
	finish
fi
# syms SO: the workaround's functions in SO (static: in its symbol table)
syms() { nm "$1" 2>/dev/null | grep -cE " ($WORKAROUND_SYMS)(\.[a-z0-9.]*)?$"; }

ver=$(pkg-config --modversion libtracecmd)
if [ -r "$PLUGIN_DIR/plugin_ustack.so" ]; then
	n=$(syms "$PLUGIN_DIR/plugin_ustack.so")
	if pkg-config --atleast-version=1.5.1 libtracecmd; then
		check "libtracecmd $ver: the workaround is not built" test "$n" = 0
	else
		check "libtracecmd $ver: the workaround is built" test "$n" -gt 0
	fi
else
	fail "plugin built" "no $PLUGIN_DIR/plugin_ustack.so (make trace-cmd-plugin)"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The gate at its edge: the same build with pkg-config told of libtracecmd
# 1.5.0 (still leaks: the workaround) and 1.5.1 (fixed: none of it), by a copy
# of the installed libtracecmd.pc with only its version changed, found first.
pc=$(pkg-config --variable pcfiledir libtracecmd)/libtracecmd.pc
for edge in "1.5.0 built" "1.5.1 not built"; do
	read -r v want <<< "$edge"
	mkdir -p "$work/pc-$v"
	sed "s/^Version:.*/Version: $v/" "$pc" > "$work/pc-$v/libtracecmd.pc"
	if ! PKG_CONFIG_PATH=$work/pc-$v${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} \
		make -s -C "$USTACK_TOP/trace-cmd-plugin" O="$work/v$v" LIBEXT_O="$LIBEXT_O" \
		> "$work/make-$v.log" 2>&1; then
		fail "libtracecmd $v (pkg-config): builds" \
			"$(tail -n 3 "$work/make-$v.log" | tr '\n' ' ')"
		continue
	fi
	n=$(syms "$work/v$v/plugin_ustack.so")
	if [ "$want" = built ]; then
		check "libtracecmd $v (pkg-config): the workaround is built" test "$n" -gt 0
	else
		check "libtracecmd $v (pkg-config): the workaround is not built" test "$n" = 0
	fi
done

if ! make -s -C "$USTACK_TOP/trace-cmd-plugin" O="$work/fixed" LIBEXT_O="$LIBEXT_O" \
	ZPAGE_WORKAROUND=0 > "$work/make.log" 2>&1; then
	fail "ZPAGE_WORKAROUND=0: builds" "$(tail -n 3 "$work/make.log" | tr '\n' ' ')"
	finish
fi
pass "ZPAGE_WORKAROUND=0: builds"
so=$work/fixed/plugin_ustack.so
check "ZPAGE_WORKAROUND=0: no workaround function in the plugin" test "$(syms "$so")" = 0
check "ZPAGE_WORKAROUND=0: no madvise()" test "$(nm -D "$so" | grep -c ' madvise')" = 0
for t in plugin-report plugin-nostacks plugin-buffers; do
	[ -r "$USTACK_TOP/tests/host/$t.sh" ] || continue
	USTACK_PLUGIN_DIR=$work/fixed bash "$USTACK_TOP/tests/host/$t.sh" > "$work/$t.log" 2>&1
	rc=$?
	np=$(grep -c '^PASS:' "$work/$t.log")
	nf=$(grep -c '^FAIL:' "$work/$t.log")
	if [ "$rc" = 0 ] && [ "$nf" = 0 ] && [ "$np" -gt 0 ]; then
		pass "ZPAGE_WORKAROUND=0: $t passes ($np checks)"
	else
		fail "ZPAGE_WORKAROUND=0: $t passes" \
			"exit $rc, $nf failed: $(grep -m 2 '^FAIL:' "$work/$t.log" | tr '\n' ' ')"
	fi
done
finish
