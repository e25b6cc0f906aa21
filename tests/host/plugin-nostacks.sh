#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The trace-cmd plugin on traces without deferred stacks (no user_unwind_*
# events: a kernel without the series, a trace made elsewhere) does nothing:
# report prints exactly what it prints without the plugin, nothing on stderr,
# and the file is opened once (no read-ahead: that would open it again).
# The traces are made here from the committed fixture, without root, by
# tests/fixtures/make-buffers-fixture.py (versions 6 and 7, zstd).
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/plugin.sh"

FX=$USTACK_TOP/tests/fixtures
DAT=$FX/plugin/sample.dat

plugin_require "plugin on traces without stacks" trace-cmd python3
sysdir=$(pkg-config --variable=libdir libtraceevent 2>/dev/null)/traceevent/plugins
if [ -e "$sysdir/plugin_ustack.so" ]; then
	skip "plugin on traces without stacks" "$sysdir has plugin_ustack.so: no report without it"
	finish
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/none"
trace-cmd convert -i "$DAT" -o "$work/src.dat" --file-version 6 --compression none >/dev/null 2>&1
# a stock kernel's trace: no user_unwind_* formats, no such records; an instance too
python3 "$FX/make-buffers-fixture.py" "$work/src.dat" "$work/v6.dat" --no-ustack-formats \
	--top nostacks --instance other=nostacks+700
trace-cmd convert -i "$work/v6.dat" -o "$work/v7.dat" >/dev/null 2>&1
if ! trace-cmd report -N -i "$work/v7.dat" 2>/dev/null | grep -q 'other:.*sys_exit_getppid'; then
	fail "fixtures made" "$(trace-cmd report -N -i "$work/v7.dat" 2>&1 | head -n 3)"
	finish
fi

# with PLUGIN_DIR the plugin is loaded; with an empty directory it is not
with() { TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd report "$@"; }
without() { TRACEEVENT_PLUGIN_DIR=$work/none trace-cmd report "$@"; }

# opens FILE ARGS: how often "report ARGS" opened FILE, by any name (strace -y
# prints the file a returned descriptor refers to)
opens() {
	local f
	f=$(realpath "$1")
	shift
	TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR strace -y -f -qq -e trace=open,openat -o "$work/strace" \
		trace-cmd report "$@" >/dev/null 2>&1
	grep -c "= [0-9]*<$f>\$" "$work/strace"
}

for v in v6 v7; do
	f=$work/$v.dat
	without -i "$f" > "$work/$v.without" 2> "$work/$v.err0"
	with -i "$f" > "$work/$v.with" 2> "$work/$v.err"
	check "$v: report prints the same with the plugin as without" \
		cmp "$work/$v.without" "$work/$v.with"
	check "$v: nothing on stderr" test ! -s "$work/$v.err"
	with -i "$f" --ts-offset 5 > /dev/null 2> "$work/$v.err"
	check "$v, --ts-offset: no note on stderr" test ! -s "$work/$v.err"
	with -O ustack_stats -i "$f" > /dev/null 2> "$work/$v.err"
	check "$v, ustack_stats: the plugin says it did nothing" \
		grep -q 'no user_unwind_\* events in the file: nothing done' "$work/$v.err"
	if command -v strace >/dev/null; then
		n=$(opens "$f" -i "$f")
		check "$v: the file is opened once, by report (no read-ahead)" test "$n" = 1
	else
		skip "$v: the file is opened once" "no strace (apt-get install strace)"
	fi
done

# the same measure on a trace with stacks: the read-ahead opens it again (the
# count above would see a read-ahead)
if command -v strace >/dev/null; then
	n=$(opens "$DAT" -i "$DAT")
	check "a trace with stacks is opened again by the read-ahead" test "$n" = 2
fi
finish
