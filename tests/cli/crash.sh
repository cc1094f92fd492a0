#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Crash consistency of mqblk target, short (issue 22 §1): bench/crash with
# 3 SIGKILLs of the target under the checker's writes, 0 violations; the
# checker itself catches what it must (an image that lost acknowledged
# writes, a torn sector, a sector of another block); and what the target
# acknowledges as durable has been through the file's flush: on faultfs
# with --eio-fsync (every fsync and every O_DSYNC write fails), a FUA
# write, a FUA Write Zeroes, a Flush, and with the write cache turned off
# (Set Features) any write, Write Zeroes or deallocate fail with Write
# Fault instead of being acknowledged; the same requests succeed on a
# faultfs whose flushes work.
# Usage: bash tests/cli/crash.sh MQBLK CRASH_CHECK FAULTFS ONE_IO
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CHECK=${2:-}
FAULTFS=${3:-}
ONE_IO=${4:-}
for b in "$CHECK" "$FAULTFS" "$ONE_IO"; do
	if [[ -z $b || ! -x $b ]]; then
		echo "FAIL setup: helper '$b' missing or not executable"
		exit 1
	fi
done
NQN=nqn.2024-01.io.mqblk:cli-crash
HOST=nqn.2024-01.io.mqblk:cli-crash-host
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# ---- bench/crash: 3 kills ----
# (at most 60 s: each cycle writes 0.2-0.8 s, then restart and verify)
RC=0
MQBLK=$MQBLK CHECK=$CHECK SLOTS=4096 MIN_MS=200 MAX_MS=800 \
	TMPDIR=$TMP timeout -k 5 120 "$ROOT/bench/crash" --kills=3 --seed=7 \
	>"$OUT" 2>"$ERR" </dev/null || RC=$?
last=$(tail -n 1 "$OUT")
if ((RC == 0)) && [[ $last =~ ^crash:\ 3\ kills,\ [0-9.]+[kM]?\ writes\ acknowledged,\ 0\ acknowledged\ writes\ lost,\ 0\ violations\ \(bar\ 0\)$ ]]; then
	pass bench-crash-3-kills
else
	fail bench-crash-3-kills "exit $RC, last line '$last': $(tail -n 3 "$ERR" | tr '\n' ' ')"
fi
acked=$(sed -n 's/^writes acknowledged: \([0-9]*\).*/\1/p' "$OUT")
check bench-crash-wrote [ "${acked:-0}" -gt 0 ]

# ---- the checker finds what it must ----
# One epoch of writes against a clean target, the target stopped; then
# verify against the image as written (0 violations), against the image
# before the writes (acknowledged writes lost), with one byte flipped
# (torn), with one block's sector copied over another's (foreign).
D=$TMP/chk
mkdir -p "$D"
truncate -s 16m "$TMP/chk.img"
"$CHECK" init "$D" 4096 11
cp "$TMP/chk.img" "$TMP/chk.before"
start_target --ns "$TMP/chk.img" --allow-host "$HOST" --reactors 1 ||
	exit 1
"$CHECK" write "$D" "$(uri nr_io_queues=1)" --seconds=1 --fua-every=2 \
	>"$OUT" 2>"$ERR"
check checker-wrote has_re '^acked=[1-9][0-9]* '
stop_target "$TPID" "$TLOG"
cp -a "$D" "$TMP/chk.saved"
cp "$TMP/chk.img" "$TMP/chk.after"

