#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Persistent discovery of the multipath device (paths=discover): a verify
# job through a target with one port keeps its discovery controller; the
# target's configuration changes live (`mqblk ctl`) and the host follows
# the Discovery Log Page Change notices: a port with nothing linked and a
# port of another subsystem join nothing; the job's subsystem linked on a
# new port joins as a second path under I/O; the first port down, the
# I/O carries on on the new path, verified; the first port up again, the
# discovery controller reconnects and reads the log again. Bad keys.
# Usage: bash tests/cli/mpath_discovery.sh build/mqblk
source "$(dirname "$0")/lib.sh"

NQN=nqn.2026-12.io.mqblk:mpd
NQN2=nqn.2026-12.io.mqblk:mpd-other
CTL=$TMP/ctl.sock
PORT2=$(free_port)
PORT3=$(free_port)

# A write in flight on port 1 when it goes down is sent again on port 2
# and may meet its first copy in the target: two writes of the same data
# to the same blocks, which the memory-backed null namespace copies
# without a lock. TSan calls that a race in the target; it is the
# multipath contract (see multipath.sh), so the target's TSan ignores it.
printf 'race:null_copy_nt\nrace:null_store_write\n' >"$TMP/tsan.supp"
TSAN_OPTIONS="${TSAN_OPTIONS:-}${TSAN_OPTIONS:+:}suppressions=$TMP/tsan.supp" \
	start_target --ns null:size=64m,memory_backed=1 --allow-any-host \
	--reactors 2 --ctl "$CTL" || {
	fail setup "no target"
	finish
}

# ctl ARGS...: mqblk ctl on the target's socket, its output apart from
# the background job's
ctl()
{
	RC=0
	timeout -k 5 20 "$MQBLK" ctl "$CTL" "$@" >"$TMP/ctl.out" 2>"$TMP/ctl.err" </dev/null || RC=$?
	((RC == 0)) || echo "ctl $*: status $RC: $(head -n 1 "$TMP/ctl.err")"
	return "$RC"
}

# writes_now: the writes the target's live I/O queues have taken
writes_now()
{
	"$MQBLK" target --stats --stats-socket "$TMP/stats.sock" 2>/dev/null |
		awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["qid"] > 0 { s += $c["writes"] } END { print s + 0 }'
}

# log_count RE: lines of the job's stderr matching RE
log_count()
{
	grep -c -E "$1" "$ERR"
}

# wait_log RE [N]: until the job's stderr has N (1) lines matching RE
# (30 s at most)
wait_log()
{
	for _ in $(seq 600); do
		(($(log_count "$1") >= ${2:-1})) && return 0
		sleep 0.05
	done
	return 1
}

CHANGED="discovery log at 127\.0\.0\.1:$PORT changed"
run_bg bench --name=disc \
	--filename="nvme-tcp://127.0.0.1:$PORT/$NQN?paths=discover&iopolicy=round-robin&nr_io_queues=1&reconnect_delay=1" \
	--rw=randwrite --bs=4k --size=32m --iodepth=16 --verify=crc32c \
	--verify_backlog=256 --runtime=120 --time_based --output-format=json
wait_writes 64 || fail "the job's writes did not arrive" "$(tail -n 3 "$ERR")"

# a change with nothing for the subsystem: a port with nothing linked
ctl add-port 2 tcp 127.0.0.1 "$PORT2"
if wait_log "$CHANGED"; then
	check "a port with nothing linked: the log read again, nothing new" \
		grep -qE "$CHANGED \(generation [0-9]+\): 1 path for the subsystem, 0 new" "$ERR"
else
	fail "a port with nothing linked: the log read again" "$(tail -n 3 "$ERR")"
fi

# another subsystem on a third port: listed, not joined
n=$(log_count "$CHANGED")
ctl add-subsys "$NQN2" allow_any_host=1 && ctl add-ns "$NQN2" 1 null:size=8m &&
	ctl add-port 3 tcp 127.0.0.1 "$PORT3" && ctl link 3 "$NQN2"
