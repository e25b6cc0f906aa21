#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame -f speedscope of a trace (review 2026-11-28, finding [21]): a
# sampled profile in time order, a sample per event weighing the time until
# the task's next event (nanoseconds, startValue the first event's time), so
# that speedscope's Time Order view shows every event where its time is;
# and frames with the file they are in, so that two functions of one name
# in two files stay two frames. The events are those of -f perf (the same
# order, times and frames). speedscope's importer rules for a sampled
# profile (src/lib/file-format.ts, importSpeedscopeProfile, and
# StackListProfileBuilder.appendSampleWithWeight in src/lib/profile.ts: a
# sample weighing 0 is dropped, a negative weight is an error, a sample with
# the stack of the one before it is merged into it) are applied here as it
# reads the file; speedscope itself is in no Debian package, and the
# project installs nothing from npm. No root needed.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"

KS=$FLAME_FX/kstack.dat
# the fixture's shared library, ustack_lib_raw in it (its debug file)
LIB_ID=e510b52ef1603bdd5905b18075d747e2565f5a20
flame_require "ustack-flame built"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flame_setup "$work"

# timeline SPEEDSCOPE PERF: the speedscope file's events against perf
# text's, in order; prints "events=N profiles=N frames=N" or why not
timeline() {
	python3 - "$1" "$2" <<'PY'
import json, os, re, sys

d = json.load(open(sys.argv[1]))
frames = d["shared"]["frames"]
assert len({(f["name"], f.get("file")) for f in frames}) == len(frames), "a frame twice"

# speedscope's import of a sampled profile, in append (time) order
events = []
for p in d["profiles"]:
    assert p["type"] == "sampled" and p["unit"] == "nanoseconds", p["unit"]
    assert len(p["samples"]) == len(p["weights"]), "samples and weights differ"
    at, kept, last = p["startValue"], [], None
    for s, w in zip(p["samples"], p["weights"]):
        assert w >= 0, "negative weight: speedscope refuses the file"
        assert w != 0, "a sample weighing 0: speedscope drops it"
        events.append((p["name"], at, [frames[i] for i in s]))
        at += w
        if s == last:
            kept[-1] += w
        else:
            kept.append(w)
        last = s
    # the view spans endValue - startValue; every event's weight is in it
    assert at == p["endValue"], "weights end at %d, endValue %d" % (at, p["endValue"])
    assert sum(kept) == p["endValue"] - p["startValue"]

# perf text: "comm tid [cpu] s.us: 1 ustack:", then frames, innermost first
perf = []
for block in open(sys.argv[2], encoding="utf-8").read().split("\n\n"):
    if not block.strip():
        continue
    head, _tracepoint, *lines = block.split("\n")
    m = re.fullmatch(r"(.+) (\d+) \[\d+\] (\d+)\.(\d{6}): 1 ustack:", head)
    assert m, head
    stack = []
    for line in lines:
        f = re.fullmatch(r"\s*[0-9a-f]+ (.+?)(?:\+0x[0-9a-f]+)? \((.*)\)", line)
        assert f, line
        name, path = f.group(1), f.group(2)
        if path == "[kernel.kallsyms]":
            stack.insert(0, {"name": name + "_[k]"})
        elif path == "[unknown]":
            stack.insert(0, {"name": name})
        else:
            if name == "[unknown]":
                name = "[%s]" % os.path.basename(path)
            stack.insert(0, {"name": name, "file": path})
    # a task's name as a folded line's first frame has "_" for ";"
    perf.append((m.group(1).replace(";", "_"), int(m.group(3)) * 1000000 + int(m.group(4)),
                 stack))

# the formats write ";" and control characters apart: "_" for both here
def norm(stack):
    return [{k: re.sub(r"[;\x00-\x1f]", "_", v) for k, v in f.items()} for f in stack]

# the profiles in their order, each one's events in time order
want = [e for p in d["profiles"] for e in sorted((e for e in perf if e[0] == p["name"]),
                                                 key=lambda e: e[1])]
assert len(events) == len(perf) == len(want), \
    "%d samples, %d events (%d of the profiles' tasks)" % (len(events), len(perf), len(want))
for i, ((task, ns, stack), (comm, us, pstack)) in enumerate(zip(events, want)):
    assert task == comm, "event %d: profile %r, task %r" % (i, task, comm)
    assert ns // 1000 == us, "event %d: at %d ns, perf says %d us" % (i, ns, us)
    assert norm(stack) == norm(pstack), "event %d: %r\n  perf: %r" % (i, stack, pstack)
print("events=%d profiles=%d frames=%d" % (len(events), len(d["profiles"]), len(frames)))
PY
}

# -- kstack.dat: 5 events of one task, in time order, with their files
flame -f speedscope "$KS" > "$work/ks.json"
flame -f perf "$KS" > "$work/ks.perf"
out=$(timeline "$work/ks.json" "$work/ks.perf" 2>&1)
check "kstack.dat: every event a sample, at its time, with -f perf's frames ($out)" \
	test "$out" = "events=5 profiles=1 frames=13"
