#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Symbols from elsewhere than the traced paths: a debuginfod server (a local
# stand-in, tests/lib/debuginfod-stub.py, on 127.0.0.1) and a sysroot.
#
# With the library's symbolize example, on the unit tests' fixture: its
# stripped copy gets its static function's name from the server's debuginfo,
# a missing copy from the server's executable. With the trace-cmd plugin, on
# the committed trace (tests/fixtures/plugin/): its files come from the
# server, then from under ustack_sysroot. The unit tests, with the server in
# DEBUGINFOD_URLS, ask it nothing. With a server that has nothing (404),
# ustack-flame asks once per build-id of the trace, and says so. No root, no
# tracefs.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/plugin.sh"

SYMBOLIZE=$USTACK_TOP/build/libtracefs-ext/examples/symbolize
FLAME=$USTACK_TOP/build/flamegraph/ustack-flame
UT=$USTACK_TOP/build/libtracefs-ext/utest
FX=$USTACK_TOP/tests/fixtures/plugin
CHAIN="ustack_lib_syscall ustack_lib_inner ustack_lib_enter sample_middle sample_outer main"

if ! command -v python3 >/dev/null; then
	skip "debuginfod" "no python3"
	finish
fi
for f in "$SYMBOLIZE" "$FLAME" "$UT/fixture.so" "$UT/fixture-stripped.so" "$UT/fixture.debug"; do
	if [ ! -e "$f" ]; then
		fail "built" "no ${f#"$USTACK_TOP"/} (make -C libtracefs-ext utest)"
		finish
	fi
done

work=$(mktemp -d)
server=
server404=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	[ -n "$server404" ] && kill "$server404" 2>/dev/null && wait "$server404" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/srv" "$work/srv404" "$work/empty" "$work/cache"

