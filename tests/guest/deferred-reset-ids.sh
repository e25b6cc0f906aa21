#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A buffer reset during a callback must not mix two numberings of files
# in one stack (the 2026-11-28 review's N10). The callback names each
# frame's file by an id of the buffer's current numbering; "echo > trace"
# starts a new one (ids from 1 again). A callback that read the
# generation before the reset and wrote after it put old ids in a stack
# of the new numbering, with no file entry for them, or naming another
# file. Now the callback reads the generation again with preemption off,
# and drops the stack when it changed.
#
# 6 copies of ustack-sample, each with its own copy of its library (so 12
# files, numbered in the order stacks name them), make getppid calls in a
# loop while the buffer is reset 40 times. After the last reset, every
# getppid stack must be the sample's: its three library frames in that
# task's library and its three program frames in that task's program, or
# lost (never written); no frame may name a file of another task or an
# unnumbered file (file#N). Only the stacks around the last reset stay to
# be read, so each run tries the race once per CPU; it was not shown to
# fail without the fix (37,739 right, none wrong or lost, with it).
# deferred-reset-forced.sh forces the race, and fails without the fix.
# kernels: normal debug
# timeout: 600
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

N=6
cd /tmp || exit 1
for i in $(seq $N); do
	mkdir -p /tmp/ids$i
	cp "$SAMPLE" "$USTACK_PROGS/libustack-sample.so" /tmp/ids$i/
done

trace_clear
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
pids=
for i in $(seq $N); do
	/tmp/ids$i/ustack-sample 1000000000 > /dev/null &
	pids="$pids $!"
done
for r in $(seq 40); do
	echo > $T/trace
done
# some calls of every task after the last reset: counted from the
# buffer's statistics, as reading trace while six tasks fill the buffer
# never ends (its iterator keeps being overtaken)
entries() { cat $T/per_cpu/cpu*/stats | awk '$1 == "entries:" { n += $2 } END { print n + 0 }'; }
enough() { test "$(entries)" -ge 3000; }
wait_until 120 enough
kill $pids 2>/dev/null
wait $pids 2>/dev/null
tw $T/tracing_on 0

stitched > /tmp/ids.st
# pid -> the task's directory, from the pids started in order
i=0
: > /tmp/ids.dirs
for p in $pids; do
	i=$((i + 1))
	echo "$p /tmp/ids$i" >> /tmp/ids.dirs
done
# the getppid stacks of the tasks: ok, lost, or wrong (a frame elsewhere)
awk -F'|' 'NR == FNR { dir[$1] = $2; next }
	!($1 in dir) || !index($4, "sys_getppid(") { next }
	$5 == "LOST" || $5 == "NOCOOKIE" { lost++; next }
	{
		n = split($5, f, " ")
		want = " " dir[$1] "/libustack-sample.so+ " dir[$1] "/libustack-sample.so+ " \
		       dir[$1] "/libustack-sample.so+ " dir[$1] "/ustack-sample+ " \
		       dir[$1] "/ustack-sample+ " dir[$1] "/ustack-sample+"
		got = ""
		for (k = 1; k <= 6 && k <= n; k++) {
			s = f[k]
			sub(/0x[0-9a-f]+$/, "", s)
			got = got " " s
		}
		if (got == want)
			ok++
		else {
			bad++
			if (bad <= 5)
				print "wrong: " $1 " " $5 > "/dev/stderr"
		}
	}
	END { print ok + 0, lost + 0, bad + 0 }' FS=' ' /tmp/ids.dirs FS='|' /tmp/ids.st \
	> /tmp/ids.counts 2> /tmp/ids.wrong
read -r ok lost bad < /tmp/ids.counts
echo "pids:$pids; events: $(grep -vc '^STACKS|' /tmp/ids.st)"
grep -v '^STACKS|' /tmp/ids.st | head -n 3 | cut -c1-300
echo "stacks after the last reset: $ok right, $lost lost, $bad wrong"
head -n 5 /tmp/ids.wrong
check "the tasks' stacks after 40 resets: some right ($ok)" test "$ok" -ge 10
check "none names another task's file or an unnumbered one ($bad)" test "$bad" = 0
trace_clear
finish
