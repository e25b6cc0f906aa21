#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame's outputs on the committed fixture (tests/fixtures/flame/,
# made by tests/fixtures/make-flame-fixture.sh in a guest): kstack.dat,
# ustack-sample with deferred user stacks and the kernel stacks of
# trace-cmd record -T. Folded text asserted exactly, speedscope's JSON
# parsed and read back, perf script text checked line by line as Perfetto's
# importer reads it, every buffer of a file, lost stacks, folded input, and
# the errors. No root, no tracefs.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"

KS=$FLAME_FX/kstack.dat
flame_require "ustack-flame built"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flame_setup "$work"

USER_GETPPID="[libc.so.6];main;sample_outer;sample_middle;ustack_lib_enter;ustack_lib_inner;ustack_lib_syscall"
USER_EXIT="[libc.so.6];main;sample_outer;sample_middle;sample_then;ustack_lib_raw"
KERNEL="entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];syscall_trace_enter_[k];ftrace_syscall_enter_[k]"

# -- folded, by command name, the kernel stacks joined (the default)
cat > "$work/want" <<EOF
ustack-sample;[libc.so.6];$KERNEL 1
ustack-sample;$USER_EXIT;$KERNEL 1
ustack-sample;$USER_GETPPID;$KERNEL 3
EOF
flame "$KS" > "$work/folded" 2>"$work/err"
same "folded: user and kernel stacks joined, by command" "$work/want" "$work/folded"
check "folded: nothing on stderr" test ! -s "$work/err"
flame -k "$KS" > "$work/out"
same "folded: -k is the default" "$work/folded" "$work/out"

# -- per task, user stacks only, events chosen by pattern
cat > "$work/want" <<EOF
ustack-sample-86;$USER_EXIT 1
ustack-sample-86;$USER_GETPPID 3
EOF
flame -g task -K -e '*getppid' -e 'sys*:*exit*' "$KS" > "$work/out"
same "folded: -g task -K -e PATTERN" "$work/want" "$work/out"

# -- all tasks together, frames named by file only
cat > "$work/want" <<EOF
[libc.so.6] 1
[libc.so.6];[ustack-sample];[ustack-sample];[ustack-sample];[libustack-sample.so];[libustack-sample.so];[libustack-sample.so] 3
[libc.so.6];[ustack-sample];[ustack-sample];[ustack-sample];[ustack-sample];[libustack-sample.so] 1
EOF
"$FLAME" -a -n -K "$KS" > "$work/out"
same "folded: -a -n (no symbols, every task)" "$work/want" "$work/out"

# -- filters by task
flame -p 86 "$KS" > "$work/out"
same "folded: -p PID of the task" "$work/folded" "$work/out"
flame -c ustack-sample "$KS" > "$work/out"
same "folded: -c COMM of the task" "$work/folded" "$work/out"
flame -p 1 "$KS" > "$work/out" 2> "$work/err"
check "folded: -p of another task: nothing, exit 1, said" \
	test $? = 1 -a ! -s "$work/out" -a -n "$(grep 'is of the task 1 (-p)' "$work/err")"

# -- folded text read back (-F), from a file and from standard input
flame -F "$work/folded" > "$work/out"
same "-F FILE: folded in, the same folded out" "$work/folded" "$work/out"
tac "$work/folded" | flame -F - > "$work/out"
same "-F -: read from standard input, sorted out" "$work/folded" "$work/out"
{ cat "$work/folded"; echo "no count here"; echo "ustack-sample;main 2"; } | flame -F - \
	> "$work/out" 2>"$work/err"
check "-F: a line that is not 'stack count' is skipped and said" \
	grep -q '1 lines are not "stack count": skipped' "$work/err"
check "-F: the other lines counted" grep -qx 'ustack-sample;main 2' "$work/out"

