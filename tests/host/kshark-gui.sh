#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The plugin in a real KernelShark window under Xvfb: kernelshark -p loads it
# on a trace with two buffers (the committed fixture's stacks, and an
# instance without stack entries); a double click on a mark of an event
# with a stack opens the window with its stack (xdotool, at the place the
# plugin logs for the mark); the plugin's Ctrl+Shift+U opens its dialog.
# Screenshots are kept in build/tests/kshark-gui/; the checks read what the
# plugin logs (USTACK_KSHARK_LOG): menu added, both streams stitched with
# their stacks and lost ones, marks drawn on the CPU graph, the stack
# window of the mark's event with its frames, marker A set by a double click
# and read by the dialog from KernelShark's toolbar, the dialog shown with
# its rows, and its export. As root (CI), KernelShark's settings are pre-seeded
# so that no "running as root" question blocks it. Each step waits for what
# the plugin logs (wait_until, 120 s: a bound for a hang, never a duration).
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/kshark.sh"

name="kshark window under Xvfb"
for t in kernelshark xvfb-run xdotool xwd convert; do
	if ! command -v $t >/dev/null; then
		skip "$name" "no $t (scripts/deps.sh installs it)"
		finish
	fi
done
kshark_setup "$name"
out=$USTACK_TOP/build/tests/kshark-gui
rm -rf "$out"
mkdir -p "$out" "$work/cache"
printf '[General]\nnoRootWarn=true\n' > "$work/cache/setting.ini"

cat > "$work/session.sh" <<'EOS'
#!/bin/bash
# inside xvfb-run: $1 plugin, $2 trace, $3 work dir, $4 output dir
. "$USTACK_TOP/tests/lib/result.sh"	# wait_until
. "$USTACK_TOP/tests/lib/xwin.sh"	# shown
work=$3
# logged LINE-REGEX: the plugin has logged a line matching LINE-REGEX; each
# step waits for it (a bound only for a hang, which ends the session)
logged() { grep -q "$1" "$USTACK_KSHARK_LOG" 2>/dev/null; }
await() {
	wait_until 120 logged "$1" && return 0
	echo "no '$1' in the plugin's log after 120 s" >>"$work/session.err"
	kill "$pid"
	exit 1
}
kernelshark -p "$1" "$2" >"$3/ks.out" 2>"$3/ks.err" &
pid=$!
win=
wait_until 120 shown "Kernel Shark" && win=$shown
if [ -z "$win" ]; then
	echo "no KernelShark window" >"$3/session.err"
	kill "$pid"
	exit 1
fi
# the graphs are drawn once the data is in
await '^draw cpu'
sleep 1		# for the screenshot only: the checks read the log
xwd -root -silent | convert xwd:- png:"$4/window.png"
# a double click on the last mark of an event with a stack, where the
# plugin says it drew it on the screen
xy=$(sed -n 's/^mark stack cpu [0-9]* at \([0-9]*\),\([0-9]*\) offset [0-9]*$/\1 \2/p' \
	"$USTACK_KSHARK_LOG" | tail -n 1)
if [ -n "$xy" ]; then
	xdotool mousemove $xy
	sleep 0.3
	xdotool click --repeat 2 --delay 80 1
	await '^stack window shown'
	sw=
	wait_until 120 shown "^User stack$" && sw=$shown
	sleep 1
	# the window itself: the root window shows it black where it covers
	# KernelShark's (its OpenGL visual), though it is drawn
	[ -n "$sw" ] && xwd -id "$sw" -silent | convert xwd:- png:"$4/stack-window.png"
fi
xdotool windowactivate --sync "$win" 2>/dev/null
xdotool windowfocus "$win"
# a double click on the CPU's bar under the mark, out of the mark's reach
# (the stack window, which may cover it, hidden first): KernelShark sets
# marker A at the event there, which the dialog reads from its toolbar (X
# delivers the clicks before the keys that open the dialog)
if [ -n "$xy" ]; then
	[ -n "$sw" ] && xdotool windowunmap --sync "$sw" 2>/dev/null
	read -r x y <<< "$xy"
	xdotool mousemove "$x" $((y + 30))
	sleep 0.3
	xdotool click --repeat 2 --delay 80 1
