#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Uprobe events are recorded preemptibly: on a preemptible kernel a task
# can move to another CPU between its cookie entry and its event, unless
# the kernel keeps both on one CPU. The sample's probed function runs
# 20000 times while another task moves it between the CPUs as fast as it
# can; every probe event must have the sample's exact stack or none, never
# another one. On the normal kernel this stresses the window; it cannot
# force it. The debug kernel (PREEMPT, DEBUG_PREEMPT, lockdep) forces it:
# the mark asserts that preemption is off, so a mark made preemptibly is a
# kernel report at the first probe event.
# The mover is a thread of the sample (ustack-sample CALLS moved): after
# each move it waits until a call that began after the move is done, so
# the sample is moved at least twice with a call on each new CPU whatever
# the host's speed, making more calls when that is what it takes.
# kernels: normal debug
# timeout: 600
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

LIB=$USTACK_PROGS/libustack-sample.so
CALLS=20000
preempt=$(uname -v | grep -o 'PREEMPT[_A-Z]*' | head -n 1)

off=$(lib_offset ustack_lib_syscall)

trace_clear
tw $T/buffer_size_kb 8192
if ! echo "p:ustack_mig $LIB:$off" > $T/uprobe_events; then
	fail "migrate: a uprobe at $LIB:$off"
	finish
fi
tw $T/events/uprobes/ustack_mig/enable 1
tw $T/options/user_stacktrace_deferred 1
gated "$SAMPLE" $CALLS moved
tw $T/tracing_on 1
open_gate
# it ends by itself, or gives up when the moves do not come (120 s)
wait $GATED_PID
rc=$?
tw $T/tracing_on 0
stitched | awk -F'|' -v p=$GATED_PID '$1 == p && index($4, "ustack_mig:") == 1' > /tmp/mig

read -r made moves <<< "$(sed -n 's/^ustack-sample: \([0-9]*\) calls, \([0-9]*\) moves$/\1 \2/p' /tmp/gated.out)"
if [ $rc = 0 ] && [ "${made:-0}" -ge $CALLS ] && [ "${moves:-0}" -ge 2 ]; then
	pass "migrate: $made calls, moved $moves times, each time a call on the new CPU"
else
	fail "migrate: $CALLS calls or more, moved twice or more, a call on each new CPU" \
		"exit $rc: $(tr '\n' ' ' < /tmp/gated.out)"
fi
n=$(wc -l < /tmp/mig)
cpus=$(cut -d'|' -f2 /tmp/mig | sort -u | wc -l)
check "migrate: a probe event per call ($n of ${made:-?}) on both CPUs ($cpus; ${preempt:-no PREEMPT} kernel)" \
	test "$n:$cpus" = "${made:-0}:2"
read -r n good none <<< "$(cut -d'|' -f5 /tmp/mig | chain_count)"
check "migrate: no probe event has another stack ($good exact, $none without)" \
	test $((good + none)) = "$n"
check "migrate: most have their stack ($good of $n)" test $((good * 10)) -ge $((n * 9))
tw $T/events/uprobes/ustack_mig/enable 0
echo > $T/uprobe_events
trace_clear
tw $T/buffer_size_kb 1408
finish
