#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One subsystem on two ports (two --listen) with ANA, driven by mqblk's own
# host tools (the kernel's nvme-tcp is not in this container): mqblk
# ana-log per path, `mqblk ctl` setting a group inaccessible on one port
# (bench on that path fails, on the other works), stats, port-down (the
# path's bench fails, its connections are closed) and port-up, the
# one-line refusals of bad input, mqblk's multipath host through an ANA
# change and a port loss under a verify run, and 300 namespaces.
# Usage: bash tests/cli/ana.sh build/mqblk
source "$(dirname "$0")/lib.sh"

NQN=nqn.2026-12.io.mqblk:ana
HOST=nqn.2026-12.io.mqblk:ana-host
CTL=$TMP/ctl.sock

PORT2=$(free_port)
start_target --listen "127.0.0.1:$PORT2" --ns null:size=64m \
	--ns null:size=64m --ana-group 2:2 --ana "2:2=non-optimized" \
	--allow-host "$HOST" --reactors 2 --ctl "$CTL" || {
	fail setup "no target"
	finish
}

# path N [KEYS]: the subsystem through port N (1 or 2) as HOST
path()
{
	local p=$PORT
	[[ $1 == 2 ]] && p=$PORT2
	echo "nvme-tcp://127.0.0.1:$p/$NQN?hostnqn=$HOST${2:+&$2}"
}

# bench_on N NSID: 200 random 4 KiB reads through port N
bench_on()
{
	run bench --name=ana --filename="$(path "$1" "nsid=$2")" \
		--rw=randread --bs=4k --size=1m --number_ios=200
}

# ana_group_state GROUP: the state the last ana-log printed for GROUP
ana_group_state()
{
	awk -v g="$1" '$1 == "grpid" { cur = $3 }
		$1 == "state" && cur == g { print $3 }' "$OUT"
}

# ---- the ANA log through each path
run ana-log "$(path 1)"
if ok "ana-log: port 1"; then
	check "ana-log: header" has "ANA LOG HEADER :-"
	check "ana-log: two groups" has_re "^ngrps	:	2$"
	check "ana-log: group 1 optimized on port 1" \
		test "$(ana_group_state 1)" = optimized
	check "ana-log: group 2 optimized on port 1" \
		test "$(ana_group_state 2)" = optimized
	check "ana-log: nsid 1 and 2 listed" \
		test "$(grep -c '	nsid	:	[12]$' "$OUT")" = 2
fi
run ana-log "$(path 2)"
if ok "ana-log: port 2"; then
	check "ana-log: --ana 2:2=non-optimized shows on port 2" \
		test "$(ana_group_state 2)" = non-optimized
fi
run ana-log --groups-only -o json "$(path 2)"
if ok "ana-log: -g -o json"; then
	check "ana-log json: groups without NSIDs" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
g = d["ANA DESC LIST "]
sys.exit(0 if d["ngrps"] == 2 and [x["nnsids"] for x in g] == [0, 0]
	 and g[1]["state"] == "non-optimized" else 1)' "$OUT"
fi

# ---- both paths read
bench_on 1 1
ok "bench: nsid 1 through port 1"
bench_on 2 1
ok "bench: nsid 1 through port 2"

# ---- group 1 inaccessible on port 2
run ctl "$CTL" ana 1 "127.0.0.1:$PORT2" inaccessible
ok "ctl: ana 1 127.0.0.1:PORT2 inaccessible"
run ana-log "$(path 2)"
if ok "ana-log: port 2 after the change"; then
	check "ana-log: group 1 inaccessible on port 2" \
		test "$(ana_group_state 1)" = inaccessible
	check "ana-log: change count 1" has_re "^chgcnt	:	1$"
fi
run ana-log "$(path 1)"
ok "ana-log: port 1 after the change" &&
	check "ana-log: group 1 still optimized on port 1" \
		test "$(ana_group_state 1)" = optimized
bench_on 2 1
failed "bench: nsid 1 through port 2 fails" "Input/output error"
grep -q "port 2 (127.0.0.1:$PORT2): ANA group 1 inaccessible" "$TLOG" &&
	pass "target log: the change" ||
	fail "target log: the change" "not logged"
