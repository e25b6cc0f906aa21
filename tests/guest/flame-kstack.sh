#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Folded stacks with the kernel stack joined, recorded live: stock
# "trace-cmd record -T -O user_stacktrace_deferred" of ustack-sample's 3
# getppid calls, its write and its exit_group, read by ustack-flame. Each
# folded line is the command, the user stack from its outermost frame to the
# system call's, then the kernel stack of the event from its entry on, all
# named; the host tests (flame-output.sh) check the same on the committed
# kstack.dat, this one on the kernel under test and its kallsyms.
# timeout: 300
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

FLAME=$USTACK_TOP/build/flamegraph/ustack-flame
EVS="-e syscalls:sys_enter_getppid -e syscalls:sys_enter_write -e syscalls:sys_enter_exit_group"
USER_GETPPID="main;sample_outer;sample_middle;ustack_lib_enter;ustack_lib_inner;ustack_lib_syscall"
USER_EXIT="main;sample_outer;sample_middle;sample_then;ustack_lib_raw"
KERNEL="entry_SYSCALL_64_after_hwframe_\[k\];do_syscall_64_\[k\];.*ftrace_syscall_enter_\[k\]"

if [ ! -x "$FLAME" ]; then
	fail "ustack-flame built" "no $FLAME (make flamegraph)"
	finish
fi
if [ ! -e "$T"/options/user_stacktrace_deferred ]; then
	fail "option exists" "no $T/options/user_stacktrace_deferred"
	finish
fi
cd /tmp || exit 1

# shellcheck disable=SC2086
out=$(trace-cmd record -q -o /tmp/kstack.dat -T -O user_stacktrace_deferred $EVS \
	-F "$SAMPLE" 3 exit 2>&1)
rc=$?
check "trace-cmd record -T of ustack-sample (exit $rc)" \
	test $rc = 0 -a -s /tmp/kstack.dat
"$FLAME" /tmp/kstack.dat > /tmp/kstack.folded 2>/tmp/kstack.err
rc=$?
check "ustack-flame reads it (exit $rc): $(head -c 300 /tmp/kstack.err)" test $rc = 0

# count REGEX: of the sample's folded lines, those whose frames from main
# on (or all, when REGEX does not start at main) match REGEX whole, their
# counts added; frames of libc's before main may come first
count() {
	RE="^ustack-sample;([^;]*;)*$1 [0-9]+\$" \
		awk '$0 ~ ENVIRON["RE"] { n += $NF } END { print n + 0 }' /tmp/kstack.folded
}

n=$(count "$USER_GETPPID;$KERNEL")
check "the 3 getppid calls: their user stack, then the kernel's ($n)" test "$n" = 3
n=$(count "$USER_EXIT;$KERNEL")
check "exit_group: its user stack, then the kernel's ($n)" test "$n" = 1
n=$(count "$KERNEL")
check "all 5 events (with the write of its printf) end in the kernel stack ($n)" test "$n" = 5
"$FLAME" -K /tmp/kstack.dat > /tmp/kstack-user.folded 2>&1
n=$(grep -c '_\[k\]' /tmp/kstack-user.folded)
m=$(RE="^ustack-sample;([^;]*;)*$USER_GETPPID 3\$" awk '$0 ~ ENVIRON["RE"]' /tmp/kstack-user.folded | wc -l)
check "-K: the user stacks alone, no kernel frame ($n; getppid's line: $m)" test "$n:$m" = 0:1
[ "$ustack_failed" = 0 ] || sed 's/^/    /' /tmp/kstack.folded
finish
