#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the benchmarks, each in one guest boot so rows compare. Results
# (CSV, the printed reports, the time each part took) go to build/bench/.
#
# The ftrace rows run twice: under QEMU's instruction counting (-icount:
# the guest clock advances by executed instructions, so a row repeats
# exactly; 1 ns = 1 instruction) and on the wall clock (medians of
# BENCH_WALL_ROUNDS interleaved rounds, with their spread). Neither is real
# hardware: TCG gives every guest instruction its own emulation cost, which
# the wall clock sees and instruction counting does not (a locked or a
# string instruction, a memory access through the soft MMU cost more).
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
	[ "$rc" = 0 ] || { echo "bench: $name failed ($rc)" >&2; status=1; }
}
ftrace() {	# LABEL ROUNDS [ICOUNT]
	local res=$out/guest-$1
	rm -rf "$res"
	USTACK_ICOUNT=${3:-} "$top/scripts/guest-run.sh" --res "$res" --timeout 1800 -- \
		bash "$top/tests/bench/ftrace-deferred.sh" --rounds "$2" --label "$1"
	local rc=$?
	cp "$res"/ftrace-*.csv "$out/" 2>/dev/null
	rm -rf "$res"
	return $rc
}

part ftrace-icount ftrace icount 2 shift=0,sleep=off
part ftrace-wall ftrace wall "${BENCH_WALL_ROUNDS:-7}"
part compare "$top/tests/bench/compare.sh" "$out/ftrace-icount.csv" "$out/ftrace-wall.csv"
# trace-cmd report with the plugin against without it, timed on the host
# (the traces are recorded in a guest of its own).
part report "$top/tests/bench/report-plugin.sh"
# libkshark loading a trace with the KernelShark plugin against without it.
part kshark "$top/tests/bench/kshark-load.sh" "${BENCH_KSHARK_RUNS:-5}"
part plot "$top/tests/bench/plot.sh" "$out"
# perf record --call-graph fp, dwarf and fp,defer, side by side in one guest.
part perf "$top/scripts/guest-run.sh" --timeout 1200 -- bash "$top/tests/bench/perf-deferred.sh"
echo
echo "bench: seconds per part:"
sed 's/^/  /' "$out/times.txt"
"$top/tests/bench/readme.sh" "$out" "$top/README.md" || status=1
exit $status