bench_on 2 2
ok "bench: nsid 2 (group 2) through port 2 still works"
bench_on 1 1
ok "bench: nsid 1 through port 1 still works"
run ctl "$CTL" ana 1 2 optimized
ok "ctl: ana 1 2 optimized (port by ID)"
bench_on 2 1
ok "bench: nsid 1 through port 2 works again"

# ---- stats
run ctl "$CTL" stats
if ok "ctl: stats"; then
	check "stats: port 1 line" has_re \
		"^port 1 127\.0\.0\.1:$PORT up connections [0-9]+ ana 1:optimized 2:optimized$"
	check "stats: port 2 line" has_re \
		"^port 2 127\.0\.0\.1:$PORT2 up connections [0-9]+ ana 1:optimized 2:non-optimized$"
	check "stats: change count" has "ana change count 2"
	check "stats: queue table" has_re "^ctrl +qid +peer"
fi

# ---- port-down / port-up
run ctl "$CTL" port-down "127.0.0.1:$PORT2"
ok "ctl: port-down" &&
	check "port-down: says what it closed" has_re \
		"^port 2 127\.0\.0\.1:$PORT2 down: [0-9]+ connections closed$"
bench_on 2 1
failed "bench: through port 2 while it is down fails" "."
bench_on 1 1
ok "bench: port 1 works while port 2 is down"
run ctl "$CTL" stats
ok "ctl: stats while down" &&
	check "stats: port 2 down, no connections" has_re \
		"^port 2 127\.0\.0\.1:$PORT2 down connections 0 "
run ctl "$CTL" port-down 2
failed "ctl: port-down twice is refused" "^mqblk ctl: port-down: port 2 .* is down already$"
run ctl "$CTL" port-up "127.0.0.1:$PORT2"
ok "ctl: port-up"
bench_on 2 1
ok "bench: through port 2 after port-up"
run ctl "$CTL" port-up 2
failed "ctl: port-up of an up port is refused" "^mqblk ctl: port-up: port 2 .* is up$"

# ---- bad input: one line, nonzero exit
run ctl "$CTL" ana 1 2 sleepy
((RC == 2)) && [[ $(wc -l <"$ERR") == 1 ]] &&
	grep -q '^mqblk ctl: ana: sleepy: not an ANA state' "$ERR" &&
	pass "ctl: a bad state: one line, exit 2" ||
	fail "ctl: a bad state" "status $RC: $(first_err)"
run ctl "$CTL" ana 1 9 optimized
failed "ctl: an unknown port" '^mqblk ctl: "9": no port with that ID$'
run ctl "$CTL" ana 1 127.0.0.1:1 optimized
failed "ctl: an unknown address" '"127\.0\.0\.1:1": no such port'
run ctl "$CTL" ana 3 1 optimized
failed "ctl: a group without namespaces" "ANA group 3 does not exist"
run ctl "$CTL" frobnicate
((RC == 2)) && grep -q 'frobnicate: unknown command' "$ERR" &&
	pass "ctl: an unknown command" ||
	fail "ctl: an unknown command" "status $RC: $(first_err)"
run ctl "$TMP/nothing.sock" stats
failed "ctl: no target at the socket" "nothing\.sock"
run target --listen "127.0.0.1:1" --nqn "$NQN" --ns null: --ana 1:1=fast
failed "target: --ana with a bad state" "^mqblk target: --ana: \"1:1=fast\": not an ANA state"
run target --listen "127.0.0.1:1" --nqn "$NQN" --ns null: --ana-group 2:1
failed "target: --ana-group of a missing namespace" "no namespace 2"
run ana-log "nvme-tcp://127.0.0.1:$PORT/nqn.2026-12.io.mqblk:nope?hostnqn=$HOST"
failed "ana-log: an unknown subsystem" "."

# quiet_log NAME: stop the target; its log must hold no sanitizer report
# (the TSan and ASan builds run this test too)
quiet_log()
{
	stop_target
	if grep -qE 'ThreadSanitizer|AddressSanitizer|LeakSanitizer|runtime error' "$TLOG"; then
		fail "$1" "a sanitizer report in the target's log"
		grep -E -A20 'ThreadSanitizer|AddressSanitizer|LeakSanitizer|runtime error' "$TLOG" | head -40
	else
		pass "$1"
	fi
}
quiet_log "target: no sanitizer report after ctl, port-down/up"

