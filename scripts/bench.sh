#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the benchmarks, each in one guest boot so rows compare. Results
# (CSV, the printed reports, the time each part took) go to build/bench/,
# and the reports into docs/bench-results.md (tests/bench/readme.sh).
#
# The ftrace rows run twice: under QEMU's instruction counting (-icount:
# the guest clock advances by executed instructions, so a row repeats
# exactly; 1 ns = 1 instruction) and on the wall clock (medians of
# BENCH_WALL_ROUNDS interleaved rounds, with their spread). Neither is real
# hardware: TCG gives every guest instruction its own emulation cost, which
# the wall clock sees and instruction counting does not (a locked or a
# string instruction, a memory access through the soft MMU cost more).
#
# The exit status: 1 when a part could not run (it exited non-zero) or a
# goal was missed (a part's line "goal: ...: MISSED, ..."), else 0. A row
# whose spread is larger than its effect is noise: its part names it on a
# line "NOISE: ..." and exits 0, and the run ends with the list of those
# rows; measured what it could, it does not fail for them (on this machine
# the wall clock has noise rows in every run, docs/benchmarks.md).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
mkdir -p "$out"
rm -f "$out"/*.csv "$out"/*.txt
status=0
part() {	# NAME COMMAND...: run one part, its report in $out/NAME.txt
	local name=$1 t0=$SECONDS rc
	shift
	"$@" 2>&1 | tee "$out/$name.txt"
	rc=${PIPESTATUS[0]}
	echo "$name $((SECONDS - t0))" >> "$out/times.txt"
	if [ "$rc" != 0 ]; then
		echo "bench: $name could not run (exit $rc)" >&2
		echo "  $name (exit $rc)" >> "$out/failed.txt"
	fi
	# what the run ends with: the goals missed, the rows that are noise
	sed -n "s/^\(goal: .*: MISSED,.*\)/  $name: \1/p" "$out/$name.txt" >> "$out/missed.txt"
	sed -n "s/^[[:space:]]*NOISE: \(.*\)/  $name: \1/p" "$out/$name.txt" >> "$out/noise.txt"
}
ftrace() {	# LABEL ROUNDS CALLS [ICOUNT]
	local res=$out/guest-$1
	rm -rf "$res"
	USTACK_ICOUNT=${4:-} "$top/scripts/guest-run.sh" --res "$res" --timeout 1800 -- \
		bash "$top/tests/bench/ftrace-deferred.sh" --rounds "$2" --label "$1" --calls "$3"
	local rc=$?
	cp "$res"/ftrace-*.csv "$out/" 2>/dev/null
	rm -rf "$res"
	return $rc
}

part ftrace-icount ftrace icount 2 2000 shift=0,sleep=off
# profile: where eq8's instructions go, per kernel function, counted per
# translation block by a QEMU plugin.
part profile "$top/tests/bench/profile-run.sh" "$top/build/kernel" "${BENCH_PROFILE_CALLS:-20000}" \
	"$out/profile.csv" "$out/ftrace-icount.csv"
# floor: the same profile on a kernel with tests/bench/floor.patch on top
# of the series: the least a deferred stack costs, against in-place.
part floor "$top/tests/bench/floor.sh" "$out" "${BENCH_PROFILE_CALLS:-20000}"
# The wall clock: 20000 calls a run (a run of 2000, 15 ms, had spreads of
# 50-100% of its median). Runs of one mode still fall into two groups
# about 2x apart, with one vCPU as with two: the host's, not the guest's.
part ftrace-wall ftrace wall "${BENCH_WALL_ROUNDS:-7}" 20000
part compare "$top/tests/bench/compare.sh" "$out/ftrace-icount.csv" "$out/ftrace-wall.csv"
# trace-cmd report with the plugin against without it, measured on the host
# (the traces are recorded in a guest of its own): instructions under
# valgrind, which repeat exactly, and CPU time with its spread
# (tests/bench/host-measure.sh); the rows also go to report.csv.
BENCH_OUT=$out part report "$top/tests/bench/report-plugin.sh"
# libkshark loading a trace with the KernelShark plugin against without it,
# measured the same two ways.
part kshark "$top/tests/bench/kshark-load.sh" "${BENCH_KSHARK_RUNS:-5}"
# ustack-flame's pprof and OTLP output against its folded output, on the
# host: CPU time per million events, the ratio with its spread, peak memory.
# 200,000 events, 3 rounds: 14 s; its ratios are those of a million events'
# (2026-11-29: pprof 2.77x and otlp 2.23x folded, against 2.56x and 2.13x).
FLAME_BENCH_REPEAT=${FLAME_BENCH_REPEAT:-40000} part flame-export \
	"$top/tests/bench/flame-export.sh" "${BENCH_FLAME_ROUNDS:-3}"
part plot "$top/tests/bench/plot.sh" "$out"
# perf record --call-graph fp, dwarf and fp,defer, side by side in one
# guest, under instruction counting (on the wall clock, 3 rounds were
# noise: fp came out 0.71x of no perf at all).
USTACK_ICOUNT=shift=0,sleep=off part perf "$top/scripts/guest-run.sh" --timeout 1200 -- \
	bash "$top/tests/bench/perf-deferred.sh"
# stock-exact: Debian's sqlite3 with its unwind tables loaded, every system
# call recorded with deferred stacks (trace-cmd) and with perf --call-graph
# dwarf (8 KiB, 32 KiB), and symbolized; under instruction counting on one
# vCPU (with two, a task's CPU time holds the other vCPU's instructions).
# Every round's figures go to stock-exact-rounds.csv.
rm -rf "$out/guest-stock-exact"
USTACK_SMP=1 USTACK_ICOUNT=shift=0,sleep=off part stock-exact "$top/scripts/guest-run.sh" \
	--res "$out/guest-stock-exact" --timeout 1500 -- \
	bash "$top/tests/bench/stock-exact.sh" --rounds "${BENCH_STOCK_ROUNDS:-3}"
cp "$out/guest-stock-exact/rounds.csv" "$out/stock-exact-rounds.csv" 2>/dev/null
rm -rf "$out/guest-stock-exact"
echo
echo "bench: seconds per part:"
sed 's/^/  /' "$out/times.txt"
"$top/tests/bench/readme.sh" "$out" "$top/docs/bench-results.md" ||
	echo "  readme (docs/bench-results.md not rewritten)" >> "$out/failed.txt"
if [ -s "$out/noise.txt" ]; then
	echo "bench: rows judged noise (their rounds spread more than their effect: not figures, no failure):"
	cat "$out/noise.txt"
fi
if [ -s "$out/missed.txt" ]; then
	echo "bench: goals missed:"
	cat "$out/missed.txt"
	status=1
fi
if [ -s "$out/failed.txt" ]; then
	echo "bench: parts that could not run:"
	cat "$out/failed.txt"
	status=1
fi
exit $status