if wait_log "$CHANGED" $((n + 1)); then
	sleep 0.5 # the notices of each step read
	check "another subsystem's port: nothing joined" \
		test "$(log_count 'new in the discovery log|joined')" = 0
	check "another subsystem's port: the last read lists 1 path, 0 new" \
		grep -qE "$CHANGED \(generation [0-9]+\): 1 path for the subsystem, 0 new" \
		<(grep -E "$CHANGED" "$ERR" | tail -n 1)
else
	fail "another subsystem's port: the log read again" "$(tail -n 3 "$ERR")"
fi

# the job's subsystem on port 2: a second path, joined under I/O
ctl link 2 "$NQN"
JOINED="path 127\.0\.0\.1:$PORT2: connected \(ANA state optimized\): joined \(found by discovery\)"
if wait_log "$JOINED"; then
	pass "link on port 2: the path joins (log line)"
	check "link on port 2: one line naming it new" \
		test "$(log_count "path 127\.0\.0\.1:$PORT2: new in the discovery log at 127\.0\.0\.1:$PORT: connecting")" = 1
else
	fail "link on port 2: the path joins" "$(tail -n 3 "$ERR")"
fi
sleep 1 # round-robin over both

# port 1 down: the I/O carries on on port 2
BOTH="$CHANGED \(generation [0-9]+\): 2 paths for the subsystem, 0 new"
both=$(log_count "$BOTH")
ctl port-down 1
sleep 0.5
w0=$(writes_now)
check "port 1 down: the writes go on through port 2" wait_writes $((w0 + 256))
ctl port-up 1
check "port 1 up: the discovery controller reconnects" \
	wait_log "discovery controller at 127\.0\.0\.1:$PORT: resetting -> live"
check "port 1 up: the log read again: 2 paths, 0 new" \
	wait_log "$BOTH" $((both + 1))

# the job ended as a user would (SIGTERM: fio's orderly stop, 128)
kill -TERM "$(pgrep -P "$BPID" -x mqblk)"
wait "$BPID" || RC=$?
check "the job ends when told (exit 128, fio's)" test "$RC" = 128
check "the job: no sanitizer report" test -z "$(sanitizer_report "$ERR")"
PATHS=$(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["jobs"][0]
mp = m["multipath"]
print(len(mp["paths"]), mp["paths_discovered"], m["mqblk"]["verify_errors"],
      m["read"]["total_ios"] > 0,
      " ".join("%s:%d:%d:%d" % (p["name"], p["discovered"], p["completed"] > 0,
                                p["failovers"] >= 0) for p in mp["paths"]))
' "$OUT" 2>&1)
check "JSON: 2 paths, 1 discovered, no verify error, reads verified ($PATHS)" \
	grep -qE "^2 1 0 True " <<<"$PATHS"
check "JSON: both paths carried I/O, the second one discovered" \
	grep -qE "127\.0\.0\.1:$PORT:0:1:1 127\.0\.0\.1:$PORT2:1:1:1$" <<<"$PATHS"

# bad keys: one line, exit 1
run bench --name=bad --filename="nvme-tcp://127.0.0.1:$PORT,127.0.0.1:$PORT2/$NQN?persistent_discovery=1" \
	--rw=read --size=1m
failed "persistent_discovery without paths=discover" \
	"persistent_discovery= goes with paths=discover"
run bench --name=bad --filename="nvme-tcp://127.0.0.1:$PORT/$NQN?paths=discover&persistent_discovery=2" \
	--rw=read --size=1m
failed "persistent_discovery=2" "persistent_discovery"

# persistent_discovery=0: the log read once, no controller kept
run bench --name=once --filename="nvme-tcp://127.0.0.1:$PORT/$NQN?paths=discover&persistent_discovery=0" \
	--rw=randread --bs=4k --size=8m --runtime=1 --time_based
ok "persistent_discovery=0: runs over both ports" &&
	check "persistent_discovery=0: both ports are paths" has_re \
		"127.0.0.1:$PORT .*127.0.0.1:$PORT2 |127.0.0.1:$PORT2 .*127.0.0.1:$PORT "

finish
