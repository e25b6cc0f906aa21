#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The user_unwind_cookie, _stack and _file entries print in trace-cmd report
# with the plugin as stock report prints them without it (the kernel's print
# formats: "cookie=300000001", "cookie=... next=... nr=7 flags=0", "id=1
# path=..."): each entry's line, field for field, on the committed trace
# (tests/fixtures/plugin/) and on kstack.dat (tests/fixtures/flame/), by
# default and with ustack_raw and ustack_nosym. The plugin adds only lines
# under them: the frames of a stack entry and the build-id of a file entry,
# with ustack_raw.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/plugin.sh"

FX=$USTACK_TOP/tests/fixtures

plugin_require "entries as without the plugin" trace-cmd

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# entries FILE: the lines of the user_unwind_* entries in report's output FILE
entries() { grep -E '^ *[^ ].* user_unwind_(cookie|stack|file): ' "$1"; }

# same_fields STOCK PLUGIN: the two files' entry lines, word for word; says
# the first line and word that differ
same_fields() {
	awk 'NR == FNR { want[FNR] = $0; n = FNR; next }
	     { got[FNR] = $0; m = FNR }
	     END {
		if (n != m) { printf "%d entries without the plugin, %d with\n", n, m; exit 1 }
		if (n == 0) { print "no entries"; exit 1 }
		for (i = 1; i <= n; i++) {
			a = split(want[i], w); b = split(got[i], g)
			for (j = 1; j <= (a > b ? a : b); j++)
				if (w[j] != g[j]) {
					printf "entry %d, field %d: \"%s\" without the plugin, \"%s\" with\n",
						i, j, w[j], g[j]
					exit 1
				}
		}
	     }' <(entries "$1") <(entries "$2")
}

for dat in plugin/sample.dat flame/kstack.dat; do
	trace-cmd report -N -i "$FX/$dat" > "$work/stock" 2>/dev/null
	for opts in "" "-O ustack_raw" "-O ustack_nosym" "-O ustack_raw -O ustack_nosym"; do
		# shellcheck disable=SC2086
		TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd report $opts -i "$FX/$dat" \
			> "$work/out" 2>/dev/null
		check "$dat${opts:+, $opts}: the entries' lines as without the plugin" \
			same_fields "$work/stock" "$work/out"
	done
done

# what the plugin adds is under the entries, on lines of its own
dat=$FX/plugin/sample.dat
TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd report -O ustack_raw -O ustack_nosym -i "$dat" \
	> "$work/raw" 2>/dev/null
check "ustack_raw: the stack entry's frames under it" \
	test "$(grep -m1 -A1 'user_unwind_stack:' "$work/raw" | tail -n 1)" = \
	" => /tmp/ustack-fixture/libustack-sample.so+0x112b"
check "ustack_raw: a file entry's build-id under it" \
	test "$(grep -m1 -A1 'user_unwind_file: *id=1 ' "$work/raw" | tail -n 1)" = \
	" build_id=19282b158c3349811583cc55f135e47fb69d95b4"
TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd report -O ustack_nosym -i "$dat" \
	> "$work/plain" 2>/dev/null
check "default: nothing under the entries" \
	test "$(grep -A1 'user_unwind_' "$work/plain" | grep -cE '^ (=>|build_id)')" = 0
finish
