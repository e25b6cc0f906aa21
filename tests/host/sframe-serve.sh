#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-sframe serve (issue 39), without the kernel: event lines as
# trace_pipe gives them (--events FILE) name processes of this test, a
# fake tracefs directory takes the loads. Checked: the process of an event
# (a COMM with dashes, spaces and brackets) gets its mapped files loaded,
# opened through map_files; a copy another user owns and one others may
# write are skipped, never converted; the second run converts nothing
# (the cache); entries of the cache that are not the service's (a mode
# others may write, a symbolic link, another owner, a cut table, one
# file's table under another's name) are refused, removed and converted
# again; a cache directory others can enter, or a readable key, is not
# used; the cache stays under its bound. When list's count of tables
# drops between two batches (root removed tables), the batch's process
# gets its files back (their cache names kept, not hashed again) before
# the rescan of every process (which converts
# the host's mapped files into the test's cache: a few seconds); a process
# started while that rescan is under way (the loads made slow: load is a
# FIFO the test reads) gets its table after one process of the rescan at
# most, not after the whole of it, even between two files of the scan of
# another process, and the rescan then ends. An mmap
# event's process is scanned again 10 ms after its last mmap event (its
# mapping may not be there yet at sys_enter), however often another
# process maps, an mprotect's (RELRO) is not. A process
# scanned again opens no file seen (maps' device and inode), but one whose
# change time changed (the same device and inode, another file) is loaded
# again. A program
# built without -pie (mapped at 0x400000: maps pads its addresses with
# zeros, map_files does not) gets its table. Root only (map_files, chown).
. "$(dirname "$0")/../lib/result.sh"

. "$(dirname "$0")/../lib/sframe-tool.sh"
lib=$O/utest/fixture-lib.so
pid=
work=

cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	[ -n "$work" ] && rm -rf "$work"
}
sf_built "$tool" "$lib"
if [ "$(id -u)" != 0 ]; then
	skip "ustack-sframe serve" "needs root (map_files, files of other owners)"
	finish
fi
work=$(mktemp -d "$USTACK_TOP/build/tests/sframe-serve.XXXXXX") || exit 1
trap cleanup EXIT
cp "$lib" "$work/libroot.so"
chmod 644 "$work/libroot.so"
cp "$lib" "$work/libuser.so"
chown 65534:65534 "$work/libuser.so"
cp "$lib" "$work/libothers.so"
chmod 666 "$work/libothers.so"
LD_PRELOAD=$work/libroot.so:$work/libuser.so:$work/libothers.so sleep 300 &
pid=$!
if ! wait_until 10 grep -q "$work/libothers.so" "/proc/$pid/maps"; then
	fail "a process mapping the copies" "LD_PRELOAD failed"
	finish
fi
mkdir -p "$work/tracefs/user_unwind_tables"
: > "$work/tracefs/user_unwind_tables/load"
export USTACK_TRACEFS=$work/tracefs
cache=$work/cache
# an event of $pid (a sys_mmap line), one of a process that is gone, junk
printf '%s\n' \
	"  a [b]-c d-$pid    [001] .....   12.345678: sys_mmap(addr: 0, len: 2000, prot: 5, flags: 802, fd: 3, off: 0)" \
	"           sleep-999999  [000] .....   12.4: sched_process_exec: filename=/bin/x pid=999999 old_pid=999999" \
	"no pid here: sys_mmap(" "-[000] : sys_mmap(" > "$work/events"

