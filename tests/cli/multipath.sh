#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# NVMe multipath (nvme-tcp://A:P1,B:P2/NQN?iopolicy=...) against one mqblk
# target with two ports linking one subsystem (nvmetcli JSON): round-robin
# spreads I/O over both paths and the per-path counts add up; queue-depth
# uses both, numa one; a verify workload survives one path cut mid-run
# (tests/interop/relay.pl in front of one port) with failovers counted,
# and a cut path that comes back is used again;
# all paths cut past ctrl_loss_tmo fails the I/O with a clear line, no
# hang; --hipri works over both paths; paths=discover finds both ports;
# a path down when the device opens joins once it answers, one that never
# does is given up at ctrl_loss_tmo, one showing another namespace then is
# refused, one whose connects hang holds up nothing else; a path that stalls past stall_ms is logged once and counted; an ANA
# error status fails over (null's error_status through the target); bad
# multipath URIs give one line and exit 1.
# Usage: bash tests/cli/multipath.sh build/mqblk
# shellcheck source-path=SCRIPTDIR disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NQN=nqn.2026-12.io.mqblk:mpath-test
HOST=nqn.2026-12.io.mqblk:host-mp
RELAY=$(dirname "${BASH_SOURCE[0]}")/relay_listen.pl
P1=$(free_port)
P2=$(free_port)

