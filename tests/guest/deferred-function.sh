#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# user_stacktrace_deferred with the function tracer: many events per kernel
# entry, exactly one stack entry per entry, every event's cookie resolves.
# kernels: normal debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

trace_clear
# room for every event: the debug kernel (preemptible, KASAN, lockdep)
# records ~1.2 M function events here, ~40 times the normal kernel's
tw $T/buffer_size_kb 98304
tw $T/options/user_stacktrace_deferred 1
gated "$SAMPLE" 3
pid=$GATED_PID
tw $T/set_ftrace_pid "$pid"
tw $T/current_tracer function
tw $T/tracing_on 1
open_gate
wait "$pid"
tw $T/tracing_on 0
# (switching the tracer empties the buffer: read it first)
stitched > /tmp/stitched
overrun=$(cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n + 0 }')
tw $T/current_tracer nop
echo > $T/set_ftrace_pid

events=$(awk -F'|' -v p="$pid" '$1 == p' /tmp/stitched | wc -l)
withstack=$(awk -F'|' -v p="$pid" '$1 == p && $3 != "" && $5 != "LOST"' /tmp/stitched | wc -l)
lost=$(awk -F'|' -v p="$pid" '$1 == p && $5 == "LOST"' /tmp/stitched | wc -l)
cookies=$(awk -F'|' -v p="$pid" '$1 == p && $3 != "" {print $3}' /tmp/stitched | sort -u | wc -l)
stacks=$(awk -F'|' -v p="$pid" '$1 == "STACKS" && $4 == p {n += $3} END {print n + 0}' /tmp/stitched)
dups=$(awk -F'|' -v p="$pid" '$1 == "STACKS" && $4 == p && $3 != 1' /tmp/stitched | wc -l)

echo "function events: $events, with a stack: $withstack, lost: $lost, cookies: $cookies, stacks: $stacks, overrun: $overrun"
check "the buffer held the whole run (overrun 0)" test "$overrun" = 0
check "many function events per entry ($events events, $cookies entries)" \
	test "$events" -gt $((cookies * 10)) -a "$cookies" -gt 3
if [ "$lost" = 0 ]; then
	pass "no event's stack is lost"
else
	fail "no event's stack is lost" "first: $(awk -F'|' -v p="$pid" '$1 == p && $5 == "LOST"' \
		/tmp/stitched | head -n 1); last: $(awk -F'|' -v p="$pid" '$1 == p && $5 == "LOST"' \
		/tmp/stitched | tail -n 1)"
fi
check "every cookie resolves to exactly one stack entry" test "$stacks" = "$cookies" -a "$dups" = 0
# Cookie-less events are the exit path only (PF_EXITING): a few at most.
check "events without a cookie only at exit" test $((events - withstack)) -lt $((events / 4))

# The getppid entries: their functions' stacks are the known chain.
bad=$(awk -F'|' -v p="$pid" '$1 == p && $4 ~ /sys_getppid/ {print $5}' /tmp/stitched | sort -u |
	while read -r frames; do
		syms=$(first_n 6 "$(symbols "$frames")")
		[ "$syms" = "$CHAIN" ] || echo "$syms"
	done)
n=$(awk -F'|' -v p="$pid" '$1 == p && $4 ~ /sys_getppid/' /tmp/stitched | wc -l)
if [ "$n" -ge 3 ] && [ -z "$bad" ]; then
	pass "getppid's function events carry the known chain"
else
	fail "getppid's function events carry the known chain" "n=$n: $bad"
fi
trace_clear
tw $T/buffer_size_kb 1408
finish
