#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kernel-host.sh MQBLK: the acceptance test of `mqblk target` against the
# Linux kernel's NVMe/TCP host. Starts `MQBLK target` on 127.0.0.1 with a
# sparse backing file, boots Debian's kernel under QEMU (KVM if it works,
# else TCG), and runs in the guest: discovery; connect with 1 and 2 I/O
# queues and with header+data digests (id-ctrl, id-ns, fio verify); a big
# mixed-size fio crc32c verify; ext4 across a reconnect plus a pattern the
# host then finds in the backing file; keep-alive (the VM is frozen past
# KATO, the target must drop the controller, the host must reconnect);
# multipath (two paths through the target's two --listen ports, one set
# ANA inaccessible through `mqblk ctl`: the kernel's per-path ana_state
# follows and I/O goes on through the other path); a namespace added and
# removed through `mqblk ctl` (its /dev/nvmeXn2 appears and goes, no
# reconnect); nvme-cli's read-only
# commands (each must exit 0, as against nvmet); a second target with 300
# namespaces in two ANA groups, connected and disconnected (the shutdown
# must be answered, not ended by the keep-alive teardown).
#
# INTEROP_TARGET=external:PORT:DISCPORT:NQN[:SIZE] runs the same guest job
# against a target that is already listening on 127.0.0.1:PORT (e.g. the
# kernel's nvmet; then MQBLK is not needed, the backing-file check is
# skipped, and so is the keep-alive log check unless INTEROP_TARGET_LOG
# names the target's log). See README.md for the knobs.
# Exit: 0 all passed, 1 a check failed, 2 setup error, 77 cannot run here.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ALL_SCENARIOS=discover,connect,fio,ext4,keepalive,multipath,livens,nvmecli,manyns
ONLY=${INTEROP_ONLY:-all}
[ "$ONLY" = all ] || for s in ${ONLY//,/ }; do
	case ",$ALL_SCENARIOS," in *",$s,"*) ;; *) iop_die "INTEROP_ONLY: unknown scenario '$s' (known: $ALL_SCENARIOS)" ;; esac