fi
xdotool key --window "$win" ctrl+shift+u
await '^export '
sleep 1		# for the screenshot only
xwd -root -silent | convert xwd:- png:"$4/dialog.png"
kill "$pid"
wait "$pid"
exit 0
EOS
chmod +x "$work/session.sh"
export KS_USER_CACHE_DIR=$work/cache USTACK_KSHARK_LOG=$work/log \
	USTACK_KSHARK_EXPORT=$work/export.folded USTACK_TOP
timeout 900 xvfb-run -a -s '-screen 0 1600x1000x24' "$work/session.sh" "$KS_PLUGIN" \
	"$work/multi.dat" "$work" "$out" >"$work/xvfb.out" 2>&1
rc=$?
cp "$work/log" "$out/plugin.log" 2>/dev/null
cp "$work/ks.out" "$work/ks.err" "$out/" 2>/dev/null
if [ $rc != 0 ]; then
	fail "$name" "session exited $rc: $(cat "$work/session.err" "$work/xvfb.out" 2>/dev/null | tail -n 3 | tr '\n' ' ')"
	finish
fi
log=$work/log
check "the plugin's menu entry, with its shortcut" grep -qx \
	'menu: Tools/User stacks of a task (Ctrl+Shift+U)' "$log"
check "both buffers of the file got the plugin" \
	sh -c "grep -q '^init stream 0 .*multi.dat$' '$log' && grep -q '^init stream 1 .*multi.dat:lost$' '$log'"
check "top buffer stitched: 4 events with a stack" \
	grep -q '^stitched stream 0: 10 entries, 4 with a stack, 0 lost' "$log"
check "instance stitched: 4 events whose stack was lost" \
	grep -q '^stitched stream 1: 8 entries, 0 with a stack, 4 lost' "$log"
check "marks drawn on the CPU graph" grep -q '^draw cpu 0: [1-9]' "$log"
# the offset of the mark double-clicked, the one of the window opened
mark=$(sed -n 's/^mark stack cpu [0-9]* at [0-9]*,[0-9]* offset \([0-9]*\)$/\1/p' "$log" | tail -n 1)
check "a double click on a mark opened the stack window of its event" \
	grep -qx "double click: stack window of the event at offset ${mark:-none}" "$log"
check "the stack window shows the event's 7 frames" grep -qx \
	'stack window shown: 7 frames, innermost ustack_lib_syscall+0x[0-9a-f]* (.*libustack-sample.so)' \
	"$log"
check "Ctrl+Shift+U opened the dialog, with its 2 rows" grep -qx 'dialog shown: 2 rows' "$log"
# KernelShark's own toolbar read for the markers (kshark-markers.sh: the reading)
# marker A, set by the double click on the CPU's bar: the time of an event
# of the trace (report's, to the microsecond as the label shows it)
a=$(sed -n 's/^dialog: markers: A \([0-9]*\), B not set$/\1/p' "$log")
at=$(printf '%d.%06d' $((${a:-0} / 1000000000)) $((${a:-0} % 1000000000 / 1000)))
check "the dialog read marker A from KernelShark's toolbar: an event's time (${a:-none})" \
	sh -c "[ -n '$a' ] && trace-cmd report -N -i '$work/multi.dat' | grep -q ' $at: '"
check "the dialog's export: the stack with its count" grep -qx \
	'ustack-sample;\(\[libc.so.6\]\|__libc_start_call_main\);main;sample_outer;sample_middle;ustack_lib_enter;ustack_lib_inner;ustack_lib_syscall 4' \
	"$work/export.folded"
check "no plugin failure on stderr" sh -c "! grep -q 'plugin \"ustack\"' '$work/ks.err'"
check "screenshots kept" test -s "$out/window.png" -a -s "$out/dialog.png" \
	-a -s "$out/stack-window.png"
finish
