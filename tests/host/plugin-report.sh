#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The trace-cmd plugin in stock trace-cmd report, on a committed trace.dat
# (tests/fixtures/plugin/, made by tests/fixtures/make-plugin-fixture.sh in a
# guest): ustack-sample's 2 getppid calls, recorded from /tmp/ustack-fixture/,
# a path that does not exist here; the separate debug files (by build-id)
# are the only way to the symbols. No root, no tracefs.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/plugin.sh"

FX=$USTACK_TOP/tests/fixtures/plugin
DAT=$FX/sample.dat
CHAIN="ustack_lib_syscall ustack_lib_inner ustack_lib_enter sample_middle sample_outer main"
LIB=/tmp/ustack-fixture/libustack-sample.so
EXE=/tmp/ustack-fixture/ustack-sample
# the frames as the kernel recorded them (file + offset), innermost first
RAW="$LIB+0x112b $LIB+0x1175 $LIB+0x11b9 $EXE+0x136e $EXE+0x1389 $EXE+0x1144"

plugin_require "plugin in trace-cmd report" trace-cmd
if [ -e /tmp/ustack-fixture ]; then
	skip "plugin in trace-cmd report" "/tmp/ustack-fixture exists here: the test needs it absent"
	finish
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the debug files where the symbolizer looks them up by build-id
for f in "$FX"/*.debug; do
	b=$(basename "$f" .debug)
	mkdir -p "$work/debug/.build-id/${b:0:2}"
	cp "$f" "$work/debug/.build-id/${b:0:2}/${b:2}.debug"
done

report() { TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd report "$@" 2>"$work/stderr"; }

# stacks FILE: "event|frame frame ..." for every event with lines under it
stacks() {
	awk '/^ => / { if (ev != "") st = st " " $2; next }
	     { if (ev != "" && st != "") print ev "|" substr(st, 2); ev = ""; st = "" }
	     / sys_(enter|exit)_getppid:/ { ev = $4 }
	     END { if (ev != "" && st != "") print ev "|" substr(st, 2) }' "$1"
}

# first6 "WORDS": the first 6 words
first6() { echo "$1" | tr ' ' '\n' | head -n 6 | tr '\n' ' ' | sed 's/ $//'; }

# -- symbolized through the debug files: each of the 4 events, the exact chain
report -O ustack_debug_dir="$work/debug" -i "$DAT" > "$work/out"
stacks "$work/out" > "$work/stacks"
n=$(wc -l < "$work/stacks")
bad=
while IFS='|' read -r ev frames; do
	syms=$(first6 "$(echo "$frames" | tr ' ' '\n' | sed 's/+0x.*//' | tr '\n' ' ')")
	[ "$syms" = "$CHAIN" ] || bad="$ev: '$syms'"
done < "$work/stacks"
if [ "$n" = 4 ] && [ -z "$bad" ]; then
	pass "4 events, each with the exact symbolized chain"
else
	fail "4 events, each with the exact symbolized chain" "$n events; $bad $(head -c 300 "$work/stderr")"
fi
check "the stack is under its event (first line after sys_enter_getppid)" \
	test "$(grep -m1 -A1 'sys_enter_getppid:' "$work/out" | tail -n 1)" = \
	" => ustack_lib_syscall+0xb (/tmp/ustack-fixture/libustack-sample.so)"
check "no stack lost" test "$(grep -c '^ => ' "$work/out")" -gt 0 -a \
	"$(grep -c 'user stack lost' "$work/out")" = 0
check "stack entries print as their print format says (plugin-entries.sh compares)" \
	grep -Eq 'user_unwind_stack: *cookie=[0-9a-f]+ next=[0-9a-f]+ nr=7 flags=0$' "$work/out"

