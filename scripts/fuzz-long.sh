#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fuzz-long: every libFuzzer target of tests/fuzz (built by make fuzz
# into build/fuzz) at the same time, for SECONDS (3600) of wall time each,
# each over a working corpus of its own, build/fuzz-long/TARGET/corpus,
# copied afresh from tests/fuzz/corpus/TARGET.
#
# The machine is shared with kernel builds and guests: the whole group runs
# at the lowest CPU priority, nice -n 19 in a session of its own whose
# scheduler autogroup gets nice 19 too (sched(7): with autogroups, CFS
# shares the CPUs between the groups first, whatever a task's nice value).
#
# At the end, a line per target: run time, executions, corpus units before
# and after, coverage, and the finding (crash-*, leak-*, timeout-*, oom-*
# in build/fuzz-long/TARGET/). At nice 19 on a busy host, an input that
# takes 1 s may take a minute of wall time: a timeout whose input then
# finishes alone within STALL_SECONDS (120) was a stall, not a finding (as
# in tests/host/fuzz.sh); it is kept as stall-* and the target goes on for
# the time left. Each finding is copied to tests/fuzz/corpus/TARGET/, which
# tests/host/fuzz.sh replays; the status is 1 if there was one.
#
#   scripts/fuzz-long.sh [SECONDS]
#
# Environment: FUZZ_TIMEOUT (30 s for one input), FUZZ_RSS_MB (2048).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)

# Once, the whole run in its own session, its autogroup and itself at nice 19.
if [ -z "${FUZZ_LONG_LOW:-}" ]; then
	exec setsid -w sh -c 'echo 19 > /proc/self/autogroup 2>/dev/null
		FUZZ_LONG_LOW=1 exec nice -n 19 "$@"' low "$0" "$@"
fi

secs=${1:-3600}
timeout=${FUZZ_TIMEOUT:-30}
rss=${FUZZ_RSS_MB:-2048}
stall=${STALL_SECONDS:-120}
bin=$top/build/fuzz
out=$top/build/fuzz-long
corpus=$top/tests/fuzz/corpus

echo "fuzz-long: $(cd "$corpus" && echo *), $secs s each, at once," \
     "autogroup: $(cat /proc/self/autogroup 2>/dev/null)"
for dir in "$corpus"/*/; do
	t=$(basename "$dir")
	[ -x "$bin/fuzz-$t" ] || { echo "fuzz-long: $bin/fuzz-$t not built" >&2; exit 2; }
	rm -rf "${out:?}/$t"
	mkdir -p "$out/$t/corpus"
	cp "$dir"* "$out/$t/corpus/"
	ls "$out/$t/corpus" | wc -l >"$out/$t/before"
	(
		start=$(date +%s)
		left=$secs
		while :; do
			"$bin/fuzz-$t" -max_total_time="$left" -timeout="$timeout" \
				-rss_limit_mb="$rss" -print_final_stats=1 \
				-artifact_prefix="$out/$t/" "$out/$t/corpus" >>"$out/$t/log" 2>&1
			rc=$?
			left=$((secs - ($(date +%s) - start)))
			unit=$(ls "$out/$t"/timeout-* 2>/dev/null | head -n 1)
			[ "$rc" -ne 0 ] && [ -n "$unit" ] && [ "$left" -gt 60 ] &&
				"$bin/fuzz-$t" -timeout="$stall" "$unit" >/dev/null 2>&1 &&
				mv "$unit" "$out/$t/stall-${unit##*/timeout-}" || break
		done
		echo "$rc $(($(date +%s) - start))" >"$out/$t/status"
	) &
done
wait

found=0
for dir in "$corpus"/*/; do
	t=$(basename "$dir")
	read -r rc wall <"$out/$t/status"
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t/log" |
		awk '{ n += $1 } END { print n }')
	stalls=$(ls "$out/$t" | grep -c '^stall-')
	cov=$(grep -E '^#[0-9]+' "$out/$t/log" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+')
	echo "$t: ${wall} s, ${execs:-?} execs, corpus $(cat "$out/$t/before") ->" \
	     "$(ls "$out/$t/corpus" | wc -l), ${cov:-cov: ?}, $stalls stalls, exit $rc"
	n=0
	for f in "$out/$t"/{crash,leak,timeout,oom}-*; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		if [[ ${f##*/} == timeout-* ]] &&
		   "$bin/fuzz-$t" -timeout="$stall" -rss_limit_mb="$rss" "$f" >/dev/null 2>&1; then
			echo "  ${f#"$top"/}: a stall of the host (finished alone in $stall s)"
			continue
		fi
		echo "  FINDING ${f#"$top"/} ($(grep -m1 -E 'SUMMARY|ERROR' "$out/$t/log"))"
		cp "$f" "$dir"
		found=1
	done
	if [ "$rc" -ne 0 ] && [ "$n" -eq 0 ]; then
		echo "  stopped without an input: see ${out#"$top"/}/$t/log"
		found=1
	fi
done
[ "$found" -eq 0 ]
