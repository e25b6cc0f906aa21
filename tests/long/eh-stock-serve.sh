#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Exact stacks of stock programs with no table loaded by hand (issue 39):
# the tables service runs (tests/lib/tables-service.sh), root removes every
# table, and the stock programs of eh-stock.sh (tar, gzip, sort, find,
# python3 and perl with a deep call chain, python3 importing two C
# extension modules through dlopen) and ustack-sample (-O2
# -fomit-frame-pointer, no .sframe) run under perf record --call-graph
# dwarf (every system call, raw_syscalls:sys_enter), traced with deferred
# stacks. Per program, every system call of the exec'd thread, counted from
# the first one after execve, is compared with perf's stack of the same
# call (tests/lib/stack-compare.py --calls). Three passes:
#  - first: files never seen, the service converts them while they run
#    (reported, no bound: a conversion takes what it takes);
#  - top: root removes every table again; the same programs, their tables
#    now in the service's cache;
#  - ns: copies of the programs (and of the Python modules) in a private
#    mount namespace with its own tmpfs /tmp (unshare -m): new inodes,
#    tables from the cache.
# Reported per program: how many calls went by before its stacks equal
# perf's and stay equal. Checked in top and ns: at most STARTUP of them,
# every call of its other threads equal; in every pass: no stack that
# differs is claimed exact (each says unwind=fp, has no stack, is one perf
# unwound no frame of, or is the start of perf's and says truncated: a
# walk stopped at a file whose table is not there yet), and neither perf
# nor the trace lost a call
# that would pair the others wrongly. A call whose perf stack is the start
# of the trace's, shorter (perf stopped early: python3's frames of more
# than its 32 KiB copy of the stack; the trace's go on to _start), is
# counted apart, not as differing.
# Why start-up calls can differ: the service learns of a file when the
# process maps it (sched_process_exec for the program and ld.so, a
# PROT_EXEC mmap for each library) and loads its table after that, from its
# own process (hashing the file for its cache, or converting it); the
# program runs on meanwhile. ld.so makes about 55 calls before the
# program's own code runs, so a table loaded within them makes every stack
# exact; calls made before it are walked by frame pointers. STARTUP = 100:
# measured 0 for gzip, sort, find and python3 and 3 for ustack-sample (its
# call 2, in ld.so, perf unwinds no frame of), 71 for perl and 79 for a
# python3 copy (their tables, from the cache, written at calls 71 and 79);
# ld.so's 55 with margin; the most in top and ns on 2026-11-29 was 79
# (docs/tables-service.md, "Stock programs against perf").
# Not in make check: about 400 s of the guest. It passed 43 of 43 on the
# normal kernel and on the debug kernel (2026-11-29); make check-serve runs
# it (the normal kernel; DEBUG=1 the debug one, about 25 minutes).
# kernels: normal debug
# timeout: 1500
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"
. "$(dirname "$0")/../lib/tables-service.sh"
. "$(dirname "$0")/../lib/eh-stock.sh"

PERF=$USTACK_TOP/build/perf/perf
CMP=$USTACK_TOP/tests/lib/stack-compare.py
TABLES=$T/user_unwind_tables
EH=$USTACK_PROGS/eh
PY=/usr/bin/python3.11
DYN=/usr/lib/python3.11/lib-dynload
MODS="$DYN/_bz2.cpython-311-x86_64-linux-gnu.so $DYN/_lzma.cpython-311-x86_64-linux-gnu.so"
# inputs and results: under /run, seen from the private namespace too
IN=/run/eh-stock-serve
STARTUP=${STARTUP:-100}

if [ ! -d $TABLES ]; then
	fail "user_unwind_tables exists" "no $TABLES"
	finish
fi
for f in "$PERF" "$SERVE_TOOL" "$EH/ustack-sample" "$PY" /usr/bin/perl; do
	if [ ! -x "$f" ]; then
		fail "test tools built" "no $f (make all)"
		finish
	fi
done
cd /tmp || exit 1
echo -1 > /proc/sys/kernel/perf_event_paranoid
cleanup() { serve_stop; }
trap cleanup EXIT
trace_clear
rm -rf "$SERVE_CACHE" "$SERVE_LOG" $IN
mkdir -p $IN
stock_inputs $IN

if ! serve_start; then
	fail "the service starts" "$(tail -n 3 "$SERVE_LOG" | tr '\n' ' ')"
	finish
fi
check "the service runs ($(grep '^serving:' "$SERVE_LOG")); root removes every table" \
	tw $TABLES/remove all

