#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame -f perf keeps every sample in speedscope's perf importer and
# FlameGraph's stackcollapse-perf.pl (review 2026-11-28, finding [6]). Both
# keep only the samples of the first event name they meet, so every sample
# has the one event name "ustack", and the tracepoint is its innermost
# frame. The importers' rules are applied here as they read the text (the
# sample and frame lines, the event name of each, the first name kept), and
# the stacks they make must be ustack-flame's folded lines, the tracepoint
# added; stackcollapse-perf.pl itself is run too when it is on PATH (it is
# in no Debian package: FlameGraph's repository). No root needed.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"

KS=$FLAME_FX/kstack.dat
NAMES=$FLAME_FX/names.dat
flame_require "ustack-flame built"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flame_setup "$work"

# import PERF-TEXT: what the importers keep of it, as folded lines with the
# tracepoint's frame last ("system:name_[k]", as stackcollapse-perf.pl
# --kernel names a frame in "[...]"), and on stderr "events=NAMES
# samples=N kept=N" or the first line they would not read
import() {
	python3 - "$1" <<'PY'
import collections, os, re, sys

text = open(sys.argv[1], encoding="utf-8").read()
blocks = [b for b in text.split("\n\n") if b.strip()]
names, kept, folded = set(), 0, collections.Counter()
first = None
for block in blocks:
    head, *frames = block.split("\n")
    # speedscope: the command, the thread, then the event name at the end
    m = re.match(r"^(\S.+?)\s+(\d+)(?:/?(\d+))?\s+", head)
    ev = re.search(r"(\S+):\s*$", head)
    # stackcollapse-perf.pl: the period, then the event name at the end
    sc = re.search(r":\s*(\d+)*\s+(\S+):\s*$", head)
    if not m or not ev or not sc or ev.group(1) != sc.group(2):
        sys.exit("not read: %r" % head)
    names.add(ev.group(1))
    # both keep the first event name's samples only
    if first is None:
        first = ev.group(1)
    if ev.group(1) != first:
        continue
    kept += 1
    stack = []
    for f in frames:
        fm = re.match(r"^\s*(\w+)\s*(.+) \((\S*)\)", f)
        if not fm:
            sys.exit("frame not read: %r" % f)
        func, mod = re.sub(r"\+0x[\da-f]+$", "", fm.group(2)), fm.group(3)
        if func == "[unknown]":
            func = "[%s]" % os.path.basename(mod) if mod != "[unknown]" else "[unknown]"
        elif (mod.startswith("[") or mod.endswith("vmlinux")) and "unknown" not in mod:
            func += "_[k]"
        stack.insert(0, func)
    folded[";".join([m.group(1)] + stack)] += 1
for line in sorted(folded):
    print("%s %d" % (line, folded[line]))
print("events=%s samples=%d kept=%d" % (",".join(sorted(names)), len(blocks), kept),
      file=sys.stderr)
PY
}

# untrace FOLDED: the lines without their last frame (the tracepoint),
# counted again, sorted
untrace() { awk '{ n = $NF; sub(/;[^;]*$/, ""); c[$0] += n } END { for (l in c) print l, c[l] }' \
	"$1" | LC_ALL=C sort; }

# total FOLDED: the sum of the counts
total() { awk '{ n += $NF } END { print n + 0 }' "$1"; }

# check_import [--count] NAME TRACE [OPTIONS]: the importers keep every
# sample, with ustack-flame's stacks (--count: the samples only; names are
# escaped differently in the two formats)
check_import() {
	local count= name trace n

	[ "$1" = --count ] && count=1 && shift
	name=$1 trace=$2
	shift 2
	flame "$@" "$trace" | LC_ALL=C sort > "$work/folded"
	flame -f perf "$@" "$trace" > "$work/perf.txt"
	import "$work/perf.txt" > "$work/imported" 2> "$work/err"
	n=$(total "$work/folded")
	check "$name: one event name, every sample kept ($(cat "$work/err"))" \
		test "$(cat "$work/err")" = "events=ustack samples=$n kept=$n"
	[ -n "$count" ] && return
	untrace "$work/imported" > "$work/out"
	same "$name: the stacks read are ustack-flame's folded lines" "$work/folded" "$work/out"
}

# -- kstack.dat: 3 getppid, a write and an exit_group, kernel stacks joined
check_import "kstack.dat" "$KS"
check "kstack.dat: each sample's innermost frame is its tracepoint" test \
	"$(sed 's/.*;//' "$work/imported" | sort | tr '\n' ' ')" = \
	"syscalls:sys_enter_exit_group_[k] 1 syscalls:sys_enter_getppid_[k] 3 syscalls:sys_enter_write_[k] 1 "
check "kstack.dat: the tracepoint's frame line" grep -qx \
	$'\t               0 syscalls:sys_enter_getppid (\\[tracepoint\\])' "$work/perf.txt"
check_import "kstack.dat -K (user stacks only)" "$KS" -K
check_import --count "names.dat (hostile names)" "$NAMES"

# -- lost stacks, two buffers (tests/fixtures/make-buffers-fixture.py)
if command -v trace-cmd > /dev/null; then
	trace-cmd convert -i "$KS" -o "$work/src.dat" --file-version 6 --compression none \
		> /dev/null 2>&1
	python3 "$USTACK_TOP/tests/fixtures/make-buffers-fixture.py" "$work/src.dat" \
		"$work/buf.dat" --top stacks --instance inst=lost
	check_import "lost stacks, two buffers" "$work/buf.dat"
else
	skip "lost stacks, two buffers" "no trace-cmd (to convert the fixture to version 6)"
fi

# -- FlameGraph's own script, when it is there
if command -v stackcollapse-perf.pl > /dev/null; then
	flame "$KS" | LC_ALL=C sort > "$work/folded"
	flame -f perf "$KS" | stackcollapse-perf.pl --kernel > "$work/collapsed" 2> "$work/err"
	check "stackcollapse-perf.pl: every sample ($(total "$work/collapsed") of 5), no filtering" \
		test "$(total "$work/collapsed")" = 5 -a ! -s "$work/err"
	untrace "$work/collapsed" > "$work/out"
	same "stackcollapse-perf.pl: ustack-flame's folded lines, the tracepoint added" \
		"$work/folded" "$work/out"
else
	skip "stackcollapse-perf.pl" "not on PATH (FlameGraph's repository; in no Debian package)"
fi
finish
