#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Buffers swapped and CPU buffers emptied while user_stacktrace_deferred is
# set. A snapshot swap puts other entries in the live buffer: what the CPU
# state says of cookies no longer holds there, and an event must not take
# the cookie of another kernel entry from them. Emptying one CPU's buffer
# (per_cpu/cpuN/trace opened with O_TRUNC) forgets what that CPU's entries
# said, and nothing else: file ids stay, other CPUs' file entries stay.
# A snapshot read after the live buffer was emptied and its files numbered
# again names no file of the new numbering.
# kernels: normal debug
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

if [ ! -e $T/snapshot ]; then
	skip "swap" "no snapshot in this kernel (CONFIG_TRACER_SNAPSHOT)"
	finish
fi

# 1. A task that swaps the buffers itself, between its own system calls,
# pinned to one CPU. Every kernel entry's cookie, over both buffers in time
# order, must be carried by that entry's events only.
trace_clear
tw $T/events/raw_syscalls/sys_enter/enable 1
tw $T/events/raw_syscalls/sys_exit/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/snapshot 1
tw $T/snapshot 2
echo > $T/trace
gated taskset -c 0 bash -c 'for i in 1 2 3 4 5 6 7 8; do echo 1 > /sys/kernel/tracing/snapshot; read -r x < /proc/self/stat; done'
tw $T/set_event_pid $GATED_PID
tw $T/tracing_on 1
open_gate
wait $GATED_PID
tw $T/tracing_on 0
echo > $T/set_event_pid
{
	awk -v with_ts=1 -f "$STITCH" $T/trace
	awk -v with_ts=1 -f "$STITCH" $T/snapshot
} | awk -F'|' -v p=$GATED_PID '$1 == p' | sort -t'|' -k6,6n > /tmp/swapped
n=$(wc -l < /tmp/swapped)
check "swap: events of the swapping task in both buffers ($n)" test "$n" -ge 40
# A cookie seen again after another entry's cookie, or carried by two
# sys_enter events, was stitched to the wrong kernel entry.
awk -F'|' '
$3 == "" { prev = ""; next }
{
	if ($3 != prev && ($3 in seen)) print "AGAIN|" $0
	seen[$3] = 1
	if (index($4, "sys_enter:") && enters[$3]++) print "TWICE|" $0
	prev = $3
}' /tmp/swapped > /tmp/wrong
if [ -s /tmp/wrong ]; then
	fail "swap: no event carries another kernel entry's cookie" \
		"$(wc -l < /tmp/wrong) wrong: $(head -n 3 /tmp/wrong | tr '\n' ' ')"
else
	pass "swap: no event carries another kernel entry's cookie"
fi
tw $T/snapshot 0

# 2. Empty one CPU's buffer mid-trace. The sample runs on CPU 1 twice;
# between the runs CPU 0's buffer is emptied: CPU 1's file entries still
# name the files, so they are not written again, and every stack is exact.
file_entries() { grep -c "user_unwind_file: .*/ustack-sample\$" $T/per_cpu/cpu$1/trace; }
# all_exact PID: "STACKS:WRONG" of PID's getppid events
all_exact() {
	local n exact none

	read -r n exact none <<< "$(stitched |
		awk -F'|' -v p="$1" '$1 == p && index($4, "getppid") { print $5 }' | chain_count)"
	echo "$n:$((n - exact))"
}
trace_clear
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
pinned_sample 1 3
pid1=$pid
: > $T/per_cpu/cpu0/trace
pinned_sample 1 3
pid2=$pid
tw $T/tracing_on 0
check "cpu0 emptied: CPU 1 names the sample once ($(file_entries 1))" test "$(file_entries 1)" = 1
check "cpu0 emptied: the first run's stacks are exact" test "$(all_exact $pid1)" = 3:0
check "cpu0 emptied: the second run's stacks are exact" test "$(all_exact $pid2)" = 3:0

# The traced CPU's own buffer emptied: its files are named there again.
tw $T/tracing_on 1
: > $T/per_cpu/cpu1/trace
pinned_sample 1 3
pid3=$pid
tw $T/tracing_on 0
check "cpu1 emptied: the sample is named again on CPU 1 ($(file_entries 1))" test "$(file_entries 1)" = 1
check "cpu1 emptied: the stacks after it are exact" test "$(all_exact $pid3)" = 3:0

# 3. The snapshot read after the live buffer's file numbering started
# again: a snapshot of the sample's stacks, the live buffer emptied, then a
# copy of the sample in /tmp/other traced, whose files take the ids 1, 2...
# again. The snapshot's frames name only the files its own file entries
# name, or give their ids: never the copy's files (review: "the snapshot
# file's text output resolves ids with the live table").
trace_clear
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
"$SAMPLE" 3 > /dev/null
tw $T/snapshot 1
echo > $T/trace
mkdir -p /tmp/other
cp "$SAMPLE" "$USTACK_PROGS/libustack-sample.so" /tmp/other/
/tmp/other/ustack-sample 3 > /dev/null
tw $T/tracing_on 0
sed -n 's/.*user_unwind_file: .* path=//p' $T/snapshot | sort -u > /tmp/snap.named
sed -n 's/^ => \(\/[^+]*\)+0x.*/\1/p' $T/snapshot | sort -u > /tmp/snap.framed
other=$(comm -13 /tmp/snap.named /tmp/snap.framed | tr '\n' ' ')
byid=$(grep -c '^ => file#' $T/snapshot)
check "snapshot after a reset: its stacks are there ($(wc -l < /tmp/snap.framed) files by name, $byid frames by id)" \
	test "$((byid + $(wc -l < /tmp/snap.framed)))" -gt 0
check "snapshot after a reset: its frames name only files its own entries name${other:+ (not: $other)}" \
	test -z "$other"
check "and the live trace names the copy's files" \
	grep -q '^ => /tmp/other/libustack-sample.so+0x' $T/trace
tw $T/snapshot 0
trace_clear
finish
