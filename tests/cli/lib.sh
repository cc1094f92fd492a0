# SPDX-License-Identifier: MIT
# Shared by the CLI tests (sourced): run the real mqblk binary with a
# timeout, record PASS/FAIL/SKIP per named check, exit non-zero if any
# failed. Usage of a test: bash tests/cli/NAME.sh /path/to/build/mqblk
#
# Skips: a check that cannot run prints one line "SKIP name: why" and is
# counted ("N checks passed, F failed, S skipped"). skip is for what this
# machine truly lacks (one CPU, a kernel built without something);
# skip_setup for what scripts/deps installs or root can set up, which
# under CI=true (root, scripts/deps run) is a failure instead.
# shellcheck shell=bash

set -uo pipefail

MQBLK=${1:-}
if [[ -z $MQBLK || ! -x $MQBLK ]]; then
	echo "FAIL setup: mqblk binary '${MQBLK}' missing or not executable"
	exit 1
fi
TEST_NAME=$(basename "$0" .sh)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mqblk-cli.XXXXXX")
# (stop_target: a test's own target, if one is still up; a failure there
# fails the test even when it ends another way than finish)
on_exit()
{
	local rc=$?
	trap - EXIT
	# shellcheck disable=SC2119 # no arguments: TPID and TLOG
	if [[ -n ${TPID:-} ]] && ! stop_target && ((rc == 0)); then
		rc=1
	fi
	rm -rf "$TMP"
	exit "$rc"
}
trap on_exit EXIT
OUT=$TMP/stdout
ERR=$TMP/stderr
RC=0
nr_pass=0
nr_fail=0
nr_skip=0
TRACEFS=

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

# ci: true under CI=true, where the suite runs as root after scripts/deps
ci()
{
	[[ ${CI:-} == true ]]
}

# skip NAME WHY: NAME cannot run because this machine truly lacks WHY
# (name it: "one CPU", "this kernel has no io_uring trace events").
skip()
{
	echo "SKIP $1: $2"
	nr_skip=$((nr_skip + 1))
}

