#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tables service (ustack-sframe serve, issue 39), started as a machine
# would (tests/lib/tables-service.sh): programs never seen before get
# their tables with nobody running a command.
#  - a copy of ustack-sample and its library in /tmp (new inodes, built
#    -O2 -fomit-frame-pointer without .sframe): every system call after
#    execve is traced with deferred stacks; reported: how many went by
#    before a stack was found by tables alone (unwind=sframe), and before
#    each file (the program, its library, libc, ld.so) was on such a
#    stack; checked: from then on every getppid stack is exactly CHAIN
#    down to _start, and it comes before the program's last call;
#  - after root removes every table, the service loads them again at the
#    next event, and the stacks are exact again;
#  - the same in a private mount namespace with its own /tmp (unshare -m);
#  - reported: the wall time of 100 execs with the service and without;
#  - a copy of /usr/bin/tar (libacl, libselinux, libpcre2 mapped by
#    nothing before): reported per file, the first call its table walked
#    and the stacks through it before; checked: 90% of the stacks after
#    call 100 by tables alone;
#  - a copy owned by nobody gets no table (none in list for its inode);
#  - the service stops on SIGTERM, removes its instance, and once started
#    again converts no file it converted before: those tables come from
#    its cache (a program first run after the restart is converted then).
# kernels: normal debug
# timeout: 900
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/ustack.sh"
. "$(dirname "$0")/../lib/tables-service.sh"

TABLES=$T/user_unwind_tables
EH=$USTACK_PROGS/eh
CALLS=${SERVE_CALLS:-20000}
NR_GETPPID=110

if [ ! -d $TABLES ]; then
	fail "user_unwind_tables exists" "no $TABLES"
	finish
fi
if [ ! -x "$SERVE_TOOL" ] || [ ! -x "$EH/ustack-sample" ]; then
	fail "test tools built" "no $SERVE_TOOL or $EH/ustack-sample (make all)"
	finish
fi
cd /tmp || exit 1
cleanup() { serve_stop; }
trap cleanup EXIT
tw $TABLES/remove all
trace_clear
rm -rf "$SERVE_CACHE" "$SERVE_LOG"

t0=$(date +%s%N)
serve_start
t1=$(date +%s%N)
check "the service starts and loads what runs in $(((t1 - t0) / 1000000)) ms ($(grep '^serving:' $SERVE_LOG); $(head -n 1 $TABLES/list))" \
	grep -q '^serving:' $SERVE_LOG
check "its own instance, events on" \
	test "$(cat $T/instances/ustack-sframe-serve/events/sched/sched_process_exec/enable 2>/dev/null)" = 1
check "cache 0700 with a 0600 key" \
	test "$(stat -c %a "$SERVE_CACHE")" = 700 -a "$(stat -c %a "$SERVE_CACHE/key")" = 600

