#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame --time (issue 41): each sample of -f pprof, -f otlp and
# --pprof-dir also weighs the time from its task's previous event, in
# nanoseconds (a task's first event 0). The weights are checked against
# gaps computed here from trace-cmd report's nanosecond timestamps of the
# events -f perf prints, summed per task, event and stack (the frames'
# addresses): go tool pprof -raw's time values (sample type
# time/nanoseconds, the events type unchanged and still the default), the
# OTLP request's second profile decoded with python3-protobuf (the same
# samples as the first, of the same dictionary), and --pprof-dir's
# periods summed (a gap crosses periods). Also: the hostile names of
# names.dat, --time refused with the other formats, and the outputs without
# --time the same as before (no second type or profile). No root.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"

KS=$FLAME_FX/kstack.dat
NAMES=$FLAME_FX/names.dat
PROTO_DIR=$USTACK_TOP/flamegraph/proto
flame_require "ustack-flame built"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flame_setup "$work"
export HOME=$work/home GOCACHE=$work/gocache
mkdir -p "$HOME"

# -- the options
for f in folded perf speedscope svg html; do
	flame -f "$f" --time -o "$work/x" "$KS" 2> /dev/null
	check "--time refused with -f $f (exit 2)" test $? = 2
done
flame -f svg --time -o "$work/x" "$KS" 2> "$work/err"
check "--time refused: the message names the formats it weighs" grep -q \
	'^ustack-flame: --time weighs the samples of -f pprof, -f otlp, --pprof-dir' "$work/err"
check "--time with -f pprof" flame -f pprof --time -o "$work/x" "$KS"
check "--time with -f otlp" flame -f otlp --time -o "$work/x" "$KS"

if ! command -v trace-cmd > /dev/null; then
	skip "--time: the gaps" "no trace-cmd to read the timestamps with"
	finish
fi

