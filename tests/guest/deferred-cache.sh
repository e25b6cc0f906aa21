#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The per-task stack cache of the deferred unwinder (a page per task that
# was ever walked) goes at each task's next return to user space once a
# consumer went away (here: the option is cleared; perf's consumer stays
# registered), not only when the task exits. Four samples making system
# calls are traced, then the option is cleared while they go on:
# /sys/kernel/debug/unwind_deferred_caches drops by their four.
# kernels: normal debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

CACHES=/sys/kernel/debug/unwind_deferred_caches
[ -r $CACHES ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ ! -r $CACHES ]; then
	skip "caches" "no $CACHES in this kernel"
	finish
fi

trace_clear
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
base=$(cat $CACHES)
pids=
# niced, so that this shell keeps running beside them (TCG, 2 vCPUs)
for i in 1 2 3 4; do
	nice -n 19 "$SAMPLE" 100000000 > /dev/null &
	pids="$pids $!"
done
# each sample's stack is walked: it holds a cache (waits are for a count,
# bounded only to report a hang)
caches_at_least() { [ "$(cat $CACHES)" -ge "$1" ]; }
caches_at_most() { [ "$(cat $CACHES)" -le "$1" ]; }
wait_until 120 caches_at_least $((base + 4))
before=$(cat $CACHES)
check "while traced: the samples hold caches ($base -> $before)" test "$before" -ge $((base + 4))
tw $T/options/user_stacktrace_deferred 0
# they go on returning to user space: their caches go
wait_until 120 caches_at_most $((before - 4))
after=$(cat $CACHES)
check "option cleared: the running samples' caches are freed ($before -> $after)" \
	test "$after" -le $((before - 4))
kill -9 $pids 2>/dev/null
for p in $pids; do
	wait $p 2>/dev/null
done
tw $T/tracing_on 0
trace_clear
finish
