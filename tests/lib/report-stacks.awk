# SPDX-License-Identifier: GPL-2.0
# The events of "trace-cmd report" output with the stacks the trace-cmd
# plugin prints under them, one line per event:
#   comm-pid|event text|frames
# frames: the symbol of each " => sym+0xoff (path)" line, space-separated
# ("[unknown]" when unresolved); "LOST" when the plugin said the stack is
# lost or unknown; "" when nothing is under the event. Portable awk (mawk).
function flush() {
	if (ev != "")
		print who "|" ev "|" (lost ? "LOST" : substr(st, 2))
	ev = ""; st = ""; lost = 0
}
/^ => / {
	if (ev == "")
		next
	if (index($0, "[user stack lost"))
		lost = 1
	else {
		f = $2
		sub(/\+0x[0-9a-f]+$/, "", f)
		st = st " " f
	}
	next
}
{
	flush()
	if ($0 ~ /^ *cpus=/ || $0 ~ /^CPU:/)
		next
	who = $1
	i = index($0, "]")
	ev = substr($0, i + 1)
	sub(/^ +[0-9.]+: +/, "", ev)
}
END { flush() }
