#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame --stream (issue 41's streaming), the long run (make
# check-stream), with the default tries and timeouts of --otlp-endpoint;
# tests/guest/flame-stream.sh is the short one of make check. A live
# instance with deferred user stacks (the option set by --deferred) read
# while ustack-sample runs, a profile per 0.5 s period posted to a real
# OTLP/HTTP receiver on loopback (tests/lib/otlp-receiver.py, decoding each
# export with python3-protobuf), which is killed mid-run and started again.
# Every export the receiver took decodes and holds only the sample's known
# getppid chain; the getppid calls the sample made, the samples the
# streamer read, and those sent plus those dropped (by the endpoint, or
# from the full queue) are the same number; the receiver took exactly the
# ones sent; the ring buffer overran by nothing while the receiver was down
# (the instance's per-CPU "overrun" and "dropped events", before and after,
# as the streamer says them) and no stack was lost: the reader kept reading
# while the sender waited. A receiver that takes the first post and never
# answers holds the sender 5 tries of 5 s with --queue 1: the reader queues
# two periods more meanwhile, the second drops the first from the full
# queue, counted, and the ring buffer does not overrun. Then --pprof-dir
# once, stopped by SIGTERM: its files decode and hold every call.
# timeout: 600
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"
. "$(dirname "$0")/../lib/flame-stream.sh"

# exports LOG...: the number of exports the receivers logged
exports() { cat "$@" 2> /dev/null | grep -c '^export '; }

# more N PATTERN FILE: whether FILE has more than N lines matching PATTERN
# (for wait_until, which runs it again and again: a "$(...)" in its own
# arguments is expanded once, and waited on to the end of its bound)
more() {
	local n

	n=$(grep -c "$2" "$3" 2> /dev/null)
	test "${n:-0}" -gt "$1"
}

# runs N: N runs of ustack-sample, each $CALLS getppid calls
runs() {
	local i

	for ((i = 0; i < $1; i++)); do
		"$SAMPLE" $CALLS > /dev/null || { fail "ustack-sample runs" "exit $?"; finish; }
		calls=$((calls + CALLS))
	done
}

calls=0
receiver first
"$FLAME" -v --stream $NAME --deferred -c ustack-sample --period 0.5 --queue 2 \
	--otlp-endpoint "http://127.0.0.1:$port" 2> $W/stream.err &
flame=$!
pids="$pids $flame"
wait_until 120 grep -q 'reading, a period every' $W/stream.err ||
	{ fail "the streamer starts" "$(head -c 300 $W/stream.err)"; finish; }
check "--deferred set the option" test "$(cat $I/options/user_stacktrace_deferred)" = 1

# up: exports come; said sent once taken, so the kill below cuts none in two
runs 3
wait_until 120 more 0 'export [0-9]* sent' $W/stream.err
check "the receiver takes exports while up ($(exports $W/first.log))" \
	test "$(exports $W/first.log)" -gt 0

# down: the exports of these runs are dropped, counted; the reader reads on
kill -9 $recv_pid
wait $recv_pid 2> /dev/null
runs 3
wait_until 300 grep -q 'dropped after 5 tries' $W/stream.err
check "with the receiver down, an export is dropped after its retries" \
	grep -q 'dropped after 5 tries' $W/stream.err
runs 2

# up again, on the same port
receiver second "$port"
n=$(grep -c 'export [0-9]* sent' $W/stream.err)
runs 3
wait_until 300 more "$n" 'export [0-9]* sent' $W/stream.err
check "the receiver started again takes exports ($(exports $W/second.log))" \
	test "$(exports $W/second.log)" -gt 0
runs 1
kill -INT $flame
wait_until 300 bash -c "! kill -0 $flame 2> /dev/null"
wait $flame
rc=$?
check "SIGINT stops the streamer, which says its counts (exit $rc: 1 when it dropped)" \
	test "$rc" = 1 -a -n "$(grep -- '--stream .* events read' $W/stream.err)"
check "--deferred cleared the option it set" \
	test "$(cat $I/options/user_stacktrace_deferred)" = 0
sed 's/^/    /' $W/stream.err

counts $W/stream.err
echo "    read $read_n in $periods periods; sent $sent ($sent_n), endpoint dropped" \
	"$edrop ($edrop_n), queue dropped $qdrop ($qdrop_n); overruns $overruns"
check "the streamer read every getppid call the sample made ($read_n of $calls)" \
	test "$read_n" = "$calls"
check "sent + dropped = read ($sent_n + $edrop_n + $qdrop_n = $read_n)" \
	test "$((sent_n + edrop_n + qdrop_n))" = "$read_n"
check "something was dropped while the receiver was down ($edrop, $qdrop)" \
	test "$((edrop + qdrop))" -gt 0
got=$(cat $W/first.log $W/second.log | awk '$1 == "export" { n += $2 } END { print n + 0 }')
check "the receivers took exactly what was sent ($got of $sent_n events)" test "$got" = "$sent_n"
check "the receivers took exactly the exports sent ($(exports $W/first.log $W/second.log))" \
	test "$(exports $W/first.log $W/second.log)" = "$sent"
