#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Clearing user_stacktrace_deferred ends it. Each CPU whose entries give a
# cookie gets one cookie 0 entry, so that no later event takes an old
# kernel entry's cookie (and stack); after that, events of the instance no
# longer call the mark path at all. A kprobe on __trace_user_unwind_mark,
# in an instance of its own, counts the calls. With a snapshot buffer that
# a swap can bring back, the CPUs are ended again after each swap, once.
# kernels: normal debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

W=$T/instances/marks
ncpu=$(nproc)

# sys_enter of the sample (getppid) and count the mark path's calls in W
start() {
	trace_clear
	tw $T/events/raw_syscalls/sys_enter/filter 'id == 110'
	tw $T/events/raw_syscalls/sys_enter/enable 1
	tw $T/options/user_stacktrace_deferred 1
	tw $T/tracing_on 1
}

# marks_during LABEL: run the sample 20 times on each CPU, print the calls
marks_during() {
	echo > $W/trace
	tw $W/tracing_on 1
	for c in $(seq 0 $((ncpu - 1))); do
		taskset -c $c "$SAMPLE" 20 > /dev/null
	done
	tw $W/tracing_on 0
	grep -c 'ustack_mark:' $W/trace
}

mkdir $W || fail "mkdir instance marks"
tw $T/kprobe_events 'p:ustack_mark __trace_user_unwind_mark'
tw $W/events/kprobes/ustack_mark/enable 1

# 1. Stacks while set; cleared: no call, and the old cookies are ended.
start
taskset -c 0 "$SAMPLE" 5 > /dev/null
taskset -c 1 "$SAMPLE" 5 > /dev/null
n=$(marks_during set)
check "set: events call the mark path ($n calls for $((20 * ncpu)) events)" test "$n" -ge $((20 * ncpu))
tw $T/options/user_stacktrace_deferred 0
zeros=$(grep -c 'user_unwind_cookie: cookie=0x0$' $T/trace)
check "cleared: a cookie 0 entry ends the cookies in force ($zeros)" test "$zeros" -ge 1
n=$(marks_during cleared)
check "cleared: events no longer call the mark path ($n calls)" test "$n" = 0
# events after the clear carry no cookie
pinned_sample 1 3
p=$pid
stitched | awk -F'|' -v p=$p '$1 == p' > /tmp/after
n=$(wc -l < /tmp/after)
bad=$(awk -F'|' '$5 != "NOCOOKIE"' /tmp/after | wc -l)
check "cleared: the $n later events carry no cookie ($bad do)" test "$n" = 3 -a "$bad" = 0

# 2. Set again: stacks again, exact.
tw $T/options/user_stacktrace_deferred 1
pinned_sample 0 3
p=$pid
stitched | awk -F'|' -v p=$p '$1 == p' > /tmp/again
read -r n exact none <<< "$(cut -d'|' -f5 /tmp/again | chain_count)"
check "set again: $n events, each with exactly $CHAIN ($((n - exact)) wrong)" \
	test "$n" = 3 -a "$exact" = 3
tw $T/tracing_on 0

# 3. A snapshot buffer: cleared, then swapped; each CPU is ended again with
# at most one call, and no event after the swap takes a cookie.
if [ -e $T/snapshot ]; then
	start
	tw $T/snapshot 1
	taskset -c 0 "$SAMPLE" 5 > /dev/null
	taskset -c 1 "$SAMPLE" 5 > /dev/null
	tw $T/options/user_stacktrace_deferred 0
	n=$(marks_during cleared)
	check "snapshot: cleared, no call ($n calls)" test "$n" = 0
	tw $T/snapshot 1
	n=$(marks_during swapped)
	check "snapshot: swapped, at most one call per CPU ($n calls, $ncpu CPUs)" \
		test "$n" -le "$ncpu"
	pinned_sample 1 3
	p=$pid
	stitched | awk -F'|' -v p=$p '$1 == p' > /tmp/swapped
	bad=$(awk -F'|' '$5 != "NOCOOKIE"' /tmp/swapped | wc -l)
	check "snapshot: events after the swap carry no cookie ($bad do)" test "$bad" = 0
	tw $T/tracing_on 0
	tw $T/snapshot 0
else
	skip "snapshot" "no snapshot in this kernel (CONFIG_TRACER_SNAPSHOT)"
fi

tw $W/events/kprobes/ustack_mark/enable 0
rmdir $W
echo > $T/kprobe_events
echo 0 > $T/events/raw_syscalls/sys_enter/filter
trace_clear
finish