# -- source lines, from the DWARF of the debug files: the 5 frames below the
# innermost (ustack_lib_syscall is assembly, without lines)
report -O ustack_debug_dir="$work/debug" -O ustack_srcline -i "$DAT" > "$work/srcline"
check "ustack_srcline: frames 2 to 6 of the chain end 'at sample-lib.c:N' or 'at sample.c:N'" \
	test "$(grep -m1 -A6 'sys_enter_getppid:' "$work/srcline" | tail -n 5 |
		grep -cE '^ => [a-z_]+\+0x[0-9a-f]+ \(/tmp/ustack-fixture/[a-z.-]+\) at sample(-lib)?\.c:[0-9]+$')" = 5
check "ustack_srcline: the chain is unchanged" \
	test "$(stacks "$work/srcline" | head -n 1 | cut -d'|' -f2 | tr ' ' '\n' | sed 's/+0x.*//' |
		head -n 6 | tr '\n' ' ' | sed 's/ $//')" = "$CHAIN"

# -- frames as file+offset: exactly what the kernel recorded
report -O ustack_nosym "$DAT" > "$work/nosym"
bad=
while IFS='|' read -r ev frames; do
	[ "$(first6 "$frames")" = "$RAW" ] || bad="$ev: '$(first6 "$frames")'"
done < <(stacks "$work/nosym")
if [ "$(stacks "$work/nosym" | wc -l)" = 4 ] && [ -z "$bad" ]; then
	pass "ustack_nosym: the recorded file+offset frames"
else
	fail "ustack_nosym: the recorded file+offset frames" "$bad"
fi

# -- without the debug files, the binaries' frames are unknown, not wrong
report -i "$DAT" > "$work/nodebug"
check "no debug file: [unknown] with file+offset" \
	grep -q "^ => \[unknown\] ($LIB+0x112b)$" "$work/nodebug"

# -- raw: the entries in full, the frames under the stack entries, none under events
report -O ustack_raw -O ustack_nosym -i "$DAT" > "$work/raw"
check "ustack_raw: frames under the stack entry" \
	test "$(grep -m1 -A1 'user_unwind_stack:' "$work/raw" | tail -n 1)" = " => $LIB+0x112b"
check "ustack_raw: no stack under the events" \
	test "$(grep -c 'sys_enter_getppid:' "$work/raw")" -gt 0 -a \
	"$(grep -A1 'sys_enter_getppid:' "$work/raw" | grep -c '^ => ')" = 0
check "ustack_raw: file entries with their build-id under them" \
	test "$(grep -m1 -A1 "user_unwind_file: *id=1 path=$LIB$" "$work/raw" | tail -n 1 |
		grep -c '^ build_id=[0-9a-f]\{40\}$')" = 1

# -- a window of 1 event: the first event of each entry is let go as lost
report -O ustack_window=1 -O ustack_nosym "$DAT" > "$work/window"
check "ustack_window=1: the held event beyond the window is lost, said so" \
	test "$(grep -c '^ => \[user stack lost: more events pending than ustack_window\]$' \
		"$work/window")" = 2

# -- the input file as report takes it: -iFILE, positional, relative to the cwd
(cd "$FX" && report -isample.dat -O ustack_nosym) > "$work/rel1"
(cd "$FX" && report sample.dat -O ustack_nosym) > "$work/rel2"
(cd "$FX" && cp sample.dat "$work/trace.dat" && cd "$work" && report -O ustack_nosym) > "$work/rel3"
for f in rel1 rel2 rel3; do
	if [ "$(stacks "$work/$f" | wc -l)" = 4 ]; then
		pass "input file found: $f"
	else
		fail "input file found: $f" "$(head -c 300 "$work/stderr")"
	fi
done

