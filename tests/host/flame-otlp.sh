#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame -f otlp (issue 41): an OTLP ExportProfilesServiceRequest
# (opentelemetry-proto v1.11.0, profiles/v1development), decoded with
# Debian's protoc against our proto/otlp-profiles.proto, as text
# (--decode) and as Python objects (--python_out, Debian's python3-protobuf):
# every event's stack and count as the folded output has them, each event's
# timestamp as -f perf prints it, the attributes thread.id, thread.name,
# ustack.event, ustack.buffer, the host's resource attributes, the tables'
# zero values at index 0, the files' build-ids; the hostile names of
# names.dat as text. No independent reader of OTLP profiles is packaged in
# Debian 12 or on npm (docs/flamegraph.md): none is run. No root.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"

KS=$FLAME_FX/kstack.dat
NAMES=$FLAME_FX/names.dat
PROTO_DIR=$USTACK_TOP/flamegraph/proto
MSG=ustack.otlp.ExportProfilesServiceRequest
flame_require "ustack-flame built"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flame_setup "$work"

if ! command -v protoc > /dev/null; then
	skip "-f otlp decoded" "no protoc (Debian's protobuf-compiler: make deps)"
	finish
fi
# Debian's python3 has python3-protobuf; a python3 earlier in PATH may not
PY=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import google.protobuf' 2> /dev/null; then
		PY=$p
		break
	fi
done
if [ -z "$PY" ] || ! protoc -I "$PROTO_DIR" --python_out="$work" otlp-profiles.proto 2> "$work/err"; then
	skip "-f otlp decoded in Python" "no python3-protobuf, or protoc --python_out failed: $(head -n 1 "$work/err")"
	finish
fi

# decode FILE: what the request holds, checked against the specification's
# rules, as folded lines ("comm;outermost;...;leaf COUNT", sorted), then a
# line per event "TS comm event buffer" (sorted), then "resource KEY=VALUE"
decode() {
	PYTHONPATH=$work "$PY" - "$1" <<'PY'
import sys
import otlp_profiles_pb2 as pb

req = pb.ExportProfilesServiceRequest()
req.ParseFromString(open(sys.argv[1], "rb").read())
d = req.dictionary
s = d.string_table
# every table's entry 0 is the zero value, and present
for name in ("mapping_table", "location_table", "function_table", "link_table",
             "attribute_table", "stack_table"):
    t = getattr(d, name)
    assert len(t) >= 1 and t[0].ByteSize() == 0, name + "[0] is not the zero value"
assert s[0] == "", "string_table[0] is not empty"
assert len(s) == len(set(s)), "a string twice"
assert len(req.resource_profiles) == 1
rp = req.resource_profiles[0]
assert len(rp.scope_profiles) == 1 and rp.scope_profiles[0].scope.name == "ustack-flame"
profiles = rp.scope_profiles[0].profiles
assert len(profiles) == 1
p = profiles[0]
assert (s[p.sample_type.type_strindex], s[p.sample_type.unit_strindex]) == ("events", "count")

def attr(i):
    a = d.attribute_table[i]
    v = a.value
    return s[a.key_strindex], v.int_value if v.WhichOneof("value") == "int_value" else v.string_value

folded, events, seen = {}, [], set()
for sample in p.samples:
    attrs = dict(attr(i) for i in sample.attribute_indices)
    assert len(attrs) == len(sample.attribute_indices), "a key twice in a sample"
    ident = (sample.stack_index, tuple(sorted(sample.attribute_indices)))
    assert ident not in seen, "two samples of one identity: not combined"
    seen.add(ident)
    assert len(sample.values) == len(sample.timestamps_unix_nano) and all(v == 1 for v in sample.values)
    frames = []
    for li in d.stack_table[sample.stack_index].location_indices:
        # the leaf first; a location's lines the innermost inlined function first
        loc = d.location_table[li]
        assert loc.lines, "a location without a function"
        for line in loc.lines:
            frames.append(s[d.function_table[line.function_index].name_strindex])
    key = ";".join([attrs["thread.name"]] + frames[::-1])
    folded[key] = folded.get(key, 0) + len(sample.values)
    for ts in sample.timestamps_unix_nano:
        assert p.time_unix_nano <= ts <= p.time_unix_nano + p.duration_nano
        events.append("%d %s %d %s %s" % (ts, attrs["thread.name"], attrs["thread.id"],
                                          attrs["ustack.event"], attrs.get("ustack.buffer", "-")))
for k in sorted(folded):
    print(k, folded[k])
for e in sorted(events):
    print("event", e)
for kv in rp.resource.attributes:
    print("resource %s=%s" % (kv.key, kv.value.string_value))
for m in list(d.mapping_table)[1:]:
    ids = [attr(i) for i in m.attribute_indices]
    print("mapping %s %x-%x %s" % (s[m.filename_strindex], m.memory_start, m.memory_limit,
                                  " ".join("%s=%s" % kv for kv in ids)))
PY
}

