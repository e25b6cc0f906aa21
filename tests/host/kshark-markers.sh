#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The KernelShark plugin reads markers A and B from KernelShark's toolbar
# (KernelShark 2.2.1 gives plugins no way to them): exactly, from the labels
# as KernelShark writes them ("sec.mmm uuu"), and when it cannot read them
# (a label that holds no such time, a toolbar without the "Marker A"/"Marker
# B" buttons, as a translated one) it says why, and the stacks dialog shows
# it and does not offer the range between the markers
# (kernelshark-plugin/tests/kshark-markers-test.cpp, offscreen). That the
# real KernelShark's toolbar is read is checked by kshark-gui.sh.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/kshark.sh"

name="kshark markers"
if [ ! -e /usr/lib/x86_64-linux-gnu/libkshark.so.2 ]; then
	skip "$name" "libkshark2 is not installed (scripts/deps.sh installs it)"
	finish
fi
if [ ! -x "$KS_DIR/kshark-markers-test" ]; then
	fail "$name" "not built (make kernelshark-plugin): no $KS_DIR/kshark-markers-test"
	finish
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! QT_QPA_PLATFORM=offscreen "$KS_DIR/kshark-markers-test" > "$work/out" 2> "$work/err"; then
	fail "$name" "kshark-markers-test failed: $(tail -n 3 "$work/err" | tr '\n' ' ')"
	finish
fi

# is CASE LINE: the test's line of CASE is CASE|LINE
is() {
	local got

	got=$(grep -m1 "^$1|" "$work/out")
	[ "$got" = "$1|$2" ] || { echo "got '$got'"; return 1; }
}
check "both set: their times in ns, read exactly" is "set" "3785008000|3791639000|"
check "B before A: A is the earlier" is "reversed" "3785008000|3791639000|"
check "only A set" is "a only" "12000001000|-|"
check "none set: no problem" is "not set" "-|-|"
check "a label that is no time (1e5): said, none set" \
	is "no time" '-|-|Marker A shows "1e5", not a time as "sec.mmm uuu"'
check "a label that is no time (3,785 008): said, none set" \
	is "bad b" '-|-|Marker B shows "3,785 008", not a time as "sec.mmm uuu"'
check "no \"Marker A\" button (translated): said, none set" \
	grep -q "^translated|-|-|KernelShark's toolbar has no \"Marker A\" button" "$work/out"
check "no main window: said" is "no window" "-|-|KernelShark's main window is not known"
said='Markers A and B cannot be used: Marker A shows "1e5", not a time as "sec.mmm uuu"'
check "the dialog says why, the range between the markers not offered" \
	is "dialog" "$said|disabled"
finish
