#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame --unwind (issue 37): each user stack gets how the kernel
# found it as its root frame, right after the task, "[unwind=fp]",
# "[unwind=sframe]" or "[unwind=sframe+fp]", in every format with frames:
# folded (so svg and html), speedscope's timeline, perf text (its outermost
# frame), pprof and otlp, where the user frames keep their files (mappings)
# beside it. Without the option no format names it. On the committed
# trace with its stack entries' flags 0x4, 0x8, 0xc, 0x4 (tests/lib/
# unwind.sh), frames by file (-n). No root.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"
. "$(dirname "$0")/../lib/unwind.sh"

PROTO_DIR=$USTACK_TOP/flamegraph/proto
flame_require "ustack-flame built"
for t in trace-cmd python3; do
	if ! command -v $t >/dev/null; then
		skip "ustack-flame --unwind" "no $t"
		finish
	fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! out=$(unwind_fixture "$work" 2>&1); then
	fail "unwind fixture" "$out"
	finish
fi
DAT=$work/unwind.dat
STACK="[libc.so.6];[ustack-sample];[ustack-sample];[ustack-sample];[libustack-sample.so];[libustack-sample.so];[libustack-sample.so]"

same() {
	if diff -u "$2" "$3" > "$work/diff"; then
		pass "$1"
	else
		fail "$1" "$(head -n 8 "$work/diff" | tr '\n' ' ')"
	fi
}

# -- folded: under the task, one root per method, counted apart
printf '%s\n' "ustack-sample;[unwind=fp];$STACK 4" "ustack-sample;[unwind=sframe+fp];$STACK 2" \
	"ustack-sample;[unwind=sframe];$STACK 2" > "$work/want"
"$FLAME" -n --unwind "$DAT" > "$work/out"
same "folded: [unwind=fp] 4, [unwind=sframe+fp] 2, [unwind=sframe] 2, after the task" \
	"$work/want" "$work/out"
sed 's/^ustack-sample-69;/ustack-sample;/' <("$FLAME" -n --unwind -g task "$DAT") > "$work/out"
same "folded, -g task: the same after comm-PID" "$work/want" "$work/out"
sed 's/^ustack-sample;//' "$work/want" > "$work/want-a"
"$FLAME" -n --unwind -a "$DAT" > "$work/out"
same "folded, -a: the method is the first frame" "$work/want-a" "$work/out"
"$FLAME" -n "$DAT" > "$work/out"
check "folded without --unwind: as before, one stack of 8" \
	test "$(cat "$work/out")" = "ustack-sample;$STACK 8"

# -- every other format: names the three with the option, none without
for f in svg html speedscope perf pprof otlp; do
	for u in "" --unwind; do
		# shellcheck disable=SC2086
		"$FLAME" -n $u -f $f -o "$work/out.$f$u" "$DAT" 2>/dev/null
	done
	case $f in
	pprof) gzip -dc "$work/out.$f--unwind" > "$work/text"; gzip -dc "$work/out.$f" > "$work/text0" ;;
	*) cp "$work/out.$f--unwind" "$work/text"; cp "$work/out.$f" "$work/text0" ;;
	esac
	check "-f $f --unwind: [unwind=fp], [unwind=sframe], [unwind=sframe+fp]" \
		sh -c "grep -qa '\[unwind=fp\]' '$work/text' && grep -qa '\[unwind=sframe\]' '$work/text' &&
		       grep -qa '\[unwind=sframe+fp\]' '$work/text'"
	check "-f $f without --unwind: no unwind frame" sh -c "! grep -qa 'unwind=' '$work/text0'"
done

# perf text: the outermost frame of each sample, after the user frames
awk -v RS= '{ n = split($0, l, "\n"); print l[n] }' "$work/out.perf--unwind" |
	sed 's/^[[:space:]]*//' | sort | uniq -c | sed 's/^ *//' > "$work/out"
printf '%s\n' "2 0 [unwind=sframe+fp] ([unknown])" "2 0 [unwind=sframe] ([unknown])" \
	"4 0 [unwind=fp] ([unknown])" | sort > "$work/want"
same "-f perf: each sample's outermost frame is its [unwind=...]" "$work/want" <(sort "$work/out")

# speedscope's timeline: the user frames keep their files beside the root
python3 - "$work/out.speedscope--unwind" > "$work/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
frames = d["shared"]["frames"]
for p in d["profiles"]:
    for s in p["samples"]:
        print(";".join(frames[i]["name"] + ("@" if "file" in frames[i] else "") for i in s))
PY
{ for m in fp fp fp fp sframe sframe sframe+fp sframe+fp; do
	echo "[unwind=$m];[libc.so.6]@;[ustack-sample]@;[ustack-sample]@;[ustack-sample]@;[libustack-sample.so]@;[libustack-sample.so]@;[libustack-sample.so]@"
  done; } | sort > "$work/want"
same "-f speedscope: 8 samples, each the root and the user frames with their files" \
	"$work/want" <(sort "$work/out")

# pprof and otlp: the user frames are still locations in their mappings
if command -v protoc > /dev/null; then
	for u in "" --unwind; do
		gzip -dc "$work/out.pprof$u" | protoc --decode=perftools.profiles.Profile \
			-I "$PROTO_DIR" pprof.proto > "$work/pprof$u.txt" 2>/dev/null
		protoc --decode=ustack.otlp.ExportProfilesServiceRequest -I "$PROTO_DIR" \
			otlp-profiles.proto < "$work/out.otlp$u" > "$work/otlp$u.txt" 2>/dev/null
	done
	check "-f pprof --unwind: the 7 user locations keep their mappings" \
		test "$(grep -c mapping_id "$work/pprof--unwind.txt")" = 7
	check "-f otlp --unwind: the 7 user locations keep their mappings" \
		test "$(grep -c mapping_index "$work/otlp--unwind.txt")" = 7
	check "-f pprof: 8 samples either way" test \
		"$(grep -c '^sample {' "$work/pprof.txt") $(grep -c '^sample {' "$work/pprof--unwind.txt")" = "8 8"
else
	skip "-f pprof, otlp: mappings" "no protoc (Debian's protobuf-compiler: make deps)"
fi
finish
