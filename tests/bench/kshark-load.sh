#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Loading a trace in libkshark (as KernelShark loads it) with the KernelShark
# plugin against without it: time and peak memory, interleaved runs,
# medians (kernelshark-plugin/tests/kshark-load-bench.c). After each load,
# the Info of the last rows: with the plugin, that stitches the whole trace
# (it stitches as far as lookups need), so the peak RSS is that of the
# stitched results, and the CPU time of both is printed too.
#
#   tests/bench/kshark-load.sh [RUNS]      (default 7; KSHARK_BENCH_REPEAT)
#
# The trace: the committed fixture's records (cookie, sys_enter, sys_exit,
# three file entries, stack, sys_enter, sys_exit, stack: 10 per repeat)
# repeated KSHARK_BENCH_REPEAT times (default 100000: 1 M records, 200,000
# stacks of 7 frames) by tests/fixtures/make-buffers-fixture.py, version 6.
# The goal is at most 1.3x the time of the load without the plugin. The CPU
# time of the process over the load is printed too: on a host whose cores
# are shared with other work, it is the steadier of the two.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=${1:-7}
REPEAT=${KSHARK_BENCH_REPEAT:-100000}
ks=${USTACK_KSHARK_DIR:-$top/build/kernelshark-plugin}
[ -x "$ks/kshark-load-bench" ] || { echo "no $ks/kshark-load-bench (make kernelshark-plugin)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "no /usr/bin/time (apt-get install time)" >&2; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
trace-cmd convert -i "$top/tests/fixtures/plugin/sample.dat" -o "$dir/src.dat" \
	--file-version 6 --compression none >/dev/null 2>&1 &&
python3 "$top/tests/fixtures/make-buffers-fixture.py" "$dir/src.dat" "$dir/big.dat" \
	--top stacks --repeat "$REPEAT" || exit 1

# one run: "load-ms entries peak-rss-kb cpu-ms all-cpu-ms" (all: the load, then all stitched)
one() {
	KSHARK_BENCH_NOINFO=1 KSHARK_BENCH_STITCH=1 /usr/bin/time -f 'RSS %M' \
		"$ks/kshark-load-bench" "$@" "$dir/big.dat" 2>"$dir/err" | tail -n 1 >"$dir/line"
	read -r ms entries _ cpu stitch <"$dir/line"
	echo "$ms $entries $(awk '/^RSS/ { print $2 }' "$dir/err") $cpu" \
	     "$(awk -v a="$cpu" -v b="$stitch" 'BEGIN { printf "%.1f", a + b }')"
}
for i in $(seq 1 "$RUNS"); do
	one >> "$dir/without"
	one -p "$ks/plugin-ustack.so" >> "$dir/with"
done
median() { sort -n -k"$2" "$1" | awk -v k="$2" '{ v[NR] = $k } END { print v[int((NR + 1) / 2)] }'; }
w1=$(median "$dir/without" 1); p1=$(median "$dir/with" 1)
w3=$(median "$dir/without" 3); p3=$(median "$dir/with" 3)
w4=$(median "$dir/without" 4); p4=$(median "$dir/with" 4)
w5=$(median "$dir/without" 5); p5=$(median "$dir/with" 5)
entries=$(awk '{ print $2; exit }' "$dir/with")
r() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
echo "libkshark load (open, buffers, plugin init, kshark_load_all_entries) of $entries"
echo "records, with and without the plugin interleaved, median of $RUNS runs; then"
echo "the Info of the last rows (with the plugin: the whole trace stitched):"
printf '  %-20s %10s %10s %14s %12s\n' "" "load" "CPU time" "CPU, all" "peak RSS"
printf '  %-20s %7s ms %7s ms %11s ms %9s KB\n' "without the plugin" "$w1" "$w4" "$w5" "$w3"
printf '  %-20s %7s ms %7s ms %11s ms %9s KB\n' "with the plugin" "$p1" "$p4" "$p5" "$p3"
printf '  %-20s %10s %10s %14s %12s\n' "ratio" "$(r "$p1" "$w1")" "$(r "$p4" "$w4")" \
	"$(r "$p5" "$w5")" "$(r "$p3" "$w3")"
awk -v a="$p4" -v b="$w4" 'BEGIN {
	r = (b > 0) ? a / b : 0
	printf "goal: KernelShark load, CPU time with the plugin against without (at most 1.30x): %s, %.3fx\n",
		(b > 0 && r <= 1.3) ? "met" : "MISSED", r
}'
