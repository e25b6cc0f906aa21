#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The plugin's start-up (issue 39): its read-ahead opens the trace file a
# second time, but reads the headers there without the saved kallsyms
# (ustack-head.c), so report parses them once, for its own handle. On traces
# with kernel stacks (named by report from the file's kallsyms), made here
# from the committed fixture by tests/fixtures/make-buffers-fixture.py
# (versions 6 and 7): the file is opened twice, not three times (no fallback
# to tracecmd_open_head()), the headers read through one memfd
# "ustack-head"; the kernel stacks are named as without the plugin, the user
# stacks as in version 6 in version 7; tep_parse_kallsyms() runs once
# (callgrind, when valgrind is there). No root.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/plugin.sh"

FX=$USTACK_TOP/tests/fixtures
DAT=$FX/plugin/sample.dat

plugin_require "plugin start-up" trace-cmd python3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/none"
trace-cmd convert -i "$DAT" -o "$work/src.dat" --file-version 6 --compression none >/dev/null 2>&1
python3 "$FX/make-buffers-fixture.py" "$work/src.dat" "$work/v6.dat" --kernel-stacks
trace-cmd convert -i "$work/v6.dat" -o "$work/v7.dat" >/dev/null 2>&1
if ! trace-cmd report -i "$work/v7.dat" 2>/dev/null | grep -q '=> __x64_sys_getppid'; then
	fail "fixtures made" "$(trace-cmd report -i "$work/v7.dat" 2>&1 | head -n 3)"
	finish
fi

with() { TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd report "$@"; }
without() { TRACEEVENT_PLUGIN_DIR=$work/none trace-cmd report "$@"; }

for v in v6 v7; do
	f=$work/$v.dat
	with -i "$f" > "$work/$v.with" 2> "$work/$v.err"
	without -i "$f" > "$work/$v.without" 2>/dev/null
	check "$v: nothing on stderr" test ! -s "$work/$v.err"
	check "$v: user stacks under the events" grep -q '^ => .*(/' "$work/$v.with"
	check "$v: the kernel stacks named as without the plugin" \
		cmp <(grep -c '=> __x64_sys_getppid' "$work/$v.without") \
		<(grep -c '=> __x64_sys_getppid' "$work/$v.with")

	if command -v strace >/dev/null; then
		TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR strace -y -f -qq -e trace=open,openat,memfd_create \
			-o "$work/strace" trace-cmd report -i "$f" >/dev/null 2>&1
		check "$v: the file opened twice (report, read-ahead)" \
			test "$(grep -cE "open(at)?\(.*= [0-9]+<$(realpath "$f")>\$" "$work/strace")" = 2
		check "$v: the read-ahead's headers read from one copy" \
			test "$(grep -c 'memfd_create("ustack-head"' "$work/strace")" = 1
	else
		skip "$v: the file opened twice" "no strace"
	fi

	if command -v valgrind >/dev/null; then
		TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR valgrind -q --tool=callgrind --compress-strings=no \
			--callgrind-out-file="$work/cg" trace-cmd report -i "$f" >/dev/null 2>&1
		# the calls of every caller, from the lines after "cfn=... tep_parse_kallsyms"
		calls=$(awk '/^cfn=/ { k = /[ =]tep_parse_kallsyms( |$)/; next }
			     k && /^calls=/ { split($1, c, "="); n += c[2]; k = 0 }
			     END { print n + 0 }' "$work/cg")
		check "$v: the kallsyms parsed once (report's own handle): $calls" test "$calls" = 1
	else
		skip "$v: the kallsyms parsed once" "no valgrind"
	fi
done
check "v6 and v7: the same report" cmp "$work/v6.with" "$work/v7.with"

finish
