#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-sframe load --mapped: which files make a system-wide table, and in
# which order (load --dry-run: nothing converted, no tracefs opened), on
# this test's own process. A process maps two copies of a library: one
# others may write, one another user owns (as root; else it is this
# user's). Both are skipped with a line naming the reason and counted,
# also in a real load into a fake tracefs directory; a copy root owns and
# keeps to itself is taken. The system's files come before every mapped
# one. A file named on the command line is taken first, with a warning
# when it is not trusted. Without CAP_SYS_ADMIN, /proc/PID/map_files
# cannot be opened: the mapped files are counted as not opened, never
# read by their path. Never touches the host's tracefs; needs no root
# (as root, it also runs the unprivileged part as nobody).
. "$(dirname "$0")/../lib/result.sh"

. "$(dirname "$0")/../lib/sframe-tool.sh"
lib=$O/utest/fixture-lib.so
pid=

cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$work"
}
sf_built "$tool" "$lib"

# the copies: in $TMPDIR, or under build/ when that cannot map a program
for top in "${TMPDIR:-/tmp}" "$USTACK_TOP/build/tests"; do
	work=$(mktemp -d "$top/sframe-tool-load.XXXXXX") || continue
	trap cleanup EXIT
	cp "$lib" "$work/libothers.so"
	chmod 666 "$work/libothers.so"
	cp "$lib" "$work/libuser.so"
	chmod 644 "$work/libuser.so"
	cp "$lib" "$work/libroot.so"
	chmod 644 "$work/libroot.so"
	if [ "$(id -u)" = 0 ]; then
		chown 65534:65534 "$work/libuser.so"
		copies="$work/libothers.so:$work/libuser.so:$work/libroot.so"
	else
		copies="$work/libothers.so:$work/libuser.so"
	fi
	LD_PRELOAD=$copies sleep 300 &
	pid=$!
	if wait_until 10 grep -q "$work/libuser.so" "/proc/$pid/maps"; then
		break
	fi
	kill $pid
	pid=
	rm -rf "$work"
done
if [ -z "$pid" ]; then
	fail "a process mapping the copies" "LD_PRELOAD of a copy of fixture-lib.so failed"
	finish
fi
mapfile=/proc/$pid/map_files
export USTACK_TRACEFS=$work/no-tracefs

# dry RUN-AS OUT: load --mapped --system --dry-run, as it is or as nobody
dry() {
	local rc
	if [ "$1" = nobody ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$tool" load --mapped --system --dry-run >"$2" 2>&1
	else
		"$tool" load --mapped --system --dry-run >"$2" 2>&1
	fi
	rc=$?
	local as=
	[ "$1" = nobody ] && as=" as nobody"
	check "load --mapped --system --dry-run$as: exit $rc: $(tail -n 1 "$2")" test $rc = 0
}
# line OUT PATTERN: the number of the first line matching PATTERN, or 0
line() { grep -n -m 1 -E "$2" "$1" | cut -d: -f1 | grep . || echo 0; }
# order OUT: every system file before the first mapped one, 100 or more
order() {
	local last first n
	n=$(grep -c ': would load (system)$' "$1")
	last=$(grep -n ': would load (system)$' "$1" | tail -n 1 | cut -d: -f1)
	first=$(line "$1" ': would load \(mapped by pid [0-9]+\)$')
	if [ "$n" -ge 100 ] && { [ "$first" = 0 ] || [ "$first" -gt "$last" ]; }; then
		pass "$2: the $n system files come first (last at line $last, first mapped at $first)"
	else
		fail "$2: the system files come first" "$n system files, last at $last, first mapped at $first"
	fi
}

if [ -r "$mapfile" ] && ls "$mapfile" >/dev/null 2>&1 &&
   [ -r "$mapfile/$(grep -m 1 "$work/libuser.so" "/proc/$pid/maps" | cut -d' ' -f1)" ]; then
	out=$work/dry
	dry self "$out"
	order "$out" "dry run"
	check "libothers.so: skipped, writable by others" \
		grep -qE "^$work/libothers.so: skipped \(mapped by pid $pid\): not trusted: writable by others" "$out"
	check "libuser.so: skipped, another user's" \
		grep -qE "^$work/libuser.so: skipped \(mapped by pid $pid\): not trusted: owned by uid 65534, not root" "$out"
	check "libroot.so: taken, root's and only root may write it" \
		grep -qx "$work/libroot.so: would load (mapped by pid $pid)" "$out"
	check "neither copy others may write is taken" \
		bash -c '! grep -qE "lib(others|user).so: would" "$0"' "$out"
	check "the summary counts them: $(grep '^skipped:' "$out")" \
		grep -qE '^skipped: ([2-9]|[0-9]{2,}) files not trusted for a system-wide table' "$out"
	check "a dry run opens no tracefs" test ! -e "$USTACK_TRACEFS"

	# a real load, into a fake tracefs: the same choice
	mkdir -p "$work/tracefs/user_unwind_tables"
	: >"$work/tracefs/user_unwind_tables/load"
	USTACK_TRACEFS=$work/tracefs "$tool" load --mapped >"$work/load" 2>&1
	rc=$?
	check "load --mapped into a fake tracefs: exit $rc: $(tail -n 1 "$work/load")" test $rc = 0
	check "load --mapped: libroot.so loaded" grep -q "^$work/libroot.so: loaded table" "$work/load"
	check "load --mapped: neither other copy loaded, both skipped" \
		bash -c '! grep -qE "lib(others|user).so: loaded" "$0" &&
			 [ "$(grep -cE "lib(others|user).so: skipped" "$0")" = 2 ]' "$work/load"

	# named: taken first, with a warning
	"$tool" load --dry-run --mapped "$work/libothers.so" >"$work/named" 2>&1
	check "named on the command line: taken first ($(head -n 1 "$work/named"))" \
		bash -c 'grep -q "^$1/libothers.so: not trusted (writable by others.*), loaded because it is named" "$0" &&
			 [ "$(grep -m 1 ": would load" "$0")" = "$1/libothers.so: would load (named)" ]' \
		"$work/named" "$work"
else
	skip "the trust of mapped files" "/proc/$pid/map_files cannot be opened (needs CAP_SYS_ADMIN)"
	dry self "$work/dry-self"
fi

# without CAP_SYS_ADMIN: mapped files are not opened by their names
if [ "$(id -u)" = 0 ]; then
	out=$work/dry-nobody
	dry nobody "$out"
else
	out=$work/dry-self
fi
order "$out" "unprivileged dry run"
if grep -q '^skipped: 0 files not trusted for a system-wide table, 0 mappings' "$out"; then
	pass "unprivileged: no mapped file of its own to open"
else
	check "unprivileged: map_files refused, said once: $(grep -m 1 'map_files' "$out")" \
		bash -c '[ "$(grep -c "map_files.*Operation not permitted (it needs CAP_SYS_ADMIN)" "$0")" = 1 ] &&
			 grep -qE "^skipped: [0-9]+ files not trusted .*, [1-9][0-9]* mappings that could not be opened" "$0"' \
		"$out"
fi
check "unprivileged: no copy taken" bash -c '! grep -qE "lib(others|user|root).so: would" "$0"' "$out"
finish
