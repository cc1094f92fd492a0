#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Faults below the uring driver, from a real filesystem: faultfs (FUSE,
# tests/fuse/faultfs.c) serves disk.img and fails chosen ranges. An EIO or
# a short read fails the job: exit 1, one "io_u error on file ..." line
# naming the file, the errno text and the offset, err= 5 in the report,
# the same counts in the JSON. A read that outlives the device timeout
# does not hang the run. An O_DIRECT open the filesystem refuses, a file
# mqblk may not open and a write job on a read-only mount are one clear
# line and exit 1. A read that never answers (a hung device) fails the
# device after timeout_rearms= cancels: new I/O fails with EIO, the run
# gives up on the stuck read within a bound and exits 1 counting it; one
# released before the cap completes with its data. Never a hang or a
# crash; the mounts go in the EXIT trap.
# Usage: bash tests/cli/uring_faults.sh /path/to/mqblk /path/to/faultfs
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FAULTFS=${2:-}
if [[ -z $FAULTFS || ! -x $FAULTFS ]]; then
	echo "FAIL setup: faultfs binary '$FAULTFS' missing or not executable"
	exit 1
fi

mounts=()
pids=()

# Runs from the EXIT trap.
# shellcheck disable=SC2317
cleanup()
{
	local m p i
	# a tracefs instance of the delay checks, if one is left
	if declare -F untrace >/dev/null; then
		untrace
	fi
	# --stall daemons answer their stalled reads (the mount is busy
	# until the kernel has them); the others ignore SIGUSR1 (blocked)
	for p in "${pids[@]}"; do
		kill -USR1 "$p" 2>/dev/null
	done
	for m in "${mounts[@]}"; do
		# busy for a moment after a run: an exited process's io_uring
		# drops its file references in a kernel worker, shortly after
		for ((i = 0; i < 50; i++)); do
			fusermount3 -u "$m" 2>/dev/null && break
			mountpoint -q "$m" || break
			sleep 0.1
		done
		if mountpoint -q "$m"; then
			echo "cleanup: $m still busy, detaching it lazily" >&2
			fusermount3 -uz "$m" 2>/dev/null || umount -l "$m"
		fi
	done
	for p in "${pids[@]}"; do
		# the daemon ends once unmounted; give it 2 s, then kill it
		for ((i = 0; i < 100; i++)); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.02
		done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

# The mount options: others may look in (for the run as nobody) and the
# kernel checks the file's mode, as on a disk filesystem.
if ((EUID == 0)); then
	fuse_opts=allow_other,default_permissions
else
	fuse_opts=default_permissions
fi

# mount DIR FAULTFS-ARGS...: mount faultfs at $TMP/DIR in the foreground
# (its pid kept for cleanup), waiting until it is mounted; 1 if it is not.
mount_faultfs()
{
	local dir=$TMP/$1 log=$TMP/faultfs-$1.log i
	shift
	mkdir -p "$dir"
	"$FAULTFS" "$@" "$dir" -f -o "$fuse_opts" </dev/null >"$log" 2>&1 &
	pids+=($!)
	mounts+=("$dir")
	for ((i = 0; i < 250; i++)); do
		mountpoint -q "$dir" && return 0
		kill -0 "${pids[-1]}" 2>/dev/null || break
		sleep 0.02
	done
	echo "FAIL setup: faultfs did not mount $dir: $(head -n 2 "$log")"
	exit 1
}

# one_line NAME: the last run wrote exactly one line to stderr and nothing
# to stdout.
one_line()
{
	local why='' lines
	lines=$(wc -l <"$ERR")
	((lines != 1)) && why="$lines lines on stderr, want 1: $(first_err)"
	[[ -z $why && -s $OUT ]] && why="wrote to stdout: $(head -n 1 "$OUT")"
	if [[ -n $why ]]; then
		fail "$1" "$why"
	else
		pass "$1"
	fi
}

# errors_of FILE: the errors= count of the "mqblk :" line in a normal report.
errors_of()
{
	sed -n 's/^ *mqblk *:.*, errors=\([0-9]*\).*/\1/p' "$1" | head -n 1
}

# json_errors NAME WANT-ERRNO WANT-ERRORS: the last run's JSON has one job
# whose error is WANT-ERRNO and whose mqblk errors count is WANT-ERRORS.
json_errors()
{
	local got
	got=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(j["error"], j["mqblk"]["errors"])' "$OUT" 2>&1)
	if [[ $got == "$2 $3" ]]; then
		pass "$1"
	else
		fail "$1" "JSON error, mqblk.errors = '$got', want '$2 $3'"
	fi
}

# Faults at 1 MiB (EIO, writes too), 2 MiB (short reads) and 8 MiB
# (reads answered after 2 s); disk.img is root's, mode 600.
mount_faultfs f --size=16m --eio=1m-1028k --eio-write --short=2m-2052k \
	--delay=8m-8196k:2000 --mode=600
IMG=$TMP/f/disk.img

# Control: a clean range reads and writes, direct and buffered.
for direct in 1 0; do
	run bench --name=c --filename="$IMG" --rw=randrw --bs=4k --offset=4m \
		--size=1m --iodepth=8 --direct=$direct
	check "control-clean-range-direct$direct" [ "$RC" = 0 ]
	check "control-clean-range-direct$direct-err0" has 'err= 0'
done

# EIO in the middle of a random read, O_DIRECT and buffered.
for direct in 1 0; do
	run bench --name=e --filename="$IMG" --rw=randread --bs=4k --size=2m \
		--iodepth=4 --direct=$direct
	failed "eio-direct$direct" "io_u error on file $IMG: " \
		'Input/output error: read offset=1048576, buflen=4096'
	check "eio-direct$direct-one-line" [ "$(wc -l <"$ERR")" = 1 ]
	check "eio-direct$direct-err5" has 'err= 5 (error=Input/output error)'
	errors=$(errors_of "$OUT")
	check "eio-direct$direct-counted" [ "${errors:-0}" -ge 1 ]
	run bench --name=e --filename="$IMG" --rw=randread --bs=4k --size=2m \
		--iodepth=4 --direct=$direct --output-format=json
	failed "eio-direct$direct-json" 'Input/output error'
	json_errors "eio-direct$direct-json-counts" 5 "${errors:-0}"
done

# EIO on a write.
run bench --name=w --filename="$IMG" --rw=write --bs=4k --offset=1020k \
	--size=16k --iodepth=1 --direct=1
failed write-eio "io_u error on file $IMG: " \
	'Input/output error: write offset=1048576, buflen=4096'
check write-eio-err5 has 'err= 5'

# A short read (half the bytes) is an I/O error, not a silent success.
for direct in 1 0; do
	run bench --name=s --filename="$IMG" --rw=randread --bs=4k --offset=2m \
		--size=1m --iodepth=4 --direct=$direct
	failed "short-direct$direct" "io_u error on file $IMG: " \
		'Input/output error: read offset=2097152, buflen=4096'
	check "short-direct$direct-err5" has 'err= 5 (error=Input/output error)'
	errors=$(errors_of "$OUT")
	check "short-direct$direct-counted" [ "${errors:-0}" -ge 1 ]
	run bench --name=s --filename="$IMG" --rw=randread --bs=4k --offset=2m \
		--size=1m --iodepth=4 --direct=$direct --output-format=json
	json_errors "short-direct$direct-json-counts" 5 "${errors:-0}"
done

# A read 2 s late with a 200 ms device timeout. The driver asks io_uring to
# cancel it; a FUSE read is not in io-wq but handed to the daemon as an
# async request, which io_uring cannot take back (the cancel ends -ENOENT,
# again on each re-armed timer), so the read completes with its real
# result: the run takes the 2 s, succeeds, and counts no timeout. A hang
# is the bug to catch; a read failed with ETIMEDOUT would mean the cancel
# won, and would need this test to change. The cancels must go out while
# the read is pending, not when it ends: a sole submitter asleep in
# io_uring_enter is kicked awake to submit them (tracefs counts them).
# tracefs (lib.sh) mounts it if root can; what it cannot give is a skip
# that names why (under CI=true a failure unless the kernel lacks it).
trace=
trace_why=
trace_lacks=0
if ((EUID != 0)); then
	trace_why="not root (a tracefs instance needs root)"
elif ! tracefs; then
	trace_why=$TRACEFS_WHY
	trace_lacks=$TRACEFS_LACKS
fi
tr=$TRACEFS
if [[ -n $tr && ! -d $tr/events/io_uring/io_uring_submit_req ]]; then
	trace_why="this kernel has no io_uring trace events ($tr/events/io_uring)"
	trace_lacks=1
elif [[ -n $tr ]] && ! mkdir "$tr/instances/mqblk-uring-faults.$$" 2>"$TMP/instance.err"; then
	trace_why="mkdir $tr/instances/mqblk-uring-faults.$$: $(head -n 1 "$TMP/instance.err")"
elif [[ -n $tr ]]; then
	trace=$tr/instances/mqblk-uring-faults.$$
	# IORING_OP_ASYNC_CANCEL is opcode 14
	echo 'opcode == 14' >"$trace/events/io_uring/io_uring_submit_req/filter"
fi
untrace()
{
	[[ -n $trace ]] || return 0
	echo 0 >"$trace/events/io_uring/io_uring_submit_req/enable"
	rmdir "$trace" 2>/dev/null
	trace=
}
for how in default hipri remote buffered; do
	# re-armed up to 20 times: past 2 s, not failed at the default 4
	uri="$IMG?timeout=200,timeout_rearms=20"
	opts=(--direct=1)
	case $how in
	hipri) opts+=(--hipri) ;;
	remote) uri+=",complete=remote" ;;
	buffered) opts=(--direct=0) ;;
	esac
	if [[ -n $trace ]]; then
		echo >"$trace/trace"
		echo 1 >"$trace/events/io_uring/io_uring_submit_req/enable"
	fi
	start=$(date +%s%N)
	run bench --name=d --filename="$uri" --rw=read --bs=4k --offset=8m \
		--size=16k --iodepth=2 "${opts[@]}"
	ms=$((($(date +%s%N) - start) / 1000000))
	if [[ -n $trace ]]; then
		echo 0 >"$trace/events/io_uring/io_uring_submit_req/enable"
		# a timer re-armed every 200 ms over the ~2 s of the delayed
		# reads: cancels spread over more than a second if they go out
		# on time, all at one instant if only when the reads end
		spread=$(awk '/ASYNC_CANCEL/ {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^[0-9]+\.[0-9]+:$/) t = $i + 0
			if (!n++) first = t
			last = t
		} END { printf "%d", (last - first) * 1000 }' "$trace/trace")
		check "delay-$how-cancels-on-time" [ "$spread" -ge 1000 ]
	else
		if ((trace_lacks)); then
			skip "delay-$how-cancels-on-time" "$trace_why"
		else
			skip_setup "delay-$how-cancels-on-time" "$trace_why"
		fi
	fi
	ok "delay-$how-completes"
	check "delay-$how-waited-for-the-read" [ "$ms" -ge 1900 ]
	check "delay-$how-err0" has 'err= 0'
	check "delay-$how-no-timeout-counted" \
		has_re 'mqblk +: .*timeouts=0, errors=0\b'
	check "delay-$how-all-read" has 'issued rwts: total=4,0,0,0'
