# SPDX-License-Identifier: GPL-2.0
# Check traced stacks against the "expect NAME KIND FRAME..." lines of
# ustack-sframe-reg (tests/progs/sframe-reg.c), in order: the first file
# is the program's output, the second the stitched events (stitch.awk) of
# its getppid calls, one per expect line.
#   exact      the stack starts with every FRAME (* matches any frame)
#   prefix[=M] the stack may end early, but each of its first M frames
#              (default: all given) is the FRAME given
# Prints "RESULT NAME: got FRAMES" for each wrong stack (RESULT: wrong,
# short, nostack, noevent), then "SUMMARY expected events ok wrong short
# nostack".
# Portable awk (mawk).
NR == FNR {
	if ($1 != "expect")
		next
	ne++
	name[ne] = $2
	kind[ne] = $3
	nf[ne] = NF - 3
	for (i = 4; i <= NF; i++)
		fr[ne, i - 4] = $i
	next
}
{
	nv++
	split($0, a, "|")
	ev[nv] = a[5]
}
END {
	ok = wrong = short = nostack = 0
	for (e = 1; e <= ne; e++) {
		if (e > nv) {
			print "noevent " name[e] ": no event"
			nostack++
			continue
		}
		s = ev[e]
		if (s == "LOST" || s == "NOCOOKIE" || s == "") {
			print "nostack " name[e] ": " s
			nostack++
			continue
		}
		n = split(s, got, " ")
		m = nf[e]
		pre = kind[e] ~ /^prefix/
		if (kind[e] ~ /^prefix=/) {
			m = substr(kind[e], 8) + 0
			if (m > nf[e])
				m = nf[e]
		}
		res = "ok"
		for (j = 0; j < m; j++) {
			if (j >= n) {
				if (!pre)
					res = "short"
				break
			}
			if (fr[e, j] != "*" && got[j + 1] != fr[e, j]) {
				res = "wrong"
				break
			}
		}
		if (res == "ok")
			ok++
		else {
			if (res == "wrong")
				wrong++
			else
				short++
			if (++shown <= 10)
				print res " " name[e] ": got" s
		}
	}
	print "SUMMARY " ne " " nv " " ok " " wrong " " short " " nostack
}
