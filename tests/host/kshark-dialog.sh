#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The KernelShark plugin's windows rendered without a display
# (QT_QPA_PLATFORM=offscreen) on the entries libkshark loads
# (kernelshark-plugin/tests/kshark-dialog-test.cpp): the stacks dialog for
# every task over the whole trace and for the task over the visible range,
# the stack window of an event, and the folded export. Screenshots are kept
# in build/tests/kshark-dialog/; the checks read the dialog's own table,
# dumped a row per line next to them.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/kshark.sh"

kshark_setup "kshark dialogs offscreen"
out=$USTACK_TOP/build/tests/kshark-dialog
rm -rf "$out"
mkdir -p "$out"
if ! QT_QPA_PLATFORM=offscreen "$KS_DIR/kshark-dialog-test" "$out" "$work/multi.dat" \
	"$KS_SAMPLE" >"$work/out" 2>&1; then
	fail "kshark dialogs offscreen" "kshark-dialog-test failed: $(tail -n 3 "$work/out")"
	finish
fi
for f in dialog-all dialog-visible stack; do
	check "$f.png is a picture" sh -c "[ -s '$out/$f.png' ] && head -c 8 '$out/$f.png' | grep -q PNG"
done
CHAIN="ustack_lib_syscall+0xb (/tmp/ustack-fixture/libustack-sample.so) | ustack_lib_inner+0x25"
check "all tasks, whole trace: 2 rows, most frequent first" \
	test "$(wc -l < "$out/dialog-all.txt")" = 2
check "all tasks: the stack of 8 events (two files), its frames innermost first" \
	grep -q "^8	ustack-sample-69	$CHAIN" "$out/dialog-all.txt"
check "all tasks: 4 events whose stacks were lost, and why" \
	grep -qx "4	ustack-sample-69	\[user stack lost: the trace ended first\]" "$out/dialog-all.txt"
check "visible range (first half): fewer events, the same two groups" \
	sh -c "[ \$(wc -l < '$out/dialog-visible.txt') = 2 ] && ! grep -q '^8	' '$out/dialog-visible.txt'"
check "folded export: outermost first, with counts" grep -qx \
	"ustack-sample;\(\[libc.so.6\]\|__libc_start_call_main\);main;sample_outer;sample_middle;ustack_lib_enter;ustack_lib_inner;ustack_lib_syscall 8" \
	"$out/folded.txt"
check "folded export: the lost ones" grep -qx "ustack-sample;\[user stack lost\] 4" "$out/folded.txt"
check "stack window: the event and its whole stack" \
	sh -c "head -n 1 '$out/stack.txt' | grep -q 'ustack-sample-69 \[000\] .*sys_enter_getppid' &&
	       [ \$(grep -c '^  => ' '$out/stack.txt') = 7 ]"
finish