build_id() { readelf -nW "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p'; }

# serve DEBUG [EXE]: the debuginfo and the executable (EXE, else DEBUG) of their build-id
serve() {
	local id
	id=$(build_id "$1")
	mkdir -p "$work/srv/buildid/$id"
	cp "$1" "$work/srv/buildid/$id/debuginfo"
	cp "${2:-$1}" "$work/srv/buildid/$id/executable"
}

# offset NAME: the file offset of a function of fixture.so (its PT_LOAD that holds it)
offset() {
	local vaddr type off va pa fs rest
	vaddr=$((16#$(nm "$UT/fixture.so" | awk -v n="$1" '$3 == n { print $1 }')))
	while read -r type off va pa fs rest; do
		[ "$type" = LOAD ] || continue
		if [ "$vaddr" -ge $((va)) ] && [ "$vaddr" -lt $((va + fs)) ]; then
			printf '0x%x\n' $((vaddr - va + off))
			return
		fi
	done < <(readelf -lW "$UT/fixture.so")
}

serve "$UT/fixture.debug" "$UT/fixture.so"
for f in "$FX"/*.debug; do
	serve "$f"
done
# (it stops by itself after 900 s, longer than this test takes on a busy host)
python3 "$USTACK_TOP/tests/lib/debuginfod-stub.py" "$work/srv" "$work/port" "$work/requests" \
	900 500 &
server=$!
wait_until 120 test -s "$work/port"
if [ ! -s "$work/port" ]; then
	fail "debuginfod stand-in server" "it did not start in 120 s"
	finish
fi
URL=http://127.0.0.1:$(cat "$work/port")
ID=$(build_id "$UT/fixture.so")
GAMMA=$(offset utest_gamma)
cp "$UT/fixture-stripped.so" "$work/lib.so"

# sym [ENV...] -- ARGS: the symbolize example with a fresh client cache
sym() {
	env DEBUGINFOD_CACHE_PATH="$work/cache" "$@" 2>&1
}

out=$(sym DEBUGINFOD_URLS= "$SYMBOLIZE" -d "$work/empty" -b "$ID" "$work/lib.so" $((GAMMA + 1)))
check "stripped, no server: the static function is not found" \
	test "${out%%+*}" != utest_gamma
out=$(sym DEBUGINFOD_URLS="$URL" "$SYMBOLIZE" -d "$work/empty" -b "$ID" "$work/lib.so" \
	$((GAMMA + 1)))
check "stripped: the debug file comes from the server ($out)" \
	test "$out" = "utest_gamma+0x1 ($work/lib.so)"
check "the server was asked for the debuginfo of the build-id" \
	grep -qx "/buildid/$ID/debuginfo" "$work/requests"
out=$(sym DEBUGINFOD_URLS="$URL" "$SYMBOLIZE" -d "$work/empty" "$work/lib.so" $((GAMMA + 1)))
check "no build-id given: the file's own is asked for ($out)" \
	test "$out" = "utest_gamma+0x1 ($work/lib.so)"
out=$(sym DEBUGINFOD_URLS="$URL" "$SYMBOLIZE" -d "$work/empty" -b "$ID" "$work/gone/lib.so" \
	$((GAMMA + 2)))
check "file gone: the server's executable stands in ($out)" \
	test "$out" = "utest_gamma+0x2 ($work/gone/lib.so)"
id2=${ID:0:38}00
[ "$id2" = "$ID" ] && id2=${ID:0:38}11
out=$(sym DEBUGINFOD_URLS="$URL" "$SYMBOLIZE" -d "$work/empty" -b "$id2" "$work/gone/lib.so" \
	$((GAMMA + 2)))
check "a build-id the server does not have: unresolved ($out)" \
	test "$out" = "[unknown] ($work/gone/lib.so+$(printf '0x%x' $((GAMMA + 2))))"

# -- the unit tests look up build-ids nobody has: never from a server of the caller's
before=$(wc -l < "$work/requests")
sym DEBUGINFOD_URLS="$URL" "$UT/libtracefs-ext-utest" > "$work/utest.out"
after=$(wc -l < "$work/requests")
check "the unit tests ask no server of DEBUGINFOD_URLS ($((after - before)) requests)" \
	test "$after" = "$before"

# -- a server that has nothing: one request per build-id, whichever search asks
python3 "$USTACK_TOP/tests/lib/debuginfod-stub.py" "$work/srv404" "$work/port404" \
	"$work/requests404" 900 500 &
server404=$!
wait_until 120 test -s "$work/port404"
URL404=http://127.0.0.1:$(cat "$work/port404")
: > "$work/requests404"
# flame404 N: ustack-flame -v on the committed trace, none of its files here, a fresh cache
flame404() {
	DEBUGINFOD_URLS="$URL404" DEBUGINFOD_CACHE_PATH="$work/cache404.$1" \
		"$FLAME" -v -s "$work/empty" -i "$FX/sample.dat" > "$work/flame404.$1" \
		2> "$work/flame404.$1.err"
}
flame404 1
asked=$(wc -l < "$work/requests404")
ids=$(sed -n 's|^/buildid/\([0-9a-f]*\)/.*|\1|p' "$work/requests404" | sort -u | wc -l)
check "404 server: one request per build-id ($asked requests, $ids build-ids)" \
	test "$ids" -ge 2 -a "$asked" = "$ids"
said=$(grep -c "fetching .* from debuginfod" "$work/flame404.1.err")
check "404 server: -v says each request once ($said lines)" test "$said" = "$asked"
check "404 server: the stacks are still written" test -s "$work/flame404.1"
# the misses are the symbolizer's: the next run asks again
flame404 2
again=$(wc -l < "$work/requests404")
check "404 server: a new symbolizer asks again ($((again - asked)) requests)" \
	test "$((again - asked))" = "$asked"
quiet=$(DEBUGINFOD_URLS="$URL404" DEBUGINFOD_CACHE_PATH="$work/cache404.3" \
	"$FLAME" -s "$work/empty" -i "$FX/sample.dat" 2>&1 >/dev/null)
check "404 server: without -v and no terminal, nothing said ($quiet)" test -z "$quiet"

# -- the plugin: the trace's files are not here; the server has them
plugin_require "plugin with debuginfod" trace-cmd
if [ -e /tmp/ustack-fixture ]; then
	skip "plugin with debuginfod" "/tmp/ustack-fixture exists here: the test needs it absent"
	finish
fi
report() { TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR trace-cmd report "$@" 2>"$work/stderr"; }

# chains FILE: the first 6 frame names of every event's stack, one stack a line
chains() {
	awk '/^ => / { if (n++ < 6) st = st " " $2; next }
	     { if (st != "") print substr(st, 2); st = ""; n = 0 }
	     END { if (st != "") print substr(st, 2) }' "$1" | sed 's/+0x[0-9a-f]*//g'
}

DEBUGINFOD_URLS="$URL" DEBUGINFOD_CACHE_PATH="$work/cache2" report -i "$FX/sample.dat" \
	> "$work/remote"
n=$(chains "$work/remote" | grep -cx "$CHAIN")
check "trace-cmd report: the 4 stacks symbolized from the server ($n)" test "$n" = 4

# -- the same files under a sysroot, as the trace names them
root=$work/root
# "id=N path=P" as the kernel prints it, the build-id on the line under it
report -O ustack_raw -O ustack_nosym -i "$FX/sample.dat" |
	awk '/user_unwind_file: *id=[0-9]* path=/ {
		sub(/.*user_unwind_file: *id=[0-9]* path=/, ""); path = $0; next
	     }
	     path != "" && /^ build_id=[0-9a-f]+$/ { print substr($0, 11), path }
	     { path = "" }' |
	sort -u > "$work/files"
n=0
while read -r id path; do
	[ -e "$FX/$id.debug" ] || continue
	mkdir -p "$root$(dirname "$path")"
	cp "$FX/$id.debug" "$root$path"
	n=$((n + 1))
done < "$work/files"
check "the trace's 2 files of the fixture are under the sysroot" test "$n" = 2
report -O ustack_sysroot="$root" -i "$FX/sample.dat" > "$work/sysroot"
n=$(chains "$work/sysroot" | grep -cx "$CHAIN")
check "ustack_sysroot: the 4 stacks symbolized from under it ($n)" test "$n" = 4
finish
