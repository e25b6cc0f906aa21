#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot the ustack kernel in QEMU, record the sample program with
# stock trace-cmd and deferred user stacks, and show the trace three ways:
# trace-cmd report as it is, the kernel's own text output, and the events
# stitched to their symbolized stacks by libtracefs-ext. Last, a flame
# graph of the program's user and kernel stacks (trace-cmd record -T), drawn
# by ustack-flame on the host: build/demo/flame.html, its path printed.
set -eu -o pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/demo
log=$(mktemp)
trap 'rm -f "$log"' EXIT

"$top/scripts/guest-run.sh" --keep --timeout 300 -- "
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
echo
echo '### for the flame graph: trace-cmd record -T (kernel stacks too), 20 calls'
trace-cmd record -q -o \$USTACK_RES/flame.dat -T -O user_stacktrace_deferred \
	-e syscalls:sys_enter_getppid -e syscalls:sys_enter_write \
	-e syscalls:sys_enter_exit_group -F $top/build/progs/ustack-sample 20 exit
echo demo-results: \$USTACK_RES
" | tee "$log"
res=$(sed -n 's/^demo-results: //p' "$log")
[ -n "$res" ] && [ -f "$res/flame.dat" ] || { echo "demo: no trace for the flame graph" >&2; exit 1; }
mkdir -p "$out"
mv "$res/flame.dat" "$out/flame.dat"
rm -rf "$res"
echo
echo '### flame graph (build/flamegraph/ustack-flame -f html): user and kernel stacks'
"$top/build/flamegraph/ustack-flame" -v -t "ustack-sample: 20 getppid calls, a write, exit" \
	-f html -o "$out/flame.html" "$out/flame.dat"
"$top/build/flamegraph/ustack-flame" "$out/flame.dat"
echo "flame graph: $out/flame.html"
