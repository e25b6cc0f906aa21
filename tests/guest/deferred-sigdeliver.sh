#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Signal delivery (kernel review 2026-11-28, N5 and N11), with
# ustack-sigdeliver (tests/progs/sigdeliver.c) built with frame pointers
# and built with SFrame:
#  - N5: a stack first asked for in get_signal() (signal:signal_deliver)
#    is walked before the signal frame replaces the registers: it is the
#    interrupted wait's, ustack_pause ustack_wait main. Walked after, it
#    started at the handler (or, by SFrame, at the function before it).
#  - N11: a system call in the handler has a signal frame below it. With
#    no table or section in the process, the one-window frame-pointer
#    walk followed rbp over the trampoline and lost the interrupted
#    ustack_pause; it must stop there and step through the frame, as the
#    general step does.
# kernels: normal debug
# timeout: 200
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

TABLES=$T/user_unwind_tables

# stacks PID EVENT N: the first N symbols of each EVENT stack of PID, counted
stacks() {
	stitched | awk -F'|' -v p=$1 -v e="$2" '$1 == p && index($4, e) { print $5 }' |
		while read -r frames; do first_n $3 "$(symbols "$frames")"; echo; done |
		sort | uniq -c | sed 's/^ *//'
}

for build in fp sframe; do
	prog=$USTACK_PROGS/ustack-sigdeliver
	[ $build = sframe ] && prog=$USTACK_PROGS/sframe/ustack-sigdeliver
	if [ ! -x "$prog" ]; then
		skip "sigdeliver $build" "no $prog (make progs)"
		continue
	fi
	# no table of libc makes the frame-pointer build's walk the one-window one
	[ -w $TABLES/remove ] && echo all > $TABLES/remove
	trace_clear
	tw $T/events/signal/signal_deliver/enable 1
	tw $T/events/syscalls/sys_enter_getppid/enable 1
	tw $T/options/user_stacktrace_deferred 1
	tw $T/tracing_on 1
	"$prog" > /tmp/sigdeliver.out 2>&1 &
	pid=$!
	wait $pid
	rc=$?
	tw $T/tracing_on 0
	check "$build: the program ran ($(cat /tmp/sigdeliver.out))" test "$rc" = 0

	deliver=$(stacks $pid "signal_deliver:" 3)
	echo "$build: signal_deliver: $deliver"
	# a signal may come outside the wait, rarely: then not in ustack_pause
	check "$build: signal_deliver: the interrupted wait's stacks ($deliver)" \
		sh -c "echo '$deliver' | grep -Eq '^[0-9]+ ustack_pause ustack_wait main\$'"
	check "$build: signal_deliver: no stack starts in the handler ($deliver)" \
		sh -c "! echo '$deliver' | grep -q 'ustack_handler\|ustack_restorer\|ustack_getppid'"

	handler=$(stacks $pid "sys_getppid(" 6)
	echo "$build: sys_getppid: $handler"
	check "$build: sys_getppid: through the signal frame ($handler)" \
		sh -c "echo '$handler' | grep -Eq '^[0-9]+ ustack_getppid ustack_handler ustack_restorer ustack_pause ustack_wait main\$'"
	check "$build: sys_getppid: every stack so ($handler)" \
		test "$(echo "$handler" | wc -l)" = 1
done
trace_clear
finish
