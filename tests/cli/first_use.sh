#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a new user met first (issue 21, section 5), each now a check:
# a target with 300 namespaces answers its host's shutdown; the target's
# reactors follow the process's CPU affinity (taskset); unknown and
# duplicate URI keys, other URL schemes and a bad discover port are
# refused before any connection, naming what was typed; a job whose
# target goes away ends at its runtime (what is held for the reconnect
# fails as errors) and on one SIGINT with its report; a target no host
# may use says so, and counts only the namespaces it exports.
# Usage: bash tests/cli/first_use.sh build/mqblk
source "$(dirname "$0")/lib.sh"

NQN=nqn.2026-12.io.mqblk:first-use
HOST=nqn.2026-12.io.mqblk:first-host

# ---- 300 namespaces: the shutdown is answered -----------------------------
nsargs=()
for i in $(seq 300); do
	nsargs+=(--ns null:size=1m)
	((i > 150)) && nsargs+=(--ana-group "$i:2")
done
if start_target -v "${nsargs[@]}" --allow-host "$HOST"; then
	check "300 namespaces: the log counts them" \
		grep -q "($((300)) namespaces)" "$TLOG"
	run bench --name=n300 --filename="$(uri nsid=300)" --rw=randread \
		--bs=4k --size=1m --number_ios=64
	ok "300 namespaces: I/O to nsid 300, then the host exits"
	# the host's exit shuts the controller down (Property Set CC.SHN):
	# answered, not left to the keep-alive teardown
	check "300 namespaces: the shutdown was answered (shutdown complete)" \
		grep -q 'shutdown complete' "$TLOG"
	check "300 namespaces: no keep-alive teardown" \
		bash -c "! grep -qi 'keep.alive' '$TLOG'"
	stop_target
else
	fail "300 namespaces: the target starts"
fi

# ---- reactors from the CPU affinity ---------------------------------------
# ready_line: the target's "ready" line in TLOG
ready_line()
{
	grep -m1 'ready:' "$TLOG"
}
if ! command -v taskset >/dev/null; then
	skip_setup "taskset -c 0" "no taskset (util-linux)"
else
	PORT=$(free_port)
	: >"$TLOG"
	taskset -c 0 "$MQBLK" target --listen "127.0.0.1:$PORT" --nqn "$NQN" \
		--ns null:size=1m --allow-host "$HOST" --busy-poll \
		>"$TLOG" 2>&1 </dev/null &
	TPID=$!
	if wait_ready; then
		check "taskset -c 0: one reactor, on CPU 0 ($(ready_line))" \
			grep -q 'ready: 1 reactor on CPU 0' "$TLOG"
		run bench --name=ts --filename="$(uri)" --rw=randread --bs=4k \
			--size=1m --number_ios=64
		ok "taskset -c 0: I/O through the one reactor"
		stop_target
	else
		fail "taskset -c 0: the target starts"
	fi
	last=$(($(nproc --all) - 1))
	if ((last < 1)) || ! taskset -c "$last" true 2>/dev/null; then
		skip "taskset -c LAST" "one CPU"
	else
		PORT=$(free_port)
		: >"$TLOG"
		taskset -c "$last" "$MQBLK" target --listen "127.0.0.1:$PORT" \
			--nqn "$NQN" --ns null:size=1m --allow-host "$HOST" \
			>"$TLOG" 2>&1 </dev/null &
		TPID=$!
		if wait_ready; then
			check "taskset -c $last: its reactor on CPU $last ($(ready_line))" \
				grep -q "ready: 1 reactor on CPU $last" "$TLOG"
			stop_target
		else
			fail "taskset -c $last: the target starts"
		fi
	fi
fi

# ---- URI keys, schemes, discover's port -----------------------------------
run bench --name=dup --filename='null:size=1g,size=2g' --rw=read --size=1m
failed "null:size=1g,size=2g: refused, both named" \
	"device parameter size given twice \(size=1g and size=2g\)"
run bench --name=s --filename='nvme+tcp://127.0.0.1:4420/nqn.x' --rw=read \
	--size=1m
failed "nvme+tcp://: the scheme named as typed" \
	"'nvme\+tcp://127.0.0.1:4420/nqn.x': unknown URL scheme 'nvme\+tcp://'"
run bench --name=s --filename="file://$TMP/f.img" --rw=read --size=1m
failed "file:///PATH: the path suggested" \
	"no file:// URLs; give the path itself \($TMP/f.img\)"
run discover -t tcp -a 127.0.0.1 -s 99999
failed "discover -s 99999: the option named, not a URI" \
	"--trsvcid/-s '99999': not a port number" &&
	check "discover -s 99999: no 'URI' in the message" \
		bash -c "! grep -q URI '$ERR'"
