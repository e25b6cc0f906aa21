#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (scripts/bench.sh, part "profile"), under QEMU with the
# insn-profile plugin (tests/bench/insn-profile.c), whose trigger is the
# kernel's getpgid system call: each getpgid() below makes it write the
# instruction counts of every translation block so far. Between two of
# them, ustack-bench makes CALLS getppid calls from an 8-frame stack with
# one event per kernel entry (ftrace-deferred.sh's row eq8) in each mode:
#   snapshots 0-1 none, 2-3 inplace, 4-5 deferred, 6-7 none again
# tests/bench/profile-report.py turns them into instructions per call and
# function.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

CALLS=${BENCH_PROFILE_CALLS:-20000}
BENCH=$USTACK_PROGS/ustack-bench

snapshot() { perl -e 'syscall(121, 0)'; }	# getpgid(0)

one() {		# MODE
	trace_clear
	tw $T/options/userstacktrace 0
	tw $T/buffer_size_kb 32768
	case $1 in
	inplace)	tw $T/options/userstacktrace 1 ;;
	deferred)	tw $T/options/user_stacktrace_deferred 1 ;;
	esac
	tw $T/events/syscalls/sys_enter_getppid/enable 1
	tw $T/tracing_on 1
	snapshot
	"$BENCH" "$CALLS" -10 > /dev/null
	snapshot
	tw $T/tracing_on 0
	echo "$1: $(grep -c 'user_unwind_stack:\|<user stack trace>' $T/trace) stacks"
	tw $T/options/userstacktrace 0
	trace_clear
}

"$BENCH" 10 -10 > /dev/null	# the page cache, the first faults
echo "calls: $CALLS"
for mode in none inplace deferred none; do
	one $mode
done
pass "profile: 4 modes, $CALLS calls each"
