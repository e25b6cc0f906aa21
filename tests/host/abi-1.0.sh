#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Review [9]: a program built against the libtracefs-ext 1.0 header
# (tests/fixtures/abi/ustack-1.0.h, the header as 1.0 had it) links against
# the library of the tree at LIBTRACEFS_EXT_1.0 only, and runs with it: the
# frames it steps through itself are where 1.0 put them. The library has
# the accessors of 1.1 besides. No root.
. "$(dirname "$0")/../lib/result.sh"

LIB=$USTACK_TOP/build/libtracefs-ext
FIX=$USTACK_TOP/tests/fixtures/abi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ ! -e "$LIB/libtracefs-ext.so.1" ]; then
	fail "abi-1.0: library built" "${LIB#"$USTACK_TOP"/}/libtracefs-ext.so.1 missing (make libtracefs-ext)"
	finish
fi
if ! out=$(cc -Wall -Wextra -Werror -std=gnu11 -I"$FIX" -o "$work/abi-1.0" "$FIX/abi-1.0.c" \
	   -L"$LIB" -ltracefs-ext -Wl,-rpath,"$LIB" 2>&1); then
	fail "abi-1.0: built against the 1.0 header" "$(echo "$out" | head -n 3 | tr '\n' ' ')"
	finish
fi
pass "abi-1.0: built against the 1.0 header"

# every library function it calls is bound to the 1.0 node
syms=$(objdump -T "$work/abi-1.0" | awk '/ustack_/ { v = $(NF - 1); gsub(/[()]/, "", v); print v, $NF }')
if [ -n "$syms" ] && ! echo "$syms" | grep -v '^LIBTRACEFS_EXT_1.0 ' | grep -q .; then
	pass "abi-1.0: its symbols are at LIBTRACEFS_EXT_1.0"
else
	fail "abi-1.0: its symbols are at LIBTRACEFS_EXT_1.0" "$(echo "$syms" | tr '\n' ' ')"
fi
check "abi-1.0: the library has the 1.1 node" \
	sh -c "objdump -T '$LIB/libtracefs-ext.so.1' | grep -q 'LIBTRACEFS_EXT_1.1 *ustack_stack_frame$'"

"$work/abi-1.0" >"$work/out" 2>&1
rc=$?
cat "$work/out"
if [ $rc -ne 0 ] && ! grep -q '^FAIL:' "$work/out"; then
	fail "abi-1.0: runs" "exit $rc: $(tail -n 3 "$work/out" | tr '\n' ' ')"
fi
finish
