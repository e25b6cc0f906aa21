#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every ustack test and print one closing line:
#   N passed, N failed, N skipped
# Exit status 1 when anything failed.
#
#   tests/run.sh [-k PATTERN]    only test files whose name contains PATTERN
#
# Host tests: tests/host/*.sh and the CUnit binaries listed in cunit_bins
# below (a missing one is a FAIL, never a silent skip). A binary older than
# a file of its source directory (not its documentation) is stale: it is built
# again first, with the make command "make check" builds it with
# (USTACK_REBUILD=0: not built, a FAIL instead); a stale one is never run.
# Guest tests: tests/guest/*.sh, each booted in its own guest by
# scripts/guest-run.sh (on the debug kernel too when the file says
# "# kernels: normal debug" and USTACK_DEBUG=1, i.e. make check DEBUG=1;
# debug timeouts are 5 times longer; "# icount: OPTIONS" boots it under
# QEMU -icount OPTIONS, where the guest's clock counts its instructions and
# does not grow while the host starves it; "# serve: yes" boots it with the
# tables service started by the guest's init, scripts/guest-run.sh --serve).
# Tests print PASS:/FAIL:/SKIP: lines
# (tests/lib/result.sh); a script that fails without saying what, or whose
# guest shows a kernel report, hangs or does not boot, counts as one FAIL.
# Each file's line ends with its exit status and how long it took (of its
# timeout, for a guest test): the margin a busy host eats into.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
logs=$top/build/tests/logs
mkdir -p "$logs"
pattern=
[ "${1:-}" = -k ] && pattern=$2

passed=0 failed=0 skipped=0
failures=()
started=$SECONDS	# of the test file being counted
limit=		# its guest timeout, if any

count() {	# count FILE-LABEL LOG EXIT-STATUS
	local label=$1 log=$2 rc=$3 line np=0 nf=0
	while IFS= read -r line; do
		case "$line" in
		PASS:*) passed=$((passed + 1)); np=$((np + 1)) ;;
		FAIL:*) failed=$((failed + 1)); nf=$((nf + 1)); failures+=("$label: ${line#FAIL: }") ;;
		SKIP:*) skipped=$((skipped + 1)) ;;
		esac
	done < <(grep -E '^(PASS|FAIL|SKIP):' "$log")
	if [ "$rc" != 0 ] && [ $nf = 0 ]; then
		case $rc in
		124) why="guest hung" ;;
		125) why="kernel report on the console" ;;
		126) why="guest did not start" ;;
		*) why="exited $rc" ;;
		esac
		failed=$((failed + 1))
		failures+=("$label: $why (log: ${log#$top/})")
	elif [ "$rc" = 0 ] && [ $((np + nf)) = 0 ] && ! grep -q '^SKIP:' "$log"; then
		failed=$((failed + 1))
		failures+=("$label: printed no result (log: ${log#$top/})")
	fi
	printf '%-40s %s\n' "$label" "$(grep -cE '^PASS:' "$log") passed, $(grep -cE '^FAIL:' "$log") failed, $(grep -cE '^SKIP:' "$log") skipped (exit $rc, $((SECONDS - started)) s${limit:+ of $limit})"
	grep -E '^(FAIL|SKIP):' "$log" | sed 's/^/    /'
}

want() { [ -z "$pattern" ] || [[ "$1" == *"$pattern"* ]]; }

# CUnit binaries print their own summary; turn its "tests" row into lines.
run_cunit() {
	local bin=$1 log=$2 rc
	"$bin" >"$log.raw" 2>&1
	rc=$?
	cp "$log.raw" "$log"
	# one line per test from the CUnit runner (libtracefs-ext/utest/utest-main.c)
	grep -qE '^(PASS|FAIL|SKIP):' "$log.raw" || {
		echo "FAIL: $(basename "$bin"): no per-test results" >>"$log"
	}
	return $rc
}

