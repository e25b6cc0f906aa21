#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two instances with user_stacktrace_deferred, one without: stacks land
# only where asked, and one unwind per kernel entry serves both.
# kernels: normal debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

trace_clear
for i in a b c; do
	mkdir $T/instances/$i || fail "mkdir instance $i"
	check "instance $i: option off by default" test "$(cat $T/instances/$i/options/user_stacktrace_deferred)" = 0
	tw $T/instances/$i/events/syscalls/sys_enter_getppid/enable 1
done
tw $T/instances/a/options/user_stacktrace_deferred 1
tw $T/instances/b/options/user_stacktrace_deferred 1
# Count the walks: a kprobe on the unwinder, in the top instance.
tw $T/kprobe_events 'p:ustack_walk unwind_user'
tw $T/events/kprobes/ustack_walk/enable 1
tw $T/tracing_on 1
"$SAMPLE" 5 > /dev/null &
pid=$!
wait $pid
tw $T/tracing_on 0

for i in a b c; do
	stitched $T/instances/$i | awk -F'|' -v p="$pid" '$1 == p' > /tmp/$i.st
	stitched $T/instances/$i | awk -F'|' -v p="$pid" '$1 == "STACKS" && $4 == p' > /tmp/$i.stacks
done
for i in a b; do
	n=$(grep -c 'getppid' /tmp/$i.st)
	ok=$(awk -F'|' '$3 != "" && $5 != "LOST" && $5 != "NOCOOKIE"' /tmp/$i.st | wc -l)
	check "instance $i: 5 events, each with its stack" test "$n" = 5 -a "$ok" = 5
	check "instance $i: 5 stack entries" test "$(wc -l < /tmp/$i.stacks)" = 5
done
check "instances a and b carry the same cookies" \
	test "$(cut -d'|' -f3 /tmp/a.st | sort)" = "$(cut -d'|' -f3 /tmp/b.st | sort)"
check "instance c: events but no cookies" test "$(grep -c getppid /tmp/c.st)" = 5 -a \
	"$(grep -vc NOCOOKIE /tmp/c.st)" = 0
check "instance c: no user_unwind entries" test "$(grep -c user_unwind $T/instances/c/trace)" = 0
check "top instance: no user_unwind entries" test "$(grep -c user_unwind $T/trace)" = 0
walks=$(grep -c "ustack-sample-$pid .*ustack_walk" $T/trace)
check "one walk per kernel entry for two instances ($walks walks, 5 entries + exit)" \
	test "$walks" -ge 5 -a "$walks" -le 7

# An instance removed with the option set releases its consumer.
tw $T/events/kprobes/ustack_walk/enable 0
echo > $T/kprobe_events
for i in a b c; do
	rmdir $T/instances/$i || fail "rmdir instance $i"
done
pass "instances with the option removed"
# Consumers are limited; the limit is an error, not a crash.
n=0
for i in $(seq 1 70); do
	mkdir $T/instances/lim$i
	echo 1 > $T/instances/lim$i/options/user_stacktrace_deferred 2>/dev/null || break
	n=$i
done
for i in $(seq 1 70); do
	[ -d $T/instances/lim$i ] && rmdir $T/instances/lim$i
done
check "consumer limit gives an error after $n instances" test "$n" -ge 60 -a "$n" -lt 70
check "the option still works after that" sh -c "echo 1 > $T/options/user_stacktrace_deferred && echo 0 > $T/options/user_stacktrace_deferred"
trace_clear
finish
