#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ustack-flame --pprof-dir and --otlp-endpoint (issue 41, the export side of
# streaming): a profile per --period of the trace, written as pprof files
# or posted as OTLP/HTTP exports to a real receiver on loopback (Python's
# http.server decoding each export with Debian's python3-protobuf,
# tests/lib/otlp-receiver.py). The exports together hold the folded
# output's stacks and counts; a receiver that answers 503 or drops the
# connection is tried again, one that answers 400 loses that export, one
# that crashes mid-run and is restarted loses nothing or what is counted,
# a partial success that rejects an export drops it, counted,
# one that is not there loses everything, counted, and nothing crashes.
# --post-tries and --post-timeout change the 5 tries and the 5 s a step of
# a post may take (the waits between tries go 100 ms to 800 ms, then stay
# at 800 ms); a receiver that holds a post unanswered times it out.
# kstack.dat's 5 events in periods of 0.2 ms are 3 profiles (1, 2, 2).
# No root.
. "$(dirname "$0")/../lib/result.sh"
. "$(dirname "$0")/../lib/flame.sh"

KS=$FLAME_FX/kstack.dat
RECV=$USTACK_TOP/tests/lib/otlp-receiver.py
flame_require "ustack-flame built"
work=$(mktemp -d)
pids=
cleanup() {
	local p

	for p in $pids; do
		kill "$p" 2> /dev/null
	done
	wait 2> /dev/null
	rm -rf "$work"
}
trap cleanup EXIT
flame_setup "$work"

flame "$KS" > "$work/folded"

# -- --pprof-dir: 3 files, together the folded output
mkdir "$work/pd"
flame --pprof-dir "$work/pd" --period 0.0002 "$KS"
check "--pprof-dir: a pprof file per period, 3" test \
	"$(cd "$work/pd" && echo *)" = "ustack-000001.pb.gz ustack-000002.pb.gz ustack-000003.pb.gz"