# a target that does not allow this host: an unknown key must be said
# before any Connect (the target sees no connection at all)
if start_target -v --ns null:size=1m --allow-host "$HOST"; then
	bad="nvme-tcp://127.0.0.1:$PORT/$NQN?hostnqn=nqn.2026-12.io.mqblk:other&bogus=1"
	run bench --name=bogus --filename="$bad" --rw=read --size=1m
	failed "nvme-tcp URI ?bogus=1: the key named, not 'host not allowed'" \
		"unknown parameter 'bogus' for device nvme_tcp" &&
		check "?bogus=1: the target saw no connection" \
			bash -c "! grep -q 'connection from' '$TLOG'"
	run bench --name=bogus2 --filename="$(uri "kato=5&kato=6")" --rw=read \
		--size=1m
	failed "nvme-tcp URI kato given twice: refused" \
		"device parameter kato given twice"
	run bench --name=bogusmp \
		--filename="nvme-tcp://127.0.0.1:$PORT/$NQN?iopolicy=numa&hostnqn=$HOST&bogus=1" \
		--rw=read --size=1m
	failed "multipath URI ?bogus=1: the key named" \
		"unknown parameter 'bogus' for device nvme_mpath"
	stop_target
fi

# ---- a target gone mid-run --------------------------------------------------
# The job ends at its runtime: what its device holds for the reconnect
# (ctrl_loss_tmo 600 s by default) fails then, as the job's errors.
if start_target --ns null:size=64m --allow-host "$HOST"; then
	run_bg bench --name=gone --filename="$(uri)" --rw=randread --bs=4k \
		--iodepth=8 --runtime=3 --time_based --output-format=json
	sleep 1
	kill_target
	wait "$BPID" || RC=$?
	why=$(status_problem)
	check "target gone, --runtime=3: the job ends by itself${why:+ ($why)}" \
		test -z "$why"
	check "target gone, --runtime=3: exit status 1 (an I/O error)" \
		test "$RC" = 1
	check "target gone: the held requests failed when the job ended" \
		grep -qE 'request(s)? held for a reconnection to .* failed when the job ended' "$ERR"
	GONE=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(j["error"] != 0, j["mqblk"]["errors"] > 0, j["read"]["total_ios"] > 0)
' "$OUT" 2>&1)
	check "target gone: the report has the error and the errors counted ($GONE)" \
		test "$GONE" = "True True True"
fi
# The same through the multipath device (one path): it holds the requests
# itself, for a usable path, and gives them up the same way.
if start_target --ns null:size=64m --allow-host "$HOST"; then
	run_bg bench --name=gonemp \
		--filename="$(uri "iopolicy=numa&reconnect_delay=1")" \
		--rw=randread --bs=4k --iodepth=8 --runtime=3 --time_based
	sleep 1
	kill_target
	wait "$BPID" || RC=$?
	why=$(status_problem)
	check "multipath, target gone, --runtime=3: the job ends by itself${why:+ ($why)}" \
		test -z "$why"
	check "multipath, target gone: exit status 1 (an I/O error) ($RC)" \
		test "$RC" = 1
	check "multipath, target gone: the held requests failed when the job ended" \
		grep -qE 'request(s)? held for a usable path failed' "$ERR"
fi
# One SIGINT ends such a run, with its report.
if start_target --ns null:size=64m --allow-host "$HOST"; then
	run_bg bench --name=gone2 --filename="$(uri)" --rw=randread --bs=4k \
		--iodepth=8 --runtime=60 --time_based
	sleep 1
	kill_target
	sleep 0.5
	kill -INT "$(pgrep -P "$BPID" -x mqblk)"
	wait "$BPID" || RC=$?
	# 128 is the status it must have (fio's), not a crash
	check "target gone, one SIGINT: the run ends, not killed at its time limit ($RC)" \
		test "$RC" != 124 -a "$RC" != 137
	check "target gone, one SIGINT: exit status 128 ($RC)" test "$RC" = 128
	check "target gone, one SIGINT: the report is printed" \
		grep -q 'Run status group' "$OUT"
fi

# ---- no host allowed; a disabled namespace ----------------------------------
if start_target --ns null:size=1m; then
	check "neither --allow-host nor --allow-any-host: a warning" \
		grep -q "warning: $NQN allows no host: no host can connect" "$TLOG"
	stop_target
fi
if start_target --ns null:size=1m --allow-any-host; then
	check "--allow-any-host: no warning" \
		bash -c "! grep -q 'allows no host' '$TLOG'"
	stop_target
fi
PORT=$(free_port)
cat >"$TMP/disabled.json" <<EOF
{"ports":[{"portid":1,"addr":{"trtype":"tcp","adrfam":"ipv4","traddr":"127.0.0.1","trsvcid":"$PORT"},"subsystems":["$NQN"]}],
 "subsystems":[{"nqn":"$NQN","attr":{"allow_any_host":"1"},
  "namespaces":[{"nsid":1,"enable":1,"device":{"path":"null:size=1m"}},
                {"nsid":2,"enable":0,"device":{"path":"null:size=1m"}}]}],
 "hosts":[]}
EOF
: >"$TLOG"
"$MQBLK" target --config "$TMP/disabled.json" >"$TLOG" 2>&1 </dev/null &
TPID=$!
if wait_ready; then
	check "a disabled namespace is not counted: (1 namespaces)" \
		grep -q "$NQN (1 namespaces)" "$TLOG"
	stop_target
else
	fail "--config with a disabled namespace: the target starts"
fi

finish
