# SPDX-License-Identifier: GPL-2.0
# Host-side helpers for the flame graph tests (tests/host/flame-*.sh).
# Sourced after result.sh.

FLAME_O=${USTACK_FLAME_O:-$USTACK_TOP/build/flamegraph}
FLAME=$FLAME_O/ustack-flame
FLAME_FX=$USTACK_TOP/tests/fixtures/flame

# flame_require NAME: end the test file unless ustack-flame is built and up
# to date: built again first as make does (USTACK_REBUILD=0: not built, a
# FAIL when missing).
flame_require() {
	local name=$1 log

	if [ "${USTACK_REBUILD:-1}" != 0 ]; then
		log=$(make --no-print-directory -s -C "$USTACK_TOP/flamegraph" O="$FLAME_O" \
			LIBEXT_O="$USTACK_TOP/build/libtracefs-ext" 2>&1) ||
			{ fail "$name" "building ustack-flame failed: $(echo "$log" | tail -n 3)"; finish; }
	fi
	if [ ! -x "$FLAME" ]; then
		fail "$name" "no $FLAME (make flamegraph)"
		finish
	fi
}

# flame_setup DIR: DIR/debug, the fixture's binaries where the symbolizer
# finds them by build-id, and DIR/root, an empty sysroot: no path of the
# trace resolves on this machine (its libc is not the traced one).
flame_setup() {
	local dir=$1 f b

	mkdir -p "$dir/root"
	for f in "$FLAME_FX"/*.debug; do
		b=$(basename "$f" .debug)
		mkdir -p "$dir/debug/.build-id/${b:0:2}"
		cp "$f" "$dir/debug/.build-id/${b:0:2}/${b:2}.debug"
	done
}

# flame ARGS...: ustack-flame with the fixture's debug files and sysroot
flame() { "$FLAME" -d "$work/debug" -s "$work/root" "$@"; }

# same NAME EXPECTED-FILE ACTUAL-FILE: PASS when the files are equal, else
# FAIL with their first difference
same() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "$(diff "$2" "$3" | head -n 6 | cat -v | tr '\n' '|')"
	fi
}