done
untrace

# A device that really stalls: faultfs --stall holds reads (and writes)
# at 8 MiB until SIGUSR1, deaf to FUSE interrupts, as a dead disk or
# server. Past its cap
# of 2 cancels (3 timeouts of 200 ms) the driver fails the device: one
# line naming the file and the read; 'other', on the same device, then
# fails at once with EIO instead of waiting behind it; 'stuck' gives up
# on its read one device timeout later (err=110, counted as a timeout and
# an error) and the run exits 1. The stalled read stays the kernel's: the
# process exits without freeing its buffer. No hang, no crash (ASan).
mount_faultfs s --size=16m --stall=8m-8196k --stall-write
SIMG=$TMP/s/disk.img
suri="$SIMG?timeout=200,timeout_rearms=2"
sre=${suri//\?/\\?} # as an ERE
run bench --filename="$suri" --direct=1 --bs=4k \
	--name=stuck --rw=read --offset=8m --size=4k \
	--name=other --rw=randread --offset=0 --size=4m --time_based \
	--runtime=15 --rate_iops=200
failed stall-cap "^mqblk: uring: $SIMG: read offset=8388608 length=4096 stuck for [0-9.]+ s \(2 cancels refused, timeout_rearms=2\): device failed, new I/O fails with EIO\$" \
	"^mqblk: other: io_u error on file $sre: Input/output error: read offset=" \
	"^mqblk: stuck: 1 I/O stuck on failed device $sre, given up after 0.2 s more: exiting without freeing its buffer\$"
check stall-cap-one-device-line [ "$(grep -c 'device failed' "$ERR")" = 1 ]
check stall-cap-stuck-err110 has_re '^stuck: .*err=110 '
check stall-cap-other-err5 has_re '^other: .*err= 5 '
check stall-cap-stuck-counted \
	has_re 'mqblk +: .*timeouts=1, errors=1, verify_errors=0'
check stall-cap-other-failed-fast \
	has_re 'mqblk +: .*timeouts=0, errors=[1-9][0-9]*, verify_errors=0'
check stall-cap-faultfs-held-it \
	grep -q 'stalled read offset=8388608 length=4096' "$TMP/faultfs-s.log"
# the same in JSON: the job's error and the mqblk error count
run bench --name=stuck --filename="$suri" --direct=1 --bs=4k --rw=read \
	--offset=8m --size=4k --output-format=json
failed stall-cap-json 'given up after'
json_errors stall-cap-json-counts 110 1
# the stuck read on the second file of a job (nrfiles=2): the job gives
# up on that file's device, and names it, not its first file's
GIMG=$TMP/good.img
truncate -s 16m "$GIMG"
run bench --name=two --filename="$GIMG:$suri" --direct=1 --bs=4k \
	--rw=read --offset=8m --size=8k
failed stall-cap-2nd-file \
	"^mqblk: two: 1 I/O stuck on failed device $sre, given up after 0.2 s more: exiting without freeing its buffer\$"
check stall-cap-2nd-file-err110 has_re '^two: .*err=110 '
# a write held the same way (--stall-write), on a device of its own
run bench --name=w --filename="$SIMG?timeout=200,timeout_rearms=1" \
	--direct=1 --bs=4k --rw=write --offset=8m --size=4k
failed stall-cap-write "^mqblk: uring: $SIMG: write offset=8388608 length=4096 stuck for [0-9.]+ s \(1 cancels refused, timeout_rearms=1\): device failed" \
	'^mqblk: w: 1 I/O stuck on failed device'
check stall-cap-write-held \
	grep -q 'stalled write offset=8388608 length=4096' "$TMP/faultfs-s.log"

# A stalled read released (SIGUSR1) before the cap: it completes with its
# real data, checked by the verify pass of a write job (writes do not
# stall), and nothing times out for good.
mount_faultfs r --size=16m --stall=8m-8196k
RIMG=$TMP/r/disk.img
rpid=${pids[-1]}
RC=0
timeout -k 5 20 "$MQBLK" bench --name=v \
	--filename="$RIMG?timeout=200,timeout_rearms=50" --direct=1 --bs=4k \
	--rw=write --offset=8m --size=16k --verify=crc32c \
	</dev/null >"$OUT" 2>"$ERR" &
bpid=$!
for ((i = 0; i < 500; i++)); do
	grep -q 'stalled read' "$TMP/faultfs-r.log" && break
	sleep 0.02
done
# past a timeout or two, so the driver's cancels have gone out and lost
sleep 0.6
kill -USR1 "$rpid"
wait "$bpid" || RC=$?
ok stall-released-completes
check stall-released-verified has_re 'mqblk +: .*timeouts=0, errors=0, verify_errors=0'
check stall-released-faultfs-released \
	grep -q 'released 1 stalled I/O$' "$TMP/faultfs-r.log"

# The same device under the target: its host sees the read time out
# (Abort, then a controller reset, EIO); the target's SIGTERM then ends,
# bounded (its reactors' 10 s for busy queues, one device timeout more
# on the failed device), with one line for the stuck read and exit 1:
# its queue and device stay open and its buffer is never freed.
mount_faultfs ts --size=16m --stall=8m-8196k
NQN=nqn.2026-01.io.mqblk:stall
HOST=nqn.2026-01.io.mqblk:stall-host
turi="$TMP/ts/disk.img?timeout=200,timeout_rearms=2"
if start_target --allow-host "$HOST" --ns "$turi"; then
	run bench --name=h --filename="$(uri 'timeout=1000&ctrl_loss_tmo=0')" \
		--rw=read --bs=4k --offset=8m --size=4k --direct=1
	failed stall-target-host-times-out 'command [0-9]+ timed out' \
		'Input/output error: read offset=8388608'
	check stall-target-device-failed \
		grep -q 'device failed, new I/O fails with EIO' "$TLOG"
	tpid=$TPID
	TPID=
	kill -TERM "$tpid"
	reap_target "$tpid" "$TLOG" 1 SIGTERM
	check stall-target-stuck-line grep -qE \
		'namespace 1 \(.*\): 1 request stuck on its failed device: left to the kernel' \
		"$TLOG"
else
	fail stall-target-start "$(tail -n 3 "$TLOG")"
fi

# As nobody: disk.img is mode 600, root's.
if ((EUID == 0)) && command -v setpriv >/dev/null; then
	chmod 755 "$TMP"
	MQBLK_ROOT=$MQBLK
	MQBLK=setpriv run --reuid=65534 --regid=65534 --clear-groups \
		"$MQBLK_ROOT" bench --name=p --filename="$IMG" --rw=read \
		--size=1m
	failed no-permission "^mqblk: .*$IMG: Permission denied"
	one_line no-permission-one-line
else
	if ((EUID != 0)); then
		skip_setup no-permission "not root"
	else
		skip_setup no-permission "no setpriv (util-linux, scripts/deps)"
	fi
fi

# A filesystem that refuses O_DIRECT, mounted read-only.
mount_faultfs nd --size=4m --no-direct -o ro
NDIMG=$TMP/nd/disk.img
run bench --name=n --filename="$NDIMG" --rw=randread --size=1m --direct=1
failed no-direct "^mqblk: .*$NDIMG: O_DIRECT refused by the filesystem"
one_line no-direct-one-line
run bench --name=n --filename="$NDIMG" --rw=randread --size=1m --direct=0
check no-direct-buffered-reads [ "$RC" = 0 ]
run bench --name=n --filename="$NDIMG" --rw=randwrite --size=1m --direct=0
failed read-only-write-job "^mqblk: .*$NDIMG: Read-only file system"
one_line read-only-write-job-one-line

finish
