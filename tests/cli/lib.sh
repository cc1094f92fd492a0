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
trap 'rm -rf "$TMP"' EXIT
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
