# SPDX-License-Identifier: GPL-2.0
# One line per sample or deferred record of
#   perf script -F tid,time,event,ip,sym,dso [--no-merge-callchains]
#   S|tid|event|user symbols, innermost first|note
#   D|tid|cookie|user symbols, innermost first
# note: "" (merged or never deferred), "RAW cookie" (--no-merge-callchains),
# "NEVER cookie" (the deferred record never came).
# Portable awk (mawk): no gawk extensions.
function flush() {
	if (kind == "S")
		print "S|" tid "|" ev "|" syms "|" note
	else if (kind == "D")
		print "D|" tid "|" ev "|" syms
	kind = ""
}
/^$/ { flush(); next }
/^[^\t]/ {
	flush()
	tid = $1
	syms = ""
	note = ""
	if ($0 ~ /CALLCHAIN_DEFERRED cookie /) {
		kind = "D"
		ev = $NF
	} else {
		kind = "S"
		ev = $3
		sub(/:$/, "", ev)
	}
	next
}
/^\t\[deferred user callchain / {
	c = $4
	sub(/\]$/, "", c)
	note = ($0 ~ /never arrived/ ? "NEVER " : "RAW ") c
	next
}
/^\t/ {
	if ($NF == "([kernel.kallsyms])")
		next
	syms = syms (syms == "" ? "" : " ") $2
}
END { flush() }
