#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# trace_marker lines carry the cookie of their own write (kernel review
# 2026-11-28, N4). ustack-marker -m (tests/progs/marker.c) makes a getppid
# call, traced, then writes to trace_marker, whose write is not traced;
# another ustack-marker makes getppid calls on the same CPU. The marker
# entry wrote no cookie entry: a reader gave it the cookie its CPU's
# state named for the writer, the one its stack entry predicted for its
# next kernel entry, which the other process's next getppid then took:
# the marker line got the other process's stack, or was said to be lost.
# Now the write asks for its stack: every marker line has the writer's
# own, ustack_raw ustack_mark main.
# kernels: normal debug
# timeout: 200
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

MARKER=$USTACK_PROGS/ustack-marker
if [ ! -x "$MARKER" ]; then
	skip "deferred-marker" "no $MARKER (make progs)"
	finish
fi

trace_clear
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
taskset -c 0 "$MARKER" 40 > /tmp/marker-other.out 2>&1 &
other=$!
taskset -c 0 "$MARKER" -m 20 > /tmp/marker.out 2>&1 &
pid=$!
wait $pid
rc=$?
wait $other
tw $T/tracing_on 0
check "the program ran ($(cat /tmp/marker.out))" test "$rc" = 0

# the first three symbols of each marker line's stack, counted
marks=$(stitched | awk -F'|' -v p=$pid '$1 == p && index($4, "ustack-marker ") { print $5 }' |
	while read -r frames; do
		if [ -z "$frames" ]; then echo "(none)"; continue; fi
		first_n 3 "$(symbols "$frames")"; echo
	done | sort | uniq -c | sed 's/^ *//')
echo "marker lines: $marks"
check "20 marker lines, each with its write's stack ($marks)" \
	test "$marks" = "20 ustack_raw ustack_mark main"
calls=$(stitched | awk -F'|' -v p=$pid '$1 == p && index($4, "sys_getppid(") { print $5 }' |
	while read -r frames; do first_n 3 "$(symbols "$frames")"; echo; done |
	sort | uniq -c | sed 's/^ *//')
check "its getppid calls keep their own stacks ($calls)" \
	test "$calls" = "20 ustack_raw ustack_call main"
trace_clear
finish
