#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/bench/readme.sh writes make bench's results into the results
# block of a page, from a results directory: every part's report, the
# seconds per part, the plots; the rest of the page unchanged; and it
# exits 0 (make bench fails when it does not). On a page and results
# directory of its own. And make bench gives it docs/bench-results.md,
# which has the block, and not README.md, which has none.
. "$(dirname "$0")/../lib/result.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bench"
printf 'icount row 1\n[   12.345678] console noise\n' > "$work/bench/ftrace-icount.txt"
printf 'perf row 1\n' > "$work/bench/perf.txt"
printf 'ftrace-icount 155\nperf 455\n' > "$work/bench/times.txt"
: > "$work/bench/cost.png"
page=$work/bench-results.md
printf 'before\n<!-- bench results: begin -->\nold results\n<!-- bench results: end -->\nafter\n' \
	> "$page"

"$USTACK_TOP/tests/bench/readme.sh" "$work/bench" "$page" 2> "$work/err"
rc=$?
check "readme.sh exits 0 ($rc; $(head -c 200 "$work/err"))" test "$rc" = 0 -a ! -s "$work/err"
check "the seconds per part are in the block" \
	grep -qxF 'Seconds per part: ftrace-icount 155, perf 455.' "$page"
check "every part's report is in the block, without console lines" \
	sh -c "grep -qx 'icount row 1' '$page' && grep -qx 'perf row 1' '$page' &&
	       ! grep -q 'console noise' '$page'"
check "the plots are named" grep -qF 'Plot: `build/bench/cost.png`' "$page"
check "the old results are gone, the text around the block stays" \
	sh -c "! grep -q 'old results' '$page' && test \"\$(head -n 1 '$page')\" = before &&
	       test \"\$(tail -n 1 '$page')\" = after"

printf 'no block here\n' > "$work/plain.md"
"$USTACK_TOP/tests/bench/readme.sh" "$work/bench" "$work/plain.md" 2> /dev/null
rc=$?
check "a page without the block: readme.sh exits 1 ($rc), the page unchanged" \
	sh -c "test $rc = 1 && test \"\$(cat '$work/plain.md')\" = 'no block here'"

results=$USTACK_TOP/docs/bench-results.md
check "make bench writes docs/bench-results.md (scripts/bench.sh)" \
	grep -qF '"$top/tests/bench/readme.sh" "$out" "$top/docs/bench-results.md"' \
	"$USTACK_TOP/scripts/bench.sh"
check "docs/bench-results.md has one results block" \
	sh -c "test \"\$(grep -cxF '<!-- bench results: begin -->' '$results')\" = 1 &&
	       test \"\$(grep -cxF '<!-- bench results: end -->' '$results')\" = 1"
check "README.md has no results block (make bench leaves it alone)" \
	sh -c "! grep -qF '<!-- bench results:' '$USTACK_TOP/README.md'"
finish
