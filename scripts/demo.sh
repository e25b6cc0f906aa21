#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot the ustack kernel in QEMU, record the sample program with
# stock trace-cmd and deferred user stacks, and show the trace three ways:
# trace-cmd report as it is, the kernel's own text output, and the events
# stitched to their symbolized stacks by libtracefs-ext.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

exec "$top/scripts/guest-run.sh" --timeout 300 -- "
set -e
cd /tmp
T=/sys/kernel/tracing
echo '### trace-cmd record -O user_stacktrace_deferred -e syscalls:sys_enter_getppid -F ustack-sample 2'
trace-cmd record -q -o /tmp/demo.dat -O user_stacktrace_deferred \
	-e syscalls:sys_enter_getppid -F $top/build/progs/ustack-sample 2
echo
echo '### trace-cmd report (stock; the entries of user_stacktrace_deferred as they are)'
trace-cmd report -i /tmp/demo.dat | tail -n 8
echo
echo '### the kernel text output (tracefs trace, frames as file+offset)'
echo 1 > \$T/options/user_stacktrace_deferred
echo 1 > \$T/events/syscalls/sys_enter_getppid/enable
$top/build/progs/ustack-sample 1 > /dev/null
echo 0 > \$T/tracing_on
grep -v '^#' \$T/trace | grep -v user_unwind_file
echo
echo '### stitched and symbolized by libtracefs-ext (examples/stitch demo.dat)'
$top/build/libtracefs-ext/examples/stitch /tmp/demo.dat
"