# traced NAME PROG CMD...: CMD (which execs PROG after reading /run/gate)
# with its system calls traced, deferred stacks, from the exec of PROG on;
# its events in /tmp/NAME.ev: "index|NR|unwind|frames"
traced() {
	local name=$1 prog=$2 wpid

	shift 2
	trace_clear
	tw $T/buffer_size_kb 16384
	rm -f /run/gate
	mkfifo /run/gate
	"$@" > /tmp/$name.out 2>&1 &
	wpid=$!
	tw $T/set_event_pid $wpid
	tw $T/events/sched/sched_process_exec/enable 1
	tw $T/events/raw_syscalls/sys_enter/enable 1
	tw $T/options/user_stacktrace_deferred 1
	tw $T/tracing_on 1
	echo go > /run/gate
	wait $wpid
	pid=$wpid
	tw $T/tracing_on 0
	echo > $T/set_event_pid
	awk '/user_unwind_stack: / {
		c = $0; sub(/.*cookie=/, "", c); sub(/ .*/, "", c)
		u = "none"
		if ($0 ~ / unwind=/) { u = $0; sub(/.* unwind=/, "", u); sub(/ .*/, "", u) }
		print c "|" u
	}' $T/trace > /tmp/$name.uw
	stitched > /tmp/$name.st
	awk -F'|' -v p=$pid -v prog="$prog" '
		FILENAME == ARGV[1] { uw[$1] = $2; next }
		$1 != p { next }
		index($4, "sched_process_exec: filename=" prog " ") { exec = 1; n = 0; next }
		!exec || !index($4, "sys_enter: NR ") { next }
		{
			nr = $4; sub(/.*NR /, "", nr); sub(/ .*/, "", nr)
			u = ($3 in uw) ? uw[$3] : "none"
			print ++n "|" nr "|" u "|" $5
		}' /tmp/$name.uw /tmp/$name.st > /tmp/$name.ev
}
# first NAME PATH: "the index of the first system call whose stack, found
# by tables alone, goes on past a frame in PATH (PATH's table unwound it)
# / how many stacks went through PATH before" ("never/N" when none did)
first() {
	awk -F'|' -v f="$2+0x" '
		function through(s,	a, n, i) {
			n = split(s, a, " ")
			for (i = 1; i < n; i++)
				if (index(a[i], f) == 1)
					return 1
			return 0
		}
		through($4) && $3 == "sframe" { print $1 "/" before + 0; found = 1; exit }
		through($4) { before++ }
		END { if (!found) print "never/" before + 0 }' /tmp/$1.ev
}
# exact NAME DIR WHAT: the checks and the report of run NAME of DIR's copy
exact() {
	local name=$1 dir=$2 what=$3 n first_sf ex_idx ex_frames syms bad

	n=$(wc -l < /tmp/$name.ev)
	check "$what: $CALLS getppid calls traced from execve on ($n system calls, exit $(tail -n 1 /tmp/$name.out))" \
		test "$(awk -F'|' -v g=$NR_GETPPID '$2 == g' /tmp/$name.ev | wc -l)" -ge "$CALLS"
	first_sf=$(awk -F'|' '$3 == "sframe" { print $1; exit }' /tmp/$name.ev)
	ex_idx=$(awk -F'|' -v g=$NR_GETPPID '$2 == g && $3 == "sframe" { print $1; exit }' /tmp/$name.ev)
	ex_frames=$(awk -F'|' -v i="$ex_idx" '$1 == i { print $4 }' /tmp/$name.ev)
	# symbolized through /tmp/new's copy: a private /tmp is not ours to read
	syms=$(symbols "${ex_frames//"$dir/"//tmp/new/}" | sed 's/@@*[^ ]*//g')
	echo "MEASURE: $what: first stack by tables alone: system call ${first_sf:-never} of $n;" \
		"first stack walked past each file's frames by its table / stacks through it before:" \
		"ld.so's: $(first $name "$(readlink -f /lib64/ld-linux-x86-64.so.2)")," \
		"libc's: $(first $name "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)")," \
		"the library's: $(first $name "$dir/libustack-sample.so")," \
		"the program's: $(first $name "$dir/ustack-sample")"
	check "$what: a getppid stack found by tables alone (call ${ex_idx:-never} of $n) is $CHAIN to _start ($syms)" \
		test -n "$ex_idx" -a "$syms" = "$CHAIN __libc_start_call_main __libc_start_main _start"
	bad=$(awk -F'|' -v g=$NR_GETPPID -v i="${ex_idx:-0}" -v f="$ex_frames" \
		'$1 > i && $2 == g && ($3 != "sframe" || $4 != f)' /tmp/$name.ev | wc -l)
	check "$what: every later getppid stack is the same, by tables alone ($bad differ)" \
		test -n "$ex_idx" -a "$bad" = 0
}

