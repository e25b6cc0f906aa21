#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame's pprof and OTLP output against its folded output (issue
# 41): the CPU time and peak memory of writing each format from the same
# trace, in interleaved rounds (tests/bench/host-measure.sh: the median of
# each format's CPU time, and of its ratio to the round's folded run, with
# the spread), and each format's seconds per million events.
#
#   tests/bench/flame-export.sh [ROUNDS]      (default 5)
#
# The trace: kstack.dat's 5 events (11 frames each, user and kernel, the
# symbols from the fixture's debug files) repeated FLAME_BENCH_REPEAT times
# (default 200000: a million events) by tests/fixtures/make-buffers-fixture.py.
# There is no goal: the rows say what the formats cost. A ratio that
# spreads more than its effect (or more than 0.02) is said to be noise
# ("  NOISE: ..."), which fails nothing: the script exits non-zero only
# when it could not measure.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/host-measure.sh"
ROUNDS=${1:-5}
REPEAT=${FLAME_BENCH_REPEAT:-200000}
EVENTS=$((REPEAT * 5))
flame=${USTACK_FLAME_O:-$top/build/flamegraph}/ustack-flame
fx=$top/tests/fixtures/flame
[ -x "$flame" ] || { echo "no $flame (make flamegraph)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "no /usr/bin/time (apt-get install time)" >&2; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for f in "$fx"/*.debug; do
	b=$(basename "$f" .debug)
	mkdir -p "$dir/debug/.build-id/${b:0:2}" "$dir/root"
	cp "$f" "$dir/debug/.build-id/${b:0:2}/${b:2}.debug"
done
trace-cmd convert -i "$fx/kstack.dat" -o "$dir/src.dat" --file-version 6 \
	--compression none > /dev/null 2>&1 || { echo "trace-cmd convert failed" >&2; exit 1; }
python3 "$top/tests/fixtures/make-buffers-fixture.py" "$dir/src.dat" "$dir/big.dat" \
	--top stacks --repeat "$REPEAT" || exit 1

for round in $(seq "$ROUNDS"); do
	for format in folded pprof otlp; do
		m=$(hm_cpu "$flame" -d "$dir/debug" -s "$dir/root" -f "$format" \
			-o "$dir/out.$format" "$dir/big.dat") ||
			{ echo "ustack-flame -f $format failed" >&2; exit 1; }
		echo "$round $format $m" >> "$dir/rows"
	done
done
echo "ustack-flame: $EVENTS events, $ROUNDS rounds, CPU time (user + system):"
printf '  %-7s %10s %12s %8s %9s %10s\n' format cpu-ms "s/M events" "x folded" spread peak-MiB
while read -r mode cpu ratio q1 q3 rss; do
	printf '  %-7s %10.0f %12.2f %8.2f %9.3f %10.1f\n' "$mode" "$cpu" \
		"$(awk -v c="$cpu" -v n="$EVENTS" 'BEGIN { print c / 1000 / (n / 1e6) }')" \
		"$ratio" "$(awk -v a="$q1" -v b="$q3" 'BEGIN { print b - a }')" \
		"$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
	if [ "$mode" != folded ] && hm_noisy "$ratio" "$q1" "$q3"; then
		hm_say_noise "$mode" "$ratio" "$q1" "$q3"
	fi
done < <(hm_rows "$dir/rows")
echo "  output: $(for f in folded pprof otlp; do printf '%s %s bytes  ' "$f" \
	"$(stat -c %s "$dir/out.$f")"; done)"
exit 0
