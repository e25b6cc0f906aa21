# SPDX-License-Identifier: GPL-2.0
# Stitch the text output of a tracefs "trace" file to deferred user stacks
# (Documentation/trace/ftrace.rst, "Deferred user space stack traces").
# Prints one line per event that is not a user_unwind_* entry:
#   pid|cpu|cookie|event text|frames
# frames: " path+0xoff ..." when the stack arrived, "NOCOOKIE" when the
# event carries none, "LOST" when its stack never came. Also counts stack
# entries per cookie: lines "STACKS|cookie|count|pid". With -v with_ts=1
# each event line ends with "|timestamp".
# Portable awk (mawk): no gawk extensions.
{
	line = $0
	if (substr(line, 1, 4) == " => ") {
		# "[N more frames]": the text had no room for the rest
		if (substr(line, 5) ~ /^\[[0-9]+ more frames\]$/)
			next
		if (cur != "")
			stk[cur] = stk[cur] " " substr(line, 5)
		next
	}
	cur = ""
	if (substr(line, 1, 1) == "#")
		next
	i = index(line, "[")
	if (!i)
		next
	head = substr(line, 1, i - 1)
	sub(/ +$/, "", head)
	n = split(head, a, "-")
	pid = a[n] + 0
	rest = substr(line, i + 1)
	cpu = substr(rest, 1, index(rest, "]") - 1) + 0
	j = index(rest, ": ")
	body = substr(rest, j + 2)
	ts = substr(rest, 1, j - 1)
	sub(/.* /, "", ts)
	if (body ~ /^user_unwind_cookie: /) {
		c = body
		sub(/.*cookie=/, "", c)
		stpid[cpu] = pid
		stck[cpu] = c
		next
	}
	if (body ~ /^user_unwind_stack: /) {
		c = body
		sub(/.*cookie=/, "", c)
		sub(/ .*/, "", c)
		cur = c
		stk[c] = ""
		nstk[c]++
		stkpid[c] = pid
		# flag 0x4: the task's next cookie on this CPU, as a cookie entry
		if (body ~ / next=0x[0-9a-f]+$/) {
			stpid[cpu] = pid
			stck[cpu] = substr(body, index(body, " next=") + 6)
		}
		next
	}
	if (body ~ /^user_unwind_file: /)
		next
	ne++
	evpid[ne] = pid
	evcpu[ne] = cpu
	ev[ne] = body
	evts[ne] = ts
	evck[ne] = ""
	if ((cpu in stpid) && stpid[cpu] == pid && stck[cpu] != "0x0")
		evck[ne] = stck[cpu]
}
END {
	for (k = 1; k <= ne; k++) {
		c = evck[k]
		if (c == "")
			s = "NOCOOKIE"
		else if (c in nstk)
			s = stk[c]
		else
			s = "LOST"
		print evpid[k] "|" evcpu[k] "|" c "|" ev[k] "|" s (with_ts ? "|" evts[k] : "")
	}
	for (c in nstk)
		print "STACKS|" c "|" nstk[c] "|" stkpid[c]
}
