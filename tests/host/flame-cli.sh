#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame's command line says what is wrong with it: "not both" only
# when a trace and -F are both given, what to give when nothing is, and
# --version prints the version (review 2026-11-28, findings [10] and [22]).
# Of [22] too: -o - is standard output (no file "-"), more than 64 traces
# are read, and a full standard output is said in the same words in every
# format. No root; the fixture kstack.dat (5 events) is the trace.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"

KS=$FLAME_FX/kstack.dat
flame_require "ustack-flame built"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# -- no input at all: what to give, not "not both"
"$FLAME" > "$work/out" 2> "$work/err"
rc=$?
check "no input: exit 2" test $rc = 2
check "no input: says what to give" grep -q 'give trace files or -F FOLDED' "$work/err"
check "no input: not 'not both'" test -z "$(grep 'not both' "$work/err")"
check "no input: nothing on standard output" test ! -s "$work/out"

# -- both kinds of input: "not both"
echo 'a;b 1' > "$work/f.folded"
"$FLAME" -F "$work/f.folded" "$KS" > "$work/out" 2> "$work/err"
rc=$?
check "a trace and -F: exit 2, 'not both'" test $rc = 2 -a -n "$(grep 'not both' "$work/err")"

# -- --version: the Makefile's version on standard output, exit 0
want=$(sed -n 's/^VERSION[[:space:]]*:=[[:space:]]*//p' "$USTACK_TOP/flamegraph/Makefile")
"$FLAME" --version > "$work/out" 2> "$work/err"
rc=$?
check "--version: exit 0, nothing on stderr" test $rc = 0 -a ! -s "$work/err"
check "--version: 'ustack-flame $want'" test "$(cat "$work/out")" = "ustack-flame $want"
"$FLAME" --version "$KS" > "$work/out" 2>&1
check "--version with a trace: the version only" test "$(cat "$work/out")" = "ustack-flame $want"
check "--help names --version" grep -q -- '--version' <("$FLAME" --help)
# -- -o -: standard output, no file named "-"
mkdir "$work/cwd"
(cd "$work/cwd" && "$FLAME" -n -o - "$KS") > "$work/out" 2> "$work/err"
rc=$?
"$FLAME" -n "$KS" > "$work/want"
check "-o -: exit 0, no file '-' made" test $rc = 0 -a ! -e "$work/cwd/-"
same "-o -: the graph on standard output" "$work/want" "$work/out"

# -- more than FLAME_MAX_LIST (64) traces: all of them read
for n in 65 200; do
	set --
	for i in $(seq $n); do set -- "$@" "$KS"; done
	"$FLAME" -n -a "$@" > "$work/out" 2> "$work/err"
	rc=$?
	check "$n traces: exit 0, nothing on stderr" \
		test $rc = 0 -a ! -s "$work/err"
	check "$n traces: $((5 * n)) events counted" \
		test "$(awk '{ n += $NF } END { print n + 0 }' "$work/out")" = $((5 * n))
done

# -- a full standard output: the same words in every format (html and svg
# are written past stdio's buffer: the write fails while writing, not when
# flushed at the end)
for f in folded speedscope perf svg html; do
	"$FLAME" -n -f $f "$KS" > /dev/full 2> "$work/err"
	rc=$?
	check "-f $f > /dev/full: exit 1, 'standard output: No space left on device'" \
		test $rc = 1 -a "$(cat "$work/err")" = \
		"ustack-flame: standard output: No space left on device"
done
finish
