#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame -F reads folded text within bounds, and any failure to read
# all of it is an error naming the file and the line, never a partial
# output with exit 0 (review 2026-11-28, findings [7] and [14]): a line of
# at most 1 MiB, no NUL byte, at most 1 GiB in all, a regular file or a
# FIFO (anything on standard input), read errors and running out of
# memory. /dev/zero fails at once. No root needed.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"

flame_require "ustack-flame built"
# 4 GB of address space at most: without its bounds, "-F - < /dev/zero"
# grew until the OOM killer came, whatever else ran on the machine
ulimit -v 4000000
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# failed NAME REGEX COMMAND...: exit 1, REGEX on stderr, nothing on stdout
failed() {
	local name=$1 re=$2 rc

	shift 2
	"$@" > "$work/out" 2> "$work/err"
	rc=$?
	check "$name: exit 1 ($rc)" test $rc = 1
	check "$name: said ($(head -c 200 "$work/err"))" grep -qE -- "$re" "$work/err"
	check "$name: nothing written" test ! -s "$work/out"
}

# -- a NUL byte in a line is an error, with file:line
printf 'a;b 2\na\0b;c 3\n' > "$work/nul.folded"
failed "a NUL byte" "^ustack-flame: $work/nul.folded:2: a NUL byte in the line\$" \
	"$FLAME" -F "$work/nul.folded"
printf 'x 1\n\0' | failed "a NUL byte on standard input" \
	'^ustack-flame: standard input:2: a NUL byte' "$FLAME" -F -

# -- a line longer than 1 MiB, the review's case: the lines after it were
# lost, exit 0, when getline() ran out of memory
{
	echo "a;b 5"
	head -c $((64 << 20)) /dev/zero | tr '\0' x
	echo " 1"
	echo "c;d 7"
} > "$work/long.folded"
(ulimit -v 100000 && exec "$FLAME" -F "$work/long.folded") > "$work/out" 2> "$work/err"
rc=$?
check "a 64 MiB line under ulimit -v: exit 1 ($rc)" test $rc = 1
check "a 64 MiB line under ulimit -v: file:line, longer than 1 MiB" \
	grep -qx "ustack-flame: $work/long.folded:2: a line longer than 1 MiB" "$work/err"
check "a 64 MiB line under ulimit -v: no partial output" test ! -s "$work/out"
{ echo "a;b 5"; head -c $((1 << 20)) /dev/zero | tr '\0' x; echo " 1"; } > "$work/edge.folded"
failed "a line of 1 MiB and 2 bytes" "edge.folded:2: a line longer than 1 MiB" \
	"$FLAME" -F "$work/edge.folded"
{ head -c $(((1 << 20) - 2)) /dev/zero | tr '\0' x; echo " 1"; } > "$work/max.folded"
"$FLAME" -F "$work/max.folded" > "$work/out" 2> "$work/err"
check "a line of 1 MiB: read (exit $?)" cmp "$work/max.folded" "$work/out"

# -- out of memory while counting: an error, no partial output
python3 -c '
import sys
for i in range(200):
    sys.stdout.write("f%d;" % i + "x" * 500000 + " 1\n")' > "$work/many.folded"
(ulimit -v 40000 && exec "$FLAME" -F "$work/many.folded") > "$work/out" 2> "$work/err"
rc=$?
check "out of memory: exit 1 ($rc)" test $rc = 1
check "out of memory: file:line, said" \
	grep -qE "^ustack-flame: $work/many.folded:[0-9]+: Cannot allocate memory\$" "$work/err"
check "out of memory: no partial output" test ! -s "$work/out"

# -- a read error (standard input a directory)
failed "a read error" '^ustack-flame: standard input:1: read error: Is a directory$' \
	"$FLAME" -F - < "$work"

# -- what is not a regular file or a FIFO is refused before it is read
start=$SECONDS
failed "-F /dev/zero" \
	'^ustack-flame: /dev/zero: a character device, not a regular file or a FIFO' \
	timeout 60 "$FLAME" -F /dev/zero
check "-F /dev/zero: at once ($((SECONDS - start)) s)" test $((SECONDS - start)) -le 2
failed "-F a directory" "^ustack-flame: $work: a directory, not a regular file or a FIFO" \
	"$FLAME" -F "$work"
start=$SECONDS
failed "-F - < /dev/zero" '^ustack-flame: standard input:1: a NUL byte' \
	timeout 60 "$FLAME" -F - < /dev/zero
check "-F - < /dev/zero: at once ($((SECONDS - start)) s)" test $((SECONDS - start)) -le 2

# -- a FIFO is read, its writer waited for
mkfifo "$work/fifo"
(sleep 1; printf 'p;q 4\n' > "$work/fifo") &
timeout 30 "$FLAME" -F "$work/fifo" > "$work/out" 2> "$work/err"
rc=$?
wait
check "-F FIFO: its writer waited for, read (exit $rc)" test "$(cat "$work/out")" = "p;q 4"

# -- at most 1 GiB: a larger file refused before it is read, and standard
# input cut there
truncate -s 2G "$work/sparse.folded"
start=$SECONDS
failed "-F a 2 GiB file" \
	"^ustack-flame: $work/sparse.folded: 2147483648 bytes, more than the 1024 MiB -F reads" \
	"$FLAME" -F "$work/sparse.folded"
check "-F a 2 GiB file: at once ($((SECONDS - start)) s)" test $((SECONDS - start)) -le 2
rm -f "$work/sparse.folded"
line=$(head -c 4000 /dev/zero | tr '\0' x)
yes "$line" | failed "more than 1 GiB on standard input" \
	'^ustack-flame: standard input:[0-9]+: more than the 1024 MiB -F reads$' \
	timeout 120 "$FLAME" -F -

# -- and what is within the bounds is read as before
printf 'a;b 1\r\n\nc 2' | "$FLAME" -F - > "$work/out" 2> "$work/err"
check "CRLF, an empty line, no newline at the end: read, exit $?" \
	test "$(cat "$work/out")" = $'a;b 1\nc 2' -a ! -s "$work/err"
finish