# ---- a program never seen before ----
mkdir -p /tmp/new
cp "$EH/ustack-sample" "$EH/libustack-sample.so" /tmp/new/
conv0=$(serve_stat converted)
traced new /tmp/new/ustack-sample sh -c "read x < /run/gate; exec /tmp/new/ustack-sample $CALLS"
exact new /tmp/new "a new copy in /tmp"
wait_until 30 grep -q '/tmp/new/libustack-sample.so: loaded' $SERVE_LOG
check "its files were converted for it ($(($(serve_stat converted) - conv0)) conversions, $(serve_stat convert_cpu_s) s of CPU for all $(serve_stat converted))" \
	test $(($(serve_stat converted) - conv0)) -ge 2
grep '/tmp/new/' $SERVE_LOG | sed 's/^/    /'

# ---- a copy of a Debian program: tar, with libraries nothing ran before ----
# files NAME: per file on the stacks of run NAME, "path: X/N" (see first)
files() {
	awk -F'|' '{ n = split($4, a, " "); for (i = 1; i < n; i++) { sub(/\+0x.*/, "", a[i]); print a[i] } }' \
		/tmp/$1.ev | sort -u | while read -r f; do
		echo "$f: $(first "$1" "$f")"
	done
}
mkdir -p /tmp/deb
cp /usr/bin/tar /tmp/deb/tar
traced tar /tmp/deb/tar sh -c "read x < /run/gate; exec /tmp/deb/tar -cf /tmp/deb/out.tar /usr/share/doc/bash"
n=$(wc -l < /tmp/tar.ev)
late=$(awk -F'|' '$1 > 100' /tmp/tar.ev | wc -l)
late_sf=$(awk -F'|' '$1 > 100 && $3 == "sframe"' /tmp/tar.ev | wc -l)
echo "MEASURE: a copy of /usr/bin/tar: $n system calls; per file on its stacks, the first walked past it by its table / stacks through it before:"
files tar | sed 's/^/    /'
echo "MEASURE: a copy of /usr/bin/tar: after call 100, $late_sf of $late stacks by tables alone"
own=$(first tar /tmp/deb/tar)
check "a copy of tar: its archive is written, its own table walks its frames ($own)" \
	sh -c "test -s /tmp/deb/out.tar && ! echo $own | grep -q '^never'"
check "a copy of tar: after call 100, 90% of its stacks or more by tables alone ($late_sf of $late)" \
	test "$late" -gt 0 -a $((late_sf * 100)) -ge $((late * 90))

# ---- tables root removes are loaded again at their next use ----
tw $TABLES/remove all
traced again /tmp/new/ustack-sample sh -c "read x < /run/gate; exec /tmp/new/ustack-sample $CALLS"
exact again /tmp/new "after remove all, the same copy"
# the service's lines of the copy and of the rescan, in their order (a
# table used late: was it loaded late?)
grep -n -e '^tables removed' -e '^rescan done' -e '/tmp/new/' $SERVE_LOG | sed 's/^/serve.log: /'
check "the service saw the tables go and loaded again what runs ($(grep -m 1 '^tables removed' $SERVE_LOG))" \
	test "$(serve_stat rescans)" -ge 1

# ---- in a private mount namespace, its own /tmp ----
if unshare -m true 2>/dev/null; then
	traced ns /tmp/ns/ustack-sample unshare -m sh -c "mount -t tmpfs tmpfs /tmp && mkdir /tmp/ns &&
		cp $EH/ustack-sample $EH/libustack-sample.so /tmp/ns/ &&
		read x < /run/gate && exec /tmp/ns/ustack-sample $CALLS"
	exact ns /tmp/ns "a copy in a private /tmp (unshare -m)"
else
	skip "a copy in a private /tmp (unshare -m)" "unshare -m fails in this guest"
fi