# -- options that change report's timestamps: the same stacks under the same
# events (the read-ahead knows a record by its CPU and offset, review [17])
report -i "$DAT" -O ustack_nosym > "$work/plain"
for opt in "--ts-offset 5" "--ts2secs 1000000000" "--ts-offset -3000000000" "--raw-ts" "--nodate"; do
	# shellcheck disable=SC2086
	report -i "$DAT" -O ustack_nosym $opt > "$work/tsopt"
	check "$opt: the same stacks under the same events" \
		test "$(grep -c '^ => ' "$work/tsopt")" -gt 0 -a \
		"$(sed 's/^.*[0-9]: //' "$work/tsopt" | md5sum)" = "$(sed 's/^.*[0-9]: //' "$work/plain" | md5sum)"
	check "$opt: nothing on stderr ($(head -c 200 "$work/stderr"))" test ! -s "$work/stderr"
done

# -- -N: no plugins, report as without it
report -N -i "$DAT" > "$work/noplug"
check "-N: no plugin, no stacks" test "$(grep -c 'sys_enter_getppid:' "$work/noplug")" -gt 0 -a \
	"$(grep -c '^ => ' "$work/noplug")" = 0

# -- the stats: everything stitched, bounded
report -O ustack_stats -i "$DAT" > /dev/null
check "ustack_stats: 4 events with a stack" \
	grep -q 'plugin_ustack: 4 events, 4 with a stack, 0 lost' "$work/stderr"

# -- the read-ahead's reader: the file opened again every page (ustack_reopen_kb=1), and
# uncompressed files (version 6, and 7 without compression), whose pages it drops
# from memory: each gives exactly report's output of the committed file
# (the reopening is built only for libtracecmd before 1.5.1: ZPAGE_WORKAROUND)
reopen_built=
nm "$PLUGIN_DIR/plugin_ustack.so" 2>/dev/null | grep -q ' up_reader_reopen$' && reopen_built=1
report -O ustack_nosym -i "$DAT" > "$work/plain"
report -O ustack_nosym -O ustack_reopen_kb=1 -O ustack_stats -i "$DAT" > "$work/reopen"
if [ -n "$reopen_built" ]; then
	check "ustack_reopen_kb=1: the file was opened again" \
		grep -q 'file opened again [1-9][0-9]* times' "$work/stderr"
else
	skip "ustack_reopen_kb=1: the file was opened again" "not built (ZPAGE_WORKAROUND=0)"
	check "ustack_reopen_kb=1, not built: said, ignored" \
		grep -q 'ustack_reopen_kb is not built' "$work/stderr"
fi
check "ustack_reopen_kb=1: the same output as without reopening" \
	cmp -s "$work/plain" "$work/reopen"
for v in "6 none" "7 none"; do
	set -- $v
	trace-cmd convert -i "$DAT" -o "$work/v$1$2.dat" --file-version "$1" --compression "$2" \
		> /dev/null 2>&1
	report -O ustack_nosym -O ustack_reopen_kb=1 -O ustack_stats -i "$work/v$1$2.dat" \
		> "$work/v$1$2.out"
	check "file version $1, compression $2: the same output, never opened again" \
		test -s "$work/v$1$2.out" -a "$(grep -c 'opened again 0 times' "$work/stderr")" = 1 -a \
		"$(cmp -s "$work/plain" "$work/v$1$2.out" && echo same)" = same
done
report -O ustack_reopen_kb=-1 -i "$DAT" > "$work/badreopen"
check "ustack_reopen_kb=-1: said, the default used" \
	test "$(stacks "$work/badreopen" | wc -l)" = 4 -a \
	"$(grep -c 'ustack_reopen_kb=-1 is not a non-negative number' "$work/stderr")" = 1

# -- bad input: the plugin says what is wrong, and nothing crashes
# said STATUS PATTERN: report exited without a signal, and said PATTERN on stderr
said() { [ "$1" -lt 128 ] && grep -q "$2" "$work/stderr"; }
report -O ustack_window=abc -i "$DAT" > "$work/badopt"
check "ustack_window=abc: said, the default window used" \
	test "$(stacks "$work/badopt" | wc -l)" = 4 -a \
	"$(grep -c 'ustack_window=abc is not a positive number' "$work/stderr")" = 1
