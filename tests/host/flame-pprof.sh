#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame -f pprof (issue 41), read back by go tool pprof (Debian's
# golang-go): -traces, -raw and -top must give the stacks and counts of
# the folded output of the same trace, with the task (the folded line's
# first frame) as the comm label; labels tid, event and buffer; lost stacks
# as the frame "[stack lost]"; the hostile names of names.dat as text
# (bytes that are not UTF-8 as U+FFFD, as in the other formats); the
# mappings with their files and build-ids; and the file decoded by protoc
# against our proto/pprof.proto. No root.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"

KS=$FLAME_FX/kstack.dat
NAMES=$FLAME_FX/names.dat
PROTO_DIR=$USTACK_TOP/flamegraph/proto
flame_require "ustack-flame built"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flame_setup "$work"
# go keeps its caches under HOME; the test's own
export HOME=$work/home GOCACHE=$work/gocache
mkdir -p "$HOME"

have_go=
if ! command -v go > /dev/null; then
	skip "go tool pprof" "no go (Debian's golang-go: make deps)"
elif ! go tool pprof -h > /dev/null 2>&1; then
	skip "go tool pprof" "go cannot run pprof here: $(go tool pprof -h 2>&1 | head -n 1)"
else
	have_go=1
fi

# pprof_folded VIEW FILE: folded lines ("comm;outermost;...;leaf COUNT", sorted)
# made from go tool pprof's -traces or -raw output of FILE
pprof_folded() {
	go tool pprof -symbolize=none "-$1" "$2" 2> "$work/pprof.err" | python3 -c '
import re, sys
view, lines, counts = sys.argv[1], sys.stdin.read().split("\n"), {}
def add(labels, frames, n):
    key = ";".join([labels["comm"]] + frames[::-1])
    counts[key] = counts.get(key, 0) + n
if view == "traces":
    # blocks between dashed lines: "key:  value" labels, then "COUNT   leaf", "   caller"...
    block = []
    for line in lines + ["-----------+"]:
        if line.startswith("-----------+"):
            labels, frames, n = {}, [], 0
            for b in block:
                m = re.fullmatch(r"\s*(\w+):  (.*)", b)
                f = re.fullmatch(r"\s+(\d+)   (.*)", b)
                if m and not frames:
                    labels[m.group(1)] = m.group(2)
                elif f and not frames:
                    n, frames = int(f.group(1)), [f.group(2)]
                elif frames and b.strip():
                    frames.append(b.strip())
            # an inlined function is marked so
            frames = [re.sub(r" \(inline\)$", "", f) for f in frames]
            if frames:
                add(labels, frames, n)
            block = []
        else:
            block.append(line)
else:
    # Samples: "N: id id ..." then label lines; Locations: "id: 0xADDR M=m name :line s=0"
    locs, samples, part = {}, [], None
    for line in lines:
        if line in ("Samples:", "Locations", "Mappings"):
            part = line
            continue
        m = re.fullmatch(r"\s*(\d+): ([\d ]+)", line)
        if part == "Samples:" and m:
            samples.append([int(m.group(1)), m.group(2).split(), {}])
            continue
        if part == "Samples:" and samples:
            for k, v in re.findall(r"(\w+):\[([^\]]*)\]", line):
                samples[-1][2][k] = v
        # the lines of a location, the innermost first: more lines without the id
        l = re.fullmatch(r"\s*(\d+): 0x[0-9a-f]+(?: M=\d+)? (.*) \S*:\d+ s=\d+", line)
        more = re.fullmatch(r"\s+(.*) \S*:\d+ s=\d+", line)
        if part == "Locations" and l:
            last = l.group(1)
            locs[last] = [l.group(2)]
        elif part == "Locations" and more:
            locs[last].append(more.group(1))
    for n, ids, labels in samples:
        add(labels, [f for i in ids for f in locs[i]], n)
for k in sorted(counts):
    print(k, counts[k])
' "$1"
}

# want FOLDED: the folded lines as pprof strings have them (bytes that are
# not UTF-8 as U+FFFD), sorted
want() {
	python3 -c '
import sys
lines = open(sys.argv[1], "rb").read().decode("utf-8", "replace").splitlines()
for l in sorted(lines):
    print(l)' "$1"
}

# compare NAME TRACE [ARGS...]: -traces and -raw against the folded output
compare() {
	local name=$1 trace=$2 view

	shift 2
	flame "$@" "$trace" > "$work/folded" || { fail "$name" "folded failed"; return; }
	want "$work/folded" > "$work/want"
	flame -f pprof -o "$work/p.pb.gz" "$@" "$trace" ||
		{ fail "$name" "-f pprof failed"; return; }
	for view in traces raw; do
		pprof_folded "$view" "$work/p.pb.gz" > "$work/got" 2>&1
		same "$name: go tool pprof -$view, the folded output's stacks and counts" \
			"$work/want" "$work/got"
	done
}

