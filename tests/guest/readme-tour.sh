#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The commands of README.md's tour, run exactly as written (issue 40):
# every indented block of the "A tour" section that is not output (trace
# or perf report's) is
# taken from the README itself and run as a script, in a directory where
# build/ is the repository's build tree and ./prog is ustack-sample (with
# its library beside it, run by a two-line script that makes 20 calls,
# then spins, so that perf's samples land in it). Then each one's result is checked: the trace
# has stacks, trace-cmd report prints the sample's symbolized chain,
# KernelShark starts with the plugin and stays up (under Xvfb), perf
# report shows the deferred user frames, the flame graph names them, go
# tool pprof reads the pprof file, curl's post of the OTLP file and the
# streamer's exports reach a receiver on localhost:4318 (ours, decoding
# each with python3-protobuf) with the sample's chain. A
# block added to the tour without a check here fails the count, so the
# README cannot gain a command no test runs. The install section's make
# commands are what make check itself runs (and host/deb-layout runs make
# install with DESTDIR). The guest boots with the tables service running, as
# the package starts it (the tour loads no table: the service does).
# kernels: normal
# timeout: 1200
# serve: yes
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"

README=$USTACK_TOP/README.md
TOUR=/tmp/tour

# the tour's indented blocks, one file each (/tmp/tour-block.N), and
# whether each is output (its first line a trace line, "[CPU]" or " =>")
awk -v out=/tmp/tour-block '
	/^## / { intour = ($0 == "## A tour"); if (inblk) inblk = 0; next }
	!intour { next }
	/^    / {
		if (!inblk) { n++; inblk = 1; f = out "." n }
		print substr($0, 5) > f
		next
	}
	/^$/ { next }
	{ inblk = 0 }
	END { print n + 0 > (out ".count") }' "$README"
blocks=$(cat /tmp/tour-block.count)
cmds=
for i in $(seq "$blocks"); do
	if head -n 1 /tmp/tour-block.$i | grep -qE '\[[0-9]{3}\]|^ *=>|^# Samples:'; then
		continue
	fi
	cmds="$cmds $i"
