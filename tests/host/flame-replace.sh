#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame never loses an input or an older output (review 2026-11-28,
# finding [4]): an output that is an input (by name, hard or symbolic link,
# standard input or output) is refused with both names and nothing written;
# a failure, even after part of the output was written, leaves the older
# output as it was and no temporary file; success replaces the output whole,
# with its mode. "-o -" is standard output. No root needed.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"

KS=$FLAME_FX/kstack.dat
flame_require "ustack-flame built"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flame_setup "$work"
d=$work/out
mkdir "$d"

# files DIR: the names in DIR, hidden ones too (a temporary file left behind)
files() { (cd "$1" && ls -A | tr '\n' ' '); }

# refused NAME EXPECTED-FILE FILE OUTPUT INPUT ARGS...: exit 1, a message
# naming OUTPUT and INPUT, FILE the same as EXPECTED-FILE
refused() {
	local name=$1 want=$2 file=$3 o=$4 i=$5 rc

	shift 5
	"$@" > "$work/stdout" 2> "$work/err"
	rc=$?
	check "$name: exit 1" test $rc = 1
	check "$name: said, both named" grep -qF -- "-o $o is the same file as the input $i" \
		"$work/err"
	check "$name: the input kept" cmp "$want" "$file"
}

# -- the output is the input
cp "$KS" "$d/victim.dat"
refused "trace -o itself" "$KS" "$d/victim.dat" "$d/victim.dat" "$d/victim.dat" \
	flame -f svg -o "$d/victim.dat" "$d/victim.dat"
echo 'a;b 3' > "$d/v.folded"
cp "$d/v.folded" "$work/v.want"
refused "-F FILE -o itself" "$work/v.want" "$d/v.folded" "$d/v.folded" "$d/v.folded" \
	flame -F "$d/v.folded" -o "$d/v.folded"
ln "$d/victim.dat" "$d/hard.dat"
refused "-o a hard link of the trace" "$KS" "$d/victim.dat" "$d/hard.dat" "$d/victim.dat" \
	flame -o "$d/hard.dat" "$d/victim.dat"
ln -s v.folded "$d/sym.folded"
refused "-o a symbolic link to -F's file" "$work/v.want" "$d/v.folded" "$d/sym.folded" \
	"$d/v.folded" flame -F "$d/v.folded" -o "$d/sym.folded"
refused "-o the second of two traces" "$KS" "$d/victim.dat" "$d/victim.dat" "$d/victim.dat" \
	flame -o "$d/victim.dat" "$KS" "$d/victim.dat"
flame -F - -o "$d/v.folded" < "$d/v.folded" > /dev/null 2> "$work/err"
rc=$?
check "-F - -o the file on standard input: exit 1, said" \
	test $rc = 1 -a -n "$(grep -F "is the same file as the input (standard input)" "$work/err")"
check "-F - -o the file on standard input: kept" cmp "$work/v.want" "$d/v.folded"
flame -F "$d/v.folded" >> "$d/v.folded" 2> "$work/err"
rc=$?
check "standard output appending to -F's file: exit 1, said" \
	test $rc = 1 -a -n "$(grep -F "standard output is the same file as the input $d/v.folded" \
	"$work/err")"
check "standard output appending to -F's file: kept" cmp "$work/v.want" "$d/v.folded"

# -- an older output is kept when the command fails
flame -f svg -o "$d/good.svg" "$KS"
cp "$d/good.svg" "$work/good.want"
chmod 640 "$d/good.svg"
flame -f svg -o "$d/good.svg" "$work/missing.dat" 2> "$work/err"
rc=$?
check "a missing trace: exit 1" test $rc = 1
check "a missing trace: the older output kept" cmp "$work/good.want" "$d/good.svg"
# perf text is written while the traces are read: the first one is, then
# the second is missing
flame -f perf -o "$d/good.txt" "$KS" > /dev/null
cp "$d/good.txt" "$work/txt.want"
flame -f perf -n -o "$d/good.txt" "$KS" "$work/missing.dat" 2> "$work/err"
rc=$?
check "failing after part was written: exit 1" test $rc = 1
check "failing after part was written: the older output kept" \
	cmp "$work/txt.want" "$d/good.txt"
check "no temporary file left behind" \
	test "$(files "$d")" = "good.svg good.txt hard.dat sym.folded v.folded victim.dat "

# -- success replaces the output whole, and keeps its mode
flame -f html -o "$d/good.svg" "$KS"
rc=$?
flame -f html "$KS" > "$work/html"
check "success: exit 0" test $rc = 0
check "success: the new output, whole" cmp "$work/html" "$d/good.svg"
check "success: the output's mode kept (640)" test "$(stat -c %a "$d/good.svg")" = 640
(umask 027 && flame -o "$d/new.folded" "$KS")
check "a new output: the umask's mode (640)" test "$(stat -c %a "$d/new.folded")" = 640
ln -s good.svg "$d/link.svg"
flame -o "$d/link.svg" "$KS"
check "a symbolic link: still one, to the file replaced" \
	test -L "$d/link.svg" -a "$(flame "$KS")" = "$(cat "$d/good.svg")"
check "still no temporary file left behind" \
	test "$(files "$d")" = "good.svg good.txt hard.dat link.svg new.folded sym.folded v.folded victim.dat "

# -- "-o -" is standard output; a device is written as it is
(cd "$d" && flame -o - "$KS" > "$work/stdout")
check "-o -: standard output" cmp <(flame "$KS") "$work/stdout"
check "-o -: no file named '-'" test ! -e "$d/-"
flame -o /dev/null "$KS"
check "-o /dev/null: exit 0, still the device" test $? = 0 -a -c /dev/null
finish
