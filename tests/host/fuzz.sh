#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The libFuzzer targets of libtracefs-ext and libusf (tests/fuzz/, built by make check
# into build/fuzz): each replays its committed corpus (the seeds, and every
# input that once crashed it), then fuzzes for FUZZ_CHECK_SECONDS (45) from
# there. A target that is not built, a crash, a leak, a sanitizer report or
# a failed check of the target's own is a FAIL; the input that did it is
# kept in build/tests/fuzz-artifacts/. make fuzz runs them longer.
. "$(dirname "$0")/../lib/result.sh"

bin=$USTACK_TOP/build/fuzz
corpus=$USTACK_TOP/tests/fuzz/corpus
artifacts=$USTACK_TOP/build/tests/fuzz-artifacts
secs=${FUZZ_CHECK_SECONDS:-45}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"

# The last lines of a libFuzzer log that say what went wrong.
why() { grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$1" | head -n 3 | tr '\n' ' '; }

for t in stitch decode symbolize sframe entries; do
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
	else
		fail "fuzz $t ${secs} s" "$(why "$work/$t.log")"
		sed 's/^/    /' "$work/$t.log" | grep -vE '^    #[0-9]+' | tail -n 40
	fi
done
finish
