#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# options/user_stacktrace_deferred: a program with a known call chain gets
# its exact stack, once per kernel entry, stitched to every event of the
# entry; 64-bit and 32-bit.
# kernels: normal debug
# timeout: 600
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

if [ ! -e $T/options/user_stacktrace_deferred ]; then
	fail "option exists" "no $T/options/user_stacktrace_deferred"
	finish
fi
check "option is off by default" test "$(cat $T/options/user_stacktrace_deferred)" = 0
check "format files" test -r $T/events/ftrace/user_unwind_stack/format -a \
	-r $T/events/ftrace/user_unwind_cookie/format -a -r $T/events/ftrace/user_unwind_file/format

# chain_test NAME PROGRAM MATCH: 5 getppid calls, each a kernel entry,
# traced with raw_syscalls (the syscalls events skip compat tasks); MATCH
# is the system call number as the events print it.
chain_test() {
	local name=$1 prog=$2 match=$3 pid n bad=0 line syms

	trace_clear
	tw $T/events/raw_syscalls/sys_enter/enable 1
	tw $T/events/raw_syscalls/sys_exit/enable 1
	tw $T/options/user_stacktrace_deferred 1
	tw $T/tracing_on 1
	"$prog" 5 > /tmp/out 2>&1 &
	pid=$!
	wait $pid
	tw $T/tracing_on 0
	stitched | awk -F'|' -v p="$pid" -v m="$match" \
		'$1 == p && index($4, m) { $4 = "getppid"; print }' OFS='|' > /tmp/stitched
	stitched | grep '^STACKS|' >> /tmp/stitched
	n=$(awk -F'|' -v p="$pid" '$1 == p && $4 ~ /getppid/' /tmp/stitched | wc -l)
	if [ "$n" = 10 ]; then
		pass "$name: 5 calls give 10 events"
	else
		fail "$name: 5 calls give 10 events" "saw $n"
	fi
	while IFS='|' read -r p cpu cookie ev frames; do
		[ "$p" = "$pid" ] && [[ "$ev" == *getppid* ]] || continue
		syms=$(first_n 6 "$(symbols "$frames")")
		if [ "$syms" != "$CHAIN" ]; then
			bad=1
			line="$ev cookie=$cookie: '$syms'"
		fi
	done < /tmp/stitched
	if [ $bad = 0 ] && [ "$n" -gt 0 ]; then
		pass "$name: every event's stack is exactly the known chain"
	else
		fail "$name: every event's stack is exactly the known chain" "$line"
	fi
	# enter and exit of one call share a cookie; each call has its own
	n=$(awk -F'|' -v p="$pid" '$1 == p && $4 ~ /getppid/ {print $3}' /tmp/stitched | sort -u | wc -l)
	check "$name: one cookie per kernel entry" test "$n" = 5
	n=$(awk -F'|' -v p="$pid" '$1 == "STACKS" && $4 == p && $3 != 1' /tmp/stitched | wc -l)
	check "$name: one stack entry per cookie" test "$n" = 0
	trace_clear
}

chain_test "64-bit" "$SAMPLE" "NR 110 "
if [ -x "$SAMPLE32" ]; then
	chain_test "32-bit compat" "$SAMPLE32" "NR 64 "
else
	skip "32-bit compat" "no 32-bit sample (gcc -m32 failed: install gcc-multilib)"
fi

# A task making system calls on one CPU: its first kernel entry writes a
# cookie entry, then each stack entry gives the next entry its cookie
# (next=), so no more cookie entries, and every call gets its exact stack.
trace_clear
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
pinned_sample 0 20
tw $T/tracing_on 0
cookies=$(grep -c -- "-$pid .*user_unwind_cookie: " $T/trace)
nexts=$(grep -c -- "-$pid .*user_unwind_stack: .* next=0x" $T/trace)
exact=0
while read -r frames; do
	[ "$(first_n 6 "$(symbols "$frames")")" = "$CHAIN" ] && exact=$((exact + 1))
done < <(stitched | awk -F'|' -v p=$pid '$1 == p && $4 ~ /getppid/ { print $5 }')
if [ "$cookies $nexts $exact" = "1 20 20" ]; then
	pass "one CPU: 1 cookie entry, each stack gives the next cookie, 20 exact stacks"
else
	fail "one CPU: 1 cookie entry, each stack gives the next cookie, 20 exact stacks" \
		"$cookies cookie entries, $nexts stacks with next=, $exact exact stacks"