if [ -n "$have_go" ]; then
	# -- kstack.dat: 5 events, user stacks under kernel stacks
	compare "kstack.dat" "$KS"
	compare "kstack.dat -K" "$KS" -K
	compare "names.dat (hostile names)" "$NAMES"

	# -top: flat is the leaf's count, cum every stack through a function (once)
	flame -a "$KS" > "$work/folded"
	flame -f pprof -o "$work/ks.pb.gz" "$KS"
	go tool pprof -symbolize=none -top -nodecount=100 "$work/ks.pb.gz" 2> /dev/null |
		awk '$1 ~ /^[0-9]+$/ && NF >= 6 { print $NF, $1, $4 }' | sort > "$work/got"
	python3 -c '
import sys
flat, cum = {}, {}
for line in open(sys.argv[1]):
    stack, n = line.rsplit(" ", 1)
    frames = stack.split(";")
    flat[frames[-1]] = flat.get(frames[-1], 0) + int(n)
    for f in set(frames):
        cum[f] = cum.get(f, 0) + int(n)
for f in sorted(cum):
    print(f, flat.get(f, 0), cum[f])' "$work/folded" | sort > "$work/want"
	same "kstack.dat: go tool pprof -top, flat and cum of every function as the folded lines give" \
		"$work/want" "$work/got"
	check "kstack.dat: -top says 5 events of type events" grep -q \
		'Type: events' <(go tool pprof -symbolize=none -top "$work/ks.pb.gz" 2>&1)

	# -raw: labels and mappings
	go tool pprof -symbolize=none -raw "$work/ks.pb.gz" > "$work/raw" 2>&1
	check "kstack.dat: -raw, the labels of the getppid events" grep -qx \
		'                comm:\[ustack-sample\] event:\[syscalls:sys_enter_getppid\]' "$work/raw"
	check "kstack.dat: -raw, the tid label" grep -qx '                tid:\[86\]' "$work/raw"
	check "kstack.dat: -raw, the library's mapping with its build-id, offsets from 0" grep -qE \
		'^[0-9]+: 0x0/0x[0-9a-f]+/0x0 /tmp/ustack-fixture/libustack-sample.so e510b52ef1603bdd5905b18075d747e2565f5a20 \[FN\]$' \
		"$work/raw"
	check "kstack.dat: -raw, the kernel's mapping" grep -qE \
		'^[0-9]+: 0xffffffff[0-9a-f]+/0xffffffff[0-9a-f]+/0x0 \[kernel.kallsyms\]' "$work/raw"
	check "kstack.dat: -raw, a user location is its offset in its file" grep -qE \
		'^ +[0-9]+: 0x113f M=[0-9]+ ustack_lib_raw :0 s=0$' "$work/raw"

	# -- lost stacks, two buffers: the buffer label, the "[stack lost]" frame
	if command -v trace-cmd > /dev/null; then
		trace-cmd convert -i "$KS" -o "$work/src.dat" --file-version 6 \
			--compression none > /dev/null 2>&1
		python3 "$USTACK_TOP/tests/fixtures/make-buffers-fixture.py" "$work/src.dat" \
			"$work/buf.dat" --top stacks --instance inst=lost
		compare "lost stacks, two buffers" "$work/buf.dat"
		go tool pprof -symbolize=none -raw "$work/p.pb.gz" > "$work/raw" 2>&1
		check "two buffers: the instance's events have buffer:[inst], 5 of them" test \
			"$(python3 -c '
import re, sys
n, cur = 0, 0
for line in open(sys.argv[1]):
    m = re.fullmatch(r"\s*(\d+): [\d ]+\n", line)
    if m:
        cur = int(m.group(1))
    elif "buffer:[inst]" in line:
        n += cur
print(n)' "$work/raw")" = 5
		check "two buffers: the lost stacks' frame" grep -qE ' \[stack lost\] :0 s=0$' \
			"$work/raw"
		check "two buffers: -tagfocus buffer=inst keeps the 5 lost stacks, and only them" \
			grep -qE '^ +0 +0% 50.00% +5 50.00%  \[stack lost\]$' <(go tool pprof -symbolize=none -tagfocus=buffer=inst \
			-top "$work/p.pb.gz" 2>&1)
	else
		skip "lost stacks, two buffers" "no trace-cmd (to convert the fixture to version 6)"
	fi
fi