# serve OUT [OPTS...]: one run over the events, its output in OUT; every
# conversion in the service (libc's 1.9 MB too), whose counters count the
# cache's stores (a child's are its own: sframe-serve-work.sh)
serve() {
	local out=$1 rc

	shift
	"$tool" serve --no-scan --status "$work/status" --events "$work/events" \
		--cache "$cache" --convert-max 1073741824 "$@" > "$out" 2>&1
	rc=$?
	check "serve over the events: exit $rc ($(tail -n 1 "$out"))" test $rc = 0
}
# counter NAME: a counter of the status file
counter() { awk -v n="$1" '$1 == n { print $2 }' "$work/status"; }
# serve_fifo OUT: the service over a FIFO of events, in the background
# ($spid), its output in OUT; the test writes the events to descriptor 3
serve_fifo() {
	rm -f "$work/evfifo"
	mkfifo "$work/evfifo"
	"$tool" serve --no-scan --status "$work/status" --events "$work/evfifo" --cache "$cache" \
		> "$1" 2>&1 &
	spid=$!
	exec 3> "$work/evfifo"
}

serve "$work/run1"
check "the process's copy root owns is converted and loaded" \
	grep -q "libroot.so: loaded (mapped by pid $pid)" "$work/run1"
check "so is sleep, the program it runs" grep -q "sleep: loaded (mapped by pid $pid)" "$work/run1"
check "the copy nobody owns is skipped as not trusted" \
	grep -q "libuser.so: skipped (mapped by pid $pid): not trusted: owned by uid 65534" "$work/run1"
check "so is the copy others may write" \
	grep -q "libothers.so: skipped (mapped by pid $pid): not trusted: writable by others" "$work/run1"
check "neither is converted" sh -c "! grep -q -e 'libuser.so: converted' -e 'libothers.so: converted' $work/run1"
check "status: one process scanned, $(counter converted) files converted, $(counter cache_stored) stored" \
	test "$(counter scans)" = 1 -a "$(counter converted)" -ge 3 -a "$(counter cache_stored)" = "$(counter converted)"
conv1=$(counter converted)
check "the cache directory is 0700 with a key only root reads" \
	test "$(stat -c %a "$cache")" = 700 -a "$(stat -c %a "$cache/key")" = 600
entry=$(ls "$cache" | grep "^$(readelf -n "$lib" | awk '/Build ID/ { print $3 }')-")
check "an entry named by build-id, size and hash: $entry" \
	test -n "$entry" -a "$(echo "$entry" | wc -l)" = 1

serve "$work/run2"
check "a second run converts nothing: $(counter cache_hits) cache hits" \
	test "$(counter converted)" = 0 -a "$(counter cache_hits)" = "$conv1"
check "and loads the same files" test "$(grep -c ': loaded' "$work/run2")" = "$(grep -c ': loaded' "$work/run1")"

# refused RUN WHAT: an entry of fixture-lib was refused and converted again
refused() {
	check "$2: refused and converted again" \
		sh -c "test $(counter cache_rejected) = 1 && grep -q 'libroot.so: converted' $work/$1"
}
chmod 666 "$cache/$entry"
serve "$work/run3"
refused run3 "an entry others may write"
check "and the entry made again is 0600" test "$(stat -c %a "$cache/$entry")" = 600
cp "$cache/$entry" "$work/saved"
rm "$cache/$entry"
ln -s "$work/saved" "$cache/$entry"
serve "$work/run4"
refused run4 "a symbolic link"
chown 65534 "$cache/$entry"
serve "$work/run5"
refused run5 "an entry nobody owns"
head -c 100 "$work/saved" > "$cache/$entry"
serve "$work/run6"
refused run6 "a table cut short"
# sleep's table under fixture-lib's name: another build-id inside
other=$(ls "$cache" | grep '\.usft$' | grep -v "^${entry%%-*}-" | head -n 1)
cp "$cache/$other" "$cache/$entry"
serve "$work/run7"
refused run7 "another file's table under its name"
ln "$cache/$entry" "$work/hardlink"
serve "$work/run8"
refused run8 "an entry with a second link"
rm -f "$work/hardlink"

chmod 755 "$cache"
serve "$work/run9"
check "a cache directory others may enter is not used" \
	sh -c "grep -q 'no cache, every file is converted: .*mode 0755' $work/run9 && test $(counter converted) -ge 3"