# verify_image NAME IMAGE WANT-KEY: verify the saved epoch against IMAGE;
# WANT-KEY empty: must pass, else that count must be above 0 and the
# verdict a failure
verify_image()
{
	local rc=0 n
	rm -rf "$D"
	cp -a "$TMP/chk.saved" "$D"
	cp "$2" "$TMP/chk.img"
	start_target --ns "$TMP/chk.img" --allow-host "$HOST" --reactors 1 ||
		exit 1
	"$CHECK" verify "$D" "$(uri nr_io_queues=1)" >"$OUT" 2>"$ERR" || rc=$?
	stop_target "$TPID" "$TLOG"
	if [[ -z $3 ]]; then
		if ((rc == 0)) && has 'violations=0'; then
			pass "$1"
		else
			fail "$1" "exit $rc: $(cat "$OUT") $(first_err)"
		fi
		return
	fi
	n=$(sed -n "s/.* $3=\([0-9]*\).*/\1/p" "$OUT")
	if ((rc == 1)) && ((${n:-0} > 0)); then
		pass "$1"
	else
		fail "$1" "exit $rc, $3=${n:-none}: $(cat "$OUT") $(first_err)"
	fi
}
verify_image checker-clean "$TMP/chk.after" ''
verify_image checker-lost "$TMP/chk.before" lost
# the first block written (its sectors begin with the magic)
first=$(python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
for i in range(0, len(d), 4096):
    if d[i:i + 4] == b"RCQM":
        print(i // 4096)
        break' "$TMP/chk.after")
cp "$TMP/chk.after" "$TMP/chk.torn"
printf '\x55' | dd of="$TMP/chk.torn" bs=1 seek=$((first * 4096 + 700)) \
	conv=notrunc status=none
verify_image checker-torn "$TMP/chk.torn" torn
cp "$TMP/chk.after" "$TMP/chk.foreign"
other=$(((first + 1) % 4096))
dd if="$TMP/chk.after" of="$TMP/chk.foreign" bs=512 skip=$((first * 8)) \
	seek=$((other * 8)) count=1 conv=notrunc status=none
verify_image checker-foreign "$TMP/chk.foreign" torn

# ---- durability: what is acknowledged went through the flush ----
if [[ ! -e /dev/fuse ]] || ! command -v fusermount3 >/dev/null; then
	skip_setup durability "no /dev/fuse or fusermount3 (fuse3)"
	finish
fi
mounts=()
fpids=()
# shellcheck disable=SC2317 # runs from the EXIT trap
unmount_all()
{
	local m p i
	[[ -n ${TPID:-} ]] && stop_target "$TPID" "$TLOG"
	for m in "${mounts[@]}"; do
		for ((i = 0; i < 50; i++)); do
			fusermount3 -u "$m" 2>/dev/null && break
			mountpoint -q "$m" || break
			sleep 0.1
		done
		mountpoint -q "$m" && fusermount3 -uz "$m" 2>/dev/null
	done
	for p in "${fpids[@]}"; do
		for ((i = 0; i < 100; i++)); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.02
		done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	mounts=()
	fpids=()
}
# on_exit takes the script's status from $?: hand it the one the script
# exited with, not unmount_all's
trap 'rc_=$?; unmount_all; (exit "$rc_"); on_exit' EXIT
if ((EUID == 0)); then
	fuse_opts=allow_other,default_permissions
else
	fuse_opts=default_permissions
fi
for fs in bad good; do
	mkdir -p "$TMP/$fs"
	extra=()
	[[ $fs == bad ]] && extra=(--eio-fsync)
	"$FAULTFS" --size=16m "${extra[@]}" "$TMP/$fs" -f -o "$fuse_opts" \
		</dev/null >"$TMP/faultfs-$fs.log" 2>&1 &
	fpids+=($!)
	mounts+=("$TMP/$fs")
	for ((i = 0; i < 250; i++)); do
		mountpoint -q "$TMP/$fs" && break
		sleep 0.02
	done
	mountpoint -q "$TMP/$fs" || {
		echo "FAIL setup: faultfs did not mount: $(head -n 2 "$TMP/faultfs-$fs.log")"
		exit 1
	}
done
# nsid 1 on the failing flushes, nsid 2 on the working ones
start_target --ns "$TMP/bad/disk.img" --ns "$TMP/good/disk.img" \
	--allow-host "$HOST" --reactors 1 || exit 1

# io NAME WANT(ok|fault) [--vwc-off] NSID OP
io()
{
	local name=$1 want=$2 rc=0 vwc=()
	shift 2
	[[ $1 == --vwc-off ]] && vwc=(--vwc-off) && shift
	timeout -k 5 20 "$ONE_IO" "${vwc[@]}" "$(uri "nr_io_queues=1&nsid=$1")" \
		"$2" 65536 8192 >"$OUT" 2>"$ERR" </dev/null || rc=$?
	if [[ $want == ok ]] && ((rc == 0)) && has "$2: ok"; then
		pass "$name"
	elif [[ $want == fault ]] && ((rc == 1)) && has 'NVMe status 0x280'; then
		pass "$name"
	else
		fail "$name" "exit $rc, want $want: $(cat "$OUT") $(first_err)"
	fi
}
for op in write write-zeroes discard read; do
	io "cached-$op-acknowledged" ok 1 "$op"
done
for op in write-fua write-zeroes-fua flush; do
	io "$op-durable-or-fault" fault 1 "$op"
	io "$op-flushing-fs-ok" ok 2 "$op"
done
for op in write write-zeroes discard; do
	io "vwc-off-$op-durable-or-fault" fault --vwc-off 1 "$op"
	io "vwc-off-$op-flushing-fs-ok" ok --vwc-off 2 "$op"
done
# the shutdown flush of nsid 1 fails: said, and the exit status is not 0
stop_target_log=$TLOG
kill -TERM "$TPID" 2>/dev/null
stop_rc=0
wait "$TPID" 2>/dev/null || stop_rc=$?
TPID=
check shutdown-flush-failure-logged grep -q 'namespace 1: flush of its cache failed' "$stop_target_log"
check "shutdown-flush-failure: stopped, not cleanly ($(grep -m1 'stopped' "$stop_target_log"))" \
	grep -q 'stopped: 1 namespace cache flush(es) failed' "$stop_target_log"
check "shutdown-flush-failure: exit status 1 ($stop_rc)" test "$stop_rc" = 1
unmount_all
finish