done
set -- $cmds
check "the tour has 7 command blocks ($# of $blocks blocks)" test $# = 7
[ $# = 7 ] || finish
b_tracefs=$1 b_report=$2 b_kshark=$3 b_perf=$4 b_flame=$5 b_export=$6 b_stream=$7
for i in "$@"; do
	echo "--- block $i:"
	cat /tmp/tour-block.$i
done

rm -rf $TOUR
mkdir -p $TOUR
ln -s "$USTACK_TOP/build" $TOUR/build
cp "$USTACK_PROGS/ustack-sample" "$USTACK_PROGS/libustack-sample.so" $TOUR/
printf '#!/bin/sh\nexec "$(dirname "$0")/ustack-sample" 20 spin 30\n' > $TOUR/prog
chmod +x $TOUR/prog
cd $TOUR || exit 1
# run BLOCK: the README's block N, as a script, its output in /tmp/tour.N
run() {
	(bash -e /tmp/tour-block.$1) > /tmp/tour.$1 2>&1
	echo "block $1 exit $?: $(tail -c 300 /tmp/tour.$1 | tr '\n' ' ')"
}

# tracefs: the option and the event on, the trace read; the tables are the
# service's (started at boot by the guest's init)
check "the tables service runs from boot on (pid ${USTACK_SERVE_PID:-none}, $(head -n 1 $T/user_unwind_tables/list))" \
	sh -c "test -n '${USTACK_SERVE_PID:-}' && kill -0 ${USTACK_SERVE_PID:-0}"
trace_clear
tw $T/tracing_on 1
run $b_tracefs
check "tracefs block: ran" grep -q '^# tracer: nop' /tmp/tour.$b_tracefs
./prog > /dev/null
check "then a traced program's calls have their stack in trace" \
	sh -c "awk -f '$STITCH' $T/trace | grep 'sys_getppid' | grep -q 'ustack-sample+0x'"
RE_SF='ustack-sample-.*user_unwind_stack:.* unwind=sframe( |$)'
check "walked by the tables the service loaded for it ($(grep -cE "$RE_SF" $T/trace) of $(grep -c 'ustack-sample-.*user_unwind_stack:' $T/trace) stacks unwind=sframe)" \
	grep -qE "$RE_SF" $T/trace
trace_clear

# trace-cmd record and report
run $b_report
check "trace-cmd report prints the sample's symbolized chain" \
	grep -q 'ustack_lib_syscall' /tmp/tour.$b_report
check "under a system call of the sample" grep -q 'ustack-sample-[0-9]* .*sys_enter' /tmp/tour.$b_report

# KernelShark, under Xvfb: up with the plugin until the timeout ends it
if command -v xvfb-run > /dev/null && command -v kernelshark > /dev/null; then
	(xvfb-run -a timeout 20 bash /tmp/tour-block.$b_kshark) > /tmp/tour.$b_kshark 2>&1
	rc=$?
	check "kernelshark with the plugin stays up until stopped (exit $rc: $(tail -c 200 /tmp/tour.$b_kshark | tr '\n' ' '))" \
		test $rc = 124
	check "and says nothing of a plugin it could not load" \
		sh -c "! grep -qi 'failed.*plugin\|plugin.*fail\|cannot load' /tmp/tour.$b_kshark"
else
	skip "kernelshark block" "no xvfb-run or kernelshark"
fi

# perf
run $b_perf
check "perf report shows the sample's user frames" \
	grep -q 'sample_spin' /tmp/tour.$b_perf

# the flame graph
rm -f trace.dat prog.html
run $b_flame
check "ustack-flame wrote prog.html, naming the sample's frames" \
	sh -c "test -s prog.html && grep -q 'ustack_lib_syscall' prog.html"

# profiling backends: an OTLP/HTTP receiver of ours on localhost:4318
# (tests/lib/otlp-receiver.py), the sample's chain as it folds it
# (with the kernel's frames after it when the trace has them)
RE="^ustack-sample;([^;]*;)*main;sample_outer;sample_middle;ustack_lib_enter;ustack_lib_inner;ustack_lib_syscall(;[^ ]*)? [0-9]+\$"
W=/tmp/tour-otlp
mkdir -p $W
export HOME=$W GOCACHE=$W/gocache
if ! protoc -I "$USTACK_TOP/flamegraph/proto" --python_out=$W otlp-profiles.proto ||
   ! /usr/bin/python3 -c 'import google.protobuf' 2> /dev/null; then
	fail "protoc and python3-protobuf for the receiver" "not there (make deps)"
	finish
fi
# receiver NAME: one on port 4318, its log $W/NAME.log
receiver() {
	rm -f $W/$1.port
	/usr/bin/python3 "$USTACK_TOP/tests/lib/otlp-receiver.py" $W 4318 $W/$1.port $W/$1.log &
	recv=$!
	wait_until 120 test -s $W/$1.port
}
receiver export
run $b_export
check "go tool pprof -top prog.pb.gz names the sample's functions" \
	sh -c "grep -q 'ustack_lib_syscall' /tmp/tour.$b_export && grep -q 'sample_outer' /tmp/tour.$b_export"
check "curl posted prog.otlp: the receiver decoded it, the sample's chain in it ($(grep -c '^export ' $W/export.log) export)" \
	sh -c "grep -q '^export ' $W/export.log && grep -Eq '$RE' $W/export.log"
kill $recv
wait $recv 2> /dev/null

# streaming: the block in the background, the program run, then Ctrl-C
receiver stream
rmdir $T/instances/prof 2> /dev/null
bash -e /tmp/tour-block.$b_stream > /tmp/tour.$b_stream 2>&1 &
sblk=$!
# the program runs once the streamer has set the option (--deferred)
wait_until 120 grep -qs 1 $T/instances/prof/options/user_stacktrace_deferred
./prog > /dev/null &
prog=$!
wait_until 120 grep -Eqs "$RE" $W/stream.log
kill $prog
wait $prog 2> /dev/null
pkill -INT -f 'ustack-flame --stream prof'
wait_until 60 bash -c "! kill -0 $sblk 2> /dev/null"
wait $sblk
rc=$?
echo "block $b_stream exit $rc: $(tail -c 300 /tmp/tour.$b_stream | tr '\n' ' ')"
check "ustack-flame --stream prof posted the sample's chain to localhost:4318 ($(grep -c '^export ' $W/stream.log) exports)" \
	grep -Eq "$RE" $W/stream.log
check "and Ctrl-C stopped it, its option cleared (exit $rc)" \
	test "$(cat $T/instances/prof/options/user_stacktrace_deferred)" = 0 -a "$rc" -le 1
kill $recv
wait $recv 2> /dev/null
echo 0 > $T/instances/prof/events/enable
rmdir $T/instances/prof
trace_clear
finish