check "kstack.dat: the first sample starts at the first event (18.892078 s)" \
	test "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["profiles"][0]["startValue"] // 1000)' \
	"$work/ks.json")" = 18892078
check "kstack.dat: user frames name their file" grep -q \
	'{"name":"ustack_lib_raw","file":"/tmp/ustack-fixture/libustack-sample.so"}' "$work/ks.json"

# -- two traces, two tasks (-g task), the kernel stacks left out
flame -f speedscope -g task -K "$KS" "$FLAME_FX/names.dat" > "$work/two.json"
flame -f perf -g task -K "$KS" "$FLAME_FX/names.dat" > "$work/two.perf"
# a profile per task: comm-PID, as -g task names the first frame
sed -i -E 's/^(.+) ([0-9]+) (\[[0-9]+\] [0-9]+\.[0-9]{6}: 1 ustack:)$/\1-\2 \2 \3/' "$work/two.perf"
out=$(timeline "$work/two.json" "$work/two.perf" 2>&1)
check "two traces, -g task -K: every event, a profile per task ($out)" \
	test "$out" = "events=7 profiles=2 frames=13"
check "two traces: main of the program and main of names.dat's program, two frames" test \
	"$(grep -c '^{"name":"main","file":"' "$work/two.json")" = 2

# -- two functions of one name in two files: the library's ustack_lib_raw
# renamed sample_then (the name of a static function of the program) in
# its symbol table; the exit_group event's stack has both, one above the other
python3 - "$work/debug/.build-id/${LIB_ID:0:2}/${LIB_ID:2}.debug" <<'PY'
import sys
path = sys.argv[1]
data = open(path, "rb").read()
assert data.count(b"\0ustack_lib_raw\0") >= 1
open(path, "wb").write(data.replace(b"\0ustack_lib_raw\0", b"\0sample_then\0\0\0\0"))
PY
flame "$KS" > "$work/same.folded"
check "one name, two files: the folded line has sample_then twice (one name)" \
	grep -q ';sample_then;sample_then;' "$work/same.folded"
flame -f speedscope "$KS" > "$work/same.json"
flame -f perf "$KS" > "$work/same.perf"
out=$(timeline "$work/same.json" "$work/same.perf" 2>&1)
check "one name, two files: every event, with -f perf's frames ($out)" \
	test "$out" = "events=5 profiles=1 frames=13"
out=$(python3 - "$work/same.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
frames = d["shared"]["frames"]
same = [i for i, f in enumerate(frames) if f["name"] == "sample_then"]
files = sorted(frames[i].get("file", "-") for i in same)
# speedscope keys frames by their index: two indices are two frames
both = [s for p in d["profiles"] for s in p["samples"] if all(i in s for i in same)]
print("%d frames: %s; samples with both: %d" % (len(same), " ".join(files), len(both)))
PY
)
check "one name, two files: two frames, each with its file, both in one sample ($out)" \
	test "$out" = "2 frames: /tmp/ustack-fixture/libustack-sample.so /tmp/ustack-fixture/ustack-sample; samples with both: 1"

# -- one base name, two directories, no symbols (-n): the library's path
# in the trace made /tmp/ustack-fixture-other/ustack-sample (as long), so
# its frames are "[ustack-sample]" as the program's are
if command -v trace-cmd > /dev/null; then
	trace-cmd convert -i "$KS" -o "$work/v6.dat" --file-version 6 --compression none \
		> /dev/null 2>&1
	python3 - "$work/v6.dat" "$work/base.dat" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
old, new = b"/tmp/ustack-fixture/libustack-sample.so", b"/tmp/ustack-fixture-other/ustack-sample"
assert len(old) == len(new) and data.count(old) == 1
open(sys.argv[2], "wb").write(data.replace(old, new))
PY
	"$FLAME" -n "$work/base.dat" > "$work/base.folded"
	check "one base name, -n: the folded lines name both files [ustack-sample]" \
		test "$(grep -c '\[libustack' "$work/base.folded")" = 0
	"$FLAME" -n -f speedscope "$work/base.dat" > "$work/base.json"
	"$FLAME" -n -f perf "$work/base.dat" > "$work/base.perf"
	out=$(timeline "$work/base.json" "$work/base.perf" 2>&1)
	check "one base name, -n: every event, with -f perf's frames ($out)" \
		test "$out" = "events=5 profiles=1 frames=7"
	check "one base name, -n: [ustack-sample] twice, one frame per file" test \
		"$(grep -o '^{"name":"\[ustack-sample\]","file":"[^"]*"}' "$work/base.json" | sort | tr '\n' ' ')" = \
		'{"name":"[ustack-sample]","file":"/tmp/ustack-fixture-other/ustack-sample"} {"name":"[ustack-sample]","file":"/tmp/ustack-fixture/ustack-sample"} '
else
	skip "one base name, two directories" "no trace-cmd (to convert the fixture to version 6)"
fi

# -- speedscope's own importer: not on this machine
skip "speedscope's own importer" "speedscope is in no Debian package and the project installs nothing from npm: its rules for sampled profiles are applied above instead"
finish
