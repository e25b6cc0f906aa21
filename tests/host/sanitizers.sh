#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check runs the unit tests a second time under ASan and UBSan, and the
# libFuzzer targets with both: checks that those binaries, as built, really
# are instrumented (a build that lost its -fsanitize flags would still pass
# every test, silently). For each ASan/UBSan CUnit binary of tests/run.sh:
# the ASan and UBSan runtimes are linked, and every object of the library it
# tests calls ASan's checks. For each fuzz target: the runtimes and
# libFuzzer's entry point; and every object of the libraries the targets
# link. A binary that is not built is a FAIL.
. "$(dirname "$0")/../lib/result.sh"

B=$USTACK_TOP/build

if ! command -v nm >/dev/null; then
	fail "sanitizers" "no nm (binutils)"
	finish
fi

# has BIN PATTERN: nm of BIN lists a symbol matching PATTERN (defined or not)
has() { nm "$1" 2>/dev/null | grep -qE " ($2)\$"; }

# uninstrumented ARCHIVE: the objects of ARCHIVE that call no ASan check
uninstrumented() {
	local o
	for o in $(ar t "$1"); do
		nm "$1" "$o" 2>/dev/null | grep -qE ' U __asan_(report|load|store)' || echo "$o"
	done
}

# archive NAME ARCHIVE: every object of ARCHIVE calls ASan's checks
archive() {
	local bad

	if [ ! -r "$2" ]; then
		fail "$1: $(basename "$2") built" "${2#"$USTACK_TOP"/} not built"
		return
	fi
	bad=$(uninstrumented "$2" | tr '\n' ' ')
	if [ -z "$bad" ]; then
		pass "$1: every object of $(basename "$2") under ASan"
	else
		fail "$1: every object of $(basename "$2") under ASan" "not instrumented: $bad"
	fi
}

# sanitized NAME BIN: BIN exists and links the ASan and UBSan runtimes
sanitized() {
	if [ ! -x "$2" ]; then
		fail "$1: built" "${2#"$USTACK_TOP"/} not built (make check builds it)"
		return 1
	fi
	check "$1: ASan" has "$2" '__asan_init'
	check "$1: UBSan" has "$2" '__ubsan_handle_[a-z_0-9]+'
}

for entry in "libtracefs-ext-utest-asan libtracefs-ext-asan/utest/libtracefs-ext-utest \
		libtracefs-ext-asan/libtracefs-ext.a" \
	     "sframe-utest-asan sframe-asan/utest/usf-utest sframe-asan/libusf.a"; do
	read -r name bin lib <<<"$entry"
	sanitized "$name" "$B/$bin" && archive "$name" "$B/$lib"
done

for t in stitch decode symbolize sframe entries; do
	sanitized "fuzz-$t" "$B/fuzz/fuzz-$t" || continue
	check "fuzz-$t: libFuzzer" has "$B/fuzz/fuzz-$t" 'LLVMFuzzerTestOneInput'
done
# the libraries the targets link, built by tests/fuzz/Makefile with the same flags
for lib in lib/libtracefs-ext.a usf/libusf.a plugin/plugin_ustack.a; do
	archive "fuzz" "$B/fuzz/$lib"
done
finish