if command -v protoc > /dev/null; then
	n=$(for f in "$work"/pd/*.pb.gz; do
		gzip -dc "$f" | protoc --decode=perftools.profiles.Profile \
			-I "$USTACK_TOP/flamegraph/proto" pprof.proto | grep -c '^  value: 1$'
	done | tr '\n' ' ')
	check "--pprof-dir: the files' samples, 1 2 2 ($n)" test "$n" = "1 2 2 "
else
	skip "--pprof-dir: the files' samples" "no protoc (make deps)"
fi
if command -v go > /dev/null && go tool pprof -h > /dev/null 2>&1; then
	HOME=$work GOCACHE=$work/gocache go tool pprof -symbolize=none -raw "$work"/pd/*.pb.gz \
		2> /dev/null | grep -c '^ *[0-9]*: [0-9 ]*$' > "$work/n"
	check "--pprof-dir: go tool pprof merges the files: every stack" test "$(cat "$work/n")" = 3
fi
out=$("$FLAME" -n --pprof-dir "$KS" "$KS" 2>&1)
check "--pprof-dir that is no directory: said, exit 1" test "$out $?" = \
	"ustack-flame: --pprof-dir $KS: not a directory 1"
out=$("$FLAME" -n --pprof-dir "$work/none" "$KS" 2>&1)
check "--pprof-dir that is not there: said, exit 1" test "$out $?" = \
	"ustack-flame: --pprof-dir $work/none: No such file or directory 1"
check "--pprof-dir with -o is refused (exit 2)" bash -c \
	"'$FLAME' --pprof-dir '$work/pd' -o x '$KS' 2>/dev/null; test \$? = 2"

# -- --otlp-endpoint, against the receiver
PY=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import google.protobuf' 2> /dev/null; then
		PY=$p
		break
	fi
done
if [ -z "$PY" ] || ! command -v protoc > /dev/null ||
   ! protoc -I "$USTACK_TOP/flamegraph/proto" --python_out="$work" otlp-profiles.proto; then
	skip "--otlp-endpoint" "no protoc or python3-protobuf (make deps)"
	finish
fi

# receiver NAME [PLAN] [PORT]: start a receiver (its pid $recv_pid), its port in
# $port and $work/NAME.port
receiver() {
	rm -f "$work/$1.port"
	"$PY" "$RECV" "$work" "${3:-0}" "$work/$1.port" "$work/$1.log" "${2:-}" &
	recv_pid=$!
	pids="$pids $recv_pid"
	wait_until 60 test -s "$work/$1.port" || { fail "$1: the receiver starts" "no port"; finish; }
	port=$(cat "$work/$1.port")
}

# received LOG: the folded lines of every export of LOG, added up, sorted
received() {
	awk '$1 != "export" { n[$1] += $2 } END { for (k in n) print k, n[k] }' "$1" | sort
}

# post NAME [ARGS]: ustack-flame's exports to the receiver of port $port; its
# status and the summary line in $work/NAME.out
post() {
	local name=$1

	shift
	flame -v --otlp-endpoint "http://127.0.0.1:$port" --period 0.0002 "$@" "$KS" \
		> "$work/$name.out" 2>&1
	echo "status $?" >> "$work/$name.out"
}

summary() { grep -o '[0-9]* profiles sent.*' "$1"; }

receiver ok
post ok
same "a receiver that takes all: the exports hold the folded output" "$work/folded" \
	<(received "$work/ok.log")
check "a receiver that takes all: 3 exports of 1, 2, 2 events, status 0" test \
	"$(grep '^export' "$work/ok.log" | tr '\n' ' ')$(tail -n 1 "$work/ok.out")" = \
	"export 1 export 2 export 2 status 0"

receiver retry 503,close
post retry
check "503, then a connection closed unanswered: tried again, all taken" test \
	"$(summary "$work/retry.out")" = \
	"3 profiles sent (5 events), 0 dropped (0 events; 0 of them rejected), 2 posts tried again"
same "503 and a closed connection: the exports hold the folded output" "$work/folded" \
	<(received "$work/retry.log")

receiver hostile garbage,short
post hostile
check "an answer that is not HTTP is tried again; one cut short is taken by its status" test \
	"$(summary "$work/hostile.out")" = \
	"3 profiles sent (5 events), 0 dropped (0 events; 0 of them rejected), 1 posts tried again"
check "an answer cut short: the export is counted sent, not taken (the receiver has 4 events)" \
	test "$(grep '^export' "$work/hostile.log" | tr '\n' ' ')" = "export 2 export 2 "

receiver refused 400
post refused
check "400: the export is dropped, counted, the others taken, status 1" test \
	"$(summary "$work/refused.out") $(tail -n 1 "$work/refused.out")" = \
	"2 profiles sent (4 events), 1 dropped (1 events; 0 of them rejected), 0 posts tried again status 1"
check "400: said with the HTTP status" grep -q 'export 1 of 1 events dropped: HTTP 400' \
	"$work/refused.out"
check "400: the receiver has the 4 other events" test \
	"$(grep '^export' "$work/refused.log" | tr '\n' ' ')" = "export 2 export 2 "

receiver partial ok,partial
post partial
check "a partial success that rejects the profile: dropped, counted, status 1" test \
	"$(summary "$work/partial.out") $(tail -n 1 "$work/partial.out")" = \
	"2 profiles sent (3 events), 1 dropped (2 events; 1 of them rejected), 0 posts tried again status 1"
check "a partial success: said with the receiver's message" grep -q \
	'export 2 of 2 events rejected: too old for this receiver' "$work/partial.out"

# a receiver that crashes on the second export and is started again on its
# port at once: that export is tried again until it is back (or dropped,
# counted: the retries take 1.5 s); what it took is what was counted sent
receiver crash ok,exit
post crash &
poster=$!
# started again once it is gone
wait "$recv_pid"
receiver crash "" "$port"
wait "$poster"
sent=$(summary "$work/crash.out" | sed -E 's/^[0-9]+ profiles sent \(([0-9]+) events\), [0-9]+ dropped \(([0-9]+) events;.*/\1 \2/')
check "a receiver that crashes and comes back: sent and dropped add up to 5 ($sent)" test \
	"$(echo "$sent" | awk '{ print $1 + $2 }')" = 5
check "a receiver that crashes and comes back: it has every event counted sent" test \
	"$(grep '^export' "$work/crash.log" | awk '{ n += $2 } END { print n }')" = \
	"${sent%% *}"
check "a receiver that crashes and comes back: the post was tried again" grep -qE \
	'rejected\), [1-9][0-9]* posts tried again' "$work/crash.out"

# no receiver: the port of one that is gone
for p in $pids; do
	kill "$p" 2> /dev/null
done
wait 2> /dev/null
pids=
post gone
check "no receiver: every export dropped after 5 tries, counted, status 1" test \
	"$(summary "$work/gone.out") $(tail -n 1 "$work/gone.out")" = \
	"0 profiles sent (0 events), 3 dropped (5 events; 0 of them rejected), 12 posts tried again status 1"
check "no receiver: said with the reason" grep -q 'dropped after 5 tries: Connection refused' \
	"$work/gone.out"
check "a URL that is not http:// is refused" bash -c \
	"'$FLAME' --otlp-endpoint https://x '$KS' 2>&1 | grep -q 'not http://HOST'"

# -- --post-tries and --post-timeout
post tries1 --post-tries 1
check "--post-tries 1, no receiver: each export dropped at its first post, none tried again" \
	test "$(summary "$work/tries1.out") $(tail -n 1 "$work/tries1.out")" = \
	"0 profiles sent (0 events), 3 dropped (5 events; 0 of them rejected), 0 posts tried again status 1"
check "--post-tries 1: said 'after 1 tries'" grep -q 'dropped after 1 tries: Connection refused' \
	"$work/tries1.out"
# one export of 7 tries: waits of 100, 200, 400, 800, 800 and 800 ms (3.1 s),
# not 6.3 s as doubling on would make them
t0=${EPOCHREALTIME/./}
post tries7 --post-tries 7 --period 86400
ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
check "--post-tries 7: one export dropped after 7 posts, 6 tried again" test \
	"$(summary "$work/tries7.out")" = \
	"0 profiles sent (0 events), 1 dropped (5 events; 0 of them rejected), 6 posts tried again"
check "--post-tries 7: the waits between them stop growing at 800 ms ($ms ms, 3100 waited)" \
	test "$ms" -ge 3100 -a "$ms" -lt 6000
receiver held hold
t0=${EPOCHREALTIME/./}
post held --post-timeout 0.3 --post-tries 2 --period 86400
ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
check "--post-timeout 0.3: a receiver that holds the post unanswered had it" \
	test "$(cat "$work/held.log")" = held
check "--post-timeout 0.3: the held post and the next time out, dropped, counted" \
	grep -q 'export 1 of 5 events dropped after 2 tries: Connection timed out' "$work/held.out"
check "--post-timeout 0.3: 2 posts of 0.3 s and a wait of 0.1 s ($ms ms; the default: 10 s)" \
	test "$ms" -ge 700 -a "$ms" -lt 4000
for bad in "--post-timeout 0" "--post-timeout 3601" "--post-timeout x" "--post-tries 0" \
	   "--post-tries 101"; do
	# shellcheck disable=SC2086 # the option and its value
	out=$("$FLAME" -n --otlp-endpoint "http://127.0.0.1:$port" $bad "$KS" 2>&1)
	check "$bad is refused, said (exit $?)" \
		test $? = 2 -a -n "$(echo "$out" | grep -- "${bad% *} from")"
done
out=$("$FLAME" -n --post-tries 2 "$KS" 2>&1)
check "--post-tries without --otlp-endpoint is refused (exit $?)" \
	test $? = 2 -a -n "$(echo "$out" | grep 'are of --otlp-endpoint')"
out=$("$FLAME" -n --pprof-dir "$work/pd" --post-timeout 1 "$KS" 2>&1)
check "--post-timeout with --pprof-dir is refused (exit $?)" \
	test $? = 2 -a -n "$(echo "$out" | grep 'are of --otlp-endpoint')"
finish
