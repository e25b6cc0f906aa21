#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench's part "floor": tests/bench/floor.patch still applies to the
# series (checked against build/linux's HEAD in an index of its own, the
# work tree untouched), and tests/bench/floor-table.awk puts two profile
# reports side by side with the right totals and ratios, on reports made
# up here, and fails on a report with no total.
. "$(dirname "$0")/../lib/result.sh"

w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
table=$USTACK_TOP/tests/bench/floor-table.awk
tree=$USTACK_TOP/build/linux

if git -C "$tree" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	export GIT_INDEX_FILE=$w/index
	git -C "$tree" read-tree HEAD
	check "floor.patch applies to the series (build/linux HEAD)" \
		git -C "$tree" apply --cached --check "$USTACK_TOP/tests/bench/floor.patch"
	unset GIT_INDEX_FILE
else
	skip "floor.patch applies to the series" "no build/linux (make kernel makes it)"
fi

# report NAME INPLACE DEFERRED RING: a profile-report.py report, groups made up
report() {
	cat > "$w/$1" <<EOR
Instructions per system call that user stacks add (eq8: 8 frames, 1 event per
kernel entry, 100 calls), by kernel function, over the mean of two runs without:

inplace: $2 instructions per call
  in-place walk             460
         200  arch_stack_walk_user
  ring buffer               420
  other                      $(($2 - 880))
  the -icount clock gives $2: agrees (0.0%)

deferred: $3 instructions per call
  ring buffer               $4
         106  __rb_reserve_next.constprop.0
  deferred walk             $(($3 - 400 - $4))
  stack entry               200
  other                     200
EOR
}
report series 900 1800 450
report floor 880 1000 430
awk -f "$table" "$w/series" "$w/floor" > "$w/out" 2>&1
rc=$?
check "two reports: exit 0 ($rc: $(head -c 200 "$w/out"))" test $rc = 0
check "a group's row: series in-place, deferred, floor" \
	grep -qE '^ring buffer +420 +450 +430$' "$w/out"
check "a group only deferred has" grep -qE '^deferred walk +950 +170$' "$w/out"
check "\"other\" comes last, before the totals" \
	sh -c "tail -n 4 '$w/out' | head -n 2 | grep -qE '^other +20 +200 +200\$'"
check "the totals" grep -qE '^total +900 +1800 +1000$' "$w/out"
check "the ratios, each against its own run's in-place" \
	grep -q 'the series 2.00x, the floor 1.14x (in-place 880 in its run)' "$w/out"
check "the goal's instructions" grep -q 'at most 1.1x, is 990 instructions' "$w/out"
check "the -icount line is no group" sh -c "! grep -q '^the -icount' '$w/out'"

sed '/^deferred:/,$d' "$w/floor" > "$w/nodeferred"
awk -f "$table" "$w/series" "$w/nodeferred" > "$w/out" 2>&1
rc=$?
check "a report with no deferred total: exit 1, named ($rc)" \
	sh -c "test $rc = 1 && grep -q 'no deferred total in $w/nodeferred' '$w/out'"
finish