# write_config FILE PORT1 PORT2 [NGUID [NULL_KEYS]]: one subsystem on
# two ports
write_config()
{
	local dev="\"path\": \"null:size=256m,memory_backed=1${5:+,$5}\""
	[[ -n ${4:-} ]] && dev="$dev, \"nguid\": \"$4\""
	cat >"$1" <<EOF
{"hosts": [{"nqn": "$HOST"}],
 "ports": [
  {"portid": 1, "addr": {"trtype": "tcp", "adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "$2"}, "subsystems": ["$NQN"]},
  {"portid": 2, "addr": {"trtype": "tcp", "adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "$3"}, "subsystems": ["$NQN"]}],
 "subsystems": [{"nqn": "$NQN", "allowed_hosts": ["$HOST"],
  "namespaces": [{"nsid": 1, "enable": 1, "device": {$dev}}]}]}
EOF
}

# A write failed over while its first copy is still in the target (sent
# on the path being cut) meets the copy on another reactor: two writes of
# the same data to the same block, which the memory-backed null namespace
# copies without a lock (as a disk would take them in either order). TSan
# (scripts/test's build-tsan) calls that a race in the target; it is the
# multipath contract (nvme_failover_req does the same), so the target's
# TSan ignores it. Nothing else is suppressed, and not in the host.
printf 'race:null_copy_nt\nrace:null_store_write\n' >"$TMP/tsan.supp"

# start a target from a config; sets TPID (lib.sh's stop_target stops it)
start_config()
{
	: >"$TLOG" # before the fork: wait_ready must not find the last "ready"
	TSAN_OPTIONS="${TSAN_OPTIONS:-}${TSAN_OPTIONS:+:}suppressions=$TMP/tsan.supp" \
		"$MQBLK" target --config "$1" --stats-socket "${2:-$TMP/stats.sock}" >"$TLOG" 2>&1 </dev/null &
	TPID=$!
	wait_ready
}

write_config "$TMP/t.json" "$P1" "$P2"
start_config "$TMP/t.json" || {
	fail setup "no target"
	finish
}

# mp [ADDRS] [KEYS]: the multipath URI (both ports by default)
mp()
{
	echo "nvme-tcp://${1:-127.0.0.1:$P1,127.0.0.1:$P2}/$NQN?hostnqn=$HOST${2:+&$2}"
}

# paths_json: per-path fields of the last JSON run, one line per path:
# "name state sent completed failovers current", then "total IOS"
paths_json()
{
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
for p in j["multipath"]["paths"]:
    print(p["name"], p["state"], p["sent"], p["completed"], p["failovers"],
          p["current"])
print("total", sum(j[d]["total_ios"] for d in ("read", "write", "trim")))
' "$OUT"
}

# (a) round-robin: both paths carry I/O; completed per path adds up to the
# job's total, and nothing was failed over
run bench --name=rr --filename="$(mp "" iopolicy=round-robin)" \
	--rw=randread --bs=4k --size=16m --iodepth=8 --runtime=1 \
	--time_based --output-format=json
if ok "round-robin: runs"; then
	paths_json >"$TMP/p"
	read -r _ _ s1 c1 f1 _ < <(sed -n 1p "$TMP/p")
	read -r _ _ s2 c2 f2 _ < <(sed -n 2p "$TMP/p")
	read -r _ total < <(sed -n 3p "$TMP/p")
	check "round-robin: both paths used ($c1, $c2)" test "$c1" -gt 0 -a "$c2" -gt 0
	check "round-robin: per-path completions add up to $total" \
		test $((c1 + c2)) = "$total"
	check "round-robin: alternates (|$c1 - $c2| <= 1)" \
		test $(((c1 - c2) * (c1 - c2))) -le 1
	check "round-robin: sent = completed, no failover" \
		test "$s1.$s2.$f1.$f2" = "$c1.$c2.0.0"
fi

# the normal report has the paths: line
run bench --name=rr --filename="$(mp "" iopolicy=round-robin)" \
	--rw=randwrite --bs=4k --size=8m --iodepth=4 --verify=crc32c
ok "round-robin: write+verify" &&
	check "normal output: a paths: line naming both ports" has_re \
		"^  paths        : iopolicy=round-robin 127.0.0.1:$P1 \\(live, optimized.*127.0.0.1:$P2 \\(live"

# (b) queue-depth uses both paths at iodepth 32; numa sticks to one
run bench --name=qd --filename="$(mp "" iopolicy=queue-depth)" \
	--rw=randread --bs=4k --size=16m --iodepth=32 --runtime=1 \
	--time_based --output-format=json
if ok "queue-depth: runs"; then
	paths_json >"$TMP/p"
	read -r _ _ _ c1 _ _ < <(sed -n 1p "$TMP/p")
	read -r _ _ _ c2 _ _ < <(sed -n 2p "$TMP/p")
	read -r _ total < <(sed -n 3p "$TMP/p")
	check "queue-depth: both paths used ($c1, $c2)" test "$c1" -gt 0 -a "$c2" -gt 0
	check "queue-depth: adds up to $total" test $((c1 + c2)) = "$total"
fi
run bench --name=numa --filename="$(mp "" iopolicy=numa)" \
	--rw=randread --bs=4k --size=16m --iodepth=8 --runtime=1 \
	--time_based --output-format=json
if ok "numa: runs"; then
	paths_json >"$TMP/p"
	read -r _ _ _ c1 _ cur1 < <(sed -n 1p "$TMP/p")
	read -r _ _ _ c2 _ _ < <(sed -n 2p "$TMP/p")
	read -r _ total < <(sed -n 3p "$TMP/p")
	check "numa: one path, the first, current ($c1, $c2)" \
		test "$c1.$c2.$cur1" = "$total.0.1"
fi

# (e) --hipri: the submitter polls both paths' sockets
run bench --name=hp --filename="$(mp "" iopolicy=round-robin)" --hipri \
	--rw=randread --bs=4k --size=16m --iodepth=4 --runtime=1 \
	--time_based --output-format=json
if ok "--hipri over multipath: runs"; then
	paths_json >"$TMP/p"
	read -r _ _ _ c1 _ _ < <(sed -n 1p "$TMP/p")
	read -r _ _ _ c2 _ _ < <(sed -n 2p "$TMP/p")
	check "--hipri: both paths used ($c1, $c2)" test "$c1" -gt 0 -a "$c2" -gt 0
	check "--hipri: completions were polled" grep -qE '"polled" : [1-9]' "$OUT"
fi

# paths=discover: the discovery log (any port serves it, as nvmet's)
# lists both ports for NQN
run bench --name=d --filename="nvme-tcp://127.0.0.1:$P1/$NQN?hostnqn=$HOST&paths=discover&iopolicy=round-robin" \
	--rw=randread --bs=4k --size=8m --iodepth=4 --runtime=1 --time_based
ok "paths=discover: runs" &&
	check "paths=discover: both ports are paths" has_re \
		"127.0.0.1:$P1 .*127.0.0.1:$P2 |127.0.0.1:$P2 .*127.0.0.1:$P1 "

# admin commands (mqblk id-ctrl) reach a controller of the subsystem
run id-ctrl "$(mp)"
ok "id-ctrl on the multipath device" &&
	check "id-ctrl: the subsystem's controller" has_re "^subnqn +: $NQN"

# relay LISTEN TARGET: a cable in front of a port (RPID), logging to
# $TMP/relay-LISTEN.log
relay()
{
	: >"$TMP/relay-$1.log" # a relay before it on LISTEN said "ready" too
	perl "$RELAY" "$1" "$2" >"$TMP/relay-$1.log" 2>&1 </dev/null &
	RPID=$!
	for _ in $(seq 100); do
		grep -q ready "$TMP/relay-$1.log" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
# connected PORT N: wait (up to 30 s) until relay PORT has accepted N
# connections: the device is open and I/O is going through it (under
# TSan opening takes a while)
connected()
{
	for _ in $(seq 600); do
		(($(grep -c accepted "$TMP/relay-$1.log") >= $2)) && return 0
		sleep 0.05
	done
	return 1
}

# stop_pid PID...: SIGTERM and reap (a relay: the cable pulled)
stop_pid()
{
	kill -TERM "$@"
	wait "$@" 2>/dev/null
}
# mp_job NAME PATHS CTRL_LOSS_TMO [BENCH ARGS...]: the failover cases' job
# in the background: crc32c-verified 4 KiB random writes at QD16 over a
# round-robin device of PATHS with one I/O queue, reconnecting every 1 s
mp_job()
{
	local name=$1 paths=$2 tmo=$3
	shift 3
	run_bg bench --name="$name" --filename="$(mp "$paths" \
		"iopolicy=round-robin&nr_io_queues=1&reconnect_delay=1&ctrl_loss_tmo=$tmo")" \
		--rw=randwrite --bs=4k --size=64m --iodepth=16 --verify=crc32c \
		--output-format=json "$@"
}

# io_flowing NAME: until the target has taken the job's writes: its device
# has finished opening (both paths; a path cut before that fails the
# open) and its I/O is going. Earlier runs' queues have closed; the
# preflight open writes nothing. Not in 30 s is a failure of its own
# (what follows would only find the job over: CI once saw one do 104
# I/Os in 5 s, beside another target that spun on both CPUs).
io_flowing()
{
	wait_writes 64 || fail "$1: the job's first 64 writes reach the target within 30 s"
}

# verified: the job in $OUT read back what it wrote (--verify_backlog) and
# found no error
verified()
{
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
sys.exit(not (j["read"]["total_ios"] > 0 and j["mqblk"]["verify_errors"] == 0))
' "$OUT"
}

# end_after RE: once the background job's stderr has a line matching RE
# (at most 60 s), a second more, then end it as a user would (SIGTERM:
# fio's orderly stop, status 128) and collect it
end_after()
{
	for _ in $(seq 1200); do
		grep -q "$1" "$ERR" && break
		sleep 0.05
	done
	sleep 1
	kill -TERM "$(pgrep -P "$BPID" -x mqblk)"
	wait "$BPID" || RC=$?
}

# cut_loaded PID: cut relay PID's cable with requests out on it: it stops
# carrying first (SIGUSR1), so what round-robin sends there in the next
# half second stays out, then the cable goes. (A plain cut found none out
# on the slow relayed path now and then under TSan: it takes few.)
cut_loaded()
{
	sleep 0.2
	kill -USR1 "$1"
	sleep 0.5
	stop_pid "$1"
}

# (c) one path cut mid-run under a verify workload: its requests go to
# the other path, every block verifies, the job exits 0
R1=$(free_port)
relay "$R1" "$P2"
RELAY1=$RPID
mp_job cut "127.0.0.1:$P1,127.0.0.1:$R1" 2 --do_verify=1 --runtime=5 \
	--time_based
# the preflight open (admin + one I/O queue), then the job's device
connected "$R1" 4
io_flowing "one path cut"
cut_loaded "$RELAY1"
wait "$BPID" || RC=$?
check "one path cut: the job completes (exit 0)" test "$RC" = 0
check "one path cut: no verify error" grep -qE '"verify_errors" : 0' "$OUT"
if paths_json >"$TMP/p" 2>/dev/null; then
	read -r _ st1 _ c1 f1 _ < <(sed -n 1p "$TMP/p")
	read -r _ st2 s2 c2 f2 _ < <(sed -n 2p "$TMP/p")
	read -r _ total < <(sed -n 3p "$TMP/p")
	check "one path cut: failovers counted on the cut path ($f2; paths: $(tr '\n' ' ' <"$TMP/p"))" test "$f2" -gt 0
	check "one path cut: sent = completed + failed over there" \
		test "$s2" = $((c2 + f2))
	check "one path cut: completions add up to $total" \
		test $((c1 + c2)) = "$total"
	check "one path cut: cut path not live ($st2), the other live ($st1)" \
		test "$st1" = live -a "$st2" != live
else
	fail "one path cut: JSON report" "$(first_err)"
fi
check "one path cut: the path state change is logged" \
	grep -q "path 127.0.0.1:$R1: live -> resetting" "$ERR"

# (e2) --hipri with one path cut: the polled paths hand the cut path's
# requests back on the submitter's own poll passes
R1=$(free_port)
relay "$R1" "$P2"
RELAY1=$RPID
# (15 s, not 5: under TSan opening the device's six polled connections
# took most of 5 s, and the write phase had ended before the cut, so the
# cut path was never used again and stayed live: failed twice in CI)
mp_job hcut "127.0.0.1:$P1,127.0.0.1:$R1" 2 --do_verify=1 --runtime=15 \
	--time_based --hipri
# preflight, the device (local), the device's paths reopened polled
connected "$R1" 6
io_flowing "--hipri, one path cut"
cut_loaded "$RELAY1"
wait "$BPID" || RC=$?
check "--hipri, one path cut: the job completes (exit 0)" test "$RC" = 0
check "--hipri, one path cut: no verify error" \
	grep -qE '"verify_errors" : 0' "$OUT"
HC=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
p = j["multipath"]["paths"]
print(p[1]["state"] != "live" and p[1]["failovers"] > 0 and
      p[1]["sent"] == p[1]["completed"] + p[1]["failovers"],
      j["mqblk"]["completions"]["polled"] > 0,
      p[0]["completed"] + p[1]["completed"] ==
      j["read"]["total_ios"] + j["write"]["total_ios"],
      "(cut path: %s sent=%d completed=%d failovers=%d)" % (p[1]["state"],
      p[1]["sent"], p[1]["completed"], p[1]["failovers"]))
' "$OUT" 2>/dev/null)
check "--hipri, one path cut: the path is down, its requests out failed over, all accounted, polled, adds up ($HC)" \
	test "${HC%% (*}" = "True True True"

# (c2) the cut path comes back within ctrl_loss_tmo: its controller
# reconnects, the path is live again and carries I/O again. The job runs
# until then, however long reconnecting takes (under TSan, longer than a
# fixed runtime allowed), verifying as it goes, and is ended by SIGTERM.
R1=$(free_port)
relay "$R1" "$P2"
RELAY1=$RPID
mp_job back "127.0.0.1:$P1,127.0.0.1:$R1" 60 --verify_backlog=256 \
	--runtime=120 --time_based
connected "$R1" 4
sleep 0.3
stop_pid "$RELAY1"
sleep 1.2
relay "$R1" "$P2"
RELAY1=$RPID
end_after "path 127.0.0.1:$R1: resetting -> live"
stop_pid "$RELAY1"
check "path back: the job completes when ended (exit 128, fio's)" test "$RC" = 128
check "path back: verified as it went, no error" verified
check "path back: live again" grep -q "path 127.0.0.1:$R1: resetting -> live" "$ERR"
BACK=$(python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["jobs"][0]["multipath"]["paths"][1]
print(p["state"], p["reconnects"])
' "$OUT" 2>/dev/null)
check "path back: live, one reconnect ($BACK)" test "$BACK" = "live 1"
check "path back: reconnected through the restored cable (admin + I/O queue)" \
	test "$(grep -c accepted "$TMP/relay-$R1.log")" -ge 2

# (c3) a path down when the device opens: the device opens on the other
# (saying so), connects the missing one once it answers (every
# reconnect_delay) and uses it from then on. Ended by SIGTERM a second
# after joining, however long that took.
R1=$(free_port)
mp_job late "127.0.0.1:$P1,127.0.0.1:$R1" 60 --verify_backlog=256 \
	--runtime=120 --time_based
io_flowing "a late path"
relay "$R1" "$P2"
RELAY1=$RPID
end_after "path 127.0.0.1:$R1: connected .*: joined"
stop_pid "$RELAY1"
check "path down at open: the job completes when ended (exit 128)" test "$RC" = 128
check "path down at open: verified as it went, no error" verified
check "path down at open: the device opens without it, saying so" \
	grep -q "path 127.0.0.1:$R1: .*Connection refused; opening without it, retrying every 1 s for up to ctrl_loss_tmo (60 s)" "$ERR"
check "path down at open: joined once it answers" \
	grep -q "path 127.0.0.1:$R1: connected (ANA state optimized): joined" "$ERR"
LATE=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
p = j["multipath"]["paths"]
print(p[1]["state"], p[1]["sent"] > 0,
      p[0]["completed"] + p[1]["completed"] ==
      j["read"]["total_ios"] + j["write"]["total_ios"])
' "$OUT" 2>/dev/null)
check "path down at open: then live, carrying I/O, completions add up ($LATE)" \
	test "$LATE" = "live True True"

# (c3b) a late path whose connects hang (a port that takes the connection
# and never answers: each try lasts the driver's 10 s set-up timeout)
# holds up nothing else: the other path's cut is seen, and its return
# used, as promptly as without it (before, the control thread sat in the
# hanging connect). B refuses at open, then turns into a black hole.
R1=$(free_port)
B=$(free_port)
relay "$R1" "$P1"
RELAY1=$RPID
mp_job hang "127.0.0.1:$R1,127.0.0.1:$B" 60 --verify_backlog=256 \
	--runtime=120 --time_based
io_flowing "a late path's hanging connect"
python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
print("ready", flush=True)
time.sleep(600)
' "$B" >"$TMP/hole.log" 2>&1 &
HOLE=$!
for _ in $(seq 100); do grep -q ready "$TMP/hole.log" && break; sleep 0.05; done
sleep 1.5 # the next retry (every 1 s) is inside its 10 s connect
t0=$(date +%s%N)
stop_pid "$RELAY1"
for _ in $(seq 400); do
	grep -q "path 127.0.0.1:$R1: live -> resetting" "$ERR" && break
	sleep 0.025
done
ms=$((($(date +%s%N) - t0) / 1000000))
check "a late path's hanging connect: the other path's cut seen at once ($ms ms)" \
	test "$ms" -lt 3000
relay "$R1" "$P1"
RELAY1=$RPID
# (the hole closes first: closing the device waits for a connect under
# way, up to its 10 s)
stop_pid "$HOLE"
end_after "path 127.0.0.1:$R1: resetting -> live"
stop_pid "$RELAY1"
check "a late path's hanging connect: the job ends when ended (exit 128)" test "$RC" = 128
check "a late path's hanging connect: verified as it went, no error" verified
HANG=$(python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["jobs"][0]["multipath"]["paths"]
print(p[0]["state"], p[1]["state"], p[1]["sent"])
' "$OUT" 2>/dev/null)
check "a late path's hanging connect: the other path live again, the late one still connecting ($HANG)" \
	test "$HANG" = "live connecting 0"

# (c4) a path that never answers: given up at ctrl_loss_tmo (logged, state
# dead, nothing sent there); the job runs on the other path throughout
R1=$(free_port)
mp_job never "127.0.0.1:$P1,127.0.0.1:$R1" 2 --do_verify=1 --runtime=4 \
	--time_based
wait "$BPID" || RC=$?
check "path never up: the job completes (exit 0)" test "$RC" = 0
check "path never up: no verify error" grep -qE '"verify_errors" : 0' "$OUT"
check "path never up: given up at ctrl_loss_tmo" \
	grep -q "path 127.0.0.1:$R1: no connection within ctrl_loss_tmo (2 s), last: .*Connection refused: giving up on it" "$ERR"
NEVER=$(python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["jobs"][0]["multipath"]["paths"]
print(p[1]["state"], p[1]["sent"], p[0]["state"])
' "$OUT" 2>/dev/null)
check "path never up: dead, nothing sent on it, the other live ($NEVER)" \
	test "$NEVER" = "dead 0 live"

# (d) every path cut: I/O waits (queue_if_no_path) until ctrl_loss_tmo,
# then fails with a clear line and exit 1, no hang
R1=$(free_port)
R2=$(free_port)
relay "$R1" "$P1"
RELAY1=$RPID
relay "$R2" "$P2"
RELAY2=$RPID
run_bg bench --name=all --filename="$(mp "127.0.0.1:$R1,127.0.0.1:$R2" \
	"iopolicy=queue-depth&nr_io_queues=1&reconnect_delay=1&ctrl_loss_tmo=2")" \
	--rw=randwrite --bs=4k --size=128m --iodepth=16 --runtime=30 \
	--time_based
connected "$R1" 4
connected "$R2" 4
sleep 0.5
T0=$(date +%s%N)
stop_pid "$RELAY1" "$RELAY2"
wait "$BPID" || RC=$?
T1=$(date +%s%N)
check "all paths cut: the job fails (exit 1, not a hang: $RC)" test "$RC" = 1
check "all paths cut: 'no path left' on stderr" grep -q "no path left" "$ERR"
check "all paths cut: I/O error reported" grep -q "Input/output error" "$ERR"
check "all paths cut: fails after ctrl_loss_tmo, within 10 s ($(((T1 - T0) / 1000000)) ms)" \
	test $(((T1 - T0) / 1000000)) -ge 1500 -a $(((T1 - T0) / 1000000)) -lt 10000

# (g) stall detection: one path's cable carries nothing for 1.5 s
# (SIGUSR1 stops its relays) with stall_ms=500: logged with the queue and
# its oldest command id, as often as counted on that path (once per
# stall; a loaded machine may add a stall of its own), never on the
# other; the job finishes once it carries again
R1=$(free_port)
relay "$R1" "$P2"
RELAY1=$RPID
run_bg bench --name=stall --filename="$(mp "127.0.0.1:$P1,127.0.0.1:$R1" \
	"iopolicy=round-robin&nr_io_queues=1&stall_ms=500")" \
	--rw=randread --bs=4k --size=64m --iodepth=16 --runtime=4 \
	--time_based --output-format=json
connected "$R1" 4
sleep 0.3
kill -USR1 "$RELAY1"
sleep 1.5
kill -USR2 "$RELAY1"
wait "$BPID" || RC=$?
stop_pid "$RELAY1"
check "stall: the job completes (exit 0)" test "$RC" = 0
NLOG=$(grep -c "127.0.0.1:$R1 qid 1: stalled: .* oldest command id [0-9]" "$ERR")
STALLS=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(" ".join(str(p["stalls"]) for p in j["multipath"]["paths"]))
' "$OUT" 2>/dev/null)
check "stall: logged with the oldest command id, once per stall counted ($NLOG lines; $STALLS)" \
	test "$NLOG" -ge 1 -a "$STALLS" = "0 $NLOG"

# (h) the target stalls past KATO under both paths at once (SIGSTOP: a
# scheduling stall, a VM pause): when it resumes, both controllers are
# past their keep-alive and answer what waited in their sockets with
# Command Aborted due to SQ Deletion, or close their queues. Either way
# the job sees no error. (The 60-minute soak's 7 failed I/Os came from
# both paths answering SQ Deletion at once, each request sent back and
# forth until its failovers ran out in a millisecond; a path that answers
# it is now left alone until its controller resets. This case did not
# catch that window on this machine before the fix: it keeps the
# scenario covered.)
run_bg bench --name=kastall --filename="$(mp "" \
	"iopolicy=round-robin&nr_io_queues=1&reconnect_delay=1&ctrl_loss_tmo=30&kato=1")" \
	--rw=randwrite --bs=4k --size=64m --iodepth=16 --verify=crc32c \
	--do_verify=1 --runtime=6 --time_based --output-format=json
io_flowing "stall past KATO under both paths"
kill -STOP "$TPID"
for _ in $(seq 200); do
	[[ $(awk '{ print $3 }' "/proc/$TPID/stat" 2>/dev/null) == T ]] && break
	sleep 0.01
done
sleep 2.5
kill -CONT "$TPID"
wait "$BPID" || RC=$?
check "stall past KATO under both paths: the job completes (exit 0)" test "$RC" = 0
no_io_error() { ! grep -q "Input/output error" "$ERR"; }
check "stall past KATO under both paths: no I/O failed" no_io_error
check "stall past KATO under both paths: no verify error" \
	grep -qE '"verify_errors" : 0' "$OUT"
check "stall past KATO under both paths: the target tore both controllers down" \
	test "$(grep -c "keep-alive timeout (1000 ms) expired" "$TLOG")" -ge 2

# (f) bad multipath URIs: one line, exit 1
bad()
{
	run bench --name=x --filename="$2" --rw=read --bs=4k --size=1m
	failed "$1" "$3" && check "$1: one line" test "$(wc -l <"$ERR")" = 1
}
bad "empty path" "nvme-tcp://127.0.0.1:$P1,,127.0.0.1:$P2/$NQN?hostnqn=$HOST" \
	"empty path in the address list"
bad "trailing comma" "nvme-tcp://127.0.0.1:$P1,/$NQN?hostnqn=$HOST" \
	"empty path"
bad "duplicate path" "$(mp "127.0.0.1:$P1,127.0.0.1:$P1")" \
	"path 127.0.0.1:$P1 given twice"
bad "bad iopolicy" "$(mp "" iopolicy=fastest)" \
	"bad iopolicy 'fastest': expected numa, round-robin or queue-depth"
bad "bad paths=" "$(mp "" paths=all)" "bad paths 'all'"
bad "path without a port" "$(mp "127.0.0.1:$P1,127.0.0.1")" "no port in '127.0.0.1'"
bad "path over a transport the host lacks" \
	"$(mp "127.0.0.1:$P1,fc:127.0.0.1:$P2")" \
	"path 127.0.0.1:$P2: no transport 'fc' \(this host has: tcp, rdma\)"
# nvme-rdma:// makes its paths RDMA's unless they name another: the first
# path is rdma:, which has no device on this machine (soft-RoCE runs in
# the interop guest), refused by name
bad "nvme-rdma:// paths are rdma's" \
	"nvme-rdma://127.0.0.1:$P1,tcp:127.0.0.1:$P2/$NQN?hostnqn=$HOST" \
	"path rdma:127.0.0.1:$P1: (nvme-rdma: 127.0.0.1:$P1: (no RDMA connection manager|address resolution)|mqblk was built without rdma-core)"
# a path may name its transport (tcp: here, the URI's own): the same two
# paths, and the job verifies over them
run bench --name=trp --filename="$(mp "tcp:127.0.0.1:$P1,127.0.0.1:$P2" \
	iopolicy=round-robin)" --rw=randwrite --bs=4k --size=4m --iodepth=4 \
	--verify=crc32c --output-format=json
if ok "paths by transport: write+verify over tcp:HOST:PORT and HOST:PORT"; then
	paths_json >"$TMP/p"
	read -r n1 _ _ c1 _ _ < <(sed -n 1p "$TMP/p")
	read -r n2 _ _ c2 _ _ < <(sed -n 2p "$TMP/p")
	check "paths by transport: both used, named without the default ($n1 $c1, $n2 $c2)" \
		test "$n1.$n2" = "127.0.0.1:$P1.127.0.0.1:$P2" -a "$c1" -gt 0 -a "$c2" -gt 0
fi
DEAD=$(free_port)
DEAD2=$(free_port)
bad "no path answers" "$(mp "127.0.0.1:$DEAD,127.0.0.1:$DEAD2")" \
	"path 127.0.0.1:$DEAD: .*Connection refused \(no path answered\)"

stop_target

# (h) ANA status: the namespace answers every 97th command with 0x302
# (ANA Inaccessible; null's error_every/error_status through the target):
# each goes to the other path, which is used until the first path's ANA
# state has been read again (a controller without ANA: optimized); the
# job sees no error and its data verifies
Q1=$(free_port)
Q2=$(free_port)
write_config "$TMP/t3.json" "$Q1" "$Q2" "" error_every=97,error_status=0x302
start_config "$TMP/t3.json"
run bench --name=ana --filename="$(mp "127.0.0.1:$Q1,127.0.0.1:$Q2" \
	iopolicy=round-robin)" --rw=randwrite --bs=4k --size=16m \
	--iodepth=16 --verify=crc32c --output-format=json
if ok "ANA status: write+verify, no error"; then
	paths_json >"$TMP/p"
	read -r _ _ s1 c1 f1 _ < <(sed -n 1p "$TMP/p")
	read -r _ _ s2 c2 f2 _ < <(sed -n 2p "$TMP/p")
	read -r _ total < <(sed -n 3p "$TMP/p")
	check "ANA status: failed over on both paths ($f1, $f2)" \
		test "$f1" -gt 0 -a "$f2" -gt 0
	check "ANA status: sent = completed + failovers, completions add up" \
		test "$s1.$s2.$((c1 + c2))" = "$((c1 + f1)).$((c2 + f2)).$total"
	check "ANA status: no verify error" grep -qE '"verify_errors" : 0' "$OUT"
fi
stop_target

# A second target, same NQN, a namespace with another NGUID: not the same
# namespace, refused
Q1=$(free_port)
Q2=$(free_port)
write_config "$TMP/t2.json" "$Q1" "$Q2" 0123456789abcdef0123456789abcdef
start_config "$TMP/t2.json"
T2=$TPID
TLOG=$TMP/target1.log
# its own control socket: a second target is refused another's
start_config "$TMP/t.json" "$TMP/stats1.sock"
bad "another namespace behind the second path" \
	"$(mp "127.0.0.1:$P1,127.0.0.1:$Q1")" \
	"path 127.0.0.1:$Q1 exposes a different namespace"
# the same path down at open: when it answers it is checked as at open,
# and given up on (the job goes on, on the first path). The job runs
# until a second after that, however long it took (a fixed 4 s runtime
# ended first on a loaded CI machine), and is ended by SIGTERM.
R1=$(free_port)
run_bg bench --name=latens --filename="$(mp "127.0.0.1:$P1,127.0.0.1:$R1" \
	"nr_io_queues=1&reconnect_delay=1&ctrl_loss_tmo=30")" \
	--rw=randwrite --bs=4k --size=16m --iodepth=4 --runtime=120 --time_based \
	--output-format=json
# the job's device is open when the preflight's and its own open have
# said the path is missing
for _ in $(seq 600); do
	(($(grep -c "path 127.0.0.1:$R1: .*opening without it" "$ERR") >= 2)) && break
	sleep 0.05
done
relay "$R1" "$Q1"
RELAY1=$RPID
end_after "path 127.0.0.1:$R1 exposes a different namespace"
stop_pid "$RELAY1"
check "another namespace joining late: the job goes on and ends when ended (exit 128)" \
	test "$RC" = 128
check "another namespace joining late: writes done, no I/O error" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
sys.exit(not (j["write"]["total_ios"] > 0 and j["error"] == 0))
' "$OUT"
check "another namespace joining late: refused, given up" \
	grep -q "path 127.0.0.1:$R1 exposes a different namespace (.*) ($NQN): giving up on the path" "$ERR"
# the first target (its log is target.log): exit 0, a clean log
stop_target "$T2" "$TMP/target.log"

finish
