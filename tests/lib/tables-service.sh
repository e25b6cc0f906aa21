# SPDX-License-Identifier: GPL-2.0
# How a guest test starts and stops the tables service (ustack-sframe
# serve, docs/tables-service.md), as the unit ustack-sframe-serve.service
# does on a machine: in the background, its output in a log, its cache and
# status file given. Sourced after result.sh and ustack.sh.

SERVE_TOOL=$USTACK_TOP/build/sframe/ustack-sframe
SERVE_CACHE=${SERVE_CACHE:-/tmp/ustack-sframe-cache}
SERVE_STATUS=${SERVE_STATUS:-/run/ustack-sframe-serve.status}
SERVE_LOG=${SERVE_LOG:-/tmp/serve.log}
serve_pid=

# serve_start: start the service, wait (60 s at most) until its first scan
# of the running processes is done; 1 when it did not come
serve_start() {
	local n0

	n0=$(grep -c '^serving:' "$SERVE_LOG" 2>/dev/null)
	"$SERVE_TOOL" serve --cache "$SERVE_CACHE" --status "$SERVE_STATUS" >> "$SERVE_LOG" 2>&1 &
	serve_pid=$!
	wait_until 60 serve_started "${n0:-0}"
}

# serve_started N: the service said it serves more than N times in its log
serve_started() { test "$(grep -c '^serving:' "$SERVE_LOG")" -gt "$1"; }

# serve_stop: stop it (SIGTERM), wait for it; its exit status is returned
serve_stop() {
	local rc

	[ -n "$serve_pid" ] || return 0
	kill -TERM "$serve_pid" 2>/dev/null
	wait "$serve_pid"
	rc=$?
	serve_pid=
	return $rc
}

# serve_stat NAME: a counter of its status file
serve_stat() { awk -v n="$1" '$1 == n { print $2 }' "$SERVE_STATUS"; }
