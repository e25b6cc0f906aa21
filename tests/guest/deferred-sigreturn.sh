#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rt_sigreturn replaces the user registers (review 2026-11-28): a stack
# asked for at its sys_enter is the stack at that event, the signal
# trampoline's: ustack_restorer, then through the signal frame the
# interrupted ustack_sigkill and main; not the interrupted code's that
# the registers hold once restored (which would start at ustack_sigkill),
# nor the trampoline followed by frame pointers (which skips
# ustack_sigkill). rt_sigreturn has no sys_exit event.
# kernels: normal debug
# timeout: 200
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

SIGRET=$USTACK_PROGS/ustack-sigret
if [ ! -x "$SIGRET" ]; then
	skip "deferred-sigreturn" "no $SIGRET (make progs)"
	finish
fi

trace_clear
tw $T/events/syscalls/sys_enter_rt_sigreturn/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
"$SIGRET" > /tmp/sigret.out 2>&1 &
pid=$!
wait $pid
rc=$?
tw $T/tracing_on 0
check "the program ran ($(cat /tmp/sigret.out))" test "$rc" = 0

# first_syms EVENT: the first three symbols of each EVENT's stack, a line each
first_syms() {
	stitched | awk -F'|' -v p=$pid -v e="$1" '$1 == p && index($4, e) { print $5 }' |
		while read -r frames; do first_n 3 "$(symbols "$frames")"; echo; done
}
enter=$(first_syms "sys_rt_sigreturn(" | sort | uniq -c | sed 's/^ *//')
echo "enter: $enter"
check "sys_enter_rt_sigreturn: 3 stacks, the trampoline's ($enter)" \
	test "$enter" = "3 ustack_restorer ustack_sigkill main"
finish
