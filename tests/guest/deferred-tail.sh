#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Events in the tail of the return to user space. preemptirq:irq_enable
# fires there on every return (in syscall_exit_to_user_mode, after the
# exit work loop that wrote the stack). Such an event belongs to the entry
# that ends: it must carry that entry's cookie, or none, and never the
# next entry's (whose stack would then be stitched to it).
# kernels: normal debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

if [ ! -d $T/events/preemptirq/irq_enable ]; then
	skip "tail" "no preemptirq:irq_enable in this kernel (CONFIG_PREEMPTIRQ_TRACEPOINTS: the debug kernel has it)"
	finish
fi

trace_clear
tw $T/buffer_size_kb 8192
tw $T/events/raw_syscalls/sys_enter/enable 1
tw $T/events/raw_syscalls/sys_exit/enable 1
tw $T/events/preemptirq/irq_enable/enable 1
tw $T/options/user_stacktrace_deferred 1
gated "$SAMPLE" 20
tw $T/set_event_pid $GATED_PID
tw $T/tracing_on 1
open_gate
wait $GATED_PID
tw $T/tracing_on 0
echo > $T/set_event_pid
stitched > /tmp/stitched

# Per event of the program, in time order: the tail irq_enable events (the
# caller is syscall_exit_to_user_mode) against the system call they end.
awk -F'|' -v p=$GATED_PID '
$1 != p { next }
index($4, "sys_exit: NR ") { exit_cookie = $3; exit_frames = $5; have = 1; next }
index($4, "sys_enter: NR ") { have = 0; next }
index($4, "irq_enable: caller=syscall_exit_to_user_mode") {
	tails++
	if (!have) { print "NOEXIT|" $0; next }
	if ($5 == "NOCOOKIE" || $5 == "LOST") { none++; next }
	if ($3 != exit_cookie) { print "COOKIE|" $0 "|exit " exit_cookie; next }
	if ($5 != exit_frames) { print "FRAMES|" $0 "|exit " exit_frames; next }
	same++
}
END { print "TAILS|" tails + 0 "|" same + 0 "|" none + 0 }' /tmp/stitched > /tmp/tails

read -r tails same none <<< "$(sed -n 's/^TAILS|//p' /tmp/tails | tr '|' ' ')"
check "tail: irq_enable events in the return of the program's system calls ($tails)" test "$tails" -ge 20
if grep -q '^COOKIE\|^FRAMES\|^NOEXIT' /tmp/tails; then
	fail "tail: each carries the ending entry's cookie and stack, or none" \
		"$(grep -c '^COOKIE\|^FRAMES\|^NOEXIT' /tmp/tails) wrong: $(grep -m 3 '^COOKIE\|^FRAMES\|^NOEXIT' /tmp/tails)"
else
	pass "tail: each carries the ending entry's cookie and stack, or none ($same with the stack, $none with none)"
fi

# The program's getppid calls are stitched right all the same.
read -r n exact none <<< "$(awk -F'|' -v p=$GATED_PID '$1 == p && index($4, "sys_enter: NR 110 ") { print $5 }' /tmp/stitched | chain_count)"
check "tail: 20 getppid entries, each with exactly $CHAIN ($((n - exact)) wrong)" test "$n:$exact" = "20:20"
trace_clear
tw $T/buffer_size_kb 1408
finish
