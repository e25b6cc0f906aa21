#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The commands of README.md's tour, run exactly as written (issue 40):
# every indented block of the "A tour" section that is not trace output is
# taken from the README itself and run as a script, in a directory where
# build/ is the repository's build tree and ./prog is ustack-sample (with
# its library beside it, run by a two-line script that makes 20 calls,
# then spins, so that perf's samples land in it). Then each one's result is checked: the trace
# has stacks, trace-cmd report prints the sample's symbolized chain,
# KernelShark starts with the plugin and stays up (under Xvfb), perf
# report shows the deferred user frames, the flame graph names them. A
# block added to the tour without a check here fails the count, so the
# README cannot gain a command no test runs. The install section's make
# commands are what make check itself runs (and host/deb-layout runs make
# install with DESTDIR).
# kernels: normal
# timeout: 1200
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
	if head -n 1 /tmp/tour-block.$i | grep -qE '\[[0-9]{3}\]|^ *=>'; then
		continue
	fi
	cmds="$cmds $i"
done
set -- $cmds
check "the tour has 5 command blocks ($# of $blocks blocks)" test $# = 5
[ $# = 5 ] || finish
b_tracefs=$1 b_report=$2 b_kshark=$3 b_perf=$4 b_flame=$5
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

# tracefs: tables loaded, the option and the event on, the trace read
trace_clear
tw $T/tracing_on 1
run $b_tracefs
check "tracefs block: ran" grep -q 'files:.*loaded' /tmp/tour.$b_tracefs
./prog > /dev/null
check "then a traced program's calls have their stack in trace" \
	sh -c "awk -f '$STITCH' $T/trace | grep 'sys_getppid' | grep -q 'ustack-sample+0x'"
trace_clear
echo all > $T/user_unwind_tables/remove

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
trace_clear
finish
