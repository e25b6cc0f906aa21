#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The KernelShark plugin's data interface, without X: libkshark opens a trace
# with two buffers (the committed fixture's stacks, and an instance without
# stack entries) and the fixture itself, as KernelShark does, registers the
# plugin by path and initializes it on every stream; the Info of the getppid
# events must carry their exact symbolized chains, or why their stacks were
# lost; other events as without the plugin; and as before once it is closed
# (kernelshark-plugin/tests/kshark-data-test.c); the two buffers have a
# kernel stack entry after each event (trace-cmd record -T), whose Info
# stays as without the plugin; in the fixture with its cookie entries cut
# too short for their common_pid, the events after them say their stack is
# not known (none is copied); in the fixture repeated 2,000 times, the runs
# taking turns on two CPUs (each run's last stack entry on the next CPU),
# the Info of the first rows stitches the first records only, that of the
# last rows the whole trace, every Info is the same asked the other way
# round, and every getppid event has its chain. In the fixture with a
# func_repeats entry (ftrace's, without a cookie) after each event and stack
# entry of its task, those entries' Info stays as without the plugin and
# every getppid event keeps its chain, also one after the task work's cookie
# entry again, past such an entry that followed the cookie's stack entry.
# Then the same under valgrind: no error, nothing of the plugin leaked.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/kshark.sh"

KS_KSTACKS=1
kshark_setup "kshark data interface"
python3 "$USTACK_TOP/tests/fixtures/make-buffers-fixture.py" "$work/v6.dat" "$work/cut.dat" \
	--top cut || fail "kshark data interface" "could not make the fixture with cut cookie entries"
python3 "$USTACK_TOP/tests/fixtures/make-buffers-fixture.py" "$work/v6.dat" "$work/long.dat" \
	--repeat 2000 --turns || fail "kshark data interface" "could not make the repeated fixture"
# The fixture with a func_repeats entry of the task after each of its events
# and stack entries, an ftrace entry that carries no cookie, and after the
# first stack entry, which gives the task its next cookie, the task work's
# cookie entry again and an event of it: that event still has the stack of
# that cookie (tests/fixtures/make-repeats-fixture.py).
python3 "$USTACK_TOP/tests/fixtures/make-repeats-fixture.py" "$work/v6.dat" "$work/repeats.dat" ||
	fail "kshark data interface" "could not make the func_repeats fixture"
"$KS_DIR/kshark-data-test" "$KS_PLUGIN" "$work/multi.dat" "$KS_SAMPLE" "$work/cut.dat" \
	"$work/long.dat" "$work/repeats.dat" 2>"$work/stderr"
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "kshark-data-test" "exited $rc: $(tail -n 3 "$work/stderr")"

if ! command -v valgrind >/dev/null; then
	skip "kshark data interface under valgrind" "no valgrind"
else
	# libkshark 2.2.1 leaks its stream names itself: only the plugin's leaks count
	valgrind --error-exitcode=9 --leak-check=full --show-leak-kinds=definite \
		--errors-for-leak-kinds=none \
		--num-callers=30 "$KS_DIR/kshark-data-test" "$KS_PLUGIN" \
		"$work/multi.dat" "$KS_SAMPLE" "$work/cut.dat" "$work/long.dat" \
		"$work/repeats.dat" >"$work/vg.out" \
		2>"$work/vg.err"
	rc=$?
	leaks=$(awk '/definitely lost in loss record/ { rec = 1; plugin = 0; next }
		     rec && /plugin-ustack|ksu_|ustack_/ { plugin = 1 }
		     rec && /^==[0-9]+== $/ { if (plugin) n++; rec = 0 }
		     END { print n + 0 }' "$work/vg.err")
	if [ $rc = 0 ] && [ "$leaks" = 0 ] && ! grep -q '^FAIL:' "$work/vg.out"; then
		pass "kshark data interface under valgrind: no error, no leak of the plugin"
	else
		fail "kshark data interface under valgrind" \
			"exit $rc, $leaks leaks of the plugin; $(grep -m3 -E 'Invalid|uninitialised' "$work/vg.err" | tr '\n' ' ')"
	fi
fi
finish