# -- protoc, against our .proto: the same message, no bytes it does not know
if command -v protoc > /dev/null; then
	flame -f pprof -o "$work/ks.pb.gz" "$KS"
	gzip -dc "$work/ks.pb.gz" | protoc --decode=perftools.profiles.Profile \
		-I "$PROTO_DIR" pprof.proto > "$work/decoded" 2> "$work/protoc.err"
	check "protoc --decode: the file is our Profile message" test -s "$work/decoded"
	check "protoc --decode: 5 samples of value 1, no field it does not know" test \
		"$(grep -c '^  value: 1$' "$work/decoded") $(grep -c '^[0-9]' "$work/decoded")" = "5 0"
	check "protoc --decode: string_table[0] is \"\"" test \
		"$(grep -m1 '^string_table:' "$work/decoded")" = 'string_table: ""'
	flame -f pprof -o "$work/names.pb.gz" "$NAMES"
	check "protoc --decode: the hostile names are valid UTF-8 (proto3 strings)" \
		bash -c "gzip -dc '$work/names.pb.gz' | protoc --decode=perftools.profiles.Profile \
		-I '$PROTO_DIR' pprof.proto | grep -qF '<script>alert(\\\"x\\\")</script>'"
else
	skip "protoc --decode" "no protoc (Debian's protobuf-compiler: make deps)"
fi

# -- --srcline: functions with their source files, lines with their numbers
flame -f pprof --srcline -o "$work/src.pb.gz" "$KS"
if [ -n "$have_go" ]; then
	go tool pprof -symbolize=none -raw "$work/src.pb.gz" > "$work/raw" 2>&1
	check "--srcline: user frames have their source file and line (sample_then)" grep -qE \
		'^ +[0-9]+: 0x15ca M=[0-9]+ sample_then tests/progs/sample\.c:132 s=0$' "$work/raw"
	check "--srcline: the mappings say they have them" grep -qE \
		'/tmp/ustack-fixture/ustack-sample [0-9a-f]+ \[FN\]\[FL\]\[LN\]$' "$work/raw"
	pprof_folded traces "$work/src.pb.gz" > "$work/got"
	flame "$KS" > "$work/folded"
	want "$work/folded" > "$work/want"
	same "--srcline: the same stacks and counts" "$work/want" "$work/got"
fi

# -- --inlines: a location with a line per inlined function. The library of
# the fixture replaced by one of ours with its build-id, whose code at the
# trace's offsets is inl_leaf() inlined into inl_outer() (mostly)
if [ -n "$have_go" ] && command -v gcc > /dev/null; then
	{
		printf 'volatile int sink;\n'
		printf 'static inline __attribute__((always_inline)) void inl_leaf(int i)\n'
		printf '{\n\tsink += i; sink ^= i; sink += i * 3; sink -= i; sink += 7; sink ^= 5;\n}\n'
		printf 'void inl_outer(int n)\n{\n'
		for i in $(seq 0 59); do printf '\tinl_leaf(n + %d);\n' "$i"; done
		printf '}\n'
	} > "$work/inl.c"
	LIB_DEBUG=$work/debug/.build-id/e5/10b52ef1603bdd5905b18075d747e2565f5a20.debug
	gcc -O1 -g -fPIC -shared -Wl,--build-id=0xe510b52ef1603bdd5905b18075d747e2565f5a20 \
		-o "$LIB_DEBUG" "$work/inl.c"
	check "--inlines: the folded lines have inlined frames (inl_outer;inl_leaf)" grep -q \
		';inl_outer;inl_leaf;' <(flame --inlines "$KS")
	compare "--inlines" "$KS" --inlines
	compare "--inlines --srcline" "$KS" --inlines --srcline
	go tool pprof -symbolize=none -raw "$work/p.pb.gz" > "$work/raw" 2>&1
	check "--inlines --srcline: a location of two lines, the inlined function first" \
		grep -qzP ' 0x1175 M=[0-9]+ inl_leaf [^ ]*inl\.c:4 s=0\n +inl_outer [^ ]*inl\.c:[1-9][0-9]* s=0\n' \
		"$work/raw"
	check "--inlines: -traces marks the inlined function" grep -q 'inl_leaf (inline)' \
		<(go tool pprof -symbolize=none -traces "$work/p.pb.gz" 2>&1)
	flame_setup "$work"
else
	skip "--inlines" "no go or no gcc"
fi

# -- refused: binary to a terminal is checked by the tool; folded input has no events
check "-F with -f pprof is refused (exit 2)" bash -c \
	"printf 'a;b 1\n' | '$FLAME' -f pprof -F - -o '$work/x' 2>/dev/null; test \$? = 2"
finish