# run NAME WHERE CMD...: CMD under perf record, every system call with a
# DWARF stack of 32 KiB, its perf script in $IN/NAME.perf; started by a
# shell held at /run/gate, its system calls (and its children's) traced
# with deferred stacks in the top level. WHERE: "top", or "ns": in
# unshare -m, a tmpfs on /tmp and the copies of the programs in /tmp/ns
# (the Python modules in /tmp/ns/dyn, found first through PYTHONPATH),
# perf script run there too (it reads the files by their paths). Leaves $IN/NAME.calls, one line per call of
# perf: "tid|k|equal or differs|unwind|frames|perf's frames" (unwind: the
# stack entry's method, "none" when it names none, "nostack" when the call
# has no stack entry; ",truncated" when the walk stopped early)
run() {
	local name=$1 where=$2 body wpid

	shift 2
	trace_clear
	tw $T/buffer_size_kb 16384
	rm -f /run/gate
	mkfifo /run/gate
	export RUN_OUT=$IN/$name
	# shellcheck disable=SC2016 # expanded by the shell it is given to
	body='read x < /run/gate
		"$0" record -q -e raw_syscalls:sys_enter --call-graph dwarf,32768 -m 64M \
			-o "$RUN_OUT.data" -- "$@" > /dev/null 2> "$RUN_OUT.err"
		echo $? > "$RUN_OUT.rc"
		echo 0 > /sys/kernel/tracing/tracing_on
		"$0" script -i "$RUN_OUT.data" -F comm,tid,ip,dsoff --no-inline > "$RUN_OUT.perf" 2> /dev/null
		"$0" report -i "$RUN_OUT.data" --stats > "$RUN_OUT.stats" 2>&1
		rm -f "$RUN_OUT.data"'
	if [ "$where" = ns ]; then
		unshare -m sh -c "mount -t tmpfs tmpfs /tmp && mkdir -p /tmp/ns/dyn &&
			cp /usr/bin/tar /usr/bin/gzip /usr/bin/sort /usr/bin/find $PY /usr/bin/perl \
				$EH/ustack-sample $EH/libustack-sample.so /tmp/ns/ &&
			cp $MODS /tmp/ns/dyn/ && cd /tmp &&
			export PYTHONHOME=/usr PYTHONPATH=/tmp/ns/dyn && $body" "$PERF" "$@" &
	else
		sh -c "$body" "$PERF" "$@" &
	fi
	wpid=$!
	# the service's own calls too: when it writes a table (loaded_at)
	tw $T/set_event_pid "$wpid $serve_pid"
	tw $T/options/event-fork 1
	tw $T/events/sched/sched_process_exec/enable 1
	tw $T/events/raw_syscalls/sys_enter/enable 1
	tw $T/options/user_stacktrace_deferred 1
	tw $T/tracing_on 1
	echo go > /run/gate
	wait $wpid
	tw $T/tracing_on 0
	# events the trace lost (overwritten): the n-th event would not be perf's n-th
	cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n + 0 }' > $IN/$name.overrun
	echo > $T/set_event_pid
	tw $T/options/event-fork 0
	awk '/user_unwind_stack: / {
		c = $0; sub(/.*cookie=/, "", c); sub(/ .*/, "", c)
		u = "none"
		if ($0 ~ / unwind=/) { u = $0; sub(/.* unwind=/, "", u); sub(/ .*/, "", u) }
		if ($0 ~ / no-stack/)
			u = "nostack"
		if ($0 ~ / truncated/)
			u = u ",truncated"
		print c "|" u
	}' $T/trace > $IN/$name.uw
	stitched > $IN/$name.all
	# each thread's events from its last exec on: perf counts from there
	awk -F'|' 'NR == FNR { if (index($4, "sched_process_exec: ")) last[$1] = FNR; next }
		!($1 in last) || FNR > last[$1]' $IN/$name.all $IN/$name.all > $IN/$name.st
	/usr/bin/python3 "$CMP" --calls $IN/$name.st $IN/$name.perf "sys_enter: NR " > $IN/$name.cmp
	awk 'FILENAME == ARGV[1] { split($0, a, "|"); uw[a[1]] = a[2]; next }
		$1 == "call" {
			print $2 "|" $3 "|" $4 "|" (($5 in uw) ? uw[$5] : "nostack") "|" $6 "|" $7
		}' \
		$IN/$name.uw $IN/$name.cmp > $IN/$name.calls
}

