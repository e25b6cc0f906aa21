#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Frames named in stock "trace-cmd report" with the plugin as a debugger
# names them (issue 19):
#  - JIT code: ustack-jit runs twice in one trace, with the same code at the
#    same address in both processes, named in each process's own
#    /tmp/perf-PID.map (ustack_jit_a, ustack_jit_b). Every getppid stack
#    starts with its own process's name, at the recorded offset, then
#    jit_call and main; with the maps gone, the frame prints as its address.
#  - A call that is its function's last instruction: Debian's libc ends
#    exit() with the call of __run_exit_handlers, so that frame's return
#    address lies one past exit(). /usr/bin/true's exit_group, unwound with
#    the tables of its .eh_frame (ustack-sframe load), names it exit, at its
#    recorded offset (the lookup is at that address - 1), between
#    __run_exit_handlers and __libc_start_call_main.
#  - -O ustack_srcline: " at FILE:LINE" after each frame of the sample
#    with lines (all but the innermost, ustack_lib_syscall, in assembly);
#    -O ustack_inlines: a call inlined into main (ustack-jit's jit_step) as
#    a line of its own.
# timeout: 600
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

PLUGIN_DIR=$USTACK_TOP/build/trace-cmd-plugin
AWK=$USTACK_TOP/tests/lib/report-stacks.awk
TOOL=$USTACK_TOP/build/sframe/ustack-sframe
TABLES=$T/user_unwind_tables
JIT=$USTACK_PROGS/ustack-jit
export TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR

for f in "$PLUGIN_DIR/plugin_ustack.so" "$TOOL" "$JIT" "$SYMBOLIZE"; do
	if [ ! -r "$f" ]; then
		fail "test tools built" "no $f (make all)"
		finish
	fi
done
cd /tmp || exit 1

# ---- JIT frames, named by the perf map of their own process ----
rm -f /tmp/perf-*.map
out=$(trace-cmd record -q -o /tmp/jit.dat -O user_stacktrace_deferred \
	-e syscalls:sys_enter_getppid -F -c sh -c "$JIT ustack_jit_a 3 && $JIT ustack_jit_b 3" 2>&1)
check "trace-cmd record of two ustack-jit runs ($(echo "$out" | tr '\n' ' '))" \
	test "$(echo "$out" | grep -c 'ustack-jit: 3 calls')" = 2
trace-cmd report -i /tmp/jit.dat > /tmp/jit.txt 2> /tmp/jit.err
awk -f "$AWK" /tmp/jit.txt | awk -F'|' '$1 ~ /^ustack-jit-/ && index($2, "sys_enter_getppid")' > /tmp/jit.st
pids=$(cut -d'|' -f1 /tmp/jit.st | sort -u | sed 's/.*-//')
check "6 getppid events of two processes ($(echo $pids))" \
	test "$(wc -l < /tmp/jit.st):$(echo "$pids" | wc -l)" = "6:2"
# each process's own name: the first process is a, the second b
n=0
for p in $pids; do
	want=ustack_jit_a
	[ -n "$(grep -l "ustack_jit_b" /tmp/perf-$p.map 2>/dev/null)" ] && want=ustack_jit_b
	got=$(awk -F'|' -v w="ustack-jit-$p" '$1 == w { print $3 }' /tmp/jit.st | sort -u)
	check "pid $p: each stack is $want jit_call main ... ($got)" \
		test "$(echo "$got" | wc -l):$(first_n 3 "$got")" = "1:$want jit_call main"
	grep -q " => $want+0xb (/tmp/perf-$p.map)" /tmp/jit.txt && n=$((n + 1))
done
check "the JIT frame prints at its recorded offset, name+0xb (/tmp/perf-PID.map), in both" \
	test "$n" = 2
# -O ustack_inlines -O ustack_srcline: jit_step, inlined into main, is a
# line of its own between jit_call and main, each with its source line
trace-cmd report -i /tmp/jit.dat -O ustack_inlines -O ustack_srcline > /tmp/jit-inl.txt 2>&1
got=$(awk -f "$AWK" /tmp/jit-inl.txt | awk -F'|' '$1 ~ /^ustack-jit-/ && index($2, "sys_enter_getppid") { print $3; exit }')
check "-O ustack_inlines: ustack_jit_? jit_call jit_step main ($got)" \
	sh -c "echo '$got' | grep -Eq '^ustack_jit_[ab] jit_call jit_step main( |$)'"