# -- speedscope: a profile per command, frames shared; read back to folded.
# Of a trace, a sample per event (weighing nanoseconds, in time order:
# tests/host/flame-speedscope.sh); of folded text (-F), a sample per line
# weighing its count
flame -f speedscope "$KS" > "$work/speedscope.json"
check "speedscope: valid JSON (python3 -m json.tool)" \
	python3 -m json.tool "$work/speedscope.json" /dev/null
# to_folded FILE UNIT: the file's profiles as folded lines, each profile's
# name first; a sample counts its weight (unit none) or 1 (nanoseconds)
to_folded() {
	python3 - "$1" "$2" <<'PY'
import collections, json, sys
d = json.load(open(sys.argv[1]))
unit = sys.argv[2]
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
frames = [(f["name"], f.get("file")) for f in d["shared"]["frames"]]
assert len(set(frames)) == len(frames), "a frame twice"
out = collections.Counter()
for p in d["profiles"]:
    assert p["type"] == "sampled" and p["unit"] == unit
    assert len(p["samples"]) == len(p["weights"])
    assert p["endValue"] - p["startValue"] == sum(p["weights"])
    for s, w in zip(p["samples"], p["weights"]):
        out[";".join([p["name"]] + [frames[i][0] for i in s])] += w if unit == "none" else 1
print("\n".join("%s %d" % (l, out[l]) for l in sorted(out)))
PY
}
to_folded "$work/speedscope.json" nanoseconds > "$work/out" 2>&1
same "speedscope: the profiles read back are the folded lines" "$work/folded" "$work/out"
check "speedscope: one profile per command, named after it" test \
	"$(python3 -c 'import json,sys; print([p["name"] for p in json.load(open(sys.argv[1]))["profiles"]])' \
	"$work/speedscope.json")" = "['ustack-sample']"
flame -a -f speedscope "$KS" > "$work/all.json"
check "speedscope -a: one profile, named after the trace" test \
	"$(python3 -c 'import json,sys; print([p["name"] for p in json.load(open(sys.argv[1]))["profiles"]])' \
	"$work/all.json")" = "['$KS']"
flame -a -f speedscope -F "$work/folded" > "$work/folded.json"
to_folded "$work/folded.json" none > "$work/out" 2>&1
sed 's/^/-F;/' "$work/folded" > "$work/want"
sed "s|^$work/folded;|-F;|" "$work/out" > "$work/out2"
same "speedscope -F: a sample per line weighing its count (unit none)" "$work/want" "$work/out2"

# -- perf script text, as Perfetto's "perf textual format" importer reads it
flame -f perf "$KS" > "$work/perf.txt"
check_perf() {
	python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="strict").read()
assert text.endswith("\n\n"), "the last sample ends with an empty line"
n = 0
for block in text[:-2].split("\n\n"):
    head, *frames = block.split("\n")
    # "comm tid [cpu] seconds.micros: period event:"; the timestamp is what
    # Perfetto looks for before a colon: digits, a dot, six digits
    m = re.fullmatch(r"(.+) (\d+) \[(\d+)\] (\d+\.\d{6}): 1 (\S+):", head)
    assert m, "sample line: %r" % head
    assert frames, "a sample without frames: %r" % head
    for f in frames:
        # a tab, the address, a space, the symbol, "(mapping)" at the end
        assert re.fullmatch(r"\t *[0-9a-f]+ \S.* \([^()\n]*\)", f), "frame: %r" % f
    n += 1
print(n)
PY
}
check "perf: every sample and frame as Perfetto's importer parses them" \
	test "$(check_perf "$work/perf.txt" 2>&1)" = 5
