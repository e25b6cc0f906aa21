#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/run.sh never runs a stale CUnit binary (one older than a file of its
# source directory): it builds it again first, or says FAIL when that fails
# or when USTACK_REBUILD=0. A missing CUnit binary or fuzz target is a FAIL
# (tests/run.sh, tests/host/fuzz.sh), never a skip. Checked on a copy of run.sh in a tree of its own,
# whose "libtracefs-ext" has a Makefile that writes a stand-in test binary.
. "$(dirname "$0")/../lib/result.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tests/lib" "$work/libtracefs-ext/src" "$work/build/libtracefs-ext/utest"
cp "$USTACK_TOP/tests/run.sh" "$work/tests/"
cp "$USTACK_TOP/tests/lib/result.sh" "$work/tests/lib/"
BIN=$work/build/libtracefs-ext/utest/libtracefs-ext-utest

# the stand-in binary says which build it is; "make utest" writes a new one,
# or fails when the source says so
cat >"$work/libtracefs-ext/Makefile" <<'EOF'
utest:
	@! grep -q broken src/a.c
	@mkdir -p $(O)/utest
	@printf '#!/bin/sh\necho "PASS: stand-in/rebuilt"\n' >$(O)/utest/libtracefs-ext-utest
	@chmod +x $(O)/utest/libtracefs-ext-utest
EOF
printf '#!/bin/sh\necho "PASS: stand-in/old"\n' >"$BIN"
chmod +x "$BIN"
echo 'int a;' >"$work/libtracefs-ext/src/a.c"
touch -d '2 minutes ago' "$BIN"

run() { USTACK_REBUILD=$1 bash "$work/tests/run.sh" -k cunit/libtracefs-ext-utest >"$work/out" 2>&1; }
# result P F: run.sh's line for the binary says P passed, F failed (the -asan
# one, which the pattern matches too, is not built here: a FAIL of its own)
result() { grep -qE "^cunit/libtracefs-ext-utest +$1 passed, $2 failed" "$work/out"; }

run 0
check "USTACK_REBUILD=0: a stale binary is a FAIL that names the newer source" \
	grep -q 'FAIL: .*libtracefs-ext-utest: stale, libtracefs-ext/src/a.c is newer' \
	"$work/build/tests/logs/cunit-libtracefs-ext-utest.log"
check "USTACK_REBUILD=0: the stale binary was not run" \
	test "$(grep -c 'stand-in/old' "$work/build/tests/logs/cunit-libtracefs-ext-utest.log")" = 0
check "USTACK_REBUILD=0: the run fails" result 0 1

echo broken >>"$work/libtracefs-ext/src/a.c"
run 1
check "a failed rebuild is a FAIL that says so, and nothing is run" \
	grep -q 'stale, libtracefs-ext/src/a.c is newer, and building it again failed' \
	"$work/build/tests/logs/cunit-libtracefs-ext-utest.log"

echo 'int a;' >"$work/libtracefs-ext/src/a.c"
run 1
check "a stale binary is built again, then run" \
	grep -q 'PASS: stand-in/rebuilt' "$work/build/tests/logs/cunit-libtracefs-ext-utest.log"
check "a stale binary built again: its result counts" result 1 0

# up to date now: run as it is, without a build
rm "$work/libtracefs-ext/Makefile"
run 1
check "an up to date binary is run as it is" result 1 0

# a missing binary is a FAIL, never a skip, and fails the run
rm "$BIN"
run 1
rc=$?
check "a missing binary is a FAIL that says it is not built" \
	grep -q 'FAIL: build/libtracefs-ext/utest/libtracefs-ext-utest: not built' \
	"$work/build/tests/logs/cunit-libtracefs-ext-utest.log"
check "a missing binary: counted as one failure, no skip" \
	grep -qE '^cunit/libtracefs-ext-utest +0 passed, 1 failed, 0 skipped' "$work/out"
check "a missing binary: the run exits 1" test "$rc" = 1

# the same for the fuzz targets (tests/host/fuzz.sh): none built here
mkdir -p "$work/tests/host"
cp "$USTACK_TOP/tests/host/fuzz.sh" "$work/tests/host/"
bash "$work/tests/host/fuzz.sh" >"$work/fuzz.out" 2>&1
rc=$?
for t in stitch decode symbolize sframe entries; do
	check "fuzz.sh: a missing fuzz-$t is a FAIL" \
		grep -q "^FAIL: fuzz $t: build/fuzz/fuzz-$t not built" "$work/fuzz.out"
done
check "fuzz.sh: missing targets fail it (exit 1)" test "$rc" = 1
finish
