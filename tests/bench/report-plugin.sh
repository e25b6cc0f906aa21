#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: "trace-cmd report" with the trace-cmd plugin against without it,
# on the same traces: time and peak memory, as ratios, and the memory the
# plugin adds at two trace lengths (it must not grow with the trace).
#
#   tests/bench/report-plugin.sh            on the host: records the traces in
#                                           a guest, then times report here
#   tests/bench/report-plugin.sh record DIR CALLS   in the guest: records into DIR
#   tests/bench/report-plugin.sh nostacks   on the host only: the row of a trace
#                                           without deferred stacks (below)
#
# First, on the host, a trace without stacks (a stock kernel's: no user_unwind_*
# events; made by tests/fixtures/make-buffers-fixture.py from the committed
# fixture's getppid events, 4 per call, REPORT_BENCH_CALLS calls, version 7 with
# zstd as trace-cmd records by default): report with and without the plugin,
# interleaved, the median of REPORT_BENCH_NOSTACK_RUNS (default 11) runs each.
# The plugin must do nothing there (goal: at most 1.02x).
#
# The traces: ustack-sample's getppid calls under stock "trace-cmd record -O
# user_stacktrace_deferred -e raw_syscalls", about 3 records per call
# (sys_enter, sys_exit, the stack of 7 frames; a cookie entry only where the
# CPU's entries do not say it already), REPORT_BENCH_CALLS calls for the
# short trace (default 250000) and twice that for the long one.
#
# Each goal gets a line "goal: WHAT (at most R): met|MISSED, RATIO": the CPU
# time on the trace without stacks at most 1.02x, report's time at most 1.3x,
# and the memory the plugin adds the same at both lengths.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
CALLS=${REPORT_BENCH_CALLS:-250000}
RUNS=${REPORT_BENCH_RUNS:-3}

if [ "${1:-}" = record ]; then
	dir=$2
	CALLS=$3
	cd /tmp || exit 1
	# into the guest's tmpfs first: the recorder keeps up there, no overruns
	for n in $CALLS $((2 * CALLS)); do
		trace-cmd record -q -b 65536 -o /tmp/r.dat -O user_stacktrace_deferred \
			-e raw_syscalls -F "$top/build/progs/ustack-sample" "$n" > /dev/null || exit 1
		echo "recorded $n calls: $(trace-cmd report -N --stat -i /tmp/r.dat 2>/dev/null |
			grep -c 'overrun: [1-9]') CPUs with overruns"
		cp /tmp/r.dat "$dir/r$n.dat" && rm /tmp/r.dat
	done
	exit 0
fi

. "$top/tests/lib/result.sh"
PLUGIN_DIR=${USTACK_PLUGIN_DIR:-$top/build/trace-cmd-plugin}
[ -r "$PLUGIN_DIR/plugin_ustack.so" ] || { echo "no $PLUGIN_DIR/plugin_ustack.so" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "no /usr/bin/time (apt-get install time)" >&2; exit 1; }

# goal TEXT A B MAX: one line saying whether A / B is at most MAX
goal() {
	awk -v t="$1" -v a="$2" -v b="$3" -v max="$4" 'BEGIN {
		r = (b > 0) ? a / b : 0
		ok = (b > 0 && r <= max) ? "met" : "MISSED"
		printf "goal: %s (at most %.2fx): %s, %.3fx\n", t, max, ok, r
	}'
}

# nostacks: the row of a trace without deferred stacks, on the host
nostacks() {
	local runs=${REPORT_BENCH_NOSTACK_RUNS:-11} dir recs k w1 w2 w3 p1 p2 p3
	dir=$(mktemp -d)
	mkdir "$dir/none"
	trace-cmd convert -i "$top/tests/fixtures/plugin/sample.dat" -o "$dir/src.dat" \
		--file-version 6 --compression none > /dev/null 2>&1
	python3 "$top/tests/fixtures/make-buffers-fixture.py" "$dir/src.dat" "$dir/v6.dat" \
		--no-ustack-formats --top nostacks --repeat "$CALLS" || return 1
	trace-cmd convert -i "$dir/v6.dat" -o "$dir/nostacks.dat" > /dev/null 2>&1 || return 1
	recs=$(trace-cmd report -N -i "$dir/nostacks.dat" 2>/dev/null | grep -vc '^cpus=')
	# one run: "elapsed-ms cpu-ms max-rss-kb" (user + system: less noisy on a busy host)
	one() {
		env TRACEEVENT_PLUGIN_DIR="$1" /usr/bin/time -f '%e %U %S %M' \
			trace-cmd report -i "$dir/nostacks.dat" 2>&1 >/dev/null | tail -n 1 |
			awk '{ printf "%d %d %d\n", $1 * 1000, ($2 + $3) * 1000, $4 }'
	}
	for _ in $(seq 1 "$runs"); do
		one "$dir/none" >> "$dir/without"
		one "$PLUGIN_DIR" >> "$dir/with"
	done
	median() { sort -n -k"$2" "$1" | awk -v k="$2" '{ v[NR] = $k } END { print v[int((NR + 1) / 2)] }'; }
	for k in 1 2 3; do
		eval "w$k=\$(median \"\$dir/without\" $k); p$k=\$(median \"\$dir/with\" $k)"
	done
	r() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3fx", a / b }'; }
	echo "trace-cmd report, trace without stacks ($recs records, version 7), output to"
	echo "/dev/null, with and without the plugin interleaved, median of $runs runs (host):"
	printf '  %-20s %9s %9s %10s\n' "" "elapsed" "cpu" "peak"
	printf '  %-20s %6s ms %6s ms %7s KB\n' "without the plugin" "$w1" "$w2" "$w3"
	printf '  %-20s %6s ms %6s ms %7s KB\n' "with the plugin" "$p1" "$p2" "$p3"
	printf '  %-20s %9s %9s %10s\n' "ratio" "$(r "$p1" "$w1")" "$(r "$p2" "$w2")" "$(r "$p3" "$w3")"
	goal "no stacks: CPU time with the plugin against without" "$p2" "$w2" 1.02
	rm -rf "$dir"
}
nostacks || { echo "the trace without stacks could not be made" >&2; exit 1; }
[ "${1:-}" = nostacks ] && exit 0

