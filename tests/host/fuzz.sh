#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The libFuzzer targets of libtracefs-ext and libusf (tests/fuzz/, built by make check
# into build/fuzz): each replays its committed corpus (the seeds, and every
# input that once crashed it), then fuzzes for FUZZ_CHECK_SECONDS (45) from
# there. A target that is not built, a crash, a leak, a sanitizer report or
# a failed check of the target's own is a FAIL; the input that did it is
# kept in build/tests/fuzz-artifacts/. make fuzz runs them longer.
# A timeout (10 s of wall time for one input) may be the machine's, not the
# input's: on a busy host a process at nice 19 gets a few percent of a CPU.
# Such an input is run again alone, with STALL_SECONDS (60) to finish: when
# it does, the timeout was a stall, said so in the PASS line; when it does
# not, it is a hang and a FAIL.
. "$(dirname "$0")/../lib/result.sh"

bin=$USTACK_TOP/build/fuzz
corpus=$USTACK_TOP/tests/fuzz/corpus
artifacts=$USTACK_TOP/build/tests/fuzz-artifacts
secs=${FUZZ_CHECK_SECONDS:-45}
stall=${STALL_SECONDS:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"

# The last lines of a libFuzzer log that say what went wrong.
why() { grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$1" | head -n 3 | tr '\n' ' '; }

# stalled FUZZER LOG: LOG ends in a timeout, and its input, run again alone,
# finishes within $stall seconds: print that input.
stalled() {
	local unit

	grep -q 'ERROR: libFuzzer: timeout' "$2" || return 1
	unit=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$2" | tail -n 1)
	# the corpus replay writes none: the input is named where it ran
	[ -n "$unit" ] || unit=$(sed -n 's/^Running: //p' "$2" | tail -n 1)
	[ -f "$unit" ] && "$1" -timeout="$stall" -rss_limit_mb=2048 "$unit" >"$2.again" 2>&1 &&
		echo "$unit"
}

for t in stitch decode symbolize sframe entries perfmap tracedat; do
	fuzzer=$bin/fuzz-$t
	if [ ! -x "$fuzzer" ]; then
		fail "fuzz $t" "${fuzzer#"$USTACK_TOP"/} not built (make -C tests/fuzz)"
		continue
	fi
	inputs=("$corpus/$t"/*)
	if [ ! -e "${inputs[0]}" ]; then
		fail "fuzz $t corpus" "no inputs in ${corpus#"$USTACK_TOP"/}/$t"
	elif "$fuzzer" -timeout=10 -rss_limit_mb=2048 "${inputs[@]}" >"$work/$t-replay.log" 2>&1
	then
		pass "fuzz $t corpus (${#inputs[@]} inputs replayed)"
	elif unit=$(stalled "$fuzzer" "$work/$t-replay.log") &&
	     "$fuzzer" -timeout="$stall" -rss_limit_mb=2048 "${inputs[@]}" >"$work/$t-replay.log" 2>&1
	then
		pass "fuzz $t corpus (${#inputs[@]} inputs replayed; a stall of the host on ${unit##*/}, which finished alone)"
	else
		fail "fuzz $t corpus" "$(why "$work/$t-replay.log")"
		sed 's/^/    /' "$work/$t-replay.log" | tail -n 30
	fi

	mkdir -p "$work/$t"
	if nice -n 19 "$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$artifacts/$t-" "$work/$t" "$corpus/$t" \
		>"$work/$t.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log")
		pass "fuzz $t ${secs} s (${runs:-?} runs, no finding)"
	elif unit=$(stalled "$fuzzer" "$work/$t.log"); then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log")
		pass "fuzz $t ${secs} s (${runs:-?} runs; a timeout on ${unit##*/} was a stall of the host: it finished alone in $stall s)"
	else
		fail "fuzz $t ${secs} s" "$(why "$work/$t.log")"
		sed 's/^/    /' "$work/$t.log" | grep -vE '^    #[0-9]+' | tail -n 40
	fi
done
finish
