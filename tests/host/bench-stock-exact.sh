#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/bench/stock-exact.py, make bench's part stock-exact, on made-up
# input: the stacks of a trace-cmd report -O ustack_nosym and of perf
# script output paired call by call (the launcher's calls before execve
# left out, a call one run made and the other did not counted as unequal,
# the trace's caller frames as return addresses), and the table's goal
# lines from a rounds file: met, MISSED, and a noisy ratio named.
. "$(dirname "$0")/../lib/result.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py=$USTACK_TOP/tests/bench/stock-exact.py

# the trace: the launcher (pid 70) and the program (71): its execve, then
# write (1), read (0), write (1); the read's stack is lost
cat > "$work/t.nosym" <<'EOF'
cpus=1
   ustack-cputim-70    [000]     3.1: sys_enter:            NR 56 (0, 0, 0, 0, 0, 0)
 => /usr/lib/x86_64-linux-gnu/libc.so.6+0xd5f16
   ustack-cputim-71    [000]     3.2: sys_enter:            NR 59 (0, 0, 0, 0, 0, 0)
 => /usr/lib/x86_64-linux-gnu/libc.so.6+0xd5a1b
   sqlite3-71    [000]     3.3: user_unwind_cookie:   cookie=300000001
   sqlite3-71    [000]     3.4: sys_enter:            NR 1 (1, 0, 0, 0, 0, 0)
 => /usr/lib/x86_64-linux-gnu/libc.so.6+0xf786a
 => /usr/bin/sqlite3+0x2e6dd
 => /usr/bin/sqlite3+0x9600
   sqlite3-71    [000]     3.5: user_unwind_stack:    cookie=300000001 next=500000001 nr=3 flags=0
   sqlite3-71    [000]     3.6: sys_enter:            NR 0 (3, 0, 0, 0, 0, 0)
 => [user stack lost: events were dropped]
   sqlite3-71    [000]     3.7: sys_enter:            NR 1 (1, 0, 0, 0, 0, 0)
 => /usr/lib/x86_64-linux-gnu/libc.so.6+0xf786a
 => /usr/bin/sqlite3+0x2e6dd
 => /usr/bin/sqlite3+0x9600
EOF
# dwarf,32768: the same calls, a caller frame at its return address - 1
cat > "$work/ref.perf" <<'EOF'
ustack-cputim    90 raw_syscalls:sys_enter: NR 56 (0, 0, 0, 0, 0, 0)
	    7f0d5f16 (/usr/lib/x86_64-linux-gnu/libc.so.6+0xd5f16)

ustack-cputim    91 raw_syscalls:sys_enter: NR 59 (0, 0, 0, 0, 0, 0)
	    7f0d5a1b (/usr/lib/x86_64-linux-gnu/libc.so.6+0xd5a1b)

sqlite3    91 raw_syscalls:sys_enter: NR 1 (1, 0, 0, 0, 0, 0)
	ffffffff8100 ([kernel.kallsyms]+0x100)
	    7f0f786a (/usr/lib/x86_64-linux-gnu/libc.so.6+0xf786a)
	    5e2e6dc (/usr/bin/sqlite3+0x2e6dc)
	    5e095ff (/usr/bin/sqlite3+0x95ff)

sqlite3    91 raw_syscalls:sys_enter: NR 0 (3, 0, 0, 0, 0, 0)
	    7f0f786a (/usr/lib/x86_64-linux-gnu/libc.so.6+0xf786a)
	    5e2e6dc (/usr/bin/sqlite3+0x2e6dc)
	    5e095ff (/usr/bin/sqlite3+0x95ff)

sqlite3    91 raw_syscalls:sys_enter: NR 1 (1, 0, 0, 0, 0, 0)
	    7f0f786a (/usr/lib/x86_64-linux-gnu/libc.so.6+0xf786a)
	    5e2e6dc (/usr/bin/sqlite3+0x2e6dc)
	    5e095ff (/usr/bin/sqlite3+0x95ff)
EOF
# dwarf (8 KiB): its first write's stack cut short, and one call more
sed -e '/^sqlite3 /,$!b' -e '0,/5e095ff/{/5e095ff/d}' "$work/ref.perf" > "$work/d8.perf"
printf '\nsqlite3    91 raw_syscalls:sys_enter: NR 3 (3)\n\t    7f0f786a (/usr/lib/x86_64-linux-gnu/libc.so.6+0xf786a)\n' \
	>> "$work/d8.perf"

"$py" stacks "$work/t.nosym" "$work/ref.perf" dwarf="$work/d8.perf" > "$work/st" 2>&1
check "stacks: the program's 3 calls after its execve, 2 frames a stack (one lost)" \
	grep -qx 'deferred events 3 frames 2.0' "$work/st"
check "stacks: the trace's return addresses equal perf's - 1; the lost stack is not equal" \
	grep -qx 'equal deferred 2 of 3' "$work/st"
