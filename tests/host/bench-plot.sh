#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench's plots (tests/bench/plot.sh) from made-up results: a cost and
# a bytes plot per clock from ftrace-LABEL.csv, the report plot from
# report.csv's CPU-time rows, while the rounds' files
# next to them (ftrace-LABEL-rounds.csv, no stack columns) are no plot of
# their own (gnuplot failed on them: "all points y value undefined").
. "$(dirname "$0")/../lib/result.sh"

if ! command -v gnuplot > /dev/null; then
	skip "bench plots" "no gnuplot (scripts/deps.sh installs gnuplot-nox)"
	finish
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
{
	echo "label,epe,walk_frames,mode,bytes,ns,ns_q1,ns_q3,stack_bytes,stack_ns"
	for epe in 1 4 16; do
		echo "icount,$epe,0,none,$((20 * epe)),$((1000 * epe)),0,0,0,0"
		echo "icount,$epe,0,inplace,$((104 * epe)),$((1900 * epe)),0,0,$((84 * epe)),$((900 * epe))"
		echo "icount,$epe,0,deferred,$((20 * epe + 60)),$((1000 * epe + 900)),0,0,60,900"
	done
} > "$dir/ftrace-icount.csv"
{
	echo "label,epe,round,mode,bytes,ns"
	for round in 1 2; do
		for epe in 1 4 16; do
			echo "icount,$epe,$round,none,$((20 * epe)),$((1000 * epe))"
			echo "icount,$epe,$round,inplace,$((104 * epe)),$((1900 * epe))"
			echo "icount,$epe,$round,deferred,$((20 * epe + 60)),$((1000 * epe + 900))"
		done
	done
} > "$dir/ftrace-icount-rounds.csv"

# report-plugin.sh's rows: instructions, and CPU time of the traces
# without stacks (not plotted) and with stacks
{
	echo "trace,records,mode,measure,value,ratio,ratio_q1,ratio_q3,peak_kb"
	echo "nostacks,100000,without,insn,1314829849,,,,"
	echo "nostacks,1000000,with,cpu_ms,2210,1.0100,1.0000,1.0200,27688"
	for n in 750203 1500203; do
		echo "r$n,$n,without,cpu_ms,$((n / 400)),1.0000,1.0000,1.0000,40000"
		echo "r$n,$n,with,cpu_ms,$((n / 330)),1.2100,1.2000,1.2200,70000"
		echo "r$n,$n,nosym,cpu_ms,$((n / 340)),1.1800,1.1700,1.1900,69000"
	done
} > "$dir/report.csv"

if "$(dirname "$0")/../bench/plot.sh" "$dir" > "$dir/out" 2>&1; then
	pass "plot.sh with a rounds file next to the results: exit 0"
else
	fail "plot.sh with a rounds file next to the results: exit 0" "$(tail -3 "$dir/out")"
fi
check "cost and bytes plots of the icount results" \
	test -s "$dir/cost-icount.png" -a -s "$dir/bytes-icount.png"
check "no plot of the rounds file" test ! -e "$dir/cost-icount-rounds.png"
check "report plot from report.csv" test -s "$dir/report.png"
check "no data files left" test -z "$(ls -A "$dir" | grep '^\.')"
check "no gnuplot warnings ($(grep -c -i warning "$dir/out"))" test "$(grep -c -i warning "$dir/out")" = 0
finish
