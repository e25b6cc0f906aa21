#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The plugin finds report's input as trace-cmd report of libtracecmd 1.3
# loads plugins (ustack-input.c, ustack-peek.c), and does so only there
# (ustack-gate.c). Where report is not that one, it prints no stacks and
# says why once on stderr ("ustack: no user stacks: <why>"), when the trace
# has deferred stacks; nothing on a trace without them. Checked: the normal
# run (stacks, nothing said); trace-cmd copied to another name; a
# libtracecmd that has a function of 1.4 (preloaded); a build for
# libtracecmd 1.5.1 (pkg-config told so, as plugin-gate.sh does), which has
# none of that code; the gate forced on and off (make INPUT_GUESS=1, 0).
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/plugin.sh"

FX=$USTACK_TOP/tests/fixtures
DAT=$FX/plugin/sample.dat
LIBEXT_O=${USTACK_LIBEXT_O:-$USTACK_TOP/build/libtracefs-ext}
INPUT_SYMS='up_input_read|up_scan_fds|up_peek_has_ustack'

plugin_require "plugin gated on report's version" trace-cmd python3 cc nm
case $(pkg-config --modversion libtracecmd 2>/dev/null) in
1.3 | 1.3.*) ;;
*)
	skip "plugin gated on report's version" "libtracecmd is not 1.3.x here: no stacks to gate"
	finish
	;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run DIR PROGRAM ARGS...: PROGRAM report ARGS with the plugin of DIR; its
# output in $work/out, its stderr in $work/err
run() {
	local dir=$1 prog=$2

	shift 2
	TRACEEVENT_PLUGIN_DIR=$dir "$prog" report "$@" > "$work/out" 2> "$work/err"
}
stacks() { grep -c '^ => ' "$work/out"; }
# said PATTERN: exactly one line of stderr, "ustack: no user stacks: " and PATTERN in it
said() {
	[ "$(wc -l < "$work/err")" = 1 ] &&
		grep -q "^ustack: no user stacks: .*$1" "$work/err"
}

# a trace without deferred stacks: no user_unwind_* formats, no such records
trace-cmd convert -i "$DAT" -o "$work/src.dat" --file-version 6 --compression none \
	> /dev/null 2>&1
python3 "$FX/make-buffers-fixture.py" "$work/src.dat" "$work/nostacks.dat" \
	--no-ustack-formats --top nostacks > /dev/null 2>&1

# -- report as the plugin knows it: stacks, nothing said
run "$PLUGIN_DIR" trace-cmd -O ustack_nosym -i "$DAT"
check "trace-cmd report: the stacks, nothing on stderr" \
	test "$(stacks)" -gt 0 -a ! -s "$work/err"

# -- trace-cmd under another name: no stacks, said once
cp "$(command -v trace-cmd)" "$work/tc"
run "$PLUGIN_DIR" "$work/tc" -O ustack_nosym -i "$DAT"
check "renamed trace-cmd: no stacks" test "$(stacks)" = 0
check "renamed trace-cmd: said once why" said "the program is tc, not trace-cmd"
run "$PLUGIN_DIR" "$work/tc" -O ustack_nosym -i "$DAT" -i "$DAT"
check "renamed trace-cmd, two inputs: said once" said "the program is tc"
run "$PLUGIN_DIR" "$work/tc" -F sys_enter_getppid -i "$DAT"
check "renamed trace-cmd, the entries filtered out: said once, at the end" \
	said "the program is tc"
if [ -s "$work/nostacks.dat" ]; then
	run "$PLUGIN_DIR" "$work/tc" -i "$work/nostacks.dat"
	check "renamed trace-cmd, a trace without deferred stacks: nothing said" \
		test -s "$work/out" -a ! -s "$work/err"
else
	fail "a trace without deferred stacks made" "make-buffers-fixture.py failed"
fi