# ---- mqblk's multipath host over both ports follows the target: group 1
# inaccessible on port 1, then port 2 down, under a verify run (the
# host's ANA change event and path-related statuses, then a lost path):
# no error, the data verifies, the paths line shows what happened (a
# target of its own: the namespace must keep what is written)
PORT2=$(free_port)
CTL=$TMP/ctl2.sock
start_target --listen "127.0.0.1:$PORT2" --ns null:size=64m,memory_backed=1 \
	--allow-host "$HOST" --reactors 2 --ctl "$CTL" || {
	fail setup "no target for the multipath run"
	finish
}
MPOUT=$TMP/mp.out
MPERR=$TMP/mp.err
# mp_bench NAME: a 6 s verify run through both ports in the background
# (MPPID; report in MPOUT, log in MPERR)
mp_bench()
{
	timeout -k 5 120 "$MQBLK" bench --name="$1" \
		--filename="nvme-tcp://127.0.0.1:$PORT,127.0.0.1:$PORT2/$NQN?hostnqn=$HOST&nsid=1&iopolicy=round-robin&reconnect_delay=1" \
		--rw=randwrite --bs=4k --iodepth=8 --size=16m --runtime=6 \
		--time_based --verify=crc32c --do_verify=1 --verify_fatal=1 \
		>"$MPOUT" 2>"$MPERR" </dev/null &
	MPPID=$!
}
mp_bench mp
# once the device is open and writing (slow under the sanitizers)
wait_writes 64
sleep 0.3
run ctl "$CTL" ana 1 1 inaccessible
ok "multipath: ana 1 1 inaccessible under the run"
sleep 1
run ctl "$CTL" ana 1 1 optimized
ok "multipath: ana 1 1 optimized again"
sleep 0.5
run ctl "$CTL" port-down 2
ok "multipath: port 2 down under the run"
MPRC=0
wait "$MPPID" || MPRC=$?
run ctl "$CTL" port-up 2
ok "multipath: port 2 up again"
if ((MPRC == 0)) && grep -q 'err= *0' "$MPOUT" && ! grep -qE 'err= *[1-9]' "$MPOUT" &&
	grep -q 'verify_errors=0' "$MPOUT"; then
	pass "multipath: the run through an ANA change and a port loss: exit 0, err=0, verified"
else
	fail "multipath: the run" "status $MPRC: $(grep -m2 -E 'err=|mqblk' "$MPOUT" "$MPERR" | tr '\n' ' ')"
fi
mp_line=$(grep -m1 -E '^ *paths *:' "$MPOUT")
check "multipath: port 2's path is not live at the end ($mp_line)" \
	grep -qE "127\.0\.0\.1:$PORT2 \((resetting|connecting|deleting|dead)" <<<"$mp_line"
check "multipath: port 1 carried I/O" \
	grep -qE "127\.0\.0\.1:$PORT \([^)]*\) sent=[1-9]" <<<"$mp_line"
check "multipath: the host heard the ANA change (log)" \
	grep -q 'ANA state optimized -> inaccessible' "$MPERR"

quiet_log "target: no sanitizer report after the multipath run"

# ---- ANATT: a group left in change past twice the target's ANATT (here
# --anatt 1) gets its controller reset by the multipath host, as the
# kernel's nvme_anatt_timeout; the path comes back, the run goes on
PORT2=$(free_port)
start_target --listen "127.0.0.1:$PORT2" --ns null:size=64m,memory_backed=1 \
	--allow-host "$HOST" --ctl "$CTL" --anatt 1 || {
	fail setup "no target for the ANATT run"
	finish
}
run id-ctrl "nvme-tcp://127.0.0.1:$PORT/$NQN?hostnqn=$HOST"
ok "--anatt 1: id-ctrl" && check "--anatt 1: Identify's anatt" has_re "^anatt +: 1\$"
mp_bench anatt
wait_writes 64
run ctl "$CTL" ana 1 2 change
ok "ANATT: ana 1 2 change under the run"
for _ in $(seq 100); do
	grep -q "ANA group 1 in change past 2 x ANATT (1 s): resetting the controller" "$MPERR" && break
	sleep 0.1
