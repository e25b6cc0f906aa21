#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Uprobe events are recorded preemptibly: on a preemptible kernel a task
# can move to another CPU between its cookie entry and its event, unless
# the kernel keeps both on one CPU. The sample's probed function runs
# 20000 times while another task moves it between the CPUs as fast as it
# can;
# every probe event must have the sample's exact stack or none, never
# another one. On the normal kernel this stresses the window; it cannot
# force it. The debug kernel (PREEMPT, DEBUG_PREEMPT, lockdep) forces it:
# the mark asserts that preemption is off, so a mark made preemptibly is a
# kernel report at the first probe event.
# kernels: normal debug
# timeout: 600
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

LIB=$USTACK_PROGS/libustack-sample.so
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
# One run of the sample, moved by another task; its probe events in /tmp/mig.
migrate_run() {
	local mover

	echo > $T/trace
	gated "$SAMPLE" 20000
	(
		# move it between CPU 0 and 1 until it is gone
		while kill -0 $GATED_PID 2>/dev/null; do
			taskset -p 1 $GATED_PID > /dev/null 2>&1
			taskset -p 2 $GATED_PID > /dev/null 2>&1
		done
	) &
	mover=$!
	tw $T/tracing_on 1
	open_gate
	wait $GATED_PID
	tw $T/tracing_on 0
	wait $mover
	stitched | awk -F'|' -v p=$GATED_PID '$1 == p && index($4, "ustack_mig:") == 1' > /tmp/mig
}

# The mover may not get a turn before a run ends: run again until the
# sample did move (bounded), instead of depending on the timing.
for round in 1 2 3 4 5 6 7 8 9 10; do
	migrate_run
	[ "$(cut -d'|' -f2 /tmp/mig | sort -u | wc -l)" -ge 2 ] && break
done
n=$(wc -l < /tmp/mig)
cpus=$(cut -d'|' -f2 /tmp/mig | sort -u | wc -l)
check "migrate: 20000 probe events ($n) on both CPUs ($cpus, run $round; ${preempt:-no PREEMPT} kernel)" \
	test "$n:$cpus" = 20000:2
read -r n good none <<< "$(cut -d'|' -f5 /tmp/mig | chain_count)"
check "migrate: no probe event has another stack ($good exact, $none without)" \
	test $((good + none)) = "$n"
check "migrate: most have their stack ($good of $n)" test $((good * 10)) -ge $((n * 9))
tw $T/events/uprobes/ustack_mig/enable 0
echo > $T/uprobe_events
trace_clear
tw $T/buffer_size_kb 1408
finish
