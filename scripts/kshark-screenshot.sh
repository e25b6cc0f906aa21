#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kshark-screenshot.sh PLUGIN TRACE OUTDIR: KernelShark with the ustack
# plugin on TRACE under Xvfb (no display needed), as make demo shows it:
# OUTDIR/kernelshark.png, the window once the graphs are drawn with the
# plugin's marks, and OUTDIR/kernelshark-stack.png, the stack window a
# double click on the last mark of an event with a stack opens (xdotool,
# at the place the plugin logs for the mark). Needs kernelshark, xvfb-run,
# xdotool, xwd and convert (scripts/deps.sh installs them). As root,
# KernelShark's settings are pre-seeded so that no question blocks it.
set -u
[ $# = 3 ] || { echo "usage: $0 PLUGIN TRACE OUTDIR" >&2; exit 2; }
plugin=$(realpath "$1")
trace=$(realpath "$2")
out=$3
for t in kernelshark xvfb-run xdotool xwd convert; do
	command -v $t >/dev/null || { echo "$0: no $t (scripts/deps.sh installs it)" >&2; exit 1; }
done
mkdir -p "$out"
out=$(realpath "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/cache"
printf '[General]\nnoRootWarn=true\n' > "$work/cache/setting.ini"

cat > "$work/session.sh" <<'EOS'
#!/bin/bash
# inside xvfb-run: $1 plugin, $2 trace, $3 work dir, $4 output dir. Each
# step waits for what the plugin logs (wait_until: 120 s, a bound for a
# hang on a busy host, never a duration).
. "$USTACK_TOP/tests/lib/result.sh"
. "$USTACK_TOP/tests/lib/xwin.sh"
marks() { grep -c '^mark stack cpu' "$USTACK_KSHARK_LOG" 2>/dev/null; }
more_marks() { [ "$(marks)" -gt "$1" ]; }
kernelshark -p "$1" "$2" >"$3/ks.out" 2>&1 &
pid=$!
win=
wait_until 120 shown "Kernel Shark" && win=$shown
[ -n "$win" ] || { kill "$pid"; exit 1; }
wait_until 120 more_marks 0 || { echo "no mark drawn in 120 s" >>"$3/ks.out"; kill "$pid"; exit 1; }
# the whole screen (no window manager places it); then drawn again, marks elsewhere
n=$(marks)
xdotool windowsize "$win" 1560 960
wait_until 120 more_marks "$n"
sleep 1		# the last paint
xwd -id "$win" -silent | convert xwd:- png:"$4/kernelshark.png"
xy=$(sed -n 's/^mark stack cpu [0-9]* at \([0-9]*\),\([0-9]*\) .*/\1 \2/p' "$USTACK_KSHARK_LOG" |
     tail -n 1)
if [ -n "$xy" ]; then
	xdotool mousemove $xy
	sleep 0.3
	xdotool click --repeat 2 --delay 80 1
	sw=
	wait_until 120 shown "^User stack$" && sw=$shown
	sleep 1
	# the window itself: the root window shows it black over KernelShark's OpenGL window
	[ -n "$sw" ] && xwd -id "$sw" -silent | convert xwd:- png:"$4/kernelshark-stack.png"
fi
kill "$pid"
wait "$pid"
exit 0
EOS
chmod +x "$work/session.sh"
USTACK_TOP=$(cd "$(dirname "$0")/.." && pwd)
export KS_USER_CACHE_DIR=$work/cache USTACK_KSHARK_LOG=$work/log USTACK_TOP
timeout 600 xvfb-run -a -s '-screen 0 1600x1000x24' "$work/session.sh" "$plugin" "$trace" \
	"$work" "$out" >"$work/xvfb.out" 2>&1
[ -s "$out/kernelshark.png" ] || {
	echo "$0: no screenshot: $(tail -n 3 "$work/ks.out" "$work/xvfb.out" 2>/dev/null)" >&2
	exit 1
}
exit 0
