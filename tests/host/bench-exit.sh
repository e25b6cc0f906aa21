#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench's exit status (scripts/bench.sh): a run that measured what it
# could exits 0 and ends with the rows judged noise, each named with its
# part; it exits 1 when a part says a goal is MISSED or a part could not run
# (exited non-zero), and says which. scripts/bench.sh runs here on a tree
# of its own whose parts (tests/bench/*.sh) and guest (scripts/guest-run.sh)
# are stubs that print what the scenario asks, so no guest boots. And a
# real part, tests/bench/flame-export.sh, on a stub ustack-flame whose pprof
# CPU time moves from round to round: it names the row as noise and exits 0
# (it exited 1, and failed make bench with it, on every noisy run).
. "$(dirname "$0")/../lib/result.sh"

top=$USTACK_TOP
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# -- scripts/bench.sh on stub parts
t=$work/tree
mkdir -p "$t/scripts" "$t/tests/bench"
cp "$top/scripts/bench.sh" "$t/scripts/"
cat >"$t/scripts/guest-run.sh" <<'EOF'
#!/bin/bash
# the stub guest: runs the job here, with its results directory
res=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	[ "$1" = --res ] && { res=$2; shift; }
	shift
done
shift
[ -n "$res" ] || res=$(mktemp -d)
mkdir -p "$res"
USTACK_RES=$res exec "$@"
EOF
# a part: its key is its file's name (ftrace-deferred.sh: ftrace-LABEL);
# FAKE_NOISE, FAKE_MISSED and FAKE_FAIL list the keys that have a noise
# row, miss their goal, or cannot run
cat >"$work/part" <<'EOF'
#!/bin/bash
key=$(basename "$0" .sh)
if [ "$key" = ftrace-deferred ]; then
	while [ $# -gt 0 ]; do [ "$1" = --label ] && key=ftrace-$2; shift; done
fi
has() { case " $1 " in *" $key "*) return 0 ;; esac; return 1; }
if [ "$key" = readme ]; then	# the results page: no rows
	echo "$key" >> "$FAKE_LOG"
	has "${FAKE_FAIL:-}" && exit 1
	exit 0
fi
echo "$key: a row"
has "${FAKE_NOISE:-}" && echo "  NOISE: $key-row: per-round effect 5 ns, its spread 9 ns" >&2
if has "${FAKE_MISSED:-}"; then
	echo "goal: $key's goal (at most 1.30x): MISSED, 1.400x"
else
	echo "goal: $key's goal (at most 1.30x): met, 1.100x"
fi
echo "$key" >> "$FAKE_LOG"
has "${FAKE_FAIL:-}" && exit 1
exit 0
EOF
chmod +x "$t/scripts/guest-run.sh" "$work/part"
for p in ftrace-deferred profile-run floor compare report-plugin kshark-load flame-export \
	 plot perf-deferred stock-exact readme; do
	ln -s "$work/part" "$t/tests/bench/$p.sh"
done
parts="ftrace-icount profile-run floor ftrace-wall compare report-plugin kshark-load flame-export plot perf-deferred stock-exact readme"

bench() {	# bench NAME [VAR=VALUE...]: the stub tree's make bench, into $work/NAME.out
	local name=$1
	shift
	rm -f "$work/ran"
	env "$@" FAKE_LOG="$work/ran" "$t/scripts/bench.sh" >"$work/$name.out" 2>&1
	echo $? >"$work/$name.rc"
}
rc() { cat "$work/$1.rc"; }
ends() {	# ends NAME HEADING LINES: in NAME's output, HEADING is followed by LINES
	local got
	got=$(awk -v h="$2" 'f && /^bench: / { exit } f { print } $0 == h { f = 1 }' "$work/$1.out")
	[ "$got" = "$3" ] || { echo "after \"$2\": \"$got\"; the end: $(tail -n 3 "$work/$1.out")"; return 1; }
}

