#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot the ustack kernel in QEMU, load the unwind tables of
# Debian's python3 and its libraries (ustack-sframe load: stock binaries
# have neither frame pointers nor .sframe), and record python3 running
# scripts/demo.py (recursive functions that write; its start-up's openat
# calls; exit) once, with stock trace-cmd, deferred user stacks and the
# kernel's stacks (-T): build/demo/demo.dat. The guest shows trace-cmd
# report as it is, the kernel's own text output (of the sample program,
# build/progs/ustack-sample) and the events stitched by libtracefs-ext. Then, on the host and of that same trace: a flame graph of
# the user and kernel stacks (ustack-flame), a KernelShark screenshot with
# the plugin (its marks, and the stack window a double click on one opens;
# under Xvfb), and last trace-cmd report with the trace-cmd plugin, each
# event with its symbolized user stack; the paths of the pictures at the end.
set -eu -o pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/demo
log=$(mktemp)
trap 'rm -f "$log"' EXIT

"$top/scripts/guest-run.sh" --keep --timeout 300 -- "
set -e
cd /tmp
T=/sys/kernel/tracing
echo '### ustack-sframe load: tables of python3 and its libraries, from their .eh_frame'
$top/build/sframe/ustack-sframe load /usr/bin/python3.11 \$(ldd /usr/bin/python3.11 |
	awk '\$3 ~ /^\\// { print \$3 } \$1 ~ /^\\// { print \$1 }')
echo
echo '### trace-cmd record -T -O user_stacktrace_deferred -e openat,write,exit_group -F python3 demo.py'
trace-cmd record -q -o \$USTACK_RES/demo.dat -T -O user_stacktrace_deferred \
	-e syscalls:sys_enter_openat -e syscalls:sys_enter_write \
	-e syscalls:sys_enter_exit_group -F /usr/bin/python3.11 $top/scripts/demo.py
echo
echo '### trace-cmd report (stock; the entries of user_stacktrace_deferred as they are)'
trace-cmd report -i \$USTACK_RES/demo.dat | grep -v kernel_stack | grep -v '^ *=>' | tail -n 8
echo
echo '### the kernel text output (tracefs trace, frames as file+offset)'
echo 1 > \$T/options/user_stacktrace_deferred
echo 1 > \$T/events/syscalls/sys_enter_getppid/enable
$top/build/progs/ustack-sample 1 > /dev/null
echo 0 > \$T/tracing_on
grep -v '^#' \$T/trace | grep -v user_unwind_file
echo
echo '### stitched and symbolized by libtracefs-ext (examples/stitch demo.dat), the last events'
$top/build/libtracefs-ext/examples/stitch \$USTACK_RES/demo.dat | tail -n 24
echo demo-results: \$USTACK_RES
" | tee "$log"
res=$(sed -n 's/^demo-results: //p' "$log")
[ -n "$res" ] && [ -f "$res/demo.dat" ] || { echo "demo: no trace" >&2; exit 1; }
mkdir -p "$out"
mv "$res/demo.dat" "$out/demo.dat"
rm -rf "$res"
echo
echo '### flame graph of build/demo/demo.dat (ustack-flame -f html): user and kernel stacks'
"$top/build/flamegraph/ustack-flame" -v -t "python3 demo.py: its openat, write and exit_group calls" \
	-f html -o "$out/flame.html" "$out/demo.dat"
"$top/build/flamegraph/ustack-flame" "$out/demo.dat"
echo
echo '### KernelShark with the plugin on build/demo/demo.dat, under Xvfb'
shots=yes
"$top/scripts/kshark-screenshot.sh" "$top/build/kernelshark-plugin/plugin-ustack.so" \
	"$out/demo.dat" "$out" || shots=
echo
echo '### trace-cmd report -i build/demo/demo.dat with the trace-cmd plugin (the last events)'
TRACEEVENT_PLUGIN_DIR=$top/build/trace-cmd-plugin trace-cmd report -i "$out/demo.dat" | tail -n 40
echo
echo "trace:                 $out/demo.dat"
echo "flame graph:           $out/flame.html"
if [ -n "$shots" ]; then
	echo "KernelShark:           $out/kernelshark.png"
	if [ -s "$out/kernelshark-stack.png" ]; then
		echo "its stack window:      $out/kernelshark-stack.png"
	fi
else
	echo "KernelShark:           no screenshot (see above)"
fi
