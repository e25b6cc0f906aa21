#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The trace-cmd plugin on every buffer of a file (instances: trace-cmd record
# -B, extract -B), on several -i inputs, and with trace files or pipes
# inherited from the parent. The traces are made here, without root, by
# tests/fixtures/make-buffers-fixture.py from the committed fixture's records
# (ustack-sample's 2 getppid calls; 4 events, each with the same 7 frames):
# each buffer holds them with their stacks ("stacks"), without their
# user_unwind_* entries ("nostacks") or nothing ("empty"), shifted in time.
# Version 6 as written, and version 7 (zstd) through trace-cmd convert. And
# a trace with ftrace func_repeats entries, which carry no cookie, among the
# events (tests/fixtures/make-repeats-fixture.py): no stack of their own.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/plugin.sh"

FX=$USTACK_TOP/tests/fixtures
DAT=$FX/plugin/sample.dat
LIB=/tmp/ustack-fixture/libustack-sample.so
EXE=/tmp/ustack-fixture/ustack-sample
# the frames as the kernel recorded them (file + offset), innermost first
RAW="$LIB+0x112b $LIB+0x1175 $LIB+0x11b9 $EXE+0x136e $EXE+0x1389 $EXE+0x1144"

plugin_require "plugin on buffers and inputs" trace-cmd python3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trace-cmd convert -i "$DAT" -o "$work/src.dat" --file-version 6 --compression none >/dev/null 2>&1
# fixture NAME ARGS: $work/NAME.v6.dat and $work/NAME.v7.dat
fixture() {
	local name=$1
	shift
	python3 "$FX/make-buffers-fixture.py" "$work/src.dat" "$work/$name.v6.dat" "$@" &&
		trace-cmd convert -i "$work/$name.v6.dat" -o "$work/$name.v7.dat" >/dev/null 2>&1
}
fixture both --top stacks --instance app=stacks+1000
fixture topless --top nostacks --instance app=stacks+500
fixture two --top empty --instance one=stacks+300 --instance two=nostacks+300
fixture other --top nostacks --instance oth=stacks+200
fixture plain --no-ustack-formats --top nostacks
# the first record with a stack (a cookie entry) is 251705 ns before the first event:
# both instances start at the same time, with the same CPUs
fixture same --top empty --instance one=stacks+251705 --instance two=nostacks
fixture same2 --top empty --instance two=nostacks --instance one=stacks+251705
if ! trace-cmd report -N -i "$work/both.v7.dat" 2>/dev/null | grep -q '^ *app: .*getppid'; then
	fail "fixtures made" "$(trace-cmd report -N -i "$work/both.v7.dat" 2>&1 | head -n 3)"
	finish
fi

report() { TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd report "$@" 2>"$work/stderr"; }

# stacks FILE: "buffer|frame frame ..." for every getppid event, its first 6
# frames ("" when it has none); buffer: report's prefix (instance, or input
# file), "top" without one
stacks() {
	awk 'function out() { if (ev != "") print ev "|" substr(st, 2) }
	     /^ => / { if (ev != "" && n++ < 6) st = st " " $2; next }
	     { out(); ev = ""; st = ""; n = 0 }
	     / sys_(enter|exit)_getppid:/ { ev = ($1 ~ /:$/) ? substr($1, 1, length($1) - 1) : "top" }
	     END { out() }' "$1"
}