bench clean
check "nothing to say: exit 0 ($(rc clean))" test "$(rc clean)" = 0
check "every part ran, in order, and the results page was written" \
	test "$(tr '\n' ' ' <"$work/ran" 2>/dev/null)" = "$parts "
check "... and no noise, goal or failure is listed" \
	sh -c "! grep -q '^bench: \(rows judged noise\|goals missed\|parts that could not run\)' '$work/clean.out'"

bench noise FAKE_NOISE="ftrace-wall kshark-load"
check "wall-clock rows that are noise: exit 0 ($(rc noise))" test "$(rc noise)" = 0
check "the run ends with the noise rows, each with its part" \
	ends noise "bench: rows judged noise (their rounds spread more than their effect: not figures, no failure):" \
	"  ftrace-wall: ftrace-wall-row: per-round effect 5 ns, its spread 9 ns
  kshark: kshark-load-row: per-round effect 5 ns, its spread 9 ns"

bench missed FAKE_NOISE=ftrace-wall FAKE_MISSED=kshark-load
check "a goal MISSED: exit 1 ($(rc missed))" test "$(rc missed)" = 1
check "the run ends with the goal missed, and its part" \
	ends missed "bench: goals missed:" "  kshark: goal: kshark-load's goal (at most 1.30x): MISSED, 1.400x"

bench failed FAKE_FAIL=floor
check "a part that could not run: exit 1 ($(rc failed))" test "$(rc failed)" = 1
check "the run ends with the part that could not run" \
	ends failed "bench: parts that could not run:" "  floor (exit 1)"
check "... and ran the other parts still" \
	test "$(tr '\n' ' ' <"$work/ran" 2>/dev/null)" = "$parts "

bench guest FAKE_FAIL=perf-deferred FAKE_NOISE=perf-deferred
check "a guest part that could not run, with a noise row: exit 1 ($(rc guest))" test "$(rc guest)" = 1
check "... named as not run" ends guest "bench: parts that could not run:" "  perf (exit 1)"

bench page FAKE_FAIL=readme
check "the results page not written: exit 1 ($(rc page))" test "$(rc page)" = 1
check "... named" ends page "bench: parts that could not run:" "  readme (docs/bench-results.md not rewritten)"

# -- a real part: tests/bench/flame-export.sh on a stub ustack-flame
if ! command -v trace-cmd >/dev/null || [ ! -x /usr/bin/time ]; then
	skip "flame-export.sh with a noise row" "no trace-cmd or /usr/bin/time (make deps)"
	finish
fi
mkdir -p "$work/flame"
# CPU time in units of 3,000,000 turns of awk's loop (about 50 ms here):
# folded and otlp 4 each round, pprof 2, 6, then 4 (ratios 0.5, 1.5, 1)
cat >"$work/flame/ustack-flame" <<'EOF'
#!/bin/bash
fmt= out=
while [ $# -gt 0 ]; do
	case $1 in -f) fmt=$2; shift ;; -o) out=$2; shift ;; esac
	shift
done
echo x >>"$FAKE_COUNT.$fmt"
n=$(wc -l <"$FAKE_COUNT.$fmt")
units=4
[ "$fmt" = pprof ] && units=$(echo "2 6 4" | cut -d' ' -f"$n")
awk -v n="$units" 'BEGIN { for (i = 0; i < n * 3000000; i++) x += i }'
echo "$fmt" >"$out"
EOF
chmod +x "$work/flame/ustack-flame"
USTACK_FLAME_O=$work/flame FAKE_COUNT=$work/flame/count FLAME_BENCH_REPEAT=2 \
	"$top/tests/bench/flame-export.sh" 3 >"$work/flame.out" 2>&1
frc=$?
check "flame-export.sh: pprof's ratio spreads more than its effect: a NOISE row" \
	grep -q '^  NOISE: pprof: ratio' "$work/flame.out"
check "flame-export.sh: measured, noise and all: exit 0 ($frc; $(tail -n 1 "$work/flame.out"))" \
	test "$frc" = 0
finish
