#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/bench/readme.sh writes make bench's results into the README's
# results block, from a results directory: every part's report, the
# seconds per part, the plots; the rest of the README unchanged; and it
# exits 0 (make bench fails when it does not). On a README and results
# directory of its own.
. "$(dirname "$0")/../lib/result.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bench"
printf 'icount row 1\n[   12.345678] console noise\n' > "$work/bench/ftrace-icount.txt"
printf 'perf row 1\n' > "$work/bench/perf.txt"
printf 'ftrace-icount 155\nperf 455\n' > "$work/bench/times.txt"
: > "$work/bench/cost.png"
printf 'before\n<!-- bench results: begin -->\nold results\n<!-- bench results: end -->\nafter\n' \
	> "$work/README.md"

"$USTACK_TOP/tests/bench/readme.sh" "$work/bench" "$work/README.md" 2> "$work/err"
rc=$?
check "readme.sh exits 0 ($rc; $(head -c 200 "$work/err"))" test "$rc" = 0 -a ! -s "$work/err"
check "the seconds per part are in the block" \
	grep -qxF 'Seconds per part: ftrace-icount 155, perf 455.' "$work/README.md"
check "every part's report is in the block, without console lines" \
	sh -c "grep -qx 'icount row 1' '$work/README.md' && grep -qx 'perf row 1' '$work/README.md' &&
	       ! grep -q 'console noise' '$work/README.md'"
check "the plots are named" grep -qF 'Plot: `build/bench/cost.png`' "$work/README.md"
check "the old results are gone, the text around the block stays" \
	sh -c "! grep -q 'old results' '$work/README.md' && test \"\$(head -n 1 '$work/README.md')\" = before &&
	       test \"\$(tail -n 1 '$work/README.md')\" = after"
finish