chmod 700 "$cache"
chmod 644 "$cache/key"
serve "$work/run10"
check "nor one whose key others may read" grep -q 'no cache.*key: not a secret' "$work/run10"
chmod 600 "$cache/key"

# the bound: room for sleep's table and fixture-lib's, or for ld.so's and
# fixture-lib's, not for the three: sleep's (stored first) makes room
size_of() { sed -n "s|^.*/$1: converted, \([0-9]*\) bytes.*|\1|p" "$work/run1"; }
max=$(($(size_of sleep) + $(size_of ld-linux-x86-64.so.2) - 1))
rm -f "$cache"/*.usft
serve "$work/run11" --cache-max $max
total=$(find "$cache" -name '*.usft' -printf '%s\n' | awk '{ t += $1 } END { print t + 0 }')
check "bounded: $total bytes cached of at most $max, $(counter cache_evicted) evicted" \
	test "$total" -gt 0 -a "$total" -le $max -a "$(counter cache_evicted)" = 1
check "the table larger than the bound is loaded, not cached" \
	grep -q 'libc.so.6: not cached: [0-9]* bytes, more than the cache' "$work/run11"

# tables removed from the kernel (list's count drops between two batches):
# the batch's process gets its files back first, then every process
printf '# tables 5 bytes 0 limit 0\n' > "$work/tracefs/user_unwind_tables/list"
serve_fifo "$work/run12"
line="           sleep-$pid    [000] .....   20.0: sys_mmap(addr: 0, len: 2000, prot: 5)"
echo "$line" >&3
wait_until 30 grep -q "libroot.so: loaded" "$work/run12"
printf '# tables 0 bytes 0 limit 0\n' > "$work/tracefs/user_unwind_tables/list"
echo "$line" >&3
exec 3>&-
wait $spid
rc=$?
check "serve over a FIFO of events: exit $rc ($(tail -n 1 "$work/run12"))" test $rc = 0
check "it sees the tables removed ($(grep -m 1 '^tables removed' "$work/run12"))" \
	grep -q '^tables removed from the kernel (0, were 5): loading again what runs' "$work/run12"
after=$(sed -n '/^tables removed/,$p' "$work/run12")
first_other=$(echo "$after" | grep -n ': loaded (mapped by pid ' | grep -v "(mapped by pid $pid)" |
	head -n 1 | cut -d: -f1)
again=$(echo "$after" | grep -n "libroot.so: loaded (mapped by pid $pid)" | head -n 1 | cut -d: -f1)
check "the event's process gets its files back (line ${again:-none}) before any other process's (line ${first_other:-none})" \
	test -n "$again" -a "${first_other:-99999}" -gt "${again:-0}"
check "then every process is scanned again: rescans $(counter rescans) ($(counter converted) conversions, the host's other files)" \
	test "$(counter rescans)" = 1
nfiles=$(grep -c ": loaded (mapped by pid $pid)" <(echo "$after"))
check "the event's process's $nfiles files, hashed before, are not hashed again (names_known $(counter names_known))" \
	test "$(counter names_known)" -ge "$nfiles" -a "$nfiles" -ge 3

# twice OUT [CMD...]: the service over a FIFO of events: the process's
# event; once its files are loaded, CMD; then the same event again
twice() {
	local out=$1

	shift
	serve_fifo "$out"
	echo "$line" >&3
	wait_until 30 grep -q "libroot.so: loaded" "$out"
	[ $# -gt 0 ] && "$@"
	echo "$line" >&3
	exec 3>&-
	wait $spid
}

# a process scanned again: its files seen are known by maps' device and
# inode, not opened again
twice "$work/run13"
nx=$(awk '$2 ~ /x/ && $6 ~ /^\//' "/proc/$pid/maps" | wc -l)
# (each mmap event's process is scanned again 10 ms later: rechecks)
check "a second scan of the process opens none of its $nx executable mappings again (known $(counter known), scans $(counter scans), rechecks $(counter rechecks))" \
	test "$(counter scans)" = 2 -a "$(counter known)" = "$((nx * (1 + $(counter rechecks))))"

# a process whose mmap events come every few milliseconds does not put
# off the scan again of another's: each process's is due 10 ms after its
# own last mmap event
sleep 300 &
opid=$!
other="           sleep-$opid    [000] .....   21.0: sys_mmap(addr: 0, len: 2000, prot: 5)"
serve_fifo "$work/run18"
echo "$other" >&3
recheck_done() { test "$(counter rechecks)" = 1; }
wait_until 30 recheck_done
echo "$line" >&3
# 0.5 s of the other process's events, one every 2-3 ms: waits that fork
# nothing (a read that times out on a FIFO nobody writes, bash's clock),
# so that no gap reaches the 10 ms after which the old single due time
# came anyway
mkfifo "$work/idle"
exec 5<> "$work/idle"
t0=${EPOCHREALTIME/./}
while [ $((${EPOCHREALTIME/./} - t0)) -lt 500000 ]; do
	echo "$other" >&3
	read -r -t 0.002 -u 5 _
done
exec 5>&-
during=$(($(counter rechecks) - 1))
exec 3>&-
wait $spid
kill $opid 2>/dev/null
check "a process mapping every 2-3 ms puts off no other's scan again (rechecks while it maps: $during)" \
	test "$during" -ge 1

# a file seen whose change time changed: another file at the same device
# and inode (a new tmpfs where one was numbers its files as before), for
# which the kernel keeps no table of the old one: loaded again
new_ctime() { sleep 0.1; chmod 644 "$work/libroot.so"; }	# its change time only
twice "$work/run17" new_ctime
check "a file seen with another change time is loaded again ($(grep -c 'libroot.so: loaded' "$work/run17") loads), the others known" \
	test "$(grep -c "libroot.so: loaded (mapped by pid $pid)" "$work/run17")" = 2 -a \
	     "$(grep -c ': loaded' "$work/run17")" = "$(( $(grep -c ': loaded' "$work/run13") + 1 ))"

# a rescan never starves a new program: the kernel's loads are made slow
# (load is a FIFO, each open for writing waits for a reader the test
# starts only once a new process's event is written, while the rescan
# after the drop is under way); the new process's event must be read after
# one slice of the rescan (one process), not after the whole of it
printf '# tables 5 bytes 0 limit 0\n' > "$work/tracefs/user_unwind_tables/list"
cp "$lib" "$work/libnew.so"
chmod 644 "$work/libnew.so"
serve_fifo "$work/run15"
echo "$line" >&3
wait_until 30 grep -q "libroot.so: loaded" "$work/run15"
rm "$work/tracefs/user_unwind_tables/load"
mkfifo "$work/tracefs/user_unwind_tables/load"
printf '# tables 0 bytes 0 limit 0\n' > "$work/tracefs/user_unwind_tables/list"
echo "$line" >&3
wait_until 30 grep -q '^tables removed' "$work/run15"
LD_PRELOAD=$work/libnew.so sleep 300 3>&- &
bpid=$!
wait_until 10 grep -q "$work/libnew.so" "/proc/$bpid/maps"
echo "           sleep-$bpid    [001] .....   21.0: sys_mmap(addr: 0, len: 2000, prot: 5)" >&3
# the kernel's loads, one at a time, until told to stop (a cat that
# opens the FIFO after the last writer is gone ends in 10 s)
(while [ ! -e "$work/stop" ]; do
	timeout 10 cat "$work/tracefs/user_unwind_tables/load" > /dev/null
done) 3>&- &
rpid=$!
wait_until 60 grep -q "libnew.so: loaded (mapped by pid $bpid)" "$work/run15"
exec 3>&-
wait $spid
rc=$?
touch "$work/stop"
exec 4<> "$work/tracefs/user_unwind_tables/load"
exec 4>&-
wait $rpid
kill $bpid 2> /dev/null
rm "$work/tracefs/user_unwind_tables/load"
: > "$work/tracefs/user_unwind_tables/load"
check "serve over slow loads: exit $rc ($(tail -n 1 "$work/run15"))" test $rc = 0
after=$(sed -n '/^tables removed/,$p' "$work/run15")
before=$(echo "$after" | sed -n "/libnew.so: loaded (mapped by pid $bpid)/q;p" |
	sed -n 's/.*: loaded (mapped by pid \([0-9]*\)).*/\1/p' | grep -v -x -e "$pid" -e "$bpid" | sort -u | wc -l)
