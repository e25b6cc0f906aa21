#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot the ustack kernel in QEMU with the tables service
# running (ustack-sframe serve, started by the guest's init as the
# package's unit starts it at boot: guest-run.sh --serve), and record
# python3 running scripts/demo.py (recursive functions that write; its
# start-up's openat calls; exit) with stock trace-cmd, deferred user
# stacks and the kernel's stacks (-T): build/demo/demo.dat. Nobody loads a
# table: the service sees python3 start and loads the tables of Debian's
# python3 and its libraries (stock binaries have neither frame pointers nor
# .sframe; the tables come from their .eh_frame). python3 runs twice: its
# very first run (build/demo/first.dat) makes its first calls before the
# service has converted its table, and those stacks stop at python3's first
# frame; the demo counts them, and shows the second run. The guest shows trace-cmd
# report as it is, the kernel's own text output (of the sample program,
# build/progs/ustack-sample) and the events stitched by libtracefs-ext. Then, on the host and of that same trace: a flame graph of
# the user and kernel stacks (ustack-flame), a KernelShark screenshot with
# the plugin (its marks, and the stack window a double click on one opens;
# under Xvfb), and last trace-cmd report with the trace-cmd plugin, each
# event with its symbolized user stack; how many stacks of each run are
# whole (from _start) and how they were walked; the paths of the pictures
# at the end.
set -eu -o pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/demo
log=$(mktemp)
trap 'rm -f "$log"' EXIT

"$top/scripts/guest-run.sh" --serve --keep --timeout 300 -- "
set -e
cd /tmp
T=/sys/kernel/tracing
echo '### the tables service, started at boot: what it loaded so far (no table command)'
grep -E '^(loaded|converted|pending) ' /run/ustack-sframe-serve.status | tr '\n' ' '
echo
head -n 1 \$T/user_unwind_tables/list
echo
rec() {
	trace-cmd record -q -o \$USTACK_RES/\$1 -T -O user_stacktrace_deferred \
		-e syscalls:sys_enter_openat -e syscalls:sys_enter_write \
		-e syscalls:sys_enter_exit_group -F /usr/bin/python3.11 $top/scripts/demo.py
}
echo '### python3 demo.py, its very first run on this machine (first.dat)'
rec first.dat
echo
echo '### the tables service meanwhile: python3 started, its files loaded (its log)'
grep -E 'python3|libexpat|libz\\.' /run/ustack-sframe-serve.log || true
echo
echo '### trace-cmd record -T -O user_stacktrace_deferred -e openat,write,exit_group -F python3 demo.py'
echo '### (its second run: demo.dat, shown from here on)'
rec demo.dat
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
[ -n "$res" ] && [ -f "$res/demo.dat" ] && [ -f "$res/first.dat" ] ||
	{ echo "demo: no trace" >&2; exit 1; }
mkdir -p "$out"
mv "$res/demo.dat" "$out/demo.dat"
mv "$res/first.dat" "$out/first.dat"
rm -rf "$res"
echo
echo '### flame graph of build/demo/demo.dat (ustack-flame -f html): user and kernel stacks'
"$top/build/flamegraph/ustack-flame" -v -t "python3 demo.py: its openat, write and exit_group calls" \
	-f html -o "$out/flame.html" "$out/demo.dat"
"$top/build/flamegraph/ustack-flame" "$out/demo.dat"
echo
echo '### the stacks of each run: whole (from _start), and how the kernel walked them'
# whole FILE: events whose user stack goes back to _start, of all
whole() {
	"$top/build/flamegraph/ustack-flame" -a -K "$1" |
		awk '{ n += $NF; if ($1 ~ /^_start;/) w += $NF } END { printf "%d of %d", w, n }'
}
# methods FILE: events per way of walking (ustack-flame --unwind)
methods() {
	"$top/build/flamegraph/ustack-flame" --unwind -a -K -n "$1" |
		awk '{ split($1, f, ";"); n[f[1]] += $NF } END { for (m in n) printf " %s %d", m, n[m] }'
}
echo "first run:  $(whole "$out/first.dat") stacks whole;$(methods "$out/first.dat")"
echo "second run: $(whole "$out/demo.dat") stacks whole;$(methods "$out/demo.dat")"
echo "(python3's first calls of its first run come before the service has converted"
echo " its table: their stacks stop at python3's first frame, which frame pointers"
echo " cannot step from: each says so, [truncated] at its root. ld.so's own first"
echo " calls are whole: its _start has no FDE, and its table says it is outermost)"
"$top/build/flamegraph/ustack-flame" -a -K "$out/first.dat" |
	awk '!/^_start;/ { split($1, f, ";"); printf "    %d cut at %s;%s;...\n", $NF, f[1], f[2] }'
echo
echo '### KernelShark with the plugin on build/demo/demo.dat, under Xvfb'
shots=yes
"$top/scripts/kshark-screenshot.sh" "$top/build/kernelshark-plugin/plugin-ustack.so" \
	"$out/demo.dat" "$out" || shots=
echo
echo '### trace-cmd report -i build/demo/demo.dat with the trace-cmd plugin (the last events)'
TRACEEVENT_PLUGIN_DIR=$top/build/trace-cmd-plugin trace-cmd report -i "$out/demo.dat" | tail -n 40
echo
echo "trace:                 $out/demo.dat (python3's first run: $out/first.dat)"
echo "flame graph:           $out/flame.html"
if [ -n "$shots" ]; then
	echo "KernelShark:           $out/kernelshark.png"
	if [ -s "$out/kernelshark-stack.png" ]; then
		echo "its stack window:      $out/kernelshark-stack.png"
	fi
else
	echo "KernelShark:           no screenshot (see above)"
fi