bad=$(cat $W/first.log $W/second.log | grep -v '^export ' | grep -Ev "$RE" | head -n 3)
check "every stack received is the sample's known chain${bad:+: $bad}" test -z "$bad"
check "no export was refused by the receiver as undecodable" \
	bash -c "! grep -q 'bad export' $W/stream.err"
check "the ring buffer lost nothing while the receiver was down (overruns: $overruns)" \
	test "$overruns" = 0

# -- a receiver that takes the first post and never answers ("hold"), with
# the default tries and timeout: the sender waits on that export 5 tries of
# 5 s (and 1.5 s between them; the tries after the first wait unread in the
# receiver's backlog), --queue 1; the reader reads on, and of the two
# periods it queues while the sender waits, the second drops the first from
# the full queue (the short test, tests/guest/flame-stream.sh, shows that
# drop with a sender held as long as it takes; here the hold is the
# default's 26.5 s and the two runs of the sample take a few)
receiver hold 0 hold
calls=0
"$FLAME" -v --stream $NAME --deferred -c ustack-sample --period 0.2 --queue 1 \
	--otlp-endpoint "http://127.0.0.1:$port" 2> $W/queue.err &
flame=$!
pids="$pids $flame"
wait_until 120 grep -q 'reading, a period every' $W/queue.err ||
	{ fail "the streamer starts (--queue 1)" "$(head -c 300 $W/queue.err)"; finish; }
t0=$SECONDS
runs 1
wait_until 120 more 0 '^held$' $W/hold.log ||
	{ fail "--queue 1: the receiver holds the first post" "no post came"; finish; }
for _ in 1 2; do
	n=$(grep -c 'period [0-9]* queued' $W/queue.err)
	runs 1
	wait_until 120 more "$n" 'period [0-9]* queued' $W/queue.err
done
check "--queue 1: a period handed to the full queue drops the one waiting, said" \
	grep -q 'samples dropped: the queue is full (--queue 1)' $W/queue.err
wait_until 120 grep -q 'export 1 of [0-9]* events dropped after 5 tries: Connection timed out' \
	$W/queue.err
held=$((SECONDS - t0))
check "--queue 1: the held export is dropped after 5 tries that time out (${held} s)" \
	grep -q 'export 1 of [0-9]* events dropped after 5 tries: Connection timed out' \
	$W/queue.err
check "--queue 1: 5 tries of 5 s and the waits between them took 26.5 s (${held} s)" \
	test "$held" -ge 26
# gone: the period queued is refused
kill -9 $recv_pid
kill -INT $flame
wait_until 300 bash -c "! kill -0 $flame 2> /dev/null"
wait $flame
rc=$?
sed 's/^/    /' $W/queue.err
counts $W/queue.err
check "--queue 1: stopped, exit 1 (dropped)" test "$rc" = 1
check "--queue 1: every call read ($read_n of $calls)" test "$read_n" = "$calls"
check "--queue 1: sent + dropped = read ($sent_n + $edrop_n + $qdrop_n = $read_n)" \
	test "$((sent_n + edrop_n + qdrop_n))" = "$read_n"
check "--queue 1: none sent ($sent)" test "$sent" = 0
check "--queue 1: periods dropped from the full queue, counted ($qdrop, $qdrop_n samples)" \
	test "$qdrop" -gt 0 -a "$qdrop_n" -gt 0
check "--queue 1: the ring buffer lost nothing while the sender waited ($overruns)" \
	test "$overruns" = 0

# -- --pprof-dir, once, stopped by SIGTERM
mkdir -p $W/pd
calls=0
tw $I/options/user_stacktrace_deferred 1
"$FLAME" -v --stream $NAME -c ustack-sample --period 0.5 --pprof-dir $W/pd \
	2> $W/pd.err &
flame=$!
pids="$pids $flame"
wait_until 120 grep -q 'reading, a period every' $W/pd.err ||
	{ fail "the streamer starts (--pprof-dir)" "$(head -c 300 $W/pd.err)"; finish; }
runs 2
kill -TERM $flame
wait_until 300 bash -c "! kill -0 $flame 2> /dev/null"
wait $flame
rc=$?
check "--pprof-dir: SIGTERM stops it, exit 0" test "$rc" = 0
sed 's/^/    /' $W/pd.err
n=0
bad=
for f in $W/pd/*; do
	case $f in
	*/ustack-[0-9][0-9][0-9][0-9][0-9][0-9].pb.gz) ;;
	*) bad="$bad $f" ;;
	esac
	c=$(gzip -dc "$f" | protoc --decode=perftools.profiles.Profile -I "$PROTO" pprof.proto |
		grep -c '^  value: 1$') || bad="$bad $f"
	n=$((n + c))
done
check "--pprof-dir: only ustack-NNNNNN.pb.gz files, each decodes${bad:+:$bad}" test -z "$bad"
check "--pprof-dir: the files hold every call ($n of $calls)" test "$n" = "$calls"
tw $I/options/user_stacktrace_deferred 0
finish
