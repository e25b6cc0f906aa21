#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The trace-cmd plugin built on its own (make -C trace-cmd-plugin O=dir),
# outside the top-level build: it builds libtracefs-ext itself, under O=, links
# it in statically, links again when the library changes and not otherwise,
# and "make clean" leaves nothing. Built from a copy of the two source
# directories, so that the test may touch their files.
. "$(dirname "$0")/../lib/result.sh"

for t in make cc pkg-config readelf; do
	if ! command -v $t >/dev/null; then
		skip "plugin built alone" "no $t"
		finish
	fi
done
if ! pkg-config --exists libtracecmd libtracefs libtraceevent libelf; then
	skip "plugin built alone" "the -dev packages of libtracecmd, libtracefs, libtraceevent, libelf"
	finish
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/o"
cp -r "$USTACK_TOP/libtracefs-ext" "$USTACK_TOP/trace-cmd-plugin" "$work/src/"
O=$work/o/plugin
SO=$O/plugin_ustack.so
build() { make --no-print-directory -j2 -C "$work/src/trace-cmd-plugin" O="$O" "$@" >"$work/log" 2>&1; }

if build; then
	pass "make -C trace-cmd-plugin O=dir, with no library built before"
else
	fail "make -C trace-cmd-plugin O=dir, with no library built before" "$(tail -n 5 "$work/log")"
	finish
fi
check "the plugin is there" test -s "$SO"
check "the library was built under O=" test -s "$O/libtracefs-ext/libtracefs-ext.a"
check "nothing was written next to O=" test "$(ls "$work/o")" = plugin
check "the library is linked in, not needed at run time" \
	test "$(readelf -dW "$SO" | grep -c 'NEEDED.*libtracefs-ext')" = 0
check "only the plugin's hooks are exported" \
	test "$(nm -D --defined-only "$SO" | awk '$2 == "T" && $3 !~ /^tep_plugin_/' | wc -l)" = 0

before=$(stat -c %Y.%s "$SO")
sleep 1
build
check "built again with nothing changed: not linked again" test "$(stat -c %Y.%s "$SO")" = "$before"
touch "$work/src/libtracefs-ext/src/ustack-fold.c"
build
check "a library source changed: the library rebuilt, the plugin linked again" \
	test "$(stat -c %Y.%s "$SO")" != "$before" -a \
	"$(grep -c 'ustack-fold.o' "$work/log")" -gt 0

# the top Makefile's way: the library where LIBEXT_O= says
if build LIBEXT_O="$work/o/lib" && [ -s "$work/o/lib/libtracefs-ext.a" ]; then
	pass "LIBEXT_O=dir: the library built there"
else
	fail "LIBEXT_O=dir: the library built there" "$(tail -n 3 "$work/log")"
fi
build clean
check "make clean leaves nothing under O=" test ! -e "$O"

# review [19]: one mechanism per file, each small (plugin_ustack.c was 795
# lines of options, loader, hooks and printers)
big=$(wc -l "$USTACK_TOP"/trace-cmd-plugin/*.c | awk '$2 != "total" && $1 > 400 { print $2 ": " $1 }')
check "every source file of the plugin at most 400 lines ($big)" test -z "$big"
finish
