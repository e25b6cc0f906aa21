#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The live stitched view through libtracefs-ext: an instance with deferred
# user stacks, read while it holds the trace (ustack_stitch_instance(), by
# the man page's example program), gives every getppid event of ustack-sample
# exactly the known chain, symbolized.
# timeout: 240
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

STITCH_BIN=$USTACK_TOP/build/libtracefs-ext/examples/stitch
I=$T/instances/stitch-live

if [ ! -x "$STITCH_BIN" ]; then
	fail "example built" "no $STITCH_BIN (make libtracefs-ext)"
	finish
fi
rmdir $I 2>/dev/null
mkdir $I || { fail "instance" "cannot create $I"; finish; }
tw $I/events/raw_syscalls/sys_enter/enable 1
tw $I/events/raw_syscalls/sys_exit/enable 1
tw $I/options/user_stacktrace_deferred 1
"$SAMPLE" 5 > /tmp/out 2>&1 &
pid=$!
wait $pid
tw $I/tracing_on 0

"$STITCH_BIN" -i stitch-live > /tmp/live.txt 2>/tmp/live.err
check "stitch -i INSTANCE runs" test $? = 0 -a -s /tmp/live.txt
# pid|event|symbols of the frames under it
awk -v p="$pid" '
	/^  => / { if (cur) { f = $2; sub(/\+0x[0-9a-f]+$/, "", f); st[cur] = st[cur] " " f } ; next }
	{ cur = "" }
	index($0, "-" p " ") && $0 ~ /sys_(enter|exit): *NR 110 / { n++; cur = n; ev[n] = $0 }
	END { for (i = 1; i <= n; i++) print ev[i] "|" substr(st[i], 2) }' /tmp/live.txt > /tmp/live.ev
n=$(wc -l < /tmp/live.ev)
bad=
while IFS='|' read -r ev frames; do
	[ "$(first_n 6 "$frames")" = "$CHAIN" ] || bad="$ev: '$frames'"
done < /tmp/live.ev
if [ "$n" = 10 ] && [ -z "$bad" ]; then
	pass "live instance: 10 getppid events, each with exactly the known chain"
else
	fail "live instance: 10 getppid events, each with exactly the known chain" \
		"$n events; $bad $(head -c 200 /tmp/live.err)"
fi
# (the shell's own last write, to tracing_on, may lose its stack: not counted)
lost=$(awk -v p="$pid" '/^  => / { if (ours && index($0, "stack lost")) n++; next }
	{ ours = index($0, "-" p " ") > 0 } END { print n + 0 }' /tmp/live.txt)
check "live instance: no stack of the program lost" test "$n" -gt 0 -a "$lost" = 0
# reading consumed the buffer: a second read has none of the program's events
"$STITCH_BIN" -i stitch-live > /tmp/live2.txt 2>&1
check "live instance: reading consumed the events" \
	test "$n" -gt 0 -a "$(grep -c -- "-$pid " /tmp/live2.txt)" = 0
tw $I/options/user_stacktrace_deferred 0
echo 0 > $I/events/enable
rmdir $I
finish
