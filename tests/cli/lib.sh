# SPDX-License-Identifier: MIT
# Shared by the CLI tests (sourced): run the real mqblk binary with a
# timeout, record PASS/FAIL per named check, exit non-zero if any failed.
# Usage of a test: bash tests/cli/NAME.sh /path/to/build/mqblk
# shellcheck shell=bash

set -uo pipefail

MQBLK=${1:-}
if [[ -z $MQBLK || ! -x $MQBLK ]]; then
	echo "FAIL setup: mqblk binary '${MQBLK}' missing or not executable"
	exit 1
fi
TEST_NAME=$(basename "$0" .sh)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mqblk-cli.XXXXXX")
# (stop_target: a test's own target, if one is still up)
trap 'stop_target; rm -rf "$TMP"' EXIT
OUT=$TMP/stdout
ERR=$TMP/stderr
RC=0
nr_pass=0
nr_fail=0

pass()
{
	echo "PASS $1"
	nr_pass=$((nr_pass + 1))
}

# fail NAME [WHY]
fail()
{
	echo "FAIL $1${2:+: $2}"
	nr_fail=$((nr_fail + 1))
}

# check NAME COMMAND...: PASS if COMMAND succeeds.
check()
{
	local name=$1
	shift
	if "$@"; then
		pass "$name"
	else
		fail "$name" "not true: $*"
	fi
}

# run ARGS...: run mqblk ARGS with no stdin, at most 20 s; sets RC, OUT, ERR.
run()
{
	RC=0
	timeout -k 5 20 "$MQBLK" "$@" >"$OUT" 2>"$ERR" </dev/null || RC=$?
}

# status_problem: empty if the last run neither hung nor crashed, else why.
status_problem()
{
	if ((RC == 124 || RC == 137)); then
		echo "hung (killed after 20 s)"
	elif ((RC >= 128)); then
		echo "crashed (status $RC, signal $((RC - 128)))"
	fi
}

# first_err: the first line the last run wrote to stderr, for messages.
first_err()
{
	head -n 1 "$ERR"
}

# has FIXED-STRING: the last run's stdout contains it.
has()
{
	grep -qF -- "$1" "$OUT"
}

# has_re ERE: some line of the last run's stdout matches it.
has_re()
{
	grep -qE -- "$1" "$OUT"
}

# ok NAME: the last run exited 0, no crash or hang, nothing on stderr.
# Returns 1 when it failed, so a check can depend on it.
ok()
{
	local why
	why=$(status_problem)
	[[ -z $why ]] && ((RC != 0)) && why="exit status $RC: $(first_err)"
	[[ -z $why && -s $ERR ]] && why="stderr: $(first_err)"
	if [[ -n $why ]]; then
		fail "$1" "$why"
		return 1
	fi
	pass "$1"
}

# failed NAME ERE...: the last run exited 1 (no hang, no crash) and its
# stderr matches every ERE. Returns 1 when it failed.
failed()
{
	local name=$1 why re
	shift
	why=$(status_problem)
	[[ -z $why ]] && ((RC != 1)) && why="exit status $RC, want 1"
	for re in "$@"; do
		[[ -z $why ]] && ! grep -qE -- "$re" "$ERR" &&
			why="stderr lacks /$re/: $(first_err)"
	done
	if [[ -n $why ]]; then
		fail "$name" "$why"
		return 1
	fi
	pass "$name"
}

finish()
{
	echo "$TEST_NAME: $nr_pass checks passed, $nr_fail failed"
	exit $((nr_fail > 0))
}

# ---- NVMe/TCP tests: mqblk's own target on 127.0.0.1 ----
# The test sets NQN (the subsystem) and HOST (the host NQN) first.
TPID=
TLOG=$TMP/target.log

free_port()
{
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start_target ARGS...: mqblk target serving NQN on a free port (PORT),
# ARGS added; waits for "ready". Stopped at exit if still up.
start_target()
{
	PORT=$(free_port)
	"$MQBLK" target --listen "127.0.0.1:$PORT" --nqn "$NQN" \
		--stats-socket "$TMP/stats.sock" "$@" >"$TLOG" 2>&1 </dev/null &
	TPID=$!
	wait_ready
}

# wait_ready: until the target TPID logs "ready" in TLOG (10 s at most);
# 1, with its log, if it does not
wait_ready()
{
	for _ in $(seq 200); do
		grep -q ready "$TLOG" && return 0
		kill -0 "$TPID" 2>/dev/null || break
		sleep 0.05
	done
	echo "target did not start:" && cat "$TLOG"
	return 1
}

# wait_writes N [TRIES]: until the target (stats on $TMP/stats.sock) has
# taken N writes on its I/O queues, polling every 0.05 s at most TRIES
# times (600: 30 s). A job's device has finished opening once its writes
# arrive, which on a loaded machine may take a while.
wait_writes()
{
	local w
	for _ in $(seq "${2:-600}"); do
		w=$("$MQBLK" target --stats --stats-socket "$TMP/stats.sock" 2>/dev/null |
			awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
				$c["qid"] > 0 { s += $c["writes"] } END { print s + 0 }')
		((w >= $1)) && return 0
		sleep 0.05
	done
	return 1
}

# run_bg ARGS...: run in the background (BPID; 150 s at most: 256 MiB
# written and verified took over a minute under TSan beside another
# test); wait "$BPID" || RC=$? collects it
run_bg()
{
	RC=0
	timeout -k 5 150 "$MQBLK" "$@" >"$OUT" 2>"$ERR" </dev/null &
	BPID=$!
}

# kill_target: the target dies at once (SIGKILL: no goodbye to anyone)
kill_target()
{
	kill -KILL "$TPID"
	wait "$TPID" 2>/dev/null
	TPID=
}

stop_target()
{
	[[ -n $TPID ]] || return 0
	kill -TERM "$TPID" 2>/dev/null
	wait "$TPID" 2>/dev/null
	TPID=
}

# uri [KEYS]: the target's namespace as HOST, with more URI keys
uri()
{
	echo "nvme-tcp://127.0.0.1:$PORT/$NQN?hostnqn=$HOST${1:+&$1}"
}