# want TRACE [ARGS...]: "tid event addr,addr,... EVENTS GAPS" a stack, sorted:
# each event of -f perf (its frames' addresses, the leaf first, 0 left out)
# at its nanosecond time of trace-cmd report, the gap to the task's previous
# event of those
want() {
	local trace=$1

	shift
	flame -f perf "$@" "$trace" > "$work/perf" || return 1
	trace-cmd report -t "$trace" > "$work/report" 2> /dev/null || return 1
	python3 - "$work/perf" "$work/report" <<'PY'
import re, sys
report = {}
for line in open(sys.argv[2], "rb").read().decode("utf-8", "replace").splitlines():
    m = re.search(r"-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}): (\w+):", line)
    if m:
        tid, cpu, name = int(m.group(1)), int(m.group(2)), m.group(5)
        ts = int(m.group(3)) * 10**9 + int(m.group(4))
        report.setdefault((tid, cpu, ts // 1000, name), []).append(ts)
events = []
text = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
for block in text.split("\n\n"):
    if not block.strip():
        continue
    head, first, *frames = block.split("\n")
    m = re.search(r" (\d+) \[(\d+)\] (\d+)\.(\d{6}): 1 ustack:$", head)
    e = re.fullmatch(r"\s+0 (\S+):(\S+) \(\[tracepoint\]\)", first)
    tid, cpu, us = int(m.group(1)), int(m.group(2)), int(m.group(3)) * 10**6 + int(m.group(4))
    ts = report[(tid, cpu, us, e.group(2))].pop(0)
    addrs = [int(f.split()[0], 16) for f in frames if f.strip()]
    key = "%d %s:%s %s" % (tid, e.group(1), e.group(2), ",".join("%x" % a for a in addrs if a))
    events.append((ts, tid, key))
last, sums = {}, {}
for ts, tid, key in sorted(events, key=lambda x: x[0]):
    gap = ts - last[tid] if tid in last else 0
    last[tid] = ts
    n, g = sums.get(key, (0, 0))
    sums[key] = (n + 1, g + gap)
for k in sorted(sums):
    print(k, *sums[k])
PY
}

# pprof_got FILE...: the same lines from go tool pprof -raw of the files, summed
pprof_got() {
	local f

	for f in "$@"; do
		go tool pprof -symbolize=none -raw "$f" 2> "$work/pprof.err"
		echo "@@ end"
	done | python3 -c '
import re, sys
sums, locs, samples, part = {}, {}, [], None
def flush():
    for n, g, ids, labels in samples:
        key = "%s %s %s" % (labels["tid"], labels["event"],
                            ",".join(locs[i] for i in ids if locs[i] != "0"))
        a, b = sums.get(key, (0, 0))
        sums[key] = (a + n, b + g)
for line in sys.stdin.read().split("\n"):
    if line == "@@ end":
        flush()
        locs, samples, part = {}, [], None
        continue
    if line.startswith("events/count[dflt] time/nanoseconds"):
        part = "samples"
        continue
    if line in ("Locations", "Mappings"):
        part = line
        continue
    m = re.fullmatch(r"\s*(\d+)\s+(\d+): ([\d ]+)", line)
    if part == "samples" and m:
        samples.append([int(m.group(1)), int(m.group(2)), m.group(3).split(), {}])
    elif part == "samples" and samples:
        for k, v in re.findall(r"(\w+):\[([^\]]*)\]", line):
            samples[-1][3][k] = v
    l = re.match(r"\s*(\d+): 0x([0-9a-f]+)", line)
    if part == "Locations" and l:
        locs[l.group(1)] = l.group(2)
for k in sorted(sums):
    print(k, *sums[k])
'
}

if ! command -v go > /dev/null || ! go tool pprof -h > /dev/null 2>&1; then
	skip "--time: go tool pprof" "no go tool pprof (Debian's golang-go: make deps)"
else
	for t in kstack:"$KS" kstack-K:"$KS -K" names:"$NAMES"; do
		name=${t%%:*}
		args=${t#*:}
		# shellcheck disable=SC2086
		want $args > "$work/want" || { fail "$name: gaps from trace-cmd report" "failed"; continue; }
		# shellcheck disable=SC2086
		flame -f pprof --time -o "$work/t.pb.gz" $args
		pprof_got "$work/t.pb.gz" > "$work/got"
		same "$name: pprof -raw's events and time per stack, the gaps of trace-cmd report" \
			"$work/want" "$work/got"
		check "$name: the gaps are not all 0" awk '$NF > 0 { n++ } END { exit !n }' \
			"$work/got"
	done
	flame -f pprof --time -o "$work/t.pb.gz" "$KS"
	go tool pprof -symbolize=none -raw "$work/t.pb.gz" > "$work/raw" 2>&1
	check "pprof: two sample types, events the default" grep -qx \
		'events/count\[dflt\] time/nanoseconds' "$work/raw"
	go tool pprof -symbolize=none -sample_index=time -top "$work/t.pb.gz" > "$work/top" 2>&1
	want "$KS" > "$work/want"
	total=$(awk '{ s += $NF } END { print s }' "$work/want")
	check "pprof: -sample_index=time reads the type" grep -q 'Type: time' "$work/top"
	check "pprof: -sample_index=time's total the sum of the gaps ($total ns)" \
		test "$(go tool pprof -symbolize=none -sample_index=time -raw "$work/t.pb.gz" 2> /dev/null |
			awk '/^ +[0-9]+ +[0-9]+: / { s += $2 } END { print s }')" = "$total"
	# the events type as without --time
	flame -f pprof -o "$work/e.pb.gz" "$KS"
	go tool pprof -symbolize=none -traces "$work/e.pb.gz" > "$work/e.traces" 2>&1
	go tool pprof -symbolize=none -sample_index=events -traces "$work/t.pb.gz" 2>&1 |
		grep -v '^Type: ' > "$work/t.traces"
	grep -v '^Type: ' "$work/e.traces" > "$work/e.traces2"
	same "pprof: -sample_index=events -traces the same as without --time" \
		"$work/e.traces2" "$work/t.traces"
	check "pprof without --time: one sample type" grep -qx 'events/count\[dflt\]' \
		<(go tool pprof -symbolize=none -raw "$work/e.pb.gz" 2>&1)

	# --pprof-dir: 3 periods of 0.2 ms; a gap crosses periods
	mkdir "$work/pd"
	flame --pprof-dir "$work/pd" --period 0.0002 --time "$KS"
	check "--pprof-dir --time: 3 files" test "$(ls "$work/pd" | wc -l)" = 3
	pprof_got "$work/pd"/* > "$work/got"
	same "--pprof-dir --time: the periods' events and time per stack, the whole trace's gaps" \
		"$work/want" "$work/got"
fi

# the first python3 with python3-protobuf: Debian's, when another comes first on PATH
PY=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import google.protobuf' 2> /dev/null; then
		PY=$p
		break
	fi
done
if ! command -v protoc > /dev/null || [ -z "$PY" ] ||
   ! protoc -I "$PROTO_DIR" --python_out="$work" otlp-profiles.proto 2> "$work/err"; then
	skip "--time: -f otlp decoded" "no protoc or python3-protobuf"
	finish
fi

# otlp_got FILE: the same lines from the request's profiles; checks the second
otlp_got() {
	PYTHONPATH=$work "$PY" - "$1" <<'PY'
import sys
import otlp_profiles_pb2 as pb

req = pb.ExportProfilesServiceRequest()
req.ParseFromString(open(sys.argv[1], "rb").read())
d, s = req.dictionary, req.dictionary.string_table
ps = req.resource_profiles[0].scope_profiles[0].profiles
assert len(ps) == 2, "%d profiles" % len(ps)
e, t = ps
assert (s[e.sample_type.type_strindex], s[e.sample_type.unit_strindex]) == ("events", "count")
assert (s[t.sample_type.type_strindex], s[t.sample_type.unit_strindex]) == ("time", "nanoseconds")
assert (e.time_unix_nano, e.duration_nano) == (t.time_unix_nano, t.duration_nano)
assert len(e.samples) == len(t.samples)
def attr(i):
    a = d.attribute_table[i]
    v = a.value
    is_int = v.WhichOneof("value") == "int_value"
    return s[a.key_strindex], v.int_value if is_int else v.string_value
sums = {}
for se, st in zip(e.samples, t.samples):
    assert se.stack_index == st.stack_index
    assert list(se.attribute_indices) == list(st.attribute_indices)
    assert list(se.timestamps_unix_nano) == list(st.timestamps_unix_nano)
    assert len(st.values) == len(st.timestamps_unix_nano) and all(v == 1 for v in se.values)
    attrs = dict(attr(i) for i in se.attribute_indices)
    addrs = [d.location_table[i].address for i in d.stack_table[se.stack_index].location_indices]
    key = "%d %s %s" % (attrs["thread.id"], attrs["ustack.event"],
                        ",".join("%x" % a for a in addrs if a))
    n, g = sums.get(key, (0, 0))
    sums[key] = (n + len(se.values), g + sum(st.values))
for k in sorted(sums):
    print(k, *sums[k])
PY
}

for t in kstack:"$KS" kstack-K:"$KS -K" names:"$NAMES"; do
	name=${t%%:*}
	args=${t#*:}
	# shellcheck disable=SC2086
	want $args > "$work/want" || { fail "$name: gaps from trace-cmd report" "failed"; continue; }
	# shellcheck disable=SC2086
	flame -f otlp --time -o "$work/t.bin" $args 2> /dev/null
	otlp_got "$work/t.bin" > "$work/got" 2> "$work/err"
	same "$name: otlp's second profile, time/nanoseconds, the gaps of trace-cmd report" \
		"$work/want" "$work/got"
done

# --otlp-endpoint: 3 exports of 0.2 ms periods to a receiver on loopback
# that keeps each body; together their second profiles hold the gaps
mkdir "$work/bodies"
"$PY" - "$work/bodies" "$work/port" <<'PY' &
import http.server, os, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        n = len(os.listdir(sys.argv[1]))
        open(os.path.join(sys.argv[1], "%d.bin" % n), "wb").write(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
srv = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[2] + ".tmp", "w").write(str(srv.server_port))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
srv.serve_forever()
PY
recv=$!
if wait_until 60 test -s "$work/port"; then
	flame --otlp-endpoint "http://127.0.0.1:$(cat "$work/port")" --period 0.0002 --time "$KS" \
		2> "$work/err"
	check "--otlp-endpoint --time: 3 exports" test "$(ls "$work/bodies" | wc -l)" = 3
	want "$KS" > "$work/want"
	for b in "$work/bodies"/*; do
		otlp_got "$b"
	done | awk '{ n[$1 " " $2 " " $3] += $4; g[$1 " " $2 " " $3] += $5 }
		END { for (k in n) print k, n[k], g[k] }' | LC_ALL=C sort > "$work/got"
	same "--otlp-endpoint --time: the exports' second profiles, the whole trace's gaps" \
		"$work/want" "$work/got"
else
	fail "--otlp-endpoint --time: the receiver starts" "no port"
fi
kill "$recv"
wait "$recv" 2> /dev/null

flame -f otlp -o "$work/e.bin" "$KS" 2> /dev/null
check "otlp without --time: one profile" test "$(PYTHONPATH=$work "$PY" -c '
import sys, otlp_profiles_pb2 as pb
r = pb.ExportProfilesServiceRequest()
r.ParseFromString(open(sys.argv[1], "rb").read())
print(len(r.resource_profiles[0].scope_profiles[0].profiles))' "$work/e.bin")" = 1
finish