report -O ustack_debug_dir=/nonexistent -i "$DAT" > /dev/null
check "ustack_debug_dir not a directory: said" \
	grep -q 'ustack_debug_dir=/nonexistent is not a directory' "$work/stderr"
head -c 4096 "$DAT" > "$work/short.dat"
report -i "$work/short.dat" > /dev/null
check "truncated trace file: said, no crash" said $? 'plugin_ustack: cannot read the trace file'
# one byte of the CPU data offsets zeroed: libtracecmd cannot set up the data
cp "$DAT" "$work/damaged.dat"
printf '\0' | dd of="$work/damaged.dat" bs=1 seek=8562 conv=notrunc 2>/dev/null
if trace-cmd report -N -i "$work/damaged.dat" > /dev/null 2>&1; then
	skip "damaged trace file" "report -N reads it: the fixture changed, find another byte"
else
	report -i "$work/damaged.dat" > /dev/null
	check "damaged trace file: said, no crash" said $? 'plugin_ustack: cannot read the trace file'
fi

# -- with a kernel stack entry after each event (trace-cmd record -T): the
# user stack under the event, not again under its kernel stack entry
if trace-cmd convert -i "$DAT" -o "$work/src6.dat" --file-version 6 --compression none \
	>/dev/null 2>&1 &&
   python3 "$USTACK_TOP/tests/fixtures/make-buffers-fixture.py" "$work/src6.dat" \
	"$work/kstacks.dat" --kernel-stacks; then
	report -O ustack_debug_dir="$work/debug" -i "$work/kstacks.dat" > "$work/out"
	stacks "$work/out" > "$work/stacks"
	n=$(wc -l < "$work/stacks")
	k=$(grep -c ' kernel_stack: ' "$work/out")
	# user frames (" => ") after a kernel_stack line, before the next event's line
	under=$(awk '/\[[0-9]+\] +[0-9.]+: / { k = / kernel_stack: /; next }
		     /^ => / { if (k) n++ } END { print n + 0 }' "$work/out")
	bad=
	while IFS='|' read -r ev frames; do
		syms=$(first6 "$(echo "$frames" | tr ' ' '\n' | sed 's/+0x.*//' | tr '\n' ' ')")
		[ "$syms" = "$CHAIN" ] || bad="$ev: '$syms'"
	done < "$work/stacks"
	if [ "$n" = 4 ] && [ "$k" = 4 ] && [ "$under" = 0 ] && [ -z "$bad" ]; then
		pass "kernel stack entries (-T): user stacks under the 4 events only"
	else
		fail "kernel stack entries (-T): user stacks under the 4 events only" \
			"$n events with stacks, $k kernel stacks, $under user frames under them $bad"
	fi
else
	fail "kernel stack entries (-T): user stacks under the 4 events only" "could not make the trace"
fi

# -- valgrind, when installed: no errors, nothing definitely lost
if command -v valgrind >/dev/null; then
	if TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR valgrind -q --error-exitcode=99 \
		--leak-check=full --errors-for-leak-kinds=definite \
		trace-cmd report -O ustack_debug_dir="$work/debug" -i "$DAT" \
		>/dev/null 2>"$work/vg"; then
		pass "valgrind: no errors, no definite leaks"
	else
		fail "valgrind: no errors, no definite leaks" "$(head -c 400 "$work/vg")"
	fi
	# the same, reopening the file every page (the event formats outlive the handle)
	if TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR valgrind -q --error-exitcode=99 \
		--leak-check=full --errors-for-leak-kinds=definite \
		trace-cmd report -O ustack_reopen_kb=1 -i "$DAT" >/dev/null 2>"$work/vg"; then
		pass "valgrind, ustack_reopen_kb=1: no errors, no definite leaks"
	else
		fail "valgrind, ustack_reopen_kb=1: no errors, no definite leaks" \
			"$(head -c 400 "$work/vg")"
	fi
else
	skip "valgrind" "valgrind is not installed"
fi
finish
