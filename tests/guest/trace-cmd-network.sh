#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stock trace-cmd over the network: "trace-cmd listen" in the background, and
# "trace-cmd record -N localhost:PORT -O user_stacktrace_deferred" of
# ustack-sample sends it the trace; "trace-cmd report" with the plugin then
# shows the exact known chain under each getppid event of the file received
# (the records went through trace-cmd's network protocol, the user_unwind_*
# entries with them). The guest kernel has INET and loopback, so a listener
# that cannot listen or a record that cannot connect is a FAIL, not a SKIP.
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

PLUGIN_DIR=$USTACK_TOP/build/trace-cmd-plugin
AWK=$USTACK_TOP/tests/lib/report-stacks.awk
PORT=18761
DIR=/tmp/listen
N=5

if [ ! -r "$PLUGIN_DIR/plugin_ustack.so" ]; then
	fail "plugin built" "no $PLUGIN_DIR/plugin_ustack.so (make trace-cmd-plugin)"
	finish
fi
if [ ! -e $T/options/user_stacktrace_deferred ]; then
	fail "option exists" "no $T/options/user_stacktrace_deferred"
	finish
fi

# The program and its library in a directory of their own (rpath $ORIGIN).
P=/tmp/net-progs
mkdir -p $P $DIR
cp "$SAMPLE" "$USTACK_PROGS/libustack-sample.so" $P/
cd /tmp || exit 1

lpid=
stop_listener() {
	[ -n "$lpid" ] && kill "$lpid" 2>/dev/null && wait "$lpid" 2>/dev/null
	lpid=
}
trap stop_listener EXIT

# listening: the port in /proc/net/tcp{,6} in state 0A (LISTEN)
listening() {
	local hex
	hex=$(printf '%04X' $PORT)
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p=":$hex" \
		'$2 ~ p"$" && $4 == "0A" { found = 1 } END { exit !found }'
}

trace-cmd listen -p $PORT -d $DIR > /tmp/listen.log 2>&1 &
lpid=$!
# listening, or gone (it cannot listen: FAIL); still there and not
# listening after the bound is a hang (FAIL)
listening_or_gone() { listening || ! kill -0 $lpid 2>/dev/null; }
wait_until 120 listening_or_gone
if ! listening && ! kill -0 $lpid 2>/dev/null; then
	fail "trace-cmd listen -p $PORT listens" \
		"it exited: $(tail -n 2 /tmp/listen.log | tr '\n' ' ')"
	finish
fi
if ! listening; then
	fail "trace-cmd listen -p $PORT listens" "not listening after 120 s: $(tail -n 2 /tmp/listen.log | tr '\n' ' ')"
	finish
fi
pass "trace-cmd listen -p $PORT listens"

out=$(trace-cmd record -q -N localhost:$PORT -O user_stacktrace_deferred -e raw_syscalls \
	-F $P/ustack-sample $N 2>&1)
rc=$?
if [ $rc = 0 ] && echo "$out" | grep -q "ustack-sample: $N calls"; then
	pass "trace-cmd record -N localhost:$PORT -O user_stacktrace_deferred"
else
	fail "trace-cmd record -N localhost:$PORT -O user_stacktrace_deferred" "exit $rc: $out"
fi
check "the option is put back after the record" test "$(cat $T/options/user_stacktrace_deferred)" = 0

# The listener's child writes trace.HOST:PORT.dat and exits when the client is
# done: wait until the file reads whole (the sample's calls are there).
file=
received() {
	local f

	for f in $DIR/*.dat; do
		[ -s "$f" ] || continue
		if [ "$(trace-cmd report -N -i "$f" 2>/dev/null | grep -c 'sys_enter: *NR 110 ')" = $N ]; then
			file=$f
			return 0
		fi
	done
	return 1
}
wait_until 120 received
stop_listener
if [ -z "$file" ]; then
	fail "the listener wrote the trace" "$(ls -l $DIR) $(tail -n 3 /tmp/listen.log | tr '\n' ' ')"
	finish
fi
pass "the listener wrote the trace: ${file#$DIR/}"
check "the received trace has the deferred entries" \
	test "$(trace-cmd report -N -i "$file" 2>/dev/null | grep -c 'user_unwind_stack:')" -gt 0

# every getppid event (NR 110, entry and exit) with exactly the chain; -F traced
# the sample alone. The received file has no command name for its pid (record
# -N of trace-cmd 3.1.6 sends no saved_cmdlines for it): report says "<...>".
export TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR
trace-cmd report -i "$file" > /tmp/net.txt 2>/tmp/net.err
stacks() {
	awk -f "$AWK" /tmp/net.txt |
		awk -F'|' '$1 ~ /^(ustack-sample|<\.\.\.>)-[0-9]+$/ && $2 ~ /sys_(enter|exit): *NR 110 /'
}
n=$(stacks | wc -l)
bad=
while IFS="|" read -r _ ev frames; do
	[ "$(first_n 6 "$frames")" = "$CHAIN" ] || bad="$ev: '$frames'"
done < <(stacks)
if [ "$n" = $((2 * N)) ] && [ -z "$bad" ]; then
	pass "report of the received trace: the $((2 * N)) getppid events, each with exactly the chain"
else
	fail "report of the received trace: the $((2 * N)) getppid events, each with exactly the chain" \
		"$n events; $bad"
fi
check "report: the frames name the sample's binaries" \
	grep -q "^ => sample_middle+0x[0-9a-f]* ($P/ustack-sample)$" /tmp/net.txt
check "report: no stack lost" test "$(grep -c 'user stack lost' /tmp/net.txt)" = 0
check "report: the plugin said nothing on stderr" test ! -s /tmp/net.err
trace_clear
finish