fi

# Frames are file + offset: the file entry names the binary with its build-id.
trace_clear
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
"$SAMPLE" 1 > /dev/null
tw $T/tracing_on 0
bid=$(readelf -n "$SAMPLE" 2>/dev/null | sed -n 's/.*Build ID: //p')
if grep -q "user_unwind_file: id=[0-9]* build_id=$bid path=$SAMPLE\$" $T/trace; then
	pass "file entry: path and build-id of the program"
else
	fail "file entry: path and build-id of the program" "$(grep user_unwind_file $T/trace | head -3)"
fi
# A uprobe on a function's first instruction: the topmost frame has not
# pushed its frame pointer yet; the caller must not be skipped.
LIB=$USTACK_PROGS/libustack-sample.so
off=$(lib_offset ustack_lib_syscall)
if syms=$(uprobe_entry_syms "$SAMPLE" "$LIB" "$off"); then
	if [ "$syms" = "$CHAIN" ]; then
		pass "uprobe on a function entry: the caller is not skipped"
	else
		fail "uprobe on a function entry: the caller is not skipped" "'$syms'"
	fi
else
	fail "uprobe on a function entry" "cannot add uprobe at $LIB:$off"
fi

# Frame pointers not to be trusted (ustack-badfp): a kernel address, a
# PROT_NONE page above the stack (the read faults), a misaligned one, one
# below the stack pointer, and frames whose return address lies outside
# every executable mapping (0x1234, all ones, ASCII text, a stack
# address: what code without frame pointers leaves in rbp + 8), and a zero
# return address read through the topmost frame's rbp (the outermost
# frame's only when the frame-pointer chain gave it). Each walk stops with
# the interrupted address and says it was cut ("truncated"): the first
# four and the last stopped at a frame they could not follow, the other
# four at one outside executable memory. The kernel neither crashes nor
# hangs.
getppid_traced /tmp/out "$USTACK_PROGS/ustack-badfp"
check "bad frame pointers: the program ran, a PROT_NONE page mapped" \
	test "$(cat /tmp/out)" = "ustack-badfp: 10 calls"
stitched | awk -F'|' -v p="$pid" '$1 == p && $4 ~ /getppid/ { print $5 }' > /tmp/bad
kind=0
for name in kernel protnone misaligned below loop ones text data zero; do
	kind=$((kind + 1))
	frames=$(sed -n "${kind}p" /tmp/bad)
	syms=$(symbols "$frames")
	if [ "$syms" = ustack_badfp ]; then
		pass "bad frame pointer ($name): the walk stops at once"
	else
		fail "bad frame pointer ($name): the walk stops at once" "'$syms' ($frames)"
	fi
done
grep -- "-$pid .*user_unwind_stack:" $T/trace | head -n 9 > /tmp/badstacks
n=$(grep -c ' truncated' /tmp/badstacks)
check "bad frame pointers: the 9 stacks say they were cut ($n)" test "$n" = 9
# In a system call, the next instruction a "push %rbp": no prologue there.
frames=$(sed -n 10p /tmp/bad)
syms=$(first_n 2 "$(symbols "$frames")")
if [ "$syms" = "ustack_syspush main" ]; then
	pass "system call before a push %rbp: its caller comes next"
else
	fail "system call before a push %rbp: its caller comes next" "'$syms' ($frames)"
fi
trace_clear

# The same call skipped by a tracer (orig_ax -1, which interrupts have
# too): the task is still after a system call. Its raw sys_enter events
# say NR -1.
tw $T/events/raw_syscalls/sys_enter/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
"$USTACK_PROGS/ustack-badfp" skip > /tmp/out 2>&1
tw $T/tracing_on 0
child=$(sed -n 's/^ustack-badfp: child \([0-9]*\) skipped 3$/\1/p' /tmp/out)
stitched | awk -F'|' -v p="${child:-none}" '$1 == p && $4 ~ /NR -1 / { print $5 }' > /tmp/skipped
n=0
while read -r frames; do
	[ "$(first_n 2 "$(symbols "$frames")")" = "ustack_syspush main" ] && n=$((n + 1))
done < /tmp/skipped
check "system calls a tracer skipped, before a push %rbp: the caller next in $n of 3 ($(cat /tmp/out); $(head -c 200 /tmp/skipped))" \
	test "$n" = 3
