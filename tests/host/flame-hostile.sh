#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A trace is input from anyone: ustack-flame on names.dat (tests/fixtures/
# flame/), whose task name and file name hold markup, quotes, ";", a control
# character and a byte that is not UTF-8, and whose symbols (renamed with
# objcopy) hold "<script>" and "</text>"; and on folded text as bad as can
# be, as deep and as wide. Every SVG must be well-formed XML, every page
# and JSON file must parse, with the names as text, nothing else. No root.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"

NAMES=$FLAME_FX/names.dat
DOM=$USTACK_TOP/tests/lib/flame-dom.py
flame_require "ustack-flame built"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flame_setup "$work"

# frames COLUMN FILE [--xml]: the names (or labels) flame-dom.py reads, in
# Python's escapes, one a line
frames() {
	local col=$1

	shift
	python3 "$DOM" "$@" | awk -F'\t' -v c="$col" '$1 != "svg" && $1 != "scripts" { print $c }'
}

# -- the trace: folded lines are bytes; only ";" and control characters change
printf '%s\n' '<i>&"'"'"'__'$'\377'';[libc.so.6];main;a_b&c'"'"'d'$'\303''(_</text>;<script>alert("x")</script>;flame_names_syscall 2' \
	> "$work/want"
flame "$NAMES" > "$work/out"
same "folded: the hostile names, ';' and control characters as '_'" "$work/want" "$work/out"

# the names as the SVG, the page and the JSON must give them: not UTF-8 is U+FFFD
cat > "$work/want" <<'EOF'
all
<i>&"'__\ufffd
[libc.so.6]
main
a_b&c'd\ufffd(_</text>
<script>alert("x")</script>
flame_names_syscall
EOF
flame -f svg "$NAMES" > "$work/n.svg"
frames 1 "$work/n.svg" --xml > "$work/out" 2>&1
same "svg: well-formed XML, every name as text" "$work/want" "$work/out"
frames 6 "$work/n.svg" > "$work/out"
same "svg: the labels drawn are the names" "$work/want" "$work/out"
check "svg: one script, ours" test "$(python3 "$DOM" "$work/n.svg" | grep '^scripts')" = $'scripts\t1'

flame -f html -t '<b>"title"</b> & more' "$NAMES" > "$work/n.html"
frames 1 "$work/n.html" > "$work/out"
same "html: every name as text" "$work/want" "$work/out"
check "html: one script, ours" test "$(python3 "$DOM" "$work/n.html" | grep '^scripts')" = $'scripts\t1'
check "html: the title escaped" grep -qF '<title>&lt;b&gt;&quot;title&quot;&lt;/b&gt; &amp; more</title>' \
	"$work/n.html"

flame -f speedscope -g task "$NAMES" > "$work/n.json"
python3 - "$work/n.json" > "$work/out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
print(d["profiles"][0]["name"].encode("unicode_escape").decode())
for f in d["shared"]["frames"]:
    print(f["name"].encode("unicode_escape").decode())
PY
printf '%s\n' '<i>&"'"'"'__\ufffd-91' '[libc.so.6]' main "a_b&c'd\\ufffd(_</text>" \
	'<script>alert("x")</script>' flame_names_syscall > "$work/want"
same "speedscope: valid JSON, the task and every name as text" "$work/want" "$work/out"

flame -f perf "$NAMES" > "$work/perf.txt"
check "perf: UTF-8, no control character but the tabs and newlines" python3 -c '
import sys
t = open(sys.argv[1], encoding="utf-8", errors="strict").read()
sys.exit(any(c < " " and c not in "\t\n" or c == "\x7f" for c in t))' "$work/perf.txt"
check "perf: the path's parentheses cannot end a frame (none in it here), the names kept" \
	grep -qF $'\t            11c4 <script>alert("x")</script>+0x14 (/tmp/ustack-fixture/<i>&"\';_\xef\xbf\xbd)' \
	"$work/perf.txt"