done
selected() { [ "$ONLY" = all ] || case ",$ONLY," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

KATO=${INTEROP_KATO:-5}
FREEZE_S=${INTEROP_FREEZE_S:-30}
TARGET_PID=
MANY_PID=
MANY=0 # the second target (manyns) is up
MANY_NR=${INTEROP_MANY_NS:-300}
EXTERNAL=0
MP=0 # the target has a second path (and a control socket)
PORT2=
ana_done=0
ns_add_done=0
ns_remove_done=0
if [[ ${INTEROP_TARGET:-} == external:* ]]; then
	# The NQN has colons of its own: SIZE is a trailing :N[KMG] if any.
	rest=${INTEROP_TARGET#external:}
	PORT=${rest%%:*}
	rest=${rest#*:}
	DPORT=${rest%%:*}
	NQN=${rest#*:}
	SIZE=
	if [[ $NQN =~ ^(.*):([0-9]+[KMGT]?)$ ]]; then
		NQN=${BASH_REMATCH[1]}
		SIZE=${BASH_REMATCH[2]}
	fi
	[[ $PORT =~ ^[0-9]+$ && $DPORT =~ ^[0-9]+$ && -n $NQN ]] ||
		iop_die "INTEROP_TARGET=external:PORT:DISCPORT:NQN[:SIZE], got '$INTEROP_TARGET'"
	SIZE=${SIZE:-512M}
	EXTERNAL=1
else
	MQBLK=${1:-}
	[[ -n $MQBLK && -x $MQBLK ]] || iop_die "usage: $0 /path/to/mqblk (or INTEROP_TARGET=external:...)"
	MQBLK=$(readlink -f "$MQBLK")
	NQN=${INTEROP_NQN:-nqn.2026-12.io.mqblk:interop}
	SIZE=${INTEROP_SIZE:-512M}
fi
BYTES=$(numfmt --from=iec "$SIZE") || iop_die "bad size '$SIZE'"
((BYTES >= 384 << 20)) || iop_die "size $SIZE too small (the scenarios need 384 MiB)"
PATTERN_OFF=$(((BYTES / 2 / 4096) * 4096 + 12288))
PATTERN_TOKEN=$RANDOM$RANDOM
HOSTID=$(cat /proc/sys/kernel/random/uuid)
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$HOSTID

T_START=$(iop_now)
iop_setup
iop_new_run
RUN=$IOP_RUN
HOSTRES=$RUN/host-results
: >"$HOSTRES"
hpass() { echo "PASS $*" >>"$HOSTRES"; }
hfail() { echo "FAIL $1: $2" >>"$HOSTRES"; }
hskip() { echo "SKIP $1: $2" >>"$HOSTRES"; }

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	iop_stop_vm
	for pid in $TARGET_PID $MANY_PID; do
		kill -0 "$pid" 2>/dev/null || continue
		kill "$pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	if [ "${KEEP_RUN:-0}" = 1 ] || [ "${INTEROP_KEEP:-0}" = 1 ]; then
		rm -f "$RUN/backing.img"
		iop_log "run directory kept: $RUN"
	else
		rm -rf "$RUN"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the target --------------------------------------------------------
if [ $EXTERNAL = 1 ]; then
	iop_log "external target at 127.0.0.1:$PORT (discovery :$DPORT), $NQN, $SIZE"
	iop_listening "$PORT" || iop_die "nothing listens on 127.0.0.1:$PORT"
	ADV_PORT=
	TLOG=${INTEROP_TARGET_LOG:-}
else
	PORT=$(iop_free_port)
	DPORT=$(iop_free_port)
	while [ "$DPORT" = "$PORT" ]; do DPORT=$(iop_free_port); done
	PORT2=$(iop_free_port)
	while [ "$PORT2" = "$PORT" ] || [ "$PORT2" = "$DPORT" ]; do PORT2=$(iop_free_port); done
	BACKING=$RUN/backing.img
	truncate -s "$BYTES" "$BACKING"
	# a second --listen port: the multipath scenario's second path
	TARGET_CMD=("$MQBLK" target --listen "127.0.0.1:$PORT" --nqn "$NQN" --ns "$BACKING"
		--allow-host "$HOSTNQN" --discovery-port "$DPORT"
		--listen "127.0.0.1:$PORT2" --ctl "$RUN/ctl.sock")
	# shellcheck disable=SC2206 # words, on purpose
	TARGET_CMD+=(${INTEROP_TARGET_ARGS:-})
	iop_log "target: ${TARGET_CMD[*]}"
	"${TARGET_CMD[@]}" </dev/null >"$RUN/target.log" 2>&1 &
	TARGET_PID=$!
	for _ in $(seq 100); do
		iop_listening "$PORT" && iop_listening "$DPORT" && break
		kill -0 "$TARGET_PID" 2>/dev/null || break
		sleep 0.1
	done
	if ! iop_listening "$PORT" || ! iop_listening "$DPORT"; then
		iop_log "the target does not listen on 127.0.0.1:$PORT and :$DPORT after 10 s; its log:"
		tail -n 40 "$RUN/target.log" >&2
		KEEP_RUN=1
		exit 1
	fi
	ADV_PORT=$PORT
	TLOG=$RUN/target.log
	MP=1
fi
# The second target (scenario manyns): MANY_NR null namespaces, the second
# half in ANA group 2, verbose (its log says how each shutdown ended).
PORT3=
NQN2=${NQN}-many
if [ $EXTERNAL = 0 ] && selected manyns; then
	PORT3=$(iop_free_port)
	while [ "$PORT3" = "$PORT" ] || [ "$PORT3" = "$DPORT" ] || [ "$PORT3" = "$PORT2" ]; do
		PORT3=$(iop_free_port)
	done
	MANY_CMD=("$MQBLK" target --listen "127.0.0.1:$PORT3" --nqn "$NQN2"
		--allow-host "$HOSTNQN" --stats-socket "$RUN/stats-many.sock" -v)
	for i in $(seq "$MANY_NR"); do
		MANY_CMD+=(--ns null:size=1m)
		((i > MANY_NR / 2)) && MANY_CMD+=(--ana-group "$i:2")
	done
	iop_log "second target: $MQBLK target --listen 127.0.0.1:$PORT3 --nqn $NQN2 (--ns null:size=1m) x $MANY_NR"
	"${MANY_CMD[@]}" </dev/null >"$RUN/target-many.log" 2>&1 &
	MANY_PID=$!
	for _ in $(seq 100); do
		iop_listening "$PORT3" && break
		kill -0 "$MANY_PID" 2>/dev/null || break
		sleep 0.1
	done
	if ! iop_listening "$PORT3"; then
		iop_log "the second target does not listen on 127.0.0.1:$PORT3 after 10 s; its log:"
		tail -n 40 "$RUN/target-many.log" >&2
		KEEP_RUN=1
		exit 1
	fi
	MANY=1
fi

# --- the guest ---------------------------------------------------------
# shellcheck disable=SC2034 # read through ${!v}
ADV_PORT=$ADV_PORT
cp "$IOP_DIR/guest/job.sh" "$RUN/share/job.sh"
for v in NQN HOSTNQN HOSTID ONLY EXTERNAL ADV_PORT PATTERN_OFF PATTERN_TOKEN KATO MP NQN2 MANY MANY_NR; do
	iop_env "$v" "${!v}"
done
iop_env EXPECT_BYTES "$BYTES"
iop_env FIO_SIZE "${INTEROP_FIO_SIZE:-256m}"
iop_env SMALL_FIO_SIZE "${INTEROP_SMALL_FIO_SIZE:-16m}"

iop_boot "$PORT" "$DPORT" "$PORT2" "$PORT3"
TAIL_PID=
if [ "${INTEROP_VERBOSE:-0}" = 1 ]; then
	tail -s 0.2 -n +1 -F --pid="$IOP_QEMU_PID" "$RUN/console.log" 2>/dev/null | sed -u 's/\r$//' &
	TAIL_PID=$!
fi
if [ "$IOP_ACCEL" = kvm ]; then LIMIT=${INTEROP_TIMEOUT:-600}; else LIMIT=${INTEROP_TIMEOUT:-1800}; fi

# keep_alive_freeze: the guest is connected with KATO; freeze it well
# past KATO, look for the target's keep-alive teardown, thaw it.
keep_alive_freeze() {
	local t0 off=0 found="" line
	iop_log "keep-alive: guest ready ($(cat "$RUN/share/ready-for-freeze")); freezing the VM (KATO $KATO s, at most $FREEZE_S s)"
	[ -n "$TLOG" ] && off=$(stat -c %s "$TLOG" 2>/dev/null || echo 0)
	iop_monitor stop >"$RUN/monitor.log" 2>&1
	t0=$(date +%s)
	# Only what the target logs during the freeze counts.
	new_log() { tail -c +$((off + 1)) "$TLOG" 2>/dev/null; }
	# Until the target logs its keep-alive teardown (then 1 s more, for it
	# to finish), at most FREEZE_S.
	while (($(date +%s) - t0 < FREEZE_S)); do
		if [ -n "$TLOG" ] && new_log | grep -qi 'keep.alive'; then
			found=$(($(date +%s) - t0))
			sleep 1
			break
		fi
		sleep 0.2
	done
	if [ -z "$TLOG" ]; then
		hskip ka-target-log "external target without INTEROP_TARGET_LOG"
	elif line=$(new_log | grep -i -m1 'keep.alive'); then
		hpass ka-target-log "after ${found:-$FREEZE_S} s: $(printf %s "$line" | tr -d '\r' | cut -c1-160)"
	else
		hfail ka-target-log "no 'keep-alive' line in the target's log in $FREEZE_S s of freeze (KATO $KATO s)"
	fi
	iop_monitor cont >>"$RUN/monitor.log" 2>&1
	touch "$RUN/share/thawed"
	iop_log "keep-alive: VM thawed after $(($(date +%s) - t0)) s"
}

# ana_change: the guest has both paths up; group 1 goes inaccessible on
# the second port (port ID 2) through the control socket.
ana_change() {
	if "$MQBLK" ctl "$RUN/ctl.sock" ana 1 2 inaccessible >"$RUN/ctl.log" 2>&1; then
		hpass mp-ctl "mqblk ctl ana 1 2 inaccessible"
	else
		hfail mp-ctl "mqblk ctl ana 1 2 inaccessible: $(head -n 1 "$RUN/ctl.log")"
	fi
	touch "$RUN/share/ana-done"
}

# live_ctl NAME ARGS...: the guest asked for NAME: mqblk ctl ARGS, then
# NAME-done in the share
live_ctl() {
	local name=$1
	shift
	if "$MQBLK" ctl "$RUN/ctl.sock" "$@" >"$RUN/ctl-$name.log" 2>&1; then
		hpass "live-ctl-$name" "mqblk ctl $*"
	else
		hfail "live-ctl-$name" "mqblk ctl $*: $(head -n 1 "$RUN/ctl-$name.log")"
	fi
	touch "$RUN/share/$name-done"
}

# Watchdog: a hung guest (e.g. I/O the target never completes leaves
# nvme-cli in D state) would otherwise wait for the whole LIMIT. The guest
# logs each step to out/job.log; no new line for STALL_S seconds = stuck.
STALL_S=${INTEROP_STALL_S:-300}
frozen=0
timed_out=
last_size=-1
last_change=$(date +%s)
while kill -0 "$IOP_QEMU_PID" 2>/dev/null; do
	if [ $frozen = 0 ] && [ -e "$RUN/share/ready-for-freeze" ]; then
		frozen=1
		keep_alive_freeze
		last_change=$(date +%s)
	fi
	if [ $ana_done = 0 ] && [ -e "$RUN/share/ana-request" ]; then
		ana_done=1
		ana_change
	fi
	if [ $ns_add_done = 0 ] && [ -e "$RUN/share/ns-add-request" ]; then
		ns_add_done=1
		live_ctl ns-add add-ns "$NQN" 2 null:size=64m
	fi
	if [ $ns_remove_done = 0 ] && [ -e "$RUN/share/ns-remove-request" ]; then
		ns_remove_done=1
		live_ctl ns-remove remove-ns "$NQN" 2
	fi
	size=$(stat -c %s "$RUN/share/out/job.log" 2>/dev/null || echo 0)
	if [ "$size" != "$last_size" ]; then
		last_size=$size
		last_change=$(date +%s)
	elif (($(date +%s) - last_change > STALL_S)); then
		timed_out="the guest made no progress for $STALL_S s (INTEROP_STALL_S)"
	fi
	if awk -v a="$IOP_T0" -v b="$(iop_now)" -v l="$LIMIT" 'BEGIN { exit !(b - a > l) }'; then
		timed_out="timeout after $LIMIT s (INTEROP_TIMEOUT)"
	fi
	if [ -n "$timed_out" ]; then
		iop_log "$timed_out; killing the VM"
		iop_stop_vm
		break
	fi
	sleep 0.2
done
wait "$IOP_QEMU_PID" 2>/dev/null
IOP_QEMU_PID=
[ -n "$TAIL_PID" ] && wait "$TAIL_PID" 2>/dev/null
VM_S=$(iop_since "$IOP_T0")

# --- host-side checks ---------------------------------------------------
if selected keepalive && [ $frozen = 0 ]; then
	hfail ka-freeze "the guest never asked for the freeze"
fi
if ! selected ext4; then
	:
elif [ $EXTERNAL = 1 ]; then
	hskip backing-file "external target: no backing file here"
elif [ ! -e "$RUN/share/out/pattern-written" ]; then
	hfail backing-file "the guest did not write the pattern"
elif cmp -s <(dd if="$BACKING" bs=1M count=1 skip="$PATTERN_OFF" iflag=skip_bytes status=none) \
	<(yes "mqblk-interop-$PATTERN_TOKEN" | head -c 1048576); then
	hpass backing-file "the guest's 1 MiB pattern is at byte $PATTERN_OFF of $BACKING"
else
	hfail backing-file "pattern not found at byte $PATTERN_OFF of the backing file"
fi
if [ $EXTERNAL = 0 ]; then
	if kill -0 "$TARGET_PID" 2>/dev/null; then
		hpass target-alive "still running after the guest finished"
	else
		wait "$TARGET_PID"
		hfail target-alive "the target exited early (status $?)"
	fi
	# SIGTERM: a clean stop (every connection closed, caches flushed)
	if kill -0 "$TARGET_PID" 2>/dev/null; then
		kill -TERM "$TARGET_PID"
		for _ in $(seq 150); do
			kill -0 "$TARGET_PID" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$TARGET_PID" 2>/dev/null; then
			hfail target-stop "still running 15 s after SIGTERM"
		else
			st=0
			wait "$TARGET_PID" || st=$?
			if [ "$st" = 0 ] && grep -q 'stopped: every connection closed' "$RUN/target.log"; then
				hpass target-stop "SIGTERM: exit 0, stopped cleanly"
			else
				hfail target-stop "SIGTERM: exit status $st"
			fi
		fi
	fi
	if grep -qE 'AddressSanitizer|LeakSanitizer|ThreadSanitizer|runtime error' "$RUN/target.log"; then
		hfail target-sanitizers "a sanitizer report in the target's log"
	else
		hpass target-sanitizers "no sanitizer report in the target's log"
	fi
fi

# The second target: the guest's shutdown was answered (its log says
# "shutdown complete"), even if the keep-alive timer fired first (Linux
# stops its keep-alives before removing the namespaces, which under TCG
# takes longer than KATO for hundreds of them).
if [ $MANY = 1 ]; then
	MLOG=$RUN/target-many.log
	if grep -q 'shutdown complete' "$MLOG"; then
		ka=
		grep -qi 'keep.alive' "$MLOG" && ka=" (after a keep-alive teardown)"
		hpass many-shutdown "the $MANY_NR-namespace target answered the shutdown$ka"
	else
		hfail many-shutdown "no 'shutdown complete' in the $MANY_NR-namespace target's log"
	fi
	kill -TERM "$MANY_PID" 2>/dev/null
	st=0
	for _ in $(seq 150); do kill -0 "$MANY_PID" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$MANY_PID" 2>/dev/null && kill -KILL "$MANY_PID"
	wait "$MANY_PID" || st=$?
	MANY_PID=
	if [ "$st" = 0 ]; then
		hpass many-stop "SIGTERM: exit 0"
	else
		hfail many-stop "SIGTERM: exit status $st"
	fi
fi

# --- summary -------------------------------------------------------------
rc=$(tr -dc 0-9 2>/dev/null <"$RUN/share/out/rc")
RESULTS=$RUN/results
cat "$RUN/share/out/results" "$HOSTRES" 2>/dev/null | grep -E '^(PASS|FAIL|SKIP) ' >"$RESULTS"
npass=$(grep -c '^PASS' "$RESULTS")
nfail=$(grep -c '^FAIL' "$RESULTS")
nskip=$(grep -c '^SKIP' "$RESULTS")
boot=$(tr -d '\r' <"$RUN/console.log" | sed -n 's/^INTEROP:JOB start uptime=//p')
echo "=== mqblk interop: kernel $IOP_KVER host ($IOP_ACCEL) -> $([ $EXTERNAL = 1 ] && echo "external target 127.0.0.1:$PORT" || echo "mqblk target 127.0.0.1:$PORT")"
cat "$RESULTS"
echo "--- time: $(grep '^TIME ' "$RUN/share/out/results" 2>/dev/null | awk '{ printf "%s%s=%ss", s, $2, $3; s = " " }')"
echo "--- guest boot ${boot:-?} s (guest uptime), VM ${VM_S} s, total $(iop_since "$T_START") s"
ok=1
[ "$nfail" = 0 ] || ok=0
[ "$rc" = 0 ] || { echo "FAIL guest-job: exit status '${rc:-none}'${timed_out:+: $timed_out}"; ok=0; }
[ "$npass" -gt 0 ] || ok=0
echo "--- $npass passed, $nfail failed, $nskip skipped"
if [ $ok = 1 ]; then
	echo "=== PASS"
	exit 0
fi
KEEP_RUN=1
echo "--- console (last 60 lines, full: $RUN/console.log):"
tr -d '\r' <"$RUN/console.log" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' | tail -n 60
if [ -s "$RUN/share/out/kmsg.txt" ]; then
	echo "--- guest kernel log, nvme lines (last 30, full: $RUN/share/out/kmsg.txt):"
	grep -i nvme "$RUN/share/out/kmsg.txt" | tail -n 30
fi
if [ $EXTERNAL = 0 ]; then
	echo "--- target log (last 60 lines, full: $RUN/target.log):"
	tail -n 60 "$RUN/target.log"
fi
echo "--- guest results and dmesg: $RUN/share/out/"
echo "=== FAIL"
exit 1