trace_clear
# And after a signal frame: pause() interrupted (EINTR), the handler's
# getppid walked through the frame to the code after the system call.
getppid_traced /tmp/out "$USTACK_PROGS/ustack-badfp" eintr
frames=$(stitched | awk -F'|' -v p="$pid" '$1 == p && $4 ~ /getppid/ { print $5; exit }')
syms=$(first_n 4 "$(symbols "$frames")")
# (the second frame: libc's restorer, whatever its symbol table names it)
check "a signal frame over a system call before a push %rbp: its caller next ('$syms')" \
	sh -c "case '$syms' in 'ustack_sigppid '*' ustack_syspause main') ;; *) exit 1 ;; esac"
trace_clear

# The same stack addresses in another file (ustack-remap maps two files
# with the same code at one address, in turn): a stack equal to the last
# one is written from its remembered encoding only while the mappings are
# unchanged, so each call's topmost frame names the file mapped then.
trace_clear
tw $T/events/syscalls/sys_enter_getppid/enable 1
tw $T/options/user_stacktrace_deferred 1
tw $T/tracing_on 1
"$USTACK_PROGS/ustack-remap" /tmp > /tmp/out 2>&1 &
pid=$!
wait $pid
tw $T/tracing_on 0
got=$(stitched | awk -F'|' -v p="$pid" '$1 == p && $4 ~ /getppid/ { split($5, f, " "); print f[1] }' |
	tr '\n' ' ')
want="/tmp/ustack-remap-a+0x7 /tmp/ustack-remap-b+0x7 /tmp/ustack-remap-a+0x7 /tmp/ustack-remap-b+0x7 "
if [ "$got" = "$want" ]; then
	pass "same addresses, remapped file: each stack names the file mapped then"
else
	fail "same addresses, remapped file: each stack names the file mapped then" \
		"'$got' ($(cat /tmp/out))"
fi
trace_clear

# A buffer that overwrites its oldest pages: the file entries of the first
# stacks are long gone, yet every stack after the first file entry left in
# the buffer finds the files it names in entries before it (written again
# on the stack's CPU once that CPU's buffer lost entries).
I=$T/instances/ustack-ov
mkdir $I
tw $I/buffer_size_kb 8
tw $I/events/syscalls/sys_enter_getppid/enable 1
tw $I/options/user_stacktrace_deferred 1
taskset -c 0 "$SAMPLE" 3000 > /dev/null
tw $I/tracing_on 0
overrun=$(sed -n 's/^overrun: //p' $I/per_cpu/cpu0/stats)
read -r stacks bad first < <(awk '
	/user_unwind_file: / { p = $0; sub(/.* path=/, "", p); said[p] = 1; files = 1; next }
	/user_unwind_stack: / { instack = files; if (files) stacks++; next }
	/^ => / && instack { p = $2; sub(/\+0x[0-9a-f]*$/, "", p)
		if (!(p in said)) { bad++; if (!first) first = p } next }
	{ instack = 0 }
	END { print stacks + 0, bad + 0, first }' $I/per_cpu/cpu0/trace)
if [ "${overrun:-0}" -gt 0 ] && [ "$stacks" -gt 0 ] && [ "$bad" = 0 ]; then
	pass "overwritten buffer: each stack's files are named before it"
else
	fail "overwritten buffer: each stack's files are named before it" \
		"overrun ${overrun:-?}, $stacks stacks, $bad frames in files not named${first:+ (first: $first)}"
fi
echo 0 > $I/options/user_stacktrace_deferred
rmdir $I

# With userstacktrace also set, the deferred stack serves the events: no
# in-place walk per event; alone, userstacktrace works as before.
ustack_count() {	# OPTIONS...: userstack entries and deferred stacks of 3 calls
	trace_clear
	echo 0 > $T/options/userstacktrace
	tw $T/events/syscalls/sys_enter_getppid/enable 1
	for o in "$@"; do tw $T/options/$o 1; done
	tw $T/tracing_on 1
	"$SAMPLE" 3 > /dev/null
	tw $T/tracing_on 0
	echo "$(grep -c '<user stack trace>' $T/trace) $(grep -c 'user_unwind_stack:' $T/trace)"
	echo 0 > $T/options/userstacktrace
}
check "userstacktrace alone: a walk per event" test "$(ustack_count userstacktrace)" = "3 0"
check "both options: only the deferred stacks" \
	test "$(ustack_count userstacktrace user_stacktrace_deferred)" = "0 3"
trace_clear
finish
