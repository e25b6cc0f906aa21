#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzz one target until it has had CPU_SECONDS of CPU time (user + system,
# as the kernel accounts it for the finished process), in chunks of
# CHUNK_SECONDS wall time each, nice -n 19, over one working corpus that
# carries over from chunk to chunk. Each chunk appends a line to LOG:
#
#   date target wall_s cpu_s execs new_units cov ft corpus_units status
#
# and a line with the totals so far (a LOG that exists is continued: its
# totals count). status is "ok", "finding:INPUT" (the input is kept in
# ARTIFACTS, the fuzzer's output beside it as TARGET-TIME.log) or "exit:N"
# (stopped without an input, e.g. killed). It stops at the first chunk that
# is not ok, with status 1, or when the CPU goal is reached. Run one at a
# time on a 2-core machine shared with builds and guests.
#
# nice -n 19 alone does not keep the fuzzer out of the way where the
# scheduler groups tasks by session (sched_autogroup_enabled=1): CFS shares
# the CPUs between the groups first, whatever a task's nice value. Each
# fuzzer runs in a session of its own (setsid) whose group gets nice 19 too
# (/proc/self/autogroup; nothing to do where there are no groups).
#
# A timeout on a shared machine may be the machine's, not the input's (the
# process starved, the host paused): a timeout input is run once more, with
# STALL_SECONDS (60) to finish; when it does, the status is "stall:INPUT"
# and fuzzing goes on.
#
#   long-run.sh TARGET CPU_SECONDS [CHUNK_SECONDS]
#
# Environment: FUZZ_BIN (build/fuzz), FUZZ_WORK (build/fuzz/corpus/TARGET),
# FUZZ_LOG (build/fuzz/long-TARGET.log), FUZZ_ARTIFACTS (build/fuzz/artifacts).
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
t=${1:?target}
goal=${2:?cpu seconds}
chunk=${3:-600}
bin=${FUZZ_BIN:-$top/build/fuzz}
work=${FUZZ_WORK:-$bin/corpus/$t}
log=${FUZZ_LOG:-$bin/long-$t.log}
artifacts=${FUZZ_ARTIFACTS:-$bin/artifacts}
stall=${STALL_SECONDS:-60}
seeds=$top/tests/fuzz/corpus/$t
fuzzer=$bin/fuzz-$t

[ -x "$fuzzer" ] || { echo "$fuzzer: not built" >&2; exit 2; }

# low COMMAND...: run it at nice 19 in a session of its own, its group too
low() {
	setsid -w sh -c '[ -w /proc/self/autogroup ] && echo 19 > /proc/self/autogroup
			 exec nice -n 19 "$@"' low "$@"
}
mkdir -p "$work" "$artifacts"

total_wall=0
total_cpu=0
total_execs=0
total_new=0
if [ -s "$log" ]; then
	read -r total_wall total_cpu total_execs total_new < <(awk '$1 !~ /^#/ && NF >= 10 \
		{ w += $3; c += $4; e += $5; n += $6 } END { printf "%d %d %d %d\n", w, c, e, n }' "$log")
fi

while [ "$total_cpu" -lt "$goal" ]; do
	out=$(mktemp)
	tf=$(mktemp)
	/usr/bin/time -o "$tf" -f '%e %U %S' low "$fuzzer" -max_total_time="$chunk" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$artifacts/$t-" "$work" "$seeds" >"$out" 2>&1
	rc=$?
	read -r wall user sys < <(tail -n 1 "$tf")
	wall=${wall%.*}
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", u + s }')
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out")
	new=$(sed -n 's/^stat::new_units_added: *//p' "$out")
	last=$(grep -E '^#[0-9]+' "$out" | tail -n 1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	units=$(ls "$work" | wc -l)
	status=ok
	if [ "$rc" -ne 0 ]; then
		unit=$(grep -oE 'Test unit written to [^ ]+' "$out" | tail -n 1 | \
			sed 's/Test unit written to //')
		status=${unit:+finding:$unit}
		status=${status:-exit:$rc}
		cp "$out" "$artifacts/$t-$(date +%s).log"
		if [[ "$unit" == */$t-timeout-* ]] &&
		   low "$fuzzer" -timeout="$stall" "$unit" >/dev/null 2>&1; then
			status=stall:$unit
			rc=0
		fi
	fi
	echo "$(date -u +%FT%TZ) $t $wall $cpu ${execs:-0} ${new:-0} ${cov:-?} ${ft:-?} $units $status" \
		>>"$log"
	total_wall=$((total_wall + wall))
	total_cpu=$((total_cpu + cpu))
	total_execs=$((total_execs + ${execs:-0}))
	total_new=$((total_new + ${new:-0}))
	echo "# total $t: wall ${total_wall} s, cpu ${total_cpu} s, execs ${total_execs}, new ${total_new}" \
		>>"$log"
	rm -f "$out" "$tf"
	[ "$rc" -eq 0 ] || exit 1
done
exit 0