cat > "$work/want" <<EOF
ustack-sample 86 [000] 18.892604: 1 ustack:
	               0 syscalls:sys_enter_getppid ([tracepoint])
	ffffffff810f54df ftrace_syscall_enter+0x14c ([kernel.kallsyms])
	ffffffff810b4882 syscall_trace_enter+0x8a ([kernel.kallsyms])
	ffffffff814126e6 do_syscall_64+0x2a ([kernel.kallsyms])
	ffffffff816000b0 entry_SYSCALL_64_after_hwframe+0x4b ([kernel.kallsyms])
	            112b ustack_lib_syscall+0xb (/tmp/ustack-fixture/libustack-sample.so)
	            1175 ustack_lib_inner+0x25 (/tmp/ustack-fixture/libustack-sample.so)
	            11b9 ustack_lib_enter+0x9 (/tmp/ustack-fixture/libustack-sample.so)
	            160e sample_middle+0xe (/tmp/ustack-fixture/ustack-sample)
	            1629 sample_outer+0x9 (/tmp/ustack-fixture/ustack-sample)
	            11a4 main+0x74 (/tmp/ustack-fixture/ustack-sample)
	           2724a [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)

EOF
awk -v RS= -v ORS='\n\n' 'NR == 2' "$work/perf.txt" > "$work/out"
same "perf: a getppid sample, its tracepoint innermost, the kernel frames, the user frames" \
	"$work/want" "$work/out"

# -- every buffer of a file, and lost stacks: an instance whose stack
# entries are gone (tests/fixtures/make-buffers-fixture.py)
if ! command -v trace-cmd >/dev/null; then
	skip "buffers and lost stacks" "no trace-cmd (to convert the fixture to version 6)"
else
	trace-cmd convert -i "$KS" -o "$work/src.dat" --file-version 6 --compression none \
		>/dev/null 2>&1
	python3 "$USTACK_TOP/tests/fixtures/make-buffers-fixture.py" "$work/src.dat" \
		"$work/buf.dat" --top stacks --instance inst=lost
	lost="ustack-sample;[stack lost];$KERNEL 5"
	{ cat "$work/folded"; echo "$lost"; } > "$work/want"
	flame -v "$work/buf.dat" > "$work/out" 2>"$work/err"
	same "buffers: the top level and the instance, counted together" "$work/want" "$work/out"
	check "buffers: -v counts them" grep -q \
		'10 events, 10 counted (10 with a kernel stack, 5 without their user stack), 4 different stacks, 2 buffers' \
		"$work/err"
	flame -B inst "$work/buf.dat" > "$work/out"
	check "buffers: -B NAME, that instance only" test "$(cat "$work/out")" = "$lost"
	flame -B '' "$work/buf.dat" > "$work/out"
	same "buffers: -B '', the top level only" "$work/folded" "$work/out"
	flame -L "$work/buf.dat" > "$work/out"
	same "lost: -L leaves them out (kernel stacks too)" "$work/folded" "$work/out"
fi

# -- errors: said, exit status 1 (2 for the command line), no output left
flame "$work/none.dat" > "$work/out" 2>"$work/err"
rc=$?
check "error: a missing trace, exit 1 with its name" \
	test $rc = 1 -a -n "$(grep -F "$work/none.dat" "$work/err")"
flame -p 1 -f svg -o "$work/empty.svg" "$KS" 2>"$work/err"
rc=$?
check "error: nothing to draw, exit 1, said, no file left" \
	test $rc = 1 -a ! -e "$work/empty.svg" -a -n "$(grep 'no event of' "$work/err")"
flame -f bogus "$KS" >/dev/null 2>&1
check "error: an unknown format, exit 2" test $? = 2
flame -F "$work/folded" -f perf >/dev/null 2>&1
check "error: -f perf of folded input, exit 2" test $? = 2
"$FLAME" --help > "$work/out"
check "--help: exit 0, the usage" grep -q '^usage: ustack-flame' "$work/out"

# -- the graphs are written where -o says
flame -f svg -o "$work/k.svg" "$KS" && flame -f html -o "$work/k.html" "$KS"
check "svg and html: written" test -s "$work/k.svg" -a -s "$work/k.html"
check "svg: well-formed XML with a frame per node" test \
	"$(python3 "$USTACK_TOP/tests/lib/flame-dom.py" "$work/k.svg" --xml | grep -c $'\tshown\t')" = 23
finish