done
run ctl "$CTL" ana 1 2 optimized
ok "ANATT: ana 1 2 optimized again"
MPRC=0
wait "$MPPID" || MPRC=$?
check "ANATT: the run completes (exit 0, status $MPRC)" test "$MPRC" = 0
check "ANATT: verified" grep -q 'verify_errors=0' "$MPOUT"
check "ANATT: the path in change past 2 x ANATT was reset" \
	grep -q "127.0.0.1:$PORT2: ANA group 1 in change past 2 x ANATT (1 s): resetting the controller" "$MPERR"
mp_line=$(grep -m1 -E '^ *paths *:' "$MPOUT")
check "ANATT: port 2's path reconnected and is live again ($mp_line)" \
	grep -qE "127\.0\.0\.1:$PORT2 \(live, optimized[^)]*\) sent=[0-9]+ completed=[0-9]+ failovers=[0-9]+ reconnects=[1-9]" <<<"$mp_line"
quiet_log "target: no sanitizer report after the ANATT run"

# ---- 300 namespaces: the ANA log past the 228 where a Linux host once
# failed on another target, through the whole host stack
args=()
for _ in $(seq 300); do args+=(--ns null:size=1m); done
start_target "${args[@]}" --ana-group 299:2 --ana-group 300:2 \
	--allow-host "$HOST" --reactors 1 || {
	fail setup "no 300-namespace target"
	finish
}
run ana-log "$(path 1)"
if ok "ana-log: 300 namespaces"; then
	check "ana-log: 300 NSIDs, each once" \
		test "$(grep -E '^	nsid	:	[0-9]+$' "$OUT" | sort -u | wc -l)" = 300
	check "ana-log: group 1 has 298, group 2 has 2" \
		test "$(awk '$1 == "nnsids" { printf "%s ", $3 }' "$OUT")" = "298 2 "
fi
run ana-log -o json "$(path 1)"
ok "ana-log -o json: 300 namespaces" &&
	check "ana-log json: NSIDs 1..300 in order" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
n = [x["nsid"] for g in d["ANA DESC LIST "] for x in g["NSIDS"]]
sys.exit(0 if n == list(range(1, 299)) + [299, 300] else 1)' "$OUT"
quiet_log "target: no sanitizer report with 300 namespaces"

# ---- an ANA log longer than a page through the multipath host: 128
# namespaces each in a group of its own (16 + 128 x 36 = 4624 bytes), the
# last group inaccessible on port 1: its descriptor lies past 4 KiB, and
# the host must read it to send nothing to port 1
args=()
for i in $(seq 128); do args+=(--ns null:size=1m --ana-group "$i:$i"); done
PORT2=$(free_port)
start_target --listen "127.0.0.1:$PORT2" "${args[@]}" --ana 1:128=inaccessible \
	--allow-host "$HOST" --reactors 1 || {
	fail setup "no 128-group target"
	finish
}
run bench --name=big --filename="nvme-tcp://127.0.0.1:$PORT,127.0.0.1:$PORT2/$NQN?hostnqn=$HOST&nsid=128&iopolicy=round-robin" \
	--rw=randread --bs=4k --size=1m --number_ios=200
if ok "multipath: nsid 128 with 128 ANA groups"; then
	mp_line=$(grep -m1 -E '^ *paths *:' "$OUT")
	check "multipath: group 128 read past 4 KiB: port 1 inaccessible, sent nothing ($mp_line)" \
		grep -qE "127\.0\.0\.1:$PORT \(live, inaccessible[^)]*\) sent=0 " <<<"$mp_line"
	check "multipath: all 200 reads on port 2" \
		grep -qE "127\.0\.0\.1:$PORT2 \(live, optimized[^)]*\) sent=200 " <<<"$mp_line"
fi
quiet_log "target: no sanitizer report with 128 ANA groups"

finish