# want FOLDED: the folded lines as OTLP strings have them (not UTF-8: U+FFFD), sorted
want() {
	python3 -c '
import sys
for l in sorted(open(sys.argv[1], "rb").read().decode("utf-8", "replace").splitlines()):
    print(l)' "$1"
}

# perf_events PERF: "TS_US comm tid" of each event of -f perf text, sorted
perf_events() {
	python3 -c '
import re, sys
out = []
for block in open(sys.argv[1], encoding="utf-8").read().split("\n\n"):
    if block.strip():
        m = re.match(r"(.+) (\d+) \[\d+\] (\d+)\.(\d{6}): 1 ustack:\n\s+0 (\S+) \(", block)
        out.append("%d %s %s %s" % (int(m.group(3)) * 1000000 + int(m.group(4)),
                                    m.group(1).replace(";", "_"), m.group(2), m.group(5)))
for e in sorted(out):
    print(e)' "$1"
}

# compare NAME TRACE [ARGS...]: the stacks and counts, and each event's time
compare() {
	local name=$1 trace=$2

	shift 2
	flame "$@" "$trace" > "$work/folded"
	want "$work/folded" > "$work/want"
	# the warning on the times of most fixtures is checked below
	if ! flame -f otlp -o "$work/o.bin" "$@" "$trace" 2> "$work/warn" ||
	   ! decode "$work/o.bin" > "$work/decoded" 2> "$work/err"; then
		fail "$name: decoded" "$(tail -n 2 "$work/err" | tr '\n' ' ')"
		return
	fi
	grep -v '^event \|^resource \|^mapping ' "$work/decoded" > "$work/got"
	same "$name: the folded output's stacks and counts" "$work/want" "$work/got"
	flame -f perf "$@" "$trace" > "$work/perf"
	perf_events "$work/perf" > "$work/want"
	# nanoseconds to microseconds, as text: awk's numbers are doubles
	sed -n 's/^event //p' "$work/decoded" | sed -E 's/^([0-9]+)[0-9]{3} /\1 /' |
		awk '{ print $1, $2, $3, $4 }' | sort > "$work/got"
	same "$name: each event's timestamp, task and event as -f perf has them" \
		"$work/want" "$work/got"
}

compare "kstack.dat" "$KS"
compare "kstack.dat -K" "$KS" -K
compare "names.dat (hostile names)" "$NAMES"

flame -f otlp --host 'traced-1' -o "$work/ks.bin" "$KS" 2> /dev/null
decode "$work/ks.bin" > "$work/decoded"
check "resource: host.name from --host, os.type linux" test \
	"$(grep '^resource ' "$work/decoded" | tr '\n' ' ')" = \
	"resource host.name=traced-1 resource os.type=linux "
flame -f otlp -o "$work/host.bin" "$KS" 2> /dev/null
decode "$work/host.bin" > "$work/host.txt"
check "resource: host.name is this machine's without --host" grep -qx \
	"resource host.name=$(hostname)" "$work/host.txt"
check "mappings: the library with its build-id attribute, offsets from 0" grep -qx \
	'mapping /tmp/ustack-fixture/libustack-sample.so 0-11ba process.executable.build_id.gnu=e510b52ef1603bdd5905b18075d747e2565f5a20' \
	"$work/decoded"
check "mappings: the kernel's, without a build-id" grep -qE \
	'^mapping \[kernel.kallsyms\] ffffffff[0-9a-f]+-ffffffff[0-9a-f]+ $' "$work/decoded"

# protoc --decode: the text decoder, no field it does not know
protoc --decode="$MSG" -I "$PROTO_DIR" otlp-profiles.proto < "$work/ks.bin" \
	> "$work/text" 2> "$work/err"
