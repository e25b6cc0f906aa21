# SPDX-License-Identifier: GPL-2.0
# What the two tests of ustack-flame --stream share (tests/guest/flame-stream.sh,
# make check's short one, and tests/long/flame-stream.sh, make
# check-stream's): the instance $I with getppid events, the receiver's
# Python module in $W, the cleanup of what they started ($pids),
# receiver() and counts(). Sourced after result.sh and ustack.sh.

FLAME=$USTACK_TOP/build/flamegraph/ustack-flame
RECV=$USTACK_TOP/tests/lib/otlp-receiver.py
PROTO=$USTACK_TOP/flamegraph/proto
NAME="flame-stream"
I=$T/instances/$NAME
CALLS=20
# the sample's getppid stack as the receiver folds it, outermost first
RE="^ustack-sample;([^;]*;)*main;sample_outer;sample_middle;ustack_lib_enter;ustack_lib_inner;ustack_lib_syscall [0-9]+\$"
W=/tmp/stream
pids=

cleanup() {
	local p

	for p in $pids; do
		kill -9 "$p" 2> /dev/null
	done
	wait 2> /dev/null
	[ -d $I ] && { echo 0 > $I/events/enable; rmdir $I; }
}
trap cleanup EXIT

if [ ! -x "$FLAME" ]; then
	fail "ustack-flame built" "no $FLAME (make flamegraph)"
	finish
fi
mkdir -p $W
if ! /usr/bin/python3 -c 'import google.protobuf' 2> /dev/null ||
   ! protoc -I "$PROTO" --python_out=$W otlp-profiles.proto; then
	fail "protoc and python3-protobuf" "not there (make deps)"
	finish
fi
rmdir $I 2> /dev/null
mkdir $I || { fail "instance" "cannot create $I"; finish; }
tw $I/events/syscalls/sys_enter_getppid/enable 1

# receiver NAME [PORT [PLAN]]: a receiver (pid $recv_pid) on PORT (0: any), its port in $port
receiver() {
	rm -f $W/$1.port
	/usr/bin/python3 "$RECV" $W "${2:-0}" $W/$1.port $W/$1.log "${3:-}" &
	recv_pid=$!
	pids="$pids $recv_pid"
	wait_until 120 test -s $W/$1.port || { fail "$1: the receiver starts" "no port"; finish; }
	port=$(cat $W/$1.port)
}

# counts FILE: the numbers of the streamer's summary line in FILE
counts() {
	local f=$1

	num() { sed -n "/--stream .* events read/s/$1/\\1/p" "$f"; }
	read_n=$(num '.* \([0-9]*\) samples in [0-9]* periods.*')
	periods=$(num '.* samples in \([0-9]*\) periods.*')
	sent=$(num '.*; \([0-9]*\) periods sent.*')
	sent_n=$(num '.* periods sent (\([0-9]*\) samples).*')
	edrop=$(num '.*, \([0-9]*\) dropped by the endpoint.*')
	edrop_n=$(num '.* dropped by the endpoint (\([0-9]*\) samples.*')
	qdrop=$(num '.*, \([0-9]*\) dropped from the full queue.*')
	qdrop_n=$(num '.* dropped from the full queue (\([0-9]*\) samples).*')
	overruns=$(num '.*ring buffer overruns: \([^;]*\);.*')
}
