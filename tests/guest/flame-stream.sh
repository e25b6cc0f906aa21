#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame --stream (issue 41's streaming), the short run of make
# check; tests/long/flame-stream.sh (make check-stream) is the long one,
# with the default timeouts and --pprof-dir. A file of its own, not a mode
# of the long one: the two share the receiver (tests/lib/otlp-receiver.py)
# and their setup (tests/lib/flame-stream.sh).
# An instance with deferred user stacks (set by --deferred) is read while
# ustack-sample makes 20 getppid calls at a time; a profile per 0.5 s
# period is posted to the real OTLP/HTTP receiver on loopback, which
# decodes each export with python3-protobuf. The receiver is killed
# (SIGKILL) and started again on its port: what it took decodes to the
# sample's known chain only, what was posted while it was down is dropped
# after its tries and counted, sent + dropped = read = the calls made, the
# receivers took exactly the exports and samples counted sent, the ring
# buffer did not overrun, and SIGINT stops the streamer with its summary.
# Then the full queue, made deterministic: a receiver that holds the first
# post unanswered ("hold"), --post-timeout 300 so that the sender waits on
# it until the test kills that receiver, --queue 1, and a run of the
# sample for each of two periods more while it waits: the second of them
# finds the queue full and the period waiting is dropped from it, counted.
# --post-tries 2 keeps the posts to a receiver that is gone at 0.1 s of
# waits, not the default's 1.5 s. Guest time under TCG: see
# docs/flamegraph.md.
# kernels: normal
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"
. "$(dirname "$0")/../lib/flame-stream.sh"

# stream ERR ARGS...: the streamer (pid $flame) on the instance, its messages in $W/ERR
stream() {
	local err=$W/$1

	shift
	"$FLAME" -v --stream $NAME --deferred -c ustack-sample "$@" 2> "$err" &
	flame=$!
	pids="$pids $flame"
	wait_until 120 grep -q 'reading, a period every' "$err" ||
		{ fail "the streamer starts" "$(head -c 300 "$err")"; finish; }
}

# stop ERR: SIGINT to the streamer, its exit status in $rc, its messages shown
stop() {
	kill -INT $flame
	wait_until 120 bash -c "! kill -0 $flame 2> /dev/null" ||
		{ fail "SIGINT stops the streamer" "still running after 120 s"; kill -9 $flame; }
	wait $flame
	rc=$?
	sed 's/^/    /' $W/$1
}

# at WHAT: say how far the test is, in seconds of the guest's clock
at() { echo "    at ${SECONDS} s: $*"; }

# more N PATTERN FILE: whether FILE has more than N lines matching PATTERN
more() {
	local n

	n=$(grep -c "$2" "$3" 2> /dev/null)
	test "${n:-0}" -gt "$1"
}

# seen N PATTERN FILE: wait until FILE has more than N lines matching PATTERN
# (wait_until runs more again and again; a "$(...)" in its arguments would be
# expanded once, before the wait, and never seen to change)
seen() { wait_until 120 more "$@"; }

# exports LOG...: the number of exports the receivers logged
exports() { cat "$@" 2> /dev/null | grep -c '^export '; }

# run: ustack-sample makes $CALLS calls
run() {
	"$SAMPLE" $CALLS > /dev/null || { fail "ustack-sample runs" "exit $?"; finish; }
	calls=$((calls + CALLS))
}

# -- a receiver up, killed, started again on its port
calls=0
at "set up"
receiver first 0
at "the receiver started"
stream up.err --period 0.5 --queue 4 --post-tries 2 --post-timeout 10 \
	--otlp-endpoint "http://127.0.0.1:$port"
check "--deferred set the option" test "$(cat $I/options/user_stacktrace_deferred)" = 1
run
# sent: said once taken, so the kill below cuts no export in two
seen 0 'export [0-9]* sent' $W/up.err
check "the receiver takes exports while up ($(exports $W/first.log))" \
	test "$(exports $W/first.log)" -gt 0