later=$(echo "$after" | sed -n "/libnew.so: loaded (mapped by pid $bpid)/,\$p" |
	sed -n 's/.*: loaded (mapped by pid \([0-9]*\)).*/\1/p' | grep -v -x -e "$pid" -e "$bpid" | sort -u | wc -l)
check "a process started during the rescan gets its table after one process of the rescan at most ($before before it, $later after)" \
	test "$(echo "$after" | grep -c "libnew.so: loaded (mapped by pid $bpid)")" = 1 -a "$before" -le 1 -a "$later" -ge 1
a_last=$(echo "$after" | grep -n "(mapped by pid $pid)" | tail -n 1 | cut -d: -f1)
b_at=$(echo "$after" | grep -n "libnew.so: loaded (mapped by pid $bpid)" | cut -d: -f1)
check "even between two files of another process's scan (line ${b_at:-none}, that one's last ${a_last:-none})" \
	test -n "$b_at" -a -n "$a_last" -a "${b_at:-0}" -lt "${a_last:-0}"
check "and the rescan ends ($(grep -m 1 '^rescan done' "$work/run15"))" \
	sh -c "grep -q '^rescan done' '$work/run15' && test $(counter rescans) = 1 && test $(counter pending) = 0"

# ld.so's RELRO mprotect (PROT_READ): an event of its own, after the
# mappings, so no scan again after it (unlike an mmap)
echo "           sleep-$pid    [000] .....   22.0: sys_mprotect(start: 7f0000000000, len: 2000, prot: 1)" \
	> "$work/ev-mprotect"