check "protoc --decode: the request decodes, every field known" test \
	"$(grep -c '^ *[0-9]\+:' "$work/text"):$(wc -c < "$work/err")" = "0:0"
check "protoc --decode: the getppid events, three timestamps in one sample" test \
	"$(grep -c 'timestamps_unix_nano' "$work/text")" = 5
check "protoc --decode: the scope" grep -q 'name: "ustack-flame"' "$work/text"

# -- lost stacks, two buffers: ustack.buffer, the "[stack lost]" frame
if command -v trace-cmd > /dev/null; then
	trace-cmd convert -i "$KS" -o "$work/src.dat" --file-version 6 --compression none \
		> /dev/null 2>&1
	python3 "$USTACK_TOP/tests/fixtures/make-buffers-fixture.py" "$work/src.dat" \
		"$work/buf.dat" --top stacks --instance inst=lost
	compare "lost stacks, two buffers" "$work/buf.dat"
	check "two buffers: 5 events of ustack.buffer inst, 5 of the top level (none)" test \
		"$(grep -c '^event .* inst$' "$work/decoded") $(grep -c '^event .* -$' "$work/decoded")" \
		= "5 5"
	check "two buffers: the lost stacks' frame" grep -q ';\[stack lost\];' "$work/got" \
		"$work/decoded"

	# times: kstack.dat's are its clock's (18 s after boot), said; a trace of
	# UNIX times (2025-11-24, as trace-cmd record --date gives) is not
	check "the clock's times: a warning that they are not UNIX times" grep -q \
		"warning: the trace's times are not UNIX times (18.892078879 s)" \
		<(flame -f otlp -o /dev/null "$KS" 2>&1)
	python3 "$USTACK_TOP/tests/fixtures/make-buffers-fixture.py" "$work/src.dat" \
		"$work/unix.dat" --top stacks+1764000000000000000
	compare "UNIX times" "$work/unix.dat"
	check "UNIX times: no warning, the first event at 1764000018.892078879 s" test \
		"$(flame -f otlp -o "$work/u.bin" "$work/unix.dat" 2>&1)$(decode "$work/u.bin" |
		sed -n 's/^event \([0-9]*\) .*/\1/p' | sort -n | head -n 1)" = 1764000018892078879
else
	skip "lost stacks, two buffers" "no trace-cmd (to convert the fixture to version 6)"
fi

# -- --inlines: a location with a line per inlined function (the library's
# debug file replaced by one of ours with its build-id, inl_leaf() inlined
# into inl_outer() at the trace's offsets, as in flame-pprof.sh)
if command -v gcc > /dev/null; then
	{
		printf 'volatile int sink;\n'
		printf 'static inline __attribute__((always_inline)) void inl_leaf(int i)\n'
		printf '{\n\tsink += i; sink ^= i; sink += i * 3; sink -= i; sink += 7; sink ^= 5;\n}\n'
		printf 'void inl_outer(int n)\n{\n'
		for i in $(seq 0 59); do printf '\tinl_leaf(n + %d);\n' "$i"; done
		printf '}\n'
	} > "$work/inl.c"
	gcc -O1 -g -fPIC -shared -Wl,--build-id=0xe510b52ef1603bdd5905b18075d747e2565f5a20 \
		-o "$work/debug/.build-id/e5/10b52ef1603bdd5905b18075d747e2565f5a20.debug" \
		"$work/inl.c"
	check "--inlines: the folded lines have inlined frames" grep -q ';inl_outer;inl_leaf;' \
		<(flame --inlines "$KS")
	compare "--inlines --srcline" "$KS" --inlines --srcline
	flame_setup "$work"
else
	skip "--inlines" "no gcc"
fi

# -- --srcline: the functions' files and the lines
flame -f otlp --srcline -o "$work/src.bin" "$KS" 2> /dev/null
protoc --decode="$MSG" -I "$PROTO_DIR" otlp-profiles.proto < "$work/src.bin" > "$work/text"
check "--srcline: a source file in the strings, lines with their numbers" test \
	"$(grep -c 'string_table: "tests/progs/sample.c"' "$work/text") $(grep -c '^ *line: 132$' "$work/text")" = "1 1"
finish