# loaded_at NAME FILE: the call of run NAME's thread TID during which the
# service wrote FILE's table (its write of the table's size to load; the
# size from its log): "call K", or "not during the run"
loaded_at() {
	local size

	size=$(sed -n "s|^$2: loaded (.*), \([0-9]*\) bytes\$|\1|p" "$SERVE_LOG" | tail -n 1)
	[ -n "$size" ] || { echo "never"; return; }
	awk -F'|' -v t="$tid" -v s="$serve_pid" -v c="$(printf ', %x, ' "$size")" '
		$1 == t && index($4, "sched_process_exec: ") { n = 0; exec = 1; next }
		$1 == t && index($4, "sys_enter: NR ") { n++; next }
		$1 == s && index($4, "sys_enter: NR 1 (") && index($4, c) {
			print exec ? "call " n : "before its exec"; found = 1; exit
		}
		END { if (!found) print "not during the run" }' $IN/$1.all
}

max_startup=0
# judge NAME WHAT: the report and the checks of run NAME
judge() {
	local name=$1 what=$2 bound=$3 file=$4 tid n from other marked none unmarked noperf lost short
	local cut

	tid=$(awk -F'|' '{ print $1; exit }' $IN/$name.calls)
	n=$(awk -F'|' -v t="$tid" '$1 == t' $IN/$name.calls | wc -l)
	awk -F'|' -v t="$tid" '$1 == t' $IN/$name.st > $IN/$name.tid.st
	# the first call from which every call of the thread is equal
	from=$(awk -F'|' -v t="$tid" '$1 == t && ($3 == "differs" || $3 == "traceshort") { d = $2 }
		END { print d + 1 }' $IN/$name.calls)
	other=$(awk -F'|' -v t="$tid" '$1 != t && ($3 == "differs" || $3 == "traceshort")' \
		$IN/$name.calls | wc -l)
	# perf's stack the start of the trace's: perf stopped early, not compared
	short=$(awk -F'|' '$3 == "perfshort"' $IN/$name.calls | wc -l)
	marked=$(awk -F'|' '$3 == "differs" && $4 ~ /fp/' $IN/$name.calls | wc -l)
	none=$(awk -F'|' '$3 == "differs" && $4 ~ /^nostack/' $IN/$name.calls | wc -l)
	# perf unwound no user frame (ld.so's first calls): nothing to compare
	noperf=$(awk -F'|' '$3 == "differs" && $6 == 0' $IN/$name.calls | wc -l)
	# the walk stopped early and says so: the start of perf's stack, "truncated"
	cut=$(awk -F'|' '$3 == "traceshort" && $4 ~ /truncated/' $IN/$name.calls | wc -l)
	# a frame not perf's, or a cut stack said whole (a guess, unwind=fp, aside)
	unmarked=$(awk -F'|' '($3 == "differs" && $4 !~ /fp/ && $4 !~ /^nostack/ && $6 > 0) ||
		($3 == "traceshort" && $4 !~ /truncated/ && $4 !~ /fp/)' $IN/$name.calls | wc -l)
	[ -n "$bound" ] && [ $((from - 1)) -gt $max_startup ] && max_startup=$((from - 1))
	echo "MEASURE: $what: $n system calls after execve, $((from - 1)) before its stacks equal" \
		"perf's and stay equal; differing: $marked marked unwind=fp, $none without a stack," \
		"$noperf where perf unwound no user frame, $cut cut and marked truncated," \
		"$unmarked claimed exact;" \
		"$other differing in its other threads; $short where perf's stack is the start of the trace's" \
		"($(awk -F'|' '{ n++ } END { print n + 0 }' $IN/$name.calls) calls in all, perf exit $(cat $IN/$name.rc));" \
		"the service wrote the table of $file at: $(loaded_at $name "$file")"
	awk -F'|' '$3 == "differs" || $3 == "traceshort" {
		print "    " $3 ": tid " $1 " call " $2 " unwind=" $4 ", " $5 " frames, perf " $6
	}' $IN/$name.calls | head -n 12
	awk -F'|' '$3 == "perfshort" {
		print "    perf stopped early: tid " $1 " call " $2 ", " $5 " frames, perf " $6
	}' $IN/$name.calls | head -n 3
	grep -A2 '^diff' $IN/$name.cmp | head -n 6 | sed 's/^/    /'
	if [ "${n:-0}" = 0 ]; then
		fail "$what: perf recorded its calls" "none ($(head -c 300 $IN/$name.err))"
		return
	fi
	# a lost sample or event puts every later call beside another's stack
	lost=$(awk '/LOST/ { for (i = 1; i < NF; i++) if ($i == "events:") n += $(i + 1) }
		END { print n + 0 }' $IN/$name.stats)
	# (when every call is equal anyway, nothing was lost before the end)
	if { [ "$lost" != 0 ] || [ "$(cat $IN/$name.overrun)" != 0 ]; } &&
	   grep -qE '\|(differs|traceshort)\|' $IN/$name.calls; then
		fail "$what: nothing lost" "perf has $lost LOST records, the trace lost $(cat $IN/$name.overrun) events: the calls cannot be paired"
		return
	fi
	[ -n "$bound" ] &&
		check "$what: every stack equals perf's after $((from - 1)) start-up calls of $n (at most $bound), none of its other threads' differs ($other)" \
			test $((from - 1)) -le "$bound" -a "$other" = 0
	check "$what: no differing stack claimed exact ($marked say unwind=fp, $none have no stack, $noperf not unwound by perf, $cut cut and say truncated, $unmarked neither)" \
		test "$unmarked" = 0
}

# stock PASS WHERE B S [BOUND]: the programs, run NAME PASS-PROG in WHERE,
# B the directory of the stock ones, S ustack-sample's; BOUND: the most
# start-up calls allowed (none: reported only)
stock() {
	local p=$1 w=$2 b=$3 s=$4 bound=$5 py=$3/python3.11 mod=/tmp/ns/dyn/${MODS##*/}

	[ "$w" = top ] && py=$PY mod=${MODS##* }
	run $p-tar $w "$b/tar" -cf $IN/src-$p.tar -C $IN src
	judge $p-tar "$p: tar" "$bound" "$b/tar"
	run $p-gzip $w "$b/gzip" -kf $IN/src-$p.tar
	judge $p-gzip "$p: gzip" "$bound" "$b/gzip"
	run $p-sort $w "$b/sort" -r -o $IN/sorted-$p $IN/src-$p.tar
	judge $p-sort "$p: sort" "$bound" "$b/sort"
	run $p-find $w "$b/find" /usr/share/doc -maxdepth 1 -fprint $IN/found-$p
	judge $p-find "$p: find" "$bound" "$b/find"
	run $p-python3 $w $py $IN/deep.py
	judge $p-python3 "$p: python3" "$bound" "$py"
	run $p-python3-dlopen $w $py -c 'import _bz2, _lzma'
	judge $p-python3-dlopen "$p: python3 importing _bz2 and _lzma" "$bound" "$mod"
	run $p-perl $w "$b/perl" -e "$STOCK_PERL"
	judge $p-perl "$p: perl" "$bound" "$b/perl"
	run $p-sample $w "$s/ustack-sample" 5
	judge $p-sample "$p: ustack-sample" "$bound" "$s/ustack-sample"
}

# ---- first runs: files never seen, converted while the program runs ----
stock first top /usr/bin "$EH"
echo "MEASURE: first runs: $(grep -c ': converted' "$SERVE_LOG") files converted, $(serve_stat convert_cpu_s) s of CPU"

# ---- root removes every table: the service loads them again, from its cache ----
check "root removes every table again ($(head -n 1 $TABLES/list))" tw $TABLES/remove all
stock top top /usr/bin "$EH" "$STARTUP"

# ---- copies in a private mount namespace: new inodes, known content ----
if unshare -m true 2>/dev/null; then
	stock ns ns /tmp/ns /tmp/ns "$STARTUP"
	check "ns: python3 imported the copies of the modules, the service loaded their tables ($(grep -m 1 '^/tmp/ns/dyn/_bz2' "$SERVE_LOG"))" \
		grep -q '^/tmp/ns/dyn/_bz2.*: loaded' "$SERVE_LOG"
else
	skip "the stock programs in a private mount namespace" "unshare -m fails in this guest"
fi
echo "MEASURE: the most start-up calls of any program: $max_startup"
echo "MEASURE: the service: $(grep -c ': converted' "$SERVE_LOG") files converted, $(serve_stat cache_hits) cache hits; $(head -n 1 $TABLES/list)"
sed 's/^/    status: /' "$SERVE_STATUS"
# the service's log, with the results (guest-run --res)
[ -n "${USTACK_RES:-}" ] && cp "$SERVE_LOG" "$USTACK_RES/serve.log"
trace_clear
tw $TABLES/remove all
finish
