#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/soak's history checker (build/soak-check): a short run on a
# memory-backed null device holds its history; --check=FILE on written
# histories finds a lost acknowledged write, a generation never written,
# a block never read back and a torn read, accepts a failed write that
# landed, and refuses a malformed line.
# Usage: bash tests/cli/soak_check.sh build/mqblk build/soak-check
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SC=${2:-}
[[ -x $SC ]] || {
	fail setup "soak-check binary '$SC' missing"
	finish
}

# hist NAME LINES...: a history file
hist()
{
	local f=$TMP/$1
	shift
	printf '%s\n' "$@" >"$f"
	echo "$f"
}

# chk FILE: soak-check --check=FILE; sets RC, OUT, ERR
chk()
{
	RC=0
	"$SC" --check="$1" >"$OUT" 2>"$ERR" </dev/null || RC=$?
}

RC=0
timeout 60 "$SC" --uri=null:size=16m,memory_backed=1 --seconds=1 --qd=8 \
	--history="$TMP/run.hist" >"$OUT" 2>"$ERR" </dev/null || RC=$?
check "a 1 s run on null holds its history (exit $RC: $(head -c 200 "$ERR"))" test "$RC" = 0
check "the run read every block back" grep -q "final_reads=4096 lost=0 verify_errors=0" "$OUT"

chk "$(hist ok 'A 1 5' 'R 1 5' 'A 1 9' 'V 1 9' 'R 2 0' 'V 2 0')"
check "a consistent history passes" test "$RC" = 0
chk "$(hist lost 'A 1 5' 'A 1 9' 'V 1 5')"
check "an older acknowledged generation is a lost write" \
	test "$RC" = 1 -a -n "$(grep -l 'lost=1 ' "$OUT")"
chk "$(hist zero 'A 1 5' 'R 1 0' 'V 1 5')"
check "zeros after an acknowledgement is a lost write" grep -q "lost=1 " "$OUT"
chk "$(hist maybe 'A 1 5' 'F 1 7' 'V 1 7')"
check "a failed write that landed is allowed" test "$RC" = 0
chk "$(hist stale 'A 1 5' 'F 1 7' 'A 1 9' 'V 1 7')"
check "a failed write landing after a later acknowledgement is a lost write" grep -q "lost=1 " "$OUT"
chk "$(hist never 'A 1 5' 'V 1 6')"
check "a generation never written is a verify error" \
	test "$RC" = 1 -a -n "$(grep -l 'verify_errors=1' "$OUT")"
chk "$(hist torn 'A 1 5' 'X 1' 'V 1 X')"
check "torn reads are verify errors" grep -q "verify_errors=2" "$OUT"
chk "$(hist unread 'A 1 5' 'A 2 6' 'V 1 5')"
check "a written block never read back is a verify error" grep -q "verify_errors=1" "$OUT"
chk "$(hist bad 'A 1 5' 'Q 1 2')"
check "a malformed line: exit 2, one line naming it" \
	test "$RC" = 2 -a "$(cat "$ERR")" = "soak-check: $TMP/bad:2: not a history line"
finish
