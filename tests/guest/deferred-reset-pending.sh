#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A request after the exit work loop leaves nothing pending in user space
# (the 2026-11-28 review's N3, forced; deferred-nmi-reset.sh looks for
# its consequence). switch_fpu_return() runs on the return to user space
# after the exit work loop whenever the task was switched out; with the
# function tracer on it (and the option set), its event is a request made
# past the loop, which the reset at the end of the return drops. The reset
# kept UNWIND_PENDING and TIF_UNWIND_DEFERRED: the task ran in user space
# pending, so that an NMI's request there raised no irq_work and its
# cookie was served at the task's next kernel entry, with that entry's
# stack; and the next return ran the deferred work for nothing.
#
# Here no event but switch_fpu_return's asks for a stack, so no kernel
# entry of the traced tasks makes a request before its exit work loop:
# the loop must never find the flag set. A kprobe on
# unwind_deferred_return(), the loop's deferred work, is the only event
# of an instance of its own (no stacks there). Two Python loops share
# CPU 1 (each return after a switch goes through switch_fpu_return) and
# sleep now and then. Without the fix, the work ran on 1,000 or so of
# their returns (checked on the normal kernel).
# kernels: normal debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

P=$T/instances/uu-pending

if ! grep -qx switch_fpu_return $T/available_filter_functions; then
	skip "requests after the exit work loop" "switch_fpu_return cannot be traced here"
	finish
fi
cleanup() {
	[ -d $P ] && { echo 0 > $P/events/kprobes/uu_return/enable; rmdir $P; }
	echo > $T/kprobe_events
	echo > $T/set_ftrace_filter
}
trap cleanup EXIT

trace_clear
if ! tw $T/kprobe_events 'p:uu_return unwind_deferred_return'; then
	fail "a kprobe on unwind_deferred_return" "refused"
	finish
fi
mkdir $P
tw $P/events/kprobes/uu_return/enable 1
tw $T/set_ftrace_filter switch_fpu_return
tw $T/current_tracer function
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
LOOP='import os, time
for n in range(300):
    for i in range(3000):
        pass
    time.sleep(0.001)
print("done", flush=True)'
taskset -c 1 /usr/bin/python3 -c "$LOOP" > /tmp/pend1.out &
p1=$!
taskset -c 1 /usr/bin/python3 -c "$LOOP" > /tmp/pend2.out &
p2=$!
wait $p1 $p2
tw $T/tracing_on 0

# the tasks' requests past the loop, and the loop's deferred work for them
fpu=$(grep -cE -e "-($p1|$p2) .*switch_fpu_return" $T/trace)
work=$(grep -cE -e "-($p1|$p2) .*uu_return:" $P/trace)
echo "switch_fpu_return events of the two tasks: $fpu; deferred work run on their returns: $work"
grep -m 3 'uu_return:' $P/trace
check "the tasks returned through switch_fpu_return with the option set ($fpu times)" \
	test "$fpu" -ge 50
check "no return found a request left over from an earlier one ($work)" test "$work" = 0
trace_clear
finish
