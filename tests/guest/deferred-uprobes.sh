#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Uprobes and deferred stacks. A probe on an instruction that is stepped
# out of line (XOL): the topmost frame is the probed address, not the XOL
# slot, and the frame rule of the prologue it is in holds. A uretprobe:
# the walk finds the uprobe trampoline where a return address was; the
# stack has the original return address instead, with frame pointers and
# with SFrame.
# kernels: normal debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

LIB=$USTACK_PROGS/libustack-sample.so

# probe_stacks TEXT: the symbolized stacks of the sample's events whose
# text starts with TEXT, counted, one line per distinct stack
probe_stacks() {
	stitched | awk -F'|' -v p=$pid -v e="$1" '$1 == p && index($4, e) == 1 { print $5 }' |
	while read -r frames; do
		echo "$(first_n 6 "$(symbols "$frames")")"
	done | sort | uniq -c | sed 's/^ *//' | tr '\n' ';' | sed 's/;$//'
}

# 1. The second instruction of ustack_lib_syscall, "mov %rsp,%rbp", is
# stepped out of line; its frame has pushed the frame pointer only.
second=$(objdump -d --no-show-raw-insn "$LIB" |
	 awk '/<ustack_lib_syscall>:/ { f = 1; next } f && NF { n++ } f && n == 2 { print; exit }')
case "$second" in
*"mov "*"%rsp,%rbp"*)
	off=$(lib_offset ustack_lib_syscall 1)
	trace_clear
	if echo "p:ustack_xol $LIB:$off" > $T/uprobe_events; then
		tw $T/events/uprobes/ustack_xol/enable 1
		tw $T/options/user_stacktrace_deferred 1
		traced_sample 3
		got=$(probe_stacks "ustack_xol:")
		check "xol: 3 probe hits, each with exactly $CHAIN ($got)" test "$got" = "3 $CHAIN"
		tw $T/events/uprobes/ustack_xol/enable 0
		echo > $T/uprobe_events
	else
		fail "xol: a uprobe at $LIB:$off"
	fi
	;;
*)
	skip "xol" "ustack_lib_syscall's second instruction is not mov %rsp,%rbp: '$second'"
	;;
esac

# 2. A uretprobe on ustack_lib_inner: while the sample is in it, its
# return address (into ustack_lib_enter) is the trampoline.
off=$(lib_offset ustack_lib_inner)
trace_clear
if echo "r:ustack_ret $LIB:$off" > $T/uprobe_events; then
	tw $T/events/uprobes/ustack_ret/enable 1
	tw $T/events/syscalls/sys_enter_getppid/enable 1
	tw $T/options/user_stacktrace_deferred 1
	traced_sample 3
	got=$(probe_stacks "sys_getppid(")
	check "uretprobe: 3 getppid calls, each with exactly $CHAIN ($got)" test "$got" = "3 $CHAIN"
	n=$(stitched | awk -F'|' -v p=$pid '$1 == p && index($4, "ustack_ret:") == 1' | wc -l)
	check "uretprobe: it fired once ($n)" test "$n" = 1
	tw $T/events/uprobes/ustack_ret/enable 0
	echo > $T/uprobe_events
else
	fail "uretprobe: a uretprobe at $LIB:$off"
fi

# 3. The same uretprobe in the library built with SFrame and without frame
# pointers (review 2026-11-28, N6): the trampoline's page has no rules, so
# the walk must put the return address back before it looks the caller's
# frame up; it fell back to frame pointers there, and rbp is any register
# in that code.
SLIB=$USTACK_PROGS/sframe/libustack-sample.so
off=$(OFFSET_LIB=$SLIB lib_offset ustack_lib_inner)
trace_clear
if [ -z "$off" ]; then
	fail "uretprobe, SFrame: ustack_lib_inner in $SLIB"
elif echo "r:ustack_ret $SLIB:$off" > $T/uprobe_events; then
	tw $T/events/uprobes/ustack_ret/enable 1
	tw $T/events/syscalls/sys_enter_getppid/enable 1
	tw $T/options/user_stacktrace_deferred 1
	SAMPLE=$USTACK_PROGS/sframe/ustack-sample traced_sample 3
	got=$(probe_stacks "sys_getppid(")
	check "uretprobe, SFrame: 3 getppid calls, each with exactly $CHAIN ($got)" \
		test "$got" = "3 $CHAIN"
	tw $T/events/uprobes/ustack_ret/enable 0
	echo > $T/uprobe_events
else
	fail "uretprobe, SFrame: a uretprobe at $SLIB:$off"
fi
trace_clear
finish
