#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame's start-up (issue 39): with --no-kernel it names no kernel
# address, so it reads the trace's headers without the saved kallsyms
# (libtracefs-ext's USTACK_TRACE_NO_KALLSYMS, ustack-trace-head.c), which
# libtraceevent would parse line by line: most of what a small trace costs.
# On the plugin's fixture with kernel stacks (tests/fixtures/
# make-buffers-fixture.py), versions 6 and 7: -K gives the user stacks of
# -k, its kernel frames left out, counted the same; -K reads the headers
# through one memfd "ustack-head" and -k through none (strace);
# tep_parse_kallsyms() runs once with -k, never with -K (callgrind, when
# valgrind is there). No root.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"

FX=$USTACK_TOP/tests/fixtures
DAT=$FX/plugin/sample.dat

flame_require "flame start-up"
for t in trace-cmd python3; do
	command -v $t >/dev/null || { skip "flame start-up" "no $t"; finish; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trace-cmd convert -i "$DAT" -o "$work/src.dat" --file-version 6 --compression none >/dev/null 2>&1
python3 "$FX/make-buffers-fixture.py" "$work/src.dat" "$work/v6.dat" --kernel-stacks
trace-cmd convert -i "$work/v6.dat" -o "$work/v7.dat" >/dev/null 2>&1

# parses FILE: the calls of tep_parse_kallsyms() in callgrind's FILE
parses() {
	awk '/^cfn=/ { k = /[ =]tep_parse_kallsyms( |$)/; next }
	     k && /^calls=/ { split($1, c, "="); n += c[2]; k = 0 }
	     END { print n + 0 }' "$1"
}

for v in v6 v7; do
	f=$work/$v.dat
	"$FLAME" -k -a "$f" > "$work/$v.k" 2>/dev/null
	"$FLAME" -K -a "$f" > "$work/$v.K" 2> "$work/$v.err"
	check "$v: -k names kernel frames" grep -q '__x64_sys_getppid_\[k\]' "$work/$v.k"
	check "$v: -K: nothing on stderr" test ! -s "$work/$v.err"
	check "$v: -K: no kernel frame" test -s "$work/$v.K" -a -z "$(grep '_\[k\]' "$work/$v.K")"
	# -k's lines, their kernel frames taken off and counted again
	sed -E 's/(;[^; ]*_\[k\])+ / /' "$work/$v.k" |
		awk '{ n[$1] += $2 } END { for (s in n) print s, n[s] }' | sort > "$work/$v.k-user"
	sort "$work/$v.K" > "$work/$v.K-sorted"
	check "$v: -K gives the user stacks of -k" cmp "$work/$v.k-user" "$work/$v.K-sorted"

	if command -v strace >/dev/null; then
		for m in K k; do
			strace -f -qq -e trace=memfd_create -o "$work/strace.$m" \
				"$FLAME" -$m -a "$f" >/dev/null 2>&1
		done
		check "$v: -K reads the headers from one copy" \
			test "$(grep -c 'memfd_create("ustack-head"' "$work/strace.K")" = 1
		check "$v: -k reads them from the file" \
			test "$(grep -c 'memfd_create("ustack-head"' "$work/strace.k")" = 0
	else
		skip "$v: the headers read from a copy" "no strace"
	fi

	if command -v valgrind >/dev/null; then
		for m in K k; do
			valgrind -q --tool=callgrind --compress-strings=no \
				--callgrind-out-file="$work/cg.$m" "$FLAME" -$m -a "$f" >/dev/null 2>&1
		done
		check "$v: the kallsyms parsed never with -K ($(parses "$work/cg.K"))" \
			test "$(parses "$work/cg.K")" = 0
		check "$v: and once with -k ($(parses "$work/cg.k"))" test "$(parses "$work/cg.k")" = 1
	else
		skip "$v: the kallsyms parsed never with -K" "no valgrind"
	fi
done

finish