# expect FILE WANT: each line of WANT is "buffer count-with-RAW count-without-stack";
# the getppid events of each buffer, and no other
expect() {
	local got
	got=$(stacks "$1" | awk -F'|' -v raw="$RAW" '
		{ b[$1]; if ($2 == raw) s[$1]++; else if ($2 == "") n[$1]++; else bad[$1]++ }
		END { for (k in b) print k, s[k] + 0, n[k] + 0, bad[k] + 0 }' | sort)
	[ "$got" = "$(echo "$2" | awk '{ print $1, $2, $3, 0 }' | sort)" ] ||
		{ echo "got: $got"; return 1; }
}

for v in v6 v7; do
	report -O ustack_nosym -i "$work/both.$v.dat" > "$work/out"
	check "$v: top-level buffer and instance, each event with its stack" \
		expect "$work/out" "top 4 0
app 4 0"
	report -O ustack_nosym -i "$work/topless.$v.dat" > "$work/out"
	check "$v: stacks in an instance only: its events have them, the top's none" \
		expect "$work/out" "top 0 4
app 4 0"
	check "$v: stacks in an instance only: nothing said lost" \
		test "$(grep -c 'user stack lost' "$work/out")" = 0
	report -O ustack_nosym -i "$work/two.$v.dat" > "$work/out"
	check "$v: two instances, one with stacks" \
		expect "$work/out" "one 4 0
two 0 4"
	for f in same same2; do
		report -O ustack_nosym -i "$work/$f.$v.dat" > "$work/out"
		check "$v: two instances starting at the same time, one with stacks ($f)" \
			expect "$work/out" "one 4 0
two 0 4"
	done
done

# several inputs, and the same file twice
report -O ustack_nosym -i "$work/both.v7.dat" -i "$work/other.v6.dat" > "$work/out"
check "two -i inputs: the events of each with their own stacks" \
	expect "$work/out" "both.v7.dat 4 0
other.v6.dat 0 4
app 4 0
oth 4 0"
report -O ustack_nosym -i "$work/topless.v6.dat" -i "$work/topless.v6.dat" > "$work/out"
check "the same file twice: every event of both with its stack" \
	test "$(stacks "$work/out" | grep -c "^app|$RAW$")" = 8

# inherited descriptors: a trace file (another one, at offset 0, or read on),
# a pipe; the input is still the file report opens
report -O ustack_nosym -i "$DAT" 9<"$work/plain.v6.dat" > "$work/out"
check "an inherited trace file (fd 9) is not taken for the input" \
	expect "$work/out" "top 4 0"
exec 8<"$work/plain.v6.dat"
head -c 100 <&8 >/dev/null
report -O ustack_nosym -i "$DAT" > "$work/out"
exec 8<&-
check "an inherited trace file read on (fd 8) is not taken either" \
	expect "$work/out" "top 4 0"
report -O ustack_nosym -i "$DAT" 7< <(cat "$work/plain.v6.dat") > "$work/out"
check "an inherited pipe of a trace is not taken for the input" expect "$work/out" "top 4 0"
# one whose header the parent read, so that it is where libtracecmd's own file
# is when it loads the plugins (magic, version string, endian byte: 13 bytes):
# the file the command line names wins
exec 9<"$work/plain.v6.dat"
dd bs=13 count=1 <&9 status=none >/dev/null
report -O ustack_nosym -i "$DAT" > "$work/out"
exec 9<&-
check "an inherited trace file at the loading offset is not taken for the input" \
	expect "$work/out" "top 4 0"
exec 9<"$DAT"
dd bs=13 count=1 <&9 status=none >/dev/null
report -O ustack_nosym -i "$work/plain.v6.dat" > "$work/out"
exec 9<&-
check "nor one with stacks, for an input without" expect "$work/out" "top 0 4"

# raw: the frames under the stack entries of an instance
report -O ustack_raw -O ustack_nosym -i "$work/topless.v7.dat" > "$work/out"
check "ustack_raw: frames under an instance's stack entries" \
	test "$(grep -A1 '^ *app: .*user_unwind_stack:' "$work/out" | grep -c "^ => $LIB+0x112b$")" = 2

# an instance's read-ahead opening the file again (when built: ZPAGE_WORKAROUND)
if nm "$PLUGIN_DIR/plugin_ustack.so" 2>/dev/null | grep -q ' up_reader_reopen$'; then
	report -O ustack_nosym -i "$work/two.v7.dat" > "$work/plain"
	report -O ustack_nosym -O ustack_reopen_kb=1 -O ustack_stats -i "$work/two.v7.dat" \
		> "$work/out"
	check "ustack_reopen_kb=1: instances opened again, the same output" \
		test "$(grep -c '^plugin_ustack: one: .*opened again [1-9]' "$work/stderr")" = 1 -a \
		"$(cmp -s "$work/plain" "$work/out" && echo same)" = same
else
	skip "ustack_reopen_kb=1 on instances" "not built (ZPAGE_WORKAROUND=0)"
fi

# report's timestamps moved: each instance still matched to its buffer, the
# same stacks (review [17]: records are known by CPU and offset)
report -O ustack_nosym -i "$work/two.v7.dat" > "$work/plain"
report -O ustack_nosym -i "$work/two.v7.dat" --ts-offset 7 > "$work/out"
check "--ts-offset: the same stacks under each instance's events" \
	test "$(grep -c '^ => ' "$work/out")" -gt 0 -a \
	"$(sed 's/^.*[0-9]: //' "$work/out" | md5sum)" = "$(sed 's/^.*[0-9]: //' "$work/plain" | md5sum)"

# the statistics say each buffer read ahead
report -O ustack_stats -i "$work/two.v7.dat" > /dev/null
check "ustack_stats: one line per buffer read ahead, by name" \
	test "$(grep -c '^plugin_ustack: one: 4 events, 4 with a stack' "$work/stderr")" = 1 -a \
	"$(grep -c '^plugin_ustack: two: 4 events, 0 with a stack' "$work/stderr")" = 1

# ftrace's func_repeats entries carry no cookie (tests/fixtures/make-repeats-fixture.py,
# as kshark-data.sh has them): one after each event and stack entry of the
# task, and after the first stack entry the task work's cookie entry again
# with its event again. No stack under those entries; every event keeps its
# own, the one after the cookie entry again too (a func_repeats entry given
# the stack entry's next cookie would move the task on past it).
if python3 "$FX/make-repeats-fixture.py" "$work/src.dat" "$work/repeats.dat"; then
	report -O ustack_nosym -i "$work/repeats.dat" > "$work/repeats"
	check "func_repeats: no stack under any of its 6 entries" \
		test "$(awk '/^ => / { if (rep) n++; next } { rep = / func_repeats: / }
			     rep { r++ } END { print r + 0, n + 0 }' "$work/repeats")" = "6 0"
	check "func_repeats: the 5 getppid events, before and after them, keep their stacks" \
		expect "$work/repeats" "top 5 0"
else
	fail "func_repeats fixture made" "tests/fixtures/make-repeats-fixture.py failed"
fi

if command -v valgrind >/dev/null; then
	if TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR valgrind -q --error-exitcode=99 \
		--leak-check=full --errors-for-leak-kinds=definite \
		trace-cmd report -i "$work/two.v7.dat" -i "$work/both.v6.dat" \
		>/dev/null 2>"$work/vg"; then
		pass "valgrind, buffers and inputs: no errors, no definite leaks"
	else
		fail "valgrind, buffers and inputs: no errors, no definite leaks" \
			"$(head -c 400 "$work/vg")"
	fi
else
	skip "valgrind" "valgrind is not installed"
fi
finish