"$tool" serve --no-scan --status "$work/status" --events "$work/ev-mprotect" --cache "$cache" \
	> "$work/run16" 2>&1
check "an mprotect line names its process: scanned once, not again (scans $(counter scans), rechecks $(counter rechecks))" \
	test "$(counter events)" = 1 -a "$(counter scans)" = 1 -a "$(counter rechecks)" = 0

# a program built without -pie: its text below 0x10000000, maps says
# "00401000-00402000", map_files names it "401000-402000"
printf 'int main(void) { for (;;) __asm__ volatile("pause"); }\n' > "$work/nopie.c"
if ${CC:-cc} -O2 -no-pie -o "$work/nopie" "$work/nopie.c" 2>/dev/null; then
	chmod 755 "$work/nopie"
	"$work/nopie" &
	npid=$!
	wait_until 10 grep -q "$work/nopie" "/proc/$npid/maps"
	text=$(awk -v f="$work/nopie" '$2 ~ /x/ && $6 == f { print $1 }' "/proc/$npid/maps")
	echo "          nopie-$npid [000] .....   12.4: sched_process_exec: filename=$work/nopie pid=$npid old_pid=$npid" \
		> "$work/ev-nopie"
	"$tool" serve --no-scan --status "$work/status" --events "$work/ev-nopie" --cache "$cache" \
		> "$work/run14" 2>&1
	kill "$npid" 2>/dev/null
	check "a program built without -pie (text at $text in maps) gets its table ($(grep -m 1 "^$work/nopie:" "$work/run14"))" \
		grep -q "^$work/nopie: loaded (mapped by pid $npid)" "$work/run14"
else
	skip "a program built without -pie gets its table" "${CC:-cc} -no-pie fails here"
fi
finish