# -- a libtracecmd of 1.4 or later, as its functions tell: a function of
# 1.4.0 (tracecmd_get_tsc2nsec()) preloaded beside trace-cmd's own 1.3.1
cat > "$work/v14.c" <<'EOF'
int tracecmd_get_tsc2nsec(void *h, int *m, int *s, unsigned long long *o)
{
	return -1;
}
EOF
if cc -shared -fPIC -o "$work/v14.so" "$work/v14.c" 2> "$work/cc.log"; then
	LD_PRELOAD=$work/v14.so run "$PLUGIN_DIR" trace-cmd -O ustack_nosym -i "$DAT"
	check "libtracecmd 1.4 (simulated): no stacks" test "$(stacks)" = 0
	check "libtracecmd 1.4 (simulated): said once why" \
		said "report runs libtracecmd 1.4 or later"
else
	fail "libtracecmd 1.4 simulated" "$(head -n 3 "$work/cc.log" | tr '\n' ' ')"
fi

# -- built for a libtracecmd the plugin was not checked with (pkg-config says
# 1.5.1): none of the input discovery built, said at report
pc=$(pkg-config --variable pcfiledir libtracecmd)/libtracecmd.pc
mkdir -p "$work/pc"
sed 's/^Version:.*/Version: 1.5.1/' "$pc" > "$work/pc/libtracecmd.pc"
if PKG_CONFIG_PATH=$work/pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} \
	make -s -C "$USTACK_TOP/trace-cmd-plugin" O="$work/v151" LIBEXT_O="$LIBEXT_O" \
	> "$work/make.log" 2>&1; then
	check "built for libtracecmd 1.5.1: no input discovery in the plugin" \
		test "$(nm "$work/v151/plugin_ustack.so" | grep -cE " ($INPUT_SYMS)$")" = 0
	check "the plugin built here has it" \
		test "$(nm "$PLUGIN_DIR/plugin_ustack.so" | grep -cE " ($INPUT_SYMS)$")" = 3
	run "$work/v151" trace-cmd -O ustack_nosym -i "$DAT"
	check "built for libtracecmd 1.5.1: no stacks" test "$(stacks)" = 0
	check "built for libtracecmd 1.5.1: said once why" said "built for libtracecmd 1.5.1"
	run "$work/v151" trace-cmd -i "$work/nostacks.dat"
	check "built for libtracecmd 1.5.1, a trace without deferred stacks: nothing said" \
		test -s "$work/out" -a ! -s "$work/err"
else
	fail "built for libtracecmd 1.5.1" "$(tail -n 3 "$work/make.log" | tr '\n' ' ')"
fi

# -- the gate forced: on (INPUT_GUESS=1: whatever libtracecmd report runs),
# off (INPUT_GUESS=0: said)
for g in 1 0; do
	if ! make -s -C "$USTACK_TOP/trace-cmd-plugin" O="$work/g$g" LIBEXT_O="$LIBEXT_O" \
		INPUT_GUESS=$g > "$work/make-g$g.log" 2>&1; then
		fail "INPUT_GUESS=$g: builds" "$(tail -n 3 "$work/make-g$g.log" | tr '\n' ' ')"
		continue
	fi
	if [ $g = 1 ] && [ -s "$work/v14.so" ]; then
		LD_PRELOAD=$work/v14.so run "$work/g1" trace-cmd -O ustack_nosym -i "$DAT"
		check "INPUT_GUESS=1, libtracecmd 1.4 (simulated): the stacks, nothing said" \
			test "$(stacks)" -gt 0 -a ! -s "$work/err"
	elif [ $g = 0 ]; then
		run "$work/g0" trace-cmd -O ustack_nosym -i "$DAT"
		check "INPUT_GUESS=0: no stacks, said once why" said "make INPUT_GUESS=0"
	fi
done

# -- other commands that load plugins say nothing
TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd list -O > /dev/null 2> "$work/err"
check "trace-cmd list -O: nothing said" test ! -s "$work/err"
finish