# skip_setup NAME WHY: NAME cannot run for want of something scripts/deps
# installs or root sets up (WHY says what): a skip here, a failure under
# CI=true, where it must run.
skip_setup()
{
	if ci; then
		fail "$1" "skipped under CI=true, where it must run: $2"
	else
		skip "$1" "$2"
	fi
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

# status_problem: empty if the last run neither hung nor crashed, else why
# (with the last line it wrote to stderr, which says where it was).
status_problem()
{
	if ((RC == 124 || RC == 137)); then
		echo "hung (killed at its time limit: 20 s by run, 150 s by run_bg); its last stderr line: $(tail -n 1 "$ERR")"
	elif ((RC >= 128)); then
		echo "crashed (status $RC, signal $((RC - 128))); its last stderr line: $(tail -n 1 "$ERR")"
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

# tracefs: set TRACEFS to the tracefs mount point, mounting tracefs on
# /sys/kernel/tracing first if root and it is mounted nowhere (it stays
# mounted, as systemd would have it; other tests may be using it). Status
# 1 with why in TRACEFS_WHY if there is none: TRACEFS_LACKS=1 when the
# kernel has no tracefs at all (not something root can set up).
# shellcheck disable=SC2034 # the TRACEFS* variables are for the caller
tracefs()
{
	local d
	TRACEFS=
	TRACEFS_WHY=
	TRACEFS_LACKS=0
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[[ -e $d/trace ]] && TRACEFS=$d && return 0
	done
	if ! grep -qw tracefs /proc/filesystems; then
		TRACEFS_WHY="this kernel has no tracefs (CONFIG_TRACING off)"
		TRACEFS_LACKS=1
		return 1
	fi
	if ((EUID != 0)); then
		TRACEFS_WHY="tracefs not mounted and not root to mount it"
		return 1
	fi
	if ! mount -t tracefs tracefs /sys/kernel/tracing 2>"$TMP/tracefs.err"; then
		TRACEFS_WHY="mount -t tracefs on /sys/kernel/tracing failed: $(head -n 1 "$TMP/tracefs.err")"
		return 1
	fi
	TRACEFS=/sys/kernel/tracing
}

finish()
{
	# a target still up is stopped now, so its exit status and log count
	if [[ -n ${TPID:-} ]]; then
		# shellcheck disable=SC2119 # no arguments: TPID and TLOG
		stop_target
	fi
	echo "$TEST_NAME: $nr_pass checks passed, $nr_fail failed, $nr_skip skipped"
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
	# emptied before the fork, as run_bg does: wait_ready must not find
	# the previous target's "ready" before the child truncates the log
	: >"$TLOG"
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
	# emptied here, not only by the child's redirections: those happen
	# after the fork, and a caller polling $ERR for the job's status line
	# (report.sh's wait_status) could otherwise still find the previous
	# run's and signal a job that has not started
	: >"$OUT"
	: >"$ERR"
	timeout -k 5 150 "$MQBLK" "$@" >"$OUT" 2>"$ERR" </dev/null &
	BPID=$!
}

# sanitizer_report LOG: the first sanitizer report in LOG (ASan, UBSan,
# TSan, LSan), with some context; empty if none.
sanitizer_report()
{
	grep -E -A 20 'ERROR: AddressSanitizer|runtime error:|WARNING: ThreadSanitizer|LeakSanitizer' \
		"$1" 2>/dev/null | head -n 40
}

# exited PID: PID, a child of this shell, has exited (a zombie, or gone).
exited()
{
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
	[[ -z $st || $st == Z ]]
}

# reap_target PID LOG WANT HOW: wait for the target PID (at most 20 s, then
# SIGKILL), and check that it exited with status WANT and that LOG holds
# no sanitizer report; one check, named for HOW it was stopped. 1 if not.
nr_targets_stopped=0
reap_target()
{
	local pid=$1 log=$2 want=$3 how=$4 rc=0 why= report
	nr_targets_stopped=$((nr_targets_stopped + 1))
	for _ in $(seq 400); do
		exited "$pid" && break
		sleep 0.05
	done
	if ! exited "$pid"; then
		why="still running 20 s after $how (killed)"
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null || rc=$?
	if [[ -z $why ]] && ((rc != want)); then
		why="exit status $rc after $how, want $want"
	fi
	report=$(sanitizer_report "$log")
	if [[ -n $report ]]; then
		why="${why:+$why; }a sanitizer report in its log"
	fi
	if [[ -n $why ]]; then
		fail "target $nr_targets_stopped ($how): exits $want, clean log" "$why"
		echo "--- target log ($log), last 40 lines:"
		if [[ -n $report ]]; then
			echo "$report"
		else
			tail -n 40 "$log"
		fi
		return 1
	fi
	pass "target $nr_targets_stopped ($how): exits $want, clean log"
}

# kill_target: the target dies at once (SIGKILL: no goodbye to anyone);
# its status must be 137 and its log, up to then, clean.
kill_target()
{
	local pid=$TPID
	TPID=
	kill -KILL "$pid"
	reap_target "$pid" "$TLOG" 137 SIGKILL
}

# stop_target [PID LOG]: SIGTERM to the target (TPID and TLOG unless
# given); it must exit 0 within 20 s with no sanitizer report in its log
# (a leak or an error at shutdown shows only here). 1 if not.
stop_target()
{
	local pid=${1:-$TPID} log=${2:-$TLOG}
	[[ -n $pid ]] || return 0
	[[ $pid == "$TPID" ]] && TPID=
	kill -TERM "$pid" 2>/dev/null
	reap_target "$pid" "$log" 0 SIGTERM
}

# uri [KEYS]: the target's namespace as HOST, with more URI keys
uri()
{
	echo "nvme-tcp://127.0.0.1:$PORT/$NQN?hostnqn=$HOST${1:+&$1}"
}

# mp_paths_carried N: the last JSON run's multipath device (in $OUT) has N
# paths, every one live and with completed I/O
mp_paths_carried()
{
	python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["jobs"][0]["multipath"]["paths"]
sys.exit(not (len(p) == int(sys.argv[2]) and
              all(x["state"] == "live" and x["completed"] > 0 for x in p)))
' "$OUT" "$1"
}