check "stacks: 8 KiB: its extra call counted, its short stack said so" \
	sh -c "grep -qx 'dwarf events 4' '$work/st' && grep -qx 'equal dwarf 2 of 4 short 1' '$work/st'"
check "stacks: the unequal paired calls are shown" \
	test "$(grep -c "^diff" "$work/st")" = 2

# the rounds, both alike: in all 12x and 10x (each side's cheaper
# symbolizer: deferred's folded 50 of 150, dwarf's only one, 3000, dwarf,32768's
# folded 1500 of 2800), bytes 40x and 80x, the program 1.09x and 1.82x; then
# a second round of 8 KiB at 2.29x in all, 10x bytes and 0.91x for the
# program (medians 7.14x, 25x, 1x)
cat > "$work/r.csv" <<'EOF'
round,mode,prog_us,rec_us,bytes,sym_us,flame_us
1,none,1000,0,0,0,0
1,deferred,1100,200,1000,150,50
1,dwarf,1200,1000,40000,3000,0
1,dwarf32k,2000,1000,80000,2800,1500
2,none,1000,0,0,0,0
2,deferred,1100,200,1000,150,50
2,dwarf,1200,1000,40000,3000,0
2,dwarf32k,2000,1000,80000,2800,1500
EOF
printf 'deferred events 3 frames 2.0\nref events 3\nequal deferred 3 of 3\ndwarf events 3\nequal dwarf 1 of 3 short 2\n' \
	> "$work/eq"
"$py" table "$work/r.csv" "$work/eq" > "$work/tab" 2>&1
check "table: 12x CPU in all against dwarf (8 KiB) met, its one symbolizer" \
	grep -q '^goal: CPU in all, perf dwarf (8 KiB) / deferred (at least 10x): met, 12.00x' "$work/tab"
check "table: 10x against dwarf,32768 met, with the cheaper symbolizer of each" \
	grep -q '^goal: CPU in all, perf dwarf,32768 / deferred (at least 10x): met, 10.00x' "$work/tab"
check "table: bytes 80x met, the program 1.8x met" sh -c \
	"grep -q '^goal: bytes, perf dwarf,32768 / deferred (at least 30x): met, 80.0x' '$work/tab' &&
	 grep -q '^goal: the traced program.s CPU, perf dwarf,32768 / deferred (above 1x): met, 1.818x' '$work/tab'"
check "table: equal stacks met, 3 of 3" grep -q "^goal: every deferred stack .*: met, 3 of 3" "$work/tab"
check "table: no goal missed, no noise" sh -c "! grep -q 'MISSED\|NOISE' '$work/tab'"

# the start-up of each, once: per call beyond it 36.7 us, 8 KiB 66.7 us, 32 KiB 466.7 us
printf '1,start-none,500,0,0,0,0\n1,start-deferred,600,100,900,50,40\n' >> "$work/r.csv"
printf '1,start-dwarf,600,1000,9000,2900,0\n1,start-dwarf32k,600,1000,9000,2500,1000\n' >> "$work/r.csv"
"$py" table "$work/r.csv" "$work/eq" > "$work/tab" 2>&1
check "table: the start-up, and CPU in all beyond it per call (36.7 us; 1.8x, 12.7x)" sh -c \
	"grep -q '^  perf dwarf,32768 *1.0 *2.5 *1.0 *9000$' '$work/tab' &&
	 grep -q 'per call of the program: deferred 36.7 us;' '$work/tab' &&
	 grep -q '^  perf / deferred: dwarf (8 KiB) 1.8x, dwarf,32768 12.7x$' '$work/tab'"

sed -i 's/^2,dwarf,1200,1000,40000,3000,0/2,dwarf,1000,300,10000,500,0/' "$work/r.csv"
sed -i 's/equal deferred 3 of 3/equal deferred 2 of 3/' "$work/eq"
"$py" table "$work/r.csv" "$work/eq" > "$work/tab" 2>&1
check "table: 8 KiB's medians 7.14x in all, 25x bytes: both MISSED" sh -c \
	"grep -q '^goal: CPU in all, perf dwarf (8 KiB) / deferred (at least 10x): MISSED, 7.14x' '$work/tab' &&
	 grep -q '^goal: bytes, perf dwarf (8 KiB) / deferred (at least 30x): MISSED, 25.0x' '$work/tab'"
check "table: a program ratio that spreads more than its effect is NOISE" \
	grep -q '^  NOISE: perf dwarf (8 KiB) program: ratio' "$work/tab"
check "table: 2 of 3 stacks equal: MISSED" \
	grep -q "^goal: every deferred stack .*: MISSED, 2 of 3" "$work/tab"
"$py" table /dev/null "$work/eq" > /dev/null 2>&1
rc=$?
check "table: no round: exit 2 ($rc)" test "$rc" = 2
finish
