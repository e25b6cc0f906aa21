# SPDX-License-Identifier: GPL-2.0
# Guest-side helpers for the deferred user stack tests. Sourced after
# result.sh.

T=/sys/kernel/tracing
SYMBOLIZE=$USTACK_TOP/build/libtracefs-ext/examples/symbolize
STITCH=$USTACK_TOP/tests/lib/stitch.awk
SAMPLE=$USTACK_PROGS/ustack-sample
SAMPLE32=$USTACK_PROGS/ustack-sample32
# The known chain of ustack-sample's getppid calls, innermost first.
CHAIN="ustack_lib_syscall ustack_lib_inner ustack_lib_enter sample_middle sample_outer main"

# Write a tracefs file, failing loudly.
tw() { echo "$2" > "$1" || { echo "cannot write '$2' to $1" >&2; return 1; }; }

# Stop and clear everything in instance dir $1.
trace_clear() {
	local d=${1:-$T}

	tw "$d/tracing_on" 0
	echo 0 > "$d/events/enable"
	[ -w "$d/current_tracer" ] && echo nop > "$d/current_tracer"
	echo 0 > "$d/options/user_stacktrace_deferred"
	echo > "$d/trace"
}

# traced_sample ARGS...: run ustack-sample ARGS with tracing on in the top
# level; its pid is left in $pid.
traced_sample() {
	tw $T/tracing_on 1
	"$SAMPLE" "$@" > /dev/null &
	pid=$!
	wait $pid
	tw $T/tracing_on 0
}

# pinned_sample CPU ARGS...: run ustack-sample ARGS on CPU, tracing as it
# is; its pid is left in $pid.
pinned_sample() {
	local cpu=$1

	shift
	taskset -c "$cpu" "$SAMPLE" "$@" > /dev/null &
	pid=$!
	wait $pid
}

# getppid_traced OUT CMD...: run CMD with its getppid calls traced in the
# top level (deferred user stacks), its output in OUT; its pid is left in
# $pid, its exit status in $rc; tracing is off again after it.
getppid_traced() {
	local out=$1

	shift
	trace_clear
	tw $T/events/syscalls/sys_enter_getppid/enable 1
	tw $T/options/user_stacktrace_deferred 1
	tw $T/tracing_on 1
	"$@" > "$out" 2>&1 &
	pid=$!
	wait $pid
	rc=$?
	tw $T/tracing_on 0
}

# stitched DIR: the stitched events of instance DIR (see stitch.awk).
stitched() { awk -f "$STITCH" "${1:-$T}/trace"; }

# symbols "FRAMES": the symbol names of " path+0xoff ..." frames.
symbols() {
	local f path off out names=
	for f in $1; do
		path=${f%+0x*}
		off=0x${f##*+0x}
		out=$("$SYMBOLIZE" "$path" "$off" 2>/dev/null)
		out=${out%%+0x*}
		names="$names ${out:-?}"
	done
	echo $names
}

# median N...: the middle value of an odd count of numbers (benchmarks).
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }

# quartiles N...: the first and third quartile (for 7 values the 2nd and
# the 6th, for up to 3 values the lowest and the highest): one outlier
# round of a busy host does not make a row's spread.
quartiles() {
	local k=$((($# + 3) / 4))

	printf '%s\n' "$@" | sort -n | sed -n "${k}p;$(($# + 1 - k))p" | tr '\n' ' '
}

# effect_noisy NAME UNIT D...: D are a row's per-round effects (its cost
# over "none" in the same round). When their spread (quartiles()) is larger
# than their median, say so on stderr and return 0: the row is noise.
effect_noisy() {
	local name=$1 unit=$2 d lo hi

	shift 2
	d=$(median "$@")
	read -r lo hi <<< "$(quartiles "$@")"
	[ $((hi - lo)) -gt "${d#-}" ] || return 1
	echo "  NOISE: $name: per-round effect $d $unit, its spread $((hi - lo)) $unit" >&2
}

# first_n N "WORDS": the first N words.
first_n() { echo "$2" | tr ' ' '\n' | sed -n "1,${1}p" | tr '\n' ' ' | sed 's/ $//'; }

# gated PROG ARGS...: start PROG held at a gate, its pid in GATED_PID.
# Start it with "open_gate" once tracing is set up for that pid.
# Returns once the shell waits at the gate: what it does before (dash calls
# getppid at its start) is not traced.
gated() {
	rm -f /tmp/gate
	mkfifo /tmp/gate
	sh -c 'read x < /tmp/gate; exec "$@"' sh "$@" > /tmp/gated.out 2>&1 &
	GATED_PID=$!
	# opening the FIFO (openat, 257) or reading it (read, 0) blocks there
	wait_until 120 gated_at_gate && return 0
	fail "gated $1" "did not reach the gate in 120 s"
	return 1
}
gated_at_gate() {
	local nr

	read -r nr _ < /proc/$GATED_PID/syscall 2>/dev/null
	case "$nr" in
	0|257) return 0 ;;
	esac
	return 1
}
open_gate() { echo go > /tmp/gate; }

# lib_offset SYMBOL [DELTA]: the file offset of SYMBOL + DELTA in
# libustack-sample.so, through the LOAD segment that holds it.
lib_offset() {
	local lib=${OFFSET_LIB:-$USTACK_PROGS/libustack-sample.so} vaddr addr typ o v p fsz msz rest

	vaddr=$(nm "$lib" | awk -v s="$1" '$3 == s {print $1}')
	[ -n "$vaddr" ] || return 1
	addr=$((16#$vaddr + ${2:-0}))
	while read -r typ o v p fsz msz rest; do
		[ "$typ" = LOAD ] || continue
		if [ $addr -ge $((v)) ] && [ $addr -lt $((v + msz)) ]; then
			printf '0x%x\n' $((addr - v + o))
			return 0
		fi
	done < <(readelf -lW "$lib")
	return 1
}

# chain_count: read " path+0xoff ..." frames (or LOST, NOCOOKIE), one stack
# a line, and print "STACKS EXACT NONE": how many, how many are exactly
# $CHAIN in their first frames, how many have no stack. Each distinct
# stack is symbolized once.
chain_count() {
	local count frames n=0 exact=0 none=0

	while read -r count frames; do
		n=$((n + count))
		case "$frames" in
		LOST|NOCOOKIE) none=$((none + count)); continue ;;
		esac
		case "$(symbols "$frames")" in
		"$CHAIN"*) exact=$((exact + count)) ;;
		esac
	done < <(sort | uniq -c)
	echo "$n $exact $none"
}

# spin_frames PID EVENT [FILE]: the frames of PID's EVENT events after the return
# of its last write (sample_then's fflush, right before the loop).
spin_frames() {
	awk -F'|' -v p="$1" -v e="^$2" '
		NR == FNR {
			if ($1 == p && $4 ~ /^sys_write -> /)
				w = FNR
			next
		}
		FNR > w && $1 == p && $4 ~ e { print $5 }' "${3:-/tmp/events}" "${3:-/tmp/events}"
}

# spin_check NAME PID EVENT MIN [TAIL] (events in /tmp/events, from
# stitched): while PID spins in sample_spin's loop, running no other user
# code, every EVENT over it carries the loop's stack. The loop is the span
# from the first to the last event with that stack (before it, sample_then
# sets its timer up, through libc and ld.so; after it, sample_then tears
# the timer down and the program exits); at least MIN of its events carry
# the stack. TAIL (NMI events): an event with no cookie is no error there
# either, as long as it is one in MIN or fewer: an NMI in the tail of a
# return to user space, past its last tracepoint, gets none (the request is
# refused, see unwind_deferred_request()); it never gets a wrong stack.
spin_check() {
	local syms i=0 first=0 last=0 bad= seen= carried=0 nocookie=0 nc= n

	while read -r frames; do
		i=$((i + 1))
		if [ -n "${5:-}" ] && [ "$frames" = NOCOOKIE ]; then
			nc="$nc $i"
			continue
		fi
		# most events have the same frames: symbolize them once
		[ "$frames" = "$seen" ] || syms=$(symbols "$frames")
		seen=$frames
		case "$syms" in
		"sample_spin sample_then sample_middle sample_outer main"*)
			[ $first = 0 ] && first=$i
			carried=$((carried + 1))
			last=$i ;;
		*)	[ $first = 0 ] || bad="$bad|$i: $syms ($frames)" ;;
		esac
	done < <(spin_frames "$2" "$3")
	# other stacks after the loop ended do not count
	bad=$(echo "$bad" | tr '|' '\n' | awk -F: -v l=$last 'NF && $1 < l' | head -n 3)
	# and events without a cookie count only within the loop
	for n in $nc; do
		[ "$n" -gt $first ] && [ "$n" -lt $last ] && nocookie=$((nocookie + 1))
	done
	if [ $first -gt 0 ] && [ $carried -ge "$4" ] && [ -z "$bad" ] &&
	   [ $((nocookie * $4)) -le $carried ]; then
		pass "$1 ($carried events${5:+, $nocookie without a cookie})"
	else
		fail "$1 ($carried events with it, at least $4; $nocookie without a cookie)" \
		     "other stacks: $bad"
	fi
}

# uprobe_entry_syms PROG LIB OFFSET: run PROG 2 with a uprobe at LIB+OFFSET
# (a function's first instruction) and the option set; print the first six
# symbols of the probe event's stack. Returns 1 when the uprobe cannot be
# added.
uprobe_entry_syms() {
	local prog=$1 lib=$2 off=$3 pid frames

	trace_clear
	echo "p:ustack_entry $lib:$off" > $T/uprobe_events 2>/dev/null || return 1
	tw $T/events/uprobes/ustack_entry/enable 1
	tw $T/options/user_stacktrace_deferred 1
	tw $T/tracing_on 1
	"$prog" 2 > /dev/null &
	pid=$!
	wait $pid
	tw $T/tracing_on 0
	frames=$(stitched | awk -F'|' -v p=$pid '$1 == p && $4 ~ /ustack_entry/ {print $5; exit}')
	first_n 6 "$(symbols "$frames")"
	tw $T/events/uprobes/ustack_entry/enable 0
	echo > $T/uprobe_events
}