# ---- a file nobody but root can have written, only ----
mkdir -p /tmp/untr
cp "$EH/ustack-sample" "$EH/libustack-sample.so" /tmp/untr/
chown 65534:65534 /tmp/untr/ustack-sample /tmp/untr/libustack-sample.so
traced untr /tmp/untr/ustack-sample sh -c "read x < /run/gate; exec /tmp/untr/ustack-sample 100"
wait_until 30 grep -q '/tmp/untr/libustack-sample.so: skipped' $SERVE_LOG
check "a copy owned by nobody is skipped ($(grep -m 1 '/tmp/untr/' $SERVE_LOG))" \
	sh -c "grep -q '/tmp/untr/ustack-sample: skipped (mapped by pid [0-9]*): not trusted: owned by uid 65534' $SERVE_LOG &&
		grep -q '/tmp/untr/libustack-sample.so: skipped' $SERVE_LOG"
ino=$(stat -c %i /tmp/untr/ustack-sample)
lino=$(stat -c %i /tmp/untr/libustack-sample.so)
check "and no table in list is for its inodes ($ino, $lino)" \
	sh -c "! grep -v '^#' $TABLES/list | awk '{ n = split(\$4, a, \":\"); print a[n] }' | grep -qx -e $ino -e $lino"
up=$(first untr /tmp/untr/ustack-sample)
ul=$(first untr /tmp/untr/libustack-sample.so)
check "no stack of it is walked past its frames by tables alone (program $up, library $ul)" \
	sh -c "echo $up | grep -q '^never/' && echo $ul | grep -q '^never/'"

echo "MEASURE: tables in the kernel: $(head -n 1 $TABLES/list); cache: $(du -sk "$SERVE_CACHE" | cut -f1) KiB, $(ls "$SERVE_CACHE" | grep -c usft) entries"
sed 's/^/    status: /' "$SERVE_STATUS"

# ---- what the service costs an exec: 100 runs of true, with and without ----
# runs: the wall time of 100 execs of /bin/true, in ms
runs() {
	local t0 t1 i

	t0=$(date +%s%N)
	for i in $(seq 100); do /bin/true; done
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}
with=$(runs)
with2=$(runs)

# ---- restart: nothing converted again ----
serve_stop
rc=$?
check "SIGTERM stops it (exit $rc: $(tail -n 1 $SERVE_LOG))" test $rc = 0
check "and removes its instance" test ! -d $T/instances/ustack-sframe-serve
without=$(runs)
without2=$(runs)
echo "MEASURE: 100 execs of /bin/true: $with, $with2 ms with the service running, $without, $without2 ms without"
mkdir -p /tmp/new2
cp "$EH/ustack-sample" "$EH/libustack-sample.so" /tmp/new2/
serve_start
check "started again ($(grep '^serving:' $SERVE_LOG | tail -n 1))" test -n "$serve_pid"
traced new2 /tmp/new2/ustack-sample sh -c "read x < /run/gate; exec /tmp/new2/ustack-sample $CALLS"
exact new2 /tmp/new2 "a new copy, after the restart"
wait_until 30 grep -q '/tmp/new2/libustack-sample.so: loaded' $SERVE_LOG
# converted SED-RANGE: the files the service's log says it converted there
converted() { sed -n "$1" $SERVE_LOG | sed -n 's/: converted, .*//p' | sort -u; }
converted '1,/^stopped:/p' > /tmp/conv.before
converted '/^stopped:/,$p' > /tmp/conv.after
again=$(comm -12 /tmp/conv.before /tmp/conv.after | tr '\n' ' ')
check "after the restart no file converted before is converted again ($(serve_stat cache_hits) cache hits, $(serve_stat converted) conversions${again:+: $again})" \
	test -z "$again" -a "$(serve_stat cache_hits)" -ge 2
check "the new copy's files came from the cache ($(grep -c '^/tmp/new2/.*: converted' $SERVE_LOG) converted)" \
	sh -c "! grep -q '^/tmp/new2/.*: converted' $SERVE_LOG"
sed 's/^/    converted after the restart (never mapped before it): /' /tmp/conv.after
trace_clear
tw $TABLES/remove all
finish