# -- folded text of another tool, as bad as it gets
{
	printf '%s\n' 'ok;<b>&amp;"q'"'"'</text>]]></svg><script>alert(1)</script> 3'
	printf 'ctl;\033[31mred\177;tab\there 2\n'
	printf 'utf;\377|\300\200|\355\240\200|\342\202|\357\277\276|\303\251\360\237\224\245 1\n'
	printf 'not a line\n'
} > "$work/bad.folded"
cat > "$work/want" <<'EOF'
all
ctl
\ufffd[31mred\ufffd
tab\ufffdhere
ok
<b>&amp
"q'</text>]]></svg><script>alert(1)</script>
utf
\ufffd|\ufffd\ufffd|\ufffd\ufffd\ufffd|\ufffd\ufffd|\ufffd\ufffd\ufffd|\xe9\U0001f525
EOF
flame -F "$work/bad.folded" -f svg > "$work/bad.svg" 2>/dev/null
frames 1 "$work/bad.svg" --xml > "$work/out" 2>&1
same "folded input: svg well-formed, controls, bad UTF-8, U+FFFE as U+FFFD" \
	"$work/want" "$work/out"
flame -F "$work/bad.folded" -f html > "$work/bad.html" 2>/dev/null
frames 1 "$work/bad.html" > "$work/out"
same "folded input: html, the same names" "$work/want" "$work/out"
check "folded input: html, one script" \
	test "$(python3 "$DOM" "$work/bad.html" | grep '^scripts')" = $'scripts\t1'
flame -F "$work/bad.folded" -f speedscope 2>/dev/null | python3 -c '
import json, sys
names = [f["name"] for f in json.load(sys.stdin)["shared"]["frames"]]
want = ["ctl", "\x1b[31mred\x7f", "tab\there", "ok", "<b>&amp",
        "\"q\x27</text>]]></svg><script>alert(1)</script>", "utf",
        "\ufffd|\ufffd\ufffd|\ufffd\ufffd\ufffd|\ufffd\ufffd|\ufffe|\xe9\U0001f525"]
sys.exit(names != want and print(names) is None)' > "$work/out" 2>&1
check "folded input: speedscope JSON, controls escaped, bad UTF-8 as U+FFFD" \
	test $? = 0 -a ! -s "$work/out"

# -- a line 5000 frames deep (cut at 1024) and a frame with 20000 callees
python3 -c '
print(";".join("d%d" % i for i in range(5000)) + " 1")
for i in range(20000):
    print("w;f%d 1" % i)' > "$work/big.folded"
# its CPU time, not its wall time: a guard against quadratic work that a
# busy host does not trip
TIMEFORMAT='%3U %3S'
cpu=$( { time { flame -F "$work/big.folded" -f svg > "$work/big.svg"; echo $? > "$work/rc"; }; } 2>&1 )
rc=$(cat "$work/rc")
ms=$(echo "$cpu" | tail -n 1 | awk '{ printf "%d", ($1 + $2) * 1000 }')
check "deep and wide: drawn, exit 0, in ${ms} ms of CPU (at most 5000)" test "$rc" = 0 -a "$ms" -le 5000
check "deep and wide: well-formed, 1024 levels, every callee" test \
	"$(python3 "$DOM" "$work/big.svg" --xml |
	   awk -F'\t' '$1 != "svg" && $1 != "scripts" { n++; if ($2 + 0 > m) m = $2 + 0 }
		       END { print n, m }')" = "21026 1024"

# -- counts that overflow, and lines that are not folded
printf 'x 9999999999999999999\nx;y 9999999999999999999\n' | flame -F - > /dev/null 2>"$work/err"
check "folded input: counts past 2^64, exit 1, said" \
	test $? = 1 -a -n "$(grep 'more than 2^64' "$work/err")"
printf 'x 99999999999999999999\nx\n;\n 5\n' | flame -F - > "$work/out" 2>"$work/err"
check "folded input: a count too long, no count, no stack: skipped, said" \
	test ! -s "$work/out" -a -n "$(grep '4 lines are not' "$work/err")"
finish
