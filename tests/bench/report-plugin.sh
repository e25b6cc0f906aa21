#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: "trace-cmd report" with the trace-cmd plugin against without it,
# on the same traces: time and peak memory, as ratios, and the memory the
# plugin adds at two trace lengths (it must not grow with the trace).
#
#   tests/bench/report-plugin.sh            on the host: records the traces in
#                                           a guest, then times report here
#   tests/bench/report-plugin.sh record DIR CALLS   in the guest: records into DIR
#
# The traces: ustack-sample's getppid calls under stock "trace-cmd record -O
# user_stacktrace_deferred -e raw_syscalls", 4 records per call (cookie,
# sys_enter, sys_exit, stack; 7 frames each), REPORT_BENCH_CALLS calls for the
# short trace (default 250000: 1 M records) and twice that for the long one.
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
PLUGIN_DIR=$top/build/trace-cmd-plugin
[ -r "$PLUGIN_DIR/plugin_ustack.so" ] || { echo "no $PLUGIN_DIR/plugin_ustack.so" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "no /usr/bin/time (apt-get install time)" >&2; exit 1; }

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
	done
	# what the read-ahead held: its bound, not the trace length; and that
	# the plugin did give stacks (else the times above measure nothing)
	st=$(TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd report -O ustack_stats -i "$f" 2>&1 >/dev/null |
		sed -n 's/^plugin_ustack: /           read-ahead: /p')
	echo "$st"
	echo "$st" | grep -q ', [1-9][0-9]* with a stack' ||
		{ echo "r$n: the plugin gave no stacks" >&2; exit 1; }
done
