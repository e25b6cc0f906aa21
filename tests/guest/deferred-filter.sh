#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Only events that are recorded ask for a user stack. sys_enter filtered on
# one system call (getppid) with user_stacktrace_deferred set: the user
# stack is walked once per kernel entry that recorded an event, not for
# every system call of every task. A kprobe on the walker, in an instance
# of its own, counts the walks.
# kernels: normal debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

W=$T/instances/walks
trace_clear
mkdir $W || fail "mkdir instance walks"
tw $T/kprobe_events 'p:ustack_walk unwind_user'
tw $W/events/kprobes/ustack_walk/enable 1
tw $T/events/raw_syscalls/sys_enter/filter 'id == 110'
tw $T/events/raw_syscalls/sys_enter/enable 1
tw $T/options/user_stacktrace_deferred 1
# (not through a shell that execs it: dash calls getppid at its start)
tw $W/tracing_on 1
tw $T/tracing_on 1
"$SAMPLE" 10 > /dev/null &
pid=$!
wait $pid
tw $T/tracing_on 0
tw $W/tracing_on 0

stitched | awk -F'|' -v p=$pid '$1 == p' > /tmp/events
n=$(wc -l < /tmp/events)
check "filter: the program's events are its 10 getppid entries ($n: $(cut -d'|' -f4 /tmp/events | sort | uniq -c | tr '\n' ' '))" test "$n" = 10
read -r n exact none <<< "$(cut -d'|' -f5 /tmp/events | chain_count)"
check "filter: each with exactly $CHAIN ($((n - exact)) wrong)" test "$exact" = "$n"
walks=$(grep -c -- "-$pid .*ustack_walk:" $W/trace)
check "filter: one walk per entry that recorded an event ($walks walks for 10)" test "$walks" = 10

tw $W/events/kprobes/ustack_walk/enable 0
rmdir $W
echo > $T/kprobe_events
echo 0 > $T/events/raw_syscalls/sys_enter/filter
trace_clear
finish