at "an export taken"
kill -9 $recv_pid
wait $recv_pid 2> /dev/null
run
seen 0 'dropped after 2 tries: Connection refused' $W/up.err
check "with the receiver gone, an export is dropped after its 2 tries" \
	grep -q 'dropped after 2 tries: Connection refused' $W/up.err
at "an export dropped"
receiver second "$port"
at "the receiver started again"
n=$(grep -c 'export [0-9]* sent' $W/up.err)
run
seen "$n" 'export [0-9]* sent' $W/up.err
check "the receiver started again on its port takes exports ($(exports $W/second.log))" \
	test "$(exports $W/second.log)" -gt 0
at "an export taken again"
stop up.err
at "stopped"
check "SIGINT stops the streamer with its summary (exit $rc: 1 as it dropped)" \
	test "$rc" = 1 -a -n "$(grep -- '--stream .* events read' $W/up.err)"
check "--deferred cleared the option it set" \
	test "$(cat $I/options/user_stacktrace_deferred)" = 0
counts $W/up.err
check "every getppid call the sample made was read ($read_n of $calls)" \
	test "$read_n" = "$calls"
check "sent + dropped = read ($sent_n + $edrop_n + $qdrop_n = $read_n)" \
	test "$((sent_n + edrop_n + qdrop_n))" = "$read_n"
check "what was posted while the receiver was gone is counted dropped ($edrop, $edrop_n samples)" \
	test "$edrop" -gt 0 -a "$edrop_n" -gt 0
got=$(cat $W/first.log $W/second.log | awk '$1 == "export" { n += $2 } END { print n + 0 }')
check "the receivers took exactly the samples sent ($got of $sent_n)" test "$got" = "$sent_n"
got=$(exports $W/first.log $W/second.log)
check "the receivers took exactly the exports sent ($got of $sent)" test "$got" = "$sent"
bad=$(cat $W/first.log $W/second.log | grep -v '^export ' | grep -Ev "$RE" | head -n 3)
check "every stack received is the sample's known chain${bad:+: $bad}" test -z "$bad"
check "the ring buffer did not overrun (overruns: $overruns)" test "$overruns" = 0

# -- the full queue: the sender held by a receiver that does not answer
calls=0
receiver hold 0 hold
at "the holding receiver started"
stream queue.err --period 0.5 --queue 1 --post-tries 2 --post-timeout 300 \
	--otlp-endpoint "http://127.0.0.1:$port"
run
# the sender has taken the first period and waits for the answer
seen 0 '^held$' $W/hold.log ||
	{ fail "the receiver holds the first post" "no post came"; finish; }
at "the sender held"
for _ in 1 2; do
	n=$(grep -c 'period [0-9]* queued' $W/queue.err)
	run
	seen "$n" 'period [0-9]* queued' $W/queue.err
done
check "a period handed to the full queue drops the one waiting, said" \
	grep -q 'samples dropped: the queue is full (--queue 1)' $W/queue.err
# gone: the post held fails, the period queued is refused
at "two periods more queued"
kill -9 $recv_pid
wait $recv_pid 2> /dev/null
stop queue.err
at "stopped"
counts $W/queue.err
check "--queue 1: stopped, exit 1 (dropped)" test "$rc" = 1
check "--queue 1: every call read ($read_n of $calls)" test "$read_n" = "$calls"
check "--queue 1: periods dropped from the full queue are counted ($qdrop, $qdrop_n samples)" \
	test "$qdrop" -gt 0 -a "$qdrop_n" -gt 0
check "--queue 1: sent + dropped = read ($sent_n + $edrop_n + $qdrop_n = $read_n)" \
	test "$((sent_n + edrop_n + qdrop_n))" = "$read_n"
check "--queue 1: none sent, the held one dropped by the endpoint ($sent, $edrop)" \
	test "$sent" = 0 -a "$edrop" -gt 0
check "--queue 1: the ring buffer did not overrun while the sender waited ($overruns)" \
	test "$overruns" = 0
finish