out=$("$top/scripts/guest-run.sh" --keep --timeout 1200 -- \
	"echo RES=\$USTACK_RES; bash $top/tests/bench/report-plugin.sh record \$USTACK_RES $CALLS" 2>&1)
res=$(echo "$out" | sed -n 's/^RES=//p' | tail -n 1)
echo "$out" | grep '^recorded' | sort -u
[ -n "$res" ] && [ -r "$res/r$CALLS.dat" ] || { echo "$out" | tail -n 5; exit 1; }
trap 'rm -rf "$res"' EXIT

# measure [ENV...] -- ARGS: the best of RUNS runs of trace-cmd report ARGS
# (output to /dev/null): "seconds max-rss-kb"
measure() {
	local envs=() best_t="" best_m="" t m
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	for _ in $(seq 1 "$RUNS"); do
		read -r t m < <(env "${envs[@]}" /usr/bin/time -f '%e %M' \
			trace-cmd report "$@" 2>&1 >/dev/null | tail -n 1)
		if [ -z "$best_t" ] || awk -v a="$t" -v b="$best_t" 'BEGIN { exit !(a < b) }'; then
			best_t=$t
		fi
		if [ -z "$best_m" ] || [ "$m" -lt "$best_m" ]; then best_m=$m; fi
	done
	echo "$best_t $best_m"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }

echo
echo "trace-cmd report, output to /dev/null, best of $RUNS runs (host):"
printf '%-10s %9s %-26s %8s %10s %8s %8s %9s\n' trace records mode seconds "peak KB" time mem \
	"added KB"
times=()
added=()
for n in $CALLS $((2 * CALLS)); do
	f=$res/r$n.dat
	recs=$(trace-cmd report -N -i "$f" 2>/dev/null | grep -vc '^cpus=')
	read -r t0 m0 <<< "$(measure -- -i "$f")"
	printf '%-10s %9s %-26s %8s %10s %8s %8s %9s\n' "r$n" "$recs" "without the plugin" "$t0" "$m0" \
		1.00x 1.00x 0
	for mode in "" "-O ustack_nosym"; do
		# shellcheck disable=SC2086
		read -r t m <<< "$(measure TRACEEVENT_PLUGIN_DIR="$PLUGIN_DIR" -- $mode -i "$f")"
		# added KB: the plugin's own memory, which must not grow with the trace
		printf '%-10s %9s %-26s %8s %10s %8s %8s %9s\n' "r$n" "$recs" \
			"with the plugin${mode:+ $mode}" "$t" "$m" "$(ratio "$t" "$t0")" \
			"$(ratio "$m" "$m0")" $((m - m0))
		if [ -z "$mode" ]; then
			times+=("$recs $t $t0")
			added+=($((m - m0)))
		fi
	done
	# what the read-ahead held: its bound, not the trace length; and that
	# the plugin did give stacks (else the times above measure nothing)
	st=$(TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd report -O ustack_stats -i "$f" 2>&1 >/dev/null |
		sed -n 's/^plugin_ustack: /           read-ahead: /p')
	echo "$st"
	echo "$st" | grep -q ', [1-9][0-9]* with a stack' ||
		{ echo "r$n: the plugin gave no stacks" >&2; exit 1; }
done
# the goals, each a line: at most 1.3x the time; the memory the plugin adds
# flat (at twice the records, no more than 10% or 4 MB above)
for row in "${times[@]}"; do
	read -r recs t t0 <<< "$row"
	goal "time with the plugin against without, $recs records" "$t" "$t0" 1.30
done
a1=${added[0]} a2=${added[1]}
slack=$((a1 / 10 > 4096 ? a1 / 10 : 4096))
if [ "$a2" -le $((a1 + slack)) ]; then
	echo "goal: the plugin's added memory does not grow with the trace: met, +$a1 KB, then +$a2 KB"
else
	echo "goal: the plugin's added memory does not grow with the trace: MISSED, +$a1 KB, then +$a2 KB"
fi
