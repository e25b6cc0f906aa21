#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A buffer reset in the middle of a callback, forced (the 2026-11-28
# review's N10; deferred-reset-ids.sh tries the same race by chance). The
# callback names each frame's file by an id of the buffer's numbering,
# which "echo > trace" starts again; a callback that read the numbering
# before a reset and wrote its stack after it mixed ids of both numberings
# in one stack, and the reader named those frames after other files.
#
# A kprobe on trace_uu_file_add(), which the callback calls for each file
# the numbering lacks, is the only event of an instance of its own; a
# SCHED_FIFO thread of ustack-resetter, on the sample's CPU, sleeps in a
# read of that instance's trace_pipe. On a preemptible kernel the event's
# wakeup preempts the sample inside the callback; the thread has the
# buffer emptied from another CPU and spins until that is done. The
# sample's first callback numbers three files (its library, itself,
# libc): the first two of them each start a reset, so its stack holds
# ids of three numberings. Every stack entry of the sample must name its
# frames' files (its library three times, then itself three times), or
# not be there: the callback drops a stack whose numbering changed.
#
# Without the fix (no second look at the numbering) the first stack
# named its library's three frames after the program, whose id the
# library's had been in the numbering before (checked on the debug
# kernel: 199 stacks right, 1 wrong; with it, 199 right, the first one
# dropped).
# Preemption inside the callback needs CONFIG_PREEMPT (the debug kernel);
# the normal kernel (no forced preemption) skips.
# kernels: debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

RESETTER=$USTACK_PROGS/ustack-resetter
W=$T/instances/uu-waker

if ! grep -q '^CONFIG_PREEMPT=y' "${USTACK_KOBJ:-/nonexistent}/.config" 2>/dev/null; then
	skip "a reset forced inside a callback" "not a preemptible kernel (CONFIG_PREEMPT)"
	finish
fi
if [ "$(nproc)" -lt 2 ]; then
	skip "a reset forced inside a callback" "needs two CPUs"
	finish
fi
cleanup() {
	[ -d $W ] && { echo 0 > $W/events/kprobes/uu_file_add/enable; rmdir $W; }
	echo > $T/kprobe_events
}
trap cleanup EXIT

trace_clear
if ! tw $T/kprobe_events 'p:uu_file_add trace_uu_file_add'; then
	fail "a kprobe on trace_uu_file_add" "refused"
	finish
fi
mkdir $W
# the sample's callbacks only (the shell before its exec calls getppid too)
tw $W/events/kprobes/uu_file_add/filter 'comm == "ustack-sample"'
tw $W/events/kprobes/uu_file_add/enable 1
rm -f /tmp/rgate
mkfifo /tmp/rgate
# the sample, held until the filter has its pid; exec keeps the pid
sh -c 'read x < /tmp/rgate; exec taskset -c 1 "$0" 200' "$SAMPLE" > /tmp/rs.sample &
spid=$!
tw $T/set_event_pid "$spid"
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
"$RESETTER" $T uu-waker 1 2 > /tmp/rs.out 2>&1 &
rpid=$!
wait_until 10 grep -q ready /tmp/rs.out
sleep 1	# its waker thread asleep in the read
echo go > /tmp/rgate
wait $spid
# the two resets came in the first callback, or never: do not wait for more
kill $rpid 2>/dev/null
wait $rpid 2>/dev/null
tw $T/tracing_on 0
echo 0 > $W/events/kprobes/uu_file_add/enable

resets=$(sed -n 's/^resets //p' /tmp/rs.out)
echo "resetter: $(tr '\n' ' ' < /tmp/rs.out); sample: $(cat /tmp/rs.sample)"
# the sample's stack entries: its first six frames' files
awk -v pid="$spid" -v dir="$USTACK_PROGS" '
	/user_unwind_stack: / { in_st = index($1, "-" pid) == length($1) - length(pid); k = 0
		if (in_st) { n++; got[n] = "" }; next }
	in_st && /^ => / { if (++k <= 6) { f = $2; sub(/\+0x[0-9a-f]+$/, "", f); got[n] = got[n] " " f }; next }
	{ in_st = 0 }
	END {
		want = " " dir "/libustack-sample.so " dir "/libustack-sample.so " \
		       dir "/libustack-sample.so " dir "/ustack-sample " dir "/ustack-sample " \
		       dir "/ustack-sample"
		for (i = 1; i <= n; i++) {
			if (got[i] == want) { ok++; continue }
			bad++
			if (bad <= 3)
				print "wrong:" got[i] > "/dev/stderr"
		}
		print ok + 0, bad + 0
	}' $T/trace > /tmp/rs.counts 2> /tmp/rs.wrong
read -r ok bad < /tmp/rs.counts
calls=$(grep -c "\-$spid .*sys_getppid(" $T/trace)
echo "the sample's stacks: $ok right, $bad wrong; its getppid events in the buffer: $calls"
head -n 3 /tmp/rs.wrong
woken=$(grep -o 'ustack-sample-[0-9]* *\[001\][^:]*: uu_file_add:' /tmp/rs.out | grep -c .)
check "two resets (${resets:-none}), each started by the sample's callback on CPU 1 ($woken)" \
	test "${resets:-0}" = 2 -a "$woken" = 2
check "the sample's stacks after them: right ($ok of $calls calls)" test "$ok" -ge 100
check "none names a frame after another file ($bad)" test "$bad" = 0
echo > $T/set_event_pid
trace_clear
finish