# ---- host tests ----
for t in "$top"/tests/host/*.sh; do
	[ -e "$t" ] || continue
	name=host/$(basename "$t" .sh)
	want "$name" || continue
	log=$logs/${name//\//-}.log
	started=$SECONDS
	bash "$t" >"$log" 2>&1
	count "$name" "$log" $?
done
# The CUnit binaries make check builds: "name path sources [make variables]"
# (the libtracefs-ext and sframe tests as built, and again under ASan and
# UBSan); each is built by "make -C sources O=<its build dir> [variables] utest".
cunit_bins=(
	"libtracefs-ext-utest build/libtracefs-ext/utest/libtracefs-ext-utest libtracefs-ext"
	"libtracefs-ext-utest-asan build/libtracefs-ext-asan/utest/libtracefs-ext-utest libtracefs-ext SANITIZE=address,undefined"
	"sframe-utest build/sframe/utest/usf-utest sframe"
	"sframe-utest-asan build/sframe-asan/utest/usf-utest sframe SANITIZE=address,undefined"
)

# newer_source BIN DIR: the first file of DIR newer than BIN, if any (not
# counting the documentation, which the binary is not built from)
newer_source() {
	find "$2" -type f -newer "$1" ! -path '*/Documentation/*' ! -name README ! -name '*.md' \
		-print -quit 2>/dev/null
}

# fresh_cunit BIN SOURCES LOG [VARIABLES]: 0 when BIN is at least as new as
# every file of SOURCES, built again if need be; else a FAIL line in LOG.
fresh_cunit() {
	local bin=$1 src=$top/$2 log=$3 newer
	shift 3

	newer=$(newer_source "$bin" "$src")
	[ -z "$newer" ] && return 0
	if [ "${USTACK_REBUILD:-1}" = 0 ]; then
		echo "FAIL: ${bin#"$top"/}: stale, ${newer#"$top"/} is newer (make check builds it again; USTACK_REBUILD=0 said not to)" >"$log"
		return 1
	fi
	echo "${bin#"$top"/}: stale (${newer#"$top"/} is newer), building it again" >&2
	if ! make --no-print-directory -C "$src" O="$(dirname "$(dirname "$bin")")" "$@" utest \
		>"$log.build" 2>&1; then
		echo "FAIL: ${bin#"$top"/}: stale, ${newer#"$top"/} is newer, and building it again failed (log: ${log#"$top"/}.build)" >"$log"
		return 1
	fi
	# make knows what the binary is built from: a file it does not need may stay newer
	return 0
}

for entry in "${cunit_bins[@]}"; do
	read -r name path src vars <<<"$entry"
	name=cunit/$name
	t=$top/$path
	want "$name" || continue
	log=$logs/${name//\//-}.log
	started=$SECONDS
	if [ ! -x "$t" ] || [ ! -f "$t" ]; then
		echo "FAIL: ${t#"$top"/}: not built (make check builds it)" >"$log"
		count "$name" "$log" 0
		continue
	fi
	# shellcheck disable=SC2086 # the make variables are words
	if ! fresh_cunit "$t" "$src" "$log" $vars; then
		count "$name" "$log" 0
		continue
	fi
	run_cunit "$t" "$log"
	count "$name" "$log" $?
done

# ---- guest tests ----
for t in "$top"/tests/guest/*.sh; do
	[ -e "$t" ] || continue
	kernels=$(sed -n 's/^# kernels: *//p' "$t")
	for k in ${kernels:-normal}; do
		name=guest/$(basename "$t" .sh)
		opt=
		if [ "$k" = debug ]; then
			name=$name@debug
			opt=--debug
		fi
		want "$name" || continue
		log=$logs/${name//\//-}.log
		started=$SECONDS
		limit=
		if [ "$k" = debug ] && [ "${USTACK_DEBUG:-0}" != 1 ]; then
			echo "SKIP: $name: debug kernel tests run with 'make check DEBUG=1' (KASAN+lockdep under TCG: each test runs ~10x slower)" >"$log"
			count "$name" "$log" 0
			continue
		fi
		if [ "$k" = debug ] && [ ! -r "$top/build/kernel-debug/arch/x86/boot/bzImage" ]; then
			echo "FAIL: $name: debug kernel not built (make kernel-debug)" >"$log"
			count "$name" "$log" 0
			continue
		fi
		tmo=$(sed -n 's/^# timeout: *//p' "$t")
		tmo=${tmo:-300}
		[ "$k" = debug ] && tmo=$((tmo * 5))
		limit=$tmo
		# "# icount: OPTIONS": booted under QEMU's instruction counting,
		# for a test that checks a duration of the guest's clock
		icount=$(sed -n 's/^# icount: *//p' "$t")
		# "# serve: yes": the tables service runs from boot on
		[ "$(sed -n 's/^# serve: *//p' "$t")" = yes ] && opt="$opt --serve"
		USTACK_ICOUNT=$icount "$top/scripts/guest-run.sh" $opt --timeout "$tmo" -- bash "$t" \
			>"$log" 2>&1
		count "$name" "$log" $?
		limit=
	done
done

echo
if [ ${#failures[@]} -gt 0 ]; then
	echo "Failures:"
	printf '  %s\n' "${failures[@]}"
	echo
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
