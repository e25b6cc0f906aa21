#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame --stream keeps its own threads out of the events it reads
# (flamegraph/flame-notrace.c). An instance with raw_syscalls:sys_enter,
# which sees every system call, the streamer's read()s of the ring buffers
# among them, and "1" already in its set_event_notrace_pid: while the
# streamer runs, the file holds 1 and the ids of both of its threads; the
# streamer reads what the machine's other tasks do (bounded: the reader
# catches up, its longest pause between reads is short) and SIGINT stops it
# at once; after it, the file holds 1 again. Before the fix the streamer's
# reads fed the buffers they emptied: in the README tour's run 3 million
# events and a 137 s pause in a minute, and here a SIGINT never ended the
# last read (the guest was killed after 300 s).
# kernels: normal
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

FLAME=$USTACK_TOP/build/flamegraph/ustack-flame
NAME=flame-self
I=$T/instances/$NAME
W=/tmp/flame-self

if [ ! -x "$FLAME" ]; then
	fail "ustack-flame built" "no $FLAME (make flamegraph)"
	finish
fi
if [ ! -e $T/set_event_notrace_pid ]; then
	skip "the streamer's threads kept out" "no set_event_notrace_pid in this kernel"
	finish
fi
rmdir $I 2> /dev/null
mkdir $I || { fail "instance" "cannot create $I"; finish; }
cleanup() {
	[ -n "${flame:-}" ] && kill -9 "$flame" 2> /dev/null
	echo 0 > $I/events/enable
	rmdir $I
}
trap cleanup EXIT
tw $I/events/raw_syscalls/sys_enter/enable 1
tw $I/set_event_notrace_pid 1
rm -rf $W
mkdir -p $W/pprof

"$FLAME" -v --stream $NAME --pprof-dir $W/pprof --period 1 2> $W/err &
flame=$!
wait_until 60 grep -q 'reading, a period every' $W/err ||
	{ fail "the streamer starts" "$(head -c 300 $W/err)"; finish; }
# the machine's other tasks make system calls meanwhile
for i in 1 2 3 4 5; do
	ls /proc > /dev/null
	sleep 0.5
done
during=$(sort -n $I/set_event_notrace_pid | tr '\n' ' ')
tids=$(ls /proc/$flame/task | sort -n | tr '\n' ' ')
check "while it runs, set_event_notrace_pid holds 1 and its threads ($during; threads $tids)" \
	test "$during" = "$(printf '%s\n' 1 $tids | sort -n | tr '\n' ' ')"
t0=$(date +%s%N)
kill -INT $flame
wait_until 60 bash -c "! kill -0 $flame 2> /dev/null"
t1=$(date +%s%N)
kill -9 $flame 2> /dev/null	# still reading: the check below fails
wait $flame
rc=$?
flame=
summary=$(grep -- '--stream .* events read' $W/err)
echo "    $summary"
check "SIGINT stops it in $(((t1 - t0) / 1000000)) ms (exit $rc)" \
	test "$rc" = 0 -a -n "$summary" -a $(((t1 - t0) / 1000000)) -lt 20000
pause=$(echo "$summary" | sed -n 's/.*longest pause between reads: \([0-9]*\) ms.*/\1/p')
check "the reader kept up: its longest pause between reads was ${pause:-?} ms" \
	test -n "$pause" -a "${pause:-99999}" -lt 5000
check "its overruns: $(echo "$summary" | sed -n 's/.*overruns: \([^;]*\);.*/\1/p')" \
	sh -c "echo '$summary' | grep -q 'overruns: 0;'"
check "after it, set_event_notrace_pid holds 1 again ($(cat $I/set_event_notrace_pid | tr '\n' ' '))" \
	test "$(cat $I/set_event_notrace_pid)" = 1
finish
