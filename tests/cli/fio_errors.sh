#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fio's continue_on_error and ignore_error on real I/O errors: faultfs
# (tests/fuse/faultfs.c) serves a file whose 16 KiB at 1 MiB fail with EIO,
# reads and writes. The errors let go are counted (total_err, first_error
# in the JSON, the "errors    :" line, terse's last two fields), the job
# runs to its end, err= is the first error and the exit status is 0; an
# error not let go ends the job, exit 1. Each run is compared with fio
# 3.33's on the same file and options where fio is installed.
# Usage: bash tests/cli/fio_errors.sh /path/to/mqblk /path/to/faultfs
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FAULTFS=${2:-}
FIO=${FIO:-fio}
if [[ -z $FAULTFS || ! -x $FAULTFS ]]; then
	echo "FAIL setup: faultfs binary '$FAULTFS' missing or not executable"
	exit 1
fi
MNT=$TMP/f
FPID=

# Runs from the EXIT trap: unmount (a moment busy after a run), then
# lib.sh's own exit.
# shellcheck disable=SC2317
unmount_then_exit()
{
	local rc=$? i
	for ((i = 0; i < 50; i++)); do
		mountpoint -q "$MNT" || break
		fusermount3 -u "$MNT" 2>/dev/null && break
		sleep 0.1
	done
	if mountpoint -q "$MNT"; then
		fusermount3 -uz "$MNT" 2>/dev/null || umount -l "$MNT"
	fi
	if [[ -n $FPID ]]; then
		for ((i = 0; i < 100; i++)); do
			kill -0 "$FPID" 2>/dev/null || break
			sleep 0.02
		done
		kill -9 "$FPID" 2>/dev/null
		wait "$FPID" 2>/dev/null
	fi
	(exit "$rc")
	on_exit
}
trap unmount_then_exit EXIT

if [[ ! -e /dev/fuse ]] || ! command -v fusermount3 >/dev/null; then
	skip_setup "continue_on_error" "no /dev/fuse or fusermount3"
	finish
fi
mkdir -p "$MNT"
opts=default_permissions
((EUID == 0)) && opts=allow_other,default_permissions
"$FAULTFS" --size=4m --eio=1m-1040k --eio-write "$MNT" -f -o "$opts" \
	</dev/null >"$TMP/faultfs.log" 2>&1 &
FPID=$!
for ((i = 0; i < 250; i++)); do
	mountpoint -q "$MNT" && break
	sleep 0.02
done
if ! mountpoint -q "$MNT"; then
	echo "FAIL setup: faultfs did not mount: $(head -n 2 "$TMP/faultfs.log")"
	exit 1
fi
IMG=$MNT/disk.img
common=(--name=c --filename="$IMG" --bs=4k --size=2m --direct=1)

# fields DOC: error, total_err, first_error, read and write io_bytes of
# the JSON report in file DOC ('-' for a key fio leaves out)
fields()
{
	python3 -c '
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"][0]
print(j["error"], j.get("total_err", "-"), j.get("first_error", "-"),
      j["read"]["io_bytes"], j["write"]["io_bytes"])' "$1"
}

# same_as_fio NAME WANT-STATUS ARGS...: mqblk's run of ARGS exits
# WANT-STATUS; fio's run of them gives the same fields (when fio is here)
same_as_fio()
{
	local name=$1 want=$2 got fgot
	shift 2
	run bench "${common[@]}" "$@" --output-format=json
	if ((RC != want)); then
		fail "$name" "exit status $RC, want $want: $(first_err)"
		return
	fi
	got=$(fields "$OUT")
	if ! command -v "$FIO" >/dev/null; then
		skip "$name: against fio" "no fio"
		pass "$name ($got)"
		return
	fi
	"$FIO" "${common[@]}" "$@" --output-format=json >"$TMP/fio.json" \
		2>/dev/null
	fgot=$(fields "$TMP/fio.json")
	if [[ $got == "$fgot" ]]; then
		pass "$name: as fio ($got)"
	else
		fail "$name" "mqblk '$got', fio '$fgot'"
	fi
}

# the four blocks at 1 MiB fail; 508 reads of 4k succeed
same_as_fio "continue_on_error=read over 4 bad blocks" 0 \
	--rw=read --continue_on_error=read
same_as_fio "continue_on_error=io, a write job" 0 \
	--rw=write --continue_on_error=io
same_as_fio "ignore_error=,EIO: write errors let go" 0 \
	--rw=write --ignore_error=,EIO
same_as_fio "ignore_error=5 (a number): read errors let go" 0 \
	--rw=read --ignore_error=5
# not let go: the first error ends the job
same_as_fio "no continue_on_error: the first EIO ends it" 1 --rw=read
same_as_fio "continue_on_error=read, a write job: ends at the first" 1 \
	--rw=write --continue_on_error=read
same_as_fio "ignore_error=ENOSPC,ENOSPC: EIO ends it" 1 \
	--rw=write --ignore_error=ENOSPC,ENOSPC

# the normal report's lines and terse's two last fields
run bench "${common[@]}" --rw=read --continue_on_error=all
check "error_dump (default 1): an io_u error line for each of the 4" \
	test "$(grep -c 'io_u error on file .*disk.img: Input/output error: read offset=10[0-9]*, buflen=4096' "$ERR")" = 4
run bench "${common[@]}" --rw=read --continue_on_error=all --error_dump=0
ok "continue_on_error=all --error_dump=0: runs, nothing on stderr" &&
	check "continue_on_error: fio's errors line" \
		grep -q '^     errors    : total=4, first_error=5/<Input/output error>$' "$OUT" &&
	check "continue_on_error: err= 5 in the header" \
		grep -q '^c: (groupid=0, jobs=1): err= 5 ' "$OUT"
run bench "${common[@]}" --rw=read --continue_on_error=1 --minimal \
	--error_dump=0
ok "continue_on_error=1 --minimal" &&
	check "terse: total_err;first_error last" \
		grep -q ';4;5$' "$OUT"

# bad values, fio's words
run bench "${common[@]}" --rw=read --continue_on_error=sometimes
failed "continue_on_error=sometimes" \
	"failed parsing continue_on_error=sometimes"
run bench "${common[@]}" --rw=read --ignore_error=EWHAT
failed "ignore_error=EWHAT" "Unknown error EWHAT, please use number value"
run bench "${common[@]}" --rw=read --ignore_error=5,5,5,5
failed "ignore_error with four lists" "Illegal error type"

finish