check "-O ustack_inlines -O ustack_srcline: ' => jit_step (inlined) at jit.c:N', then main+0xN (...) at jit.c:N" \
	sh -c "grep -m1 -A1 '^ => jit_step (inlined)' /tmp/jit-inl.txt | tr '\n' '|' |
	       grep -Eq '^ => jit_step \(inlined\) at jit\.c:[0-9]+\| => main\+0x[0-9a-f]+ \([^)]*/ustack-jit\) at jit\.c:[0-9]+\|$'"
rm -f /tmp/perf-*.map
trace-cmd report -i /tmp/jit.dat 2>/dev/null | awk -f "$AWK" |
	awk -F'|' '$1 ~ /^ustack-jit-/ && index($2, "sys_enter_getppid") { print $3 }' | sort -u > /tmp/jit.gone
check "maps gone: the frame prints as its address ($(head -n 1 /tmp/jit.gone))" \
	test "$(first_n 3 "$(cat /tmp/jit.gone)")" = "0x7e000000000b jit_call main"

# ---- exit(): a caller whose call is its function's last instruction ----
tw $TABLES/remove all
files=$(ldd /usr/bin/true | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
	xargs -n1 readlink -f)
# shellcheck disable=SC2086
"$TOOL" load /usr/bin/true $files > /tmp/names-load.out 2>&1
check "tables of true and its libraries loaded ($(tr '\n' ' ' < /tmp/names-load.out | head -c 200))" \
	test "$(grep -c 'loaded table' /tmp/names-load.out)" -ge 2
out=$(trace-cmd record -q -o /tmp/exit.dat -O user_stacktrace_deferred \
	-e syscalls:sys_enter_exit_group -F /usr/bin/true 2>&1)
check "trace-cmd record of true's exit_group ($out)" test $? = 0
trace-cmd report -i /tmp/exit.dat > /tmp/exit.txt 2>&1
syms=$(awk -f "$AWK" /tmp/exit.txt | awk -F'|' '$1 ~ /^true-/ && index($2, "sys_enter_exit_group") { print $3; exit }')
# _start is [unknown]: Debian's true has no symbol table
check "true's exit_group: _exit __run_exit_handlers exit __libc_start_call_main __libc_start_main ... ($syms)" \
	sh -c "echo '$syms' | grep -Eq '^_exit __run_exit_handlers exit __libc_start_call_main __libc_start_main[^ ]* '"
# the exit frame at its recorded offset: the file's own lookup of
# offset - 1 names exit+N, the line says exit+N+1
raw=$(trace-cmd report -i /tmp/exit.dat -O ustack_nosym 2>/dev/null |
	awk '/^ *true-.* sys_enter_exit_group:/ { n = 1; next } n && /^ => / && ++c == 3 { print $2; exit }')
libc=${raw%+0x*}
before=$("$SYMBOLIZE" "$libc" "$(printf '%#x' $((0x${raw##*+0x} - 1)))" 2>/dev/null)
before=${before%% *}
line=$(grep -m1 ' => exit+0x' /tmp/exit.txt)
want=$(printf 'exit+%#x' $((${before##*+} + 1)))
check "exit's frame: $raw is $before looked up at - 1, printed at its own offset ($line)" \
	sh -c "echo '$line' | grep -qF ' => $want ('"
tw $TABLES/remove all

# ---- source lines ----
out=$(trace-cmd record -q -o /tmp/src.dat -O user_stacktrace_deferred \
	-e syscalls:sys_enter_getppid -F "$SAMPLE" 2 2>&1)
trace-cmd report -i /tmp/src.dat -O ustack_srcline > /tmp/src.txt 2>&1
# the first getppid stack's lines, from the event to the next event
awk '/sys_enter_getppid:/ { n++ } n == 1 && /^ => / { print } n == 2 { exit }' /tmp/src.txt > /tmp/src.st
check "-O ustack_srcline: frames 2 to 6 of the chain end 'at sample-lib.c:N' or 'at sample.c:N' ($(sed -n 2p /tmp/src.st))" \
	test "$(sed -n 2,6p /tmp/src.st | grep -cE ' at sample(-lib)?\.c:[0-9]+$')" = 5
check "-O ustack_srcline: the names are the chain's" \
	test "$(awk -f "$AWK" /tmp/src.txt | awk -F'|' 'index($2, "sys_enter_getppid") { print $3; exit }' |
		cut -d' ' -f1-6)" = "$CHAIN"
trace_clear
finish
