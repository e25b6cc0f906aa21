#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Review [19], [24]: the shipped libtracefs-ext.so carries no code that only
# the tests use. Every function of the library's own objects that is in the
# .so is exported, or called, jumped to or taken the address of by the
# library's code (a call, a jump, a lea) or data (a relocation to it: the
# callbacks of a struct of function pointers). The test-only reference
# counters (ustack_stack_refs(), ustack_stack_block_refs()) were once
# compiled in, hidden and never called. No root.
. "$(dirname "$0")/../lib/result.sh"

LIB=$USTACK_TOP/build/libtracefs-ext
so=$(readlink -f "$LIB/libtracefs-ext.so.1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ ! -f "$so" ] || ! ls "$LIB"/src/*.o >/dev/null 2>&1; then
	fail "lib-shape: library built" "${LIB#"$USTACK_TOP"/}: no .so or objects (make libtracefs-ext)"
	finish
fi

# the functions of our own objects (libiberty's demangler is linked in too)
nm --defined-only "$LIB"/src/*.o | awk '$2 ~ /^[tT]$/ { sub(/\..*/, "", $3); print $3 }' |
	sort -u >"$work/ours"
# those of the .so, with their address
nm --defined-only "$so" | awk '$2 ~ /^[tT]$/ { print $1, $3 }' >"$work/so"
nm -D --defined-only "$so" | awk '{ sub(/@.*/, "", $3); print $3 }' | sort -u >"$work/exported"
# referenced by code: the <symbol> objdump names after an instruction
objdump -d --no-show-raw-insn "$so" |
	sed -n 's/^ *[0-9a-f]*:.*<\([A-Za-z0-9_.]*\)\(+0x[0-9a-f]*\)\{0,1\}>$/\1/p' |
	sed 's/\..*//' | sort -u >"$work/by-code"
# referenced by data: the addends of the relative relocations
readelf -rW "$so" | awk '/R_X86_64_RELATIVE/ { a = $NF; while (length(a) < 16) a = "0" a; print a }' |
	sort -u >"$work/addends"
awk 'NR == FNR { a[$1] = 1; next } ($1 in a) { n = $2; sub(/\..*/, "", n); print n }' \
	"$work/addends" "$work/so" | sort -u >"$work/by-data"

awk '{ n = $2; sub(/\..*/, "", n); print n }' "$work/so" | sort -u |
	comm -12 - "$work/ours" >"$work/shipped"
sort -u "$work/exported" "$work/by-code" "$work/by-data" >"$work/used"
comm -23 "$work/shipped" "$work/used" >"$work/unused"

if [ "$(wc -l <"$work/shipped")" -lt 100 ] || [ ! -s "$work/by-data" ]; then
	fail "lib-shape: the library's functions found" \
	     "$(wc -l <"$work/shipped") functions, $(wc -l <"$work/by-data") by data"
elif [ -s "$work/unused" ]; then
	fail "lib-shape: every function in the .so is exported or used by the library" \
	     "never used: $(tr '\n' ' ' <"$work/unused")"
else
	pass "lib-shape: every function in the .so is exported or used by the library"
fi
finish
